/* test_schedule.c: proves the schedule on the CPU. By the 0-1 principle a
 * comparator network that sorts every binary input sorts every input, so every
 * binary input of every length up to 20 is run through the reference executor
 * (64 inputs at a time, bit-sliced) for several tile and pass shapes. Also checks
 * pass counts against the formulas and random numeric inputs against qsort. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference_executor.h"
#include "schedule.h"
#include "test_util.h"

typedef struct shape {
    uint32_t tile_log, tile_register_log, max_global_steps;
} shape;

static const shape shapes[] = {
    {0, 0, 1}, {0, 0, 2}, {0, 0, 5}, {1, 1, 1}, {2, 1, 2}, {2, 2, 3},
    {3, 2, 2}, {3, 3, 5}, {4, 2, 3}, {4, 4, 4}, {5, 4, 5}, {13, 4, 5},
};
#define SHAPE_COUNT (sizeof shapes / sizeof shapes[0])

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint32_t build(const shape *s, uint64_t n, bitonic_pass *passes)
{
    bitonic_schedule_params params = {s->tile_log, s->max_global_steps, 0, false, false, 0, 0};
    return bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* The tile sort, then merge passes (merge path) above the tile. */
static uint32_t build_merging(const shape *s, uint64_t n, bitonic_pass *passes)
{
    bitonic_schedule_params params = {s->tile_log, s->max_global_steps, 0, true, false, 0, 0};
    return bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* The same, a tail of up to a tile past a power of two merged in by the merge before. */
static uint32_t build_merging_tail(const shape *s, uint64_t n, bitonic_pass *passes)
{
    bitonic_schedule_params params = {s->tile_log, s->max_global_steps, 0, true, false, s->tile_log, 0};
    return bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* The same, and a tail of up to 2^tile_tail_log past a power of two that
 * fits a tile placed by the tile pass itself. */
static uint32_t build_merging_tails(const shape *s, uint64_t n, bitonic_pass *passes)
{
    bitonic_schedule_params params = {s->tile_log, s->max_global_steps, 0, true, false, s->tile_log, 2};
    return bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* The tile sort, then each larger phase's large strides in transposed views. */
static uint32_t build_transposing(const shape *s, uint64_t n, bitonic_pass *passes)
{
    bitonic_schedule_params params = {s->tile_log, s->max_global_steps, 0, false, true, 0, 0};
    return bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

typedef uint32_t (*schedule_builder)(const shape *s, uint64_t n, bitonic_pass *passes);

/* Every binary input of length n (as numbers: a merge compares keys), and
 * random inputs with duplicates, through tile sort + merges in chunks of
 * 2^chunk_log output keys. */
static bool merge_schedule_sorts(const shape *s, uint32_t chunk_log, uint64_t n, uint64_t seed, bool binary,
                                 schedule_builder builder)
{
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = builder(s, n, passes);
    bitonic_reference_config config = {s->tile_log, s->tile_register_log, BITONIC_REFERENCE_NUMERIC, chunk_log};
    uint64_t *keys = malloc((n + 1) * sizeof *keys), *expected = malloc((n + 1) * sizeof *expected);
    bool ok = pass_count != UINT32_MAX && keys && expected;
    uint64_t inputs = binary ? (uint64_t)1 << n : 1;
    for (uint64_t input = 0; input < inputs && ok; ++input) {
        for (uint64_t i = 0; i < n; ++i)
            keys[i] = expected[i] = binary ? (input >> i) & 1u : test_random_u64(&seed) % (n / 3 + 1);
        qsort(expected, n, sizeof *expected, compare_u64);
        ok = bitonic_reference_run(passes, pass_count, &config, keys, n) &&
             memcmp(keys, expected, n * sizeof *keys) == 0;
    }
    free(keys);
    free(expected);
    return ok;
}

static bool run(const shape *s, const bitonic_pass *passes, uint32_t count, bitonic_reference_mode mode,
                uint64_t *keys, uint64_t n)
{
    bitonic_reference_config config = {s->tile_log, s->tile_register_log, mode, 0};
    return bitonic_reference_run(passes, count, &config, keys, n);
}


/* Every binary input of length n, 64 per run, through the schedule `builder` makes. */
static bool sorts_every_binary_input(const shape *s, uint32_t n, schedule_builder builder)
{
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = builder(s, n, passes);
    if (pass_count == UINT32_MAX)
        return false;
    uint64_t inputs = (uint64_t)1 << n;
    uint64_t words[32];
    for (uint64_t first = 0; first < inputs; first += 64) {
        for (uint32_t i = 0; i < n; ++i) {
            uint64_t word = 0;
            for (uint32_t bit = 0; bit < 64; ++bit) {
                uint64_t input = (first + bit) % inputs;
                word |= ((input >> i) & 1u) << bit;
            }
            words[i] = word;
        }
        if (!run(s, passes, pass_count, BITONIC_REFERENCE_BITSLICED, words, n))
            return false;
        for (uint32_t i = 0; i + 1 < n; ++i)
            if (words[i] & ~words[i + 1])  /* a 1 above a 0 in some input */
                return false;
    }
    return true;
}

/* The group count of every global pass is exactly the prefix of groups that
 * hold a key below n. */
static bool group_counts_exact(const shape *s, uint64_t n)
{
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = build(s, n, passes);
    for (uint32_t p = 0; p < pass_count; ++p) {
        if (passes[p].kind != BITONIC_PASS_GLOBAL)
            continue;
        bitonic_step_group group = {passes[p].phase, passes[p].stride_log, passes[p].step_count,
                                    passes[p].step_count};
        uint64_t groups = passes[p].group_count;
        if (groups == 0 || bitonic_group_key_index(&group, groups - 1, 0) >= n ||
            bitonic_group_key_index(&group, groups, 0) < n)
            return false;
    }
    return true;
}


static bool sorts_random(const shape *s, uint64_t n, uint64_t seed, schedule_builder builder)
{
    uint64_t *keys = malloc(n * sizeof *keys), *expected = malloc(n * sizeof *expected);
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = builder(s, n, passes);
    for (uint64_t i = 0; i < n; ++i)
        keys[i] = expected[i] = test_random_u64(&seed) % (n / 2 + 1);  /* with duplicates */
    qsort(expected, n, sizeof *expected, compare_u64);
    bool ok = run(s, passes, pass_count, BITONIC_REFERENCE_NUMERIC, keys, n) &&
              memcmp(keys, expected, n * sizeof *keys) == 0;
    free(keys);
    free(expected);
    return ok;
}

/* Every view index of every TRANSPOSE pass that holds a real key names a
 * distinct key below n and a distinct scratch slot below bitonic_view_keys(),
 * and every key below n is named: the view is a bijection that reads nothing
 * past n. */
static bool views_are_bijections(const shape *s, uint64_t n)
{
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = build_transposing(s, n, passes);
    bool ok = pass_count != UINT32_MAX;
    for (uint32_t p = 0; p < pass_count && ok; ++p) {
        const bitonic_pass *pass = &passes[p];
        if (pass->kind != BITONIC_PASS_TRANSPOSE)
            continue;
        uint64_t slots = bitonic_view_keys(pass, n);
        uint64_t view_count = (uint64_t)1 << (pass->view_column_log + pass->view_row_log);
        unsigned char *seen_key = calloc(n, 1), *seen_slot = calloc(slots, 1);
        uint64_t real = 0;
        ok = seen_key && seen_slot && slots < n + ((uint64_t)1 << pass->view_column_log);
        for (uint64_t v = 0; v < view_count && ok; ++v) {
            uint64_t memory, original;
            if (!bitonic_view_index(pass, n, v, &memory, &original))
                continue;
            ok = original < n && memory < slots && !seen_key[original] && !seen_slot[memory];
            if (ok) {
                seen_key[original] = seen_slot[memory] = 1;
                ++real;
            }
        }
        ok = ok && real == n;
        free(seen_key);
        free(seen_slot);
    }
    return ok;
}

/* The tiles a view tile pass numbers are distinct tiles of the view, and
 * every tile of the view that holds a real key is among them. */
static bool view_tiles_cover_the_keys(const shape *s, uint64_t n)
{
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t pass_count = build_transposing(s, n, passes);
    bool ok = pass_count != UINT32_MAX;
    for (uint32_t p = 0; p < pass_count && ok; ++p) {
        const bitonic_pass *pass = &passes[p];
        if (pass->kind != BITONIC_PASS_TILE || pass->view_column_log == 0)
            continue;
        uint64_t view_tiles = (uint64_t)1 << (pass->view_column_log + pass->view_row_log - s->tile_log);
        unsigned char *numbered = calloc(view_tiles, 1);
        ok = numbered != NULL;
        for (uint64_t tile = 0; tile < pass->group_count && ok; ++tile) {
            uint64_t first = bitonic_view_tile_first_key(pass, n, s->tile_log, tile);
            uint64_t index = first >> s->tile_log;
            ok = (first & (((uint64_t)1 << s->tile_log) - 1u)) == 0 && index < view_tiles && !numbered[index];
            if (ok)
                numbered[index] = 1;
        }
        for (uint64_t v = 0; v < view_tiles << s->tile_log && ok; ++v) {
            uint64_t memory, original;
            ok = !bitonic_view_index(pass, n, v, &memory, &original) || numbered[v >> s->tile_log];
        }
        free(numbered);
    }
    return ok;
}

/* The transpose strategy: the same proof as the network (every binary input
 * to 20 keys, bit-sliced, for every tiled shape: tiles of 2 and 4 keys reach
 * phases that need two or more views, since one view holds tile_log strides;
 * the random inputs take tiles up to 32 keys there too),
 * random inputs, the views, and the pass count. */
static void check_transpose_strategy(test_counter *t)
{
    for (size_t i = 0; i < SHAPE_COUNT; ++i) {
        const shape *s = &shapes[i];
        if (s->tile_log == 0)
            continue;
        bool all = true;
        for (uint32_t n = 0; n <= 20 && all; ++n)
            all = sorts_every_binary_input(s, n, build_transposing);
        TEST_CHECK(t, all, "transpose: 0-1 principle, lengths 0..20, tile 2^%u, %u keys/thread", s->tile_log,
                   1u << s->tile_register_log);
        uint64_t sizes[] = {2, 3, 31, 64, 100, 1000, 4097, 12345};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
            TEST_CHECK(t, sorts_random(s, sizes[k], 99 + k, build_transposing),
                       "transpose: random %" PRIu64 " keys, tile 2^%u", sizes[k], s->tile_log);
        bool bijective = true;
        for (uint64_t n = 2; n < 3000 && bijective; n += 1 + n / 5)
            bijective = views_are_bijections(s, n);
        TEST_CHECK(t, bijective, "transpose: every view is a bijection within n, tile 2^%u", s->tile_log);
        bool covered = true;
        for (uint64_t n = 2; n < 3000 && covered; n += 1 + n / 5)
            covered = view_tiles_cover_the_keys(s, n);
        TEST_CHECK(t, covered, "transpose: view tile passes number every tile that holds a key, once, tile 2^%u",
                   s->tile_log);
    }
    /* Per phase p above a tile of 2^t: ceil((p - t) / t) views of three passes
     * each (transpose, view tile, transpose back), then one tile pass; the tile
     * sort first. With t = 13 up to 2^26: 1 + 4 (log2 N - 13). */
    for (uint32_t tile_log = 1; tile_log <= 13; tile_log += 3) {
        const shape tiled = {tile_log, tile_log < 4 ? tile_log : 4, 4};
        for (uint32_t k = 1; k <= 30; ++k) {
            uint32_t expected = 1, expected_transposes = 0;
            for (uint32_t p = tile_log + 1; p <= k; ++p) {
                uint32_t views = (p - tile_log + tile_log - 1u) / tile_log;
                expected += 3u * views + 1u;
                expected_transposes += 2u * views;
            }
            bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
            uint32_t count = build_transposing(&tiled, (uint64_t)1 << k, passes);
            uint32_t transposes = 0;
            for (uint32_t p = 0; p < count && count != UINT32_MAX; ++p)
                transposes += passes[p].kind == BITONIC_PASS_TRANSPOSE;
            bool fits = expected <= BITONIC_SCHEDULE_MAX_PASSES;
            TEST_CHECK(t, fits ? count == expected && transposes == expected_transposes : count == UINT32_MAX,
                       "transpose: pass count at 2^%u, tile 2^%u (%u, expected %u)", k, tile_log, count, expected);
        }
    }
    {
        const shape tiled = {13, 4, 5};
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        TEST_CHECK(t, build_transposing(&tiled, (uint64_t)1 << 24, passes) == 45 &&
                          build_transposing(&tiled, ((uint64_t)1 << 24) - 5u, passes) == 45,
                   "transpose: 45 passes at 2^24 keys with a tile of 2^13");
        /* Batched rows keep the network: their rows are not one matrix. */
        bitonic_pass rows[BITONIC_SCHEDULE_MAX_PASSES], network[BITONIC_SCHEDULE_MAX_PASSES];
        bitonic_schedule_params with_rows = {5, 4, 9, false, true, 0, 0}, plain = {5, 4, 9, false, false, 0, 0};
        uint32_t row_count = bitonic_schedule_build(37u << 9, &with_rows, rows, BITONIC_SCHEDULE_MAX_PASSES);
        bool same = row_count == bitonic_schedule_build(37u << 9, &plain, network, BITONIC_SCHEDULE_MAX_PASSES);
        for (uint32_t p = 0; p < row_count && same; ++p)
            same = rows[p].kind == network[p].kind && rows[p].kind != BITONIC_PASS_TRANSPOSE &&
                   rows[p].phase == network[p].phase && rows[p].stride_log == network[p].stride_log &&
                   rows[p].view_column_log == 0;
        TEST_CHECK(t, same, "transpose: batched rows keep the network");
        /* A view tile pass with no view made before it is refused. */
        const shape small = {2, 1, 2};
        uint32_t count = build_transposing(&small, 16, passes);
        uint64_t words[16] = {0};
        bitonic_reference_config config = {2, 1, BITONIC_REFERENCE_BITSLICED, 0};
        uint32_t first_view_tile = 0;
        while (first_view_tile < count && passes[first_view_tile].view_column_log == 0)
            ++first_view_tile;
        TEST_CHECK(t, first_view_tile + 1u < count && passes[first_view_tile].kind == BITONIC_PASS_TRANSPOSE &&
                          !bitonic_reference_run(&passes[first_view_tile + 1u], 1, &config, words, 16),
                   "transpose: a view tile pass without its transpose is refused");
    }
}

int main(void)
{
    test_counter t = {0};

    for (size_t i = 0; i < SHAPE_COUNT; ++i) {
        const shape *s = &shapes[i];
        bool all = true;
        for (uint32_t n = 0; n <= 20 && all; ++n)
            all = sorts_every_binary_input(s, n, build);
        TEST_CHECK(&t, all, "0-1 principle, lengths 0..20, tile 2^%u, %u keys/thread, %u steps/pass", s->tile_log,
                   1u << s->tile_register_log, s->max_global_steps);
        bool exact = true;
        for (uint64_t n = 2; n < 5000 && exact; n += 1 + n / 7)
            exact = group_counts_exact(s, n);
        TEST_CHECK(&t, exact, "group counts exact, shape %zu", i);
        uint64_t sizes[] = {2, 3, 31, 64, 100, 1000, 4097, 12345};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
            TEST_CHECK(&t, sorts_random(s, sizes[k], 42 + k, build), "random %" PRIu64 " keys, shape %zu", sizes[k], i);
    }

    /* The pure network (no tile, one step per pass) has log2 N (log2 N + 1) / 2 passes. */
    const shape pure = {0, 0, 1};
    for (uint32_t k = 1; k <= 30; ++k) {
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        uint64_t n = (uint64_t)1 << k;
        TEST_CHECK(&t, build(&pure, n, passes) == k * (k + 1) / 2, "pure network pass count at 2^%u", k);
        TEST_CHECK(&t, build(&pure, n - 1, passes) == (k == 1 ? 0 : k * (k + 1) / 2),
                   "pure network pass count at 2^%u - 1", k);
    }
    /* With a tile of 2^t and m steps per global pass: 1 + sum over phases p > t of
     * (ceil((p - t) / m) + 1). */
    for (uint32_t k = 1; k <= 30; ++k) {
        const shape tiled = {13, 4, 5};
        uint32_t expected = 1;
        for (uint32_t p = 14; p <= k; ++p)
            expected += (p - 13 + 4) / 5 + 1;
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        TEST_CHECK(&t, build(&tiled, (uint64_t)1 << k, passes) == expected, "tiled pass count at 2^%u", k);
    }
    TEST_CHECK(&t, build(&shapes[0], 0, NULL) == 0 && build(&shapes[0], 1, NULL) == 0, "0 and 1 keys need no pass");

    /* Batched rows: stopping after phase k sorts every aligned block of 2^k keys
     * on its own, and costs the passes of one block. */
    for (size_t i = 0; i < SHAPE_COUNT; ++i) {
        const shape *s = &shapes[i];
        for (uint32_t row_log = 1; row_log <= 9; row_log += 4) {
            uint64_t rows = 37, n = rows << row_log, seed = row_log;
            uint64_t *keys = malloc(n * sizeof *keys);
            for (uint64_t k = 0; k < n; ++k)
                keys[k] = test_random_u64(&seed) % 100u;
            bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES], one_row[BITONIC_SCHEDULE_MAX_PASSES];
            bitonic_schedule_params params = {s->tile_log, s->max_global_steps, row_log, false, false, 0, 0};
            uint32_t count = bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
            bool ok = count == build(s, (uint64_t)1 << row_log, one_row) &&
                      run(s, passes, count, BITONIC_REFERENCE_NUMERIC, keys, n);
            for (uint64_t k = 1; k < n && ok; ++k)
                ok = (k & ((1u << row_log) - 1u)) == 0 || keys[k - 1] <= keys[k];
            TEST_CHECK(&t, ok, "37 rows of 2^%u keys sorted independently, shape %zu", row_log, i);
            free(keys);
        }
    }

    /* Merging above the tile: 1 + ceil(log2 n) - tile_log passes; every binary
     * input up to 14 keys and random inputs sort, for every chunk size a GPU
     * might pick (a chunk never spans two merged runs up to 2 tiles). */
    for (size_t i = 0; i < SHAPE_COUNT; ++i) {
        const shape *s = &shapes[i];
        if (s->tile_log == 0 || s->tile_log > 5)
            continue;
        for (uint32_t chunk_log = 1; chunk_log <= s->tile_log + 1u; ++chunk_log) {
            for (int tail = 0; tail < 3; ++tail) {
                schedule_builder builder = tail == 2 ? build_merging_tails : tail ? build_merging_tail : build_merging;
                const char *how = tail == 2 ? ", tails merged in and placed by the tile" : tail ? ", tails merged in" : "";
                bool all = true;
                for (uint32_t n = 0; n <= 14 && all; ++n)
                    all = merge_schedule_sorts(s, chunk_log, n, 0, true, builder);
                TEST_CHECK(&t, all, "merge: every binary input to 14 keys, tile 2^%u, chunk 2^%u%s", s->tile_log,
                           chunk_log, how);
                uint64_t sizes[] = {2, 33, 100, 1000, 4097, 40, 48, 49, 72, 1030};
                for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
                    TEST_CHECK(&t, merge_schedule_sorts(s, chunk_log, sizes[k], 7 + k, false, builder),
                               "merge: random %" PRIu64 " keys, tile 2^%u, chunk 2^%u%s", sizes[k], s->tile_log,
                               chunk_log, how);
            }
        }
    }
    for (uint32_t k = 1; k <= 30; ++k) {
        const shape tiled = {13, 4, 5};
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        uint32_t expected = 1u + (k > 13u ? k - 13u : 0u);
        TEST_CHECK(&t, build_merging(&tiled, (uint64_t)1 << k, passes) == expected &&
                           build_merging(&tiled, ((uint64_t)1 << k) + 1u, passes) == expected + (k >= 13u ? 1u : 0u),
                   "merging pass count at 2^%u and 2^%u + 1", k, k);
        /* A tail merged in: 2^k + m keys (m up to a tile and up to 2^(k-1))
         * take the passes of 2^k where a merge of phase k runs (k > 13), its
         * last pass marked; else those of 2^(k+1). */
        uint64_t tails[] = {1, 4096, 8192, 8193};
        for (size_t i = 0; i < sizeof tails / sizeof tails[0]; ++i) {
            uint64_t n = ((uint64_t)1 << k) + tails[i];
            uint32_t q = bitonic_ceil_log2(n) - 1u;
            uint64_t m = n - ((uint64_t)1 << q);
            bool folded = q > 13u && m <= 8192u && m <= ((uint64_t)1 << (q - 1u));
            bitonic_pass plain[BITONIC_SCHEDULE_MAX_PASSES];
            uint32_t count = build_merging_tail(&tiled, n, passes);
            const bitonic_pass *last = &passes[count - 1u];
            bool marked = last->kind == BITONIC_PASS_MERGE && last->last_phase == last->phase + 1u;
            TEST_CHECK(&t, count == build_merging(&tiled, n, plain) - (folded ? 1u : 0u) && marked == folded,
                       "merging pass count at 2^%u + %" PRIu64 ", tails merged in", k, tails[i]);
        }
    }
    /* A tail the tile places: 2^k + m keys, 2^k at most a tile, m at most
     * 2^tile_tail_log (here 32) and 2^(k-1), take one tile pass marked tile_tail; any
     * other count the passes it takes without. */
    for (uint32_t k = 1; k <= 16; ++k) {
        const shape tiled = {13, 4, 5};
        uint64_t tails[] = {1, 2, 3, 31, 32, 33, 4096};
        for (size_t i = 0; i < sizeof tails / sizeof tails[0]; ++i) {
            uint64_t n = ((uint64_t)1 << k) + tails[i];
            uint32_t q = bitonic_ceil_log2(n) - 1u;
            uint64_t m = n - ((uint64_t)1 << q);
            bool placed = q <= 13u && q >= 1u && m <= 32u && m <= ((uint64_t)1 << (q - 1u));
            bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES], plain[BITONIC_SCHEDULE_MAX_PASSES];
            bitonic_schedule_params params = {13, 5, 0, true, false, 13, 5};
            uint32_t count = bitonic_schedule_build(n, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
            bool marked = count == 1u && passes[0].tile_tail && passes[0].last_phase == q && passes[0].group_count == 1u;
            TEST_CHECK(&t, placed ? marked : count == build_merging_tail(&tiled, n, plain) && !passes[0].tile_tail,
                       "tile pass placing a tail at 2^%u + %" PRIu64, k, tails[i]);
        }
    }
    {
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        const bitonic_reference_config sliced = {4, 2, BITONIC_REFERENCE_BITSLICED, 2};
        uint64_t words[5] = {0};
        uint32_t count = build_merging_tails(&shapes[8], 5, passes);
        TEST_CHECK(&t, count == 1 && passes[0].tile_tail && !bitonic_reference_run(passes, count, &sliced, words, 5),
                   "a tile pass placing a tail refuses bit-sliced keys");
    }
    {
        bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
        const shape bits = {2, 1, 2};
        bitonic_reference_config sliced = {2, 1, BITONIC_REFERENCE_BITSLICED, 2};
        uint64_t words[16] = {0};
        uint32_t count = build_merging(&bits, 16, passes);
        TEST_CHECK(&t, count == 3 && !bitonic_reference_run(passes, count, &sliced, words, 16),
                   "a merge pass refuses bit-sliced keys");
    }
    check_transpose_strategy(&t);
    return test_finish(&t);
}
