/* pair_sort_avx512.c: an AVX-512 sort of (64-bit key, 32-bit value) pairs that
 * moves each value with its key, so the sort of pairs with 64-bit keys needs
 * no packing with positions and no gather afterwards (pair_sort.c).
 * The quicksort of fast_sort_driver.inc on two arrays: the partition compares 8
 * keys with the pivot and compresses the keys and their values with the same
 * mask; leaves of up to 128 pairs are sorted by the bitonic network of
 * avx512_network64.h, the keys-only sort's, with the values (in 64-bit lanes)
 * moved by the same masks. Keys alone are compared; afterwards, each run of
 * equal keys has its values sorted, which gives (key, value) order.
 * Compiled for AVX-512 through a target pragma; pair_sort.c calls it only when
 * the resolved target is AVX-512. */
#include "pair_sort.h"

#if defined(BITONIC_CPU_HAVE_X86)

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
#define BASE_PAIRS (LANES * MAX_REGS)
#define UNROLL 4
/* Runs of equal keys up to this long have their values sorted by insertion. */
#define SHORT_RUN 32

typedef __m512i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Insertion sort by key, for leaves the network cannot take (below). */
static void insertion_sort_pairs(uint64_t *keys, uint32_t *values, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint64_t key = keys[i];
        uint32_t value = values[i];
        size_t j = i;
        for (; j > 0 && keys[j - 1] > key; j--) {
            keys[j] = keys[j - 1];
            values[j] = values[j - 1];
        }
        keys[j] = key;
        values[j] = value;
    }
}

/* Pads with the largest key, so the padding sorts to the end and is never
 * stored. A real key equal to the padding could sort behind it and be lost, so
 * a leaf holding one (rare) takes the insertion sort. */
ALWAYS_INLINE void sort_block(uint64_t *keys, uint32_t *values, size_t count, const int reg_count)
{
    kv64 r[MAX_REGS];
    const vec pad = _mm512_set1_epi64(-1);
    __mmask8 largest = 0;
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        __mmask8 mask = network64_lane_mask(count, i);
        size_t offset = network64_block_offset(count, i);
        r[i].k = _mm512_mask_loadu_epi64(pad, mask, keys + offset);
        r[i].v = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(mask, values + offset));
        largest |= _mm512_mask_cmpeq_epu64_mask(mask, r[i].k, pad);
    }
    if (largest && (count & (size_t)(LANES * reg_count - 1))) {
        insertion_sort_pairs(keys, values, count);
        return;
    }
    kv64_sort_registers(r, reg_count, true);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        __mmask8 mask = network64_lane_mask(count, i);
        size_t offset = network64_block_offset(count, i);
        _mm512_mask_storeu_epi64(keys + offset, mask, r[i].k);
        _mm512_mask_cvtepi64_storeu_epi32(values + offset, mask, r[i].v);
    }
}

static void base_sort(uint64_t *keys, uint32_t *values, size_t count)
{
    if (count <= 1)
        return;
    if (count <= 8)
        sort_block(keys, values, count, 1);
    else if (count <= 16)
        sort_block(keys, values, count, 2);
    else if (count <= 32)
        sort_block(keys, values, count, 4);
    else if (count <= 64)
        sort_block(keys, values, count, 8);
    else
        sort_block(keys, values, count, 16);
}

/* Moves the pairs with keys below pivot to the front; returns their count. */
static size_t partition_scalar(uint64_t *keys, uint32_t *values, size_t count, uint64_t pivot)
{
    size_t below = 0;
    for (size_t i = 0; i < count; i++) {
        if (keys[i] < pivot) {
            uint64_t key = keys[i];
            uint32_t value = values[i];
            keys[i] = keys[below];
            values[i] = values[below];
            keys[below] = key;
            values[below] = value;
            below++;
        }
    }
    return below;
}

typedef struct partition_cursor {
    uint64_t *keys;
    uint32_t *values;
    size_t left;   /* next write position of the below-pivot side */
    size_t right;  /* one past the last free position of the other side */
} partition_cursor;

/* Values travel in 32-bit lanes of a ymm register, compressed with the keys' mask. */
ALWAYS_INLINE void partition_store(partition_cursor *cur, vec k, __m256i v, __mmask8 valid, vec pivot)
{
    __mmask8 below = _mm512_mask_cmplt_epu64_mask(valid, k, pivot);
    __mmask8 above = (__mmask8)(valid & ~below);
    unsigned below_count = (unsigned)_mm_popcnt_u32(below);
    unsigned above_count = (unsigned)_mm_popcnt_u32(above);
    __mmask8 below_store = (__mmask8)_bzhi_u32(0xFF, below_count);
    __mmask8 above_store = (__mmask8)_bzhi_u32(0xFF, above_count);
    _mm512_mask_storeu_epi64(cur->keys + cur->left, below_store, _mm512_maskz_compress_epi64(below, k));
    _mm256_mask_storeu_epi32(cur->values + cur->left, below_store, _mm256_maskz_compress_epi32(below, v));
    cur->left += below_count;
    cur->right -= above_count;
    _mm512_mask_storeu_epi64(cur->keys + cur->right, above_store, _mm512_maskz_compress_epi64(above, k));
    _mm256_mask_storeu_epi32(cur->values + cur->right, above_store, _mm256_maskz_compress_epi32(above, v));
}

/* Pairs ahead of the read cursors to prefetch: the 4 KiB of keys of
 * avx512_partition64, and their values. */
#define PREFETCH_PAIRS 512

ALWAYS_INLINE void prefetch_step(const uint64_t *keys, const uint32_t *values, size_t first, size_t read_left,
                                 size_t read_right)
{
    if (first >= read_left && first + UNROLL * LANES <= read_right) {
BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++)
            __builtin_prefetch(keys + first + (size_t)u * LANES);
        __builtin_prefetch(values + first);
        __builtin_prefetch(values + first + 2 * LANES);
    }
}

/* In place, as avx512_partition64: the first and last UNROLL vectors are held
 * in registers, and each step reads from the side whose gap is smaller, so
 * neither write cursor can overtake unread pairs. */
static size_t partition(uint64_t *keys, uint32_t *values, size_t count, uint64_t pivot_key)
{
    const size_t step = UNROLL * LANES;
    if (count < 2 * step)
        return partition_scalar(keys, values, count, pivot_key);
    const vec pivot = _mm512_set1_epi64((long long)pivot_key);
    vec saved_left[UNROLL], saved_right[UNROLL];
    __m256i saved_left_values[UNROLL], saved_right_values[UNROLL];
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        saved_left[u] = _mm512_loadu_si512(keys + (size_t)u * LANES);
        saved_left_values[u] = _mm256_loadu_si256((const __m256i *)(values + (size_t)u * LANES));
        saved_right[u] = _mm512_loadu_si512(keys + count - step + (size_t)u * LANES);
        saved_right_values[u] = _mm256_loadu_si256((const __m256i *)(values + count - step + (size_t)u * LANES));
    }
    partition_cursor cur = {keys, values, 0, count};
    size_t read_left = step, read_right = count - step;
    while (read_right - read_left >= step) {
        vec in[UNROLL];
        __m256i in_values[UNROLL];
        size_t from;
        if (read_left - cur.left <= cur.right - read_right) {
            from = read_left;
            read_left += step;
            prefetch_step(keys, values, from + PREFETCH_PAIRS, read_left, read_right);
        } else {
            read_right -= step;
            from = read_right;
            if (read_right >= PREFETCH_PAIRS)
                prefetch_step(keys, values, read_right - PREFETCH_PAIRS, read_left, read_right);
        }
        BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++) {
            in[u] = _mm512_loadu_si512(keys + from + (size_t)u * LANES);
            in_values[u] = _mm256_loadu_si256((const __m256i *)(values + from + (size_t)u * LANES));
        }
        BITONIC_CPU_UNROLL(4)
        for (int u = 0; u < UNROLL; u++)
            partition_store(&cur, in[u], in_values[u], 0xFF, pivot);
    }
    vec rest[UNROLL];
    __m256i rest_values[UNROLL];
    __mmask8 rest_mask[UNROLL];
    size_t rest_count = read_right - read_left;
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        rest_mask[u] = network64_lane_mask(rest_count, u);
        size_t offset = read_left + network64_block_offset(rest_count, u);
        rest[u] = _mm512_maskz_loadu_epi64(rest_mask[u], keys + offset);
        rest_values[u] = _mm256_maskz_loadu_epi32(rest_mask[u], values + offset);
    }
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++)
        if (rest_mask[u])
            partition_store(&cur, rest[u], rest_values[u], rest_mask[u], pivot);
    BITONIC_CPU_UNROLL(4)
    for (int u = 0; u < UNROLL; u++) {
        partition_store(&cur, saved_left[u], saved_left_values[u], 0xFF, pivot);
        partition_store(&cur, saved_right[u], saved_right_values[u], 0xFF, pivot);
    }
    return cur.left;
}

static void sift_down(uint64_t *keys, uint32_t *values, size_t root, size_t count)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= count)
            return;
        if (child + 1 < count && keys[child + 1] > keys[child])
            child++;
        if (keys[root] >= keys[child])
            return;
        uint64_t key = keys[root];
        uint32_t value = values[root];
        keys[root] = keys[child];
        values[root] = values[child];
        keys[child] = key;
        values[child] = value;
        root = child;
    }
}

/* The depth guard's fallback: O(n log n) whatever the input. */
static void heap_sort(uint64_t *keys, uint32_t *values, size_t count)
{
    for (size_t i = count / 2; i-- > 0;)
        sift_down(keys, values, i, count);
    for (size_t end = count; end-- > 1;) {
        uint64_t key = keys[0];
        uint32_t value = values[0];
        keys[0] = keys[end];
        values[0] = values[end];
        keys[end] = key;
        values[end] = value;
        sift_down(keys, values, 0, end);
    }
}

/* The sampled pivot of fast_sort_driver.inc, with the same deterministic jitter. */
static uint64_t choose_pivot(const uint64_t *keys, size_t count, size_t sample_count)
{
    uint64_t sample[64];
    size_t stride = count / sample_count;
    for (size_t i = 0; i < sample_count; i++) {
        uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)count;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        sample[i] = keys[i * stride + (size_t)(((x & UINT32_MAX) * (uint64_t)stride) >> 32)];
    }
    bitonic_cpu_kernels64_avx512.base_sort(sample, sample_count);
    return sample[sample_count / 2];
}

/* key_floor: no key in the range is below it; a pivot equal to it splits off
 * the keys equal to it at once, as in fast_sort_driver.inc. */
static void quick_sort(uint64_t *keys, uint32_t *values, size_t count, size_t depth_budget, uint64_t key_floor)
{
    while (count > BASE_PAIRS) {
        if (depth_budget-- == 0) {
            heap_sort(keys, values, count);
            return;
        }
        uint64_t pivot = choose_pivot(keys, count, count >= 8192 ? 64 : 16);
        size_t below = pivot == key_floor ? 0 : partition(keys, values, count, pivot);
        if (below == 0) {
            size_t equal = pivot == UINT64_MAX ? count : partition(keys, values, count, pivot + 1);
            keys += equal;
            values += equal;
            count -= equal;
            key_floor = pivot + (count > 0);
            continue;
        }
        if (below < count - below) {
            quick_sort(keys, values, below, depth_budget, key_floor);
            keys += below;
            values += below;
            count -= below;
            key_floor = pivot;
        } else {
            quick_sort(keys + below, values + below, count - below, depth_budget, pivot);
            count = below;
        }
    }
    base_sort(keys, values, count);
}

static void insertion_sort_values(uint32_t *values, size_t count)
{
    for (size_t i = 1; i < count; i++) {
        uint32_t value = values[i];
        size_t j = i;
        for (; j > 0 && values[j - 1] > value; j--)
            values[j] = values[j - 1];
        values[j] = value;
    }
}

/* Sorts the values of every run of equal keys; 8 neighbours compared at once
 * skip the (for random keys, nearly all) places with no tie. */
static void sort_tied_values(const uint64_t *keys, uint32_t *values, size_t count)
{
    size_t i = 0;
    while (i + 1 < count) {
        if (i + LANES + 1 <= count) {
            __mmask8 tie = _mm512_cmpeq_epu64_mask(_mm512_loadu_si512(keys + i), _mm512_loadu_si512(keys + i + 1));
            if (!tie) {
                i += LANES;
                continue;
            }
            i += (size_t)_tzcnt_u32(tie);
        } else if (keys[i] != keys[i + 1]) {
            i++;
            continue;
        }
        size_t end = i + 2;
        while (end < count && keys[end] == keys[i])
            end++;
        if (end - i <= SHORT_RUN)
            insertion_sort_values(values + i, end - i);
        else
            bitonic_cpu_sort_sequential_u32(&bitonic_cpu_kernels_avx512, values + i, end - i);
        i = end;
    }
}

void bitonic_cpu_sort_pairs_avx512_u64(uint64_t *keys, uint32_t *values, size_t count)
{
    size_t log = 0;
    for (size_t rest = count; rest >>= 1;)
        log++;
    quick_sort(keys, values, count, 2 * log + 4, 0);
    sort_tied_values(keys, values, count);
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* BITONIC_CPU_HAVE_X86 */
