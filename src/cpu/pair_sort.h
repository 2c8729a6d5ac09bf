/* pair_sort.h: the CPU path's sort of pairs with 64-bit keys, for
 * bitonic_sort_pairs and the argsort of 64-bit keys on a context without a GPU,
 * below the sizes the radix sort takes (stable_radix.h).
 * (Pairs with 32-bit keys are packed into 64-bit words and take the fast sort
 * directly, fast_sort.h.) */
#ifndef BITONIC_CPU_PAIR_SORT_H
#define BITONIC_CPU_PAIR_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "bitonic.h"
#include "fast_sort.h"

/* The scratch words of a sort of count pairs with 64-bit keys: count words and
 * count 32-bit values. */
#define BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count) ((count) + ((count) + 1) / 2)

/* Sorts count (ordered 64-bit key, value) pairs by key, then by value, with the
 * fast sort of 64-bit words under config. words is scratch of
 * BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count) words, or NULL to allocate it for
 * the call. Returns BITONIC_SUCCESS, BITONIC_ERROR_OUT_OF_HOST_MEMORY, or
 * BITONIC_ERROR_TOO_LARGE for more than 2^32 - 1 pairs whose keys span 2^32 or
 * more (the API's calls stay below that). */
bitonic_status bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *words,
                                          const bitonic_cpu_sort_config *config);

/* The scratch words of a stable sort of count such pairs. */
#define BITONIC_CPU_STABLE_PAIRS_U64_SCRATCH_WORDS(count) \
    (BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count) + ((count) + 1) / 2)

/* Sorts count (ordered 64-bit key, value) pairs by key, ties in their order,
 * under config; scratch: BITONIC_CPU_STABLE_PAIRS_U64_SCRATCH_WORDS(count)
 * words: the pairs of (key, position) are sorted as above and the values
 * gathered by the positions. Returns as bitonic_cpu_sort_pairs_u64. */
bitonic_status bitonic_cpu_sort_stable_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *scratch,
                                                 const bitonic_cpu_sort_config *config);

#endif /* BITONIC_CPU_PAIR_SORT_H */
