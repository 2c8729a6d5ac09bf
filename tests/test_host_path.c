/* test_host_path.c: the host-memory path: the pipeline cache on disk (cold,
 * warm, corrupt, foreign, unwritable, off), the CPU/device choice of host sorts
 * (forced each way, from the environment, from a stored crossover, and the
 * calibrated model), the default selection's census, and host arrays imported (VK_EXT_external_memory_host) or
 * staged, at sizes and offsets that leave ragged ends. Runs on the test device
 * (lavapipe without a GPU) with validation on; a validation message fails it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitonic.h"
#include "test_util.h"
#include "vulkan_test_device.h"

static unsigned validation_printed;

static bitonic_context_desc test_desc(const char *cache_directory)
{
    return (bitonic_context_desc){.device = test_device_selector(), .validation = test_validation(),
                                  .on_validation_message = test_print_validation_message,
                                  .message_user_data = &validation_printed, .cache_directory = cache_directory};
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts count random u32 keys through the context and checks them against qsort. */
static bool sort_checks(bitonic_context *context, uint32_t *keys, size_t count, uint64_t *seed)
{
    uint32_t *expected = malloc(count * sizeof *expected + 1);
    for (size_t i = 0; i < count; ++i)
        expected[i] = keys[i] = (uint32_t)test_random_u64(seed);
    qsort(expected, count, sizeof *expected, compare_u32);
    bool ok = bitonic_sort_u32(context, keys, count, NULL) == BITONIC_SUCCESS &&
              memcmp(keys, expected, count * sizeof *keys) == 0;
    free(expected);
    return ok;
}

static bool file_exists(const char *path, off_t *size)
{
    struct stat status;
    if (stat(path, &status) != 0)
        return false;
    *size = status.st_size;
    return true;
}

static void no_messages(test_counter *t, bitonic_context *context, const char *what)
{
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    TEST_CHECK(t, info.validation_messages == 0, "%s: %llu validation messages", what,
               (unsigned long long)info.validation_messages);
}

/* Opens a context on dir, sorts, closes; returns what the context said of its cache. */
static bool cache_round(test_counter *t, const char *dir, bitonic_context_info *out_info, const char *what)
{
    bitonic_context *context;
    bitonic_context_desc desc = test_desc(dir);
    if (!TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "%s: context", what))
        return false;
    bitonic_context_get_info(context, out_info);
    uint64_t seed = 7;
    uint32_t *keys = malloc(9000 * sizeof *keys);
    TEST_CHECK(t, sort_checks(context, keys, 9000, &seed), "%s: sort", what);
    free(keys);
    no_messages(t, context, what);
    bitonic_context_destroy(context);
    return true;
}

static void test_pipeline_cache(test_counter *t, const char *root)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cache", root);
    bitonic_context_info info;
    off_t size = 0;

    /* Cold: nothing there yet; the file appears when the context goes. */
    if (!cache_round(t, dir, &info, "cold"))
        return;
    TEST_CHECK(t, strncmp(info.pipeline_cache_path, dir, strlen(dir)) == 0, "cold: cache path %s is not under %s",
               info.pipeline_cache_path, dir);
    TEST_CHECK(t, info.pipeline_cache_loaded_bytes == 0, "cold: loaded %llu bytes",
               (unsigned long long)info.pipeline_cache_loaded_bytes);
    char path[1024];
    snprintf(path, sizeof path, "%s", info.pipeline_cache_path);
    TEST_CHECK(t, file_exists(path, &size) && size > 64, "cold: no cache file %s written", path);
    off_t cold_size = size;

    /* Warm: the file is read back. */
    cache_round(t, dir, &info, "warm");
    TEST_CHECK(t, info.pipeline_cache_loaded_bytes > 0, "warm: nothing loaded from %s", path);

    /* Damaged data (checksum), a truncated file, and a foreign header (another
     * device id): each is ignored, the context works, the file is rewritten. */
    for (int damage = 0; damage < 3; ++damage) {
        FILE *file = fopen(path, "r+b");
        if (!TEST_CHECK(t, file != NULL, "cannot open %s to damage it", path))
            return;
        if (damage == 0) {
            fseek(file, -1, SEEK_END);
            int last = fgetc(file);
            fseek(file, -1, SEEK_END);
            fputc(last ^ 0x5a, file);
        } else if (damage == 2) {
            fseek(file, 32, SEEK_SET);  /* the device id in our header */
            fputc(0x77, file);
        }
        fclose(file);
        if (damage == 1)
            TEST_CHECK(t, truncate(path, cold_size / 2) == 0, "cannot truncate %s", path);
        cache_round(t, dir, &info, damage == 0 ? "corrupt" : damage == 1 ? "truncated" : "foreign");
        TEST_CHECK(t, info.pipeline_cache_loaded_bytes == 0, "damage %d: the bad file was loaded", damage);
        cache_round(t, dir, &info, "after damage");
        TEST_CHECK(t, info.pipeline_cache_loaded_bytes > 0, "damage %d: the file was not rewritten", damage);
    }

    /* Unwritable: the directory's parent is a plain file, so no directory can be
     * made (also as root). Not an error: the sort works, nothing is written. */
    char blocker[512], unwritable[600];
    snprintf(blocker, sizeof blocker, "%s/plain-file", root);
    FILE *file = fopen(blocker, "wb");
    if (file)
        fclose(file);
    snprintf(unwritable, sizeof unwritable, "%s/sub", blocker);
    cache_round(t, unwritable, &info, "unwritable");
    TEST_CHECK(t, info.pipeline_cache_loaded_bytes == 0, "unwritable: loaded something");
    TEST_CHECK(t, !file_exists(info.pipeline_cache_path, &size), "unwritable: a file appeared");

    /* Off, by the description and by the environment. */
    bitonic_context *context;
    bitonic_context_desc desc = test_desc(dir);
    desc.no_disk_cache = true;
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "off: context")) {
        bitonic_context_get_info(context, &info);
        TEST_CHECK(t, info.pipeline_cache_path[0] == '\0' && info.pipeline_cache_loaded_bytes == 0,
                   "no_disk_cache: the cache was used (%s)", info.pipeline_cache_path);
        bitonic_context_destroy(context);
    }
    setenv("BITONIC_PIPELINE_CACHE", "0", 1);
    desc.no_disk_cache = false;
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "env off: context")) {
        bitonic_context_get_info(context, &info);
        TEST_CHECK(t, info.pipeline_cache_path[0] == '\0', "BITONIC_PIPELINE_CACHE=0: the cache was used");
        bitonic_context_destroy(context);
    }
    unsetenv("BITONIC_PIPELINE_CACHE");
}

static bitonic_backend ran_on(bitonic_context *context)
{
    bitonic_host_timing timing;
    if (bitonic_context_last_host_timing(context, &timing) != BITONIC_SUCCESS)
        return (bitonic_backend)-1;
    return timing.ran_on;
}

static void test_device_choice(test_counter *t, const char *root)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/choice", root);
    uint64_t seed = 11;
    uint32_t *keys = malloc(70000 * sizeof *keys);
    uint32_t values[6000];

    /* Forced each way by crossover_keys. */
    struct {
        uint64_t crossover;
        bitonic_backend expected;
    } forced[] = {{1, BITONIC_BACKEND_VULKAN}, {1u << 20, BITONIC_BACKEND_CPU}};
    for (int f = 0; f < 2; ++f) {
        bitonic_context_desc desc = test_desc(dir);
        desc.crossover_keys = forced[f].crossover;
        bitonic_context *context;
        if (!TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "forced: context"))
            continue;
        bitonic_host_timing timing;
        TEST_CHECK(t, bitonic_context_last_host_timing(context, &timing) == BITONIC_ERROR_INVALID_ARGUMENT,
                   "a timing before any host sort");
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "forced %d: keys", f);
        TEST_CHECK(t, ran_on(context) == forced[f].expected, "forced crossover %llu: ran on %d",
                   (unsigned long long)forced[f].crossover, (int)ran_on(context));
        for (uint32_t i = 0; i < 6000; ++i) {
            keys[i] = (uint32_t)test_random_u64(&seed) % 100u;
            values[i] = i;
        }
        bool pairs_ok = bitonic_sort_pairs(context, keys, values, 6000, NULL) == BITONIC_SUCCESS;
        for (uint32_t i = 1; i < 6000 && pairs_ok; ++i)
            pairs_ok = keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && values[i - 1] < values[i]);
        TEST_CHECK(t, pairs_ok, "forced %d: pairs", f);
        TEST_CHECK(t, ran_on(context) == forced[f].expected, "forced %d: pairs ran on %d", f, (int)ran_on(context));
        no_messages(t, context, "forced");
        bitonic_context_destroy(context);
    }

    /* From the environment, on a named device (which alone would take every sort). */
    setenv("BITONIC_CROSSOVER", "100000", 1);
    bitonic_context_desc desc = test_desc(dir);
    bitonic_context *context;
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "env: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "env: keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "BITONIC_CROSSOVER=100000: 5000 keys on the device");
        bitonic_context_destroy(context);
    }
    unsetenv("BITONIC_CROSSOVER");
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "named: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "named: keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_VULKAN, "a named device: 5000 keys not on it");
        bitonic_context_destroy(context);
    }

    /* The model: calibrated on the first sort of 4096 keys or more, stored, and
     * followed: sorts below the stored crossover on the CPU path, the rest on
     * the device. */
    desc.crossover_keys = BITONIC_CROSSOVER_MODEL;
    desc.validation = false;  /* calibration times sorts: not under the layer */
    char stored[1024] = "";
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "model: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 100, &seed), "model: small keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "model: 100 keys not on the CPU path");
        TEST_CHECK(t, sort_checks(context, keys, 70000, &seed), "model: keys after calibrating");
        bitonic_backend where = ran_on(context);
        bitonic_context_destroy(context);
        /* The stored crossover and the choice agree. */
        char command[1200];
        snprintf(command, sizeof command, "cat %s/crossover-*.txt 2>/dev/null | sed -n 2p", dir);
        FILE *pipe = popen(command, "r");
        if (pipe) {
            if (!fgets(stored, sizeof stored, pipe))
                stored[0] = '\0';
            pclose(pipe);
        }
        /* The wide crossover (pairs, 64-bit keys) on the line after it: never
         * where the device never beat the CPU path on u32 keys. */
        char wide_line[256] = "";
        snprintf(command, sizeof command, "cat %s/crossover-*.txt 2>/dev/null | sed -n 3p", dir);
        pipe = popen(command, "r");
        if (pipe) {
            if (!fgets(wide_line, sizeof wide_line, pipe))
                wide_line[0] = '\0';
            pclose(pipe);
        }
        unsigned long long wide_crossover = 0;
        bool wide_never = strncmp(wide_line, "wide_keys never", 15) == 0;
        TEST_CHECK(t, wide_never || sscanf(wide_line, "wide_keys %llu", &wide_crossover) == 1,
                   "model: no wide crossover stored (read '%s')", wide_line);
        unsigned long long crossover = 0;
        bool never = strncmp(stored, "keys never", 10) == 0;
        TEST_CHECK(t, !never || wide_never, "model: u32 never on the device, pairs '%s'", wide_line);
        bool parsed = never || sscanf(stored, "keys %llu", &crossover) == 1;
        TEST_CHECK(t, parsed, "model: no crossover stored in %s (read '%s')", dir, stored);
        if (parsed)
            TEST_CHECK(t, where == ((never || 70000 < crossover) ? BITONIC_BACKEND_CPU : BITONIC_BACKEND_VULKAN),
                       "model: 70000 keys ran on %d with the stored '%s'", (int)where, stored);
        /* A new context knows it from the file, before any sort. */
        if (parsed && bitonic_context_create(&desc, &context) == BITONIC_SUCCESS) {
            bitonic_context_info info;
            bitonic_context_get_info(context, &info);
            TEST_CHECK(t, info.crossover_keys == (never ? UINT64_MAX : crossover),
                       "model: a new context reads crossover %llu, the file says '%s'",
                       (unsigned long long)info.crossover_keys, stored);
            bitonic_context_destroy(context);
        }
    }
    /* A stored crossover is read, not measured again: write one and follow it. */
    char command[1200];
    snprintf(command, sizeof command,
             "for f in %s/crossover-*.txt; do printf 'bitonic crossover 3\\nkeys 5000\\nwide_keys 100\\n' > \"$f\"; done",
             dir);
    TEST_CHECK(t, system(command) == 0, "cannot write the crossover file");
    desc.validation = test_validation();
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "stored: context")) {
        bitonic_context_info info;
        bitonic_context_get_info(context, &info);
        TEST_CHECK(t, info.crossover_keys == 5000 && strcmp(info.cache_directory, dir) == 0,
                   "stored: info says crossover %llu in '%s'", (unsigned long long)info.crossover_keys,
                   info.cache_directory);
        TEST_CHECK(t, sort_checks(context, keys, 4999, &seed), "stored: 4999 keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "stored 5000: 4999 keys not on the CPU path");
        TEST_CHECK(t, sort_checks(context, keys, 5001, &seed), "stored: 5001 keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_VULKAN, "stored 5000: 5001 keys not on the device");
        /* Pairs and 64-bit keys follow the wide crossover (100). */
        for (size_t n = 99; n <= 1000; n += 901) {
            for (size_t i = 0; i < n; ++i) {
                keys[i] = (uint32_t)(test_random_u64(&seed) % 50u);
                values[i] = (uint32_t)i;
            }
            bool sorted = bitonic_sort_pairs(context, keys, values, n, NULL) == BITONIC_SUCCESS;
            for (size_t i = 1; sorted && i < n; ++i)
                sorted = keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && values[i - 1] < values[i]);
            TEST_CHECK(t, sorted && ran_on(context) == (n < 100 ? BITONIC_BACKEND_CPU : BITONIC_BACKEND_VULKAN),
                       "stored wide 100: %zu pairs ran on %d", n, (int)ran_on(context));
            uint64_t wide[1000];
            for (size_t i = 0; i < n; ++i)
                wide[i] = test_random_u64(&seed);
            sorted = bitonic_sort(context, wide, n, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64}) ==
                     BITONIC_SUCCESS;
            for (size_t i = 1; sorted && i < n; ++i)
                sorted = wide[i - 1] <= wide[i];
            TEST_CHECK(t, sorted && ran_on(context) == (n < 100 ? BITONIC_BACKEND_CPU : BITONIC_BACKEND_VULKAN),
                       "stored wide 100: %zu u64 keys ran on %d", n, (int)ran_on(context));
        }
        no_messages(t, context, "stored");
        bitonic_context_destroy(context);
    }

    /* 64-bit keys with a crossover of their own (8000) beside the pairs' (100);
     * sorts of 4096 keys or more, which read the file (below, the CPU path
     * needs no file). */
    snprintf(command, sizeof command,
             "for f in %s/crossover-*.txt; do printf 'bitonic crossover 3\\nkeys 5000\\nwide_keys 100\\n"
             "u64_keys 8000\\n' > \"$f\"; done",
             dir);
    TEST_CHECK(t, system(command) == 0, "cannot write the crossover file");
    uint64_t *wide = malloc(5000 * sizeof *wide);
    if (TEST_CHECK(t, wide && bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "u64 crossover: context")) {
        for (size_t i = 0; i < 5000; ++i) {
            wide[i] = test_random_u64(&seed);
            keys[i] = (uint32_t)wide[i];
            values[i] = (uint32_t)i;
        }
        TEST_CHECK(t, bitonic_sort(context, wide, 5000, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64}) ==
                              BITONIC_SUCCESS &&
                          ran_on(context) == BITONIC_BACKEND_CPU,
                   "u64 crossover 8000: 5000 u64 keys ran on %d", (int)ran_on(context));
        TEST_CHECK(t, bitonic_sort_pairs(context, keys, values, 5000, NULL) == BITONIC_SUCCESS &&
                          ran_on(context) == BITONIC_BACKEND_VULKAN,
                   "pairs crossover 100: 5000 pairs ran on %d", (int)ran_on(context));
        for (size_t i = 1; i < 5000; ++i)
            if (wide[i - 1] > wide[i] || keys[i - 1] > keys[i]) {
                TEST_CHECK(t, false, "u64 crossover: not sorted at %zu", i);
                break;
            }
        no_messages(t, context, "u64 crossover");
        bitonic_context_destroy(context);
    }
    free(wide);

    /* With the measurements stored, the first sort above the crossover stays on
     * the CPU path while the device, yet to be made, would cost more (here a
     * stored 1000 ms) than the CPU path takes; once the device exists, it goes
     * there. */
    snprintf(command, sizeof command,
             "for f in %s/crossover-*.txt; do printf 'bitonic crossover 3\\nkeys 5000\\ncreate_ms 1000\\n"
             "point 4096 1.0 0.5\\npoint 65536 2.0 1.0\\nwide_point 4096 3.0 0.6\\n' > \"$f\"; done",
             dir);
    TEST_CHECK(t, system(command) == 0, "cannot write the crossover file");
    /* Only the default selection and "vulkan" defer making the device; a named
     * one (BITONIC_TEST_DEVICE=NVIDIA on the GPU machine) is made at once. */
    const char *named_device = desc.device;
    desc.device = "vulkan";
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "first call: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5001, &seed), "first call: 5001 keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "first call: 5001 keys went to a device not yet made");
        /* Pairs by their own measurements (3 ms at 4096 on the CPU path). */
        for (size_t i = 0; i < 5001; ++i)
            keys[i] = (uint32_t)test_random_u64(&seed);
        uint64_t *wide_keys = malloc(5001 * sizeof *wide_keys);
        for (size_t i = 0; wide_keys && i < 5001; ++i)
            wide_keys[i] = test_random_u64(&seed);
        TEST_CHECK(t, wide_keys &&
                          bitonic_sort(context, wide_keys, 5001, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64}) ==
                              BITONIC_SUCCESS &&
                          ran_on(context) == BITONIC_BACKEND_CPU,
                   "first call: 5001 u64 keys went to a device not yet made");
        free(wide_keys);
        bitonic_context_info info;
        bitonic_context_get_info(context, &info);  /* makes the device */
        TEST_CHECK(t, sort_checks(context, keys, 5001, &seed), "made: 5001 keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_VULKAN, "made: 5001 keys not on the device");
        no_messages(t, context, "first call");
        bitonic_context_destroy(context);
    }
    /* Destroying that context, whose device was made, stored what releasing
     * it took; the estimate charges it too: with creation free but a stored
     * release of 1000 ms, the first sort above the crossover stays on the CPU
     * path. */
    snprintf(command, sizeof command, "grep -q '^release_ms [0-9]' %s/crossover-*.txt", dir);
    TEST_CHECK(t, system(command) == 0, "release: no release_ms stored after the device was released");
    snprintf(command, sizeof command,
             "for f in %s/crossover-*.txt; do printf 'bitonic crossover 3\\nkeys 5000\\ncreate_ms 0\\n"
             "release_ms 1000\\npoint 4096 1.0 0.5\\npoint 65536 2.0 1.0\\n' > \"$f\"; done",
             dir);
    TEST_CHECK(t, system(command) == 0, "cannot write the crossover file");
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "release: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5001, &seed), "release: 5001 keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "release: 5001 keys went to a device not yet made");
        no_messages(t, context, "release");
        bitonic_context_destroy(context);
    }
    desc.device = named_device;

    /* The CPU backend runs everything on the CPU path. */
    if (TEST_CHECK(t, bitonic_context_create(&(bitonic_context_desc){.device = "cpu"}, &context) == BITONIC_SUCCESS,
                   "cpu: context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "cpu: keys");
        TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "cpu context: not on the CPU path");
        bitonic_context_destroy(context);
    }
    free(keys);
}

/* Keys at a word offset into a larger block, so both ends are ragged. */
/* The census file of dir (there is one per machine state): its text, "" if none. */
static void read_census(const char *dir, char *out, size_t capacity)
{
    char command[700];
    snprintf(command, sizeof command, "cat %s/census-*.txt 2>/dev/null", dir);
    out[0] = '\0';
    FILE *pipe = popen(command, "r");
    if (!pipe)
        return;
    size_t used = fread(out, 1, capacity - 1, pipe);
    out[used] = '\0';
    pclose(pipe);
}

static void write_census(test_counter *t, const char *dir, const char *text)
{
    char command[900];
    snprintf(command, sizeof command, "for f in %s/census-*.txt; do printf '%s' > \"$f\"; done", dir, text);
    TEST_CHECK(t, system(command) == 0, "cannot write the census file");
}

/* The default selection's census (src/vulkan/vk_census.c): written by the
 * first context, followed by the next (same backend and device, no Vulkan
 * instance when it says no GPU), a damaged one ignored and rewritten, and one
 * naming a GPU that is not there: the context still sorts, on the CPU path,
 * and the census is put right. */
static void test_census(test_counter *t, const char *root)
{
    char dir[512], text[1024], device_env[256] = "";
    snprintf(dir, sizeof dir, "%s/census", root);
    const char *env = getenv("BITONIC_DEVICE");
    bool had_env = env != NULL;
    if (had_env)
        snprintf(device_env, sizeof device_env, "%s", env);
    unsetenv("BITONIC_DEVICE");
    bitonic_context_desc desc = {.cache_directory = dir};
    uint64_t seed = 23;
    uint32_t *keys = malloc(70000 * sizeof *keys);
    bitonic_context *context;
    bitonic_context_info first = {0}, info;
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "census: first context")) {
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "census: first context sorts");
        bitonic_context_get_info(context, &first);
        bitonic_context_destroy(context);
    }
    read_census(dir, text, sizeof text);
    bool gpu = first.backend == BITONIC_BACKEND_VULKAN;
    TEST_CHECK(t, strncmp(text, "bitonic census 1\n", 17) == 0 &&
                      (gpu ? strncmp(text + 17, "device ", 7) == 0 : strcmp(text + 17, "none\n") == 0),
               "census after a %s context: '%s'", gpu ? "GPU" : "CPU", text);
    for (int round = 0; round < 2; ++round) {
        if (round == 1)
            write_census(t, dir, "bitonic census 1\\ndevice zz\\n");  /* damaged: ignored and rewritten */
        if (!TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "census: context %d", round))
            continue;
        TEST_CHECK(t, sort_checks(context, keys, 5000, &seed), "census %d: sorts", round);
        bitonic_context_get_info(context, &info);
        TEST_CHECK(t, info.backend == first.backend && strcmp(info.device_name, first.device_name) == 0,
                   "census %d: %s (backend %d), the first context had %s (%d)", round, info.device_name,
                   (int)info.backend, first.device_name, (int)first.backend);
        bitonic_context_destroy(context);
        char again[1024];
        read_census(dir, again, sizeof again);
        TEST_CHECK(t, strcmp(again, text) == 0, "census %d: the file now says '%s', before '%s'", round, again, text);
    }
    /* A GPU that is not there (or not this one). */
    write_census(t, dir, "bitonic census 1\\ndevice 1234 5678 9 Imaginary GPU\\n");
    if (TEST_CHECK(t, bitonic_context_create(&desc, &context) == BITONIC_SUCCESS, "census: a stale census")) {
        TEST_CHECK(t, sort_checks(context, keys, 70000, &seed), "stale census: 70000 keys");
        if (!gpu)
            TEST_CHECK(t, ran_on(context) == BITONIC_BACKEND_CPU, "stale census: ran on %d", (int)ran_on(context));
        bitonic_context_destroy(context);
    }
    char fixed[1024];
    read_census(dir, fixed, sizeof fixed);
    TEST_CHECK(t, strcmp(fixed, text) == 0, "stale census: rewritten as '%s', expected '%s'", fixed, text);
    if (had_env)
        setenv("BITONIC_DEVICE", device_env, 1);
    free(keys);
}

/* Host sorts through imported arrays, staged arrays, and staged arrays cut into
 * chunks (chunk_bytes: the pipeline's smallest chunk, "0" for none). */
static void test_transfers(test_counter *t, bool import, const char *chunk_bytes)
{
    setenv("BITONIC_IMPORT_MIN_BYTES", "0", 1);
    setenv("BITONIC_HOST_IMPORT", import ? "1" : "0", 1);
    setenv("BITONIC_HOST_CHUNK_BYTES", chunk_bytes, 1);
    bool chunked = strcmp(chunk_bytes, "0") != 0;
    size_t chunk_min = (size_t)strtoull(chunk_bytes, NULL, 10);
    bitonic_context_desc desc = test_desc(NULL);
    desc.no_disk_cache = true;
    desc.crossover_keys = 1;
    bitonic_context *context;
    bool created = bitonic_context_create(&desc, &context) == BITONIC_SUCCESS;
    unsetenv("BITONIC_IMPORT_MIN_BYTES");
    unsetenv("BITONIC_HOST_IMPORT");
    unsetenv("BITONIC_HOST_CHUNK_BYTES");
    if (!TEST_CHECK(t, created, "transfers: context"))
        return;
    uint64_t seed = 5;
    const size_t sizes[] = {1000, 4096, 20000, 33333};
    const size_t offsets[] = {0, 1, 1023};
    size_t block_words = 2 * (33333 + 1024 + 1024);
    void *block = NULL;
    if (posix_memalign(&block, 65536, block_words * sizeof(uint32_t)) != 0)
        return;
    bool any_imported = false;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
            size_t n = sizes[s];
            uint32_t *keys = (uint32_t *)block + offsets[o];
            TEST_CHECK(t, sort_checks(context, keys, n, &seed), "%s: %zu keys at word %zu",
                       import ? "import" : "staged", n, offsets[o]);
            bitonic_host_timing timing;
            bitonic_context_last_host_timing(context, &timing);
            TEST_CHECK(t, timing.ran_on == BITONIC_BACKEND_VULKAN && timing.count == n && timing.total_ms > 0 &&
                              timing.upload_ms >= 0 && timing.download_ms >= 0 && timing.sort_ms >= 0,
                       "%zu keys: stage timing", n);
            if (!import) {
                TEST_CHECK(t, !timing.imported, "staged: %zu keys were imported", n);
                /* Two chunks or more take the pipeline (fewer, of a power of two
                 * keys, where each chunk is sorted as it arrives); the last chunk
                 * is shorter. */
                bool pipelined = chunked && n * 4 >= 2 * chunk_min;
                TEST_CHECK(t, pipelined ? timing.chunks > 1 && timing.chunks <= n * 4 / chunk_min : timing.chunks == 1,
                           "staged: %zu keys in %u chunks", n, timing.chunks);
            }
            any_imported |= timing.imported;

            /* Pairs: values at another offset; stable ties show the values moved. */
            uint32_t *values = (uint32_t *)block + block_words / 2 + offsets[(o + 1) % 3];
            for (size_t i = 0; i < n; ++i) {
                keys[i] = (uint32_t)(test_random_u64(&seed) % 1000u);
                values[i] = (uint32_t)i;
            }
            uint32_t *original = malloc(n * sizeof *original);
            memcpy(original, keys, n * sizeof *keys);
            bool ok = bitonic_sort_pairs(context, keys, values, n, NULL) == BITONIC_SUCCESS;
            for (size_t i = 0; ok && i < n; ++i)
                ok = original[values[i]] == keys[i] && (i == 0 || keys[i - 1] < keys[i] ||
                                                        (keys[i - 1] == keys[i] && values[i - 1] < values[i]));
            TEST_CHECK(t, ok, "%s: %zu pairs", import ? "import" : "staged", n);
            free(original);

            /* 64-bit keys, where the device has them. */
            uint64_t *wide = (uint64_t *)(void *)((uint32_t *)block + 2 * offsets[o]);
            uint64_t *expected = malloc(n * sizeof *expected);
            for (size_t i = 0; i < n; ++i)
                expected[i] = wide[i] = test_random_u64(&seed);
            qsort(expected, n, sizeof *expected, compare_u64);
            bitonic_status status = bitonic_sort(context, wide, n, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
            TEST_CHECK(t, status == BITONIC_ERROR_UNSUPPORTED ||
                              (status == BITONIC_SUCCESS && memcmp(wide, expected, n * sizeof *wide) == 0),
                       "%s: %zu u64 keys (%s)", import ? "import" : "staged", n, bitonic_status_string(status));
            free(expected);
        }
    }
    /* Large enough that the staged copy is split among threads (4 MiB each)
     * and, with import, that the interior is most of it. */
    size_t large = ((size_t)9 << 20) / sizeof(uint32_t) + 3;
    uint32_t *large_keys = malloc((large + 1) * sizeof *large_keys);
    if (large_keys) {
        TEST_CHECK(t, sort_checks(context, large_keys + 1, large, &seed), "%s: %zu keys", import ? "import" : "staged",
                   large);
        bitonic_host_timing timing;
        bitonic_context_last_host_timing(context, &timing);
        TEST_CHECK(t, timing.count == large && (import || !timing.imported), "%zu keys: timing", large);
        TEST_CHECK(t, import || (chunked ? timing.chunks > 1 && timing.chunks <= 16 : timing.chunks == 1),
                   "%zu keys: %u chunks", large, timing.chunks);
        TEST_CHECK(t, timing.upload_ms >= 0 && timing.download_ms >= 0 && timing.sort_ms > 0 &&
                          timing.upload_ms + timing.download_ms + timing.sort_ms < timing.total_ms + 1.0,
                   "%zu keys: stages %.3f %.3f %.3f of %.3f ms", large, timing.upload_ms, timing.sort_ms,
                   timing.download_ms, timing.total_ms);
        any_imported |= timing.imported;
        free(large_keys);
    }
    if (import)
        printf("host import: %s\n", any_imported ? "used" : "not offered by this device (staged)");
    no_messages(t, context, import ? "import" : "staged");
    bitonic_context_destroy(context);
    free(block);
}

/* Pairs (keys, values) with ties, checked against the original keys and for
 * value order among equal keys. */
static bool pair_checks(bitonic_context *context, uint32_t *keys, uint32_t *values, size_t n, uint64_t *seed)
{
    uint32_t *original = malloc(n * sizeof *original);
    if (!original)
        return false;
    for (size_t i = 0; i < n; ++i) {
        original[i] = keys[i] = (uint32_t)(test_random_u64(seed) % 1000u);
        values[i] = (uint32_t)i;
    }
    bool ok = bitonic_sort_pairs(context, keys, values, n, NULL) == BITONIC_SUCCESS;
    for (size_t i = 0; ok && i < n; ++i)
        ok = values[i] < n && original[values[i]] == keys[i] &&
             (i == 0 || keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && values[i - 1] < values[i]));
    free(original);
    return ok;
}

/* Host sorts of arrays in blocks of bitonic_host_alloc: in one submission
 * (arrays all pinned have no host copies for chunks to hide), and chunked
 * (16 KiB chunks) where the values are staged beside pinned keys; at offsets
 * inside the block, 64-bit keys; and the same calls on
 * the CPU path, where the blocks are ordinary memory. */
static void test_pinned(test_counter *t)
{
    setenv("BITONIC_HOST_CHUNK_BYTES", "16384", 1);
    bitonic_context_desc desc = test_desc(NULL);
    desc.no_disk_cache = true;
    desc.crossover_keys = 1;
    bitonic_context *context;
    bool created = bitonic_context_create(&desc, &context) == BITONIC_SUCCESS;
    unsetenv("BITONIC_HOST_CHUNK_BYTES");
    if (!TEST_CHECK(t, created, "pinned: context"))
        return;
    size_t block_words = 2 * 40000 + 64;
    uint32_t *block = NULL, *value_block = NULL;
    TEST_CHECK(t, bitonic_host_alloc(context, 0, (void **)&block) == BITONIC_ERROR_INVALID_ARGUMENT &&
                      bitonic_host_alloc(context, 16, NULL) == BITONIC_ERROR_INVALID_ARGUMENT,
               "pinned: invalid arguments");
    if (!TEST_CHECK(t, bitonic_host_alloc(context, block_words * 4, (void **)&block) == BITONIC_SUCCESS &&
                           bitonic_host_alloc(context, block_words * 4, (void **)&value_block) == BITONIC_SUCCESS,
                    "pinned: alloc")) {
        bitonic_context_destroy(context);
        return;
    }
    TEST_CHECK(t, ((uintptr_t)block & 63u) == 0, "pinned: block alignment");
    uint64_t seed = 17;
    const size_t sizes[] = {1000, 20000, 33333};
    uint32_t *plain_values = malloc(40000 * sizeof *plain_values);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (size_t offset = 0; offset < 8; offset += 3) {
            size_t n = sizes[s];
            TEST_CHECK(t, sort_checks(context, block + offset, n, &seed), "pinned: %zu keys at word %zu", n, offset);
            bitonic_host_timing timing;
            bitonic_context_last_host_timing(context, &timing);
            TEST_CHECK(t, timing.ran_on == BITONIC_BACKEND_VULKAN && timing.pinned && !timing.imported &&
                              timing.chunks == 1,
                       "pinned: %zu keys: pinned %d, %u chunks", n, timing.pinned, timing.chunks);
            TEST_CHECK(t, pair_checks(context, block + offset, value_block + 5, n, &seed),
                       "pinned: %zu pairs, both pinned", n);
            if (plain_values) {
                TEST_CHECK(t, pair_checks(context, block + offset, plain_values, n, &seed),
                           "pinned: %zu pairs, values not pinned", n);
                bitonic_context_last_host_timing(context, &timing);
                TEST_CHECK(t, timing.pinned && (n * 8 >= 2 * 16384 ? timing.chunks > 1 : timing.chunks == 1),
                           "pinned: %zu pairs, values staged: %u chunks", n, timing.chunks);
            }
            /* 64-bit keys at an 8-byte offset of the block. */
            uint64_t *wide = (uint64_t *)(void *)(block + 2 * offset);
            uint64_t *expected = malloc(n * sizeof *expected);
            for (size_t i = 0; expected && i < n; ++i)
                expected[i] = wide[i] = test_random_u64(&seed);
            if (expected)
                qsort(expected, n, sizeof *expected, compare_u64);
            bitonic_status status = bitonic_sort(context, wide, n, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64});
            TEST_CHECK(t, expected && (status == BITONIC_ERROR_UNSUPPORTED ||
                                       (status == BITONIC_SUCCESS && memcmp(wide, expected, n * sizeof *wide) == 0)),
                       "pinned: %zu u64 keys (%s)", n, bitonic_status_string(status));
            free(expected);
        }
    }
    free(plain_values);
    no_messages(t, context, "pinned");
    bitonic_host_free(context, block);
    bitonic_host_free(context, value_block);
    bitonic_host_free(context, NULL);
    /* A block left for bitonic_context_destroy to free. */
    void *left = NULL;
    TEST_CHECK(t, bitonic_host_alloc(context, 1000, &left) == BITONIC_SUCCESS && left, "pinned: block left");
    bitonic_context_destroy(context);

    bitonic_context *cpu;
    if (!TEST_CHECK(t, bitonic_context_create(&(bitonic_context_desc){.device = "cpu"}, &cpu) == BITONIC_SUCCESS,
                    "pinned: cpu context"))
        return;
    uint32_t *cpu_block = NULL;
    TEST_CHECK(t, bitonic_host_alloc(cpu, 33333 * 4, (void **)&cpu_block) == BITONIC_SUCCESS &&
                      sort_checks(cpu, cpu_block, 33333, &seed),
               "pinned: the CPU path sorts a block");
    bitonic_host_free(cpu, cpu_block);
    bitonic_context_destroy(cpu);
}

int main(void)
{
    test_counter t = {0};
    char root[] = "/tmp/bitonic-host-test-XXXXXX";
    if (!mkdtemp(root)) {
        printf("cannot make a temporary directory\n");
        return 1;
    }
    test_pipeline_cache(&t, root);
    test_device_choice(&t, root);
    test_census(&t, root);
    test_transfers(&t, true, "0");
    test_transfers(&t, false, "0");
    test_transfers(&t, false, "16384");
    test_pinned(&t);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    if (system(command) != 0)
        printf("could not remove %s\n", root);
    return test_finish(&t);
}
