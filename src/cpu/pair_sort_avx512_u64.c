/* pair_sort_avx512_u64.c: the sort of pair_sort_avx512.c (the same source,
 * pair_sort_avx512.inc) for (64-bit key, 64-bit value) pairs. Stable pairs of
 * 64-bit keys carry (position << 32 | value) as the value, so the values of
 * tied keys sort by position, and no gather by positions follows the sort
 * (pair_sort.c). Compiled for AVX-512 through a target pragma; called only
 * when the resolved target is AVX-512. */
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

/* 64-bit values take a zmm register of their own in the partition, in the
 * network's lanes as they are. */
#define VALUE uint64_t
typedef __m512i value_vec;
#define LOAD_VALUES_TO_LANES(mask, from) _mm512_maskz_loadu_epi64(mask, from)
#define STORE_VALUES_FROM_LANES(to, mask, v) _mm512_mask_storeu_epi64(to, mask, v)
#define LOAD_VALUE_VEC(from) _mm512_loadu_si512(from)
#define LOAD_VALUE_VEC_MASKED(mask, from) _mm512_maskz_loadu_epi64(mask, from)
#define STORE_COMPRESSED_VALUES(to, store_mask, mask, v) \
    _mm512_mask_storeu_epi64(to, store_mask, _mm512_maskz_compress_epi64(mask, v))
#define PREFETCH_VALUES(from)                                  \
    do {                                                       \
        for (int prefetched = 0; prefetched < 4; prefetched++) \
            __builtin_prefetch((from) + prefetched * NETWORK64_LANES); \
    } while (0)
#define SORT_VALUES(values, count) bitonic_cpu_sort_sequential_u64(&bitonic_cpu_kernels64_avx512, values, count)
#define SORT_SEQUENTIAL bitonic_cpu_sort_pairs_avx512_u64_u64
#define SORT_PARALLEL bitonic_cpu_sort_pairs_parallel_avx512_u64_u64

#include "pair_sort_avx512.inc"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* BITONIC_CPU_HAVE_X86 */
