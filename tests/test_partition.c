/* test_partition.c: the partition sort planned for the GPU, on the CPU
 * (src/cpu/reference_partition.c). First the proof of its last step: for every
 * input of up to 8 keys of 4 values, every set of splitters, windows of 2, 4
 * and 8 keys and window-merge chunks of 1, 2 and W keys, the sort leaves the
 * keys sorted, and where no open bucket is longer than two windows it did so
 * without the fallback (the aligned runs and the window merge alone, whose
 * chunks' cursors add up), buckets that span three runs included. Then sampled splitters on larger
 * inputs: random keys, few values (equality buckets), one value, sorted,
 * reversed and periodic ones, and a plan that must fall back. Before them,
 * the window split's selection in three pieces against a stable merge, on
 * pieces longer than the proof's. Last the nested partition (a second
 * partition inside each bucket of more than a window) on the same inputs:
 * sorted, without the fallback where one level of splitters needs it, and
 * the plain sort where it may split no bucket. */
#include <stdlib.h>
#include <string.h>

#include "reference_partition.h"
#include "test_util.h"

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* inner for the plain partition sort, not the nested one with no inner
 * splitters (which one test compares with it). */
#define PLAIN_SORT UINT64_MAX

/* The sort of keys by the plan (nested, with at most inner splitters a
 * bucket, unless inner is PLAIN_SORT) equals qsort's; the report through
 * out. */
static bool sort_matches_qsort(const uint64_t *keys, uint64_t n, const bitonic_partition_plan *plan, uint64_t inner,
                               bitonic_partition_report *out)
{
    uint64_t *mine = malloc((n + 1u) * sizeof *mine), *expected = malloc((n + 1u) * sizeof *expected);
    bool ok = mine && expected;
    if (ok) {
        memcpy(mine, keys, n * sizeof *keys);
        memcpy(expected, keys, n * sizeof *keys);
        qsort(expected, n, sizeof *expected, compare_u64);
        ok = (inner == PLAIN_SORT ? bitonic_reference_partition_sort(mine, n, plan, out)
                                  : bitonic_reference_nested_partition_sort(mine, n, plan, inner, out)) &&
             memcmp(mine, expected, n * sizeof *mine) == 0;
    }
    free(mine);
    free(expected);
    return ok;
}

static bool sorts_like_qsort(const uint64_t *keys, uint64_t n, const bitonic_partition_plan *plan,
                             bitonic_partition_report *out)
{
    return sort_matches_qsort(keys, n, plan, PLAIN_SORT, out);
}

static bool nested_sorts_like_qsort(const uint64_t *keys, uint64_t n, const bitonic_partition_plan *plan,
                                    uint64_t inner, bitonic_partition_report *out)
{
    return sort_matches_qsort(keys, n, plan, inner, out);
}

/* Keys of three sorted pieces, first[i] .. end[i] - 1 in keys[], split at
 * every diagonal, against a stable three-way merge taken a key at a time.
 * Returns the counts that differ. */
static uint64_t split_mismatches(const uint64_t *keys, const uint64_t first[3], const uint64_t end[3])
{
    uint64_t failures = 0, at[3] = {first[0], first[1], first[2]};
    for (uint64_t diagonal = 0; diagonal <= end[2] - first[0]; ++diagonal) {
        uint64_t taken[3];
        bitonic_reference_three_piece_split(keys, first[0], first[1], first[2], end[2], diagonal, taken);
        for (int piece = 0; piece < 3; ++piece)
            failures += taken[piece] != at[piece] - first[piece];
        /* The merge's next key: the least head, ties to the earlier piece. */
        int next = -1;
        for (int piece = 0; piece < 3; ++piece)
            if (at[piece] < end[piece] && (next < 0 || keys[at[piece]] < keys[at[next]]))
                next = piece;
        if (next >= 0)
            ++at[next];
    }
    return failures;
}

/* The three-piece split: every three pieces of 1 to 3 keys below 3 (each
 * bound of the selection tight somewhere), then pieces of 1 to 40 keys drawn
 * from 3, 10 or 2^32 values. Returns the counts that differ. */
static uint64_t three_piece_split_failures(uint64_t *seed)
{
    uint64_t failures = 0, keys[120];
    for (uint64_t lengths = 0; lengths < 27; ++lengths) {
        uint64_t first[3], end[3], n = 0;
        for (uint64_t piece = 0, rest = lengths; piece < 3; ++piece, rest /= 3) {
            first[piece] = n;
            n += 1u + rest % 3u;
            end[piece] = n;
        }
        uint64_t inputs = 1;
        for (uint64_t i = 0; i < n; ++i)
            inputs *= 3u;
        for (uint64_t digits = 0; digits < inputs; ++digits) {
            bool sorted = true;
            for (uint64_t i = 0, rest = digits; i < n; ++i, rest /= 3u) {
                keys[i] = rest % 3u;
                sorted = sorted && (i == first[0] || i == first[1] || i == first[2] || keys[i - 1u] <= keys[i]);
            }
            if (sorted)
                failures += split_mismatches(keys, first, end);
        }
    }
    for (int trial = 0; trial < 3000; ++trial) {
        uint64_t values = trial % 3 == 0 ? 3u : trial % 3 == 1 ? 10u : (uint64_t)1 << 32;
        uint64_t first[3], end[3], n = 0;
        for (int piece = 0; piece < 3; ++piece) {
            uint64_t count = 1u + test_random_u64(seed) % 40u;
            first[piece] = n;
            for (uint64_t i = 0; i < count; ++i)
                keys[n + i] = test_random_u64(seed) % values;
            qsort(keys + n, count, sizeof *keys, compare_u64);
            n += count;
            end[piece] = n;
        }
        failures += split_mismatches(keys, first, end);
    }
    return failures;
}

int main(void)
{
    test_counter t = {0};
    uint64_t split_seed = 99;
    uint64_t split_failures = three_piece_split_failures(&split_seed);
    TEST_CHECK(&t, split_failures == 0, "the three-piece split equals a stable merge's counts (%llu differ)",
               (unsigned long long)split_failures);

    /* Every input of n <= 8 keys below 4, every subset of {0, 1, 2, 3} as the
     * splitters, windows of 2, 4 and 8 keys, chunks of 1, 2 and W keys. */
    uint64_t failures = 0, without_fallback = 0, straddled = 0, three_runs = 0, runs = 0;
    for (uint64_t window = 2; window <= 8; window *= 2)
        for (uint64_t chunk = 1; chunk <= window; chunk = chunk < 2u ? 2u : window == chunk ? window + 1u : window)
        for (uint64_t subset = 0; subset < 16; ++subset) {
            uint64_t splitters[4], m = 0;
            for (uint64_t v = 0; v < 4; ++v)
                if (subset & (1u << v))
                    splitters[m++] = v;
            for (uint64_t n = 0, inputs = 1; n <= 8; ++n, inputs *= 4)
                for (uint64_t digits = 0; digits < inputs; ++digits) {
                    uint64_t keys[8], sorted[8], rest = digits;
                    for (uint64_t i = 0; i < n; ++i, rest /= 4)
                        keys[i] = rest % 4;
                    memcpy(sorted, keys, n * sizeof *keys);
                    qsort(sorted, n, sizeof *sorted, compare_u64);
                    bitonic_partition_report report;
                    bool ok = bitonic_reference_partition_sort_with(keys, n, window, chunk, splitters, m, &report) &&
                              memcmp(keys, sorted, n * sizeof *keys) == 0 &&
                              report.fell_back == (report.longest_open_bucket > 2u * window);
                    failures += ok ? 0 : 1;
                    without_fallback += report.fell_back ? 0 : 1;
                    /* Inputs whose window merge had a bucket longer than a
                     * window to merge (it may span three runs), and one
                     * longer than one window and a half (it may span
                     * three, or two of the runs' pieces). */
                    straddled += !report.fell_back && report.longest_open_bucket > window ? 1 : 0;
                    three_runs += !report.fell_back && 2u * report.longest_open_bucket > 3u * window ? 1 : 0;
                    ++runs;
                }
        }
    TEST_CHECK(&t, failures == 0,
               "every input of up to 8 keys of 4 values, every splitter set, windows 2-8, chunks 1, 2, W: %llu of %llu wrong",
               (unsigned long long)failures, (unsigned long long)runs);
    /* The proof covers the inputs that take no fallback: not a few of them. */
    TEST_CHECK(&t, without_fallback > runs / 4u, "a good part of them sorted without the fallback (%llu of %llu)",
               (unsigned long long)without_fallback, (unsigned long long)runs);
    TEST_CHECK(&t, straddled > runs / 16u, "many with an open bucket of more than a window (%llu)",
               (unsigned long long)straddled);
    TEST_CHECK(&t, three_runs > runs / 64u, "many with an open bucket of more than 1.5 windows (%llu)",
               (unsigned long long)three_runs);
    TEST_CHECK(&t, !bitonic_reference_partition_sort_with(NULL, 0, 3, 1, NULL, 0, NULL), "an odd window is refused");
    TEST_CHECK(&t, !bitonic_reference_partition_sort_with(NULL, 0, 8, 3, NULL, 0, NULL),
               "a chunk that does not divide the window is refused");

    /* Sampled splitters: a splitter every 8 of 1024 samples (about 780 keys a
     * bucket at 100003 keys), windows of 8192 keys. */
    static const uint64_t counts[] = {0, 1, 2, 100, 4097, 100003};
    bitonic_partition_plan plan = {
        .window_keys = 8192, .chunk_keys = 1024, .sample_count = 1024, .samples_per_splitter = 8, .seed = 7};
    uint64_t seed = 12345;
    uint64_t *keys = malloc(100003u * sizeof *keys);
    if (!TEST_CHECK(&t, keys != NULL, "memory"))
        return 1;
    enum { RANDOM, FEW, ONE, SORTED, REVERSED, PERIODIC, PATTERNS };
    static const char *names[] = {"random", "few values", "one value", "sorted", "reversed", "periodic"};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        for (int p = 0; p < PATTERNS; ++p) {
            uint64_t n = counts[c];
            for (uint64_t i = 0; i < n; ++i) {
                uint64_t r = test_random_u64(&seed);
                keys[i] = p == RANDOM ? r : p == FEW ? r % 8u : p == ONE ? 42u : p == SORTED ? i
                        : p == REVERSED ? n - i : i % 98u;  /* PERIODIC: the samples' stretch, about 98 keys */
            }
            bitonic_partition_report report;
            TEST_CHECK(&t, sorts_like_qsort(keys, n, &plan, &report), "%llu %s keys sorted",
                       (unsigned long long)n, names[p]);
            /* Every bucket short enough for the window merge: no fallback. */
            TEST_CHECK(&t, n < 100003u || !report.fell_back,
                       "%llu %s keys without the fallback (longest open bucket %llu, %llu splitters)",
                       (unsigned long long)n, names[p], (unsigned long long)report.longest_open_bucket,
                       (unsigned long long)report.splitters);
        }
    /* One value: a single equality bucket holds every key; few values: every
     * value its own. */
    bitonic_partition_report report;
    for (uint64_t i = 0; i < 100003u; ++i)
        keys[i] = 42u;
    TEST_CHECK(&t, sorts_like_qsort(keys, 100003u, &plan, &report) && report.splitters == 1 &&
                       report.longest_equal_bucket == 100003u && report.longest_open_bucket == 0,
               "one value: one equality bucket of every key");
    /* One sample: at most one splitter, an open bucket past a window: the
     * fallback, still sorted. */
    for (uint64_t i = 0; i < 100003u; ++i)
        keys[i] = test_random_u64(&seed);
    bitonic_partition_plan one_sample = plan;
    one_sample.sample_count = 1;
    one_sample.samples_per_splitter = 1;
    TEST_CHECK(&t, sorts_like_qsort(keys, 100003u, &one_sample, &report) && report.fell_back &&
                       report.longest_open_bucket > plan.window_keys,
               "one sample: the fallback, sorted");
    /* Windows of 2: only buckets of up to two keys skip the fallback. */
    bitonic_partition_plan narrow = plan;
    narrow.window_keys = 2;
    narrow.chunk_keys = 1;
    TEST_CHECK(&t, sorts_like_qsort(keys, 4097u, &narrow, &report), "windows of 2 keys, sorted");

    /* The nested partition: 64 samples, a splitter every 8 (8 splitters,
     * buckets of about 11100 keys at 100003), windows of 256 keys, so one
     * level leaves buckets of about 43 windows and the second splits each
     * into about 87 of half a window. */
    bitonic_partition_plan nested = {
        .window_keys = 256, .chunk_keys = 64, .sample_count = 64, .samples_per_splitter = 8, .seed = 3};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        for (int p = 0; p < PATTERNS; ++p) {
            uint64_t n = counts[c];
            for (uint64_t i = 0; i < n; ++i) {
                uint64_t r = test_random_u64(&seed);
                keys[i] = p == RANDOM ? r : p == FEW ? r % 8u : p == ONE ? 42u : p == SORTED ? i
                        : p == REVERSED ? n - i : i % 98u;
            }
            TEST_CHECK(&t, nested_sorts_like_qsort(keys, n, &nested, 127u, &report), "nested: %llu %s keys sorted",
                       (unsigned long long)n, names[p]);
            bool spread = p == RANDOM || p == SORTED || p == REVERSED;
            TEST_CHECK(&t, n < 100003u || !spread || (!report.fell_back && report.inner_splitters > 8u * 64u),
                       "nested: %llu %s keys in buckets under two windows (longest open %llu, %llu + %llu "
                       "splitters)",
                       (unsigned long long)n, names[p], (unsigned long long)report.longest_open_bucket,
                       (unsigned long long)report.splitters, (unsigned long long)report.inner_splitters);
        }
    /* The same random keys fall back with one level of those splitters. */
    for (uint64_t i = 0; i < 100003u; ++i)
        keys[i] = test_random_u64(&seed);
    TEST_CHECK(&t, sorts_like_qsort(keys, 100003u, &nested, &report) && report.fell_back,
               "one level of 8 splitters: buckets of many windows, the fallback");
    /* Eight samples: a single splitter, and the second level alone splits. */
    bitonic_partition_plan nested_one = nested;
    nested_one.sample_count = 8;
    TEST_CHECK(&t, nested_sorts_like_qsort(keys, 100003u, &nested_one, 1023u, &report) && report.splitters == 1 &&
                       report.inner_splitters > 700u && report.longest_open_bucket <= 2u * nested.window_keys,
               "nested, one splitter: the second level splits both halves (%llu splitters, longest open %llu)",
               (unsigned long long)report.inner_splitters, (unsigned long long)report.longest_open_bucket);
    /* Too few splitters a bucket: the fallback, still sorted. */
    TEST_CHECK(&t, nested_sorts_like_qsort(keys, 100003u, &nested, 3u, &report) && report.fell_back &&
                       report.inner_splitters <= 3u * (report.splitters + 1u),
               "nested, 3 splitters a bucket: the fallback, sorted");
    /* No splitters a bucket: the plain partition sort, bucket for bucket. */
    bitonic_partition_report plain;
    TEST_CHECK(&t, sorts_like_qsort(keys, 100003u, &plan, &plain) &&
                       nested_sorts_like_qsort(keys, 100003u, &plan, 0u, &report) && report.inner_splitters == 0 &&
                       report.splitters == plain.splitters &&
                       report.longest_open_bucket == plain.longest_open_bucket && report.fell_back == plain.fell_back,
               "nested with no inner splitters: the plain partition sort");
    TEST_CHECK(&t, !bitonic_reference_nested_partition_sort(keys, 10u, &(bitonic_partition_plan){.window_keys = 3,
                       .sample_count = 1, .samples_per_splitter = 1}, 7u, NULL),
               "nested: an odd window is refused");
    free(keys);
    return test_finish(&t);
}
