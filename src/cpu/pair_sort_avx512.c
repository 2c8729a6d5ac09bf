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
    uint64_t sample[BITONIC_CPU_MAX_PIVOT_SAMPLE];
    if (sample_count > count)
        sample_count = count;
    size_t stride = count / sample_count;
    for (size_t i = 0; i < sample_count; i++) {
        uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)count;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        sample[i] = keys[i * stride + (size_t)(((x & UINT32_MAX) * (uint64_t)stride) >> 32)];
    }
    if (sample_count <= BASE_PAIRS)
        bitonic_cpu_kernels64_avx512.base_sort(sample, sample_count);
    else
        bitonic_cpu_sort_sequential_u64(&bitonic_cpu_kernels64_avx512, sample, sample_count);
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

static size_t initial_depth_budget(size_t count)
{
    size_t log = 0;
    for (size_t rest = count; rest >>= 1;)
        log++;
    return 2 * log + 4;
}

void bitonic_cpu_sort_pairs_avx512_u64(uint64_t *keys, uint32_t *values, size_t count)
{
    quick_sort(keys, values, count, initial_depth_budget(count), 0);
    sort_tied_values(keys, values, count);
}

/* The parallel sort. Its constants are fast_sort_driver.inc's: all threads
 * partition together only from 4 threads and 2^22 pairs, a thread splits
 * pieces down to 1/(16 threads) of the input, and fewer misplaced pairs than
 * 2^16 are swapped on one thread. */
#define PARALLEL_PARTITION_MIN_THREADS 4
#define PARALLEL_PARTITION_MIN_PAIRS ((size_t)1 << 22)
#define GRAIN_PER_THREAD 16
#define PARALLEL_MIN_SWAP_PAIRS ((size_t)1 << 16)
#define MAX_PIECES (8 * BITONIC_CPU_MAX_THREADS + 16)

typedef struct slice_partition_job {
    uint64_t *keys;
    uint32_t *values;
    size_t begin, end;
    uint64_t pivot;
    size_t below; /* out */
} slice_partition_job;

static void slice_partition_run(void *arg)
{
    slice_partition_job *job = arg;
    job->below = partition(job->keys + job->begin, job->values + job->begin, job->end - job->begin, job->pivot);
}

typedef struct pair_interval {
    size_t begin, end;
} pair_interval;

/* Pairs below the pivot that lie right of the split, and pairs above it that
 * lie left of it: equally many, listed slice by slice. */
typedef struct misplaced_pairs {
    pair_interval above_left[BITONIC_CPU_MAX_THREADS];
    pair_interval below_right[BITONIC_CPU_MAX_THREADS];
    uint32_t above_left_count, below_right_count;
} misplaced_pairs;

typedef struct swap_job {
    uint64_t *keys;
    uint32_t *values;
    const misplaced_pairs *misplaced;
    size_t first, last; /* offsets into the misplaced pairs this job swaps */
} swap_job;

static void seek_interval(const pair_interval *list, size_t offset, uint32_t *index, size_t *position)
{
    uint32_t i = 0;
    while (offset >= list[i].end - list[i].begin) {
        offset -= list[i].end - list[i].begin;
        i++;
    }
    *index = i;
    *position = list[i].begin + offset;
}

static void swap_run(void *arg)
{
    swap_job *job = arg;
    if (job->first >= job->last)
        return;
    const pair_interval *left = job->misplaced->above_left, *right = job->misplaced->below_right;
    uint32_t left_index, right_index;
    size_t left_pos, right_pos;
    seek_interval(left, job->first, &left_index, &left_pos);
    seek_interval(right, job->first, &right_index, &right_pos);
    size_t remaining = job->last - job->first;
    while (remaining > 0) {
        if (left_pos == left[left_index].end)
            left_pos = left[++left_index].begin;
        if (right_pos == right[right_index].end)
            right_pos = right[++right_index].begin;
        size_t run = left[left_index].end - left_pos;
        if (right[right_index].end - right_pos < run)
            run = right[right_index].end - right_pos;
        if (remaining < run)
            run = remaining;
        uint64_t *a = job->keys + left_pos, *b = job->keys + right_pos;
        uint32_t *va = job->values + left_pos, *vb = job->values + right_pos;
        for (size_t i = 0; i < run; i++) {
            uint64_t key = a[i];
            a[i] = b[i];
            b[i] = key;
            uint32_t value = va[i];
            va[i] = vb[i];
            vb[i] = value;
        }
        left_pos += run;
        right_pos += run;
        remaining -= run;
    }
}

static void add_interval(pair_interval *list, uint32_t *list_count, size_t begin, size_t end)
{
    if (begin < end)
        list[(*list_count)++] = (pair_interval){begin, end};
}

/* Partitions the pairs around pivot on `threads` threads: each its own slice,
 * then the pairs on the wrong side of the split swapped across; returns the
 * count below. */
static size_t parallel_partition(uint64_t *keys, uint32_t *values, size_t count, uint64_t pivot, uint32_t threads)
{
    slice_partition_job slices[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < threads; i++)
        slices[i] = (slice_partition_job){keys, values, count * i / threads, count * (i + 1) / threads, pivot, 0};
    bitonic_cpu_run_jobs(slice_partition_run, slices, sizeof slices[0], threads);

    size_t split = 0;
    for (uint32_t i = 0; i < threads; i++)
        split += slices[i].below;
    misplaced_pairs misplaced;
    misplaced.above_left_count = misplaced.below_right_count = 0;
    size_t misplaced_count = 0;
    for (uint32_t i = 0; i < threads; i++) {
        size_t below_end = slices[i].begin + slices[i].below;
        size_t above_end = slices[i].end < split ? slices[i].end : split;
        add_interval(misplaced.above_left, &misplaced.above_left_count, below_end, above_end);
        if (below_end < above_end)
            misplaced_count += above_end - below_end;
        size_t below_begin = slices[i].begin > split ? slices[i].begin : split;
        add_interval(misplaced.below_right, &misplaced.below_right_count, below_begin, below_end);
    }
    uint32_t swappers = misplaced_count < PARALLEL_MIN_SWAP_PAIRS ? 1 : threads;
    swap_job swaps[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < swappers; i++)
        swaps[i] = (swap_job){keys, values, &misplaced, misplaced_count * i / swappers,
                              misplaced_count * (i + 1) / swappers};
    bitonic_cpu_run_jobs(swap_run, swaps, sizeof swaps[0], swappers);
    return split;
}

typedef struct pair_piece {
    uint64_t *keys;
    uint32_t *values;
    size_t count;
    size_t depth_budget; /* partitions left before the heapsort guard */
} pair_piece;

/* Pieces not yet taken, and how many threads hold one; the work is over when
 * the queue is empty and nobody holds a piece. */
typedef struct work_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pair_piece pieces[MAX_PIECES];
    size_t piece_count;
    uint32_t busy;
    size_t grain; /* pieces larger than this are split and shared */
} work_queue;

static size_t largest_piece(const pair_piece *pieces, size_t piece_count)
{
    size_t largest = 0;
    for (size_t i = 1; i < piece_count; i++)
        if (pieces[i].count > pieces[largest].count)
            largest = i;
    return largest;
}

static int take_piece(work_queue *queue, pair_piece *out)
{
    pthread_mutex_lock(&queue->lock);
    while (queue->piece_count == 0 && queue->busy > 0)
        pthread_cond_wait(&queue->changed, &queue->lock);
    int got = queue->piece_count > 0;
    if (got) {
        size_t largest = largest_piece(queue->pieces, queue->piece_count);
        *out = queue->pieces[largest];
        queue->pieces[largest] = queue->pieces[--queue->piece_count];
        queue->busy++;
    }
    pthread_mutex_unlock(&queue->lock);
    return got;
}

static int share_piece(work_queue *queue, pair_piece piece)
{
    pthread_mutex_lock(&queue->lock);
    int shared = queue->piece_count < MAX_PIECES;
    if (shared) {
        queue->pieces[queue->piece_count++] = piece;
        pthread_cond_signal(&queue->changed);
    }
    pthread_mutex_unlock(&queue->lock);
    return shared;
}

static void finish_piece(work_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->busy--;
    if (queue->busy == 0 && queue->piece_count == 0)
        pthread_cond_broadcast(&queue->changed);
    pthread_mutex_unlock(&queue->lock);
}

/* A final piece: its keys sorted, then its ties' values. */
static void sort_piece(pair_piece piece)
{
    quick_sort(piece.keys, piece.values, piece.count, piece.depth_budget, 0);
    sort_tied_values(piece.keys, piece.values, piece.count);
}

/* Splits a piece alone down to the grain, sharing the smaller side of each
 * split, then sorts what is left. */
static void work_on_piece(work_queue *queue, pair_piece piece)
{
    while (piece.count > queue->grain && piece.depth_budget > 0) {
        piece.depth_budget--;
        uint64_t pivot = choose_pivot(piece.keys, piece.count, 256);
        size_t below = partition(piece.keys, piece.values, piece.count, pivot);
        if (below == 0) {
            /* The pivot was the smallest key: the pairs equal to it are
             * final but for their values' order. */
            size_t equal =
                pivot == UINT64_MAX ? piece.count : partition(piece.keys, piece.values, piece.count, pivot + 1);
            sort_tied_values(piece.keys, piece.values, equal);
            piece.keys += equal;
            piece.values += equal;
            piece.count -= equal;
            continue;
        }
        pair_piece left = {piece.keys, piece.values, below, piece.depth_budget};
        pair_piece right = {piece.keys + below, piece.values + below, piece.count - below, piece.depth_budget};
        pair_piece kept = left.count >= right.count ? left : right;
        pair_piece offered = left.count >= right.count ? right : left;
        if (!share_piece(queue, offered))
            sort_piece(offered);
        piece = kept;
    }
    sort_piece(piece);
}

static void queue_worker_run(void *arg)
{
    work_queue *queue = *(work_queue **)arg;
    pair_piece piece;
    while (take_piece(queue, &piece)) {
        work_on_piece(queue, piece);
        finish_piece(queue);
    }
}

/* On 4 or more threads and large inputs, all threads partition the largest
 * piece together while there are fewer pieces than threads; then each thread
 * takes the largest piece waiting and splits it alone. */
static void split_together(work_queue *queue, uint32_t threads, size_t count)
{
    while (queue->piece_count < threads && threads >= PARALLEL_PARTITION_MIN_THREADS &&
           count >= PARALLEL_PARTITION_MIN_PAIRS) {
        size_t largest = largest_piece(queue->pieces, queue->piece_count);
        pair_piece piece = queue->pieces[largest];
        if (piece.count <= queue->grain || piece.depth_budget == 0 || piece.count < PARALLEL_PARTITION_MIN_PAIRS)
            break;
        piece.depth_budget--;
        uint64_t pivot = choose_pivot(piece.keys, piece.count, BITONIC_CPU_MAX_PIVOT_SAMPLE);
        size_t below = parallel_partition(piece.keys, piece.values, piece.count, pivot, threads);
        if (below == 0) {
            size_t equal = pivot == UINT64_MAX
                               ? piece.count
                               : parallel_partition(piece.keys, piece.values, piece.count, pivot + 1, threads);
            sort_tied_values(piece.keys, piece.values, equal);
            queue->pieces[largest] = (pair_piece){piece.keys + equal, piece.values + equal, piece.count - equal,
                                                  piece.depth_budget};
            continue;
        }
        queue->pieces[largest] = (pair_piece){piece.keys, piece.values, below, piece.depth_budget};
        queue->pieces[queue->piece_count++] =
            (pair_piece){piece.keys + below, piece.values + below, piece.count - below, piece.depth_budget};
    }
}

void bitonic_cpu_sort_pairs_parallel_avx512_u64(uint64_t *keys, uint32_t *values, size_t count, uint32_t threads)
{
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;
    if (threads <= 1 || count < BITONIC_CPU_PARALLEL_MIN_KEYS_PER_THREAD * threads) {
        bitonic_cpu_sort_pairs_avx512_u64(keys, values, count);
        return;
    }
    work_queue queue;
    if (pthread_mutex_init(&queue.lock, NULL) != 0) {
        bitonic_cpu_sort_pairs_avx512_u64(keys, values, count);
        return;
    }
    if (pthread_cond_init(&queue.changed, NULL) != 0) {
        pthread_mutex_destroy(&queue.lock);
        bitonic_cpu_sort_pairs_avx512_u64(keys, values, count);
        return;
    }
    queue.busy = 0;
    queue.grain = count / (GRAIN_PER_THREAD * (size_t)threads);
    if (queue.grain < BITONIC_CPU_PARALLEL_MIN_KEYS_PER_THREAD / 2)
        queue.grain = BITONIC_CPU_PARALLEL_MIN_KEYS_PER_THREAD / 2;
    queue.pieces[0] = (pair_piece){keys, values, count, initial_depth_budget(count)};
    queue.piece_count = 1;
    split_together(&queue, threads, count);
    work_queue *workers[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < threads; i++)
        workers[i] = &queue;
    bitonic_cpu_run_jobs(queue_worker_run, workers, sizeof workers[0], threads);
    pthread_cond_destroy(&queue.changed);
    pthread_mutex_destroy(&queue.lock);
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* BITONIC_CPU_HAVE_X86 */
