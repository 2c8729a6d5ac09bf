/* host_memory.h: where the library's own host memory comes from: the caller's
 * bitonic_allocator (an entry of the context description's chain, bitonic.h)
 * or, without one, the C library. Every object a context owns keeps a copy of
 * this struct, or a pointer to the context's, and allocates and frees through
 * it, so a caller's allocator sees each block the library makes for the
 * context and its frees. A NULL bitonic_host_memory pointer is the C library's
 * too, for code that runs without a context (the cache readers' tests). */
#ifndef BITONIC_HOST_MEMORY_H
#define BITONIC_HOST_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "bitonic.h"

typedef struct bitonic_host_memory {
    bitonic_allocate_fn allocate;    /* NULL: the C library's malloc and free */
    bitonic_free_fn free;
    void *user_data;
    /* The caller's VkAllocationCallbacks for the Vulkan objects (NULL: the
     * driver's); the Vulkan backend copies the struct it points to. */
    const struct VkAllocationCallbacks *vulkan;
} bitonic_host_memory;

/* The allocator entry of the chain that starts at next, copied, or the C
 * library's when there is none. False when the entry is malformed: one of
 * allocate and free without the other. */
bool bitonic_host_memory_from_chain(const void *next, bitonic_host_memory *out);

/* bytes at the alignment of any C object (16 bytes on 64-bit targets), or
 * NULL. A request of 0 bytes gets a block of 1, so NULL always means failure. */
void *bitonic_host_memory_alloc(const bitonic_host_memory *memory, size_t bytes);
/* The same at alignment (a power of two; smaller than the default is raised to it). */
void *bitonic_host_memory_alloc_aligned(const bitonic_host_memory *memory, size_t bytes, size_t alignment);
/* A large buffer that a sort streams through (its scratch): as
 * bitonic_host_memory_alloc, and from the C library on Linux, from 2 MiB up,
 * aligned to 2 MiB and marked for transparent huge pages (MADV_HUGEPAGE),
 * where the kernel gives them on request (the default of Debian and Ubuntu). */
void *bitonic_host_memory_alloc_large(const bitonic_host_memory *memory, size_t bytes);
/* count * size bytes, zeroed; NULL when the product overflows. */
void *bitonic_host_memory_calloc(const bitonic_host_memory *memory, size_t count, size_t size);
/* NULL is ignored. */
void bitonic_host_memory_free(const bitonic_host_memory *memory, void *pointer);

#endif /* BITONIC_HOST_MEMORY_H */
