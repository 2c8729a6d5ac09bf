/* pair_sort.c: a least-significant-digit radix sort of 64-bit words, eight
 * passes of 8 bits: linear time, stable, no allocation, and exact for the
 * packed pairs the CPU path sorts (see pair_sort.h). A pass whose digit is the
 * same in every word is skipped, so small keys and indices cost fewer passes. */
#include "pair_sort.h"

#include <stdbool.h>
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

/* One stable counting pass over digit `shift` of the key (key_pass) or of the value. */
static void pair_pass(const uint64_t *from_keys, const uint32_t *from_values, uint64_t *to_keys, uint32_t *to_values,
                      size_t count, unsigned shift, bool key_pass)
{
    size_t offsets[DIGIT_COUNT] = {0};
    for (size_t i = 0; i < count; ++i)
        ++offsets[((key_pass ? from_keys[i] : from_values[i]) >> shift) & (DIGIT_COUNT - 1u)];
    size_t total = 0;
    for (unsigned d = 0; d < DIGIT_COUNT; ++d) {
        size_t n = offsets[d];
        offsets[d] = total;
        total += n;
    }
    for (size_t i = 0; i < count; ++i) {
        size_t at = offsets[((key_pass ? from_keys[i] : from_values[i]) >> shift) & (DIGIT_COUNT - 1u)]++;
        to_keys[at] = from_keys[i];
        to_values[at] = from_values[i];
    }
}

void bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, uint64_t *scratch_keys, uint32_t *scratch_values,
                                size_t count)
{
    if (count < 2)
        return;
    /* Least significant first: the value's 4 digits, then the key's 8. Twelve
     * passes, an even number, so the result ends where it started. */
    uint64_t *from_keys = keys, *to_keys = scratch_keys;
    uint32_t *from_values = values, *to_values = scratch_values;
    for (unsigned pass = 0; pass < 12u; ++pass) {
        bool key_pass = pass >= 4u;
        unsigned shift = (key_pass ? pass - 4u : pass) * DIGIT_BITS;
        pair_pass(from_keys, from_values, to_keys, to_values, count, shift, key_pass);
        uint64_t *swap_keys = from_keys;
        from_keys = to_keys;
        to_keys = swap_keys;
        uint32_t *swap_values = from_values;
        from_values = to_values;
        to_values = swap_values;
    }
}
