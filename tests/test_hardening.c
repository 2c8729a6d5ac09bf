/* test_hardening.c: what an adversarial caller tries, on the CPU path, the
 * Vulkan device of BITONIC_TEST_DEVICE (lavapipe without a GPU, validation on)
 * and GLES where it is built: counts past what any array can hold, passed with
 * a small real array (so only a check made before any access passes),
 * misaligned and overlapping arrays, invalid descriptions and a malformed
 * BITONIC_CROSSOVER, one context shared by four threads, and FIFOs where the
 * cache files belong. Every case is bounded: an alarm fails a hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"
#include "cache_dir.h"
#include "test_util.h"
#include "vulkan_test_device.h"

static unsigned validation_printed;

static bitonic_context_desc desc_for(const char *device, const char *cache_directory)
{
    bool vulkan = strcmp(device, "cpu") != 0 && strcmp(device, "gles") != 0;
    return (bitonic_context_desc){.device = device, .validation = vulkan,
                                  .on_validation_message = vulkan ? test_print_validation_message : NULL,
                                  .message_user_data = vulkan ? &validation_printed : NULL,
                                  .cache_directory = cache_directory, .no_disk_cache = cache_directory == NULL};
}

static bool refused(bitonic_status status)
{
    return status == BITONIC_ERROR_TOO_LARGE || status == BITONIC_ERROR_INVALID_ARGUMENT;
}

static bool untouched(const uint64_t *canary, size_t words)
{
    for (size_t i = 0; i < words; ++i)
        if (canary[i] != 0x0123456789abcdefull * (i + 1))
            return false;
    return true;
}

static void fill_canary(uint64_t *canary, size_t words)
{
    for (size_t i = 0; i < words; ++i)
        canary[i] = 0x0123456789abcdefull * (i + 1);
}

/* Counts whose bytes overflow size_t, given with 64 real bytes. */
static void test_huge_counts(test_counter *t, bitonic_context *context, const char *name)
{
    uint64_t canary[8];
    size_t words = sizeof canary / sizeof canary[0];
    const size_t two62 = (size_t)1 << 62, two61 = (size_t)1 << 61;
    fill_canary(canary, words);
    bitonic_status status = bitonic_sort_u32(context, (uint32_t *)canary, two62, NULL);
    TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: u32 keys, n = 2^62: %s", name,
               bitonic_status_string(status));
    for (size_t n = two61; n != 0 && n <= two62; n <<= 1) {
        status = bitonic_sort(context, canary, n, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
        TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: u64 keys, n = %zu: %s", name, n,
                   bitonic_status_string(status));
    }
    status = bitonic_sort_rows(context, canary, two62, 2, NULL);
    TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: rows, 2^62 x 2: %s", name,
               bitonic_status_string(status));
    size_t offsets[2] = {0, two62};
    status = bitonic_sort_segments(context, canary, offsets, 1, NULL);
    TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: one segment of 2^62 keys: %s", name,
               bitonic_status_string(status));
    uint32_t values[4];
    status = bitonic_sort_pairs(context, canary, values, two62, NULL);
    TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: pairs, n = 2^62: %s", name,
               bitonic_status_string(status));
    status = bitonic_rank_map(context, canary, two62, values, NULL);
    TEST_CHECK(t, refused(status) && untouched(canary, words), "%s: rank map, n = 2^62: %s", name,
               bitonic_status_string(status));
    bitonic_buffer *buffer = NULL;
    status = bitonic_buffer_create(context, SIZE_MAX / 2, &buffer);
    TEST_CHECK(t, status != BITONIC_SUCCESS && buffer == NULL, "%s: a buffer of 2^63 keys: %s", name,
               bitonic_status_string(status));
}

static void test_arrays(test_counter *t, bitonic_context *context, const char *name)
{
    _Alignas(8) uint32_t storage[66];
    for (uint32_t i = 0; i < 66; ++i)
        storage[i] = 1000u - i;
    /* values = keys + 1: the two ranges share all but one element. */
    bitonic_status status = bitonic_sort_pairs(context, storage, storage + 1, 64, NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: values overlapping keys: %s", name,
               bitonic_status_string(status));
    status = bitonic_sort_pairs(context, storage, storage, 64, NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: values that are the keys: %s", name,
               bitonic_status_string(status));
    status = bitonic_argsort(context, storage, 32, storage + 16, NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: argsort indices overlapping keys: %s", name,
               bitonic_status_string(status));
    status = bitonic_sort_pairs(context, storage, storage + 32, 32, NULL);
    TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: adjacent keys and values are fine: %s", name,
               bitonic_status_string(status));

    unsigned char *bytes = (unsigned char *)storage;
    status = bitonic_sort_u32(context, (uint32_t *)(void *)(bytes + 1), 32, NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: misaligned u32 keys: %s", name,
               bitonic_status_string(status));
    status = bitonic_sort(context, storage + 1, 16, &(bitonic_sort_options){.key_type = BITONIC_KEY_F64});
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: 64-bit keys at a 4-byte boundary: %s", name,
               bitonic_status_string(status));
    status = bitonic_sort_pairs(context, storage, (uint32_t *)(void *)(bytes + 130), 16, NULL);
    TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT, "%s: misaligned values: %s", name,
               bitonic_status_string(status));
}

static void test_descriptions(test_counter *t, const char *device)
{
    const struct {
        const char *what;
        bitonic_context_desc desc;
        bitonic_tuning_overrides tuning;
    } cases[] = {
        {"strategy 9", {.device = device, .strategy = (bitonic_strategy)9}, {0}},
        {"merge kernel 7", {.device = device},
         {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .merge_kernel = (bitonic_merge_kernel)7}},
        {"split searcher 5", {.device = device},
         {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .merge_fused_split_searcher = (bitonic_split_searcher)5}},
        {"gles layout 3", {.device = device, .gles_layout = 3}, {0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        bitonic_context *context = NULL;
        bitonic_context_desc desc = cases[c].desc;
        desc.next = cases[c].tuning.type != 0 ? &cases[c].tuning : NULL;
        bitonic_status status = bitonic_context_create(&desc, &context);
        TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT && context == NULL, "%s: %s refused: %s", device,
                   cases[c].what, bitonic_status_string(status));
        bitonic_context_destroy(context);
    }
    static const char *const malformed[] = {"abc", "-1", "12345678901234567890123456", "18446744073709551616",
                                            "10 ", "+5", "0x10"};
    for (size_t m = 0; m < sizeof malformed / sizeof malformed[0]; ++m) {
        setenv("BITONIC_CROSSOVER", malformed[m], 1);
        bitonic_context *context = NULL;
        bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = device}, &context);
        TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT && context == NULL,
                   "%s: BITONIC_CROSSOVER=%s refused: %s", device, malformed[m], bitonic_status_string(status));
        bitonic_context_destroy(context);
    }
    static const char *const accepted[] = {"model", "auto", "0", "100000", "18446744073709551615"};
    for (size_t a = 0; a < sizeof accepted / sizeof accepted[0]; ++a) {
        setenv("BITONIC_CROSSOVER", accepted[a], 1);
        bitonic_context *context = NULL;
        bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = device}, &context);
        TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: BITONIC_CROSSOVER=%s accepted: %s", device, accepted[a],
                   bitonic_status_string(status));
        bitonic_context_destroy(context);
    }
    unsetenv("BITONIC_CROSSOVER");
}

/* Four threads on one context, each sorting keys, pairs and a resident
 * buffer of its own, every result checked. */
enum { THREADS = 4, ROUNDS = 6, THREAD_KEYS = 5000 };

typedef struct shared_sorts {
    bitonic_context *context;
    unsigned seed;
    unsigned wrong;                  /* results out of order or failed calls */
} shared_sorts;

static bool nondecreasing(const uint32_t *keys, size_t count)
{
    for (size_t i = 1; i < count; ++i)
        if (keys[i - 1] > keys[i])
            return false;
    return true;
}

static void *sort_on_shared_context(void *argument)
{
    shared_sorts *work = argument;
    uint64_t state = work->seed;
    uint32_t *keys = malloc(THREAD_KEYS * sizeof *keys), *values = malloc(THREAD_KEYS * sizeof *values);
    bitonic_buffer *buffer = NULL;
    if (!keys || !values || bitonic_buffer_create(work->context, THREAD_KEYS, &buffer) != BITONIC_SUCCESS) {
        ++work->wrong;
        free(keys);
        free(values);
        return NULL;
    }
    for (unsigned round = 0; round < ROUNDS; ++round) {
        size_t count = THREAD_KEYS - round * 311u;
        for (size_t i = 0; i < count; ++i) {
            keys[i] = (uint32_t)test_random_u64(&state);
            values[i] = keys[i] ^ 0x5a5a5a5au;
        }
        if (bitonic_sort_pairs(work->context, keys, values, count, NULL) != BITONIC_SUCCESS ||
            !nondecreasing(keys, count))
            ++work->wrong;
        for (size_t i = 0; i < count; ++i)
            work->wrong += values[i] != (keys[i] ^ 0x5a5a5a5au);
        for (size_t i = 0; i < count; ++i)
            keys[i] = (uint32_t)test_random_u64(&state);
        if (bitonic_sort_u32(work->context, keys, count, NULL) != BITONIC_SUCCESS || !nondecreasing(keys, count))
            ++work->wrong;
        for (size_t i = 0; i < count; ++i)
            keys[i] = (uint32_t)test_random_u64(&state);
        if (bitonic_buffer_upload(buffer, keys, count) != BITONIC_SUCCESS ||
            bitonic_buffer_sort(buffer, count, NULL, NULL) != BITONIC_SUCCESS ||
            bitonic_buffer_download(buffer, keys, count) != BITONIC_SUCCESS || !nondecreasing(keys, count))
            ++work->wrong;
        bitonic_context_info info;
        work->wrong += bitonic_context_get_info(work->context, &info) != BITONIC_SUCCESS;
    }
    bitonic_buffer_destroy(buffer);
    free(keys);
    free(values);
    return NULL;
}

static void test_shared_context(test_counter *t, bitonic_context *context, const char *name)
{
    pthread_t threads[THREADS];
    shared_sorts work[THREADS];
    unsigned started = 0;
    for (unsigned i = 0; i < THREADS; ++i) {
        work[i] = (shared_sorts){.context = context, .seed = 77u + i};
        started += pthread_create(&threads[i], NULL, sort_on_shared_context, &work[i]) == 0;
        if (started <= i)
            break;
    }
    unsigned wrong = 0;
    for (unsigned i = 0; i < started; ++i) {
        pthread_join(threads[i], NULL);
        wrong += work[i].wrong;
    }
    TEST_CHECK(t, started == THREADS && wrong == 0, "%s: %u threads on one context: %u wrong results", name,
               started, wrong);
}

/* A FIFO read as a cache file is a missing one, at once. */
static void test_cache_fifo(test_counter *t, const char *root)
{
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/census-fifo.txt", root);
    TEST_CHECK(t, mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
    unsigned char *bytes = NULL;
    size_t size = 0;
    TEST_CHECK(t, !bitonic_cache_read_file(fifo, 1024, &bytes, &size) && bytes == NULL,
               "a FIFO as a cache file reads as absent");
    unlink(fifo);
}

/* Every file a Vulkan context leaves in its cache directory replaced by a FIFO
 * of the same name: the next context must start (cold), sort, and replace them. */
static void test_cache_directory_of_fifos(test_counter *t, const char *root, const char *device)
{
    char directory[512];
    snprintf(directory, sizeof directory, "%s/cache", root);
    uint32_t keys[5000];
    uint64_t state = 5;
    setenv("BITONIC_CROSSOVER", "model", 1);  /* so the crossover file is read too */
    for (int run = 0; run < 2; ++run) {
        bitonic_context_desc desc = desc_for(device, directory);
        bitonic_context *context = NULL;
        bitonic_status status = bitonic_context_create(&desc, &context);
        for (size_t i = 0; i < 5000; ++i)
            keys[i] = (uint32_t)test_random_u64(&state);
        if (status == BITONIC_SUCCESS)
            status = bitonic_sort_u32(context, keys, 5000, NULL);
        TEST_CHECK(t, status == BITONIC_SUCCESS && nondecreasing(keys, 5000), "%s: sort with the cache %s: %s",
                   device, run ? "of FIFOs" : "made", bitonic_status_string(status));
        bitonic_context_destroy(context);
        if (run == 0) {
            char command[1200];
            snprintf(command, sizeof command,
                     "cd '%s' && n=0 && for f in *; do [ -f \"$f\" ] || continue; rm \"$f\" && mkfifo \"$f\" && "
                     "n=$((n+1)); done && [ $n -gt 0 ]",
                     directory);
            TEST_CHECK(t, system(command) == 0, "%s: the cache files replaced by FIFOs", device);
        }
    }
    unsetenv("BITONIC_CROSSOVER");
}

static void run_backend(test_counter *t, const char *device, const char *root)
{
    bitonic_context_desc desc = desc_for(device, NULL);
    bitonic_context *context = NULL;
    bitonic_status status = bitonic_context_create(&desc, &context);
    if (strcmp(device, "gles") == 0 && status == BITONIC_ERROR_GLES_UNAVAILABLE) {
        printf("gles: skipped (%s)\n", bitonic_status_string(status));
        return;
    }
    if (!TEST_CHECK(t, status == BITONIC_SUCCESS, "%s: context: %s", device, bitonic_status_string(status)))
        return;
    test_huge_counts(t, context, device);
    test_arrays(t, context, device);
    test_shared_context(t, context, device);
    bitonic_context_destroy(context);
    test_descriptions(t, device);
    if (strcmp(device, "cpu") != 0 && strcmp(device, "gles") != 0)
        test_cache_directory_of_fifos(t, root, device);
}

static void on_alarm(int signal_number)
{
    (void)signal_number;
    static const char message[] = "FAIL: the hardening test hung (a FIFO open or a lock)\n";
    ssize_t written = write(STDOUT_FILENO, message, sizeof message - 1);
    (void)written;
    _exit(1);
}

int main(void)
{
    test_counter t = {0};
    signal(SIGALRM, on_alarm);
    alarm(240);
    char root[] = "/tmp/bitonic-hardening-test-XXXXXX";
    if (!mkdtemp(root)) {
        printf("cannot make a temporary directory\n");
        return 1;
    }
    test_cache_fifo(&t, root);
    run_backend(&t, "cpu", root);
    run_backend(&t, test_device_selector(), root);
#ifdef BITONIC_TEST_GLES
    run_backend(&t, "gles", root);
#endif
    TEST_CHECK(&t, validation_printed == 0, "%u validation messages", validation_printed);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    if (system(command) != 0)
        printf("could not remove %s\n", root);
    return test_finish(&t);
}
