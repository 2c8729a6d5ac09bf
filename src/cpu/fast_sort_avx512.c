/* fast_sort_avx512.c: the AVX-512 kernels of the fast CPU sort.
 * base_sort: up to 256 keys (16 zmm registers of 16 lanes) sorted by a bitonic
 * network that never leaves the registers: each register is sorted with
 * in-register permutes, then registers are merged pairwise, 4-wise, ... 16-wise
 * (register_network32.inc, shared with the AVX2 and portable networks).
 * partition: the in-place vectorised quicksort partition of x86-simd-sort and
 * vqsort (avx512_partition.inc, shared with the 64-bit kernels): compare 16
 * keys with the pivot, compress each side into a register and write it with a
 * masked store at the left or right write cursor.
 * The file is compiled for AVX-512 through a target pragma, so the library builds
 * with plain flags; the dispatcher calls it only when the CPU reports AVX-512. */
#include "fast_sort.h"

#if defined(__x86_64__) || defined(__i386__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2"))), \
                             apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#define LANES 16
#define MAX_REGS 16
#define BASE_KEYS (LANES * MAX_REGS)
/* Vectors read per step of the partition loop: enough independent work to hide
 * the compress latency, few enough to keep the 2*UNROLL saved vectors in registers. */
#define UNROLL 4

typedef __m512i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE vec coex_select(vec v, vec partner, __mmask16 take_max)
{
    return _mm512_mask_blend_epi32(take_max, _mm512_min_epu32(v, partner), _mm512_max_epu32(v, partner));
}

ALWAYS_INLINE vec reverse16(vec v)
{
    return _mm512_permutexvar_epi32(_mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), v);
}

/* Compare-exchange of lanes i and i^stride inside one register; the lane with
 * the stride bit set keeps the maximum. */
ALWAYS_INLINE vec stride1(vec v) { return coex_select(v, _mm512_shuffle_epi32(v, _MM_PERM_CDAB), 0xAAAA); }
ALWAYS_INLINE vec stride2(vec v) { return coex_select(v, _mm512_shuffle_epi32(v, _MM_PERM_BADC), 0xCCCC); }
ALWAYS_INLINE vec stride4(vec v) { return coex_select(v, _mm512_shuffle_i32x4(v, v, _MM_PERM_CDAB), 0xF0F0); }
ALWAYS_INLINE vec stride8(vec v) { return coex_select(v, _mm512_shuffle_i32x4(v, v, _MM_PERM_BADC), 0xFF00); }

/* Mirror compare-exchanges (lane i against block_end-1-i), the first step of a
 * bitonic merge written so that every step sorts ascending. */
ALWAYS_INLINE vec mirror4(vec v) { return coex_select(v, _mm512_shuffle_epi32(v, _MM_PERM_ABCD), 0xCCCC); }
ALWAYS_INLINE vec mirror8(vec v)
{
    vec idx = _mm512_set_epi32(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    return coex_select(v, _mm512_permutexvar_epi32(idx, v), 0xF0F0);
}
ALWAYS_INLINE vec mirror16(vec v) { return coex_select(v, reverse16(v), 0xFF00); }

ALWAYS_INLINE vec sort_register(vec v)
{
    v = stride1(v);
    v = mirror4(v);
    v = stride1(v);
    v = mirror8(v);
    v = stride2(v);
    v = stride1(v);
    v = mirror16(v);
    v = stride4(v);
    v = stride2(v);
    v = stride1(v);
    return v;
}

/* The in-register tail of a merge: once the cross-register steps are done, each
 * register holds a bitonic sequence that four half-cleaners finish. */
ALWAYS_INLINE vec merge_register(vec v)
{
    return stride1(stride2(stride4(stride8(v))));
}

#define MERGE_VEC vec
#define MERGE_MIN _mm512_min_epu32
#define MERGE_MAX _mm512_max_epu32
#define MERGE_REVERSE reverse16
#define MERGE_REGISTER(v) merge_register(v)
#include "register_network32.inc"

/* Transposes a 16x16 block of 32-bit keys, so sorted columns become sorted
 * registers: unpack 32-bit, unpack 64-bit, then two rounds of 128-bit lane moves.
 * Which register receives which column does not matter to the merges after it. */
ALWAYS_INLINE void transpose16(vec *r)
{
    vec t[16];
BITONIC_CPU_UNROLL(8)
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    /* u[4g + c]: rows 4g..4g+3 of column 4L+c in each 128-bit lane L. */
    vec u[16];
BITONIC_CPU_UNROLL(4)
    for (int g = 0; g < 4; g++) {
        u[4 * g + 0] = _mm512_unpacklo_epi64(t[4 * g + 0], t[4 * g + 2]);
        u[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g + 0], t[4 * g + 2]);
        u[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
        u[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
    }
BITONIC_CPU_UNROLL(4)
    for (int c = 0; c < 4; c++) {
        vec even_low = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
        vec odd_low = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xDD);
        vec even_high = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
        vec odd_high = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xDD);
        r[4 * c + 0] = _mm512_shuffle_i32x4(even_low, even_high, 0x88); /* column c */
        r[4 * c + 1] = _mm512_shuffle_i32x4(odd_low, odd_high, 0x88);   /* column 4 + c */
        r[4 * c + 2] = _mm512_shuffle_i32x4(even_low, even_high, 0xDD); /* column 8 + c */
        r[4 * c + 3] = _mm512_shuffle_i32x4(odd_low, odd_high, 0xDD);   /* column 12 + c */
    }
}

/* Sorts reg_count registers (a power of two) as one sequence of reg_count*16
 * keys. Called with constants so the loops unroll and r[] stays in registers. */
ALWAYS_INLINE void sort_registers(vec *r, const int reg_count)
{
    if (reg_count == 16) {
        /* 126 min/max and 64 shuffles instead of 480 operations for sorting
         * each register in place. */
        sort_columns16(r);
        transpose16(r);
    } else {
BITONIC_CPU_UNROLL(16)
        for (int i = 0; i < reg_count; i++)
            r[i] = sort_register(r[i]);
    }
    merge_registers(r, 2, reg_count);
}

ALWAYS_INLINE __mmask16 lane_mask(size_t count, int reg)
{
    size_t first = (size_t)reg * LANES;
    if (count <= first)
        return 0;
    size_t left = count - first;
    return left >= LANES ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

ALWAYS_INLINE size_t block_offset(size_t count, int reg)
{
    size_t first = (size_t)reg * LANES;
    return first < count ? first : count;
}

/* Loads count keys into reg_count registers, padding with the largest key so
 * the padding sorts to the end and is never stored. */
ALWAYS_INLINE void sort_block(uint32_t *keys, size_t count, const int reg_count)
{
    vec r[MAX_REGS];
    const vec pad = _mm512_set1_epi32(-1);
    /* Registers past the end get an empty mask; their address is clamped to one
     * past the end, which a masked access with no lanes never touches. */
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        r[i] = _mm512_mask_loadu_epi32(pad, lane_mask(count, i), keys + block_offset(count, i));
    sort_registers(r, reg_count);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        _mm512_mask_storeu_epi32(keys + block_offset(count, i), lane_mask(count, i), r[i]);
}

static void avx512_base_sort(uint32_t *keys, size_t count)
{
    if (count <= 1)
        return;
    if (count <= 16)
        sort_block(keys, count, 1);
    else if (count <= 32)
        sort_block(keys, count, 2);
    else if (count <= 64)
        sort_block(keys, count, 4);
    else if (count <= 128)
        sort_block(keys, count, 8);
    else
        sort_block(keys, count, 16);
}

/* The partition (avx512_partition.inc) on 16 lanes of 32-bit keys. Keys ahead
 * of the read cursors to prefetch: 4 KiB. */
#define PARTITION_FUNCTION avx512_partition
#define PARTITION_KEY uint32_t
#define PARTITION_MASK __mmask16
#define PARTITION_ALL_LANES 0xFFFF
#define PARTITION_SET1(key) _mm512_set1_epi32((int)(key))
#define PARTITION_CMPLT _mm512_mask_cmplt_epu32_mask
#define PARTITION_COMPRESS _mm512_maskz_compress_epi32
#define PARTITION_STORE _mm512_mask_storeu_epi32
#define PARTITION_LOAD _mm512_maskz_loadu_epi32
#define PARTITION_LANE_MASK lane_mask
#define PARTITION_SCALAR bitonic_cpu_partition_scalar
#define PARTITION_PREFETCH_KEYS 1024
#include "avx512_partition.inc"

const bitonic_cpu_kernels bitonic_cpu_kernels_avx512 = {
    .base_keys = BASE_KEYS,
    .base_sort = avx512_base_sort,
    .partition = avx512_partition,
};

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* x86 */
