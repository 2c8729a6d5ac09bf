/* radix_common.h: what the two radix sorts of pairs (stable_radix.c for
 * 32-bit keys, stable_radix64.c for 64-bit keys) share: their threads and
 * slices, the first pass's digit, the sample that tells whether the keys
 * span the key space, and the counts of the first pass turned into each
 * slice's places. */
#ifndef BITONIC_CPU_RADIX_COMMON_H
#define BITONIC_CPU_RADIX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast_sort.h"

static inline unsigned radix_bit_length(uint64_t value)
{
    unsigned length = 0;
    while (value) {
        value >>= 1;
        length++;
    }
    return length;
}

static inline uint32_t radix_threads(size_t count, const bitonic_cpu_sort_config *config)
{
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
    return threads > BITONIC_CPU_MAX_THREADS ? BITONIC_CPU_MAX_THREADS : threads;
}

/* The passes over all pairs take slices of at least BITONIC_CPU_PARALLEL_MIN_SLICE. */
static inline uint32_t radix_slices(size_t count, uint32_t threads)
{
    size_t most = count / BITONIC_CPU_PARALLEL_MIN_SLICE;
    if (threads > most)
        threads = most > 0 ? (uint32_t)most : 1u;
    return threads;
}

/* The first pass's digit: about 2^bucket_log pairs a bucket, at least 1 and
 * at most max_bits bits. */
static inline unsigned radix_top_bits(size_t count, unsigned bucket_log, unsigned max_bits)
{
    unsigned bits = radix_bit_length(count >> bucket_log);
    bits = bits > 1 ? bits - 1 : 1;
    return bits > max_bits ? max_bits : bits;
}

/* How many keys the sample takes. */
#define RADIX_SPAN_SAMPLE 64

/* Whether the sample's top digits (of 2^top_bits over the whole key space,
 * lowest and highest) reach half of them: the keys' span does then too, and
 * the sort may take the keys as they are, with no pass for their range. */
static inline bool radix_sample_spans(uint64_t lowest_digit, uint64_t highest_digit, unsigned top_bits)
{
    return highest_digit - lowest_digit + 1 >= (uint64_t)1 << (top_bits - 1);
}

/* The first pass's counts (slices rows of 2^top_bits) become each slice's
 * first place in each bucket, after the slices before it, so the pass is
 * stable; bucket_start (2^top_bits + 1) gets where each bucket starts. */
static inline void radix_slice_places(size_t *slice_counts, uint32_t slices, unsigned top_bits, size_t *bucket_start)
{
    size_t buckets = (size_t)1 << top_bits, position = 0;
    for (size_t bucket = 0; bucket < buckets; bucket++) {
        bucket_start[bucket] = position;
        for (uint32_t s = 0; s < slices; s++) {
            size_t *cell = slice_counts + ((size_t)s << top_bits) + bucket;
            size_t slice_pairs = *cell;
            *cell = position;
            position += slice_pairs;
        }
    }
    bucket_start[buckets] = position;
}

#endif /* BITONIC_CPU_RADIX_COMMON_H */
