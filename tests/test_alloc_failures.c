/* test_alloc_failures.c: every host allocation of the CPU path failing in
 * turn, SQLite's way. The test binary interposes malloc and its relatives
 * (glibc's __libc_* give the real ones), counts the allocations one scenario
 * makes (a context; sorts of u32, u64, f32, pairs stable and not, argsort,
 * rank map, rows, segments, records; a host block; destroy), then replays it
 * once per allocation with that one failing. Each call must return
 * BITONIC_SUCCESS with a sorted result or BITONIC_ERROR_OUT_OF_HOST_MEMORY,
 * never crash, and every block allocated must be freed once the context is
 * destroyed. One CPU thread, so the count is the same on every replay. Then
 * the scenario once more with a bitonic_allocator in the chain: no block may
 * come from malloc and its relatives then, only from the callbacks (the
 * failures through those are tests/test_allocator.c's). Under
 * AddressSanitizer, which owns malloc, it is not run. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define INTERPOSED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INTERPOSED 0
#endif
#endif
#ifndef INTERPOSED
#define INTERPOSED 1
#endif

#if INTERPOSED
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_bool armed;         /* counting (and failing) this scenario's allocations */
static atomic_long allocations;   /* made while armed */
static atomic_long fail_at = -1;  /* the allocation (0-based) that fails; -1 none */
static atomic_long live;          /* blocks allocated while armed, less those freed */
static atomic_bool failed_one;

/* A block made while armed carries a tag before it (where it starts, and a
 * magic word), so its free is counted whenever it comes, and its start keeps
 * the alignment asked for (at least 64 bytes). */
#define TAG_MAGIC 0x5a17a110c0ffee00ull

static bool should_fail(void)
{
    long index = atomic_fetch_add(&allocations, 1);
    if (index == atomic_load(&fail_at)) {
        atomic_store(&failed_one, true);
        return true;
    }
    return false;
}

static void *tagged_block(size_t alignment, size_t size)
{
    if (alignment < 64)
        alignment = 64;
    if (should_fail() || size > SIZE_MAX - alignment) {
        errno = ENOMEM;
        return NULL;
    }
    unsigned char *block = __libc_memalign(alignment, size + alignment);
    if (!block)
        return NULL;
    unsigned char *pointer = block + alignment;
    ((uint64_t *)pointer)[-1] = TAG_MAGIC;
    ((uintptr_t *)pointer)[-2] = (uintptr_t)block;
    ((uint64_t *)pointer)[-3] = size;
    atomic_fetch_add(&live, 1);
    return pointer;
}

static bool is_tagged(void *pointer)
{
    return pointer && ((uint64_t *)pointer)[-1] == TAG_MAGIC;
}

void *malloc(size_t size)
{
    return atomic_load(&armed) ? tagged_block(64, size) : __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    if (!atomic_load(&armed))
        return __libc_calloc(count, size);
    if (size && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *block = tagged_block(64, count * size);
    if (block)
        memset(block, 0, count * size);
    return block;
}

void free(void *pointer)
{
    if (!is_tagged(pointer)) {
        __libc_free(pointer);
        return;
    }
    ((uint64_t *)pointer)[-1] = 0;
    atomic_fetch_sub(&live, 1);
    __libc_free((void *)((uintptr_t *)pointer)[-2]);
}

void *realloc(void *pointer, size_t size)
{
    if (!pointer)
        return malloc(size);
    if (!is_tagged(pointer)) {
        if (!atomic_load(&armed))
            return __libc_realloc(pointer, size);
        if (should_fail()) {
            errno = ENOMEM;
            return NULL;
        }
        return __libc_realloc(pointer, size);  /* made before arming: stays untagged */
    }
    void *moved = tagged_block(64, size);
    if (!moved)
        return NULL;
    size_t old_size = ((uint64_t *)pointer)[-3];
    memcpy(moved, pointer, old_size < size ? old_size : size);
    free(pointer);
    return moved;
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    void *block = atomic_load(&armed) ? tagged_block(alignment, size) : __libc_memalign(alignment, size);
    if (!block)
        return ENOMEM;
    *out = block;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size)
{
    return atomic_load(&armed) ? tagged_block(alignment, size) : __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size)
{
    return atomic_load(&armed) ? tagged_block(alignment, size) : __libc_memalign(alignment, size);
}

char *strdup(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy)
        memcpy(copy, text, size);
    return copy;
}

/* The public allocator's callbacks for the last check: glibc's own, so the
 * interposed functions above see none of these blocks. */
static atomic_long direct_blocks;

static void *direct_allocate(void *user_data, size_t size, size_t alignment)
{
    (void)user_data;
    atomic_fetch_add(&direct_blocks, 1);
    return __libc_memalign(alignment, size);
}

static void direct_free(void *user_data, void *memory)
{
    (void)user_data;
    __libc_free(memory);
}

/* Large enough for the CPU path's threaded and scratch-using sorts, small enough for a replay a call. */
enum { KEYS = 1 << 17, ROWS = 4, ROW_LENGTH = 5000 };

typedef struct scenario_outcome {
    unsigned calls, succeeded, out_of_memory, wrong;  /* wrong: another status, or a success unsorted */
} scenario_outcome;

static void note(scenario_outcome *outcome, bitonic_status status, bool sorted)
{
    ++outcome->calls;
    if (status == BITONIC_SUCCESS && sorted)
        ++outcome->succeeded;
    else if (status == BITONIC_ERROR_OUT_OF_HOST_MEMORY)
        ++outcome->out_of_memory;
    else
        ++outcome->wrong;
}

static bool u32_sorted(const uint32_t *keys, size_t count)
{
    for (size_t i = 1; i < count; ++i)
        if (keys[i - 1] > keys[i])
            return false;
    return true;
}

static bool u64_sorted(const uint64_t *keys, size_t count)
{
    for (size_t i = 1; i < count; ++i)
        if (keys[i - 1] > keys[i])
            return false;
    return true;
}

typedef struct scenario_arrays {
    uint32_t keys[KEYS], values[KEYS], indices[KEYS], rows[ROWS * ROW_LENGTH];
    uint64_t wide[KEYS];
    float floats[KEYS];
    struct { uint32_t key; uint32_t payload[3]; } records[KEYS];
} scenario_arrays;

static void fill(scenario_arrays *a)
{
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < KEYS; ++i) {
        a->keys[i] = (uint32_t)test_random_u64(&state) % 1000u;
        a->values[i] = (uint32_t)i;
        a->wide[i] = test_random_u64(&state);
        a->floats[i] = (float)(int32_t)test_random_u64(&state) / 1024.0f;
        a->records[i].key = (uint32_t)test_random_u64(&state);
    }
    for (size_t i = 0; i < ROWS * ROW_LENGTH; ++i)
        a->rows[i] = (uint32_t)test_random_u64(&state);
}

/* Every call the CPU path has for host memory, on one context; chain: the
 * description's extension chain (an allocator, or NULL). */
static void run_scenario(scenario_arrays *a, scenario_outcome *outcome, const void *chain)
{
    fill(a);
    bitonic_context *context = NULL;
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.next = chain, .device = "cpu", .cpu_threads = 1, .no_disk_cache = true}, &context);
    note(outcome, status, context != NULL);
    if (status != BITONIC_SUCCESS)
        return;
    const bitonic_sort_options u32 = {.key_type = BITONIC_KEY_U32}, u64 = {.key_type = BITONIC_KEY_U64},
                               f32 = {.key_type = BITONIC_KEY_F32},
                               stable = {.key_type = BITONIC_KEY_U32, .stable = true};
    status = bitonic_sort_u32(context, a->keys, KEYS, NULL);
    note(outcome, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_sort(context, a->wide, KEYS, &u64);
    note(outcome, status, u64_sorted(a->wide, KEYS));
    status = bitonic_sort(context, a->floats, KEYS, &f32);
    bool floats_sorted = true;
    for (size_t i = 1; i < KEYS; ++i)
        floats_sorted = floats_sorted && a->floats[i - 1] <= a->floats[i];
    note(outcome, status, floats_sorted);
    status = bitonic_sort_pairs(context, a->keys, a->values, KEYS, &stable);
    note(outcome, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_sort_pairs(context, a->keys, a->values, KEYS, &u32);
    note(outcome, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_argsort(context, a->keys, KEYS, a->indices, &u32);
    bool ordered = true;
    for (size_t i = 1; i < KEYS && status == BITONIC_SUCCESS; ++i)
        ordered = ordered && a->indices[i] < KEYS && a->keys[a->indices[i - 1]] <= a->keys[a->indices[i]];
    note(outcome, status, ordered);
    status = bitonic_rank_map(context, a->keys, KEYS, a->indices, &u32);
    note(outcome, status, true);
    status = bitonic_sort_rows(context, a->rows, ROWS, ROW_LENGTH, &u32);
    bool rows_sorted = true;
    for (size_t r = 0; r < ROWS; ++r)
        rows_sorted = rows_sorted && u32_sorted(a->rows + r * ROW_LENGTH, ROW_LENGTH);
    note(outcome, status, rows_sorted);
    const size_t offsets[] = {0, 7000, 7000, 21000, KEYS};
    status = bitonic_sort_segments(context, a->keys, offsets, 4, &u32);
    note(outcome, status, u32_sorted(a->keys + 21000, KEYS - 21000));
    status = bitonic_sort_records(context, a->records, KEYS, sizeof a->records[0], 0, &u32);
    bool records_sorted = true;
    for (size_t i = 1; i < KEYS; ++i)
        records_sorted = records_sorted && a->records[i - 1].key <= a->records[i].key;
    note(outcome, status, records_sorted);
    void *block = NULL;
    status = bitonic_host_alloc(context, KEYS * sizeof(uint32_t), &block);
    note(outcome, status, block != NULL);
    if (block) {
        uint32_t *pinned = block;
        for (size_t i = 0; i < KEYS; ++i)
            pinned[i] = KEYS - (uint32_t)i;
        status = bitonic_sort_u32(context, pinned, KEYS, NULL);
        note(outcome, status, u32_sorted(pinned, KEYS));
        bitonic_host_free(context, block);
    }
    bitonic_context_destroy(context);
}

int main(void)
{
    test_counter t = {0};
    static scenario_arrays arrays;
    scenario_outcome clean = {0};
    atomic_store(&allocations, 0);
    atomic_store(&live, 0);
    atomic_store(&armed, true);
    run_scenario(&arrays, &clean, NULL);
    atomic_store(&armed, false);
    long total = atomic_load(&allocations);
    TEST_CHECK(&t, clean.wrong == 0 && clean.out_of_memory == 0 && clean.succeeded == clean.calls,
               "without failures every call succeeds (%u of %u)", clean.succeeded, clean.calls);
    TEST_CHECK(&t, atomic_load(&live) == 0, "without failures no block is left (%ld)", atomic_load(&live));
    TEST_CHECK(&t, total > 0, "the scenario allocates (%ld allocations)", total);
    unsigned long wrong = 0, leaking = 0, unused = 0;
    for (long k = 0; k < total; ++k) {
        scenario_outcome outcome = {0};
        atomic_store(&allocations, 0);
        atomic_store(&live, 0);
        atomic_store(&fail_at, k);
        atomic_store(&failed_one, false);
        atomic_store(&armed, true);
        run_scenario(&arrays, &outcome, NULL);
        atomic_store(&armed, false);
        long left = atomic_load(&live);
        if (outcome.wrong != 0 && wrong++ < 10)
            printf("allocation %ld failing: %u calls answered wrong\n", k, outcome.wrong);
        if (left != 0 && leaking++ < 10)
            printf("allocation %ld failing: %ld blocks left after destroy\n", k, left);
        if (!atomic_load(&failed_one))
            ++unused;
    }
    atomic_store(&fail_at, -1);
    TEST_CHECK(&t, wrong == 0, "each of %ld allocations failing: every call succeeds or says out of host memory "
                               "(%lu wrong)", total, wrong);
    TEST_CHECK(&t, leaking == 0, "each of %ld allocations failing: nothing left after destroy (%lu leaking)", total,
               leaking);
    printf("%ld allocations, each failed in turn (%lu replays allocated less)\n", total, unused);

    /* With an allocator in the chain the same scenario calls no malloc, calloc,
     * realloc or aligned allocation at all: every block comes from the
     * callbacks, which take theirs from glibc directly. */
    bitonic_allocator direct = {.type = BITONIC_STRUCTURE_TYPE_ALLOCATOR, .allocate = direct_allocate,
                                .free = direct_free};
    scenario_outcome through_callbacks = {0};
    atomic_store(&allocations, 0);
    atomic_store(&live, 0);
    atomic_store(&direct_blocks, 0);
    atomic_store(&armed, true);
    run_scenario(&arrays, &through_callbacks, &direct);
    atomic_store(&armed, false);
    TEST_CHECK(&t, through_callbacks.succeeded == through_callbacks.calls && through_callbacks.calls > 0,
               "with an allocator every call succeeds (%u of %u)", through_callbacks.succeeded, through_callbacks.calls);
    TEST_CHECK(&t, atomic_load(&allocations) == 0 && atomic_load(&direct_blocks) > 0,
               "with an allocator the library allocates only through it (%ld other allocations, %ld through it)",
               atomic_load(&allocations), atomic_load(&direct_blocks));
    return test_finish(&t);
}
#else
int main(void)
{
    printf("not run: AddressSanitizer owns malloc (the Release build runs this test)\n");
    return 0;
}
#endif
