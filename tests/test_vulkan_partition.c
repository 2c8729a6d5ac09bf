/* test_vulkan_partition.c: the partition sort (partition_pass.comp,
 * record_partition_sort) on the Vulkan device, validation on, against qsort
 * with comparators written from the documented order: u32 keys of every
 * pattern and both orders, f32 keys with both zeros, infinities and NaNs of
 * both signs, pairs ordered by key then value with many equal keys, u64 keys,
 * and the indirect fallback forced by one sample a bucket (buckets then come
 * out longer than a window almost surely); pairs packed (the default where
 * the device has 64-bit keys) and as two arrays (partition_split_pairs). Sorts go through the public
 * context API, so the context's own scratch (INDIRECT_BUFFER usage) is used.
 *
 * Sizes are written for a 4096-key tile (lavapipe) and scale with the device's
 * tile, so the same sorts partition elsewhere. A partition sort records more
 * dispatches than the plain merge (sample, count, scatter, the window
 * merge, fewer merge levels), so each configuration also checks, through a
 * resident buffer's pass count, that the partition path was taken where it
 * should be and not below its thresholds: the count must be that of the same
 * sort in a context that partitions from one key on (a partition sort records
 * a number of dispatches of its own, more than the plain merge's or fewer),
 * where that differs from the plain context's (where the two coincide the
 * check says so and tells nothing; every suite has sizes where they differ).
 * Without that a broken selection would pass unseen. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "key_order_reference.h"
#include "test_util.h"
#include "vulkan_test_device.h"

/* What one expected element is: the key's bits and its value (0 for keys alone). */
typedef struct item {
    uint64_t key;
    uint32_t value;
} item;

static bitonic_key_type sort_type;
static bool sort_descending;

/* -1, 0, 1 for the documented ascending order of two keys' bits. */
static int compare_keys(uint64_t x, uint64_t y)
{
    if (sort_type != BITONIC_KEY_F32)
        return (x > y) - (x < y);  /* u32 and u64 */
    return reference_compare_f32_bits((uint32_t)x, (uint32_t)y);
}

/* Pairs by key (reversed when descending), then by value ascending either way. */
static int compare_items(const void *p, const void *q)
{
    const item *x = p, *y = q;
    return reference_order_then_tie(compare_keys(x->key, y->key), sort_descending, x->value, y->value);
}

typedef enum pattern { RANDOM, ALL_EQUAL, THREE_DISTINCT, SORTED, REVERSE, FEW_KEYS, REPEATS } pattern;
static const char *pattern_names[] = {"random", "all-equal", "3-distinct", "sorted", "reverse", "few-keys", "repeats"};
static const char *type_names[] = {"u32", "i32", "f32", "u64"};

/* Key i of a pattern, as bits of the type (the low 32 of them for 32-bit types). */
static uint64_t make_key(bitonic_key_type type, pattern p, size_t i, size_t n, uint64_t *seed)
{
    uint64_t r = test_random_u64(seed);
    if (type == BITONIC_KEY_F32)
        return reference_random_f32_bits(r);
    if (type == BITONIC_KEY_U64) {
        /* Repeats, keys that differ in the low word alone, and wide ones. */
        if ((r & 3u) == 0)
            return r % 7u;
        if ((r & 3u) == 1)
            return ((r >> 8) % 5u) << 32 | (uint32_t)(r >> 32);
        return test_random_u64(seed);
    }
    switch (p) {
    case ALL_EQUAL: return 0x12345678u;
    case THREE_DISTINCT: return ((const uint32_t[]){5u, 0x80000000u, UINT32_MAX})[r % 3u];
    case SORTED: return (uint32_t)i * 3u;
    case REVERSE: return (uint32_t)(n - i) * 5u;
    case FEW_KEYS: return (uint32_t)(r % 64u);  /* long runs of equal keys */
    case REPEATS: return (uint32_t)(r % 2039u) * 0x20000u;  /* tens of each: ties inside open buckets */
    default: return (uint32_t)r;
    }
}

/* One sort's input: keys (bits of the type) and optional values. */
typedef struct input {
    bitonic_key_type type;
    bitonic_order order;
    pattern keys;
    bool with_values;
    uint32_t value_range;  /* values modulo this; 0 = any 32-bit value */
    size_t count;
    uint64_t seed;
} input;

static size_t key_bytes(bitonic_key_type type)
{
    return type == BITONIC_KEY_U64 ? 8u : 4u;
}

/* Fills keys (in the type's width), values and the expected order. */
static void build(const input *in, void *keys, uint32_t *values, item *expected)
{
    uint64_t seed = in->seed;
    for (size_t i = 0; i < in->count; ++i) {
        uint64_t key = make_key(in->type, in->keys, i, in->count, &seed);
        uint32_t value = (uint32_t)test_random_u64(&seed);
        if (in->value_range)
            value %= in->value_range;
        if (key_bytes(in->type) == 8)
            ((uint64_t *)keys)[i] = key;
        else
            ((uint32_t *)keys)[i] = (uint32_t)key;
        if (values)
            values[i] = value;
        expected[i] = (item){key, in->with_values ? value : 0u};
    }
    sort_type = in->type;
    sort_descending = in->order == BITONIC_ORDER_DESCENDING;
    qsort(expected, in->count, sizeof *expected, compare_items);
}

/* Bit for bit: every key (and value) where the reference puts it. */
static bool matches(const input *in, const void *keys, const uint32_t *values, const item *expected)
{
    for (size_t i = 0; i < in->count; ++i) {
        uint64_t key = key_bytes(in->type) == 8 ? ((const uint64_t *)keys)[i] : ((const uint32_t *)keys)[i];
        if (key != expected[i].key || (in->with_values && values[i] != expected[i].value)) {
            printf("  first difference at %zu of %zu: key 0x%" PRIx64 " value %u, expected 0x%" PRIx64 " value %u\n",
                   i, in->count, key, in->with_values ? values[i] : 0u, expected[i].key, expected[i].value);
            return false;
        }
    }
    return true;
}

static void describe(const input *in, char *text, size_t capacity)
{
    snprintf(text, capacity, "%s %s%s, %zu, %s", type_names[in->type], pattern_names[in->keys],
             in->with_values ? (in->value_range ? " pairs (few values)" : " pairs") : " keys", in->count,
             in->order ? "descending" : "ascending");
}

/* Sorts the input as host arrays through the context and compares with the
 * reference. out_keys, when given, receives the sorted keys (count x width). */
static bool host_sort_matches(bitonic_context *context, const input *in, void *out_keys)
{
    void *keys = malloc(in->count * key_bytes(in->type) + 8);
    uint32_t *values = in->with_values ? malloc(in->count * 4 + 4) : NULL;
    item *expected = malloc(in->count * sizeof *expected + sizeof *expected);
    if (!keys || (in->with_values && !values) || !expected) {
        free(keys);
        free(values);
        free(expected);
        printf("  out of host memory\n");
        return false;
    }
    build(in, keys, values, expected);
    bitonic_sort_options options = {.order = in->order, .key_type = in->type};
    bitonic_status status = in->with_values ? bitonic_sort_pairs(context, keys, values, in->count, &options)
                                            : bitonic_sort(context, keys, in->count, &options);
    bitonic_host_timing where = {0};
    bool ok = status == BITONIC_SUCCESS;
    if (!ok)
        printf("  sort failed: %s\n", bitonic_status_string(status));
    /* A host sort may run on the CPU path below the crossover: this one must not. */
    if (ok && (bitonic_context_last_host_timing(context, &where) != BITONIC_SUCCESS ||
               where.ran_on != BITONIC_BACKEND_VULKAN)) {
        printf("  the sort did not run on the Vulkan device\n");
        ok = false;
    }
    ok = ok && matches(in, keys, values, expected);
    if (ok && out_keys)
        memcpy(out_keys, keys, in->count * key_bytes(in->type));
    free(keys);
    free(values);
    free(expected);
    return ok;
}

/* The same sort through a resident buffer, which reports how many dispatches
 * the sort recorded (*out_passes); exact as well. */
static bool buffer_sort_matches(bitonic_context *context, const input *in, uint32_t *out_passes)
{
    size_t words = in->count * key_bytes(in->type) / 4u;
    uint32_t *keys = malloc(words * 4 + 8), *values = in->with_values ? malloc(in->count * 4 + 4) : NULL;
    item *expected = malloc(in->count * sizeof *expected + sizeof *expected);
    bitonic_buffer *buffer = NULL;
    bool ok = keys && (!in->with_values || values) && expected &&
              bitonic_buffer_create(context, words, &buffer) == BITONIC_SUCCESS;
    if (ok) {
        build(in, keys, values, expected);
        ok = bitonic_buffer_upload(buffer, keys, words) == BITONIC_SUCCESS &&
             (!in->with_values || bitonic_buffer_upload_values(buffer, values, in->count) == BITONIC_SUCCESS);
    }
    bitonic_sort_options options = {.order = in->order, .key_type = in->type};
    bitonic_timing timing = {0};
    bitonic_status status = BITONIC_ERROR_INVALID_ARGUMENT;
    if (ok) {
        status = in->with_values ? bitonic_buffer_sort_pairs(buffer, in->count, &options, &timing)
                                 : bitonic_buffer_sort(buffer, in->count, &options, &timing);
        if (status != BITONIC_SUCCESS)
            printf("  buffer sort failed: %s\n", bitonic_status_string(status));
        ok = status == BITONIC_SUCCESS && bitonic_buffer_download(buffer, keys, words) == BITONIC_SUCCESS &&
             (!in->with_values || bitonic_buffer_download_values(buffer, values, in->count) == BITONIC_SUCCESS);
    }
    ok = ok && matches(in, keys, values, expected);
    *out_passes = timing.pass_count;
    bitonic_buffer_destroy(buffer);
    free(keys);
    free(values);
    free(expected);
    return ok;
}

/* One context under test, the plain one (partition_min_keys 0: the tuning's
 * default, no partition at the suites' sizes) it is compared with, and one
 * like it that partitions from one key on (the path checks). */
typedef struct suite {
    test_counter *t;
    bitonic_context *context, *plain, *forced;
    const char *label;
    uint32_t tile_keys;  /* of the device's 32-bit keys, what the sizes scale with */
    bool keys64;         /* the device sorts u64 keys (else their checks are skipped) */
} suite;

/* A size written for a 4096-key tile, scaled to the device's tile. */
static size_t scaled(const suite *s, size_t keys_at_4096, size_t extra)
{
    return keys_at_4096 / 4096u * s->tile_keys + extra;
}

static uint64_t validation_messages(const bitonic_context *context)
{
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    return info.validation_messages;
}

/* Each check counts the messages its own sorts raised, so a failure names the
 * sort that raised them (the context's total is checked at its end too). */
static void check_sort(suite *s, input in)
{
    char what[128];
    describe(&in, what, sizeof what);
    uint64_t before = validation_messages(s->context);
    bool exact = host_sort_matches(s->context, &in, NULL);
    uint64_t messages = validation_messages(s->context) - before;
    TEST_CHECK(s->t, exact && messages == 0, "%s: %s (%s, %" PRIu64 " validation messages)", s->label, what,
               exact ? "exact" : "WRONG", messages);
}

/* The input sorts exactly in the three contexts, and partitioned or not as
 * asked: as many dispatches as the context that partitions from one key on
 * records for it, and not as many as the plain one, or the other way round. */
static void check_path(suite *s, input in, bool partitioned)
{
    char what[128];
    describe(&in, what, sizeof what);
    uint32_t passes = 0, plain_passes = 0, forced_passes = 0;
    uint64_t before =
        validation_messages(s->context) + validation_messages(s->plain) + validation_messages(s->forced);
    bool exact = buffer_sort_matches(s->context, &in, &passes);
    bool plain_exact = buffer_sort_matches(s->plain, &in, &plain_passes);
    bool forced_exact = buffer_sort_matches(s->forced, &in, &forced_passes);
    uint64_t messages =
        validation_messages(s->context) + validation_messages(s->plain) + validation_messages(s->forced) - before;
    TEST_CHECK(s->t, exact && plain_exact && forced_exact && messages == 0,
               "%s: resident buffer, %s (%s, plain context %s, partitioning context %s, %" PRIu64
               " validation messages)", s->label, what, exact ? "exact" : "WRONG", plain_exact ? "exact" : "WRONG",
               forced_exact ? "exact" : "WRONG", messages);
    if (plain_passes == forced_passes) {
        /* Both paths record as many dispatches here: the count cannot tell
         * them apart (the suites' other sizes do). */
        printf("  %s: %s, path not told apart (%u dispatches either way)\n", s->label, what, passes);
        return;
    }
    bool taken = passes == forced_passes;
    bool not_taken = passes == plain_passes && passes > 0;
    TEST_CHECK(s->t, partitioned ? taken : not_taken,
               "%s: %s %s partition (%u dispatches; %u partitioned from one key on, %u never)", s->label, what,
               partitioned ? "takes the" : "does not take the", passes, forced_passes, plain_passes);
}

/* The input sorts to the same bits in this context and in the plain one. */
static void check_same_as_plain(suite *s, input in)
{
    char what[128];
    describe(&in, what, sizeof what);
    size_t bytes = in.count * key_bytes(in.type);
    void *partitioned = malloc(bytes + 8), *plain = malloc(bytes + 8);
    uint64_t before = validation_messages(s->context) + validation_messages(s->plain);
    bool ok = partitioned && plain && host_sort_matches(s->context, &in, partitioned) &&
              host_sort_matches(s->plain, &in, plain) && memcmp(partitioned, plain, bytes) == 0;
    uint64_t messages = validation_messages(s->context) + validation_messages(s->plain) - before;
    TEST_CHECK(s->t, ok && messages == 0, "%s: %s sorts as with partition_min_keys 0 (%s, %" PRIu64
               " validation messages)", s->label, what, ok ? "exact, identical" : "WRONG", messages);
    free(partitioned);
    free(plain);
}

/* A context's description and the tuning overrides its chain holds, copied
 * and changed together. */
typedef struct tuned_desc {
    bitonic_context_desc desc;
    bitonic_tuning_overrides tuning;
} tuned_desc;

static bool open_suite(suite *s, const tuned_desc *tuned)
{
    bitonic_context_desc desc = tuned->desc;
    desc.next = &tuned->tuning;
    bitonic_status status = bitonic_context_create(&desc, &s->context);
    if (!TEST_CHECK(s->t, status == BITONIC_SUCCESS, "%s: context (%s)", s->label, bitonic_status_string(status)))
        return false;
    bitonic_context_info info;
    bitonic_context_get_info(s->context, &info);
    s->tile_keys = info.tile_keys;
    printf("%s: %s, tile %u keys\n", s->label, info.device_name, info.tile_keys);
    return true;
}

static void close_suite(suite *s)
{
    bitonic_context_info info;
    bitonic_context_get_info(s->context, &info);
    TEST_CHECK(s->t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", s->label,
               info.validation_messages);
    bitonic_context_destroy(s->context);
}

/* A suite's threshold (sizes[0], the least count its windows partition):
 * the path taken there and not one key below; then a sort of every size. */
static void check_edge_and_sizes(suite *s, const size_t *sizes, size_t size_count, uint64_t *seed)
{
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, sizes[0], ++*seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, sizes[0] - 1u, ++*seed}, false);
    for (size_t i = 0; i < size_count; ++i)
        check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, sizes[i], ++*seed});
}

/* Windows of one tile (partition_levels UINT32_MAX: no merge levels, the
 * window merge right after the tile sort): from 4 windows, 2^14 keys, up;
 * pairs, f32 keys and every pattern; 16 windows. */
static void run_levels_0(suite *s)
{
    const size_t sizes[] = {scaled(s, 1u << 14, 0), scaled(s, 1u << 14, 1), scaled(s, 3u << 13, 7),
                            scaled(s, 1u << 15, 3)};
    uint64_t seed = 505;
    check_edge_and_sizes(s, sizes, sizeof sizes / sizeof sizes[0], &seed);
    for (pattern p = ALL_EQUAL; p <= FEW_KEYS; ++p)
        check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, p, false, 0, sizes[2], ++seed});
    for (int order = 0; order <= 1; ++order) {
        check_sort(s, (input){BITONIC_KEY_F32, (bitonic_order)order, RANDOM, false, 0, sizes[1], ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, FEW_KEYS, true, 0, sizes[3], ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, RANDOM, true, 0, sizes[2], ++seed});
    }
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 16, 9), ++seed});
}

/* Windows of two tiles (partition_levels 1): from 4 windows, 2^15 keys, up;
 * the threshold itself (partition_min_keys 2^15) at its edge; below it. */
static void run_levels_1(suite *s)
{
    const size_t sizes[] = {scaled(s, 1u << 15, 0), scaled(s, 1u << 15, 1), scaled(s, 3u << 14, 7),
                            scaled(s, 1u << 16, 3)};
    uint64_t seed = 101;
    check_edge_and_sizes(s, sizes, sizeof sizes / sizeof sizes[0], &seed);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 14, 0), ++seed},
               false);
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, sizes[3], ++seed});
    for (pattern p = ALL_EQUAL; p <= FEW_KEYS; ++p)
        for (int order = 0; order <= 1; ++order)
            check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, p, false, 0, sizes[1], ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 14, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, sizes[0] - 1u, ++seed});
    for (int order = 0; order <= 1; ++order) {
        check_sort(s, (input){BITONIC_KEY_F32, (bitonic_order)order, RANDOM, false, 0, sizes[2], ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, FEW_KEYS, true, 0, sizes[1], ++seed});
    }
    /* 32 windows: more buckets. */
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 18, 17), ++seed});
}

/* Windows of four tiles (partition_levels 2) from 2^16 keys; f32, pairs and
 * u64 keys; the same inputs through the plain context. */
static void run_levels_2(suite *s)
{
    size_t at_16 = scaled(s, 1u << 16, 0), at_17 = scaled(s, 1u << 17, 5);
    uint64_t seed = 202;
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16, ++seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16 - 1u, ++seed}, false);
    check_path(s, (input){BITONIC_KEY_F32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16 + 3u, ++seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, FEW_KEYS, true, 0, at_16 + 3u, ++seed}, true);
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16, ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_17, ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, at_17, ++seed});
    for (pattern p = ALL_EQUAL; p <= REVERSE; ++p)
        check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, p, false, 0, at_16 + 1u, ++seed});
    for (int order = 0; order <= 1; ++order) {
        check_sort(s, (input){BITONIC_KEY_F32, (bitonic_order)order, RANDOM, false, 0, at_16 + 3u, ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, FEW_KEYS, true, 0, at_16 + 3u, ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, THREE_DISTINCT, true, 5, at_16 + 3u, ++seed});
        check_sort(s, (input){BITONIC_KEY_U32, (bitonic_order)order, RANDOM, true, 0, at_16, ++seed});
        check_sort(s, (input){BITONIC_KEY_F32, (bitonic_order)order, RANDOM, true, 5, at_16 + 3u, ++seed});
    }
    if (s->keys64) {
        check_path(s, (input){BITONIC_KEY_U64, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16 + 1u, ++seed}, true);
        for (int order = 0; order <= 1; ++order) {
            check_sort(s, (input){BITONIC_KEY_U64, (bitonic_order)order, RANDOM, false, 0, at_16 + 1u, ++seed});
            check_sort(s, (input){BITONIC_KEY_U64, (bitonic_order)order, RANDOM, true, 5, at_16 + 1u, ++seed});
        }
    } else {
        printf("%s: u64 keys not checked (the device has no 64-bit keys)\n", s->label);
    }
    check_same_as_plain(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, at_16 + 3u, ++seed});
    check_same_as_plain(s, (input){BITONIC_KEY_F32, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, at_17, ++seed});
}

/* One sample a bucket: buckets past a window, so the fallback runs from the
 * scratch's indirect arguments and selects the keys of the chunks they touch:
 * 32- and 64-bit keys, both orders, values, and repeated keys, whose ties the
 * selection shares out among the runs. */
static void run_fallback(suite *s)
{
    uint64_t seed = 303;
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 16, 0), ++seed},
               true);
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 16, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 17, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, scaled(s, 1u << 17, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, true, 0, scaled(s, 1u << 17, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_F32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 16, 3), ++seed});
    check_sort(s, (input){BITONIC_KEY_F32, BITONIC_ORDER_DESCENDING, RANDOM, true, 0, scaled(s, 1u << 16, 5), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, REPEATS, false, 0, scaled(s, 1u << 17, 0), ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, REPEATS, true, 3, scaled(s, 1u << 17, 1), ++seed});
    if (s->keys64) {
        check_sort(s, (input){BITONIC_KEY_U64, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(s, 1u << 17, 0), ++seed});
        check_sort(s, (input){BITONIC_KEY_U64, BITONIC_ORDER_DESCENDING, RANDOM, true, 5, scaled(s, 1u << 16, 1), ++seed});
    }
}

/* A profiled sort names its passes and their bytes (bitonic_timing's
 * pass_details): the nested partition's steps in order, the scatters and the
 * tile sort moving every key twice (read and written), the count reading each
 * once, and a name for every pass timed. */
static void check_pass_details(test_counter *t, bitonic_context *context, size_t n)
{
    enum { CAPACITY = 64 };
    uint32_t *keys = malloc(n * sizeof *keys);
    bitonic_buffer *buffer = NULL;
    double pass_ms[CAPACITY];
    bitonic_pass_detail details[CAPACITY] = {{0}};
    bitonic_timing timing = {.pass_ms = pass_ms, .pass_capacity = CAPACITY, .pass_details = details};
    uint64_t seed = 99;
    for (size_t i = 0; keys && i < n; ++i)
        keys[i] = (uint32_t)(test_random_u64(&seed) >> 32);
    bool ok = keys && bitonic_buffer_create(context, n, &buffer) == BITONIC_SUCCESS &&
              bitonic_buffer_upload(buffer, keys, n) == BITONIC_SUCCESS &&
              bitonic_buffer_sort(buffer, n, NULL, &timing) == BITONIC_SUCCESS;
    static const char *steps[] = {"count", "scatter", "nested count", "nested scatter", "tile sort", "window merge",
                                  "fallback"};
    size_t found = 0;
    bool named = ok && timing.pass_count > 0 && timing.pass_count <= CAPACITY, bytes_right = named;
    for (uint32_t p = 0; named && p < timing.pass_count; ++p) {
        named = details[p].name != NULL;
        if (!named)
            break;
        if (found < sizeof steps / sizeof steps[0] && strcmp(details[p].name, steps[found]) == 0)
            ++found;
        uint64_t moved = strcmp(details[p].name, "count") == 0 || strcmp(details[p].name, "nested count") == 0
                             ? n * 4u
                         : strcmp(details[p].name, "scatter") == 0 || strcmp(details[p].name, "tile sort") == 0 ||
                                 strcmp(details[p].name, "nested scatter") == 0 ||
                                 strcmp(details[p].name, "window merge") == 0
                             ? 2u * n * 4u
                             : details[p].bytes;
        bytes_right = bytes_right && details[p].bytes == moved;
    }
    TEST_CHECK(t, named && found == sizeof steps / sizeof steps[0] && bytes_right,
               "nested partition: %u passes named in order (%zu of the steps found), their bytes as moved",
               timing.pass_count, found);
    bitonic_buffer_destroy(buffer);
    free(keys);
}

/* The nested partition is taken where asked: a sort of 2^17 keys (scaled)
 * records other dispatches than with the nested partition off, the three
 * nested steps in the place of two merge levels, and both sort exactly. */
static void check_nested_taken(test_counter *t, const suite *plain, tuned_desc nested_desc)
{
    tuned_desc flat_desc = nested_desc;
    flat_desc.tuning.partition_nested_min_levels = UINT32_MAX;
    nested_desc.tuning.partition_min_keys = flat_desc.tuning.partition_min_keys = 1;
    suite nested = {.t = t, .label = "nested partition, path"}, flat = {.t = t, .label = "the same, not nested"};
    if (!open_suite(&nested, &nested_desc))
        return;
    if (open_suite(&flat, &flat_desc)) {
        input in = {BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, scaled(plain, 1u << 17, 0), 77};
        uint32_t nested_passes = 0, flat_passes = 0;
        bool exact = buffer_sort_matches(nested.context, &in, &nested_passes) &&
                     buffer_sort_matches(flat.context, &in, &flat_passes);
        TEST_CHECK(t, exact && nested_passes != flat_passes && nested_passes > 0 && flat_passes > 0,
                   "nested partition: %zu keys exact, %u dispatches nested, %u not", in.count, nested_passes,
                   flat_passes);
        check_pass_details(t, nested.context, in.count);
        close_suite(&flat);
    }
    close_suite(&nested);
}

/* A nested partition whose windows grow past its nested tile and stay below
 * the whole tile: windows of four tiles, one bucket a window, a nested tile of
 * a quarter tile and a scatter tile of 256 keys (so few nested buckets that
 * the windows must be twice the nested tile). The nested tile's pipeline sorts
 * runs of that tile alone, so such a plan takes the whole tile's; with the
 * nested tile's it left the second half of each window unsorted (2^27 pairs on
 * the H200, a crash on lavapipe). u32, pairs and u64, 2^19 keys (scaled). */
static void check_window_past_nested_tile(test_counter *t, const suite *plain, tuned_desc desc)
{
    desc.tuning.partition_min_keys = 1;
    desc.tuning.partition_levels = 4;
    desc.tuning.partition_nested_min_levels = 1;
    desc.tuning.partition_nested_tile_keys = plain->tile_keys / 4u;
    desc.tuning.partition_buckets_per_window = 1;
    desc.tuning.partition_scatter_tile_keys = 256;
    suite s = {.t = t, .plain = plain->context, .label = "nested partition, windows past the nested tile",
               .keys64 = plain->keys64};
    if (!open_suite(&s, &desc))
        return;
    size_t n = scaled(&s, (size_t)1 << 19, 0);
    check_sort(&s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, n, 1181});
    check_sort(&s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, RANDOM, true, 0, n + 3, 1182});
    if (s.keys64)
        check_sort(&s, (input){BITONIC_KEY_U64, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, n, 1183});
    close_suite(&s);
}

/* Whether a profiled sort of n pairs (or keys) of few distinct keys, in
 * random order, recorded the samples' sort as a pass of its own. */
static bool sorted_samples_whole(bitonic_context *context, size_t n, bool with_values, bool *exact)
{
    enum { CAPACITY = 64 };
    uint32_t *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    bitonic_buffer *buffer = NULL;
    double pass_ms[CAPACITY];
    bitonic_pass_detail details[CAPACITY] = {{0}};
    bitonic_timing timing = {.pass_ms = pass_ms, .pass_capacity = CAPACITY, .pass_details = details};
    uint64_t seed = 4242;
    for (size_t i = 0; keys && values && i < n; ++i) {
        keys[i] = (uint32_t)(test_random_u64(&seed) % 256u);
        values[i] = (uint32_t)i;
    }
    bool ok = keys && values && bitonic_buffer_create(context, n, &buffer) == BITONIC_SUCCESS &&
              bitonic_buffer_upload(buffer, keys, n) == BITONIC_SUCCESS &&
              (!with_values || bitonic_buffer_upload_values(buffer, values, n) == BITONIC_SUCCESS) &&
              (with_values ? bitonic_buffer_sort_pairs(buffer, n, NULL, &timing)
                           : bitonic_buffer_sort(buffer, n, NULL, &timing)) == BITONIC_SUCCESS &&
              bitonic_buffer_download(buffer, keys, n) == BITONIC_SUCCESS &&
              (!with_values || bitonic_buffer_download_values(buffer, values, n) == BITONIC_SUCCESS);
    for (size_t i = 1; ok && i < n; ++i)
        ok = keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && (!with_values || values[i - 1] < values[i]));
    *exact = ok;
    bool whole = false;
    for (uint32_t p = 0; ok && p < timing.pass_count && p < CAPACITY; ++p)
        whole = whole || (details[p].name && strcmp(details[p].name, "samples' sort") == 0);
    bitonic_buffer_destroy(buffer);
    free(keys);
    free(values);
    return whole;
}

/* Pairs take the splitters from their samples sorted whole, keys alone from
 * the means of sorted runs (sorter/partition.c): where keys repeat, the runs'
 * means name values of no pair of their key, every key's pairs stay in one
 * bucket, and long buckets go to the fallback (2^20 pairs of 256 keys took 3x
 * as long on lavapipe). 256 keys over 16 tiles (scaled), both exact. */
static void check_pairs_sample_whole(test_counter *t, const suite *plain, tuned_desc desc)
{
    desc.tuning.partition_min_keys = 1;
    suite s = {.t = t, .label = "partition, samples of pairs"};
    if (!open_suite(&s, &desc))
        return;
    size_t n = scaled(plain, (size_t)1 << 16, 0);
    bool pairs_exact = false, keys_exact = false;
    bool pairs_whole = sorted_samples_whole(s.context, n, true, &pairs_exact);
    bool keys_whole = sorted_samples_whole(s.context, n, false, &keys_exact);
    TEST_CHECK(t, pairs_exact && keys_exact && pairs_whole && !keys_whole,
               "partition of %zu pairs and keys of 256 distinct keys: pairs %s, samples sorted whole %s; keys %s, "
               "samples sorted whole %s", n, pairs_exact ? "exact" : "WRONG", pairs_whole ? "yes" : "no",
               keys_exact ? "exact" : "WRONG", keys_whole ? "yes" : "no");
    close_suite(&s);
}

/* Whether the context sorts 64-bit keys (shaderInt64): one tiny sort tells;
 * only BITONIC_ERROR_UNSUPPORTED lets the u64 checks be skipped. */
static bool sorts_64bit_keys(test_counter *t, bitonic_context *context)
{
    uint64_t keys[2] = {2, 1};
    bitonic_sort_options options = {.key_type = BITONIC_KEY_U64};
    bitonic_status status = bitonic_sort(context, keys, 2, &options);
    if (status == BITONIC_ERROR_UNSUPPORTED)
        return false;
    TEST_CHECK(t, status == BITONIC_SUCCESS && keys[0] == 1 && keys[1] == 2, "two u64 keys (%s)",
               bitonic_status_string(status));
    return true;
}

/* Opens a partition context (desc's partition fields) beside the plain one
 * and runs its checks. Its threshold is the least count its windows partition
 * (4 windows), written for a 4096-key tile and scaled with the plain
 * context's tile: the partition fields do not change the tile. */
static void run_partition_suite(const suite *plain, tuned_desc desc, const char *label,
                                size_t min_keys_at_4096, void (*run)(suite *))
{
    suite s = {.t = plain->t, .plain = plain->context, .label = label, .tile_keys = plain->tile_keys,
               .keys64 = plain->keys64};
    suite forced = {.t = plain->t, .label = "the same, partitioned from one key on"};
    tuned_desc forced_desc = desc;
    forced_desc.tuning.partition_min_keys = 1;
    desc.tuning.partition_min_keys = (uint32_t)scaled(&s, min_keys_at_4096, 0);
    if (open_suite(&forced, &forced_desc)) {
        s.forced = forced.context;
        if (open_suite(&s, &desc)) {
            run(&s);
            close_suite(&s);
        }
        close_suite(&forced);
    }
}

/* A way of the partition sort that a desc field picks (pairs apart, staged
 * stores), checked on the merge levels and on the fallback alike: "levels 2",
 * then the fallback forced by one sample a bucket. */
static void run_levels_2_and_fallback(const suite *plain, tuned_desc desc, const char *way)
{
    char label[96];
    desc.tuning.partition_levels = 2;
    snprintf(label, sizeof label, "partition, levels 2, %s", way);
    run_partition_suite(plain, desc, label, 1u << 16, run_levels_2);
    desc.tuning.partition_levels = 0;
    desc.tuning.partition_samples_per_bucket = 1;
    snprintf(label, sizeof label, "partition, 1 sample a bucket, %s", way);
    run_partition_suite(plain, desc, label, 1u << 16, run_fallback);
}

/* The default thresholds (1.5 x 2^18 keys of 4 and 8 bytes; tuning.c,
 * PARTITION_MIN_KEYS_*), only where
 * BITONIC_TEST_MAX_LOG asks for sizes that large (the GPU runs; lavapipe
 * would take minutes): s->context is a default context, s->plain one that
 * never partitions. */
static void run_default_threshold(suite *s)
{
    size_t threshold = (size_t)3 << 17;
    size_t n = ((size_t)1 << 20) + 5, n_wide = threshold + 5;
    uint64_t seed = 2323;
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, n, ++seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, threshold, ++seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, threshold - 1, ++seed}, false);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, ((size_t)1 << 22) + 3, ++seed},
               true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, true, 0, n_wide, ++seed}, true);
    check_path(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, true, 0, threshold - 1, ++seed}, false);
    if (s->keys64)
        check_path(s, (input){BITONIC_KEY_U64, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, n_wide, ++seed}, true);
    for (int p = RANDOM; p <= FEW_KEYS; ++p)
        check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, (pattern)p, false, 0, n, ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_DESCENDING, REVERSE, false, 0, n, ++seed});
    check_sort(s, (input){BITONIC_KEY_F32, BITONIC_ORDER_DESCENDING, RANDOM, false, 0, n, ++seed});
    check_sort(s, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, FEW_KEYS, true, 0, n, ++seed});
    if (s->keys64)
        check_sort(s, (input){BITONIC_KEY_U64, BITONIC_ORDER_ASCENDING, RANDOM, false, 0, n, ++seed});
}

int main(void)
{
    test_counter t = {0};
    unsigned printed = 0;
    /* Only the Vulkan merge of one array with scratch partitions, and only
     * the large shapes: no small shapes (they take 32-bit keys up to 2^18). */
    tuned_desc base = {.desc = {.device = test_device_selector(), .validation = test_validation(),
                                .on_validation_message = test_print_validation_message,
                                .message_user_data = &printed},
                       .tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .small_sort_max_keys = UINT32_MAX}};
    suite plain = {.t = &t, .label = "plain (partition_min_keys 0)"};
    if (!open_suite(&plain, &base))
        return test_finish(&t);
    plain.keys64 = sorts_64bit_keys(&t, plain.context);

    tuned_desc desc = base;
    /* The nested partition (partition_nested_min_levels 1): the first
     * partition's windows of four tiles would take two merge levels, so each
     * of its open buckets of more than a tile is partitioned again, and the
     * window merge runs on the tile sort's runs (pairs as two arrays). Then
     * one sample a bucket at both levels:
     * buckets too long for the window merge, whose segments the fallback
     * remakes; and the same with the fallback selecting in batches of runs,
     * as it does where a segment spans more runs than its shared words hold. */
    tuned_desc nested = base;
    nested.tuning.partition_levels = 2;
    nested.tuning.partition_nested_min_levels = 1;
    check_nested_taken(&t, &plain, nested);
    check_window_past_nested_tile(&t, &plain, base);
    check_pairs_sample_whole(&t, &plain, base);
    run_partition_suite(&plain, nested, "nested partition", 1u << 16, run_levels_2);
    /* Its windows on the whole sort's tile, as before they took the nested
     * tile (partition_nested_tile_log, shorter where the device allows). */
    tuned_desc nested_whole_tile = nested;
    nested_whole_tile.tuning.partition_nested_tile_keys = plain.tile_keys;
    run_partition_suite(&plain, nested_whole_tile, "nested partition, windows of the tile", 1u << 16, run_levels_2);
    nested.tuning.partition_samples_per_bucket = 1;
    run_partition_suite(&plain, nested, "nested partition, 1 sample a bucket", 1u << 16, run_fallback);
    nested.tuning.partition_fallback_in_batches = true;
    run_partition_suite(&plain, nested, "nested partition, 1 sample a bucket, fallback in batches", 1u << 16,
                        run_fallback);
    desc.tuning.partition_fallback_in_batches = true;
    desc.tuning.partition_samples_per_bucket = 1;
    run_partition_suite(&plain, desc, "partition, 1 sample a bucket, fallback in batches", 1u << 16, run_fallback);
    desc.tuning.partition_fallback_in_batches = false;
    desc.tuning.partition_samples_per_bucket = 0;

    desc.tuning.partition_levels = UINT32_MAX;
    run_partition_suite(&plain, desc, "partition, no merge levels", 1u << 14, run_levels_0);
    desc.tuning.partition_levels = 1;
    run_partition_suite(&plain, desc, "partition, levels 1", 1u << 15, run_levels_1);
    desc.tuning.partition_levels = 2;
    run_partition_suite(&plain, desc, "partition, levels 2", 1u << 16, run_levels_2);
    /* Pairs as two arrays through every pass, as before they went packed
     * (one 64-bit key a pair between the scatter and the window merge, where
     * the device sorts 64-bit keys). */
    tuned_desc apart = desc;
    apart.tuning.partition_split_pairs = true;
    run_levels_2_and_fallback(&plain, apart, "pairs apart");
    /* The window merge of 32-bit keys storing through shared memory, as it
     * did before it stored from registers (and as it still does for the other
     * types). */
    tuned_desc staged = desc;
    staged.tuning.partition_window_staged_stores = true;
    run_levels_2_and_fallback(&plain, staged, "window merge staged");
    /* Buckets of a window on average (the default from 2^22 keys on the
     * H100, where the splitters run out): some span three runs, and the
     * window merge merges their pieces as three. */
    desc.tuning.partition_buckets_per_window = 1;
    desc.tuning.partition_levels = UINT32_MAX;
    run_partition_suite(&plain, desc, "partition, no merge levels, buckets of a window", 1u << 14, run_levels_0);
    desc.tuning.partition_levels = 1;
    run_partition_suite(&plain, desc, "partition, levels 1, buckets of a window", 1u << 15, run_levels_1);
    /* The same with three pieces' cursors by a thread's selection (the
     * default from 2^24 keys on the H100), not the workgroup's search. */
    desc.tuning.partition_split_by_thread_min_keys = 1;
    desc.tuning.partition_levels = UINT32_MAX;
    run_partition_suite(&plain, desc, "partition, no merge levels, buckets of a window, split by thread", 1u << 14,
                        run_levels_0);
    desc.tuning.partition_levels = 1;
    run_partition_suite(&plain, desc, "partition, levels 1, buckets of a window, split by thread", 1u << 15,
                        run_levels_1);
    desc.tuning.partition_split_by_thread_min_keys = 0;
    desc.tuning.partition_buckets_per_window = 0;
    /* The other build of the steps (scans in shared memory, where the device
     * has subgroup arithmetic) with 3 scatter workgroups: each takes several
     * tiles in turn, the last ones fewer. */
    desc.tuning.no_subgroup_arithmetic = true;
    desc.tuning.partition_scatter_workgroups = 3;
    run_partition_suite(&plain, desc, "partition, scans in shared memory, 3 scatter workgroups", 1u << 16,
                        run_levels_2);
    desc.tuning.no_subgroup_arithmetic = false;
    /* A staged tile of its own size (the overrides'
     * partition_scatter_tile_keys), taken whole or by halves as the rounds of
     * the 3 workgroups decide (sorter/partition.c, scatter_tile_for). */
    desc.tuning.partition_scatter_tile_keys = 1024;
    run_partition_suite(&plain, desc, "partition, 1024-key staged tiles, 3 scatter workgroups", 1u << 16,
                        run_levels_2);
    desc.tuning.partition_scatter_tile_keys = 0;
    desc.tuning.partition_scatter_workgroups = 0;
    /* Workgroups of fewer threads than buckets: each thread sums, claims and
     * notes the window boundaries of several buckets. */
    desc.tuning.partition_levels = UINT32_MAX;
    desc.tuning.partition_workgroup_size = 8;
    run_partition_suite(&plain, desc, "partition, no merge levels, 8 threads a workgroup", 1u << 14, run_levels_0);
    desc.tuning.no_subgroup_arithmetic = true;
    run_partition_suite(&plain, desc, "partition, no merge levels, 8 threads a workgroup, scans in shared memory",
                        1u << 14, run_levels_0);
    desc.tuning.no_subgroup_arithmetic = false;
    desc.tuning.partition_workgroup_size = 0;
    /* More samples than one tile of their sort holds: they are sorted in runs
     * of the tile alone and the splitters are the runs' means (2 and 4 runs
     * from 2^16 keys on a 4096-key tile); and the same sorted whole. */
    desc.tuning.partition_samples_per_bucket = 256;
    run_partition_suite(&plain, desc, "partition, no merge levels, 256 samples a bucket (sorted in runs)", 1u << 14,
                        run_levels_0);
    desc.tuning.partition_whole_samples = true;
    run_partition_suite(&plain, desc, "partition, no merge levels, 256 samples a bucket sorted whole", 1u << 14,
                        run_levels_0);
    desc.tuning.partition_whole_samples = false;
    desc.tuning.partition_levels = 0;  /* the default, 1 */
    desc.tuning.partition_samples_per_bucket = 1;
    run_partition_suite(&plain, desc, "partition, 1 sample a bucket", 1u << 16, run_fallback);

    const char *max_log = getenv("BITONIC_TEST_MAX_LOG");
    if (max_log && atoi(max_log) >= 22) {
        tuned_desc never = base, always = base;
        never.tuning.partition_min_keys = UINT32_MAX;
        always.tuning.partition_min_keys = 1;
        suite large = {.t = &t, .context = plain.context, .label = "default threshold",
                       .tile_keys = plain.tile_keys, .keys64 = plain.keys64};
        suite off = {.t = &t, .label = "never partitions"}, on = {.t = &t, .label = "partitions from one key on"};
        if (open_suite(&off, &never) && open_suite(&on, &always)) {
            large.plain = off.context;
            large.forced = on.context;
            run_default_threshold(&large);
        }
        if (on.context)
            close_suite(&on);
        if (off.context)
            close_suite(&off);
    }

    /* The plain context itself: the same sizes, no partition, exact. */
    uint64_t seed = 404;
    check_sort(&plain, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, RANDOM, false, 0,
                               scaled(&plain, 1u << 16, 3), ++seed});
    check_sort(&plain, (input){BITONIC_KEY_U32, BITONIC_ORDER_ASCENDING, FEW_KEYS, true, 0,
                               scaled(&plain, 1u << 17, 5), ++seed});
    close_suite(&plain);
    TEST_CHECK(&t, printed == 0, "no validation message at all");
    return test_finish(&t);
}
