/* pair_sort.c: the sort of pairs with 64-bit keys (and the argsort of 64-bit
 * keys), in (key, value) order, through the fast sort of 64-bit words.
 * A (64-bit key, 32-bit value) pair does not fit one word, so:
 * - If the keys span less than 2^32 (small integers, timestamps, any tied
 *   data), each pair is packed as ((key - smallest) << 32 | value) and sorted
 *   once, exactly as pairs with 32-bit keys are.
 * - Otherwise the pairs are sorted by the key's high half, packed as
 *   (high << 32 | position), then moved to that order (one gather), and every
 *   run of equal high halves is sorted by (low half << 32 | value). Random
 *   keys leave runs of one or two, so this costs one sort and one gather.
 * Scratch: count words (the caller's, when it keeps a buffer between calls)
 * and count values, the pairs' own size. */
#include "pair_sort.h"

#include <string.h>

/* Sorts the run [begin, end) of equal high halves by (low half, value). */
static bitonic_status sort_run(uint64_t *keys, uint32_t *values, uint64_t *words, size_t begin, size_t end,
                               const bitonic_cpu_sort_config *config)
{
    size_t count = end - begin;
    uint64_t high = keys[begin] & 0xFFFFFFFF00000000ull;
    for (size_t i = 0; i < count; i++)
        words[i] = keys[begin + i] << 32 | values[begin + i];
    bitonic_status status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
    for (size_t i = 0; i < count; i++) {
        keys[begin + i] = high | words[i] >> 32;
        values[begin + i] = (uint32_t)words[i];
    }
    return status;
}

bitonic_status bitonic_cpu_sort_pairs_u64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *scratch,
                                          const bitonic_cpu_sort_config *config)
{
    if (count < 2)
        return BITONIC_SUCCESS;
    uint64_t smallest = keys[0], largest = keys[0];
    for (size_t i = 1; i < count; i++) {
        smallest = keys[i] < smallest ? keys[i] : smallest;
        largest = keys[i] > largest ? keys[i] : largest;
    }
    uint64_t *words = scratch ? scratch : malloc(count * sizeof *words);
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint64_t *owned_words = scratch ? NULL : words;
    bitonic_status status;
    if (largest - smallest <= UINT32_MAX) {
        for (size_t i = 0; i < count; i++)
            words[i] = (keys[i] - smallest) << 32 | values[i];
        status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
        for (size_t i = 0; i < count; i++) {
            keys[i] = smallest + (words[i] >> 32);
            values[i] = (uint32_t)words[i];
        }
        free(owned_words);
        return status;
    }
    if (count > UINT32_MAX) {
        free(owned_words);
        return BITONIC_ERROR_TOO_LARGE; /* a position would not fit the low half */
    }
    uint32_t *moved_values = malloc(count * sizeof *moved_values);
    if (!moved_values) {
        free(owned_words);
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (size_t i = 0; i < count; i++)
        words[i] = (keys[i] & 0xFFFFFFFF00000000ull) | (uint64_t)i;
    status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
    for (size_t i = 0; i < count && status == BITONIC_SUCCESS; i++) {
        size_t from = (uint32_t)words[i];
        moved_values[i] = values[from];
        words[i] = keys[from];
    }
    if (status == BITONIC_SUCCESS) {
        memcpy(keys, words, count * sizeof *keys);
        memcpy(values, moved_values, count * sizeof *values);
    }
    free(moved_values);
    for (size_t begin = 0; begin < count && status == BITONIC_SUCCESS;) {
        uint64_t high = keys[begin] >> 32;
        size_t end = begin + 1;
        while (end < count && keys[end] >> 32 == high)
            end++;
        if (end - begin == 2) {
            /* The common tie of random keys, without a call. */
            uint64_t a = keys[begin], b = keys[begin + 1];
            if (a > b || (a == b && values[begin] > values[begin + 1])) {
                keys[begin] = b;
                keys[begin + 1] = a;
                uint32_t swap = values[begin];
                values[begin] = values[begin + 1];
                values[begin + 1] = swap;
            }
        } else if (end - begin > 2) {
            status = sort_run(keys, values, words, begin, end, config);
        }
        begin = end;
    }
    free(owned_words);
    return status;
}
