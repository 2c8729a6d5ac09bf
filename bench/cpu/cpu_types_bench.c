/* cpu_types_bench.c: every key type and pair call of the CPU path through the
 * public API, on one CPU context, timed in process CPU time and wall time.
 *
 *   bitonic_cpu_types_bench <min log> <max log> <threads> [type,type,...|all] [runs]
 *
 * For each n = 2^min .. 2^max and each of u32, u64, f64, pairs (u32 keys, u32
 * values), stable (stable pairs), argsort (u32 keys), pairs64 (u64 keys with
 * values), stable64 and argsort64 (the same of u64 keys) and records (of 16
 * bytes, a u32 key first, by bitonic_sort_records) it sorts random keys
 * (values 0..n-1; the same keys for each kind of a run, fresh ones each run)
 * `runs` times (default 5), the kinds by turns in each run, and prints
 * `type log2(n) cpu_ms wall_ms`, the least of them; below 2^16 each time
 * is the mean of enough sorts to make 2^16 keys. Every result is checked (keys
 * in order, each value still with its key). threads is
 * bitonic_context_desc.cpu_threads (0: all cores); with 1, all the work is on
 * the calling thread and the CPU time does not depend on the machine's load as
 * the wall time does. On a machine shared with other tenants a sort can take
 * 1.5x its time, for seconds at a stretch (the 2-core machine, even as the
 * least of 20: docs/perf-log.md, entry 139), hence more runs where it
 * matters. The context lives for the whole run, as a program's
 * would. To compare two builds on a shared machine, run one process of each by
 * turns and keep each figure's minimum over the rounds (docs/perf-log.md,
 * entry 112). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitonic.h"

typedef enum sort_kind {
    U32, U64, F64, PAIRS, STABLE_PAIRS, ARGSORT, PAIRS64, STABLE64, ARGSORT64, RECORDS, KIND_COUNT
} sort_kind;
static const char *const kind_names[KIND_COUNT] = {"u32",     "u64",      "f64",       "pairs",
                                                   "stable",  "argsort",  "pairs64",   "stable64",
                                                   "argsort64", "records"};

static double clock_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A record of the records kind: the key, its input position, the rest. */
typedef struct record {
    uint32_t key, position;
    uint64_t rest;
} record;

typedef struct arrays {
    uint64_t *random_words;  /* the input of every kind, n + 2^16 of them */
    double *random_doubles;
    uint64_t *keys;          /* sorted in place (u32 keys use the first half) */
    uint32_t *values, *indices;
    record *records;
} arrays;

/* Zero, read where the compiler cannot know it (below). */
static volatile uint64_t unknown_zero;

/* Fills the keys and values of one sort, from offset shift of the random input
 * (a different input each sort of a batch), by plain stores for every kind, so
 * each sort starts with its input in the caches as far as they hold it. The
 * 64-bit keys are xored with a zero the compiler cannot see: a copy loop
 * becomes memcpy, whose large copies store around the caches, and the 64-bit
 * kinds then read their input from memory where u32 read theirs from L3 (at
 * 2^19 pairs of 64-bit keys, 1.1-1.3x the time; docs/perf-log.md, entry 139). */
static void fill(const arrays *a, sort_kind kind, size_t count, size_t shift)
{
    uint32_t *keys32 = (uint32_t *)a->keys;
    uint64_t zero = unknown_zero;
    if (kind == U64 || (kind >= PAIRS64 && kind <= ARGSORT64))
        for (size_t i = 0; i < count; i++)
            a->keys[i] = a->random_words[i + shift] ^ zero;
    else if (kind == F64)
        for (size_t i = 0; i < count; i++) {
            uint64_t bits;
            memcpy(&bits, &a->random_doubles[i + shift], sizeof bits);
            bits ^= zero;
            memcpy(&a->keys[i], &bits, sizeof bits);
        }
    else
        for (size_t i = 0; i < count; i++)
            keys32[i] = (uint32_t)(a->random_words[i + shift] >> 32);
    for (size_t i = 0; i < count; i++)
        a->values[i] = (uint32_t)i;
    if (kind == RECORDS)
        for (size_t i = 0; i < count; i++)
            a->records[i] = (record){keys32[i], (uint32_t)i, a->random_words[i + shift]};
}

static bitonic_status sort_once(bitonic_context *context, const arrays *a, sort_kind kind, size_t count)
{
    switch (kind) {
    case U32: return bitonic_sort_u32(context, (uint32_t *)a->keys, count, NULL);
    case U64: return bitonic_sort(context, a->keys, count, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
    case F64: return bitonic_sort(context, a->keys, count, &(bitonic_sort_options){.key_type = BITONIC_KEY_F64});
    case PAIRS: return bitonic_sort_pairs(context, a->keys, a->values, count, NULL);
    case STABLE_PAIRS:
        return bitonic_sort_pairs(context, a->keys, a->values, count, &(bitonic_sort_options){.stable = true});
    case ARGSORT: return bitonic_argsort(context, a->keys, count, a->indices, NULL);
    case PAIRS64:
        return bitonic_sort_pairs(context, a->keys, a->values, count,
                                  &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
    case STABLE64:
        return bitonic_sort_pairs(context, a->keys, a->values, count,
                                  &(bitonic_sort_options){.key_type = BITONIC_KEY_U64, .stable = true});
    case ARGSORT64:
        return bitonic_argsort(context, a->keys, count, a->indices,
                               &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
    case RECORDS: return bitonic_sort_records(context, a->records, count, sizeof(record), 0, NULL);
    default: return BITONIC_ERROR_INVALID_ARGUMENT;
    }
}

/* Keys in order, and each value (an input position) still with its key. */
static int sorted_correctly(const arrays *a, sort_kind kind, size_t count, size_t shift)
{
    const uint32_t *keys32 = (const uint32_t *)a->keys;
    const double *doubles = (const double *)a->keys;
    for (size_t i = 1; i < count; i++) {
        int in_order = kind == U64 || kind == PAIRS64 || kind == STABLE64 ? a->keys[i - 1] <= a->keys[i]
                       : kind == F64       ? doubles[i - 1] <= doubles[i]
                       : kind == ARGSORT   ? keys32[a->indices[i - 1]] <= keys32[a->indices[i]]
                       : kind == ARGSORT64 ? a->keys[a->indices[i - 1]] <= a->keys[a->indices[i]]
                       : kind == RECORDS   ? a->records[i - 1].key <= a->records[i].key
                                           : keys32[i - 1] <= keys32[i];
        if (!in_order)
            return 0;
    }
    for (size_t i = 0; i < count; i++) {
        if (kind == PAIRS || kind == STABLE_PAIRS) {
            if ((uint32_t)(a->random_words[a->values[i] + shift] >> 32) != keys32[i])
                return 0;
        } else if ((kind == PAIRS64 || kind == STABLE64) && a->random_words[a->values[i] + shift] != a->keys[i]) {
            return 0;
        } else if (kind == RECORDS) {
            const record *r = &a->records[i];
            if ((uint32_t)(a->random_words[r->position + shift] >> 32) != r->key ||
                a->random_words[r->position + shift] != r->rest)
                return 0;
        }
    }
    return 1;
}

/* Whether name is one of the comma-separated names of list ("all" or "": every one). */
static int listed(const char *list, const char *name)
{
    if (!*list || strcmp(list, "all") == 0)
        return 1;
    size_t length = strlen(name);
    for (const char *at = list; *at; at += strcspn(at, ",")) {
        at += *at == ',';
        if (strncmp(at, name, length) == 0 && (at[length] == ',' || at[length] == '\0'))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s <min log> <max log> <threads> [u32,u64,f64,pairs,stable,argsort,pairs64,stable64,argsort64,records|all] [runs]\n",
                argv[0]);
        return 2;
    }
    int min_log = atoi(argv[1]), max_log = atoi(argv[2]);
    const char *only = argc > 4 ? argv[4] : "all";
    int runs = argc > 5 ? atoi(argv[5]) : 5;
    if (min_log < 1 || max_log < min_log || max_log > 30 || runs < 1 || runs > 1000) {
        fprintf(stderr, "logs must satisfy 1 <= min <= max <= 30, and runs 1..1000\n");
        return 2;
    }
    bitonic_context *context;
    bitonic_context_desc desc = {.device = "cpu", .cpu_threads = (uint32_t)atoi(argv[3])};
    bitonic_status status = bitonic_context_create(&desc, &context);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "context: %s\n", bitonic_status_string(status));
        return 1;
    }
    size_t most = (size_t)1 << max_log, spare = (size_t)1 << 16;
    arrays a = {malloc((most + spare) * sizeof(uint64_t)), malloc((most + spare) * sizeof(double)),
                malloc(most * sizeof(uint64_t)), malloc(most * sizeof(uint32_t)), malloc(most * sizeof(uint32_t)),
                malloc(most * sizeof(record))};
    if (!a.random_words || !a.random_doubles || !a.keys || !a.values || !a.indices || !a.records) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < most + spare; i++) {
        a.random_words[i] = next_random(&state);
        a.random_doubles[i] = (double)(int64_t)a.random_words[i] * 1e-9;
    }
    int failed = 0;
    for (int log = min_log; log <= max_log && !failed; log++) {
        size_t count = (size_t)1 << log, batch = count < spare ? spare / count : 1;
        double best_cpu[KIND_COUNT], best_wall[KIND_COUNT];
        for (int kind = 0; kind < KIND_COUNT; kind++)
            best_cpu[kind] = best_wall[kind] = 1e300;
        /* The kinds by turns within each run, so a slow stretch of the
         * machine falls on all of them alike. */
        for (int repeat = 0; repeat < runs && !failed; repeat++) {
            for (int kind = 0; kind < KIND_COUNT && !failed; kind++) {
                if (!listed(only, kind_names[kind]))
                    continue;
                double cpu = 0, wall = 0;
                for (size_t b = 0; b < batch && !failed; b++) {
                    size_t shift = ((size_t)repeat * batch + b) % spare;
                    fill(&a, (sort_kind)kind, count, shift);
                    double cpu_start = clock_ms(CLOCK_PROCESS_CPUTIME_ID), wall_start = clock_ms(CLOCK_MONOTONIC);
                    status = sort_once(context, &a, (sort_kind)kind, count);
                    cpu += clock_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
                    wall += clock_ms(CLOCK_MONOTONIC) - wall_start;
                    if (status != BITONIC_SUCCESS || !sorted_correctly(&a, (sort_kind)kind, count, shift)) {
                        fprintf(stderr, "%s 2^%d: %s\n", kind_names[kind], log,
                                status != BITONIC_SUCCESS ? bitonic_status_string(status) : "wrong result");
                        failed = 1;
                    }
                }
                best_cpu[kind] = cpu / (double)batch < best_cpu[kind] ? cpu / (double)batch : best_cpu[kind];
                best_wall[kind] = wall / (double)batch < best_wall[kind] ? wall / (double)batch : best_wall[kind];
            }
        }
        for (int kind = 0; kind < KIND_COUNT && !failed; kind++)
            if (listed(only, kind_names[kind]))
                printf("%s %d %.4f %.4f\n", kind_names[kind], log, best_cpu[kind], best_wall[kind]);
        fflush(stdout);
    }
    bitonic_context_destroy(context);
    free(a.random_words);
    free(a.random_doubles);
    free(a.keys);
    free(a.values);
    free(a.indices);
    free(a.records);
    return failed;
}
