/* pair_sort.h: the CPU path's sort of (key, value) pairs, for bitonic_sort_pairs
 * and the argsort on a context without a GPU. Pairs are packed as
 * (ordered key << 32 | value) and sorted as 64-bit words, which orders equal
 * keys by value exactly as the GPU's pair comparator does. */
#ifndef BITONIC_CPU_PAIR_SORT_H
#define BITONIC_CPU_PAIR_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

/* Sorts count words ascending; scratch holds count words. threads: at most
 * this many (0: one a core), fewer for small arrays. */
void bitonic_cpu_sort_u64(uint64_t *words, uint64_t *scratch, size_t count, uint32_t threads);

/* Sorts count (key, value) pairs by key, then by value; scratch_keys and
 * scratch_values hold count entries each. */
void bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, uint64_t *scratch_keys, uint32_t *scratch_values,
                                size_t count);

#endif /* BITONIC_CPU_PAIR_SORT_H */
