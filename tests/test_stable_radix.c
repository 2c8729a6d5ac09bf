/* test_stable_radix.c: the stable radix sort of pairs with 32-bit keys
 * (src/cpu/stable_radix.c) against qsort by (ordered key, position), for
 * each 32-bit key type and both orders, on 1, 2 and 3 threads, over key
 * distributions chosen to reach each of its ways: random keys (the first
 * pass's buckets sorted as leaves), all keys equal, two far-apart keys
 * (buckets of one key: digits every pair shares), 200 keys over the span
 * (long runs of equal keys in a bucket), two pairs of neighbouring keys far
 * apart (regions split down to one key each), keys crowded near zero with
 * one far outlier (buckets split again, down to the passes over a region that
 * stays large), keys spread over every scale (shifted right by a random
 * amount) and floats of the reference's mix (NaNs, zeros, infinities).
 * Keys and values must come back bit for bit, ties in input order, and no
 * word outside the arrays may change. */
#include <stdlib.h>
#include <string.h>

#include "key_transform.h"
#include "stable_radix.h"
#include "key_order_reference.h"
#include "test_util.h"

#define GUARD 8
#define GUARD_WORD 0x5EEDF00Du

typedef struct pair {
    uint32_t ordered, key, value, position;
} pair;

static int compare_pairs(const void *p, const void *q)
{
    const pair *a = p, *b = q;
    if (a->ordered != b->ordered)
        return a->ordered < b->ordered ? -1 : 1;
    return (a->position > b->position) - (a->position < b->position);
}

typedef enum distribution {
    RANDOM,
    ALL_EQUAL,
    TWO_KEYS,
    FEW_KEYS,
    NEAR_PAIRS,
    CROWDED,
    EVERY_SCALE,
    FLOAT_MIX,
    DISTRIBUTIONS
} distribution;
static const char *const distribution_names[] = {"random",  "all equal",   "two keys",  "few keys",
                                                 "near pairs", "crowded", "every scale", "float mix"};
static const char *const type_names[] = {"u32", "i32", "f32"};

static uint32_t draw_key(distribution d, size_t i, uint64_t *seed)
{
    uint64_t r = test_random_u64(seed);
    switch (d) {
    case ALL_EQUAL: return 0x12345678u;
    case TWO_KEYS: return (r & 1) ? 0xFFFFFFF0u : 3u;
    /* 200 keys over the whole span: long runs of equal keys within a bucket. */
    case FEW_KEYS: return (uint32_t)(r % 200u) * 0x01000193u;
    /* Two pairs of neighbouring keys far apart: buckets that split by digits
     * their keys share until the last, into regions of one key each. */
    case NEAR_PAIRS: return ((r & 2) ? 1u << 20 : 0u) | (uint32_t)(r & 1);
    case CROWDED: return i == 17 ? 0xFFFFFFFFu : (uint32_t)(r % 3000u);
    case EVERY_SCALE: return (uint32_t)(r >> 32) >> (r % 32);
    case FLOAT_MIX: return reference_random_f32_bits(r);
    default: return (uint32_t)(r >> 32);
    }
}

static bool check_case(bitonic_key_type type, uint32_t order_xor, distribution d, size_t count, uint32_t threads,
                       uint64_t *seed)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, threads};
    uint32_t *keys = malloc((count + 2 * GUARD) * sizeof *keys), *values = malloc((count + 2 * GUARD) * sizeof *values);
    size_t scratch_words = bitonic_cpu_stable_radix_scratch_words(count, &config);
    uint64_t *scratch = malloc(scratch_words * sizeof *scratch);
    pair *expected = malloc(count * sizeof *expected);
    bool ok = keys && values && scratch && expected;
    if (ok) {
        for (size_t i = 0; i < GUARD; i++)
            keys[i] = keys[GUARD + count + i] = values[i] = values[GUARD + count + i] = GUARD_WORD;
        for (size_t i = 0; i < count; i++) {
            uint32_t key = draw_key(d, i, seed), value = (uint32_t)test_random_u64(seed);
            keys[GUARD + i] = key;
            values[GUARD + i] = value;
            expected[i] = (pair){bitonic_ordered_from_key(key, type, order_xor), key, value, (uint32_t)i};
        }
        qsort(expected, count, sizeof *expected, compare_pairs);
        bitonic_cpu_stable_radix_sort_pairs(keys + GUARD, values + GUARD, count, type, order_xor, scratch, &config);
        for (size_t i = 0; i < count && ok; i++)
            ok = keys[GUARD + i] == expected[i].key && values[GUARD + i] == expected[i].value;
        for (size_t i = 0; i < GUARD && ok; i++)
            ok = keys[i] == GUARD_WORD && keys[GUARD + count + i] == GUARD_WORD && values[i] == GUARD_WORD &&
                 values[GUARD + count + i] == GUARD_WORD;
    }
    free(keys);
    free(values);
    free(scratch);
    free(expected);
    return ok;
}

int main(void)
{
    test_counter t = {0};
    uint64_t seed = 1206;
    static const size_t sizes[] = {2, 100, 5000, ((size_t)1 << 16) + 3, ((size_t)1 << 19) + 11};
    static const uint32_t thread_counts[] = {1, 2, 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int d = 0; d < DISTRIBUTIONS; d++)
            for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F32; type++)
                for (int descending = 0; descending <= 1; descending++)
                    for (size_t c = 0; c < sizeof thread_counts / sizeof thread_counts[0]; c++) {
                        /* The large inputs on every thread count for random keys, once otherwise. */
                        if (sizes[s] > 100000 && c > 0 && d != RANDOM && d != CROWDED)
                            continue;
                        TEST_CHECK(&t,
                                   check_case((bitonic_key_type)type, descending ? UINT32_MAX : 0u, (distribution)d,
                                              sizes[s], thread_counts[c], &seed),
                                   "%s %s keys, %s, %zu pairs, %u threads", distribution_names[d], type_names[type],
                                   descending ? "descending" : "ascending", sizes[s], thread_counts[c]);
                    }
    /* Two threads at 2^21 + 5 pairs: a first pass of 2^10 buckets, shared out. */
    TEST_CHECK(&t, check_case(BITONIC_KEY_F32, 0u, RANDOM, ((size_t)1 << 21) + 5, 2, &seed),
               "random f32 keys, ascending, 2^21 + 5 pairs, 2 threads");
    return test_finish(&t);
}
