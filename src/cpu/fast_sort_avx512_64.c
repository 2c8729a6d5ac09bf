/* fast_sort_avx512_64.c: the AVX-512 kernels of the fast CPU sort for 64-bit
 * words (u64, i64 and f64 keys as ordered bits, and packed 32-bit pairs), built
 * as the 32-bit ones in fast_sort_avx512.c are, on 8 lanes to a register:
 * base_sort: up to 128 words (16 zmm registers) sorted by the bitonic network
 * of avx512_network64.h, which never leaves the registers.
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

#include "avx512_network64.h"

#define LANES NETWORK64_LANES
#define MAX_REGS NETWORK64_MAX_REGS
#define BASE_KEYS (LANES * MAX_REGS)
/* Vectors read per step of the partition loop, as for 32-bit keys. */
#define UNROLL 4

typedef __m512i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Loads count words into reg_count registers, padding with the largest word so
 * the padding sorts to the end and is never stored. The network's values are
 * left at zero: the network is built without them. */
ALWAYS_INLINE void sort_block(uint64_t *keys, size_t count, const int reg_count)
{
    kv64 r[MAX_REGS];
    const vec pad = _mm512_set1_epi64(-1);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        __mmask8 mask = network64_lane_mask(count, i);
        r[i].k = _mm512_mask_loadu_epi64(pad, mask, keys + network64_block_offset(count, i));
        r[i].v = _mm512_setzero_si512();
    }
    kv64_sort_registers(r, reg_count, false);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        _mm512_mask_storeu_epi64(keys + network64_block_offset(count, i), network64_lane_mask(count, i), r[i].k);
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
        rest_mask[u] = network64_lane_mask(rest_count, u);
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
