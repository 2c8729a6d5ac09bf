/* fast_sort_avx2.c: the AVX2 kernels of the fast CPU sort.
 * base_sort: up to 128 keys (16 ymm registers of 8 lanes) sorted by a bitonic
 * network held in registers: each register is sorted with in-register shuffles and
 * immediate blends, then registers are merged pairwise, 4-wise, ... 16-wise
 * (register_network32.inc).
 * partition: the in-place vectorised quicksort partition of x86-simd-sort's AVX2
 * path: compare 8 keys with the pivot, permute (through a 256-entry table) so the
 * keys below the pivot come first, and store the whole vector at both write
 * cursors; each cursor advances only over its own keys.
 * Compiled for AVX2 through a target pragma; the dispatcher calls it only when the
 * CPU reports AVX2. */
#include "fast_sort.h"

#if defined(__x86_64__) || defined(__i386__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt,bmi,bmi2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx2,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#define LANES 8
#define MAX_REGS 16
#define BASE_KEYS (LANES * MAX_REGS)
#define UNROLL 4

typedef __m256i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Row m: the lane indices that move the lanes set in m (keys below the pivot) to
 * the front in order, then the others. */
static const uint8_t below_first[256][8] = {
    {0,1,2,3,4,5,6,7}, {0,1,2,3,4,5,6,7}, {1,0,2,3,4,5,6,7}, {0,1,2,3,4,5,6,7}, {2,0,1,3,4,5,6,7}, {0,2,1,3,4,5,6,7}, {1,2,0,3,4,5,6,7}, {0,1,2,3,4,5,6,7},
    {3,0,1,2,4,5,6,7}, {0,3,1,2,4,5,6,7}, {1,3,0,2,4,5,6,7}, {0,1,3,2,4,5,6,7}, {2,3,0,1,4,5,6,7}, {0,2,3,1,4,5,6,7}, {1,2,3,0,4,5,6,7}, {0,1,2,3,4,5,6,7},
    {4,0,1,2,3,5,6,7}, {0,4,1,2,3,5,6,7}, {1,4,0,2,3,5,6,7}, {0,1,4,2,3,5,6,7}, {2,4,0,1,3,5,6,7}, {0,2,4,1,3,5,6,7}, {1,2,4,0,3,5,6,7}, {0,1,2,4,3,5,6,7},
    {3,4,0,1,2,5,6,7}, {0,3,4,1,2,5,6,7}, {1,3,4,0,2,5,6,7}, {0,1,3,4,2,5,6,7}, {2,3,4,0,1,5,6,7}, {0,2,3,4,1,5,6,7}, {1,2,3,4,0,5,6,7}, {0,1,2,3,4,5,6,7},
    {5,0,1,2,3,4,6,7}, {0,5,1,2,3,4,6,7}, {1,5,0,2,3,4,6,7}, {0,1,5,2,3,4,6,7}, {2,5,0,1,3,4,6,7}, {0,2,5,1,3,4,6,7}, {1,2,5,0,3,4,6,7}, {0,1,2,5,3,4,6,7},
    {3,5,0,1,2,4,6,7}, {0,3,5,1,2,4,6,7}, {1,3,5,0,2,4,6,7}, {0,1,3,5,2,4,6,7}, {2,3,5,0,1,4,6,7}, {0,2,3,5,1,4,6,7}, {1,2,3,5,0,4,6,7}, {0,1,2,3,5,4,6,7},
    {4,5,0,1,2,3,6,7}, {0,4,5,1,2,3,6,7}, {1,4,5,0,2,3,6,7}, {0,1,4,5,2,3,6,7}, {2,4,5,0,1,3,6,7}, {0,2,4,5,1,3,6,7}, {1,2,4,5,0,3,6,7}, {0,1,2,4,5,3,6,7},
    {3,4,5,0,1,2,6,7}, {0,3,4,5,1,2,6,7}, {1,3,4,5,0,2,6,7}, {0,1,3,4,5,2,6,7}, {2,3,4,5,0,1,6,7}, {0,2,3,4,5,1,6,7}, {1,2,3,4,5,0,6,7}, {0,1,2,3,4,5,6,7},
    {6,0,1,2,3,4,5,7}, {0,6,1,2,3,4,5,7}, {1,6,0,2,3,4,5,7}, {0,1,6,2,3,4,5,7}, {2,6,0,1,3,4,5,7}, {0,2,6,1,3,4,5,7}, {1,2,6,0,3,4,5,7}, {0,1,2,6,3,4,5,7},
    {3,6,0,1,2,4,5,7}, {0,3,6,1,2,4,5,7}, {1,3,6,0,2,4,5,7}, {0,1,3,6,2,4,5,7}, {2,3,6,0,1,4,5,7}, {0,2,3,6,1,4,5,7}, {1,2,3,6,0,4,5,7}, {0,1,2,3,6,4,5,7},
    {4,6,0,1,2,3,5,7}, {0,4,6,1,2,3,5,7}, {1,4,6,0,2,3,5,7}, {0,1,4,6,2,3,5,7}, {2,4,6,0,1,3,5,7}, {0,2,4,6,1,3,5,7}, {1,2,4,6,0,3,5,7}, {0,1,2,4,6,3,5,7},
    {3,4,6,0,1,2,5,7}, {0,3,4,6,1,2,5,7}, {1,3,4,6,0,2,5,7}, {0,1,3,4,6,2,5,7}, {2,3,4,6,0,1,5,7}, {0,2,3,4,6,1,5,7}, {1,2,3,4,6,0,5,7}, {0,1,2,3,4,6,5,7},
    {5,6,0,1,2,3,4,7}, {0,5,6,1,2,3,4,7}, {1,5,6,0,2,3,4,7}, {0,1,5,6,2,3,4,7}, {2,5,6,0,1,3,4,7}, {0,2,5,6,1,3,4,7}, {1,2,5,6,0,3,4,7}, {0,1,2,5,6,3,4,7},
    {3,5,6,0,1,2,4,7}, {0,3,5,6,1,2,4,7}, {1,3,5,6,0,2,4,7}, {0,1,3,5,6,2,4,7}, {2,3,5,6,0,1,4,7}, {0,2,3,5,6,1,4,7}, {1,2,3,5,6,0,4,7}, {0,1,2,3,5,6,4,7},
    {4,5,6,0,1,2,3,7}, {0,4,5,6,1,2,3,7}, {1,4,5,6,0,2,3,7}, {0,1,4,5,6,2,3,7}, {2,4,5,6,0,1,3,7}, {0,2,4,5,6,1,3,7}, {1,2,4,5,6,0,3,7}, {0,1,2,4,5,6,3,7},
    {3,4,5,6,0,1,2,7}, {0,3,4,5,6,1,2,7}, {1,3,4,5,6,0,2,7}, {0,1,3,4,5,6,2,7}, {2,3,4,5,6,0,1,7}, {0,2,3,4,5,6,1,7}, {1,2,3,4,5,6,0,7}, {0,1,2,3,4,5,6,7},
    {7,0,1,2,3,4,5,6}, {0,7,1,2,3,4,5,6}, {1,7,0,2,3,4,5,6}, {0,1,7,2,3,4,5,6}, {2,7,0,1,3,4,5,6}, {0,2,7,1,3,4,5,6}, {1,2,7,0,3,4,5,6}, {0,1,2,7,3,4,5,6},
    {3,7,0,1,2,4,5,6}, {0,3,7,1,2,4,5,6}, {1,3,7,0,2,4,5,6}, {0,1,3,7,2,4,5,6}, {2,3,7,0,1,4,5,6}, {0,2,3,7,1,4,5,6}, {1,2,3,7,0,4,5,6}, {0,1,2,3,7,4,5,6},
    {4,7,0,1,2,3,5,6}, {0,4,7,1,2,3,5,6}, {1,4,7,0,2,3,5,6}, {0,1,4,7,2,3,5,6}, {2,4,7,0,1,3,5,6}, {0,2,4,7,1,3,5,6}, {1,2,4,7,0,3,5,6}, {0,1,2,4,7,3,5,6},
    {3,4,7,0,1,2,5,6}, {0,3,4,7,1,2,5,6}, {1,3,4,7,0,2,5,6}, {0,1,3,4,7,2,5,6}, {2,3,4,7,0,1,5,6}, {0,2,3,4,7,1,5,6}, {1,2,3,4,7,0,5,6}, {0,1,2,3,4,7,5,6},
    {5,7,0,1,2,3,4,6}, {0,5,7,1,2,3,4,6}, {1,5,7,0,2,3,4,6}, {0,1,5,7,2,3,4,6}, {2,5,7,0,1,3,4,6}, {0,2,5,7,1,3,4,6}, {1,2,5,7,0,3,4,6}, {0,1,2,5,7,3,4,6},
    {3,5,7,0,1,2,4,6}, {0,3,5,7,1,2,4,6}, {1,3,5,7,0,2,4,6}, {0,1,3,5,7,2,4,6}, {2,3,5,7,0,1,4,6}, {0,2,3,5,7,1,4,6}, {1,2,3,5,7,0,4,6}, {0,1,2,3,5,7,4,6},
    {4,5,7,0,1,2,3,6}, {0,4,5,7,1,2,3,6}, {1,4,5,7,0,2,3,6}, {0,1,4,5,7,2,3,6}, {2,4,5,7,0,1,3,6}, {0,2,4,5,7,1,3,6}, {1,2,4,5,7,0,3,6}, {0,1,2,4,5,7,3,6},
    {3,4,5,7,0,1,2,6}, {0,3,4,5,7,1,2,6}, {1,3,4,5,7,0,2,6}, {0,1,3,4,5,7,2,6}, {2,3,4,5,7,0,1,6}, {0,2,3,4,5,7,1,6}, {1,2,3,4,5,7,0,6}, {0,1,2,3,4,5,7,6},
    {6,7,0,1,2,3,4,5}, {0,6,7,1,2,3,4,5}, {1,6,7,0,2,3,4,5}, {0,1,6,7,2,3,4,5}, {2,6,7,0,1,3,4,5}, {0,2,6,7,1,3,4,5}, {1,2,6,7,0,3,4,5}, {0,1,2,6,7,3,4,5},
    {3,6,7,0,1,2,4,5}, {0,3,6,7,1,2,4,5}, {1,3,6,7,0,2,4,5}, {0,1,3,6,7,2,4,5}, {2,3,6,7,0,1,4,5}, {0,2,3,6,7,1,4,5}, {1,2,3,6,7,0,4,5}, {0,1,2,3,6,7,4,5},
    {4,6,7,0,1,2,3,5}, {0,4,6,7,1,2,3,5}, {1,4,6,7,0,2,3,5}, {0,1,4,6,7,2,3,5}, {2,4,6,7,0,1,3,5}, {0,2,4,6,7,1,3,5}, {1,2,4,6,7,0,3,5}, {0,1,2,4,6,7,3,5},
    {3,4,6,7,0,1,2,5}, {0,3,4,6,7,1,2,5}, {1,3,4,6,7,0,2,5}, {0,1,3,4,6,7,2,5}, {2,3,4,6,7,0,1,5}, {0,2,3,4,6,7,1,5}, {1,2,3,4,6,7,0,5}, {0,1,2,3,4,6,7,5},
    {5,6,7,0,1,2,3,4}, {0,5,6,7,1,2,3,4}, {1,5,6,7,0,2,3,4}, {0,1,5,6,7,2,3,4}, {2,5,6,7,0,1,3,4}, {0,2,5,6,7,1,3,4}, {1,2,5,6,7,0,3,4}, {0,1,2,5,6,7,3,4},
    {3,5,6,7,0,1,2,4}, {0,3,5,6,7,1,2,4}, {1,3,5,6,7,0,2,4}, {0,1,3,5,6,7,2,4}, {2,3,5,6,7,0,1,4}, {0,2,3,5,6,7,1,4}, {1,2,3,5,6,7,0,4}, {0,1,2,3,5,6,7,4},
    {4,5,6,7,0,1,2,3}, {0,4,5,6,7,1,2,3}, {1,4,5,6,7,0,2,3}, {0,1,4,5,6,7,2,3}, {2,4,5,6,7,0,1,3}, {0,2,4,5,6,7,1,3}, {1,2,4,5,6,7,0,3}, {0,1,2,4,5,6,7,3},
    {3,4,5,6,7,0,1,2}, {0,3,4,5,6,7,1,2}, {1,3,4,5,6,7,0,2}, {0,1,3,4,5,6,7,2}, {2,3,4,5,6,7,0,1}, {0,2,3,4,5,6,7,1}, {1,2,3,4,5,6,7,0}, {0,1,2,3,4,5,6,7},
};

/* Blend immediates must be constants, so each step is its own function. */
#define COEX_SELECT(v, partner, take_max_imm) \
    _mm256_blend_epi32(_mm256_min_epu32((v), (partner)), _mm256_max_epu32((v), (partner)), (take_max_imm))

ALWAYS_INLINE vec reverse8(vec v) { return _mm256_permutevar8x32_epi32(v, _mm256_set_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
ALWAYS_INLINE vec stride1(vec v) { return COEX_SELECT(v, _mm256_shuffle_epi32(v, 0xB1), 0xAA); }
ALWAYS_INLINE vec stride2(vec v) { return COEX_SELECT(v, _mm256_shuffle_epi32(v, 0x4E), 0xCC); }
ALWAYS_INLINE vec stride4(vec v) { return COEX_SELECT(v, _mm256_permute4x64_epi64(v, 0x4E), 0xF0); }
ALWAYS_INLINE vec mirror4(vec v) { return COEX_SELECT(v, _mm256_shuffle_epi32(v, 0x1B), 0xCC); }
ALWAYS_INLINE vec mirror8(vec v) { return COEX_SELECT(v, reverse8(v), 0xF0); }

ALWAYS_INLINE vec sort_register(vec v)
{
    v = stride1(v);
    v = mirror4(v);
    v = stride1(v);
    v = mirror8(v);
    v = stride2(v);
    v = stride1(v);
    return v;
}

ALWAYS_INLINE vec merge_register(vec v) { return stride1(stride2(stride4(v))); }

#define MERGE_VEC vec
#define MERGE_MIN _mm256_min_epu32
#define MERGE_MAX _mm256_max_epu32
#define MERGE_REVERSE reverse8
#define MERGE_REGISTER(v) merge_register(v)
#include "register_network32.inc"

/* Transposes the 8x8 block in[0..7] so out[c * stride] holds column c. */
ALWAYS_INLINE void transpose8(const vec *in, vec *out, int stride)
{
    vec t[8], u[8];
BITONIC_CPU_UNROLL(4)
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(in[i], in[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(in[i], in[i + 1]);
    }
    /* u[4h + c]: rows 4h..4h+3 of column 4L+c in each 128-bit lane L. */
BITONIC_CPU_UNROLL(2)
    for (int h = 0; h < 2; h++) {
        u[4 * h + 0] = _mm256_unpacklo_epi64(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 1] = _mm256_unpackhi_epi64(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 2] = _mm256_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
    }
BITONIC_CPU_UNROLL(4)
    for (int c = 0; c < 4; c++) {
        out[c * stride] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x20);
        out[(c + 4) * stride] = _mm256_permute2x128_si256(u[c], u[4 + c], 0x31);
    }
}

ALWAYS_INLINE void sort_registers(vec *r, const int reg_count)
{
    int first_block = 2;
    if (reg_count == 16) {
        /* Sorted columns of 16 keys, transposed so each lands in a register
         * pair: the pairs are then already merged. 174 operations instead of
         * 464 for sorting each register and merging the pairs. */
        vec rows[16];
BITONIC_CPU_UNROLL(16)
        for (int i = 0; i < 16; i++)
            rows[i] = r[i];
        sort_columns16(rows);
        transpose8(rows, r, 2);
        transpose8(rows + 8, r + 1, 2);
        first_block = 4;
    } else {
BITONIC_CPU_UNROLL(16)
        for (int i = 0; i < reg_count; i++)
            r[i] = sort_register(r[i]);
    }
    merge_registers(r, first_block, reg_count);
}

/* All-ones in the lanes below count - reg*8: the mask for vpmaskmovd. */
ALWAYS_INLINE vec lane_mask(size_t count, int reg)
{
    size_t first = (size_t)reg * LANES;
    int left = count <= first ? 0 : (count - first >= LANES ? LANES : (int)(count - first));
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
}

ALWAYS_INLINE void sort_block(uint32_t *keys, size_t count, const int reg_count)
{
    vec r[MAX_REGS];
    const vec pad = _mm256_set1_epi32(-1);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        if ((size_t)(i + 1) * LANES <= count) {
            r[i] = _mm256_loadu_si256((const __m256i *)(keys + (size_t)i * LANES));
        } else if ((size_t)i * LANES < count) {
            vec m = lane_mask(count, i);
            vec loaded = _mm256_maskload_epi32((const int *)(keys + (size_t)i * LANES), m);
            r[i] = _mm256_blendv_epi8(pad, loaded, m);
        } else {
            r[i] = pad;
        }
    }
    sort_registers(r, reg_count);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        if ((size_t)(i + 1) * LANES <= count)
            _mm256_storeu_si256((__m256i *)(keys + (size_t)i * LANES), r[i]);
        else if ((size_t)i * LANES < count)
            _mm256_maskstore_epi32((int *)(keys + (size_t)i * LANES), lane_mask(count, i), r[i]);
    }
}

static void avx2_base_sort(uint32_t *keys, size_t count)
{
    if (count <= 1)
        return;
    if (count <= 8)
        sort_block(keys, count, 1);
    else if (count <= 16)
        sort_block(keys, count, 2);
    else if (count <= 32)
        sort_block(keys, count, 4);
    else if (count <= 64)
        sort_block(keys, count, 8);
    else
        sort_block(keys, count, 16);
}

typedef struct partition_cursor {
    uint32_t *keys;
    size_t left;   /* next write position of the below-pivot side */
    size_t right;  /* one past the last free position of the other side */
} partition_cursor;

/* Unsigned compare through the sign flip: AVX2 has only signed cmpgt. */
ALWAYS_INLINE unsigned below_mask(vec v, vec pivot_flipped)
{
    vec flipped = _mm256_xor_si256(v, _mm256_set1_epi32(INT32_MIN));
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(pivot_flipped, flipped)));
}

ALWAYS_INLINE vec below_first_permute(vec v, unsigned mask)
{
    vec idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)below_first[mask]));
    return _mm256_permutevar8x32_epi32(v, idx);
}

/* Main loop: both gaps hold at least 8 free keys, so storing the whole permuted
 * vector at both cursors only spills into free space, which later writes fill. */
ALWAYS_INLINE void partition_store_full(partition_cursor *cur, vec v, vec pivot_flipped)
{
    unsigned mask = below_mask(v, pivot_flipped);
    unsigned below_count = (unsigned)_mm_popcnt_u32(mask);
    vec sorted = below_first_permute(v, mask);
    _mm256_storeu_si256((__m256i *)(cur->keys + cur->left), sorted);
    _mm256_storeu_si256((__m256i *)(cur->keys + cur->right - LANES), sorted);
    cur->left += below_count;
    cur->right -= LANES - below_count;
}

/* End game: the gaps have met, so whole-vector stores could overwrite keys just
 * placed; write each side exactly with masked stores. */
ALWAYS_INLINE void partition_store_exact(partition_cursor *cur, vec v, int valid, vec pivot_flipped)
{
    const vec iota = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    unsigned mask = below_mask(v, pivot_flipped) & ((1u << valid) - 1u);
    int below_count = _mm_popcnt_u32(mask);
    int above_count = valid - below_count;
    /* The table lists the other lanes in index order, so the valid above-pivot
     * lanes land at [below_count, valid) and the invalid ones after them. */
    vec sorted = below_first_permute(v, mask);
    _mm256_maskstore_epi32((int *)(cur->keys + cur->left), _mm256_cmpgt_epi32(_mm256_set1_epi32(below_count), iota),
                           sorted);
    cur->left += (size_t)below_count;
    cur->right -= (size_t)above_count;
    /* Shift the above-pivot lanes down to lane 0 for the right-hand store. */
    vec shift = _mm256_add_epi32(iota, _mm256_set1_epi32(below_count));
    vec above = _mm256_permutevar8x32_epi32(sorted, shift);
    _mm256_maskstore_epi32((int *)(cur->keys + cur->right), _mm256_cmpgt_epi32(_mm256_set1_epi32(above_count), iota),
                           above);
}

/* Keys ahead of the read cursors to prefetch: on a range larger than the caches
 * the two-ended access pattern defeats the hardware prefetcher. */
#define PREFETCH_KEYS 1024

/* Prefetches one step of keys (a cache line per two vectors) at first if it lies
 * in the unread range. */
ALWAYS_INLINE void prefetch_step(const uint32_t *keys, size_t first, size_t read_left, size_t read_right)
{
    if (first >= read_left && first + UNROLL * LANES <= read_right) {
BITONIC_CPU_UNROLL(2)
        for (int line = 0; line < UNROLL / 2; line++)
            __builtin_prefetch(keys + first + (size_t)line * 2 * LANES);
    }
}

static size_t avx2_partition(uint32_t *keys, size_t count, uint32_t pivot_key)
{
    const size_t step = UNROLL * LANES;
    if (count < 2 * step)
        return bitonic_cpu_partition_scalar(keys, count, pivot_key);
    const vec pivot_flipped = _mm256_set1_epi32((int)(pivot_key ^ 0x80000000u));
    vec saved_left[UNROLL], saved_right[UNROLL];
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        saved_left[u] = _mm256_loadu_si256((const __m256i *)(keys + (size_t)u * LANES));
        saved_right[u] = _mm256_loadu_si256((const __m256i *)(keys + count - step + (size_t)u * LANES));
    }
    partition_cursor cur = {keys, 0, count};
    size_t read_left = step, read_right = count - step;
    while (read_right - read_left >= step) {
        vec in[UNROLL];
        if (read_left - cur.left <= cur.right - read_right) {
            BITONIC_CPU_UNROLL(4)
            for (int u = 0; u < UNROLL; u++)
                in[u] = _mm256_loadu_si256((const __m256i *)(keys + read_left + (size_t)u * LANES));
            prefetch_step(keys, read_left + PREFETCH_KEYS, read_left, read_right);
            read_left += step;
        } else {
            read_right -= step;
            BITONIC_CPU_UNROLL(4)
            for (int u = 0; u < UNROLL; u++)
                in[u] = _mm256_loadu_si256((const __m256i *)(keys + read_right + (size_t)u * LANES));
            if (read_right >= PREFETCH_KEYS)
                prefetch_step(keys, read_right - PREFETCH_KEYS, read_left, read_right);
        }
        BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++)
            partition_store_full(&cur, in[u], pivot_flipped);
    }
    vec rest[UNROLL];
    int rest_valid[UNROLL];
    size_t rest_count = read_right - read_left;
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        size_t first = (size_t)u * LANES;
        rest_valid[u] = rest_count <= first ? 0 : (rest_count - first >= LANES ? LANES : (int)(rest_count - first));
        rest[u] = rest_valid[u] ? _mm256_maskload_epi32((const int *)(keys + read_left + first),
                                                        lane_mask(rest_count, u))
                                : _mm256_setzero_si256();
    }
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++)
        if (rest_valid[u])
            partition_store_exact(&cur, rest[u], rest_valid[u], pivot_flipped);
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        partition_store_exact(&cur, saved_left[u], LANES, pivot_flipped);
        partition_store_exact(&cur, saved_right[u], LANES, pivot_flipped);
    }
    return cur.left;
}

const bitonic_cpu_kernels bitonic_cpu_kernels_avx2 = {
    .base_keys = BASE_KEYS,
    .base_sort = avx2_base_sort,
    .partition = avx2_partition,
};

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* x86 */
