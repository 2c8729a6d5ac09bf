/* test_cpu_passes.c: the passes around the fast CPU sort on a CPU context, at
 * sizes where they run on several threads (slices of 2^15 items and more):
 * packing and unpacking pairs of every 32-bit key type, the order maps of
 * i64 and f64 keys, stable pairs and the argsort, on 1, 2 and 3 threads and on
 * all cores; and the packed pair buffer the context keeps between calls,
 * through sizes that grow and shrink on one context; stable pairs and the
 * argsort from 2^21 keys, on one thread and on two; pairs and the argsort on
 * four threads from 2^22 pairs, and pairs presorted. Expected results come
 * from qsort with comparators written from the documented order
 * (key_order_reference.h), ties by value (or by index where stable). And the
 * CPU path's own f64 order maps and pair packing (pair_pack.c, with values
 * and with positions; and the first partition that packs them,
 * pack_partition_avx512.c), built for each target, against key_transform.h's,
 * bit for bit, on the values around every boundary of the maps. */
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "key_order_reference.h"
#include "key_transform.h"
#include "pair_pack.h"
#include "test_util.h"

typedef struct item {
    uint64_t key;
    uint32_t value, index;
} item;

static bitonic_key_type compare_type;
static bool compare_descending, compare_stable;

static int compare_by_key(uint64_t x, uint64_t y)
{
    switch (compare_type) {
    case BITONIC_KEY_F32: return reference_compare_f32_bits((uint32_t)x, (uint32_t)y);
    case BITONIC_KEY_F64: return reference_compare_f64_bits(x, y);
    case BITONIC_KEY_I32: return ((int32_t)x > (int32_t)y) - ((int32_t)x < (int32_t)y);
    case BITONIC_KEY_I64: return ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y);
    default: return (x > y) - (x < y);
    }
}

static int compare_items(const void *p, const void *q)
{
    const item *a = p, *b = q;
    return reference_order_then_tie(compare_by_key(a->key, b->key), compare_descending,
                                    compare_stable ? a->index : a->value, compare_stable ? b->index : b->value);
}

/* Keys with many duplicates: floats from the reference's mix, integers from a
 * range of a few thousand values of both signs, f64 from the f32 mix widened. */
static uint64_t random_key(bitonic_key_type type, uint64_t *seed)
{
    uint64_t r = test_random_u64(seed);
    switch (type) {
    case BITONIC_KEY_F32: return reference_random_f32_bits(r);
    case BITONIC_KEY_F64: {
        uint32_t bits = reference_random_f32_bits(r);
        float f;
        memcpy(&f, &bits, 4);
        double d = (double)f;
        uint64_t wide;
        memcpy(&wide, &d, 8);
        if ((bits & 0x7fffffffu) > 0x7f800000u) /* a NaN of the same sign, with a payload of its own */
            return (uint64_t)(bits >> 31) << 63 | 0x7ff0000000000000ull | ((r >> 12) & 0xfffffffffffffull) | 1u;
        return wide;
    }
    case BITONIC_KEY_I32: return (uint32_t)((int32_t)(r % 5000) - 2500);
    case BITONIC_KEY_I64: return (uint64_t)((int64_t)(r % 5000) - 2500) * 0x100000001ull;
    default: return (r >> 20) % 5000;
    }
}

typedef enum mode { PAIRS, STABLE_PAIRS, ARGSORT, KEYS } mode;
static const char *const mode_names[] = {"pairs", "stable pairs", "argsort", "keys"};
static const char *const type_names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};

/* One call of the mode on count random keys; true when it matches qsort. */
static bool check_one(bitonic_context *context, bitonic_key_type type, bitonic_order order, mode m, size_t count,
                      uint64_t *seed)
{
    bool wide = type >= BITONIC_KEY_U64;
    size_t key_bytes = wide ? 8 : 4;
    unsigned char *keys = malloc(count * key_bytes + 8);
    uint32_t *values = malloc(count * sizeof *values + 4);
    item *expected = malloc(count * sizeof *expected + sizeof *expected);
    for (size_t i = 0; i < count; ++i) {
        uint64_t key = random_key(type, seed);
        uint32_t value = (uint32_t)(test_random_u64(seed) % 1000);
        if (wide)
            memcpy(keys + 8 * i, &key, 8);
        else {
            uint32_t narrow = (uint32_t)key;
            memcpy(keys + 4 * i, &narrow, 4);
        }
        values[i] = value;
        expected[i] = (item){key, value, (uint32_t)i};
    }
    compare_type = type;
    compare_descending = order == BITONIC_ORDER_DESCENDING;
    compare_stable = m != PAIRS;
    qsort(expected, count, sizeof *expected, compare_items);
    bitonic_sort_options options = {.order = order, .key_type = type, .stable = m == STABLE_PAIRS};
    bitonic_status status = m == ARGSORT ? bitonic_argsort(context, keys, count, values, &options)
                            : m == KEYS  ? bitonic_sort(context, keys, count, &options)
                                         : bitonic_sort_pairs(context, keys, values, count, &options);
    bool ok = status == BITONIC_SUCCESS;
    for (size_t i = 0; i < count && ok; ++i) {
        if (m == ARGSORT) {
            ok = values[i] == expected[i].index;
            continue;
        }
        uint64_t key = 0;
        if (wide)
            memcpy(&key, keys + 8 * i, 8);
        else {
            uint32_t narrow;
            memcpy(&narrow, keys + 4 * i, 4);
            key = narrow;
        }
        /* Keys compare by bits: NaN payloads and the zeros' signs must survive. */
        ok = key == expected[i].key && (m == KEYS || values[i] == expected[i].value);
    }
    free(keys);
    free(values);
    free(expected);
    return ok;
}

/* Stable pairs and the argsort of 32-bit keys from 2^21 pairs on one thread,
 * where the stable pairs take the sort that moves the values with their words
 * (cpu_backend.c), and the same on two threads, where they do not. */
static void check_large_stable(test_counter *t, uint64_t *seed)
{
    static const uint32_t thread_counts[] = {1, 2};
    static const bitonic_key_type types[] = {BITONIC_KEY_U32, BITONIC_KEY_F32};
    const size_t count = ((size_t)1 << 21) + 5;
    for (size_t c = 0; c < sizeof thread_counts / sizeof thread_counts[0]; ++c) {
        bitonic_context *context;
        bitonic_status status =
            bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .cpu_threads = thread_counts[c]}, &context);
        if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "context on %u threads", thread_counts[c]))
            continue;
        for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k)
            for (int order = 0; order <= 1; ++order)
                for (int m = STABLE_PAIRS; m <= ARGSORT; ++m)
                    TEST_CHECK(t, check_one(context, types[k], (bitonic_order)order, (mode)m, count, seed),
                               "%u threads: %s %s %s, %zu keys", thread_counts[c], type_names[types[k]],
                               order ? "descending" : "ascending", mode_names[m], count);
        bitonic_context_destroy(context);
    }
}

/* Pairs and the argsort of 32-bit keys, and f64 and i64 keys, on four threads
 * from 2^22 pairs, where the first partition packs or maps them on all threads
 * (fast_sort_driver.inc), and
 * pairs whose keys are in order already, or reversed, which the sort packs in
 * a pass and answers in one more. */
static void check_large_pairs(test_counter *t, uint64_t *seed)
{
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .cpu_threads = 4}, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "context on 4 threads"))
        return;
    const size_t count = ((size_t)1 << 22) + 777;
    static const struct {
        bitonic_key_type type;
        bitonic_order order;
        mode m;
    } cases[] = {{BITONIC_KEY_F32, BITONIC_ORDER_ASCENDING, PAIRS},
                 {BITONIC_KEY_I32, BITONIC_ORDER_DESCENDING, PAIRS},
                 {BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, ARGSORT},
                 {BITONIC_KEY_F64, BITONIC_ORDER_DESCENDING, KEYS},
                 {BITONIC_KEY_I64, BITONIC_ORDER_ASCENDING, KEYS}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        TEST_CHECK(t, check_one(context, cases[c].type, cases[c].order, cases[c].m, count, seed),
                   "4 threads: %s %s %s, %zu keys", type_names[cases[c].type],
                   cases[c].order ? "descending" : "ascending", mode_names[cases[c].m], count);
    const size_t presorted = ((size_t)1 << 18) + 7;
    uint32_t *keys = malloc(presorted * sizeof *keys), *values = malloc(presorted * sizeof *values);
    for (int reversed = 0; reversed <= 1; ++reversed) {
        for (size_t i = 0; i < presorted; ++i) {
            keys[i] = (uint32_t)(reversed ? presorted - i : i) * 3u;
            values[i] = (uint32_t)test_random_u64(seed);
        }
        uint32_t first_value = values[0], last_value = values[presorted - 1];
        bitonic_sort_options options = {.order = BITONIC_ORDER_ASCENDING, .key_type = BITONIC_KEY_U32};
        bool ok = bitonic_sort_pairs(context, keys, values, presorted, &options) == BITONIC_SUCCESS;
        for (size_t i = 0; i < presorted && ok; ++i)
            ok = keys[i] == (uint32_t)(i + (reversed ? 1 : 0)) * 3u;
        ok = ok && values[reversed ? presorted - 1 : 0] == first_value &&
             values[reversed ? 0 : presorted - 1] == last_value;
        TEST_CHECK(t, ok, "4 threads: u32 pairs whose keys are %s, %zu keys", reversed ? "reversed" : "in order",
                   presorted);
    }
    free(keys);
    free(values);
    bitonic_context_destroy(context);
}

static const bitonic_cpu_target map_targets[] = {BITONIC_CPU_TARGET_PORTABLE, BITONIC_CPU_TARGET_AVX2,
                                                  BITONIC_CPU_TARGET_AVX512};
static const char *const map_target_names[] = {"portable", "avx2", "avx512"};

static int compare_words(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return (a > b) - (a < b);
}

/* The AVX-512 partition that maps 64-bit keys to their ordered bits as it
 * reads them (the first split of their sort), over count keys and short
 * ranges, around pivots none, some and all words are below: the count, each
 * word's side, and the words themselves (sorted) against key_transform.h's
 * map; out holds count + 1, the last untouched. */
static void check_mapping_partition(test_counter *t, const uint64_t *keys, uint64_t *out, size_t count,
                                    bitonic_key_type type, uint64_t order_xor)
{
#if defined(BITONIC_CPU_HAVE_X86)
    static const size_t lengths_less[] = {0, 3, 100};
    uint64_t *expected = malloc(count * sizeof *expected);
    for (size_t l = 0; l < sizeof lengths_less / sizeof lengths_less[0]; ++l) {
        size_t length = l == 0 ? count : lengths_less[l];
        for (size_t i = 0; i < length; ++i)
            expected[i] = bitonic_ordered_from_key64(keys[i], type, order_xor);
        const uint64_t pivots[] = {0, expected[length / 3], expected[length - 1], UINT64_MAX};
        qsort(expected, length, sizeof *expected, compare_words);
        for (size_t p = 0; p < sizeof pivots / sizeof pivots[0]; ++p) {
            memcpy(out, keys, length * sizeof *out);
            out[length] = 0xCDCDCDCDCDCDCDCDull;
            size_t below = bitonic_cpu_partition_to_ordered_avx512_64(out, length, pivots[p], type, order_xor);
            size_t expected_below = 0;
            while (expected_below < length && expected[expected_below] < pivots[p])
                expected_below++;
            bool same = below == expected_below && out[length] == 0xCDCDCDCDCDCDCDCDull;
            for (size_t i = 0; i < length && same; ++i)
                same = (i < below) == (out[i] < pivots[p]);
            qsort(out, length, sizeof *out, compare_words);
            for (size_t i = 0; i < length && same; ++i)
                same = out[i] == expected[i];
            TEST_CHECK(t, same, "avx512: %s keys mapped by the first partition, %zu keys, %s, pivot %zu",
                       type_names[type], length, order_xor ? "descending" : "ascending", p);
        }
    }
    free(expected);
#else
    (void)t, (void)keys, (void)out, (void)count, (void)type, (void)order_xor;
#endif
}

/* Both maps and both orders over words around each boundary of the f64 order
 * (zeros, infinities, the NaNs of both signs, the sign bit) and random words,
 * with the loops of each target this CPU runs (pair_pack_loops.inc). */
static void check_f64_maps(test_counter *t)
{
    enum { COUNT = 4096 };
    static const uint64_t edges[] = {0, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0x7ff0000000000000ull,
                                     0x7ff0000000000001ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                     0x800fffffffffffffull, 0xffefffffffffffffull, 0xfff0000000000000ull,
                                     0xfff0000000000001ull, 0xfff8000000000000ull, 0xffffffffffffffffull};
    uint64_t *words = malloc(COUNT * sizeof *words), *mapped = malloc(COUNT * sizeof *mapped);
    uint64_t seed = 9;
    size_t n = 0;
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; ++e)
        for (int delta = -3; delta <= 3; ++delta)
            words[n++] = edges[e] + (uint64_t)(int64_t)delta;
    while (n < COUNT)
        words[n++] = test_random_u64(&seed);
    for (size_t m = 0; m < sizeof map_targets / sizeof map_targets[0]; ++m) {
        if (!bitonic_cpu_target_supported(map_targets[m]))
            continue;
        for (int order = 0; order <= 1; ++order) {
            uint64_t order_xor = order ? UINT64_MAX : 0u;
            memcpy(mapped, words, COUNT * sizeof *words);
            bitonic_cpu_keys_to_ordered(mapped, COUNT, BITONIC_KEY_F64, order_xor, 1, map_targets[m]);
            bool same = true;
            for (size_t i = 0; i < COUNT; ++i)
                same = same && mapped[i] == bitonic_ordered_from_key64(words[i], BITONIC_KEY_F64, order_xor);
            TEST_CHECK(t, same, "%s: f64 map to ordered bits, %s", map_target_names[m],
                       order ? "descending" : "ascending");
            memcpy(mapped, words, COUNT * sizeof *words);
            bitonic_cpu_keys_from_ordered(mapped, COUNT, BITONIC_KEY_F64, order_xor, 1, map_targets[m]);
            same = true;
            for (size_t i = 0; i < COUNT; ++i)
                same = same && mapped[i] == bitonic_key64_from_ordered(words[i], BITONIC_KEY_F64, order_xor);
            TEST_CHECK(t, same, "%s: f64 map from ordered bits, %s", map_target_names[m],
                       order ? "descending" : "ascending");
            if (map_targets[m] == BITONIC_CPU_TARGET_AVX512)
                for (int type = BITONIC_KEY_U64; type <= BITONIC_KEY_F64; ++type)
                    check_mapping_partition(t, words, mapped, COUNT - 1, (bitonic_key_type)type, order_xor);
        }
    }
    free(words);
    free(mapped);
}

/* The stable sorts' packing: positions in the low halves where values is
 * NULL, then unpacking the keys alone, the positions alone, and the values
 * gathered by the positions (words reversed first, so that the gather reads
 * somewhere else than in place). */
static void check_position_packing(test_counter *t, size_t m, bitonic_key_type type, uint32_t order_xor,
                                   const uint32_t *keys, const uint32_t *values, uint64_t *words, uint32_t *keys_back,
                                   uint32_t *values_back, size_t count)
{
    bitonic_cpu_pack_pairs(words, keys, NULL, count, type, order_xor, 1, map_targets[m]);
    bool same = true;
    for (size_t i = 0; i < count; ++i)
        same = same && words[i] == ((uint64_t)bitonic_ordered_from_key(keys[i], type, order_xor) << 32 | i);
    memset(keys_back, 0, count * sizeof *keys_back);
    memset(values_back, 0xAB, count * sizeof *values_back);
    bitonic_cpu_unpack_pairs(words, keys_back, NULL, count, type, order_xor, 1, map_targets[m]);
    for (size_t i = 0; i < count; ++i)
        same = same && keys_back[i] == keys[i] && values_back[i] == 0xABABABABu;
    bitonic_cpu_unpack_pairs(words, NULL, values_back, count, type, order_xor, 1, map_targets[m]);
    for (size_t i = 0; i < count; ++i)
        same = same && values_back[i] == i;
    for (size_t i = 0; i < count / 2; ++i) {
        uint64_t swap = words[i];
        words[i] = words[count - 1 - i];
        words[count - 1 - i] = swap;
    }
    bitonic_cpu_unpack_gathered(words, keys_back, values_back, values, count, type, order_xor, 1, map_targets[m]);
    for (size_t i = 0; i < count; ++i)
        same = same && keys_back[i] == keys[count - 1 - i] && values_back[i] == values[count - 1 - i];
    TEST_CHECK(t, same, "%s: %s keys packed with positions and unpacked, %s", map_target_names[m],
               type_names[type], order_xor ? "descending" : "ascending");
}

/* The first partition of packed pairs (pack_partition_avx512.c) over pairs
 * begin .. count - 1, with values and with positions, around pivots none, some
 * and all words are below: the count it returns, each word on its side, and
 * the words themselves (sorted, since the partition may reorder them) those
 * of key_transform.h's map. words holds count + 1. */
static void check_pack_partition(test_counter *t, bitonic_key_type type, uint32_t order_xor, const uint32_t *keys,
                                 const uint32_t *values, uint64_t *words, size_t count)
{
#if defined(BITONIC_CPU_HAVE_X86)
    static const size_t begins[] = {0, 7};
    uint64_t *expected = malloc(count * sizeof *expected);
    for (size_t b = 0; b < sizeof begins / sizeof begins[0]; ++b)
        for (int positions = 0; positions <= 1; ++positions) {
            size_t begin = begins[b], length = count - begin;
            for (size_t i = 0; i < length; ++i)
                expected[i] = (uint64_t)bitonic_ordered_from_key(keys[begin + i], type, order_xor) << 32 |
                              (positions ? (uint32_t)(begin + i) : values[begin + i]);
            const uint64_t pivots[] = {0, expected[length / 3], expected[length - 1], UINT64_MAX};
            qsort(expected, length, sizeof *expected, compare_words);
            for (size_t p = 0; p < sizeof pivots / sizeof pivots[0]; ++p) {
                bitonic_cpu_pair_pass pass = {words, (uint32_t *)keys, positions ? NULL : (uint32_t *)values, NULL,
                                              type, order_xor};
                memset(words, 0xCD, (count + 1) * sizeof *words); /* one past: untouched */
                size_t below = bitonic_cpu_pack_partition_avx512(&pass, words, begin, length, pivots[p]);
                size_t expected_below = 0;
                while (expected_below < length && expected[expected_below] < pivots[p])
                    expected_below++;
                bool same = below == expected_below;
                for (size_t i = 0; i < length && same; ++i)
                    same = (i < below) == (words[i] < pivots[p]);
                same = same && words[length] == 0xCDCDCDCDCDCDCDCDull;
                qsort(words, length, sizeof *words, compare_words);
                for (size_t i = 0; i < length && same; ++i)
                    same = words[i] == expected[i];
                TEST_CHECK(t, same, "avx512: %s pairs packed by the first partition, %s, from %zu, %s, pivot %zu",
                           type_names[type], positions ? "positions" : "values", begin,
                           order_xor ? "descending" : "ascending", p);
            }
        }
    free(expected);
#else
    (void)t, (void)type, (void)order_xor, (void)keys, (void)values, (void)words, (void)count;
#endif
}

/* Packing and unpacking pairs of each 32-bit key type, with the loops of each
 * target this CPU runs, against key_transform.h's map, word by word; the low
 * words of the f64 edges above cover the float boundaries. */
static void check_pair_packing(test_counter *t)
{
    enum { COUNT = 4099 };
    uint32_t *keys = malloc(COUNT * sizeof *keys), *values = malloc(COUNT * sizeof *values);
    uint32_t *keys_back = malloc(COUNT * sizeof *keys), *values_back = malloc(COUNT * sizeof *values);
    uint64_t *words = malloc(COUNT * sizeof *words);
    static const uint32_t edges[] = {0, 1, 0x007fffffu, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fffffffu,
                                     0x80000000u, 0x80000001u, 0xff7fffffu, 0xff800000u, 0xff800001u, 0xffffffffu};
    uint64_t seed = 11;
    for (size_t i = 0; i < COUNT; ++i) {
        keys[i] = i < sizeof edges / sizeof edges[0] ? edges[i] : (uint32_t)test_random_u64(&seed);
        values[i] = (uint32_t)test_random_u64(&seed);
    }
    for (size_t m = 0; m < sizeof map_targets / sizeof map_targets[0]; ++m) {
        if (!bitonic_cpu_target_supported(map_targets[m]))
            continue;
        for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F32; ++type)
            for (int order = 0; order <= 1; ++order) {
                uint32_t order_xor = order ? UINT32_MAX : 0u;
                bitonic_cpu_pack_pairs(words, keys, values, COUNT, (bitonic_key_type)type, order_xor, 1, map_targets[m]);
                bool same = true;
                for (size_t i = 0; i < COUNT; ++i)
                    same = same && words[i] == ((uint64_t)bitonic_ordered_from_key(keys[i], (bitonic_key_type)type,
                                                                                   order_xor) << 32 | values[i]);
                bitonic_cpu_unpack_pairs(words, keys_back, values_back, COUNT, (bitonic_key_type)type, order_xor, 1,
                                         map_targets[m]);
                for (size_t i = 0; i < COUNT; ++i)
                    same = same && keys_back[i] == keys[i] && values_back[i] == values[i];
                TEST_CHECK(t, same, "%s: %s pairs packed and unpacked, %s", map_target_names[m], type_names[type],
                           order ? "descending" : "ascending");
                check_position_packing(t, m, (bitonic_key_type)type, order_xor, keys, values, words, keys_back,
                                       values_back, COUNT);
                if (map_targets[m] == BITONIC_CPU_TARGET_AVX512)
                    check_pack_partition(t, (bitonic_key_type)type, order_xor, keys, values, words, COUNT - 1);
            }
    }
    free(keys);
    free(values);
    free(keys_back);
    free(values_back);
    free(words);
}

int main(void)
{
    test_counter t = {0};
    check_f64_maps(&t);
    check_pair_packing(&t);
    /* Large enough for 2 and 3 slices, then small (the kept buffer is larger than
     * needed), then larger than any before (it must grow), and odd lengths. */
    static const size_t sizes[] = {((size_t)1 << 17) + 13, 1000, 3, ((size_t)1 << 18) + 7, 70001};
    static const uint32_t thread_counts[] = {1, 2, 3, 0};
    uint64_t seed = 2026;
    for (size_t c = 0; c < sizeof thread_counts / sizeof thread_counts[0]; ++c) {
        bitonic_context *context;
        bitonic_status status =
            bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .cpu_threads = thread_counts[c]}, &context);
        if (!TEST_CHECK(&t, status == BITONIC_SUCCESS, "context on %u threads", thread_counts[c]))
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F64; ++type)
                for (int order = 0; order <= 1; ++order)
                    for (int m = PAIRS; m <= KEYS; ++m) {
                        /* 64-bit keys take the pair sort of pair_sort.c, tested by
                         * cpu_sort; here only their order maps around it. */
                        if (type >= BITONIC_KEY_U64 && (m == STABLE_PAIRS || m == ARGSORT) && s > 0)
                            continue;
                        TEST_CHECK(&t,
                                   check_one(context, (bitonic_key_type)type, (bitonic_order)order, (mode)m, sizes[s],
                                             &seed),
                                   "%u threads: %s %s %s, %zu keys", thread_counts[c], type_names[type],
                                   order ? "descending" : "ascending", mode_names[m], sizes[s]);
                    }
        bitonic_context_destroy(context);
    }
    check_large_stable(&t, &seed);
    check_large_pairs(&t, &seed);
    return test_finish(&t);
}
