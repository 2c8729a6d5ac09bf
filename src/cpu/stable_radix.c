/* stable_radix.c: the stable sort of pairs with 32-bit keys, by radix: most
 * significant digits first down to regions that fit the caches, then least
 * significant digits first within each region.
 * - Keys are taken as the bits of key_transform.h's order map, less the
 *   smallest of them, so only the span's bits are sorted on; where a
 *   sample of them already spans half the key space, as is, with no pass to
 *   find the smallest.
 * - The first pass moves the pairs from the caller's arrays into words
 *   ((key - smallest) << 32 | value) by the top digit of the span (at most
 *   11 bits), a bucket of about 2^12 pairs for each digit; slices of the
 *   input are counted and moved on the sort's threads, each slice's pairs of
 *   a digit after those of the slices before it, so the pass is stable.
 * - The buckets are then shared out among the threads. A bucket of at most
 *   2^15 pairs (256 KiB of words) is copied into a buffer of the thread's,
 *   sorted there by digits of up to 11 bits from the least significant (each
 *   pass a stable counting sort between two such buffers) and written
 *   back to the caller's keys and values. A larger bucket (keys that crowd
 *   into a few digits, as floats do) is split again by its next digits,
 *   between the words and the caller's arrays, which hold nothing else by
 *   then. A digit that all of a region's pairs share costs a count and no move.
 * A quicksort must carry each pair's position to keep ties in order, and
 * moves 12 or 16 bytes a pair in every pass; here the first pass is the only
 * one that leaves the caches (docs/perf-log.md, entry 131). */
#include "stable_radix.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "key_transform.h"
#include "radix_common.h"

/* A region of at most LEAF_PAIRS pairs is sorted by its low digits in a
 * thread's two buffers (256 KiB each, in L2). The splits aim at buckets of
 * 2^BUCKET_TARGET_LOG, whose passes stay in L1; where the first pass's digit
 * reaches its 11 bits (from 2^23 pairs) the buckets grow past that, and are
 * still leaves up to 2^15: with leaves of at most 2^13, each bucket of 2^25
 * pairs was split once more, a pass through lines of the caller's arrays not
 * in the caches, and the sort took 1.6x (docs/perf-log.md, entry 133). */
#define LEAF_LOG 15
#define LEAF_PAIRS ((size_t)1 << LEAF_LOG)
#define BUCKET_TARGET_LOG 12
/* Digits of the passes that split regions: at most 2^11 buckets a pass. */
#define SPLIT_DIGIT_MAX_BITS 11
#define SPLIT_BUCKETS_MAX ((size_t)1 << SPLIT_DIGIT_MAX_BITS)
/* The passes within a leaf take at most 11 bits each (2048 counters, 8 KiB
 * in L1): 22 bits in two passes where 8-bit digits took three. */
#define LEAF_DIGIT_MAX_BITS 11
#define LEAF_PASSES_MAX 3
#define LEAF_COUNTERS (LEAF_PASSES_MAX << LEAF_DIGIT_MAX_BITS)
/* The passes over regions too large for a leaf take 8 bits each. */
#define PASS_DIGIT_BITS 8
/* How many times a region below the first pass splits by its next digit
 * before it is sorted by passes: each level keeps a thread's counters. */
#define MAX_SPLIT_DEPTH 3

/* The shared state of one sort. */
typedef struct radix_sort {
    uint32_t *keys, *values; /* the caller's pairs: input, then output */
    uint64_t *words;         /* the first pass's output */
    bitonic_key_type type;
    uint32_t order_xor;
    uint32_t smallest; /* the smallest mapped key */
    unsigned span_bits, top_bits;
    size_t count;
    uint32_t slices;
    size_t *slice_counts; /* slices x 2^top_bits: counts, then each slice's next position */
    size_t *bucket_start; /* 2^top_bits + 1 */
    atomic_size_t next_bucket;
    uint64_t *thread_words; /* THREAD_WORDS a thread */
} radix_sort;

/* Each thread's buffers (thread_buffers), in words: two leaves, the split
 * levels' counters, the leaves' counters (two to a word). */
#define THREAD_WORDS (2 * LEAF_PAIRS + MAX_SPLIT_DEPTH * (SPLIT_BUCKETS_MAX + 1) + LEAF_COUNTERS / 2)

size_t bitonic_cpu_stable_radix_scratch_words(size_t count, const bitonic_cpu_sort_config *config)
{
    uint32_t threads = radix_threads(count, config);
    return count + (size_t)threads * THREAD_WORDS + (size_t)threads * SPLIT_BUCKETS_MAX + SPLIT_BUCKETS_MAX + 1;
}

/* Whether a sample of the keys spans the key space (radix_common.h). */
static bool spans_key_space(const radix_sort *sort, unsigned top_bits)
{
    if (sort->count < RADIX_SPAN_SAMPLE)
        return false;
    uint32_t low = UINT32_MAX, high = 0;
    for (size_t i = 0; i < RADIX_SPAN_SAMPLE; i++) {
        uint32_t key = sort->keys[sort->count / RADIX_SPAN_SAMPLE * i];
        uint32_t digit = bitonic_ordered_from_key(key, sort->type, sort->order_xor) >> (32 - top_bits);
        low = digit < low ? digit : low;
        high = digit > high ? digit : high;
    }
    return radix_sample_spans(low, high, top_bits);
}

typedef struct slice_job {
    radix_sort *sort;
    uint32_t index;
    size_t begin, end;
    uint32_t low, high; /* the range pass: the slice's smallest and largest mapped keys */
} slice_job;

static void range_run(void *arg)
{
    slice_job *job = arg;
    const radix_sort *sort = job->sort;
    uint32_t low = UINT32_MAX, high = 0;
    for (size_t i = job->begin; i < job->end; i++) {
        uint32_t key = bitonic_ordered_from_key(sort->keys[i], sort->type, sort->order_xor);
        low = key < low ? key : low;
        high = key > high ? key : high;
    }
    job->low = low;
    job->high = high;
}

static void count_run(void *arg)
{
    slice_job *job = arg;
    const radix_sort *sort = job->sort;
    size_t *counts = sort->slice_counts + ((size_t)job->index << sort->top_bits);
    unsigned shift = sort->span_bits - sort->top_bits;
    for (size_t i = job->begin; i < job->end; i++)
        counts[(bitonic_ordered_from_key(sort->keys[i], sort->type, sort->order_xor) - sort->smallest) >> shift]++;
}

static void scatter_run(void *arg)
{
    slice_job *job = arg;
    const radix_sort *sort = job->sort;
    size_t *next = sort->slice_counts + ((size_t)job->index << sort->top_bits);
    unsigned shift = sort->span_bits - sort->top_bits;
    for (size_t i = job->begin; i < job->end; i++) {
        uint32_t key = bitonic_ordered_from_key(sort->keys[i], sort->type, sort->order_xor) - sort->smallest;
        sort->words[next[key >> shift]++] = (uint64_t)key << 32 | sort->values[i];
    }
}

/* Writes words (keys less the smallest, mapped) to the caller's arrays at
 * offset. */
static void write_out(const radix_sort *sort, const uint64_t *words, size_t offset, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t word = words[i];
        sort->keys[offset + i] = bitonic_key_from_ordered((uint32_t)(word >> 32) + sort->smallest, sort->type,
                                                          sort->order_xor);
        sort->values[offset + i] = (uint32_t)word;
    }
}

/* Counts the digits of every pass in one read of the words; passes is a
 * constant where it is called, so the loop over them unrolls (with it a
 * loop, the count took half of a leaf's time). */
static inline __attribute__((always_inline)) void count_digits(const uint64_t *a, size_t count, uint32_t *counters,
                                                               unsigned digit_bits, const unsigned passes)
{
    uint32_t mask = (1u << digit_bits) - 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t key = (uint32_t)(a[i] >> 32);
        for (unsigned p = 0; p < passes; p++)
            counters[(p << digit_bits) + ((key >> (p * digit_bits)) & mask)]++;
    }
}

/* Sorts count words (at most LEAF_PAIRS) by the low `bits` bits of their
 * keys, least significant digit first, between a and b; returns the one that
 * holds the result. counters: LEAF_COUNTERS of the thread's. */
static uint64_t *sort_leaf(uint64_t *a, uint64_t *b, size_t count, unsigned bits, uint32_t *counters)
{
    unsigned passes = (bits + LEAF_DIGIT_MAX_BITS - 1) / LEAF_DIGIT_MAX_BITS;
    if (passes == 0 || count <= 1)
        return a;
    unsigned digit_bits = (bits + passes - 1) / passes;
    uint32_t mask = (1u << digit_bits) - 1;
    memset(counters, 0, ((size_t)passes << digit_bits) * sizeof *counters);
    if (passes == 3)
        count_digits(a, count, counters, digit_bits, 3);
    else if (passes == 2)
        count_digits(a, count, counters, digit_bits, 2);
    else
        count_digits(a, count, counters, digit_bits, 1);
    for (unsigned p = 0; p < passes; p++) {
        unsigned shift = 32 + p * digit_bits;
        uint32_t *next = counters + (p << digit_bits);
        /* Every key shares this digit: the pass would move nothing. */
        if (next[(a[0] >> shift) & mask] == count)
            continue;
        uint32_t sum = 0;
        for (uint32_t d = 0; d <= mask; d++) {
            uint32_t digit_count = next[d];
            next[d] = sum;
            sum += digit_count;
        }
        for (size_t i = 0; i < count; i++) {
            uint64_t word = a[i];
            b[next[(word >> shift) & mask]++] = word;
        }
        uint64_t *swap = a;
        a = b;
        b = swap;
    }
    return a;
}

/* Where a region's pairs lie: in the words, or in the caller's arrays (their
 * keys already mapped, less the smallest). */
typedef enum region_place { IN_WORDS, IN_ARRAYS } region_place;

static uint64_t word_at(const radix_sort *sort, region_place place, size_t index)
{
    return place == IN_WORDS ? sort->words[index] : (uint64_t)sort->keys[index] << 32 | sort->values[index];
}

/* Moves the pair at index of place to at in the other place. */
static void move_pair(const radix_sort *sort, region_place to, size_t at, uint64_t word)
{
    if (to == IN_WORDS)
        sort->words[at] = word;
    else {
        sort->keys[at] = (uint32_t)(word >> 32);
        sort->values[at] = (uint32_t)word;
    }
}

/* Leaves the count pairs at offset of place, in order, in the caller's
 * arrays with their keys mapped back. */
static void finish_region(const radix_sort *sort, region_place place, size_t offset, size_t count)
{
    if (place == IN_WORDS) {
        write_out(sort, sort->words + offset, offset, count);
        return;
    }
    for (size_t i = offset; i < offset + count; i++)
        sort->keys[i] = bitonic_key_from_ordered(sort->keys[i] + sort->smallest, sort->type, sort->order_xor);
}

/* One stable counting pass over a region by the digit (key >> shift) & mask,
 * from place to the other place; next: mask + 1 counters. Returns false, and
 * moves nothing, where every pair shares the digit; otherwise next[d] is
 * where digit d's pairs end. */
static bool move_by_digit(const radix_sort *sort, region_place place, size_t offset, size_t count, unsigned shift,
                          uint32_t mask, size_t *next)
{
    memset(next, 0, ((size_t)mask + 1) * sizeof *next);
    for (size_t i = offset; i < offset + count; i++)
        next[(word_at(sort, place, i) >> 32 >> shift) & mask]++;
    if (next[(word_at(sort, place, offset) >> 32 >> shift) & mask] == count)
        return false;
    size_t sum = offset;
    for (uint32_t d = 0; d <= mask; d++) {
        size_t digit_count = next[d];
        next[d] = sum;
        sum += digit_count;
    }
    region_place to = place == IN_WORDS ? IN_ARRAYS : IN_WORDS;
    for (size_t i = offset; i < offset + count; i++) {
        uint64_t word = word_at(sort, place, i);
        move_pair(sort, to, next[(word >> 32 >> shift) & mask]++, word);
    }
    return true;
}

/* A region that split MAX_SPLIT_DEPTH times and is still larger than a leaf
 * (keys crowded into few values of many digits): its low `bits` bits by 8-bit
 * digits from the least significant, each pass between the words and the
 * caller's arrays, out of the caches but with no more memory. */
static void sort_region_by_passes(const radix_sort *sort, region_place place, size_t offset, size_t count,
                                  unsigned bits)
{
    for (unsigned low = 0; low < bits; low += PASS_DIGIT_BITS) {
        unsigned digit_bits = bits - low < PASS_DIGIT_BITS ? bits - low : PASS_DIGIT_BITS;
        size_t next[1u << PASS_DIGIT_BITS];
        if (move_by_digit(sort, place, offset, count, low, (1u << digit_bits) - 1, next))
            place = place == IN_WORDS ? IN_ARRAYS : IN_WORDS;
    }
    finish_region(sort, place, offset, count);
}

/* One thread's buffers: two leaves and the counters of each split level and
 * of the leaves' passes. */
typedef struct thread_buffers {
    uint64_t *a, *b;
    size_t *split_counts; /* MAX_SPLIT_DEPTH x (SPLIT_BUCKETS_MAX + 1) */
    uint32_t *leaf_counters; /* LEAF_COUNTERS */
} thread_buffers;

/* Sorts the count pairs at offset whose keys agree above their low `bits`
 * bits, and leaves them in the caller's arrays. */
static void sort_region(const radix_sort *sort, region_place place, size_t offset, size_t count, unsigned bits,
                        unsigned depth, const thread_buffers *buffers)
{
    for (;;) {
        if (bits == 0) { /* every key equal: in order already */
            finish_region(sort, place, offset, count);
            return;
        }
        if (count <= LEAF_PAIRS) {
            /* Copied first: the passes then run between two buffers that stay
             * in L1 and L2 (in place in the words, 2^20 pairs took 1.3x). */
            for (size_t i = 0; i < count; i++)
                buffers->a[i] = word_at(sort, place, offset + i);
            write_out(sort, sort_leaf(buffers->a, buffers->b, count, bits, buffers->leaf_counters), offset, count);
            return;
        }
        if (depth == MAX_SPLIT_DEPTH) {
            sort_region_by_passes(sort, place, offset, count, bits);
            return;
        }
        /* Split by the next digit: about LEAF_PAIRS a bucket. */
        unsigned digit_bits = radix_bit_length((uint32_t)(count >> BUCKET_TARGET_LOG)) - 1;
        if (digit_bits > SPLIT_DIGIT_MAX_BITS)
            digit_bits = SPLIT_DIGIT_MAX_BITS;
        if (digit_bits > bits)
            digit_bits = bits;
        unsigned shift = bits - digit_bits;
        uint32_t mask = (1u << digit_bits) - 1;
        size_t *next = buffers->split_counts + (size_t)depth * (SPLIT_BUCKETS_MAX + 1);
        if (!move_by_digit(sort, place, offset, count, shift, mask, next)) {
            bits = shift; /* a digit every pair shares: nothing moved */
            continue;
        }
        region_place to = place == IN_WORDS ? IN_ARRAYS : IN_WORDS;
        size_t begin = offset;
        for (uint32_t d = 0; d <= mask; d++) {
            if (next[d] > begin)
                sort_region(sort, to, begin, next[d] - begin, shift, depth + 1, buffers);
            begin = next[d];
        }
        return;
    }
}

typedef struct bucket_job {
    radix_sort *sort;
    thread_buffers buffers;
} bucket_job;

/* Takes the first pass's buckets in turn until none is left. */
static void bucket_run(void *arg)
{
    bucket_job *job = arg;
    radix_sort *sort = job->sort;
    size_t buckets = (size_t)1 << sort->top_bits;
    for (;;) {
        size_t bucket = atomic_fetch_add_explicit(&sort->next_bucket, 1, memory_order_relaxed);
        if (bucket >= buckets)
            return;
        size_t begin = sort->bucket_start[bucket], end = sort->bucket_start[bucket + 1];
        if (end > begin)
            sort_region(sort, IN_WORDS, begin, end - begin, sort->span_bits - sort->top_bits, 0, &job->buffers);
    }
}

void bitonic_cpu_stable_radix_sort_pairs(uint32_t *keys, uint32_t *values, size_t count, bitonic_key_type type,
                                         uint32_t order_xor, uint64_t *scratch, const bitonic_cpu_sort_config *config)
{
    if (count <= 1)
        return;
    uint32_t threads = radix_threads(count, config), slices = radix_slices(count, threads);
    radix_sort sort = {keys, values, scratch, type, order_xor, 0, 0, 0, count, slices, NULL, NULL, 0, NULL};
    slice_job jobs[BITONIC_CPU_MAX_THREADS];
    for (uint32_t s = 0; s < slices; s++)
        jobs[s] = (slice_job){&sort, s, count * s / slices, count * (s + 1) / slices, 0, 0};
    unsigned top_bits = radix_top_bits(count, BUCKET_TARGET_LOG, SPLIT_DIGIT_MAX_BITS);
    if (spans_key_space(&sort, top_bits)) {
        /* Keys over at least half the key space: its top digit is the
         * span's, to a bit, and needs no range pass (0.86-0.95x the time,
         * docs/perf-log.md, entry 135). */
        sort.smallest = 0;
        sort.span_bits = 32;
        sort.top_bits = top_bits;
    } else {
        bitonic_cpu_run_jobs(range_run, jobs, sizeof jobs[0], slices);
        uint32_t low = jobs[0].low, high = jobs[0].high;
        for (uint32_t s = 1; s < slices; s++) {
            low = jobs[s].low < low ? jobs[s].low : low;
            high = jobs[s].high > high ? jobs[s].high : high;
        }
        if (low == high)
            return; /* every key equal: the input order is the stable order */
        sort.smallest = low;
        sort.span_bits = radix_bit_length(high - low);
        sort.top_bits = top_bits > sort.span_bits ? sort.span_bits : top_bits;
    }
    size_t buckets = (size_t)1 << sort.top_bits;
    sort.thread_words = scratch + count;
    sort.slice_counts = (size_t *)(sort.thread_words + (size_t)threads * THREAD_WORDS);
    sort.bucket_start = sort.slice_counts + (size_t)slices * buckets;
    memset(sort.slice_counts, 0, (size_t)slices * buckets * sizeof *sort.slice_counts);
    bitonic_cpu_run_jobs(count_run, jobs, sizeof jobs[0], slices);
    /* Each slice's first position in each bucket: after the slices before it. */
    radix_slice_places(sort.slice_counts, slices, sort.top_bits, sort.bucket_start);
    bitonic_cpu_run_jobs(scatter_run, jobs, sizeof jobs[0], slices);
    atomic_init(&sort.next_bucket, 0);
    bucket_job bucket_jobs[BITONIC_CPU_MAX_THREADS];
    uint32_t workers = buckets < threads ? (uint32_t)buckets : threads;
    for (uint32_t t = 0; t < workers; t++) {
        uint64_t *own = sort.thread_words + (size_t)t * THREAD_WORDS;
        size_t *split_counts = (size_t *)(own + 2 * LEAF_PAIRS);
        bucket_jobs[t] = (bucket_job){&sort,
                                      {own, own + LEAF_PAIRS, split_counts,
                                       (uint32_t *)(split_counts + MAX_SPLIT_DEPTH * (SPLIT_BUCKETS_MAX + 1))}};
    }
    bitonic_cpu_run_jobs(bucket_run, bucket_jobs, sizeof bucket_jobs[0], workers);
}
