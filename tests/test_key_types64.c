/* test_key_types64.c: the 64-bit key types (u64, i64, f64) x order x keys /
 * pairs / stable pairs / argsort / rank map / records / rows / segments / range
 * search, on the CPU path and on
 * the first Vulkan device (validation on), against comparators written from the
 * documented order. Doubles include NaNs of both signs, infinities, both zeros
 * and subnormals; every input has duplicates. */
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
    uint64_t key;
    uint32_t value, index;
} item;

static bitonic_key_type sort_type;
static bool sort_descending, sort_stable;

/* -1, 0, 1 for the documented ascending order of two keys' bits. */
static int compare_keys(uint64_t x, uint64_t y)
{
    if (sort_type == BITONIC_KEY_U64)
        return (x > y) - (x < y);
    if (sort_type == BITONIC_KEY_I64)
        return ((int64_t)x > (int64_t)y) - ((int64_t)x < (int64_t)y);
    return reference_compare_f64_bits(x, y);
}

static int compare_items(const void *p, const void *q)
{
    const item *x = p, *y = q;
    return reference_order_then_tie(compare_keys(x->key, y->key), sort_descending,
                                    sort_stable ? x->index : x->value, sort_stable ? y->index : y->value);
}

static uint64_t random_key(bitonic_key_type type, uint64_t *seed)
{
    uint64_t r = test_random_u64(seed);
    if (type != BITONIC_KEY_F64)
        return (r & 7u) == 0 ? test_random_u64(seed) : (uint64_t)(r % 13u) - 6u;
    static const uint64_t special[] = {
        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0xfff0000000000001ull,
        0x7fffffffffffffffull, 0xffffffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
        0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull};
    if ((r & 3u) == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    double d = (double)((int64_t)(r >> 40) % 2000 - 1000) / 8.0;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits;
}

typedef enum mode { KEYS, PAIRS, STABLE_PAIRS, ARGSORT, RANK_MAP, RECORDS } mode;
static const char *mode_names[] = {"keys", "pairs", "stable pairs", "argsort", "rank map", "records"};
static const char *type_names[] = {"u64", "i64", "f64"};

static bool check_one(bitonic_context *context, bitonic_key_type type, bitonic_order order, mode m, size_t n,
                      uint64_t *seed)
{
    uint64_t *keys = malloc((n + 1) * 8);
    uint32_t *values = malloc((n + 1) * 4), *out = malloc((n + 1) * 4);
    unsigned char *records = malloc((n + 1) * 24);
    item *expected = malloc((n + 1) * sizeof *expected);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = random_key(type, seed);
        values[i] = (uint32_t)(test_random_u64(seed) % 5u);
        expected[i] = (item){keys[i], m == KEYS ? 0u : values[i], (uint32_t)i};
        uint32_t tag = (uint32_t)i;
        memcpy(records + i * 24, &tag, 4);
        memcpy(records + i * 24 + 8, &keys[i], 8);  /* key at byte 8 of a 24-byte record */
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
    case RANK_MAP:
        status = bitonic_rank_map(context, keys, n, out, &options);
        for (size_t rank = 0; rank < n && ok; ++rank)
            ok = out[expected[rank].index] == rank;
        break;
    default:
        status = bitonic_sort_records(context, records, n, 24, 8, &options);
        for (size_t i = 0; i < n && ok; ++i) {
            uint32_t tag;
            uint64_t key;
            memcpy(&tag, records + i * 24, 4);
            memcpy(&key, records + i * 24 + 8, 8);
            ok = tag == expected[i].index && key == expected[i].key;
        }
        break;
    }
    free(keys);
    free(values);
    free(out);
    free(records);
    free(expected);
    if (status != BITONIC_SUCCESS)
        printf("status: %s\n", bitonic_status_string(status));
    return status == BITONIC_SUCCESS && ok;
}

/* Rows or segments of 64-bit keys: each piece equals its reference sort. */
static bool check_pieces(bitonic_context *context, bitonic_key_type type, bitonic_order order, size_t pieces,
                         size_t row_length, bool segments, uint64_t *seed)
{
    size_t offsets[64];
    offsets[0] = 0;
    for (size_t p = 0; p < pieces; ++p)
        offsets[p + 1] = offsets[p] + (segments ? (size_t)(test_random_u64(seed) % (2 * row_length + 1)) : row_length);
    size_t n = offsets[pieces];
    uint64_t *keys = malloc((n + 1) * 8);
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

/* Range search on sorted 64-bit keys against a linear count. */
static bool check_search(bitonic_context *context, bitonic_key_type type, bitonic_order order, size_t n,
                         uint64_t *seed)
{
    uint64_t *keys = malloc((n + 1) * 8), lows[48], highs[48];
    uint32_t first[48], end[48];
    for (size_t i = 0; i < n; ++i)
        keys[i] = random_key(type, seed);
    bitonic_sort_options options = {.order = order, .key_type = type};
    bool ok = bitonic_sort(context, keys, n, &options) == BITONIC_SUCCESS;
    sort_type = type;
    int sign = order == BITONIC_ORDER_DESCENDING ? -1 : 1;
    for (size_t q = 0; q < 48; ++q) {
        lows[q] = n && q % 3 == 0 ? keys[test_random_u64(seed) % n] : random_key(type, seed);
        highs[q] = q % 2 ? lows[q] : random_key(type, seed);
        if (sign * compare_keys(highs[q], lows[q]) < 0) {
            uint64_t swap = lows[q];
            lows[q] = highs[q];
            highs[q] = swap;
        }
    }
    ok = ok && bitonic_search_range(context, keys, n, lows, highs, 48, first, end, &options) == BITONIC_SUCCESS;
    for (size_t q = 0; q < 48 && ok; ++q) {
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

static void run_all(test_counter *t, const bitonic_context_desc *desc, const char *label)
{
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(desc, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    static const size_t sizes[] = {0, 1, 2, 3, 17, 255, 256, 257, 1000, 2049, 5000};
    uint64_t seed = 64;
    for (int type = 0; type < 3; ++type)
        for (int order = 0; order <= 1; ++order)
            for (int m = KEYS; m <= RECORDS; ++m)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
                    TEST_CHECK(t, check_one(context, (bitonic_key_type)(BITONIC_KEY_U64 + type), (bitonic_order)order,
                                            (mode)m, sizes[s], &seed),
                               "%s: %s %s %s, %zu keys", label, type_names[type], order ? "descending" : "ascending",
                               mode_names[m], sizes[s]);
    static const size_t row_lengths[] = {2, 7, 100, 3000};
    for (int type = 0; type < 3; ++type)
        for (int order = 0; order <= 1; ++order) {
            bitonic_key_type key_type = (bitonic_key_type)(BITONIC_KEY_U64 + type);
            for (size_t r = 0; r < sizeof row_lengths / sizeof row_lengths[0]; ++r) {
                size_t pieces = row_lengths[r] > 1000 ? 3 : 30;
                TEST_CHECK(t, check_pieces(context, key_type, (bitonic_order)order, pieces, row_lengths[r], false, &seed),
                           "%s: %zu rows of %zu %s", label, pieces, row_lengths[r], type_names[type]);
                TEST_CHECK(t, check_pieces(context, key_type, (bitonic_order)order, pieces, row_lengths[r], true, &seed),
                           "%s: %zu segments up to %zu %s", label, pieces, 2 * row_lengths[r], type_names[type]);
            }
            for (size_t n = 0; n <= 3000; n = n * 7 + 1)
                TEST_CHECK(t, check_search(context, key_type, (bitonic_order)order, n, &seed),
                           "%s: range search, %zu %s keys, %s", label, n, type_names[type],
                           order ? "descending" : "ascending");
        }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label, info.validation_messages);
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
    uint64_t seed = 64;
    for (int type = 0; type < 3; ++type)
        for (int order = 0; order <= 1; ++order)
            for (int m = KEYS; m <= RECORDS; ++m)
                for (size_t s = 0; s < sizeof search_test_sizes / sizeof search_test_sizes[0]; ++s)
                    TEST_CHECK(t, check_one(context, (bitonic_key_type)(BITONIC_KEY_U64 + type), (bitonic_order)order, (mode)m,
                                            search_test_sizes[s], &seed),
                               "%s: %s %s %s, %zu keys", label, type_names[type], order ? "descending" : "ascending",
                               mode_names[m], search_test_sizes[s]);
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label, info.validation_messages);
    bitonic_context_destroy(context);
}

/* Every mode on one and two CPU threads at a size where the pairs of 64-bit
 * keys, stable or not, and the argsort take the radix sort
 * (stable_radix64.c): on two threads its first pass in slices and its
 * buckets shared. */
static void run_threads(test_counter *t, uint32_t threads)
{
    bitonic_context *context;
    bitonic_context_desc desc = {.device = "cpu", .cpu_threads = threads};
    bitonic_status status = bitonic_context_create(&desc, &context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "cpu, %u threads: context (%s)", threads,
                    bitonic_status_string(status)))
        return;
    const size_t n = ((size_t)1 << 19) + 3;
    uint64_t seed = 2;
    for (int type = 0; type < 3; ++type)
        for (int order = 0; order <= 1; ++order)
            for (int m = KEYS; m <= RECORDS; ++m)
                TEST_CHECK(t, check_one(context, (bitonic_key_type)(BITONIC_KEY_U64 + type), (bitonic_order)order,
                                        (mode)m, n, &seed),
                           "cpu, %u threads: %s %s %s, %zu keys", threads, type_names[type],
                           order ? "descending" : "ascending", mode_names[m], n);
    /* From 2^21 keys the order maps back as the sort finishes each stretch
     * (cpu_backend.c, MAP_BACK_IN_SORT_MIN_KEYS). */
    const size_t long_n = ((size_t)1 << 21) + 3;
    for (int type = 1; type < 3; ++type)
        for (int order = 0; order <= 1; ++order)
            TEST_CHECK(t, check_one(context, (bitonic_key_type)(BITONIC_KEY_U64 + type), (bitonic_order)order, KEYS,
                                    long_n, &seed),
                       "cpu, %u threads: %s %s keys, %zu keys", threads, type_names[type],
                       order ? "descending" : "ascending", long_n);
    bitonic_context_destroy(context);
}

int main(void)
{
    test_counter t = {0};
    unsigned printed = 0;
    run_all(&t, &(bitonic_context_desc){.device = "cpu"}, "cpu");
    run_threads(&t, 1);
    run_threads(&t, 2);
    bitonic_tuning_overrides tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES};
    bitonic_context_desc vulkan = {.next = &tuning, .device = test_device_selector(), .validation = test_validation(),
                                   .on_validation_message = test_print_validation_message,
                                   .message_user_data = &printed};
    run_all(&t, &vulkan, "vulkan");
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
    tuning.tile_keys = 0;
    tuning.max_strides_per_global_pass = 0;
    tuning.no_subgroup_shuffle = true;
    run_all(&t, &vulkan, "vulkan, shared-memory tile kernel");
    /* Tiles sorted by the network instead of the tile merge sort. */
    tuning.network_tile_sort = true;
    run_all(&t, &vulkan, "vulkan, shared-memory tile kernel, network tile sort");
    tuning.no_subgroup_shuffle = false;
    run_all(&t, &vulkan, "vulkan, network tile sort");
    TEST_CHECK(&t, printed == 0, "no validation message");
    return test_finish(&t);
}
