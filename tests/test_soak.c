/* test_soak.c: one CPU context under load. Four threads share it and make
 * 20000 sorts between them (u32, i32, u64, f32 keys, pairs, argsort, each
 * ascending or descending, of random sizes up to 2^15), every result checked:
 * ordered, and the same multiset of keys (a sum and an xor of mixed keys)
 * for pairs each value still with its key. Memory must stay flat: the
 * resident set at the end within 10% of what it was after the first 100
 * sorts. Bounded by time too (20 s), for a slow or crowded machine. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bitonic.h"
#include "test_util.h"

/* AddressSanitizer keeps freed blocks resident in its quarantine (256 MiB),
 * so the resident set says nothing there; its leak check stands in. */
#if defined(__SANITIZE_ADDRESS__)
#define RESIDENT_SET_MEANINGFUL 0
#else
#define RESIDENT_SET_MEANINGFUL 1
#endif

enum { THREADS = 4, TOTAL_SORTS = 20000, WARM_SORTS = 100, MAX_LOG = 15 };
#define TIME_LIMIT_S 20.0

static bitonic_context *shared;
static atomic_int started = 0, finished = 0, wrong = 0, failed_calls = 0;
static atomic_long warm_rss_pages = 0;
static double start_s;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long resident_pages(void)
{
    FILE *file = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (file) {
        if (fscanf(file, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(file);
    }
    return resident;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

typedef struct fingerprint {
    uint64_t sum, xor_mixed;
} fingerprint;

static fingerprint fingerprint_of(const unsigned char *keys, size_t count, size_t width)
{
    fingerprint f = {0, 0};
    for (size_t i = 0; i < count; ++i) {
        uint64_t key = 0;
        memcpy(&key, keys + i * width, width);
        f.sum += mix(key);
        f.xor_mixed ^= mix(key + 0x9e3779b97f4a7c15ull);
    }
    return f;
}

/* Key i against key i+1 in the order asked, by type. */
static bool in_order(const void *keys, size_t i, bitonic_key_type type, bool descending)
{
    int compared = 0;
    switch (type) {
    case BITONIC_KEY_I32: {
        const int32_t *k = keys;
        compared = (k[i] > k[i + 1]) - (k[i] < k[i + 1]);
        break;
    }
    case BITONIC_KEY_U64: {
        const uint64_t *k = keys;
        compared = (k[i] > k[i + 1]) - (k[i] < k[i + 1]);
        break;
    }
    case BITONIC_KEY_F32: {  /* finite keys only here */
        const float *k = keys;
        compared = (k[i] > k[i + 1]) - (k[i] < k[i + 1]);
        break;
    }
    default: {
        const uint32_t *k = keys;
        compared = (k[i] > k[i + 1]) - (k[i] < k[i + 1]);
        break;
    }
    }
    return descending ? compared >= 0 : compared <= 0;
}

static void *soak(void *argument)
{
    uint64_t state = 0x1234567ull + (uint64_t)(uintptr_t)argument * 0x9e3779b97f4a7c15ull;
    size_t capacity = (size_t)1 << MAX_LOG;
    uint64_t *keys = malloc(capacity * sizeof *keys), *original = malloc(capacity * sizeof *original);
    uint32_t *values = malloc(capacity * sizeof *values);
    if (!keys || !original || !values) {
        atomic_fetch_add(&failed_calls, 1);
        free(keys);
        free(original);
        free(values);
        return NULL;
    }
    /* Touched now, so the resident set counts the test's own arrays whole from the start. */
    memset(keys, 0, capacity * sizeof *keys);
    memset(original, 0, capacity * sizeof *original);
    memset(values, 0, capacity * sizeof *values);
    static const bitonic_key_type types[] = {BITONIC_KEY_U32, BITONIC_KEY_I32, BITONIC_KEY_U64, BITONIC_KEY_F32};
    for (unsigned own = 0; atomic_fetch_add(&started, 1) < TOTAL_SORTS && now_s() - start_s < TIME_LIMIT_S; ++own) {
        /* Sizes spread over every power of two up to 2^15, not clustered at the top. */
        size_t count = 1 + ((size_t)(test_random_u64(&state) % capacity) >> (test_random_u64(&state) % MAX_LOG));
        bitonic_key_type type = types[test_random_u64(&state) % 4];
        size_t width = type == BITONIC_KEY_U64 ? 8 : 4;
        unsigned call = (unsigned)(test_random_u64(&state) % 3);  /* sort, pairs, argsort */
        /* Each thread's first three sorts are of the largest size, a sort,
         * pairs and an argsort, so that what the context keeps between calls
         * (the CPU path's pair buffer) and the allocator's arenas are at
         * their size before the resident set is first taken. */
        if (own < 3u) {
            count = capacity;
            type = BITONIC_KEY_U32;
            width = 4;
            call = own;
        }
        if (width == 8 && call != 0)
            call = 0;
        bitonic_sort_options options = {.key_type = type, .order = test_random_u64(&state) % 2
                                                                    ? BITONIC_ORDER_DESCENDING
                                                                    : BITONIC_ORDER_ASCENDING};
        bool descending = options.order == BITONIC_ORDER_DESCENDING;
        unsigned char *bytes = (unsigned char *)keys;
        for (size_t i = 0; i < count; ++i) {
            uint64_t r = test_random_u64(&state) % (count < 64 ? 16u : 1000003u);  /* ties too */
            if (type == BITONIC_KEY_F32) {
                float f = (float)((int64_t)r - 500000) / 8.0f;
                memcpy(bytes + i * 4, &f, 4);
            } else if (width == 8) {
                keys[i] = r * 0x100000001ull;
            } else {
                uint32_t u = (uint32_t)r - 500000u;
                memcpy(bytes + i * 4, &u, 4);
            }
            values[i] = (uint32_t)i;
        }
        memcpy(original, keys, count * width);
        fingerprint before = fingerprint_of(bytes, count, width);
        bitonic_status status;
        bool ok = true;
        if (call == 0) {
            status = bitonic_sort(shared, keys, count, &options);
        } else if (call == 1) {
            status = bitonic_sort_pairs(shared, keys, values, count, &options);
            for (size_t i = 0; i < count && ok && status == BITONIC_SUCCESS; ++i)
                ok = values[i] < count && memcmp((unsigned char *)original + values[i] * 4, bytes + i * 4, 4) == 0;
        } else {
            status = bitonic_argsort(shared, original, count, values, &options);
            for (size_t i = 0; i < count && ok && status == BITONIC_SUCCESS; ++i)
                ok = values[i] < count;
            for (size_t i = 0; i < count && ok && status == BITONIC_SUCCESS; ++i)
                memcpy(bytes + i * 4, (unsigned char *)original + values[i] * 4, 4);
        }
        if (status != BITONIC_SUCCESS) {
            atomic_fetch_add(&failed_calls, 1);
        } else {
            fingerprint after = fingerprint_of(bytes, count, width);
            ok = ok && after.sum == before.sum && after.xor_mixed == before.xor_mixed;
            for (size_t i = 0; i + 1 < count && ok; ++i)
                ok = in_order(keys, i, type, descending);
            if (!ok)
                atomic_fetch_add(&wrong, 1);
        }
        if (atomic_fetch_add(&finished, 1) + 1 == WARM_SORTS)
            atomic_store(&warm_rss_pages, resident_pages());
    }
    free(keys);
    free(original);
    free(values);
    return NULL;
}

int main(void)
{
    test_counter t = {0};
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.device = "cpu", .cpu_threads = 2, .no_disk_cache = true}, &shared);
    TEST_CHECK(&t, status == BITONIC_SUCCESS, "CPU context: %s", bitonic_status_string(status));
    if (status != BITONIC_SUCCESS)
        return test_finish(&t);
    start_s = now_s();
    pthread_t threads[THREADS];
    for (uintptr_t i = 0; i < THREADS; ++i)
        pthread_create(&threads[i], NULL, soak, (void *)i);
    for (int i = 0; i < THREADS; ++i)
        pthread_join(threads[i], NULL);
    double seconds = now_s() - start_s;
    long end_pages = resident_pages(), warm_pages = atomic_load(&warm_rss_pages);
    int done = atomic_load(&finished);
    bitonic_context_destroy(shared);
    TEST_CHECK(&t, done >= WARM_SORTS * 2, "at least %d sorts in the time (%d in %.1f s)", WARM_SORTS * 2, done,
               seconds);
    TEST_CHECK(&t, atomic_load(&failed_calls) == 0, "every call succeeds (%d failed)", atomic_load(&failed_calls));
    TEST_CHECK(&t, atomic_load(&wrong) == 0, "every result verified (%d wrong)", atomic_load(&wrong));
    TEST_CHECK(&t, !RESIDENT_SET_MEANINGFUL || (warm_pages > 0 && end_pages * 10 <= warm_pages * 11),
               "memory flat: %ld KiB resident after %d sorts, %ld KiB at the end", warm_pages * 4, WARM_SORTS,
               end_pages * 4);
    printf("%d sorts on one context from %d threads in %.1f s; resident %ld KiB after %d, %ld KiB at the end\n", done,
           THREADS, seconds, warm_pages * 4, WARM_SORTS, end_pages * 4);
    return test_finish(&t);
}
