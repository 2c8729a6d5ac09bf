/* pair_sort.h: the CPU path's sort of pairs with 64-bit keys, for
 * bitonic_sort_pairs and the argsort of 64-bit keys on a context without a GPU.
 * (Pairs with 32-bit keys are packed into 64-bit words and take the fast sort
 * directly, fast_sort.h.) */
#ifndef BITONIC_CPU_PAIR_SORT_H
#define BITONIC_CPU_PAIR_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "bitonic.h"
#include "fast_sort.h"

/* Sorts count (ordered 64-bit key, value) pairs by key, then by value, with the
 * fast sort of 64-bit words under config. words is scratch of count words, or
 * NULL to allocate it for the call; keys that span 2^32 or more also allocate
 * count values. Returns BITONIC_SUCCESS, BITONIC_ERROR_OUT_OF_HOST_MEMORY, or
 * BITONIC_ERROR_TOO_LARGE for more than 2^32 - 1 pairs whose keys span 2^32 or
 * more (the API's calls stay below that). */
bitonic_status bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *words,
                                          const bitonic_cpu_sort_config *config);

#endif /* BITONIC_CPU_PAIR_SORT_H */
