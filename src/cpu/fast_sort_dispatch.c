/* fast_sort_dispatch.c: the entry point of the fast CPU sort and its sequential
 * driver. It picks the kernels (AVX-512, AVX2 or portable) from the CPU's features,
 * answers already-sorted and reversed input in one pass, and otherwise runs a
 * quicksort whose partitions and leaves are the chosen kernels; descending order
 * is the ascending sort reversed, which is exact for keys without payloads.
 * Threading lives in fast_sort_threads.c. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, so taskset and cpusets limit the threads */
#endif
#include "fast_sort.h"

#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

#if defined(BITONIC_CPU_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
#define BITONIC_CPU_DETECT_X86 1
#endif

int bitonic_cpu_target_supported(bitonic_cpu_target target)
{
    switch (target) {
    case BITONIC_CPU_TARGET_AUTO:
    case BITONIC_CPU_TARGET_PORTABLE:
        return 1;
#ifdef BITONIC_CPU_DETECT_X86
    /* __builtin_cpu_supports reads the table libgcc fills once at start-up,
     * including the OS check (XGETBV) that the wide registers are saved. */
    case BITONIC_CPU_TARGET_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("popcnt");
    case BITONIC_CPU_TARGET_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#endif
    default:
        return 0;
    }
}

bitonic_cpu_target bitonic_cpu_best_target(void)
{
    if (bitonic_cpu_target_supported(BITONIC_CPU_TARGET_AVX512))
        return BITONIC_CPU_TARGET_AVX512;
    if (bitonic_cpu_target_supported(BITONIC_CPU_TARGET_AVX2))
        return BITONIC_CPU_TARGET_AVX2;
    return BITONIC_CPU_TARGET_PORTABLE;
}

const char *bitonic_cpu_target_name(bitonic_cpu_target target)
{
    switch (target) {
    case BITONIC_CPU_TARGET_AUTO: return "auto";
    case BITONIC_CPU_TARGET_PORTABLE: return "portable";
    case BITONIC_CPU_TARGET_AVX2: return "avx2";
    case BITONIC_CPU_TARGET_AVX512: return "avx512";
    default: return "unknown";
    }
}

static const bitonic_cpu_kernels *kernels_for(bitonic_cpu_target target)
{
    switch (target) {
#ifdef BITONIC_CPU_HAVE_X86
    case BITONIC_CPU_TARGET_AVX2: return &bitonic_cpu_kernels_avx2;
    case BITONIC_CPU_TARGET_AVX512: return &bitonic_cpu_kernels_avx512;
#endif
    default: return &bitonic_cpu_kernels_portable;
    }
}

static void sift_down(uint32_t *keys, size_t root, size_t count)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= count)
            return;
        if (child + 1 < count && keys[child + 1] > keys[child])
            child++;
        if (keys[root] >= keys[child])
            return;
        uint32_t swap = keys[root];
        keys[root] = keys[child];
        keys[child] = swap;
        root = child;
    }
}

/* The depth guard's fallback: O(n log n) whatever the input. */
static void heap_sort(uint32_t *keys, size_t count)
{
    for (size_t i = count / 2; i-- > 0;)
        sift_down(keys, i, count);
    for (size_t end = count; end-- > 1;) {
        uint32_t top = keys[0];
        keys[0] = keys[end];
        keys[end] = top;
        sift_down(keys, 0, end);
    }
}

/* A cheap mixing function, so sample positions do not line up with periodic
 * patterns in the input; deterministic, so no state is kept between calls. */
static size_t sample_jitter(size_t index, size_t salt)
{
    uint64_t x = (uint64_t)index * 0x9E3779B97F4A7C15ull ^ (uint64_t)salt;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (size_t)x;
}

uint32_t bitonic_cpu_choose_pivot(const bitonic_cpu_kernels *kernels, const uint32_t *keys, size_t count,
                                  size_t sample_count)
{
    uint32_t sample[BITONIC_CPU_MAX_PIVOT_SAMPLE];
    if (sample_count > BITONIC_CPU_MAX_PIVOT_SAMPLE)
        sample_count = BITONIC_CPU_MAX_PIVOT_SAMPLE;
    if (sample_count > count)
        sample_count = count;
    size_t stride = count / sample_count;
    /* Scale the 32-bit hash into [0, stride) with a multiply instead of a
     * division, which cost a tenth of the sort at 2^20 keys. */
    if (stride <= UINT32_MAX) {
        for (size_t i = 0; i < sample_count; i++)
            sample[i] = keys[i * stride + (size_t)(((sample_jitter(i, count) & UINT32_MAX) * (uint64_t)stride) >> 32)];
    } else {
        for (size_t i = 0; i < sample_count; i++)
            sample[i] = keys[i * stride + sample_jitter(i, count) % stride];
    }
    bitonic_cpu_sort_sequential(kernels, sample, sample_count);
    return sample[sample_count / 2];
}

static size_t floor_log2(size_t value)
{
    size_t log = 0;
    while (value >>= 1)
        log++;
    return log;
}

size_t bitonic_cpu_depth_budget(size_t count)
{
    return 2 * floor_log2(count) + 4;
}

/* key_floor: no key in the range is below it (the pivot that split the range off
 * as its upper side, else 0). A pivot equal to the floor would leave nothing
 * below it, so that pass is skipped and the keys equal to it are split off at
 * once: on 16 distinct values this saves one of the two passes per value. */
static void quick_sort(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, size_t depth_budget,
                       uint32_t key_floor)
{
    while (count > kernels->base_keys) {
        if (depth_budget-- == 0) {
            heap_sort(keys, count);
            return;
        }
        /* Larger samples only pay off where a partition pass is long. */
        size_t sample_count = count >= 8192 ? 64 : 16;
        if (sample_count > kernels->base_keys)
            sample_count = kernels->base_keys;
        uint32_t pivot = bitonic_cpu_choose_pivot(kernels, keys, count, sample_count);
        size_t below = pivot == key_floor ? 0 : kernels->partition(keys, count, pivot);
        if (below == 0) {
            size_t equal = bitonic_cpu_split_equal(kernels, keys, count, pivot);
            keys += equal;
            count -= equal;
            key_floor = pivot + (count > 0); /* the rest is above the pivot */
            continue;
        }
        /* Recurse into the smaller side and loop on the larger, so the stack
         * stays O(log n) deep. */
        if (below < count - below) {
            quick_sort(kernels, keys, below, depth_budget, key_floor);
            keys += below;
            count -= below;
            key_floor = pivot;
        } else {
            quick_sort(kernels, keys + below, count - below, depth_budget, pivot);
            count = below;
        }
    }
    kernels->base_sort(keys, count);
}

/* The pivot was the smallest key, so nothing fell below it: move the keys equal
 * to it to the front (they are in place) and return how many there are. Without
 * this, all-equal and few-distinct inputs would recurse without progress. */
size_t bitonic_cpu_split_equal(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, uint32_t pivot)
{
    if (pivot == UINT32_MAX)
        return count;
    return kernels->partition(keys, count, pivot + 1);
}

void bitonic_cpu_sort_sequential(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count)
{
    quick_sort(kernels, keys, count, bitonic_cpu_depth_budget(count), 0);
}

void bitonic_cpu_sort_with_depth_budget(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count,
                                        size_t depth_budget)
{
    quick_sort(kernels, keys, count, depth_budget, 0);
}

/* Order checks in blocks of 64 without an early exit inside a block, so the
 * compiler vectorises them (sorted input then costs ~1/10 of a sort); random
 * input still stops after the first block. */
#define ORDER_CHECK_BLOCK 64

static int is_nondecreasing(const uint32_t *keys, size_t count)
{
    size_t i = 1;
    for (; i + ORDER_CHECK_BLOCK <= count; i += ORDER_CHECK_BLOCK) {
        unsigned descents = 0;
        for (size_t j = 0; j < ORDER_CHECK_BLOCK; j++)
            descents |= keys[i + j - 1] > keys[i + j];
        if (descents)
            return 0;
    }
    for (; i < count; i++)
        if (keys[i - 1] > keys[i])
            return 0;
    return 1;
}

static int is_nonincreasing(const uint32_t *keys, size_t count)
{
    size_t i = 1;
    for (; i + ORDER_CHECK_BLOCK <= count; i += ORDER_CHECK_BLOCK) {
        unsigned ascents = 0;
        for (size_t j = 0; j < ORDER_CHECK_BLOCK; j++)
            ascents |= keys[i + j - 1] < keys[i + j];
        if (ascents)
            return 0;
    }
    for (; i < count; i++)
        if (keys[i - 1] < keys[i])
            return 0;
    return 1;
}

/* One thread: the pass is bound by memory, and a second thread only added its
 * start-up (2^22 reversed keys: 1.2 ms alone, 1.8 ms on two threads). */
void bitonic_cpu_reverse(uint32_t *keys, size_t count)
{
    for (size_t i = 0, j = count; i + 1 < j; i++, j--) {
        uint32_t swap = keys[i];
        keys[i] = keys[j - 1];
        keys[j - 1] = swap;
    }
}

/* The cores this thread may run on: the affinity mask on Linux (so taskset and
 * container cpusets are respected), else the online count. Asked per sort, and
 * only for sorts large enough to use threads, since it costs a system call. */
static uint32_t available_cores(void)
{
    long cores = 0;
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cores = CPU_COUNT(&set);
#endif
    if (cores < 1)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1)
        return 1;
    if (cores > BITONIC_CPU_MAX_THREADS)
        return BITONIC_CPU_MAX_THREADS;
    return (uint32_t)cores;
}

bitonic_status bitonic_cpu_sort_u32(uint32_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config)
{
    if (keys == NULL && count > 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (order != BITONIC_ORDER_ASCENDING && order != BITONIC_ORDER_DESCENDING)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_cpu_target target = config ? config->target : BITONIC_CPU_TARGET_AUTO;
    if ((int)target < (int)BITONIC_CPU_TARGET_AUTO || (int)target > (int)BITONIC_CPU_TARGET_AVX512)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (!bitonic_cpu_target_supported(target))
        return BITONIC_ERROR_UNSUPPORTED;
    if (target == BITONIC_CPU_TARGET_AUTO)
        target = bitonic_cpu_best_target();
    if (count < 2)
        return BITONIC_SUCCESS;
    uint32_t threads = config ? config->threads : 0;
    if (threads == 0)
        threads = count >= bitonic_cpu_parallel_min_keys(2) ? available_cores() : 1;
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;

    /* One pass answers sorted, reversed and all-equal input; on random input
     * each check stops after its first block of 64 keys. */
    int wants_descending = order == BITONIC_ORDER_DESCENDING;
    if (wants_descending ? is_nonincreasing(keys, count) : is_nondecreasing(keys, count))
        return BITONIC_SUCCESS;
    if (wants_descending ? is_nondecreasing(keys, count) : is_nonincreasing(keys, count)) {
        bitonic_cpu_reverse(keys, count);
        return BITONIC_SUCCESS;
    }

    bitonic_cpu_sort_parallel(kernels_for(target), keys, count, threads);
    if (wants_descending)
        bitonic_cpu_reverse(keys, count);
    return BITONIC_SUCCESS;
}
