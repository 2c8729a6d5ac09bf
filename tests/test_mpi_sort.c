/* test_mpi_sort.c [DEVICE] [--quick]: the distributed sort (bitonic_mpi.h),
 * run under mpirun with 1 to 4 ranks. Every rank builds the same global input
 * from a seed and sorts its slice together with the others; rank 0 gathers the
 * result and compares it element for element with one single-process sort of
 * the whole input through the same library. Inputs: random, sorted, reverse,
 * all equal, 90% one value, a few special values (signed zeros, NaNs,
 * infinities), fewer keys than ranks, empty ranks, everything on one rank;
 * every key type; keys, pairs and stable pairs; both orders; exact balance and
 * splitter ranges; the host merge and the merge through the context; the
 * chunked exchange. Then the failure cases: a bad argument on one rank gives
 * every rank the same status, and the next sort still works.
 * DEVICE (default cpu) is each rank's context: a list "cpu,vulkan" gives rank
 * r its r-th entry (cycling), so ranks on different backends sort together;
 * "default" takes whatever BITONIC_DEVICE says on each rank (one GPU a rank).
 * --quick runs a small subset (for a slow device such as lavapipe). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic_mpi.h"
#include "test_util.h"

typedef enum pattern {
    PATTERN_RANDOM,
    PATTERN_SORTED,
    PATTERN_REVERSE,
    PATTERN_ALL_EQUAL,
    PATTERN_MOSTLY_ONE,      /* 90% one value */
    PATTERN_SPECIALS,        /* a few special bit patterns: many ties */
    PATTERN_COUNT
} pattern;

static const char *pattern_names[] = {"random", "sorted", "reverse", "all-equal", "90%-one", "specials"};
static const char *type_names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};

typedef enum split {
    SPLIT_EVEN,
    SPLIT_UNEVEN,            /* random cut points */
    SPLIT_EDGES_EMPTY,       /* the first and the last rank hold nothing */
    SPLIT_ONE_RANK,          /* everything on the last rank */
    SPLIT_COUNT
} split;

typedef struct test_case {
    bitonic_key_type type;
    bool pairs, stable, descending, ranges;
    pattern input;
    split layout;
    size_t total;
    bitonic_mpi_merge merge;
    size_t max_message;
    uint64_t seed;
} test_case;

typedef struct world {
    int rank, ranks;
    bitonic_context *context;
    test_counter counter;            /* meaningful on rank 0, which checks */
} world;

static size_t key_bytes(bitonic_key_type type)
{
    return type >= BITONIC_KEY_U64 ? 8 : 4;
}

static uint64_t special_bits(bitonic_key_type type, uint64_t pick)
{
    static const uint64_t f32[] = {0x80000000u, 0, 0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u, 0x3f800000u};
    static const uint64_t f64[] = {0x8000000000000000ull, 0, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                   0x7ff0000000000000ull, 0xfff0000000000000ull, 0x3ff0000000000000ull};
    static const uint64_t ints[] = {0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, UINT64_MAX, 5, 0x80000000u};
    const uint64_t *table = type == BITONIC_KEY_F32 ? f32 : type == BITONIC_KEY_F64 ? f64 : ints;
    return table[pick % 7];
}

static void store_key(void *keys, size_t i, bitonic_key_type type, uint64_t bits)
{
    if (key_bytes(type) == 8)
        ((uint64_t *)keys)[i] = bits;
    else
        ((uint32_t *)keys)[i] = (uint32_t)(type == BITONIC_KEY_F32 && bits >> 32 ? bits >> 32 : bits);
}

/* The global input, the same on every rank. */
static bool make_input(world *w, const test_case *c, void *keys, uint32_t *values)
{
    uint64_t state = c->seed;
    uint64_t common = test_random_u64(&state);
    for (size_t i = 0; i < c->total; ++i) {
        uint64_t bits = test_random_u64(&state);
        switch (c->input) {
        case PATTERN_ALL_EQUAL: bits = common; break;
        case PATTERN_MOSTLY_ONE: bits = bits % 10 ? common : test_random_u64(&state); break;
        case PATTERN_SPECIALS: bits = special_bits(c->type, bits); break;
        default: break;
        }
        store_key(keys, i, c->type, bits);
        values[i] = (uint32_t)test_random_u64(&state) % 16u;   /* few values: ties by value matter */
    }
    if (c->input == PATTERN_SORTED || c->input == PATTERN_REVERSE) {
        bitonic_sort_options order = {.key_type = c->type,
                                      .order = c->input == PATTERN_REVERSE ? BITONIC_ORDER_DESCENDING
                                                                           : BITONIC_ORDER_ASCENDING};
        if (bitonic_sort(w->context, keys, c->total, &order) != BITONIC_SUCCESS)
            return false;
    }
    return true;
}

/* Where each rank's slice starts (ranks + 1 entries), the same on every rank. */
static void make_layout(const world *w, const test_case *c, size_t *starts)
{
    uint64_t state = c->seed ^ 0x5eed;
    size_t ranks = (size_t)w->ranks;
    for (size_t r = 0; r <= ranks; ++r) {
        switch (c->layout) {
        case SPLIT_EVEN: starts[r] = c->total * r / ranks; break;
        case SPLIT_UNEVEN: starts[r] = r == 0 ? 0 : r == ranks ? c->total : test_random_u64(&state) % (c->total + 1); break;
        case SPLIT_EDGES_EMPTY:
            starts[r] = ranks <= 2 ? (r == ranks ? c->total : 0)
                                   : r <= 1 ? 0 : r >= ranks - 1 ? c->total : c->total * (r - 1) / (ranks - 2);
            break;
        default: starts[r] = r == ranks ? c->total : 0; break;
        }
    }
    for (size_t r = 1; r <= ranks; ++r)              /* random cuts: sort them */
        for (size_t q = r; q > 1 && starts[q - 1] > starts[q]; --q) {
            size_t t = starts[q];
            starts[q] = starts[q - 1];
            starts[q - 1] = t;
        }
}

static void describe(const test_case *c, char *text, size_t size)
{
    static const char *split_names[] = {"even", "uneven", "edges-empty", "one-rank"};
    snprintf(text, size, "%s %s %s n=%zu %s split=%s%s merge=%d chunk=%zu", type_names[c->type],
             c->pairs ? (c->stable ? "stable-pairs" : "pairs") : "keys", c->descending ? "desc" : "asc", c->total,
             pattern_names[c->input], split_names[c->layout], c->ranges ? " ranges" : "", (int)c->merge,
             c->max_message);
}

/* Gathers every rank's result on rank 0 (bytes, in rank order). */
static void gather(const world *w, const void *data, size_t bytes, unsigned char *all, int *counts, int *offsets)
{
    int mine = (int)bytes;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (w->rank == 0)
        for (int r = 0, offset = 0; r < w->ranks; offset += counts[r++])
            offsets[r] = offset;
    MPI_Gatherv(data, mine, MPI_BYTE, all, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void run_case(world *w, const test_case *c)
{
    char name[256];
    describe(c, name, sizeof name);
    size_t width = key_bytes(c->type);
    unsigned char *input = malloc(c->total * width + 8), *reference = malloc(c->total * width + 8);
    uint32_t *input_values = malloc(c->total * 4 + 4), *reference_values = malloc(c->total * 4 + 4);
    size_t *starts = malloc((size_t)(w->ranks + 1) * sizeof *starts);
    unsigned char *gathered = malloc(c->total * width + 8);
    uint32_t *gathered_values = malloc(c->total * 4 + 4);
    int *counts = malloc(2 * (size_t)w->ranks * sizeof *counts);
    if (!input || !reference || !input_values || !reference_values || !starts || !gathered || !gathered_values ||
        !counts || !make_input(w, c, input, input_values)) {
        TEST_CHECK(&w->counter, false, "%s: setup", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    make_layout(w, c, starts);
    size_t first = starts[w->rank], count = starts[w->rank + 1] - first;
    /* This rank's slice, in its own arrays (NULL when empty, as a caller may pass). */
    unsigned char *keys = count ? malloc(count * width) : NULL;
    uint32_t *values = count && c->pairs ? malloc(count * 4) : NULL;
    if (count) {
        memcpy(keys, input + first * width, count * width);
        if (values)
            memcpy(values, input_values + first, count * 4);
    }
    bitonic_mpi_sort_options options = {.key_type = c->type, .stable = c->stable, .merge = c->merge,
                                        .order = c->descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING,
                                        .max_message_elements = c->max_message};
    bitonic_mpi_result result = {0};
    bitonic_mpi_timing timing;
    bitonic_status status =
        c->ranges ? bitonic_mpi_sort_ranges(w->context, MPI_COMM_WORLD, keys, values, count, &options, &result, &timing)
                  : bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, values, count, &options, &timing);
    const void *out_keys = c->ranges ? result.keys : keys;
    const uint32_t *out_values = c->ranges ? result.values : values;
    size_t out_count = c->ranges ? result.count : count;
    int ok = status == BITONIC_SUCCESS, all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    /* In range mode every rank's share must be near total / ranks, even when all keys are equal. */
    unsigned long long mine = out_count, largest = 0;
    MPI_Reduce(&mine, &largest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    gather(w, ok ? out_keys : NULL, ok ? out_count * width : 0, gathered, counts, counts + w->ranks);
    if (c->pairs)
        gather(w, ok ? out_values : NULL, ok ? out_count * 4 : 0, (unsigned char *)gathered_values, counts,
               counts + w->ranks);
    if (w->rank == 0) {
        memcpy(reference, input, c->total * width);
        memcpy(reference_values, input_values, c->total * 4);
        bitonic_sort_options single = {.key_type = c->type, .order = options.order, .stable = c->stable};
        bitonic_status reference_status = c->pairs ? bitonic_sort_pairs(w->context, reference, reference_values,
                                                                         c->total, &single)
                                                   : bitonic_sort(w->context, reference, c->total, &single);
        TEST_CHECK(&w->counter, all_ok && reference_status == BITONIC_SUCCESS, "%s: every rank succeeded (%s)", name,
                   bitonic_status_string(status));
        size_t gathered_bytes = 0;
        for (int r = 0; r < w->ranks; ++r)
            gathered_bytes += (size_t)counts[r];
        bool same = gathered_bytes == c->total * (c->pairs ? 4 : width) &&
                    memcmp(gathered, reference, c->total * width) == 0 &&
                    (!c->pairs || memcmp(gathered_values, reference_values, c->total * 4) == 0);
        TEST_CHECK(&w->counter, same, "%s: the ranks' results, concatenated, equal one single-process sort", name);
        if (c->ranges) {
            size_t fair = (c->total + (size_t)w->ranks - 1) / (size_t)w->ranks;
            TEST_CHECK(&w->counter, largest <= 2 * fair + 1, "%s: ranges are balanced (largest %llu, fair %zu)", name,
                       largest, fair);
        }
    }
    if (!c->ranges && status == BITONIC_SUCCESS && w->rank == 0)
        TEST_CHECK(&w->counter, timing.received_count <= c->total, "%s: timing filled", name);
    bitonic_mpi_result_free(&result);
    free(keys);
    free(values);
    free(input);
    free(reference);
    free(input_values);
    free(reference_values);
    free(starts);
    free(gathered);
    free(gathered_values);
    free(counts);
}

static void run_matrix(world *w, bool quick)
{
    uint64_t seed = 1;
    size_t cases = 0;
    for (int type = 0; type <= BITONIC_KEY_F64; ++type) {
        for (int mode = 0; mode < 3; ++mode) {           /* keys, pairs, stable pairs */
            for (int input = 0; input < PATTERN_COUNT; ++input) {
                if (quick && input != PATTERN_RANDOM && input != PATTERN_SPECIALS)
                    continue;
                if (quick && type != BITONIC_KEY_U32 && type != BITONIC_KEY_F64)
                    continue;
                ++cases;
                test_case c = {
                    .type = (bitonic_key_type)type,
                    .pairs = mode > 0,
                    .stable = mode == 2,
                    .descending = cases % 2 == 1,
                    .ranges = cases % 3 == 2,
                    .input = (pattern)input,
                    .layout = (split)(cases % SPLIT_COUNT),
                    .total = quick ? 3000 : 700 + (size_t)(seed * 7919 % 2500),
                    .merge = (bitonic_mpi_merge)(cases / 2 % 3),
                    .max_message = cases % 5 == 4 ? 97 : 0,
                    .seed = ++seed,
                };
                run_case(w, &c);
            }
        }
    }
    /* Fewer keys than ranks, and nothing at all. */
    for (size_t total = 0; total < 4; ++total)
        for (int type = 0; type <= BITONIC_KEY_F64; type += 3) {
            test_case c = {.type = (bitonic_key_type)type, .pairs = total % 2 == 1, .input = PATTERN_RANDOM,
                           .layout = (split)(total % SPLIT_COUNT), .total = total, .ranges = type > 0,
                           .seed = ++seed};
            run_case(w, &c);
        }
    /* Many ranks' worth of equal keys in splitter-range mode, each merge. */
    for (int merge = 0; merge < 3; ++merge) {
        test_case c = {.type = BITONIC_KEY_U32, .input = PATTERN_ALL_EQUAL, .total = 20000, .ranges = true,
                       .merge = (bitonic_mpi_merge)merge, .seed = ++seed};
        run_case(w, &c);
    }
    /* The chunked exchange with one-element messages. */
    test_case chunked = {.type = BITONIC_KEY_I64, .pairs = true, .stable = true, .input = PATTERN_MOSTLY_ONE,
                         .total = 500, .max_message = 1, .seed = ++seed};
    run_case(w, &chunked);
}

/* Every rank must return the same status, and the next sort must still work. */
static void expect_agreed(world *w, bitonic_status status, bitonic_status wanted, const char *what)
{
    int mine = status == wanted, all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (w->rank == 0)
        TEST_CHECK(&w->counter, all, "%s: every rank returns '%s' (rank 0 got '%s')", what,
                   bitonic_status_string(wanted), bitonic_status_string(status));
}

static void run_failures(world *w)
{
    bool last = w->rank == w->ranks - 1;
    uint32_t keys[64], values[64];
    for (uint32_t i = 0; i < 64; ++i) {
        keys[i] = (uint32_t)(w->rank * 64) + (i * 37u) % 64u;
        values[i] = i;
    }
    /* A NULL array with keys on one rank. */
    bitonic_status s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, last ? NULL : keys, NULL, 64, NULL, NULL);
    expect_agreed(w, s, BITONIC_ERROR_INVALID_ARGUMENT, "NULL keys on the last rank");
    /* A NULL context on one rank. */
    s = bitonic_mpi_sort(last ? NULL : w->context, MPI_COMM_WORLD, keys, NULL, 64, NULL, NULL);
    expect_agreed(w, s, BITONIC_ERROR_INVALID_ARGUMENT, "NULL context on the last rank");
    /* Options that differ between ranks. */
    s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, NULL, 64,
                         &(bitonic_mpi_sort_options){.order = last ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING},
                         NULL);
    expect_agreed(w, s, w->ranks > 1 ? BITONIC_ERROR_INVALID_ARGUMENT : BITONIC_SUCCESS, "orders that differ");
    s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, NULL, 64,
                         &(bitonic_mpi_sort_options){.key_type = (bitonic_key_type)(last ? 99 : 0)}, NULL);
    expect_agreed(w, s, BITONIC_ERROR_INVALID_ARGUMENT, "an unknown key type on the last rank");
    /* Values on every rank but one that holds keys. */
    s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, last ? NULL : values, 64, NULL, NULL);
    expect_agreed(w, s, w->ranks > 1 ? BITONIC_ERROR_INVALID_ARGUMENT : BITONIC_SUCCESS, "values missing on one rank");
    /* The local sort fails on one rank: pairs past the 2^32 - 1 limit (checked before any key is read). */
    s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, values, last ? (size_t)UINT32_MAX + 5 : 64, NULL, NULL);
    expect_agreed(w, s, BITONIC_ERROR_TOO_LARGE, "too many pairs on the last rank");
    /* Range mode without a result pointer on one rank. */
    bitonic_mpi_result result = {0};
    s = bitonic_mpi_sort_ranges(w->context, MPI_COMM_WORLD, keys, NULL, 64, NULL, last ? NULL : &result, NULL);
    expect_agreed(w, s, BITONIC_ERROR_INVALID_ARGUMENT, "no result pointer on the last rank");
    bitonic_mpi_result_free(&result);
    /* After all that, a sort still works on the same communicator. */
    for (uint32_t i = 0; i < 64; ++i)
        keys[i] = (uint32_t)(w->rank * 64) + (i * 37u) % 64u;
    s = bitonic_mpi_sort(w->context, MPI_COMM_WORLD, keys, NULL, 64, &(bitonic_mpi_sort_options){.order = 1}, NULL);
    expect_agreed(w, s, BITONIC_SUCCESS, "a sort after the failures");
    bool descending_run = true;
    for (uint32_t i = 0; i < 64; ++i)
        descending_run = descending_run && keys[i] == (uint32_t)(w->ranks - w->rank) * 64u - 1u - i;
    int mine = descending_run, all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (w->rank == 0)
        TEST_CHECK(&w->counter, all, "after the failures: rank r holds the r-th 64 keys from the top, descending");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    world w = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.ranks);
    const char *devices = argc > 1 && argv[1][0] != '-' ? argv[1] : "cpu";
    bool quick = argc > 2 && strcmp(argv[2], "--quick") == 0;
    /* This rank's entry of the comma-separated list. */
    char device[64] = "";
    int entries = 1;
    for (const char *c = devices; *c; ++c)
        entries += *c == ',';
    const char *entry = devices;
    for (int skip = w.rank % entries; skip > 0; --skip)
        entry = strchr(entry, ',') + 1;
    size_t length = strcspn(entry, ",");
    snprintf(device, sizeof device, "%.*s", (int)(length < sizeof device ? length : sizeof device - 1), entry);
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.device = strcmp(device, "default") == 0 ? NULL : device}, &w.context);
    int ok = status == BITONIC_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        if (w.rank == 0)
            printf("FAIL: a context on '%s': %s\n", device, bitonic_status_string(status));
        MPI_Finalize();
        return 1;
    }
    run_matrix(&w, quick);
    run_failures(&w);
    bitonic_context_destroy(w.context);
    int code = 0;
    if (w.rank == 0) {
        printf("%d ranks, devices %s: ", w.ranks, devices);
        code = test_finish(&w.counter);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
}
