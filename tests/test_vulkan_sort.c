/* test_vulkan_sort.c: the Vulkan path through the host API, against qsort.
 * Every count from 0 to 300, the neighbours of each power of two up to a limit
 * (BITONIC_TEST_MAX_LOG, default 16: what lavapipe sorts in seconds), random,
 * sorted, reverse, all-equal and few-distinct inputs, both orders; once with the
 * tile the device allows and once with a tiny tile and short global passes, so
 * the global passes run at every size; with the merge (the default), the
 * network alone and the transpose strategy (whose small tiles need two and more
 * views a phase). Validation on; any message fails. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "test_util.h"
#include "vulkan_test_device.h"

/* Built with AddressSanitizer (scripts/test.sh's second stage). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef UNDER_ADDRESS_SANITIZER
#define UNDER_ADDRESS_SANITIZER 0
#endif

typedef enum pattern { RANDOM, SORTED, REVERSE, ALL_EQUAL, FEW_DISTINCT, EXTREMES, PATTERN_COUNT } pattern;
static const char *pattern_names[] = {"random", "sorted", "reverse", "all-equal", "few-distinct", "extremes"};

static void fill(uint32_t *keys, size_t n, pattern p, uint64_t *seed)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t r = (uint32_t)test_random_u64(seed);
        switch (p) {
        case RANDOM: keys[i] = r; break;
        case SORTED: keys[i] = (uint32_t)i * 3u; break;
        case REVERSE: keys[i] = (uint32_t)(n - i) * 5u; break;
        case ALL_EQUAL: keys[i] = 0x12345678u; break;
        case FEW_DISTINCT: keys[i] = r % 4u; break;
        default: keys[i] = (r & 1u) ? UINT32_MAX : (r & 2u) ? 0u : r; break;  /* the pad value is a real key */
        }
    }
}

static int ascending(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int descending(const void *a, const void *b)
{
    return ascending(b, a);
}

typedef struct fixture {
    bitonic_context *context;
    uint32_t *keys, *expected;
    uint64_t seed;
} fixture;

static bool check_sort(fixture *f, size_t n, pattern p, bitonic_order order)
{
    fill(f->keys, n, p, &f->seed);
    memcpy(f->expected, f->keys, n * sizeof(uint32_t));
    qsort(f->expected, n, sizeof(uint32_t), order == BITONIC_ORDER_ASCENDING ? ascending : descending);
    bitonic_sort_options options = {.order = order};
    bitonic_status status = bitonic_sort_u32(f->context, f->keys, n, &options);
    if (status != BITONIC_SUCCESS) {
        printf("sort failed: %s\n", bitonic_status_string(status));
        return false;
    }
    return memcmp(f->keys, f->expected, n * sizeof(uint32_t)) == 0;
}

/* A few sorts of n keys (every pattern, both orders) through a context of
 * their own: for shapes only big counts reach. */
static void run_sizes(test_counter *t, const bitonic_context_desc *desc, const char *label, const size_t *sizes,
                      size_t size_count)
{
    fixture f = {.seed = 4321};
    bitonic_status status = bitonic_context_create(desc, &f.context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    size_t capacity = 0;
    for (size_t i = 0; i < size_count; ++i)
        capacity = sizes[i] > capacity ? sizes[i] : capacity;
    f.keys = malloc(capacity * sizeof(uint32_t));
    f.expected = malloc(capacity * sizeof(uint32_t));
    if (TEST_CHECK(t, f.keys && f.expected, "%s: memory", label))
        for (size_t i = 0; i < size_count; ++i)
            for (int p = 0; p < PATTERN_COUNT; p += 2)
                for (int o = 0; o < 2; ++o)
                    TEST_CHECK(t, check_sort(&f, sizes[i], (pattern)p, (bitonic_order)o), "%s: %zu %s keys, %s",
                               label, sizes[i], pattern_names[p], o ? "descending" : "ascending");
    bitonic_context_info info;
    bitonic_context_get_info(f.context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label,
               info.validation_messages);
    free(f.keys);
    free(f.expected);
    bitonic_context_destroy(f.context);
}

static void run_suite(test_counter *t, const bitonic_context_desc *desc, const char *label, uint32_t max_log)
{
    fixture f = {.seed = 1234};
    bitonic_status status = bitonic_context_create(desc, &f.context);
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context (%s)", label, bitonic_status_string(status)))
        return;
    bitonic_context_info info;
    bitonic_context_get_info(f.context, &info);
    printf("%s: %s, tile %u keys, %u threads x %u keys, %u steps per global pass, %s\n", label, info.device_name,
           info.tile_keys, info.workgroup_size, info.keys_per_thread, info.max_strides_per_global_pass,
           info.tile_uses_subgroup_shuffle ? "shuffles" : "shared memory only");
    size_t capacity = ((size_t)1 << max_log) + 1;
    f.keys = malloc(capacity * sizeof(uint32_t));
    f.expected = malloc(capacity * sizeof(uint32_t));

    for (size_t n = 0; n <= 300; ++n) {
        pattern p = (pattern)(n % PATTERN_COUNT);
        bitonic_order order = (n / PATTERN_COUNT) % 2 ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING;
        TEST_CHECK(t, check_sort(&f, n, RANDOM, order), "%s: %zu random keys", label, n);
        TEST_CHECK(t, check_sort(&f, n, p, order), "%s: %zu %s keys", label, n, pattern_names[p]);
    }
    for (uint32_t log = 9; log <= max_log; ++log)
        for (int delta = -1; delta <= 1; ++delta) {
            size_t n = ((size_t)1 << log) + (size_t)delta;
            for (int p = 0; p < PATTERN_COUNT; ++p)
                for (int o = 0; o < 2; ++o)
                    TEST_CHECK(t, check_sort(&f, n, (pattern)p, (bitonic_order)o), "%s: %zu %s keys, %s", label, n,
                               pattern_names[p], o ? "descending" : "ascending");
        }

    /* Resident buffer: upload once, sort twice (the second sort sees sorted
     * input), download. */
    size_t n = ((size_t)1 << (max_log - 1)) + 77;
    bitonic_buffer *buffer = NULL;
    status = bitonic_buffer_create(f.context, n, &buffer);
    if (TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: buffer (%s)", label, bitonic_status_string(status))) {
        fill(f.keys, n, RANDOM, &f.seed);
        memcpy(f.expected, f.keys, n * sizeof(uint32_t));
        qsort(f.expected, n, sizeof(uint32_t), descending);
        bitonic_timing timing = {0};
        bitonic_sort_options down = {.order = BITONIC_ORDER_DESCENDING};
        bool ok = bitonic_buffer_upload(buffer, f.keys, n) == BITONIC_SUCCESS &&
                  bitonic_buffer_sort(buffer, n, NULL, NULL) == BITONIC_SUCCESS &&
                  bitonic_buffer_sort(buffer, n, &down, &timing) == BITONIC_SUCCESS &&
                  bitonic_buffer_download(buffer, f.keys, n) == BITONIC_SUCCESS;
        TEST_CHECK(t, ok && memcmp(f.keys, f.expected, n * sizeof(uint32_t)) == 0,
                   "%s: resident buffer sorted twice", label);
        TEST_CHECK(t, timing.pass_count > 0 && timing.sort_ms >= 0.0, "%s: timing reported", label);
        if (desc->strategy == BITONIC_STRATEGY_TRANSPOSE) {
            /* The transpose schedule ran, not a fallback to the network: per phase
             * above the tile, 3 passes for each view of up to tile_log strides, and
             * a tile pass. */
            uint32_t tile_log = 0, virtual_log = 0;
            while ((1u << tile_log) < info.tile_keys)
                ++tile_log;
            while (((size_t)1 << virtual_log) < n)
                ++virtual_log;
            uint32_t expected = 1;
            for (uint32_t phase = tile_log + 1; phase <= virtual_log; ++phase)
                expected += 3u * ((phase - 1u) / tile_log) + 1u;
            TEST_CHECK(t, timing.pass_count == expected, "%s: %u transpose-strategy passes for %zu keys (expected %u)",
                       label, timing.pass_count, n, expected);
        }
        TEST_CHECK(t, bitonic_buffer_sort(buffer, n + 1, NULL, NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
                   "%s: a count above capacity is refused", label);
        /* Profiling follows the sort actually recorded: rows of 8 keys fit one tile pass. */
        double pass_ms[64];
        bitonic_timing rows_timing = {.pass_ms = pass_ms, .pass_capacity = 64};
        size_t rows = n / 8;
        fill(f.keys, rows * 8, RANDOM, &f.seed);
        bool rows_ok = bitonic_buffer_upload(buffer, f.keys, rows * 8) == BITONIC_SUCCESS &&
                       bitonic_buffer_sort_rows(buffer, rows, 8, NULL, &rows_timing) == BITONIC_SUCCESS &&
                       bitonic_buffer_download(buffer, f.keys, rows * 8) == BITONIC_SUCCESS;
        for (size_t i = 1; i < rows * 8 && rows_ok; ++i)
            rows_ok = i % 8 == 0 || f.keys[i - 1] <= f.keys[i];
        TEST_CHECK(t, rows_ok && rows_timing.pass_count == 1, "%s: resident rows, profiled as %u pass(es)", label,
                   rows_timing.pass_count);
        bitonic_buffer_destroy(buffer);
    }
    bitonic_context_get_info(f.context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %" PRIu64 " validation messages", label,
               info.validation_messages);
    free(f.keys);
    free(f.expected);
    bitonic_context_destroy(f.context);
}

/* The tile the context's sorter took after a sort of 1000 random keys, 0 when
 * the context or the sort failed. changed_after_create, when given, is set to
 * a 64-key tile once the context is made (and before its device is). */
static uint32_t tile_after_sort(test_counter *t, const bitonic_context_desc *desc,
                                bitonic_tuning_overrides *changed_after_create, const char *label)
{
    bitonic_context *context = NULL;
    if (!TEST_CHECK(t, bitonic_context_create(desc, &context) == BITONIC_SUCCESS, "%s: context", label))
        return 0;
    if (changed_after_create)
        changed_after_create->tile_keys = 64;
    uint32_t keys[1000];
    uint64_t seed = 7;
    fill(keys, 1000, RANDOM, &seed);
    bool sorted = bitonic_sort_u32(context, keys, 1000, NULL) == BITONIC_SUCCESS;
    for (size_t i = 1; i < 1000 && sorted; ++i)
        sorted = keys[i - 1] <= keys[i];
    TEST_CHECK(t, sorted, "%s: 1000 keys sorted", label);
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    bitonic_context_destroy(context);
    return sorted ? info.tile_keys : 0;
}

/* The description's chain: an entry of a type the library does not know is
 * skipped, and tuning overrides after it reach the sorter the context makes;
 * the chain need not outlive the create call. */
static void check_chain(test_counter *t, const bitonic_context_desc *base)
{
    bitonic_context_desc desc = *base;
    bitonic_chain_entry unknown = {.type = 0x7fff0001u, .next = NULL};
    desc.next = &unknown;
    uint32_t derived = tile_after_sort(t, &desc, NULL, "an unknown chain entry alone");
    TEST_CHECK(t, derived > 32, "an unknown chain entry alone: the derived tile (%u keys)", derived);
    bitonic_tuning_overrides small_tile = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .tile_keys = 32};
    unknown.next = &small_tile;
    uint32_t overridden = tile_after_sort(t, &desc, &small_tile, "overrides after an unknown chain entry");
    TEST_CHECK(t, overridden == 32, "overrides after an unknown chain entry: a 32-key tile (%u)", overridden);
}

int main(void)
{
    test_counter t = {0};
    unsigned printed = 0;
    uint32_t max_log = 16;
    const char *env = getenv("BITONIC_TEST_MAX_LOG");
    if (env && atoi(env) >= 10 && atoi(env) <= 30)
        max_log = (uint32_t)atoi(env);

    /* The suites below change the tuning through the overrides in desc's chain. */
    bitonic_tuning_overrides tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES};
    bitonic_context_desc desc = {.next = &tuning, .device = test_device_selector(), .validation = test_validation(),
                                 .on_validation_message = test_print_validation_message,
                                 .message_user_data = &printed};
    /* One context held for the whole run keeps the driver loaded. Every suite
     * makes and destroys a context of its own, and on NVIDIA's Linux driver each
     * destroy unloads libnvidia-tls, whose static TLS glibc does not take back:
     * a context late in this program failed with "cannot allocate memory in
     * static TLS block" on the H100 (2026-11-25). */
    bitonic_context *driver_holder = NULL;
    TEST_CHECK(&t, bitonic_context_create(&desc, &driver_holder) == BITONIC_SUCCESS, "context held for the run");
    run_suite(&t, &desc, "device tile", max_log);
    check_chain(&t, &desc);
    /* Small sorts' shapes asked for: 8192-key tiles (clamped to what the
     * device holds) for every size here, then none at all. */
    tuning.small_sort_tile_keys = 8192;
    tuning.small_sort_max_keys = 1u << 30;
    run_suite(&t, &desc, "small shapes of 8192-key tiles, every size", max_log < 16 ? max_log : 16);
    tuning.small_sort_tile_keys = 0;
    tuning.small_sort_max_keys = UINT32_MAX;
    run_suite(&t, &desc, "no small shapes", max_log < 15 ? max_log : 15);
    tuning.small_sort_max_keys = 0;
    tuning.tile_keys = 32;
    tuning.max_strides_per_global_pass = 2;
    tuning.merge_chunk_keys = 16;  /* two-thread merge workgroups of 32-bit keys, the fewest */
    run_suite(&t, &desc, "32-key tile, 16-key merge chunks", max_log < 11 ? max_log : 11);
    tuning.tile_keys = 256;
    tuning.max_strides_per_global_pass = 4;
    tuning.merge_chunk_keys = 64;
    run_suite(&t, &desc, "256-key tile, 64-key merge chunks", max_log < 14 ? max_log : 14);
    /* The same shapes with the other merge kernels: without shared memory, and
     * both with a split pass before every merge. */
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_DIRECT;
    run_suite(&t, &desc, "256-key tile, 64-key merge chunks, direct merge", max_log < 14 ? max_log : 14);
    tuning.merge_split_pass_min_chunks = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, direct merge, split passes", max_log < 14 ? max_log : 14);
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, shared merge, split passes", max_log < 14 ? max_log : 14);
    /* Split passes whose threads test 3 and 7 keys a round (k + 1-ary search);
     * 9 asked for is clamped to 7. */
    tuning.merge_split_probes = 3;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, split passes of 3 probes", max_log < 14 ? max_log : 14);
    tuning.merge_split_probes = 9;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, split passes of 9 (7) probes", max_log < 14 ? max_log : 14);
    tuning.merge_split_probes = 0;
    /* Split-pass workgroups of 3 threads (not a power of two: a ragged last
     * workgroup) and of 4096 (clamped to the device's limit). */
    tuning.merge_split_workgroup_size = 3;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, split workgroups of 3", max_log < 14 ? max_log : 14);
    tuning.merge_split_workgroup_size = 4096;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, split workgroups of 4096", max_log < 13 ? max_log : 13);
    tuning.merge_split_workgroup_size = 0;
    /* Split searches that guess from the keys' values at every size (the
     * tuning guesses only in merges of many chunks), and plain ones. */
    tuning.merge_split_guided_min_chunks = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, guided split searches", max_log < 14 ? max_log : 14);
    tuning.merge_split_probes = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, guided split searches, binary", max_log < 13 ? max_log : 13);
    tuning.merge_split_probes = 0;
    tuning.merge_split_guided_min_chunks = UINT32_MAX;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, plain split searches", max_log < 14 ? max_log : 14);
    tuning.merge_split_guided_min_chunks = 0;
    /* The split passes above narrow their searches on the run samples the
     * merges leave (32-bit keys alone); here without them, and with 32-key
     * chunks and tile, where a chunk and a tile are one sample's group. */
    tuning.merge_split_no_samples = true;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, split passes without run samples", max_log < 14 ? max_log : 14);
    tuning.merge_split_no_samples = false;
    tuning.tile_keys = 32;
    tuning.merge_chunk_keys = 32;
    run_suite(&t, &desc, "32-key tile, 32-key chunks, split passes on run samples", max_log < 12 ? max_log : 12);
    tuning.merge_split_guided_min_chunks = 1;
    run_suite(&t, &desc, "32-key tile, 32-key chunks, guided split passes on run samples", max_log < 12 ? max_log : 12);
    tuning.merge_split_guided_min_chunks = 0;
    /* Merges with no split pass that search their own splits on the run
     * samples the merge before left (from 1 chunk; the first merge searches
     * the keys), plain and guided, with 32-key chunks (one sample's group) and
     * 64-key ones; then from 64 chunks, so that small sorts search the keys. */
    tuning.merge_split_pass_min_chunks = 1u << 30;
    tuning.merge_fused_split_min_chunks = 1;
    run_suite(&t, &desc, "32-key tile, 32-key chunks, fused split searches", max_log < 12 ? max_log : 12);
    tuning.tile_keys = 256;
    tuning.merge_chunk_keys = 64;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, fused split searches", max_log < 14 ? max_log : 14);
    tuning.merge_split_guided_min_chunks = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, guided fused split searches", max_log < 14 ? max_log : 14);
    tuning.merge_split_guided_min_chunks = 0;
    /* Those searches by binary rounds, and by 7 probes a round (9 is clamped to 7). */
    tuning.merge_fused_split_probes = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, binary fused split searches", max_log < 13 ? max_log : 13);
    tuning.merge_fused_split_probes = 9;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, fused split searches of 9 (7) probes", max_log < 13 ? max_log : 13);
    tuning.merge_fused_split_probes = 0;
    tuning.merge_fused_split_min_chunks = 64;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, fused split searches from 64 chunks", max_log < 14 ? max_log : 14);
    /* Those searches a subgroup a split (where ballots exist; 32-bit keys
     * take one thread a split by default): plain, guided (a subgroup's search
     * is plain), in workgroups of one subgroup (it searches both splits) and
     * of fewer threads than a subgroup (the lanes a ballot counts). */
    tuning.merge_fused_split_min_chunks = 1;
    tuning.merge_fused_split_searcher = BITONIC_SPLIT_SEARCHER_SUBGROUP;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, fused split searches by subgroups", max_log < 14 ? max_log : 14);
    tuning.merge_split_guided_min_chunks = 1;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, guided fused split searches by subgroups",
              max_log < 13 ? max_log : 13);
    tuning.merge_split_guided_min_chunks = 0;
    run_suite(&t, &desc, "256-key tile, 64-key chunks of 8 threads, fused split searches by subgroups",
              max_log < 13 ? max_log : 13);
    tuning.merge_chunk_keys = 32;  /* 4 threads */
    run_suite(&t, &desc, "256-key tile, 32-key chunks of 4 threads, fused split searches by subgroups",
              max_log < 13 ? max_log : 13);
    tuning.merge_chunk_keys = 64;
    tuning.merge_fused_split_searcher = BITONIC_SPLIT_SEARCHER_DEFAULT;
    tuning.merge_split_pass_min_chunks = 1;
    tuning.merge_fused_split_min_chunks = 0;
    /* Merges that store each thread's keys straight from its registers, not
     * through shared memory once more. */
    tuning.merge_store_from_registers = true;
    run_suite(&t, &desc, "256-key tile, 64-key chunks, merges stored from registers", max_log < 14 ? max_log : 14);
    tuning.merge_store_from_registers = false;
    tuning.tile_keys = 256;
    tuning.merge_chunk_keys = 64;
    tuning.merge_split_pass_min_chunks = 0;
    tuning.max_strides_per_global_pass = 0;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_DEFAULT;
    tuning.tile_keys = 256;
    tuning.max_strides_per_global_pass = 4;
    tuning.merge_chunk_keys = 64;
    tuning.merge_split_pass_min_chunks = 1;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    /* Merges of more than 16384 chunks search their splits binary (tuning.c):
     * 16-key chunks (the least 32-bit keys take: two threads of 8) and 262145
     * keys and up take that
     * pipeline, with both merge kernels. Not under AddressSanitizer: lavapipe
     * running dispatches of 16385 workgroups grew the process past 24 GB there
     * (107 MB without it, and 0.7 GB with ASAN_OPTIONS=quarantine_size_mb=0), so
     * the freed memory ASan holds back is the driver's, not ours. */
    if (UNDER_ADDRESS_SANITIZER) {
        printf("binary split pipeline: not run under AddressSanitizer (see the comment)\n");
    } else {
        static const size_t big_merges[] = {262145, 280001};
        bitonic_tuning_overrides big_tuning = tuning;
        bitonic_context_desc big = desc;
        big.next = &big_tuning;
        big_tuning.tile_keys = 32;
        big_tuning.max_strides_per_global_pass = 2;
        big_tuning.merge_chunk_keys = 16;
        run_sizes(&t, &big, "16-key chunks, split passes, binary splits", big_merges, 2);
        big_tuning.merge_kernel = BITONIC_MERGE_KERNEL_DIRECT;
        run_sizes(&t, &big, "16-key chunks, direct merge, binary splits", big_merges, 2);
    }
    tuning.tile_keys = 32;
    tuning.max_strides_per_global_pass = 2;
    tuning.merge_chunk_keys = 16;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_DIRECT;
    run_suite(&t, &desc, "32-key tile, 16-key chunks, direct merge, split passes", max_log < 11 ? max_log : 11);
    tuning.merge_split_pass_min_chunks = 0;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_SHARED;
    run_suite(&t, &desc, "32-key tile, 16-key merge chunks, shared merge", max_log < 11 ? max_log : 11);
    tuning.merge_scalar_io = true;  /* every suite else moves 32-bit keys four at a time in merges */
    run_suite(&t, &desc, "32-key tile, 16-key merge chunks, scalar loads", max_log < 11 ? max_log : 11);
    tuning.merge_scalar_io = false;
    tuning.merge_kernel = BITONIC_MERGE_KERNEL_DEFAULT;
    tuning.max_strides_per_global_pass = 4;
    tuning.merge_chunk_keys = 0;
    tuning.tile_keys = 0;
    tuning.tile_scalar_io = true;  /* every suite else loads whole tiles 16 bytes a thread into registers */
    run_suite(&t, &desc, "device tile, tile sort one key at a time", max_log < 15 ? max_log : 15);
    tuning.tile_scalar_io = false;
    tuning.tile_keys = 1024;
    tuning.tile_keys_per_thread = 16;
    tuning.max_strides_per_global_pass = 3;
    run_suite(&t, &desc, "1024-key tile, 16 keys a thread", max_log < 15 ? max_log : 15);
    tuning.tile_keys = 0;
    tuning.tile_keys_per_thread = 8;
    tuning.max_strides_per_global_pass = 4;
    run_suite(&t, &desc, "device tile, 8 keys a thread", max_log);
    tuning.tile_keys_per_thread = 0;
    tuning.max_strides_per_global_pass = 0;
    tuning.no_subgroup_shuffle = true;
    run_suite(&t, &desc, "device tile, no shuffles", max_log);
    /* Tiles sorted from scratch by the network instead of the tile merge sort
     * (network_tile_sort): both network tile kernels, small sorts' shapes too. */
    for (int network = 0; network <= 1; ++network) {
        /* What the info says of the tile sort, both ways. */
        bitonic_context *probe = NULL;
        tuning.network_tile_sort = network != 0;
        if (TEST_CHECK(&t, bitonic_context_create(&desc, &probe) == BITONIC_SUCCESS, "info probe context")) {
            bitonic_context_info info;
            bitonic_context_get_info(probe, &info);
            uint32_t kpt = info.tile_sort_keys_per_thread;
            TEST_CHECK(&t, network ? kpt == 0
                                   : kpt >= 2 && kpt <= 32 && info.tile_keys % kpt == 0,
                       "tile_sort_keys_per_thread %u with network_tile_sort %d (tile %u keys)", kpt, network,
                       info.tile_keys);
            bitonic_context_destroy(probe);
        }
    }
    run_suite(&t, &desc, "device tile, no shuffles, network tile sort", max_log);
    tuning.no_subgroup_shuffle = false;
    run_suite(&t, &desc, "device tile, network tile sort", max_log);
    tuning.network_tile_sort = false;
    /* Every suite above merges above the tile (the default); the network alone: */
    tuning.no_subgroup_shuffle = false;
    desc.strategy = BITONIC_STRATEGY_NETWORK;
    run_suite(&t, &desc, "device tile, network strategy", max_log);
    tuning.tile_keys = 256;
    tuning.max_strides_per_global_pass = 2;
    run_suite(&t, &desc, "256-key tile, network strategy", max_log < 14 ? max_log : 14);
    /* The seeds' transpose: on the device tile every phase takes one view; on
     * tiles of 32 and 8 keys the larger phases take two or more. */
    desc.strategy = BITONIC_STRATEGY_TRANSPOSE;
    tuning.tile_keys = 0;
    tuning.max_strides_per_global_pass = 0;
    run_suite(&t, &desc, "device tile, transpose", max_log);
    tuning.tile_keys = 32;
    run_suite(&t, &desc, "32-key tile, transpose", max_log < 12 ? max_log : 12);
    tuning.tile_keys = 8;
    tuning.no_subgroup_shuffle = true;
    run_suite(&t, &desc, "8-key tile, no shuffles, transpose", max_log < 11 ? max_log : 11);
    tuning.tile_keys = 1024;
    tuning.tile_keys_per_thread = 32;
    run_suite(&t, &desc, "1024-key tile, 32 keys a thread, no shuffles, transpose", max_log < 15 ? max_log : 15);
    tuning.tile_keys_per_thread = 0;
    tuning.no_subgroup_shuffle = false;
    tuning.tile_keys = 0;
    bitonic_context *refused = NULL;
    desc.strategy = (bitonic_strategy)7;
    TEST_CHECK(&t, bitonic_context_create(&desc, &refused) == BITONIC_ERROR_INVALID_ARGUMENT && !refused,
               "an unknown strategy is refused");
    TEST_CHECK(&t, printed == 0, "no validation message at all");
    bitonic_context_destroy(driver_holder);
    return test_finish(&t);
}
