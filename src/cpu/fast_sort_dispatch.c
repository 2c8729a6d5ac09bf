/* fast_sort_dispatch.c: the entry points of the fast CPU sort, for 32-bit keys
 * and 64-bit words. They pick the kernels (AVX-512, AVX2 or portable) from the
 * CPU's features, answer already-sorted and reversed input in one pass, and
 * otherwise hand the keys to the driver (fast_sort_driver.inc: the quicksort and
 * its threads); descending order is the ascending sort reversed, which is exact
 * for keys without payloads (pairs packed into words carry their value in the
 * word, so they are sorted ascending after the key is flipped). */
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

/* AVX2 has no unsigned 64-bit compare, min or max, nor a compress, so 64-bit
 * words take the portable kernels there. */
static const bitonic_cpu_kernels64 *kernels64_for(bitonic_cpu_target target)
{
    switch (target) {
#ifdef BITONIC_CPU_HAVE_X86
    case BITONIC_CPU_TARGET_AVX512: return &bitonic_cpu_kernels64_avx512;
#endif
    default: return &bitonic_cpu_kernels64_portable;
    }
}

/* Order checks in blocks of 64 without an early exit inside a block, so the
 * compiler vectorises them (sorted input then costs ~1/10 of a sort); random
 * input still stops after the first block. Reversal runs on one thread: the
 * pass is bound by memory, and a second thread only added its start-up (2^22
 * reversed keys: 1.2 ms alone, 1.8 ms on two threads). One definition per key
 * width. */
#define ORDER_CHECK_BLOCK 64

#define DEFINE_ORDER_HELPERS(KEY, SUFFIX)                                    \
    static int is_nondecreasing_##SUFFIX(const KEY *keys, size_t count)      \
    {                                                                        \
        size_t i = 1;                                                        \
        for (; i + ORDER_CHECK_BLOCK <= count; i += ORDER_CHECK_BLOCK) {     \
            unsigned descents = 0;                                           \
            for (size_t j = 0; j < ORDER_CHECK_BLOCK; j++)                   \
                descents |= keys[i + j - 1] > keys[i + j];                   \
            if (descents)                                                    \
                return 0;                                                    \
        }                                                                    \
        for (; i < count; i++)                                               \
            if (keys[i - 1] > keys[i])                                       \
                return 0;                                                    \
        return 1;                                                            \
    }                                                                        \
    static int is_nonincreasing_##SUFFIX(const KEY *keys, size_t count)      \
    {                                                                        \
        size_t i = 1;                                                        \
        for (; i + ORDER_CHECK_BLOCK <= count; i += ORDER_CHECK_BLOCK) {     \
            unsigned ascents = 0;                                            \
            for (size_t j = 0; j < ORDER_CHECK_BLOCK; j++)                   \
                ascents |= keys[i + j - 1] < keys[i + j];                    \
            if (ascents)                                                     \
                return 0;                                                    \
        }                                                                    \
        for (; i < count; i++)                                               \
            if (keys[i - 1] < keys[i])                                       \
                return 0;                                                    \
        return 1;                                                            \
    }                                                                        \
    static void reverse_##SUFFIX(KEY *keys, size_t count)                    \
    {                                                                        \
        for (size_t i = 0, j = count; i + 1 < j; i++, j--) {                 \
            KEY swap = keys[i];                                              \
            keys[i] = keys[j - 1];                                           \
            keys[j - 1] = swap;                                              \
        }                                                                    \
    }

DEFINE_ORDER_HELPERS(uint32_t, u32)
DEFINE_ORDER_HELPERS(uint64_t, u64)

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

uint32_t bitonic_cpu_sort_threads(size_t count, const bitonic_cpu_sort_config *config)
{
    uint32_t threads = config ? config->threads : 0;
    if (threads == 0)
        threads = count >= 2 * BITONIC_CPU_PARALLEL_MIN_KEYS_PER_THREAD ? available_cores() : 1;
    return threads > BITONIC_CPU_MAX_THREADS ? BITONIC_CPU_MAX_THREADS : threads;
}

/* Checks the arguments and resolves the target and the thread count; returns
 * BITONIC_SUCCESS when the sort should go on. */
static bitonic_status resolve_config(const void *keys, size_t count, bitonic_order order,
                                     const bitonic_cpu_sort_config *config, bitonic_cpu_target *out_target,
                                     uint32_t *out_threads)
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
    *out_target = target;
    *out_threads = bitonic_cpu_sort_threads(count, config);
    return BITONIC_SUCCESS;
}

/* One pass answers sorted, reversed and all-equal input; on random input each
 * check stops after its first block of 64 keys. A finish runs on every key,
 * the sort's final stretches or (input in order already) slices of all. */
#define DEFINE_SORT_ENTRY(KEY, SUFFIX, KERNELS_FOR)                                                       \
    static bitonic_status sort_##SUFFIX(KEY *keys, size_t count, bitonic_order order,                      \
                                        const bitonic_cpu_sort_config *config,                             \
                                        const bitonic_cpu_finish *finish)                                  \
    {                                                                                                      \
        bitonic_cpu_target target;                                                                         \
        uint32_t threads;                                                                                  \
        bitonic_status status = resolve_config(keys, count, order, config, &target, &threads);             \
        if (status != BITONIC_SUCCESS)                                                                     \
            return status;                                                                                 \
        int wants_descending = order == BITONIC_ORDER_DESCENDING;                                          \
        if (count >= 2 && !(wants_descending ? is_nonincreasing_##SUFFIX(keys, count)                      \
                                             : is_nondecreasing_##SUFFIX(keys, count))) {                  \
            if (wants_descending ? is_nondecreasing_##SUFFIX(keys, count)                                  \
                                 : is_nonincreasing_##SUFFIX(keys, count)) {                               \
                reverse_##SUFFIX(keys, count);                                                             \
            } else {                                                                                       \
                bitonic_cpu_sort_parallel_##SUFFIX(KERNELS_FOR(target), keys, count, threads, finish);     \
                if (wants_descending)                                                                      \
                    reverse_##SUFFIX(keys, count);                                                         \
                return BITONIC_SUCCESS;                                                                    \
            }                                                                                              \
        }                                                                                                  \
        if (finish)                                                                                        \
            bitonic_cpu_run_slices(finish->run, finish->context, count, threads);                          \
        return BITONIC_SUCCESS;                                                                            \
    }

DEFINE_SORT_ENTRY(uint32_t, u32, kernels_for)
DEFINE_SORT_ENTRY(uint64_t, u64, kernels64_for)

bitonic_status bitonic_cpu_sort_u32(uint32_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config)
{
    return sort_u32(keys, count, order, config, NULL);
}

bitonic_status bitonic_cpu_sort_u64(uint64_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config)
{
    return sort_u64(keys, count, order, config, NULL);
}

/* A finish after a descending sort would see its stretches before the reversal
 * moves them, so these sort ascending only (descending pairs and mapped keys
 * flip their bits instead). */
bitonic_status bitonic_cpu_sort_u32_finished(uint32_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                             const bitonic_cpu_finish *finish)
{
    return sort_u32(keys, count, BITONIC_ORDER_ASCENDING, config, finish);
}

bitonic_status bitonic_cpu_sort_u64_finished(uint64_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                             const bitonic_cpu_finish *finish)
{
    return sort_u64(keys, count, BITONIC_ORDER_ASCENDING, config, finish);
}

/* A source's first words in order, either way: the input may be presorted,
 * which the pass and the check of the sort without a source answer in one
 * pass each; random input fails by its second or third word. */
#define SOURCE_ORDER_PROBE 64
static int source_starts_in_order(const bitonic_cpu_source *source, size_t count)
{
    size_t probe = count < SOURCE_ORDER_PROBE ? count : SOURCE_ORDER_PROBE;
    int rising = 1, falling = 1;
    uint64_t previous = source->word(source->context, 0);
    for (size_t i = 1; i < probe && (rising || falling); i++) {
        uint64_t word = source->word(source->context, i);
        rising &= previous <= word;
        falling &= previous >= word;
        previous = word;
    }
    return rising || falling;
}

/* Below this many words the source writes them as a pass: they sort in the
 * caches, where the pass costs little. */
#define SOURCE_PARTITION_MIN_KEYS ((size_t)1 << 12)

bitonic_status bitonic_cpu_sort_u64_from(uint64_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                         const bitonic_cpu_source *source, const bitonic_cpu_finish *finish)
{
    bitonic_cpu_target target;
    uint32_t threads;
    bitonic_status status = resolve_config(keys, count, BITONIC_ORDER_ASCENDING, config, &target, &threads);
    if (status != BITONIC_SUCCESS)
        return status;
    if (source->partition == NULL || count < SOURCE_PARTITION_MIN_KEYS || source_starts_in_order(source, count)) {
        bitonic_cpu_run_slices(source->write, source->context, count, threads);
        return sort_u64(keys, count, BITONIC_ORDER_ASCENDING, config, finish);
    }
    bitonic_cpu_sort_parallel_from_u64(kernels64_for(target), keys, count, threads, finish, source);
    return BITONIC_SUCCESS;
}
