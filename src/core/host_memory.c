/* host_memory.c: the library's host allocations, through the caller's
 * bitonic_allocator or the C library (host_memory.h). */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE, with the POSIX names */
#include "host_memory.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

bool bitonic_host_memory_from_chain(const void *next, bitonic_host_memory *out)
{
    *out = (bitonic_host_memory){0};
    for (const bitonic_chain_entry *entry = next; entry; entry = entry->next) {
        if (entry->type != BITONIC_STRUCTURE_TYPE_ALLOCATOR)
            continue;
        const bitonic_allocator *allocator = (const bitonic_allocator *)(const void *)entry;
        if ((allocator->allocate == NULL) != (allocator->free == NULL))
            return false;
        *out = (bitonic_host_memory){.allocate = allocator->allocate, .free = allocator->free,
                                     .user_data = allocator->user_data, .vulkan = allocator->vulkan};
        return true;
    }
    return true;
}

void *bitonic_host_memory_alloc_aligned(const bitonic_host_memory *memory, size_t bytes, size_t alignment)
{
    if (alignment < alignof(max_align_t))
        alignment = alignof(max_align_t);
    if (bytes == 0)
        bytes = 1;
    if (memory && memory->allocate)
        return memory->allocate(memory->user_data, bytes, alignment);
    if (alignment == alignof(max_align_t))
        return malloc(bytes);
    void *block = NULL;
    return posix_memalign(&block, alignment, bytes) == 0 ? block : NULL;
}

void *bitonic_host_memory_alloc(const bitonic_host_memory *memory, size_t bytes)
{
    return bitonic_host_memory_alloc_aligned(memory, bytes, alignof(max_align_t));
}

/* A huge page of x86-64 and of most arm64 kernels. */
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* With 4 KiB pages every first touch of a fresh buffer faults: 800 MB took
 * 350-380 ms to touch on the 2-core machine, against 75-85 ms in huge pages,
 * and the sort of 2^26 pairs of 64-bit keys (a fresh scratch of 800 MB each
 * call) spent a third of its time so (docs/perf-log.md, entry 140). */
void *bitonic_host_memory_alloc_large(const bitonic_host_memory *memory, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if ((!memory || !memory->allocate) && bytes >= HUGE_PAGE_BYTES && bytes <= SIZE_MAX - HUGE_PAGE_BYTES) {
        size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
        void *block = bitonic_host_memory_alloc_aligned(memory, rounded, HUGE_PAGE_BYTES);
        if (block) /* advice only: without it the pages are small */
            (void)madvise(block, rounded, MADV_HUGEPAGE);
        return block;
    }
#endif
    return bitonic_host_memory_alloc(memory, bytes);
}

void *bitonic_host_memory_calloc(const bitonic_host_memory *memory, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *block = bitonic_host_memory_alloc(memory, count * size);
    if (block)
        memset(block, 0, count * size);
    return block;
}

void bitonic_host_memory_free(const bitonic_host_memory *memory, void *pointer)
{
    if (!pointer)
        return;
    if (memory && memory->free)
        memory->free(memory->user_data, pointer);
    else
        free(pointer);
}
