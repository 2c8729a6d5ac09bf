/* bench_keys.c: the random keys `bitonic bench` sorts and the checks of its
 * results (see bench_keys.h): keys of every bench type made from a seed, and
 * sorted output checked for order and for a fingerprint of the key multiset,
 * both split over threads on the host. */
#define _POSIX_C_SOURCE 200809L
#include "bench_keys.h"
#include "bench_command.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Whether float bits a may come before b in the documented order: numbers
 * ascending with -0 before +0, then NaNs (positive ones, then negative ones). */
static bool f32_in_order(uint32_t a_bits, uint32_t b_bits)
{
    float a, b;
    memcpy(&a, &a_bits, sizeof a);
    memcpy(&b, &b_bits, sizeof b);
    if (isnan(a) || isnan(b)) {
        int class_a = isnan(a) ? 1 + (int)(a_bits >> 31) : 0, class_b = isnan(b) ? 1 + (int)(b_bits >> 31) : 0;
        if (class_a != class_b)
            return class_a < class_b;
        return class_a == 1 ? a_bits <= b_bits : a_bits >= b_bits;
    }
    if (a == b)
        return a != 0.0f || (a_bits >> 31) >= (b_bits >> 31);
    return a < b;
}

/* Making and checking the keys on the host, split over threads. Each run's
 * keys are made, uploaded, downloaded and checked on the host, and at 2^27 to
 * 2^28 keys that took about 18 s a size on one core of the H200's machine,
 * where the GPU's ten sorts take a tenth of a second (docs/perf-log.md,
 * entry 103). Key i is mix64 of the seed's state plus i + 1 steps, so a range
 * is made anywhere, and a fingerprint is a sum, so ranges add up: the keys and
 * the verdicts are those of one thread. */
#define HOST_RANGE_MIN_KEYS (1u << 20)
#define HOST_MAX_THREADS 16u
#define SEED_STEP 0x9e3779b97f4a7c15ull

enum host_work { MAKE_KEYS, MAKE_KEYS64, CHECK_KEYS, CHECK_KEYS64, CHECK_ROWS };

typedef struct key_range {
    enum host_work work;
    uint32_t *keys;         /* MAKE_*: the keys made (2n words for 64-bit keys) */
    uint32_t *values;       /* MAKE_KEYS of pairs: the values made (the indices); else NULL */
    const uint32_t *sorted; /* CHECK_*: the keys checked (2n words for 64-bit keys) */
    const uint32_t *sorted_values; /* CHECK_KEYS of pairs: their values; else NULL */
    unsigned type;          /* CHECK_KEYS: the bench type (f32 order, pairs' ties) */
    uint64_t state;         /* MAKE_*: the seed's state before key 0 */
    size_t first, end;      /* this range of keys */
    uint64_t fingerprint;   /* out: the range's part of the sum */
    size_t out_of_order;    /* out, CHECK_*: the first i with keys i - 1 and i out of order, or SIZE_MAX */
} key_range;

static void work_on_range(key_range *range)
{
    uint64_t sum = 0;
    range->out_of_order = SIZE_MAX;
    for (size_t i = range->first; i < range->end; ++i) {
        switch (range->work) {
        case MAKE_KEYS: {
            uint32_t key = (uint32_t)mix64(range->state + (uint64_t)(i + 1u) * SEED_STEP);
            range->keys[i] = key;
            if (range->values) {
                range->values[i] = (uint32_t)i;
                sum += mix64((uint64_t)key << 32 | i);
            } else {
                sum += mix64(key);
            }
            break;
        }
        case MAKE_KEYS64: {
            uint64_t key = mix64(range->state + (uint64_t)(i + 1u) * SEED_STEP);
            range->keys[2 * i] = (uint32_t)key;
            range->keys[2 * i + 1] = (uint32_t)(key >> 32);
            sum += mix64(key);
            break;
        }
        case CHECK_KEYS: {
            const uint32_t *keys = range->sorted, *values = range->sorted_values;
            if (i > 0) {
                bool in_order = range->type == BENCH_TYPE_F32 ? f32_in_order(keys[i - 1], keys[i]) : keys[i - 1] <= keys[i];
                if (range->type == BENCH_TYPE_PAIRS && keys[i - 1] == keys[i])
                    in_order = values[i - 1] < values[i];  /* equal keys in value order */
                if (!in_order) {
                    range->out_of_order = i;
                    return;
                }
            }
            sum += values ? mix64((uint64_t)keys[i] << 32 | values[i]) : mix64(keys[i]);
            break;
        }
        case CHECK_KEYS64: {
            const uint32_t *words = range->sorted;
            uint64_t key = (uint64_t)words[2 * i + 1] << 32 | words[2 * i];
            if (i > 0 && ((uint64_t)words[2 * i - 1] << 32 | words[2 * i - 2]) > key) {
                range->out_of_order = i;
                return;
            }
            sum += mix64(key);
            break;
        }
        case CHECK_ROWS:
            if (i % BENCH_ROW_LENGTH != 0 && range->sorted[i - 1] > range->sorted[i]) {
                range->out_of_order = i;
                return;
            }
            sum += mix64(range->sorted[i]);
            break;
        }
    }
    range->fingerprint = sum;
}

static void *work_on_range_thread(void *range)
{
    work_on_range(range);
    return NULL;
}

/* The work on keys [0, n) in ranges over up to HOST_MAX_THREADS threads (one
 * where n is small or no thread starts); whole->fingerprint and
 * whole->out_of_order come back summed and least. */
static void work_on_keys(key_range *whole, size_t n)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = online < 1 ? 1u : (size_t)online;
    if (threads > HOST_MAX_THREADS)
        threads = HOST_MAX_THREADS;
    if (threads > n / HOST_RANGE_MIN_KEYS)
        threads = n / HOST_RANGE_MIN_KEYS < 1u ? 1u : n / HOST_RANGE_MIN_KEYS;
    key_range ranges[HOST_MAX_THREADS];
    pthread_t ids[HOST_MAX_THREADS];
    bool started[HOST_MAX_THREADS];
    for (size_t t = 0; t < threads; ++t) {
        ranges[t] = *whole;
        ranges[t].first = n / threads * t;
        ranges[t].end = t + 1 == threads ? n : n / threads * (t + 1);
        /* Range 0 runs here, after the others have started. */
        started[t] = t > 0 && pthread_create(&ids[t], NULL, work_on_range_thread, &ranges[t]) == 0;
    }
    for (size_t t = 0; t < threads; ++t)
        if (!started[t])
            work_on_range(&ranges[t]);
    whole->fingerprint = 0;
    whole->out_of_order = SIZE_MAX;
    for (size_t t = 0; t < threads; ++t) {
        if (started[t])
            pthread_join(ids[t], NULL);
        whole->fingerprint += ranges[t].fingerprint;
        if (ranges[t].out_of_order < whole->out_of_order)
            whole->out_of_order = ranges[t].out_of_order;
    }
}

/* Fills keys with random bits (and values with the indices); returns a
 * fingerprint of the multiset of keys, or of (key, value) pairs. */
uint64_t bench_fill_random(uint32_t *keys, uint32_t *values, size_t n, uint64_t *state)
{
    key_range whole = {.work = MAKE_KEYS, .keys = keys, .values = values, .state = *state};
    work_on_keys(&whole, n);
    *state += (uint64_t)n * SEED_STEP;
    return whole.fingerprint;
}

/* n 64-bit keys of random bits as 2n words (low word first). */
uint64_t bench_fill_random64(uint32_t *words, size_t n, uint64_t *state)
{
    key_range whole = {.work = MAKE_KEYS64, .keys = words, .state = *state};
    work_on_keys(&whole, n);
    *state += (uint64_t)n * SEED_STEP;
    return whole.fingerprint;
}

/* n keys as rows of BENCH_ROW_LENGTH (the last one shorter): each row ascending,
 * and the same multiset. */
bool bench_verify_rows(const uint32_t *keys, size_t n, uint64_t fingerprint)
{
    key_range whole = {.work = CHECK_ROWS, .sorted = keys};
    work_on_keys(&whole, n);
    return whole.out_of_order == SIZE_MAX && whole.fingerprint == fingerprint;
}

/* n 64-bit keys held as 2n words: ascending and the same multiset. */
bool bench_verify64(const uint32_t *words, size_t n, uint64_t fingerprint)
{
    key_range whole = {.work = CHECK_KEYS64, .sorted = words};
    work_on_keys(&whole, n);
    return whole.out_of_order == SIZE_MAX && whole.fingerprint == fingerprint;
}

bool bench_verify(const uint32_t *keys, const uint32_t *values, size_t n, uint64_t fingerprint, unsigned type)
{
    key_range whole = {.work = CHECK_KEYS, .sorted = keys, .sorted_values = values, .type = type};
    work_on_keys(&whole, n);
    if (whole.out_of_order != SIZE_MAX) {
        /* Where it breaks says which pass did (a merge level leaves runs of a power of two). */
        size_t i = whole.out_of_order;
        fprintf(stderr, "bitonic: %zu keys: out of order at index %zu (%08x then %08x)\n", n, i, keys[i - 1], keys[i]);
        return false;
    }
    if (whole.fingerprint != fingerprint)
        fprintf(stderr, "bitonic: %zu keys: in order but not the same keys (fingerprint)\n", n);
    return whole.fingerprint == fingerprint;
}
