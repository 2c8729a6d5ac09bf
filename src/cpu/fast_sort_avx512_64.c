/* fast_sort_avx512_64.c: the AVX-512 kernels of the fast CPU sort for 64-bit
 * words (u64, i64 and f64 keys as ordered bits, and packed 32-bit pairs), built
 * as the 32-bit ones in fast_sort_avx512.c are, on 8 lanes to a register:
 * base_sort: up to 128 words (16 zmm registers) sorted by a bitonic network that
 * never leaves the registers: columns of 8 registers sorted by Batcher's network
 * on whole registers and transposed, then registers merged pairwise, 4-wise, ...
 * partition: compare 8 words with the pivot, compress each side into a register
 * and write it with a masked store at the left or right write cursor.
 * Compiled for AVX-512 through a target pragma; the dispatcher calls it only
 * when the CPU reports AVX-512. */
#include "fast_sort.h"

#if defined(__x86_64__) || defined(__i386__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2"))), \
                             apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#define LANES 8
#define MAX_REGS 16
#define BASE_KEYS (LANES * MAX_REGS)
/* Vectors read per step of the partition loop, as for 32-bit keys. */
#define UNROLL 4

typedef __m512i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE vec coex_select(vec v, vec partner, __mmask8 take_max)
{
    return _mm512_mask_blend_epi64(take_max, _mm512_min_epu64(v, partner), _mm512_max_epu64(v, partner));
}

ALWAYS_INLINE vec reverse8(vec v)
{
    return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v);
}

/* Compare-exchange of lanes i and i^stride inside one register; the lane with
 * the stride bit set keeps the maximum. */
ALWAYS_INLINE vec stride1(vec v) { return coex_select(v, _mm512_shuffle_epi32(v, _MM_PERM_BADC), 0xAA); }
ALWAYS_INLINE vec stride2(vec v) { return coex_select(v, _mm512_shuffle_i64x2(v, v, _MM_PERM_CDAB), 0xCC); }
ALWAYS_INLINE vec stride4(vec v) { return coex_select(v, _mm512_shuffle_i64x2(v, v, _MM_PERM_BADC), 0xF0); }

/* Mirror compare-exchanges (lane i against block_end-1-i), the first step of a
 * bitonic merge written so that every step sorts ascending. */
ALWAYS_INLINE vec mirror4(vec v) { return coex_select(v, _mm512_permutex_epi64(v, 0x1B), 0xCC); }
ALWAYS_INLINE vec mirror8(vec v) { return coex_select(v, reverse8(v), 0xF0); }

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

/* The in-register tail of a merge: three half-cleaners. */
ALWAYS_INLINE vec merge_register(vec v)
{
    return stride1(stride2(stride4(v)));
}

/* Sorts the 8 columns of an 8x8 block at once: Batcher's odd-even merge sort
 * (19 compare-exchanges) applied to whole registers. */
ALWAYS_INLINE void sort_columns8(vec *r)
{
#define COEX(a, b)                                   \
    do {                                             \
        vec low = _mm512_min_epu64(r[a], r[b]);      \
        r[b] = _mm512_max_epu64(r[a], r[b]);         \
        r[a] = low;                                  \
    } while (0)
    COEX(0, 1); COEX(2, 3); COEX(4, 5); COEX(6, 7); COEX(0, 2); COEX(1, 3); COEX(4, 6); COEX(5, 7);
    COEX(1, 2); COEX(5, 6); COEX(0, 4); COEX(1, 5); COEX(2, 6); COEX(3, 7); COEX(2, 4); COEX(3, 5);
    COEX(1, 2); COEX(3, 4); COEX(5, 6);
#undef COEX
}

/* Transposes an 8x8 block of 64-bit words, so sorted columns become sorted
 * registers: unpack 64-bit, then two rounds of 128-bit lane moves. Which
 * register receives which column does not matter to the merges after it. */
ALWAYS_INLINE void transpose8(vec *r)
{
    vec t[8], u[8];
BITONIC_CPU_UNROLL(4)
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    /* u[g]: rows 0-3 (g < 4) or 4-7 of the columns of t, two 128-bit lanes each. */
    u[0] = _mm512_shuffle_i64x2(t[0], t[2], 0x88);
    u[1] = _mm512_shuffle_i64x2(t[0], t[2], 0xDD);
    u[2] = _mm512_shuffle_i64x2(t[1], t[3], 0x88);
    u[3] = _mm512_shuffle_i64x2(t[1], t[3], 0xDD);
    u[4] = _mm512_shuffle_i64x2(t[4], t[6], 0x88);
    u[5] = _mm512_shuffle_i64x2(t[4], t[6], 0xDD);
    u[6] = _mm512_shuffle_i64x2(t[5], t[7], 0x88);
    u[7] = _mm512_shuffle_i64x2(t[5], t[7], 0xDD);
BITONIC_CPU_UNROLL(4)
    for (int c = 0; c < 4; c++) {
        r[2 * c] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0x88);
        r[2 * c + 1] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0xDD);
    }
}

/* Sorts reg_count registers (a power of two) as one sequence of reg_count*8
 * words. Called with constants so the loops unroll and r[] stays in registers. */
ALWAYS_INLINE void sort_registers(vec *r, const int reg_count)
{
    if (reg_count >= 8) {
BITONIC_CPU_UNROLL(2)
        for (int group = 0; group < reg_count; group += 8) {
            sort_columns8(r + group);
            transpose8(r + group);
        }
    } else {
BITONIC_CPU_UNROLL(4)
        for (int i = 0; i < reg_count; i++)
            r[i] = sort_register(r[i]);
    }
BITONIC_CPU_UNROLL(4)
    for (int block = 2; block <= reg_count; block *= 2) {
BITONIC_CPU_UNROLL(16)
        for (int base = 0; base < reg_count; base += block) {
BITONIC_CPU_UNROLL(8)
            for (int i = 0; i < block / 2; i++) {
                vec a = r[base + i];
                vec b = reverse8(r[base + block - 1 - i]);
                r[base + i] = _mm512_min_epu64(a, b);
                r[base + block - 1 - i] = reverse8(_mm512_max_epu64(a, b));
            }
        }
BITONIC_CPU_UNROLL(4)
        for (int stride = block / 4; stride > 0; stride /= 2) {
BITONIC_CPU_UNROLL(16)
            for (int i = 0; i < reg_count; i++) {
                if ((i & stride) == 0 && i + stride < reg_count) {
                    vec a = r[i], b = r[i + stride];
                    r[i] = _mm512_min_epu64(a, b);
                    r[i + stride] = _mm512_max_epu64(a, b);
                }
            }
        }
BITONIC_CPU_UNROLL(16)
        for (int i = 0; i < reg_count; i++)
            r[i] = merge_register(r[i]);
    }
}

ALWAYS_INLINE __mmask8 lane_mask(size_t count, int reg)
{
    size_t first = (size_t)reg * LANES;
    if (count <= first)
        return 0;
    size_t left = count - first;
    return left >= LANES ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
}

ALWAYS_INLINE size_t block_offset(size_t count, int reg)
{
    size_t first = (size_t)reg * LANES;
    return first < count ? first : count;
}

/* Loads count words into reg_count registers, padding with the largest word so
 * the padding sorts to the end and is never stored. */
ALWAYS_INLINE void sort_block(uint64_t *keys, size_t count, const int reg_count)
{
    vec r[MAX_REGS];
    const vec pad = _mm512_set1_epi64(-1);
    /* Registers past the end get an empty mask; their address is clamped to one
     * past the end, which a masked access with no lanes never touches. */
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        r[i] = _mm512_mask_loadu_epi64(pad, lane_mask(count, i), keys + block_offset(count, i));
    sort_registers(r, reg_count);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        _mm512_mask_storeu_epi64(keys + block_offset(count, i), lane_mask(count, i), r[i]);
}

static void avx512_base_sort64(uint64_t *keys, size_t count)
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
    uint64_t *keys;
    size_t left;   /* next write position of the below-pivot side */
    size_t right;  /* one past the last free position of the other side */
} partition_cursor;

/* Writes the valid lanes of v to the two sides, compressing into a register and
 * storing with a mask (the memory-destination compress is microcoded on Zen 4). */
ALWAYS_INLINE void partition_store(partition_cursor *cur, vec v, __mmask8 valid, vec pivot)
{
    __mmask8 below = _mm512_mask_cmplt_epu64_mask(valid, v, pivot);
    __mmask8 above = (__mmask8)(valid & ~below);
    unsigned below_count = (unsigned)_mm_popcnt_u32(below);
    unsigned above_count = (unsigned)_mm_popcnt_u32(above);
    _mm512_mask_storeu_epi64(cur->keys + cur->left, (__mmask8)_bzhi_u32(0xFF, below_count),
                             _mm512_maskz_compress_epi64(below, v));
    cur->left += below_count;
    cur->right -= above_count;
    _mm512_mask_storeu_epi64(cur->keys + cur->right, (__mmask8)_bzhi_u32(0xFF, above_count),
                             _mm512_maskz_compress_epi64(above, v));
}

/* Words ahead of the read cursors to prefetch: the same 4 KiB as for 32-bit keys. */
#define PREFETCH_KEYS 512

ALWAYS_INLINE void prefetch_step(const uint64_t *keys, size_t first, size_t read_left, size_t read_right)
{
    if (first >= read_left && first + UNROLL * LANES <= read_right) {
BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++)
            __builtin_prefetch(keys + first + (size_t)u * LANES);
    }
}

/* In place, as the 32-bit partition: the first and last UNROLL vectors are held
 * in registers, which opens a gap at each end; each step reads from the side
 * whose gap is smaller, so neither write cursor can overtake unread words. */
static size_t avx512_partition64(uint64_t *keys, size_t count, uint64_t pivot_key)
{
    const size_t step = UNROLL * LANES;
    if (count < 2 * step)
        return bitonic_cpu_partition_scalar64(keys, count, pivot_key);
    const vec pivot = _mm512_set1_epi64((long long)pivot_key);
    vec saved_left[UNROLL], saved_right[UNROLL];
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        saved_left[u] = _mm512_loadu_si512(keys + (size_t)u * LANES);
        saved_right[u] = _mm512_loadu_si512(keys + count - step + (size_t)u * LANES);
    }
    partition_cursor cur = {keys, 0, count};
    size_t read_left = step, read_right = count - step;
    while (read_right - read_left >= step) {
        vec in[UNROLL];
        if (read_left - cur.left <= cur.right - read_right) {
            BITONIC_CPU_UNROLL(4)
            for (int u = 0; u < UNROLL; u++)
                in[u] = _mm512_loadu_si512(keys + read_left + (size_t)u * LANES);
            prefetch_step(keys, read_left + PREFETCH_KEYS, read_left, read_right);
            read_left += step;
        } else {
            read_right -= step;
            BITONIC_CPU_UNROLL(4)
            for (int u = 0; u < UNROLL; u++)
                in[u] = _mm512_loadu_si512(keys + read_right + (size_t)u * LANES);
            if (read_right >= PREFETCH_KEYS)
                prefetch_step(keys, read_right - PREFETCH_KEYS, read_left, read_right);
        }
        BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++)
            partition_store(&cur, in[u], 0xFF, pivot);
    }
    /* Fewer than UNROLL vectors are left unread: load them all before writing,
     * so the writes may go anywhere in the gaps. */
    vec rest[UNROLL];
    __mmask8 rest_mask[UNROLL];
    size_t rest_count = read_right - read_left;
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        rest_mask[u] = lane_mask(rest_count, u);
        rest[u] = rest_mask[u] ? _mm512_maskz_loadu_epi64(rest_mask[u], keys + read_left + (size_t)u * LANES)
                               : _mm512_setzero_si512();
    }
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++)
        if (rest_mask[u])
            partition_store(&cur, rest[u], rest_mask[u], pivot);
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        partition_store(&cur, saved_left[u], 0xFF, pivot);
        partition_store(&cur, saved_right[u], 0xFF, pivot);
    }
    return cur.left;
}

const bitonic_cpu_kernels64 bitonic_cpu_kernels64_avx512 = {
    .base_keys = BASE_KEYS,
    .base_sort = avx512_base_sort64,
    .partition = avx512_partition64,
};

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* x86 */
