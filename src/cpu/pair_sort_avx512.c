/* pair_sort_avx512.c: an AVX-512 sort of (64-bit key, 32-bit value) pairs that
 * moves each value with its key, so the sort of pairs with 64-bit keys needs
 * no packing with positions and no gather afterwards (pair_sort.c).
 * The quicksort of fast_sort_driver.inc on two arrays: the partition compares 8
 * keys with the pivot and compresses the keys and their values with the same
 * mask; leaves of up to 128 pairs are sorted by the bitonic network of
 * avx512_network64.h, the keys-only sort's, with the values (in 64-bit lanes)
 * moved by the same masks. Keys alone are compared; afterwards, each run of
 * equal keys has its values sorted, which gives (key, value) order.
 * On more threads, the parallel sort of fast_sort_driver.inc on the same two
 * arrays: a queue of ranges that the threads split with this partition and
 * share out, the first passes over large inputs partitioned by all threads
 * together; a split by a pivot never parts equal keys, so each final range
 * has its ties' values sorted alone.
 * Compiled for AVX-512 through a target pragma; pair_sort.c calls it only when
 * the resolved target is AVX-512. */
#include "pair_sort.h"

#if defined(BITONIC_CPU_HAVE_X86)

#include <pthread.h> /* the work queue's lock; threads start in fast_sort_jobs.c */

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2"))), \
                             apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#include "avx512_network64.h"

/* 32-bit values travel in 32-bit lanes of a ymm register in the partition,
 * compressed with the keys' mask, and widened to 64-bit lanes in the network. */
#define VALUE uint32_t
typedef __m256i value_vec;
#define LOAD_VALUES_TO_LANES(mask, from) _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, from))
#define STORE_VALUES_FROM_LANES(to, mask, v) _mm512_mask_cvtepi64_storeu_epi32(to, mask, v)
#define LOAD_VALUE_VEC(from) _mm256_loadu_si256((const __m256i *)(from))
#define LOAD_VALUE_VEC_MASKED(mask, from) _mm256_maskz_loadu_epi32(mask, from)
#define STORE_COMPRESSED_VALUES(to, store_mask, mask, v) \
    _mm256_mask_storeu_epi32(to, store_mask, _mm256_maskz_compress_epi32(mask, v))
#define PREFETCH_VALUES(from)                   \
    do {                                        \
        __builtin_prefetch(from);               \
        __builtin_prefetch((from) + 2 * NETWORK64_LANES); \
    } while (0)
#define SORT_VALUES(values, count) bitonic_cpu_sort_sequential_u32(&bitonic_cpu_kernels_avx512, values, count)
#define SORT_SEQUENTIAL bitonic_cpu_sort_pairs_avx512_u64
#define SORT_PARALLEL bitonic_cpu_sort_pairs_parallel_avx512_u64

#include "pair_sort_avx512.inc"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* BITONIC_CPU_HAVE_X86 */
