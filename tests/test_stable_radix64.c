/* test_stable_radix64.c: the radix sort of pairs with 64-bit keys
 * (src/cpu/stable_radix64.c) against qsort, in its three uses: stable pairs
 * (key, then position), pairs (key, then value) and the argsort (positions
 * out, keys not written), for u64, i64 and f64 keys and both orders, on 1 to
 * 3 threads, at sizes sorted as one leaf (short leaves of 16 bits, longer of
 * 22, one past a first pass's 2^15) and through the first pass, over key
 * distributions chosen to reach each of its ways: random keys (a few ties in
 * the leaf's bits), all keys equal, two
 * far-apart keys, few keys that repeat across the whole span (long runs of
 * equal keys: the fix-up by value), keys that share their high bits in groups
 * and differ below the leaf's 32 bits (long runs the leaf cannot tell apart),
 * keys crowded near zero with one far outlier (regions split again, down to
 * the passes over a region that stays large), keys spread over every scale,
 * and doubles of the order's special cases. The f64 order comes from the
 * reference comparison, not the library's map. Keys and values must come
 * back bit for bit, and no word outside the output may change. */
#include <stdlib.h>
#include <string.h>

#include "key_order_reference.h"
#include "stable_radix.h"
#include "test_util.h"

#define GUARD 8
#define GUARD_KEY 0x5EEDF00D5EEDF00Dull
#define GUARD_VALUE 0x5EEDF00Du

typedef struct pair {
    uint64_t key;
    uint32_t value, position;
} pair;

typedef enum mode { STABLE, BY_VALUE, ARGSORT, MODES } mode;
static const char *const mode_names[] = {"stable pairs", "pairs by value", "argsort"};

/* The qsort's context: C11 qsort takes none. */
static bitonic_key_type compare_type;
static bool compare_descending;
static mode compare_mode;

static int compare_keys(uint64_t x, uint64_t y)
{
    if (compare_type == BITONIC_KEY_F64)
        return reference_compare_f64_bits(x, y);
    if (compare_type == BITONIC_KEY_I64)
        return ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y);
    return (x > y) - (x < y);
}

static int compare_pairs(const void *p, const void *q)
{
    const pair *a = p, *b = q;
    int by_key = compare_keys(a->key, b->key);
    if (compare_mode == BY_VALUE && by_key == 0 && a->value != b->value)
        return a->value < b->value ? -1 : 1;
    return reference_order_then_tie(by_key, compare_descending, a->position, b->position);
}

typedef enum distribution {
    RANDOM,
    ALL_EQUAL,
    TWO_KEYS,
    FEW_KEYS,
    GROUPS,
    CROWDED,
    EVERY_SCALE,
    DOUBLE_MIX,
    DISTRIBUTIONS
} distribution;
static const char *const distribution_names[] = {"random", "all equal", "two keys", "few keys",
                                                 "groups",  "crowded",   "every scale", "double mix"};
static const char *const type_names[] = {"u64", "i64", "f64"};

static uint64_t double_bits(double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static uint64_t draw_key(distribution d, size_t i, uint64_t *seed)
{
    static const uint64_t few[] = {0x0123456789ABCDEFull, 0xFEDCBA9876543210ull, 0x8000000000000000ull, 7u, 0x7FF8000000000000ull};
    uint64_t r = test_random_u64(seed);
    switch (d) {
    case ALL_EQUAL: return 0x123456789ABCDEF0ull;
    case TWO_KEYS: return (r & 1) ? 0xFFFFFFFFFFFFFFF0ull : 3u;
    case FEW_KEYS: return few[r % 5];
    /* 64 groups of high bits, each with 2^20 low values: runs of a group
     * share far more than a leaf's 32 bits. */
    case GROUPS: return (test_random_u64(seed) % 64) << 58 | (r % 3000u) << 8 | (r >> 60);
    case CROWDED: return i == 17 ? UINT64_MAX : r % 3000u;
    case EVERY_SCALE: return r >> (r % 64);
    case DOUBLE_MIX: {
        static const uint64_t special[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                           0x7ff0000000000000ull, 0xfff0000000000000ull, 0, 0x8000000000000000ull,
                                           1, 0x8000000000000001ull, 0x7fefffffffffffffull};
        if ((r & 3u) == 0)
            return special[(r >> 8) % (sizeof special / sizeof special[0])];
        if ((r & 3u) == 1)
            return test_random_u64(seed);
        return double_bits((double)((int64_t)(r >> 40) % 2000 - 1000) / 8.0);
    }
    default: return r;
    }
}

static bool check_case(bitonic_key_type type, bool descending, mode m, distribution d, size_t count,
                       uint32_t threads, uint64_t *seed)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, threads};
    uint64_t *keys = malloc((count + 2 * GUARD) * sizeof *keys);
    uint32_t *values = malloc((count + 2 * GUARD) * sizeof *values);
    size_t scratch_words = bitonic_cpu_stable_radix64_scratch_words(count, m != ARGSORT, &config);
    uint64_t *scratch = malloc(scratch_words * sizeof *scratch);
    pair *expected = malloc(count * sizeof *expected);
    bool ok = keys && values && scratch && expected;
    if (ok) {
        for (size_t i = 0; i < GUARD; i++) {
            keys[i] = keys[GUARD + count + i] = GUARD_KEY;
            values[i] = values[GUARD + count + i] = GUARD_VALUE;
        }
        for (size_t i = 0; i < count; i++) {
            uint64_t key = draw_key(d, i, seed);
            /* Few values, so equal keys often carry equal values too. */
            uint32_t value = (uint32_t)test_random_u64(seed) % (m == BY_VALUE ? 1000u : UINT32_MAX);
            keys[GUARD + i] = key;
            values[GUARD + i] = m == ARGSORT ? GUARD_VALUE : value;
            expected[i] = (pair){key, m == ARGSORT ? (uint32_t)i : value, (uint32_t)i};
        }
        compare_type = type;
        compare_descending = descending;
        compare_mode = m;
        qsort(expected, count, sizeof *expected, compare_pairs);
        bitonic_cpu_radix64_pairs pairs = {keys + GUARD,
                                           m == ARGSORT ? NULL : values + GUARD,
                                           m == ARGSORT ? NULL : keys + GUARD,
                                           values + GUARD,
                                           count,
                                           type,
                                           descending ? UINT64_MAX : 0u,
                                           m == BY_VALUE};
        bitonic_cpu_stable_radix_sort_pairs64(&pairs, scratch, &config);
        for (size_t i = 0; i < count && ok; i++)
            ok = values[GUARD + i] == expected[i].value && (m == ARGSORT || keys[GUARD + i] == expected[i].key);
        /* The argsort leaves the keys as they were. */
        if (m == ARGSORT)
            for (size_t i = 0; i < count && ok; i++)
                ok = keys[GUARD + expected[i].position] == expected[i].key;
        for (size_t i = 0; i < GUARD && ok; i++)
            ok = keys[i] == GUARD_KEY && keys[GUARD + count + i] == GUARD_KEY && values[i] == GUARD_VALUE &&
                 values[GUARD + count + i] == GUARD_VALUE;
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
    uint64_t seed = 1207;
    static const size_t sizes[] = {2, 100, 5000, ((size_t)1 << 16) - 5, ((size_t)1 << 16) + 3, ((size_t)1 << 18) + 11};
    static const uint32_t thread_counts[] = {1, 2, 3};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int d = 0; d < DISTRIBUTIONS; d++)
            for (int type = BITONIC_KEY_U64; type <= BITONIC_KEY_F64; type++)
                for (int m = 0; m < MODES; m++)
                    for (int descending = 0; descending <= 1; descending++)
                        for (size_t c = 0; c < sizeof thread_counts / sizeof thread_counts[0]; c++) {
                            /* The large inputs on every thread count for random and crowded keys and
                             * ascending only, once otherwise. */
                            if (sizes[s] > 100000 && ((c > 0 && d != RANDOM && d != CROWDED) || descending))
                                continue;
                            TEST_CHECK(&t,
                                       check_case((bitonic_key_type)type, descending, (mode)m, (distribution)d,
                                                  sizes[s], thread_counts[c], &seed),
                                       "%s, %s %s keys, %s, %zu pairs, %u threads", mode_names[m],
                                       distribution_names[d], type_names[type - BITONIC_KEY_U64],
                                       descending ? "descending" : "ascending", sizes[s], thread_counts[c]);
                        }
    /* Two threads at 2^21 + 5 pairs: a first pass of 2^10 buckets, shared out. */
    TEST_CHECK(&t, check_case(BITONIC_KEY_F64, false, STABLE, RANDOM, ((size_t)1 << 21) + 5, 2, &seed),
               "stable pairs, random f64 keys, ascending, 2^21 + 5 pairs, 2 threads");
    return test_finish(&t);
}
