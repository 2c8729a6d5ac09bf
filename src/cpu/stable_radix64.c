/* stable_radix64.c: the sort of pairs with 64-bit keys (and the argsort of
 * 64-bit keys) by radix, in (key, position) order, or in (key, value) order
 * for plain pairs.
 * - Keys are taken as the bits of key_transform.h's order map, less the
 *   smallest of them, so only the span's bits are sorted on; where a
 *   sample of them already spans half the key space, as is, with no pass to
 *   find the smallest.
 * - The first pass moves the pairs from the caller's arrays into the scratch
 *   (as 12-byte records, key and value) by the top digit of the span (at
 *   most 10 bits), a bucket of about 2^10 pairs for each digit; slices of the
 *   input are counted and moved on the sort's threads, each slice's pairs of
 *   a digit after those of the slices before it, so the pass is stable.
 * - The buckets are then shared out among the threads. A bucket of at most
 *   2^15 pairs is sorted by the 22 bits below its shared ones (16 in a leaf
 *   of up to 2^12): words (those bits << 32 | the pair's index in the
 *   bucket) in a thread's two buffers, by two digits from the least
 *   significant. Pairs those bits do not tell apart (random keys leave a few,
 *   in runs of two) are then put in order by their whole keys and their
 *   positions or values, and the pairs are gathered by their indices, from
 *   lines still in L2, into the caller's arrays. A larger bucket is split
 *   again by its next digits, between the scratch and the caller's arrays,
 *   as in stable_radix.c; the argsort's (no output keys) in place.
 * The quicksort this replaces for 64-bit keys moved 12 to 16 bytes a pair in
 * every partition level and had to carry positions to keep ties in order
 * (docs/perf-log.md, entry 134). */
#include "stable_radix.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "key_transform.h"
#include "radix_common.h"

/* A bucket of at most LEAF_PAIRS is a leaf: 384 KiB of keys and values read
 * from the scratch and two buffers of 256 KiB, within L2 of the 16-core
 * machine and just so of the 2-core one; the splits of larger buckets aim at
 * buckets of 2^SPLIT_BUCKET_LOG (at 2^26 pairs, 2^10 took 1.0-1.15x the
 * time of 2^12: docs/perf-log.md, entry 139). */
#define LEAF_LOG 15
#define LEAF_PAIRS ((size_t)1 << LEAF_LOG)
#define SPLIT_BUCKET_LOG 12
#define SPLIT_DIGIT_MAX_BITS 11
/* The first pass aims at buckets of 2^10 pairs, small leaves all (below):
 * with 2^12, leaves of about 4096 pairs sorted 22 bits and the sort took
 * 1.07-1.25x the time at 2^18 to 2^21 on the 2-core machine (entry 139). */
#define FIRST_BUCKET_LOG 10
/* The first pass's digit takes at most 10 bits: 1024 streams of records.
 * With 11 (2048 streams, from 2^23 pairs) the pass took 1.3-1.6x longer and
 * the sort 1.1-1.4x at 2^23 and 2^24; its buckets of up to 2^15 pairs at
 * 2^25 are still leaves (docs/perf-log.md, entry 138). */
#define FIRST_DIGIT_MAX_BITS 10
#define SPLIT_BUCKETS_MAX ((size_t)1 << SPLIT_DIGIT_MAX_BITS)
/* A leaf sorts by the 22 bits below those its keys share, in at most 2
 * passes of at most 11-bit digits, and puts the runs those bits do not tell
 * apart in order after: random keys leave a tie in about one leaf's pair in
 * 2^(22 - leaf's log + 1). With 32 bits in 3 passes the leaves took 1.1x,
 * with 16 to 20 bits the runs cost more than the pass saved
 * (docs/perf-log.md, entry 134). */
#define LEAF_SORTED_BITS 22
/* Leaves of up to 2^12 pairs sort 16 bits, in two passes of 256 counters:
 * 0.58-0.97x the time of 22 bits at 2^8 to 2^11 pairs, where the counters
 * of 11-bit digits outnumber the pairs (entry 137), and the first pass's
 * buckets of about 2^10 (up to 2^12 where keys crowd) are such leaves
 * (entry 139). */
#define SMALL_LEAF_PAIRS ((size_t)1 << 12)
#define SMALL_LEAF_SORTED_BITS 16
#define LEAF_DIGIT_MAX_BITS 11
#define LEAF_PASSES_MAX 2
#define LEAF_COUNTERS (LEAF_PASSES_MAX << LEAF_DIGIT_MAX_BITS)
/* Runs of pairs the leaf's bits do not tell apart: up to this many are put in
 * order by insertion, longer ones by the sort of words. */
#define INSERTION_RUN_MAX 16
#define PASS_DIGIT_BITS 8
/* Up to this many pairs the sort is one leaf, on one thread, in buffers of
 * the input's size: no first pass. With it the sort took 0.58-0.80x the time
 * at 2^11 to 2^15 and 0.82-0.87x at 2^16 on the 2-core machine, one thread
 * (docs/perf-log.md, entry 137). */
#define ONE_LEAF_MAX_PAIRS ((size_t)1 << 16)
#define MAX_SPLIT_DEPTH 3
/* The argsort has no output keys to split into: it splits in place, below
 * MAX_SPLIT_DEPTH by digits of SPLIT_DIGIT_MAX_BITS, down to equal keys (at
 * most 8 levels: 3 of at least 3 bits, then 5 of 11, below a first digit of
 * at least 1), and puts ties in order by their values, its positions
 * (docs/perf-log.md, entry 142). */
#define IN_PLACE_MAX_DEPTH 8

/* Words of a split level's counters: the digits' heads and, in place, their
 * ends. */
static size_t split_level_words(bool in_place)
{
    return (in_place ? 2 : 1) * (SPLIT_BUCKETS_MAX + 1);
}

/* Where a region's pairs lie: the output arrays or the scratch. Both hold
 * keys as (ordered key - smallest) while the sort runs. */
enum { IN_OUTPUT = 0, IN_SCRATCH = 1 };

/* The scratch holds a pair as one 12-byte record: its first pass writes one
 * stream a bucket where arrays of keys and values took two, and a leaf's
 * gather finds a pair's key and value in one line. */
typedef struct __attribute__((packed, aligned(4))) radix_record {
    uint64_t key;
    uint32_t value;
} radix_record;

typedef struct radix64_sort {
    const uint64_t *in_keys;
    const uint32_t *in_values; /* NULL: each pair's value is its position */
    uint64_t *out_keys;        /* the output: keys, then values */
    uint32_t *out_values;
    radix_record *records;     /* the scratch */
    bool write_keys;           /* false: no output keys (the argsort): splits in place */
    bool ties_by_value;
    bitonic_key_type type;
    uint64_t order_xor;
    uint64_t smallest;
    unsigned span_bits, top_bits;
    size_t count;
    uint32_t slices;
    size_t *slice_counts; /* slices x 2^top_bits */
    size_t *bucket_start; /* 2^top_bits + 1 */
    atomic_size_t next_bucket;
    uint64_t *thread_words;
    bitonic_cpu_sort_config one_thread;
} radix64_sort;

/* A thread's buffers, in words: two leaves, the split levels' counters, the
 * leaves' counters (two to a word). The sort in place has more levels, of
 * twice the counters; the others keep the layout they were measured in (in
 * the in-place one, pairs and stable pairs took 1.03-1.08x the time at 2^17
 * to 2^19: docs/perf-log.md, entry 142). */
static size_t split_counter_words(bool in_place)
{
    return (in_place ? IN_PLACE_MAX_DEPTH : MAX_SPLIT_DEPTH) * split_level_words(in_place);
}

static size_t thread_words(bool in_place)
{
    return 2 * LEAF_PAIRS + split_counter_words(in_place) + LEAF_COUNTERS / 2;
}

/* Words of the scratch: the pairs' records, each thread's buffers, the first
 * pass's counters. */
size_t bitonic_cpu_stable_radix64_scratch_words(size_t count, bool with_key_output,
                                               const bitonic_cpu_sort_config *config)
{
    bool in_place = !with_key_output;
    size_t pairs = count + (count + 1) / 2;
    if (count <= ONE_LEAF_MAX_PAIRS) /* one leaf's two buffers and counters */
        return pairs + 2 * count + split_counter_words(false) + LEAF_COUNTERS / 2;
    uint32_t threads = radix_threads(count, config);
    return pairs + (size_t)threads * thread_words(in_place) + (size_t)threads * SPLIT_BUCKETS_MAX + SPLIT_BUCKETS_MAX +
           1;
}

static uint64_t mapped_key(const radix64_sort *sort, size_t index)
{
    return bitonic_ordered_from_key64(sort->in_keys[index], sort->type, sort->order_xor);
}

/* Whether a sample of the keys spans the key space (radix_common.h). */
static bool spans_key_space(const radix64_sort *sort, unsigned top_bits)
{
    if (sort->count < RADIX_SPAN_SAMPLE)
        return false;
    uint64_t low = UINT64_MAX, high = 0;
    for (size_t i = 0; i < RADIX_SPAN_SAMPLE; i++) {
        uint64_t digit = mapped_key(sort, sort->count / RADIX_SPAN_SAMPLE * i) >> (64 - top_bits);
        low = digit < low ? digit : low;
        high = digit > high ? digit : high;
    }
    return radix_sample_spans(low, high, top_bits);
}

typedef struct slice_job {
    radix64_sort *sort;
    uint32_t index;
    size_t begin, end;
    uint64_t low, high;
} slice_job;

static void range_run(void *arg)
{
    slice_job *job = arg;
    uint64_t low = UINT64_MAX, high = 0;
    for (size_t i = job->begin; i < job->end; i++) {
        uint64_t key = mapped_key(job->sort, i);
        low = key < low ? key : low;
        high = key > high ? key : high;
    }
    job->low = low;
    job->high = high;
}

static void count_run(void *arg)
{
    slice_job *job = arg;
    const radix64_sort *sort = job->sort;
    size_t *counts = sort->slice_counts + ((size_t)job->index << sort->top_bits);
    unsigned shift = sort->span_bits - sort->top_bits;
    for (size_t i = job->begin; i < job->end; i++)
        counts[(mapped_key(sort, i) - sort->smallest) >> shift]++;
}

/* The first pass's moves, with the sort's fields in locals: stores through
 * the scratch's uint64_t pointers could otherwise alias them and the
 * counters (size_t), and every one would be read again after each store. */
static inline __attribute__((always_inline)) void scatter_slice(const radix64_sort *sort, size_t *restrict next,
                                                                size_t begin, size_t end, bitonic_key_type type,
                                                                bool with_values)
{
    const uint64_t *restrict in_keys = sort->in_keys;
    const uint32_t *restrict in_values = sort->in_values;
    radix_record *restrict records = sort->records;
    uint64_t order_xor = sort->order_xor, smallest = sort->smallest;
    unsigned shift = sort->span_bits - sort->top_bits;
    for (size_t i = begin; i < end; i++) {
        uint64_t key = bitonic_ordered_from_key64(in_keys[i], type, order_xor) - smallest;
        size_t at = next[key >> shift]++;
        records[at] = (radix_record){key, with_values ? in_values[i] : (uint32_t)i};
    }
}

static void scatter_run(void *arg)
{
    slice_job *job = arg;
    const radix64_sort *sort = job->sort;
    size_t *next = sort->slice_counts + ((size_t)job->index << sort->top_bits);
    bool with_values = sort->in_values != NULL;
    if (sort->type == BITONIC_KEY_F64)
        scatter_slice(sort, next, job->begin, job->end, BITONIC_KEY_F64, with_values);
    else if (with_values)
        scatter_slice(sort, next, job->begin, job->end, sort->type, true);
    else
        scatter_slice(sort, next, job->begin, job->end, sort->type, false);
}

/* Sorts count values ascending: the values of pairs with equal keys. */
static void sort_values(const radix64_sort *sort, uint32_t *values, size_t count)
{
    if (count > 1)
        bitonic_cpu_sort_u32(values, count, BITONIC_ORDER_ASCENDING, &sort->one_thread);
}

static inline uint64_t key_at(const radix64_sort *sort, int place, size_t index)
{
    return place == IN_SCRATCH ? sort->records[index].key : sort->out_keys[index];
}

static inline uint32_t value_at(const radix64_sort *sort, int place, size_t index)
{
    return place == IN_SCRATCH ? sort->records[index].value : sort->out_values[index];
}

static inline void put_pair(const radix64_sort *sort, int place, size_t index, uint64_t key, uint32_t value)
{
    if (place == IN_SCRATCH)
        sort->records[index] = (radix_record){key, value};
    else {
        sort->out_keys[index] = key;
        sort->out_values[index] = value;
    }
}

/* Leaves the count pairs at offset of place, in order by key and position,
 * in the output with their keys mapped back; with by_value, each run of
 * equal keys then by value. */
static void finish_region(const radix64_sort *sort, int place, size_t offset, size_t count, bool by_value)
{
    if (place == IN_SCRATCH)
        for (size_t i = offset; i < offset + count; i++)
            sort->out_values[i] = sort->records[i].value;
    if (by_value)
        for (size_t begin = offset, end; begin < offset + count; begin = end) {
            uint64_t key = key_at(sort, place, begin);
            for (end = begin + 1; end < offset + count && key_at(sort, place, end) == key; end++) {
            }
            sort_values(sort, sort->out_values + begin, end - begin);
        }
    if (sort->write_keys)
        for (size_t i = offset; i < offset + count; i++)
            sort->out_keys[i] =
                bitonic_key64_from_ordered(key_at(sort, place, i) + sort->smallest, sort->type, sort->order_xor);
}

/* Counts a region's digits (key >> shift) & mask into next (mask + 1
 * counters) and turns the counts into each digit's first place, and where
 * end is not NULL the place after its last into end; false, with no places,
 * where every pair shares the digit. */
static bool digit_places(const radix64_sort *sort, int place, size_t offset, size_t count, unsigned shift,
                         uint64_t mask, size_t *next, size_t *end)
{
    memset(next, 0, ((size_t)mask + 1) * sizeof *next);
    for (size_t i = offset; i < offset + count; i++)
        next[(key_at(sort, place, i) >> shift) & mask]++;
    if (next[(key_at(sort, place, offset) >> shift) & mask] == count)
        return false;
    size_t sum = offset;
    for (uint64_t d = 0; d <= mask; d++) {
        size_t digit_count = next[d];
        next[d] = sum;
        sum += digit_count;
        if (end)
            end[d] = sum;
    }
    return true;
}

/* One stable counting pass over a region by the digit (key >> shift) & mask,
 * from place to the other; next: mask + 1 counters. Returns false, and moves
 * nothing, where every pair shares the digit; otherwise next[d] is where
 * digit d's pairs end. */
static bool move_by_digit(const radix64_sort *sort, int place, size_t offset, size_t count, unsigned shift,
                          uint64_t mask, size_t *next)
{
    if (!digit_places(sort, place, offset, count, shift, mask, next, NULL))
        return false;
    for (size_t i = offset; i < offset + count; i++) {
        uint64_t key = key_at(sort, place, i);
        put_pair(sort, !place, next[(key >> shift) & mask]++, key, value_at(sort, place, i));
    }
    return true;
}

/* move_by_digit's split within the scratch, for a sort with no output keys
 * to move into: the pairs of each digit swapped into its place, cycle by
 * cycle, which does not keep ties in order. next: 2 x (mask + 1) counters. */
static bool split_in_place(const radix64_sort *sort, size_t offset, size_t count, unsigned shift, uint64_t mask,
                           size_t *next)
{
    radix_record *records = sort->records;
    size_t *end = next + mask + 1;
    if (!digit_places(sort, IN_SCRATCH, offset, count, shift, mask, next, end))
        return false;
    for (uint64_t d = 0; d <= mask; d++)
        while (next[d] < end[d]) {
            radix_record record = records[next[d]];
            for (uint64_t e = (record.key >> shift) & mask; e != d; e = (record.key >> shift) & mask) {
                radix_record displaced = records[next[e]];
                records[next[e]++] = record;
                record = displaced;
            }
            records[next[d]++] = record;
        }
    return true;
}

/* A region that split MAX_SPLIT_DEPTH times and is still larger than a leaf:
 * its low `bits` bits by 8-bit digits from the least significant, each pass
 * between the scratch and the output, out of the caches but with no more
 * memory. */
static void sort_region_by_passes(const radix64_sort *sort, int place, size_t offset, size_t count, unsigned bits)
{
    for (unsigned low = 0; low < bits; low += PASS_DIGIT_BITS) {
        unsigned digit_bits = bits - low < PASS_DIGIT_BITS ? bits - low : PASS_DIGIT_BITS;
        size_t next[1u << PASS_DIGIT_BITS];
        if (move_by_digit(sort, place, offset, count, low, ((uint64_t)1 << digit_bits) - 1, next))
            place = !place;
    }
    finish_region(sort, place, offset, count, sort->ties_by_value);
}

typedef struct thread_buffers {
    uint64_t *a, *b;         /* leaf_pairs words each */
    size_t leaf_pairs;
    size_t *split_counts;    /* split_counter_words(), a level every level_words */
    size_t level_words;
    uint32_t *leaf_counters; /* LEAF_COUNTERS */
} thread_buffers;

/* Writes words (the sorted bits of each key << 32 | its index) and counts
 * their digits in the same read of the records: the index is i, or with
 * from_words the one each word holds already. passes and from_words are
 * constants where it is called, so the loops unroll and fold. */
static inline __attribute__((always_inline)) void build_words(const radix_record *restrict records,
                                                              uint64_t *restrict words, size_t count,
                                                              unsigned low_bits, uint32_t sorted_mask,
                                                              uint32_t *restrict counters, unsigned digit_bits,
                                                              const unsigned passes, const bool from_words)
{
    uint32_t mask = (1u << digit_bits) - 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t index = from_words ? (uint32_t)words[i] : (uint32_t)i;
        uint32_t key = (uint32_t)(records[index].key >> low_bits) & sorted_mask;
        words[i] = (uint64_t)key << 32 | index;
        for (unsigned p = 0; p < passes; p++)
            counters[(p << digit_bits) + ((key >> (p * digit_bits)) & mask)]++;
    }
}

/* Sorts count words by their high 32 bits, whose digits of digit_bits bits
 * counters holds (passes x 2^digit_bits), least significant first, between
 * a and b; returns the one that holds the result. */
static uint64_t *sort_words(uint64_t *a, uint64_t *b, size_t count, unsigned passes, unsigned digit_bits,
                            uint32_t *counters)
{
    uint32_t mask = (1u << digit_bits) - 1;
    for (unsigned p = 0; p < passes; p++) {
        unsigned shift = 32 + p * digit_bits;
        uint32_t *next = counters + (p << digit_bits);
        if (next[(a[0] >> shift) & mask] == count)
            continue; /* every word shares this digit */
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

/* Sorts count words by the bits [low_bits, low_bits + sorted_bits) of their
 * records' keys (sorted_bits 1..22), ties in their order, between words and
 * temp; returns the one that holds the result. */
static uint64_t *radix_words(uint64_t *words, uint64_t *temp, size_t count, const radix_record *records,
                             unsigned low_bits, unsigned sorted_bits, uint32_t *counters, bool from_words)
{
    unsigned passes = (sorted_bits + LEAF_DIGIT_MAX_BITS - 1) / LEAF_DIGIT_MAX_BITS;
    unsigned digit_bits = (sorted_bits + passes - 1) / passes;
    uint32_t sorted_mask = (uint32_t)(((uint64_t)1 << sorted_bits) - 1);
    memset(counters, 0, ((size_t)passes << digit_bits) * sizeof *counters);
    if (passes == 2 && from_words)
        build_words(records, words, count, low_bits, sorted_mask, counters, digit_bits, 2, true);
    else if (passes == 2)
        build_words(records, words, count, low_bits, sorted_mask, counters, digit_bits, 2, false);
    else if (from_words)
        build_words(records, words, count, low_bits, sorted_mask, counters, digit_bits, 1, true);
    else
        build_words(records, words, count, low_bits, sorted_mask, counters, digit_bits, 1, false);
    return sort_words(words, temp, count, passes, digit_bits, counters);
}

/* The order of two of a leaf's words (index in the low half) that the
 * sorted bits do not tell apart: by whole key, then by value or position. */
static inline bool goes_before(uint64_t x, uint64_t y, const radix_record *records, bool by_value)
{
    uint32_t i = (uint32_t)x, j = (uint32_t)y;
    if (records[i].key != records[j].key)
        return records[i].key < records[j].key;
    return by_value ? records[i].value < records[j].value : i < j;
}

static void insertion_sort_run(uint64_t *run, size_t count, const radix_record *records, bool by_value)
{
    for (size_t i = 1; i < count; i++) {
        uint64_t word = run[i];
        size_t j = i;
        for (; j > 0 && goes_before(word, run[j - 1], records, by_value); j--)
            run[j] = run[j - 1];
        run[j] = word;
    }
}

/* A merge sort of a run of words through temp (count words), by
 * insertion in pieces of INSERTION_RUN_MAX first. */
static void merge_sort_run(uint64_t *run, size_t count, const radix_record *records, bool by_value, uint64_t *temp)
{
    size_t width = INSERTION_RUN_MAX;
    for (size_t begin = 0; begin < count; begin += width)
        insertion_sort_run(run + begin, count - begin < width ? count - begin : width, records, by_value);
    uint64_t *from = run, *to = temp;
    for (; width < count; width *= 2) {
        for (size_t begin = 0; begin < count; begin += 2 * width) {
            size_t middle = begin + width < count ? begin + width : count;
            size_t end = middle + width < count ? middle + width : count;
            size_t i = begin, j = middle, k = begin;
            while (i < middle && j < end)
                to[k++] = goes_before(from[j], from[i], records, by_value) ? from[j++] : from[i++];
            while (i < middle)
                to[k++] = from[i++];
            while (j < end)
                to[k++] = from[j++];
        }
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != run)
        memcpy(run, from, count * sizeof *run);
}

/* Puts in order a run of a leaf's words that agree in their keys' bits
 * above low_bits, whose indices ascend: by insertion when short; else
 * (keys that crowd, or repeat) by the next 22 bits of their keys as in the
 * leaf and so on down, and runs of equal keys by value where asked, by a
 * merge sort. temp: count words; counters: the leaf's. */
static void order_run(const radix64_sort *sort, uint64_t *run, size_t count, const radix_record *records,
                      unsigned low_bits, bool by_value, uint64_t *temp, uint32_t *counters)
{
    if (count <= INSERTION_RUN_MAX) {
        insertion_sort_run(run, count, records, by_value);
        return;
    }
    if (low_bits == 0) { /* equal keys, their indices ascending */
        if (by_value)
            merge_sort_run(run, count, records, true, temp);
        return;
    }
    unsigned next_low = low_bits > LEAF_SORTED_BITS ? low_bits - LEAF_SORTED_BITS : 0;
    uint64_t *sorted = radix_words(run, temp, count, records, next_low, low_bits - next_low, counters, true);
    if (sorted != run)
        memcpy(run, sorted, count * sizeof *run);
    for (size_t begin = 0, end; begin < count; begin = end) {
        for (end = begin + 1; end < count && run[end] >> 32 == run[begin] >> 32; end++) {
        }
        if (end - begin > 1)
            order_run(sort, run + begin, end - begin, records, next_low, by_value, temp, counters);
    }
}

/* Sorts a region of at most LEAF_PAIRS pairs whose keys agree above their
 * low `bits` bits (1..64) into the output. */
static void sort_leaf(const radix64_sort *sort, int place, size_t offset, size_t count, unsigned bits,
                      bool by_value, const thread_buffers *buffers)
{
    const radix_record *records = sort->records + offset;
    if (place == IN_OUTPUT) /* the gather below writes the output: read from a copy */
        for (size_t i = offset; i < offset + count; i++)
            sort->records[i] = (radix_record){sort->out_keys[i], sort->out_values[i]};
    unsigned leaf_bits = count <= SMALL_LEAF_PAIRS ? SMALL_LEAF_SORTED_BITS : LEAF_SORTED_BITS;
    unsigned low_bits = bits > leaf_bits ? bits - leaf_bits : 0, sorted_bits = bits - low_bits;
    uint32_t *counters = buffers->leaf_counters;
    uint64_t *sorted = radix_words(buffers->a, buffers->b, count, records, low_bits, sorted_bits, counters, false);
    uint64_t *temp = sorted == buffers->a ? buffers->b : buffers->a;
    /* Runs the sorted bits do not tell apart are put in order as the gather
     * reaches them: none need it where those bits are the whole key and
     * ties keep their positions. */
    bool ordered = low_bits == 0 && !by_value;
    uint64_t *out_keys = sort->out_keys + offset;
    uint32_t *out_values = sort->out_values + offset;
    uint64_t smallest = sort->smallest, order_xor = sort->order_xor;
    bitonic_key_type type = sort->type;
    for (size_t i = 0, run_end = 0; i < count; i++) {
        if (!ordered && i >= run_end && i + 1 < count && sorted[i + 1] >> 32 == sorted[i] >> 32) {
            for (run_end = i + 2; run_end < count && sorted[run_end] >> 32 == sorted[i] >> 32; run_end++) {
            }
            order_run(sort, sorted + i, run_end - i, records, low_bits, by_value, temp, counters);
        }
        radix_record record = records[(uint32_t)sorted[i]];
        if (sort->write_keys)
            out_keys[i] = bitonic_key64_from_ordered(record.key + smallest, type, order_xor);
        out_values[i] = record.value;
    }
}

/* Sorts the count pairs at offset of place whose keys agree above their low
 * `bits` bits into the output; by_value: equal keys by value (where asked,
 * and below a split in place, which moved ties out of their order). */
static void sort_region(const radix64_sort *sort, int place, size_t offset, size_t count, unsigned bits,
                        unsigned depth, bool by_value, const thread_buffers *buffers)
{
    for (;;) {
        if (bits == 0) { /* every key equal */
            finish_region(sort, place, offset, count, by_value);
            return;
        }
        if (count <= buffers->leaf_pairs) {
            sort_leaf(sort, place, offset, count, bits, by_value, buffers);
            return;
        }
        bool in_place = !sort->write_keys;
        if (depth == MAX_SPLIT_DEPTH && !in_place) {
            sort_region_by_passes(sort, place, offset, count, bits);
            return;
        }
        unsigned digit_bits = radix_bit_length(count >> SPLIT_BUCKET_LOG) - 1;
        if (digit_bits > SPLIT_DIGIT_MAX_BITS || (in_place && depth >= MAX_SPLIT_DEPTH))
            digit_bits = SPLIT_DIGIT_MAX_BITS; /* in place: within IN_PLACE_MAX_DEPTH levels */
        if (digit_bits > bits)
            digit_bits = bits;
        unsigned shift = bits - digit_bits;
        uint64_t mask = ((uint64_t)1 << digit_bits) - 1;
        size_t *next = buffers->split_counts + (size_t)depth * buffers->level_words;
        if (in_place ? !split_in_place(sort, offset, count, shift, mask, next)
                     : !move_by_digit(sort, place, offset, count, shift, mask, next)) {
            bits = shift;
            continue;
        }
        size_t begin = offset;
        for (uint64_t d = 0; d <= mask; d++) {
            if (next[d] > begin)
                sort_region(sort, in_place ? place : !place, begin, next[d] - begin, shift, depth + 1,
                            by_value || in_place, buffers);
            begin = next[d];
        }
        return;
    }
}

typedef struct bucket_job {
    radix64_sort *sort;
    thread_buffers buffers;
} bucket_job;

static void bucket_run(void *arg)
{
    bucket_job *job = arg;
    radix64_sort *sort = job->sort;
    size_t buckets = (size_t)1 << sort->top_bits;
    for (;;) {
        size_t bucket = atomic_fetch_add_explicit(&sort->next_bucket, 1, memory_order_relaxed);
        if (bucket >= buckets)
            return;
        size_t begin = sort->bucket_start[bucket], end = sort->bucket_start[bucket + 1];
        if (end > begin)
            sort_region(sort, IN_SCRATCH, begin, end - begin, sort->span_bits - sort->top_bits, 0,
                        sort->ties_by_value, &job->buffers);
    }
}

/* Every key equal: the pairs in input order (by value where asked). */
static void copy_equal(const radix64_sort *sort)
{
    for (size_t i = 0; i < sort->count; i++) {
        if (sort->write_keys)
            sort->out_keys[i] = sort->in_keys[i];
        sort->out_values[i] = sort->in_values ? sort->in_values[i] : (uint32_t)i;
    }
    if (sort->ties_by_value)
        bitonic_cpu_sort_u32(sort->out_values, sort->count, BITONIC_ORDER_ASCENDING, &sort->one_thread);
}

void bitonic_cpu_stable_radix_sort_pairs64(const bitonic_cpu_radix64_pairs *pairs, uint64_t *scratch,
                                           const bitonic_cpu_sort_config *config)
{
    size_t count = pairs->count;
    if (count == 0)
        return;
    uint32_t threads = radix_threads(count, config), slices = radix_slices(count, threads);
    radix64_sort sort = {.in_keys = pairs->keys,
                         .in_values = pairs->values,
                         .write_keys = pairs->out_keys != NULL,
                         .ties_by_value = pairs->ties_by_value,
                         .type = pairs->type,
                         .order_xor = pairs->order_xor,
                         .count = count,
                         .slices = slices,
                         .one_thread = {config ? config->target : BITONIC_CPU_TARGET_AUTO, 1}};
    uint64_t *free_words = scratch;
    sort.records = (radix_record *)free_words;
    free_words += count + (count + 1) / 2;
    sort.out_values = pairs->out_values;
    sort.out_keys = pairs->out_keys;
    slice_job jobs[BITONIC_CPU_MAX_THREADS];
    for (uint32_t s = 0; s < slices; s++)
        jobs[s] = (slice_job){&sort, s, count * s / slices, count * (s + 1) / slices, 0, 0};
    unsigned top_bits = radix_top_bits(count, FIRST_BUCKET_LOG, FIRST_DIGIT_MAX_BITS);
    if (spans_key_space(&sort, top_bits)) {
        /* Keys over at least half the key space: its top digit is the
         * span's, to a bit, and needs no range pass (docs/perf-log.md,
         * entry 135). */
        sort.smallest = 0;
        sort.span_bits = 64;
        sort.top_bits = top_bits;
    } else {
        bitonic_cpu_run_jobs(range_run, jobs, sizeof jobs[0], slices);
        uint64_t low = jobs[0].low, high = jobs[0].high;
        for (uint32_t s = 1; s < slices; s++) {
            low = jobs[s].low < low ? jobs[s].low : low;
            high = jobs[s].high > high ? jobs[s].high : high;
        }
        if (low == high) {
            copy_equal(&sort);
            return;
        }
        sort.smallest = low;
        sort.span_bits = radix_bit_length(high - low);
        sort.top_bits = top_bits > sort.span_bits ? sort.span_bits : top_bits;
    }
    sort.thread_words = free_words;
    if (count <= ONE_LEAF_MAX_PAIRS) {
        /* One leaf: the records in input order, no first pass. */
        for (size_t i = 0; i < count; i++)
            sort.records[i] = (radix_record){mapped_key(&sort, i) - sort.smallest,
                                             sort.in_values ? sort.in_values[i] : (uint32_t)i};
        size_t *split_counts = (size_t *)(free_words + 2 * count); /* not used: one leaf never splits */
        thread_buffers buffers = {free_words, free_words + count, count, split_counts, split_level_words(false),
                                  (uint32_t *)(split_counts + split_counter_words(false))};
        sort_region(&sort, IN_SCRATCH, 0, count, sort.span_bits, 0, sort.ties_by_value, &buffers);
        return;
    }
    size_t buckets = (size_t)1 << sort.top_bits;
    bool in_place = !sort.write_keys;
    size_t own_words = thread_words(in_place);
    sort.slice_counts = (size_t *)(sort.thread_words + (size_t)threads * own_words);
    sort.bucket_start = sort.slice_counts + (size_t)slices * buckets;
    memset(sort.slice_counts, 0, (size_t)slices * buckets * sizeof *sort.slice_counts);
    bitonic_cpu_run_jobs(count_run, jobs, sizeof jobs[0], slices);

    radix_slice_places(sort.slice_counts, slices, sort.top_bits, sort.bucket_start);
    bitonic_cpu_run_jobs(scatter_run, jobs, sizeof jobs[0], slices);

    atomic_init(&sort.next_bucket, 0);
    bucket_job bucket_jobs[BITONIC_CPU_MAX_THREADS];
    uint32_t workers = buckets < threads ? (uint32_t)buckets : threads;
    for (uint32_t t = 0; t < workers; t++) {
        uint64_t *own = sort.thread_words + (size_t)t * own_words;
        size_t *split_counts = (size_t *)(own + 2 * LEAF_PAIRS);
        bucket_jobs[t] = (bucket_job){&sort,
                                      {own, own + LEAF_PAIRS, LEAF_PAIRS, split_counts, split_level_words(in_place),
                                       (uint32_t *)(split_counts + split_counter_words(in_place))}};
    }
    bitonic_cpu_run_jobs(bucket_run, bucket_jobs, sizeof bucket_jobs[0], workers);
}
