/* test_key_types.c: every key type x order x keys / pairs / stable pairs /
 * argsort / rank map / range search / records / batched rows and segments, on the CPU path and on the first Vulkan device (lavapipe
 * here, validation on), against a reference that sorts with comparators written
 * from the documented order (not from the bit maps the library uses). Floats
 * include NaNs of both signs and several payloads, infinities, both zeros and
 * subnormals; every input has many duplicates. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "key_order_reference.h"
#include "merge_search_suites.h"
#include "test_util.h"
#include "vulkan_test_device.h"

typedef struct item {
    uint32_t key, value, index;
} item;

static bitonic_key_type sort_type;
static bool sort_descending, sort_stable;

/* -1, 0, 1 for the documented ascending order of two keys' bits. */
static int compare_keys(uint32_t x, uint32_t y)
{
    if (sort_type == BITONIC_KEY_U32)
        return (x > y) - (x < y);
    if (sort_type == BITONIC_KEY_I32)
        return ((int32_t)x > (int32_t)y) - ((int32_t)x < (int32_t)y);
    return reference_compare_f32_bits(x, y);
}

static int compare_items(const void *p, const void *q)
{
    const item *x = p, *y = q;
    return reference_order_then_tie(compare_keys(x->key, y->key), sort_descending,
                                    sort_stable ? x->index : x->value, sort_stable ? y->index : y->value);
}

static uint32_t random_key(bitonic_key_type type, uint64_t *seed)
{
    uint64_t r = test_random_u64(seed);
    if (type != BITONIC_KEY_F32)
        return (r & 7u) == 0 ? (uint32_t)(r >> 32) : (uint32_t)(r % 13u) - 6u;  /* small and signed ones repeat */
    return reference_random_f32_bits(r);
}

typedef enum mode { KEYS, PAIRS, STABLE_PAIRS, ARGSORT, RANK_MAP } mode;
static const char *mode_names[] = {"keys", "pairs", "stable pairs", "argsort", "rank map"};
static const char *type_names[] = {"u32", "i32", "f32"};

static bool check_one(bitonic_context *context, bitonic_key_type type, bitonic_order order, mode m, size_t n,
                      uint64_t *seed)
{
    uint32_t *keys = malloc((n + 1) * 4), *values = malloc((n + 1) * 4), *out = malloc((n + 1) * 4);
    item *expected = malloc((n + 1) * sizeof *expected);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = random_key(type, seed);
        values[i] = (uint32_t)(test_random_u64(seed) % 5u);  /* repeated values too */
        expected[i] = (item){keys[i], m == KEYS ? 0u : values[i], (uint32_t)i};
    }
    sort_type = type;
    sort_descending = order == BITONIC_ORDER_DESCENDING;
    sort_stable = m != PAIRS;
    qsort(expected, n, sizeof *expected, compare_items);
    bitonic_sort_options options = {.order = order, .key_type = type, .stable = m == STABLE_PAIRS};
    bitonic_status status;
    bool ok = true;
    switch (m) {
    case KEYS:
        status = bitonic_sort(context, keys, n, &options);
        for (size_t i = 0; i < n && ok; ++i)
            ok = keys[i] == expected[i].key;
        break;
    case PAIRS:
    case STABLE_PAIRS:
        status = bitonic_sort_pairs(context, keys, values, n, &options);
        for (size_t i = 0; i < n && ok; ++i)
            ok = keys[i] == expected[i].key && values[i] == expected[i].value;
        break;
    case ARGSORT:
        status = bitonic_argsort(context, keys, n, out, &options);
        for (size_t i = 0; i < n && ok; ++i)
            ok = out[i] == expected[i].index;
        break;
    default:
        status = bitonic_rank_map(context, keys, n, out, &options);
        for (size_t rank = 0; rank < n && ok; ++rank)
            ok = out[expected[rank].index] == rank;
        break;
    }
    free(keys);
    free(values);
    free(out);
    free(expected);
    if (status != BITONIC_SUCCESS)
        printf("status: %s\n", bitonic_status_string(status));
    return status == BITONIC_SUCCESS && ok;
}

/* Range search against a linear count: first = keys that come before the low
 * in the sort order, end = keys that do not come after the high. */
static bool check_search(bitonic_context *context, bitonic_key_type type, bitonic_order order, size_t n,
                         uint64_t *seed)
{
    size_t queries = 64;
    uint32_t *keys = malloc((n + 1) * 4), lows[64], highs[64], first[64], end[64];
    for (size_t i = 0; i < n; ++i)
        keys[i] = random_key(type, seed);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bool ok = bitonic_sort(context, keys, n, &options) == BITONIC_SUCCESS;
    sort_type = type;
    for (size_t q = 0; q < queries; ++q) {
        lows[q] = n && q % 3 == 0 ? keys[test_random_u64(seed) % n] : random_key(type, seed);
        highs[q] = q % 2 ? lows[q] : random_key(type, seed);
        int sign = order == BITONIC_ORDER_DESCENDING ? -1 : 1;
        if (sign * compare_keys(highs[q], lows[q]) < 0) {  /* make low come first in the sort order */
            uint32_t swap = lows[q];
            lows[q] = highs[q];
            highs[q] = swap;
        }
    }
    ok = ok && bitonic_search_range(context, keys, n, lows, highs, queries, first, end, &options) == BITONIC_SUCCESS;
    for (size_t q = 0; q < queries && ok; ++q) {
        int sign = order == BITONIC_ORDER_DESCENDING ? -1 : 1;
        uint32_t before = 0, not_after = 0;
        for (size_t i = 0; i < n; ++i) {
            before += sign * compare_keys(keys[i], lows[q]) < 0;
            not_after += sign * compare_keys(keys[i], highs[q]) <= 0;
        }
        ok = first[q] == before && end[q] == not_after;
    }
    free(keys);
    return ok;
}

/* Records of a given stride with the key at key_offset and random bytes
 * around it (20 bytes with the key at byte 8 in both orders, and each stride
 * below): each sorted record must equal, byte for byte, the input record
 * that the stable order by key puts there. The strides cover each loop of the
 * gather (sort_calls.c: 4, 8, 12, 16, 24, 32 and 64 bytes, and any other). */
static bool check_record_stride(bitonic_context *context, bitonic_key_type type, bitonic_order order, size_t n,
                                size_t stride, size_t key_offset, uint64_t *seed)
{
    unsigned char *records = malloc(n * stride + 1), *input = malloc(n * stride + 1);
    item *expected = malloc((n + 1) * sizeof *expected);
    for (size_t i = 0; i < n * stride; ++i)
        input[i] = (unsigned char)test_random_u64(seed);
    for (size_t i = 0; i < n; ++i) {
        uint32_t key = random_key(type, seed);
        memcpy(input + i * stride + key_offset, &key, 4);
        expected[i] = (item){key, 0, (uint32_t)i};
    }
    memcpy(records, input, n * stride);
    sort_type = type;
    sort_descending = order == BITONIC_ORDER_DESCENDING;
    sort_stable = true;
    qsort(expected, n, sizeof *expected, compare_items);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bool ok = bitonic_sort_records(context, records, n, stride, key_offset, &options) == BITONIC_SUCCESS;
    for (size_t r = 0; r < n && ok; ++r)
        ok = memcmp(records + r * stride, input + (size_t)expected[r].index * stride, stride) == 0;
    free(records);
    free(input);
    free(expected);
    return ok;
}

/* Rows (equal lengths) or segments (random lengths): every piece must equal
 * the reference sort of that piece, and nothing may cross a boundary. */
static bool check_pieces(bitonic_context *context, bitonic_key_type type, bitonic_order order, size_t pieces,
                         size_t row_length, bool segments, uint64_t *seed)
{
    size_t offsets[401];
    offsets[0] = 0;
    for (size_t p = 0; p < pieces; ++p)
        offsets[p + 1] = offsets[p] + (segments ? (size_t)(test_random_u64(seed) % (2 * row_length + 1)) : row_length);
    size_t n = offsets[pieces];
    uint32_t *keys = malloc((n + 1) * 4);
    item *expected = malloc((n + 1) * sizeof *expected);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = random_key(type, seed);
        expected[i] = (item){keys[i], 0, (uint32_t)i};
    }
    sort_type = type;
    sort_descending = order == BITONIC_ORDER_DESCENDING;
    sort_stable = true;
    for (size_t p = 0; p < pieces; ++p)
        qsort(expected + offsets[p], offsets[p + 1] - offsets[p], sizeof *expected, compare_items);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bitonic_status status = segments ? bitonic_sort_segments(context, keys, offsets, pieces, &options)
                                     : bitonic_sort_rows(context, keys, pieces, row_length, &options);
    bool ok = status == BITONIC_SUCCESS;
    for (size_t i = 0; i < n && ok; ++i)
        ok = keys[i] == expected[i].key;
    free(keys);
    free(expected);
    return ok;
}

static void run_all(test_counter *t, const bitonic_context_desc *desc, const char *label)
{
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(desc, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    static const size_t sizes[] = {0, 1, 2, 3, 5, 17, 100, 255, 256, 257, 1000, 4095, 4097, 9000};
    uint64_t seed = 77;
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            for (int m = KEYS; m <= RANK_MAP; ++m)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
                    TEST_CHECK(t, check_one(context, (bitonic_key_type)type, (bitonic_order)order, (mode)m, sizes[s], &seed),
                               "%s: %s %s %s, %zu keys", label, type_names[type], order ? "descending" : "ascending",
                               mode_names[m], sizes[s]);
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            TEST_CHECK(t, check_record_stride(context, (bitonic_key_type)type, (bitonic_order)order, 3000, 20, 8, &seed),
                       "%s: records, %s %s", label, type_names[type], order ? "descending" : "ascending");
    static const size_t strides[][2] = {{4, 0}, {8, 4}, {12, 4}, {16, 0}, {24, 20}, {32, 8}, {64, 60}, {36, 16}, {7, 3}};
    for (int type = 0; type <= 2; ++type)
        for (size_t s = 0; s < sizeof strides / sizeof strides[0]; ++s)
            TEST_CHECK(t, check_record_stride(context, (bitonic_key_type)type, (bitonic_order)(s % 2), 3000,
                                              strides[s][0], strides[s][1], &seed),
                       "%s: records of %zu bytes, key at %zu, %s", label, strides[s][0], strides[s][1],
                       type_names[type]);
    static const size_t row_lengths[] = {1, 2, 3, 7, 8, 100, 1000, 5000};
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            for (size_t r = 0; r < sizeof row_lengths / sizeof row_lengths[0]; ++r) {
                size_t rows = row_lengths[r] > 1000 ? 3 : 40;
                TEST_CHECK(t, check_pieces(context, (bitonic_key_type)type, (bitonic_order)order, rows, row_lengths[r],
                                           false, &seed),
                           "%s: %zu rows of %zu, %s %s", label, rows, row_lengths[r], type_names[type],
                           order ? "descending" : "ascending");
                TEST_CHECK(t, check_pieces(context, (bitonic_key_type)type, (bitonic_order)order, rows, row_lengths[r],
                                           true, &seed),
                           "%s: %zu segments of up to %zu, %s %s", label, rows, 2 * row_lengths[r], type_names[type],
                           order ? "descending" : "ascending");
            }
    static const size_t search_sizes[] = {0, 1, 7, 300, 5000};
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            for (size_t s = 0; s < sizeof search_sizes / sizeof search_sizes[0]; ++s)
                TEST_CHECK(t, check_search(context, (bitonic_key_type)type, (bitonic_order)order, search_sizes[s], &seed),
                           "%s: range search, %s %s, %zu keys", label, type_names[type],
                           order ? "descending" : "ascending", search_sizes[s]);
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label, info.validation_messages);
    uint32_t key = 0;
    bitonic_sort_options bad = {.key_type = (bitonic_key_type)9};
    TEST_CHECK(t, bitonic_sort(context, &key, 1, &bad) == BITONIC_ERROR_INVALID_ARGUMENT, "%s: unknown key type", label);
    bitonic_context_destroy(context);
}

/* Keys, pairs and the rest of the modes alone (no rows, records or searches),
 * at sizes whose merges take many chunks of the small shapes the suites below
 * give: for the merges' split searches. */
static void run_merge_searches(test_counter *t, const bitonic_context_desc *desc, const char *label)
{
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(desc, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    static const size_t search_test_sizes[] = {31, 33, 100, 1000, 2049, 4097, 9000};
    uint64_t seed = 77;
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            for (int m = KEYS; m <= RANK_MAP; ++m)
                for (size_t s = 0; s < sizeof search_test_sizes / sizeof search_test_sizes[0]; ++s)
                    TEST_CHECK(t, check_one(context, (bitonic_key_type)type, (bitonic_order)order, (mode)m,
                                            search_test_sizes[s], &seed),
                               "%s: %s %s %s, %zu keys", label, type_names[type], order ? "descending" : "ascending",
                               mode_names[m], search_test_sizes[s]);
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label, info.validation_messages);
    bitonic_context_destroy(context);
}

static int compare_u64(const void *p, const void *q)
{
    uint64_t x = *(const uint64_t *)p, y = *(const uint64_t *)q;
    return (x > y) - (x < y);
}

/* A sort of 2^log keys and one of 2^log + tail, of one kind. */
typedef enum tail_kind { TAIL_U32_KEYS, TAIL_PAIRS, TAIL_64BIT_KEYS } tail_kind;
typedef struct tail_case {
    tail_kind kind;
    uint32_t log;
} tail_case;

/* Each case's two sorts, with small shapes and without: both come out as
 * qsort orders them (many duplicates), and where same_passes the tail takes
 * no pass of its own either way (without small shapes every merge is the
 * shared-memory one, and the last takes the tail in through its tail
 * pipeline). */
static void check_tail_pass_counts(test_counter *t, bitonic_context_desc desc, const char *label,
                                   const tail_case *cases, size_t case_count, size_t tail, bool same_passes)
{
    static const char *shape_labels[] = {"small shapes", "no small shapes"};
    static const char *kind_labels[] = {"u32 keys", "pairs", "64-bit keys"};
    size_t most = 0;
    for (size_t c = 0; c < case_count; ++c) {
        size_t words_needed = (((size_t)1 << cases[c].log) + tail) * (cases[c].kind == TAIL_64BIT_KEYS ? 2u : 1u);
        most = words_needed > most ? words_needed : most;
    }
    bitonic_tuning_overrides tuning = *bitonic_tuning_overrides_find(desc.next);
    desc.next = &tuning;
    for (int shapes = 0; shapes < 2; ++shapes) {
        tuning.small_sort_max_keys = shapes == 0 ? 0u : UINT32_MAX;
        bitonic_context *context;
        bitonic_status status = bitonic_context_create(&desc, &context);
        if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
            return;
        bitonic_buffer *buffer = NULL;
        uint32_t *words = malloc(most * sizeof *words), *values = malloc(most * sizeof *values);
        uint64_t *expected = malloc(most * sizeof *expected);
        uint64_t seed = 7;
        bool made = bitonic_buffer_create(context, most, &buffer) == BITONIC_SUCCESS && words && values && expected;
        for (size_t c = 0; c < case_count && made; ++c) {
            bool pairs = cases[c].kind == TAIL_PAIRS, key64 = cases[c].kind == TAIL_64BIT_KEYS;
            bitonic_sort_options options = {.key_type = key64 ? BITONIC_KEY_U64 : BITONIC_KEY_U32};
            uint32_t passes[2] = {0, 0};
            bool sorted = true;
            for (int plus = 0; plus < 2; ++plus) {
                size_t count = ((size_t)1 << cases[c].log) + (plus ? tail : 0u), word_count = key64 ? 2u * count : count;
                for (size_t i = 0; i < word_count; ++i)
                    words[i] = (uint32_t)(test_random_u64(&seed) % 5000u);  /* duplicates too */
                for (size_t i = 0; i < count; ++i) {
                    values[i] = (uint32_t)(test_random_u64(&seed) % 7u);
                    uint64_t key = key64 ? ((uint64_t)words[2u * i + 1u] << 32) | words[2u * i] : words[i];
                    expected[i] = pairs ? (key << 32) | values[i] : key;
                }
                qsort(expected, count, sizeof *expected, compare_u64);
                bitonic_timing timing = {0};
                sorted = sorted && bitonic_buffer_upload(buffer, words, word_count) == BITONIC_SUCCESS &&
                         (!pairs || bitonic_buffer_upload_values(buffer, values, count) == BITONIC_SUCCESS) &&
                         (pairs ? bitonic_buffer_sort_pairs(buffer, count, &options, &timing)
                                : bitonic_buffer_sort(buffer, count, &options, &timing)) == BITONIC_SUCCESS &&
                         bitonic_buffer_download(buffer, words, word_count) == BITONIC_SUCCESS &&
                         (!pairs || bitonic_buffer_download_values(buffer, values, count) == BITONIC_SUCCESS);
                for (size_t i = 0; i < count && sorted; ++i) {
                    uint64_t key = key64 ? ((uint64_t)words[2u * i + 1u] << 32) | words[2u * i] : words[i];
                    sorted = expected[i] == (pairs ? (key << 32) | values[i] : key);
                }
                passes[plus] = timing.pass_count;
            }
            TEST_CHECK(t, sorted && (passes[1] == passes[0] || !same_passes),
                       "%s, %s: %s of 2^%u and 2^%u + %zu sorted in %u and %u passes", label, shape_labels[shapes],
                       kind_labels[cases[c].kind], cases[c].log, cases[c].log, tail, passes[0], passes[1]);
        }
        TEST_CHECK(t, made, "%s, %s: buffers", label, shape_labels[shapes]);
        bitonic_buffer_destroy(buffer);
        free(words);
        free(values);
        free(expected);
        bitonic_context_info info;
        bitonic_context_get_info(context, &info);
        TEST_CHECK(t, info.validation_messages == 0, "%s, %s: %" PRIu64 " validation messages", label,
                   shape_labels[shapes], info.validation_messages);
        bitonic_context_destroy(context);
    }
}

/* The last merge takes in the tail past a power of two: 2^13 + 1 pairs and
 * 64-bit keys (the 32-bit ones: test_vulkan_sort) take as many passes as 2^13
 * on any tile up to 4096 keys, by the direct merge of small sorts or, without
 * small shapes, the shared-memory merge's tail pipeline. Past the small sorts
 * and below the partition the tail pipeline takes it in either way: 2^19 + 5
 * u32 keys, 2^18 + 5 pairs and 2^17 + 5 64-bit keys (the default shapes of
 * any device; the direct merge's reach is fixed in keys, tuning.c). */
static void check_tail_passes(test_counter *t, bitonic_context_desc desc)
{
    static const tail_case small_sorts[] = {{TAIL_PAIRS, 13}, {TAIL_64BIT_KEYS, 13}};
    check_tail_pass_counts(t, desc, "tail", small_sorts, 2, 1, true);
    static const tail_case past_small_sorts[] = {{TAIL_U32_KEYS, 19}, {TAIL_PAIRS, 18}, {TAIL_64BIT_KEYS, 17}};
    check_tail_pass_counts(t, desc, "large tail", past_small_sorts, 3, 5, true);
}

/* A tail the tile pass places (2^k + m keys, m up to 32, one tile): every
 * 32-bit key type both ways as pairs, u32 keys alone, and 64-bit keys, with
 * many duplicates
 * in keys and values, against the reference order; up to 2^11 + 32 keys
 * (inside every tile and short tile here and on the H100) in one pass. */
static void check_tile_tail(test_counter *t, bitonic_context_desc desc)
{
    static const uint32_t f32_keys[] = {0x80000000u, 0u, 0x3f800000u, 0xbf800000u,
                                        0x7f800000u, 0xff800000u, 0x7fc00000u, 1u};
    /* Totals of every remainder mod 4 (1027 and 2050 among them), so that a
     * sort that writes its last keys four at a time is checked on every
     * short group (docs/perf-log.md, entry 96 tried one). */
    static const size_t counts[] = {3, 5, 1025, 1027, 1040, 1056, 1057, 2049, 2050, 2080, 4097, 4100, 4128, 4129};
    bitonic_context *context;
    if (!TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "tile tail: context"))
        return;
    size_t most = 4129;
    bitonic_buffer *buffer = NULL;
    uint32_t *words = malloc(2u * most * sizeof *words), *values = malloc(most * sizeof *values);
    item *items = malloc(most * sizeof *items);
    uint64_t *keys64 = malloc(most * sizeof *keys64);
    uint64_t seed = 5;
    bool made = bitonic_buffer_create(context, 2u * most, &buffer) == BITONIC_SUCCESS && words && values && items &&
                keys64;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0] && made; ++c) {
        size_t n = counts[c];
        bool one_pass_expected = n <= 2080u;
        for (int kind = 0; kind < 8; ++kind) {
            bool key64 = kind == 6, keys_alone = kind >= 6;
            sort_type = kind / 2 == 0 || kind == 7 ? BITONIC_KEY_U32 : kind / 2 == 1 ? BITONIC_KEY_I32 : BITONIC_KEY_F32;
            sort_descending = kind % 2 == 1 && !keys_alone;
            sort_stable = false;
            bitonic_sort_options options = {.key_type = key64 ? BITONIC_KEY_U64 : sort_type,
                                            .order = sort_descending ? BITONIC_ORDER_DESCENDING
                                                                     : BITONIC_ORDER_ASCENDING};
            for (size_t i = 0; i < n; ++i) {
                uint32_t r = (uint32_t)(test_random_u64(&seed) % 13u);
                items[i].key = sort_type == BITONIC_KEY_F32 ? f32_keys[r % 8u] : sort_type == BITONIC_KEY_I32 ? r - 6u : r;
                items[i].value = (uint32_t)(test_random_u64(&seed) % 5u);
                items[i].index = (uint32_t)i;
                keys64[i] = ((uint64_t)(test_random_u64(&seed) % 3u) << 32) | (test_random_u64(&seed) % 7u);
                words[i] = items[i].key;
                values[i] = items[i].value;
            }
            for (size_t i = 0; key64 && i < n; ++i) {
                words[2u * i] = (uint32_t)keys64[i];
                words[2u * i + 1u] = (uint32_t)(keys64[i] >> 32);
            }
            size_t word_count = key64 ? 2u * n : n;
            bitonic_timing timing = {0};
            bool ok = bitonic_buffer_upload(buffer, words, word_count) == BITONIC_SUCCESS &&
                      (keys_alone || bitonic_buffer_upload_values(buffer, values, n) == BITONIC_SUCCESS) &&
                      (keys_alone ? bitonic_buffer_sort(buffer, n, &options, &timing)
                                  : bitonic_buffer_sort_pairs(buffer, n, &options, &timing)) == BITONIC_SUCCESS &&
                      bitonic_buffer_download(buffer, words, word_count) == BITONIC_SUCCESS &&
                      (keys_alone || bitonic_buffer_download_values(buffer, values, n) == BITONIC_SUCCESS);
            if (key64) {
                qsort(keys64, n, sizeof *keys64, compare_u64);
                for (size_t i = 0; i < n && ok; ++i)
                    ok = words[2u * i] == (uint32_t)keys64[i] && words[2u * i + 1u] == (uint32_t)(keys64[i] >> 32);
            } else {
                qsort(items, n, sizeof *items, compare_items);
                for (size_t i = 0; i < n && ok; ++i)
                    ok = words[i] == items[i].key && (keys_alone || values[i] == items[i].value);
            }
            TEST_CHECK(t, ok && (!one_pass_expected || timing.pass_count == 1u),
                       "tile tail: %zu %s%s keys%s sorted (%u passes)", n,
                       key64 ? "u64" : sort_type == BITONIC_KEY_U32 ? "u32" : sort_type == BITONIC_KEY_I32 ? "i32" : "f32",
                       sort_descending ? " descending" : "", keys_alone ? "" : " with values", timing.pass_count);
        }
    }
    TEST_CHECK(t, made, "tile tail: buffers");
    bitonic_buffer_destroy(buffer);
    free(words);
    free(values);
    free(items);
    free(keys64);
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "tile tail: %" PRIu64 " validation messages", info.validation_messages);
    bitonic_context_destroy(context);
}

/* Keys, pairs and the argsort on one and two CPU threads at a size where the
 * CPU path maps signed and float keys back, and unpacks pairs and positions,
 * as its sort finishes each stretch (cpu_backend.c, MAP_BACK_IN_SORT_MIN_KEYS). */
static void run_cpu_long(test_counter *t, uint32_t threads)
{
    bitonic_context *context;
    bitonic_context_desc desc = {.device = "cpu", .cpu_threads = threads};
    bitonic_status status = bitonic_context_create(&desc, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "cpu, %u threads: context (%s)", threads,
                    bitonic_status_string(status)))
        return;
    const size_t n = ((size_t)1 << 21) + 3;
    uint64_t seed = 5;
    static const mode modes[] = {KEYS, PAIRS, ARGSORT};
    for (int type = 0; type <= 2; ++type)
        for (int order = 0; order <= 1; ++order)
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m)
                TEST_CHECK(t, check_one(context, (bitonic_key_type)type, (bitonic_order)order, modes[m], n, &seed),
                           "cpu, %u threads: %s %s %s, %zu keys", threads, type_names[type],
                           order ? "descending" : "ascending", mode_names[modes[m]], n);
    bitonic_context_destroy(context);
}

int main(void)
{
    test_counter t = {0};
    unsigned printed = 0;
    run_all(&t, &(bitonic_context_desc){.device = "cpu"}, "cpu");
    run_cpu_long(&t, 1);
    run_cpu_long(&t, 2);
    bitonic_tuning_overrides tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES};
    bitonic_context_desc vulkan = {.next = &tuning, .device = test_device_selector(), .validation = test_validation(),
                                   .on_validation_message = test_print_validation_message,
                                   .message_user_data = &printed};
    run_all(&t, &vulkan, "vulkan");
    check_tail_passes(&t, vulkan);
    check_tile_tail(&t, vulkan);
    tuning.tile_keys = 64;
    tuning.max_strides_per_global_pass = 2;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    run_all(&t, &vulkan, "vulkan, 64-key tile");
    /* Both merge kernels, whichever the device's default is. */
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_DIRECT;
    run_all(&t, &vulkan, "vulkan, 64-key tile, direct merge");
    /* A split pass before every merge whose searches guess from the keys'
     * values (signed and float keys guess on their ordered bits). */
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    tuning.merge_split_pass_min_chunks = 1;
    tuning.merge_split_guided_min_chunks = 1;
    run_all(&t, &vulkan, "vulkan, 64-key tile, guided split passes");
    tuning.merge_split_pass_min_chunks = 0;
    tuning.merge_split_guided_min_chunks = 0;
    /* The merges' split searches on run samples, each way (merge_search_suites.h). */
    run_merge_search_suites(&t, vulkan, run_merge_searches);
    vulkan.strategy = BITONIC_STRATEGY_TRANSPOSE;  /* phases above 2 x 6 take two views */
    run_all(&t, &vulkan, "vulkan, 64-key tile, transpose");
    vulkan.strategy = BITONIC_STRATEGY_MERGE;
    /* Tiles sorted by the network instead of the tile merge sort. */
    tuning.network_tile_sort = true;
    run_all(&t, &vulkan, "vulkan, 64-key tile, network tile sort");
    tuning.network_tile_sort = false;
    TEST_CHECK(&t, printed == 0, "no validation message");
    return test_finish(&t);
}
