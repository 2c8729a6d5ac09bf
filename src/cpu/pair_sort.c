/* pair_sort.c: a least-significant-digit radix sort of 64-bit words, eight
 * passes of 8 bits: linear time, stable, no allocation, and exact for the
 * packed pairs the CPU path sorts (see pair_sort.h). A pass whose digit is the
 * same in every word is skipped, so small keys and indices cost fewer passes. */
#include "pair_sort.h"

#include <string.h>

#define DIGIT_BITS 8u
#define DIGIT_COUNT (1u << DIGIT_BITS)

void bitonic_cpu_sort_u64(uint64_t *words, uint64_t *scratch, size_t count)
{
    if (count < 2)
        return;
    uint64_t *from = words, *to = scratch;
    for (unsigned shift = 0; shift < 64u; shift += DIGIT_BITS) {
        size_t offsets[DIGIT_COUNT] = {0};
        for (size_t i = 0; i < count; ++i)
            ++offsets[(from[i] >> shift) & (DIGIT_COUNT - 1u)];
        if (offsets[(from[0] >> shift) & (DIGIT_COUNT - 1u)] == count)
            continue;  /* every word has this digit: the pass would move nothing */
        size_t total = 0;
        for (unsigned d = 0; d < DIGIT_COUNT; ++d) {
            size_t n = offsets[d];
            offsets[d] = total;
            total += n;
        }
        for (size_t i = 0; i < count; ++i)
            to[offsets[(from[i] >> shift) & (DIGIT_COUNT - 1u)]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != words)
        memcpy(words, from, count * sizeof *words);
}
