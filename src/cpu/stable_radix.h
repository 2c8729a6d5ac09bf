/* stable_radix.h: the stable sort of pairs with 32-bit keys on the CPU path,
 * by radix (stable_radix.c). A radix sort keeps equal keys in their input
 * order by construction, so it sorts (key, value) pairs in (key, position)
 * order without packing positions beside the values. */
#ifndef BITONIC_CPU_STABLE_RADIX_H
#define BITONIC_CPU_STABLE_RADIX_H

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

#endif /* BITONIC_CPU_STABLE_RADIX_H */
