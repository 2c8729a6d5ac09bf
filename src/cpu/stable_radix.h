/* stable_radix.h: the CPU path's radix sorts of pairs: stable pairs of
 * 32-bit keys (stable_radix.c), and pairs of 64-bit keys, stable or by value,
 * and the argsort of 64-bit keys (stable_radix64.c). A radix sort keeps equal
 * keys in their input order by construction, so it sorts (key, value) pairs
 * in (key, position) order without packing positions beside the values. */
#ifndef BITONIC_CPU_STABLE_RADIX_H
#define BITONIC_CPU_STABLE_RADIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"
#include "fast_sort.h"

/* The scratch words a stable radix sort of count pairs under config needs:
 * count words (a buffer of the pairs' size) and about 600 KiB a thread. */
size_t bitonic_cpu_stable_radix_scratch_words(size_t count, const bitonic_cpu_sort_config *config);

/* Sorts count pairs of keys of a 32-bit type and values in place, stably, in
 * the order of key_transform.h's map (order_xor all ones: descending), on the
 * sort's threads; scratch: bitonic_cpu_stable_radix_scratch_words(count,
 * config) words. */
void bitonic_cpu_stable_radix_sort_pairs(uint32_t *keys, uint32_t *values, size_t count, bitonic_key_type type,
                                         uint32_t order_xor, uint64_t *scratch, const bitonic_cpu_sort_config *config);

/* Pairs with 64-bit keys (stable_radix64.c): keys of a 64-bit type, values
 * (NULL: each pair's position, the argsort), sorted into out_keys and
 * out_values, which may be keys and values themselves. In (key, position)
 * order, or (key, value) order with ties_by_value; order_xor all ones:
 * descending. At most UINT32_MAX pairs. out_keys NULL (not written) only
 * where values is NULL or ties_by_value: the sort then splits its buckets in
 * place, which moves ties out of their order, and puts them back by value. */
typedef struct bitonic_cpu_radix64_pairs {
    const uint64_t *keys;
    const uint32_t *values;
    uint64_t *out_keys;
    uint32_t *out_values;
    size_t count;
    bitonic_key_type type;
    uint64_t order_xor;
    bool ties_by_value;
} bitonic_cpu_radix64_pairs;

/* Its scratch words: the pairs' size (1.5 words a pair) and about 600 KiB a
 * thread (800 KiB without out_keys); up to 2^16 pairs, which it sorts as one
 * leaf on one thread, two words a pair and 56 KiB instead. */
size_t bitonic_cpu_stable_radix64_scratch_words(size_t count, bool with_key_output,
                                               const bitonic_cpu_sort_config *config);

void bitonic_cpu_stable_radix_sort_pairs64(const bitonic_cpu_radix64_pairs *pairs, uint64_t *scratch,
                                           const bitonic_cpu_sort_config *config);

#endif /* BITONIC_CPU_STABLE_RADIX_H */
