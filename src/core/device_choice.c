/* device_choice.c: the CPU/GPU crossover of host sorts (device_choice.h).
 *
 * The model: each side's time for a host sort of n u32 keys is measured at
 * n = 2^12, 2^14, ... until the device is faster; the crossover is where the
 * ratio of the two crosses 1, interpolated on log n between the last two
 * sizes. Measured, not derived from specifications, because what decides it
 * (submission latency, bus speed, pinning, the CPU's cores) varies more than
 * any formula would admit. It is stored per device, driver, CPU thread count
 * and library version, so it is paid once. The same count is used for pairs
 * and 64-bit keys: both sides' costs grow alike with the bytes per key. */
#define _POSIX_C_SOURCE 200809L
#include "device_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "context_internal.h"

#define CROSSOVER_MAGIC "bitonic crossover 1"
#define CROSSOVER_NEVER UINT64_MAX        /* the device never wins: every host sort on the CPU path */
#define SMALLEST_LOG 12u                  /* below 2^12 keys the CPU path always wins (no submission) */
#define LARGEST_LOG 22u
#define CALIBRATION_BUDGET_MS 3000.0      /* a slow device (lavapipe) is given up on, not waited for */

/* "model"/"auto" or a count; 0 when unset or unreadable. */
static uint64_t crossover_from_env(void)
{
    const char *text = getenv("BITONIC_CROSSOVER");
    if (!text || !*text)
        return 0;
    if (strcmp(text, "model") == 0 || strcmp(text, "auto") == 0)
        return BITONIC_CROSSOVER_MODEL;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    return *end == '\0' ? (uint64_t)value : 0;
}

static uint32_t cpu_threads(const bitonic_context_desc *desc)
{
    if (desc->cpu_threads)
        return desc->cpu_threads;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (uint32_t)online : 1u;
}

void bitonic_device_choice_init(bitonic_device_choice *choice, const bitonic_context_desc *desc, bool automatic,
                                const char *device_key)
{
    memset(choice, 0, sizeof *choice);
    uint64_t asked = desc->crossover_keys ? desc->crossover_keys : crossover_from_env();
    if (asked == BITONIC_CROSSOVER_MODEL || (asked == 0 && automatic))
        choice->use_model = true;
    else
        choice->crossover_keys = asked == 0 ? 1u : asked;  /* a named device takes every host sort */
    char directory[BITONIC_CACHE_PATH_MAX];
    if (choice->use_model && device_key && *device_key &&
        bitonic_cache_directory(desc, directory, sizeof directory)) {
        int written = snprintf(choice->path, sizeof choice->path, "%s/crossover-%s-%ut-%u.%u.%u.txt", directory,
                               device_key, cpu_threads(desc), BITONIC_VERSION_MAJOR, BITONIC_VERSION_MINOR,
                               BITONIC_VERSION_PATCH);
        if (written < 0 || (size_t)written >= sizeof choice->path)
            choice->path[0] = '\0';
    }
}

/* The stored crossover, or 0 when the file is missing or not one of ours. */
static uint64_t read_crossover(const char *path)
{
    unsigned char *bytes;
    size_t size;
    if (!path[0] || !bitonic_cache_read_file(path, 256, &bytes, &size))
        return 0;
    char text[257];
    memcpy(text, bytes, size);
    text[size] = '\0';
    free(bytes);
    uint64_t keys = 0;
    char word[32];
    const char *line = strchr(text, '\n');
    if (!line || (size_t)(line - text) != strlen(CROSSOVER_MAGIC) ||
        strncmp(text, CROSSOVER_MAGIC, strlen(CROSSOVER_MAGIC)) != 0)
        return 0;
    if (sscanf(line + 1, "keys %31s", word) != 1)
        return 0;
    if (strcmp(word, "never") == 0)
        return CROSSOVER_NEVER;
    char *end;
    keys = strtoull(word, &end, 10);
    return *end == '\0' ? keys : 0;
}

static void write_crossover(const char *path, uint64_t keys, double cpu_ms, double device_ms, uint64_t at)
{
    if (!path[0])
        return;
    char directory[BITONIC_CACHE_PATH_MAX];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    if (slash)
        *slash = '\0';
    char text[256];
    int length = keys == CROSSOVER_NEVER
                     ? snprintf(text, sizeof text, CROSSOVER_MAGIC "\nkeys never\n# at %llu keys: cpu %.3f ms, device %.3f ms\n",
                                (unsigned long long)at, cpu_ms, device_ms)
                     : snprintf(text, sizeof text, CROSSOVER_MAGIC "\nkeys %llu\n# at %llu keys: cpu %.3f ms, device %.3f ms\n",
                                (unsigned long long)keys, (unsigned long long)at, cpu_ms, device_ms);
    if (length > 0 && (size_t)length < sizeof text && (!slash || bitonic_cache_make_directory(directory)))
        bitonic_cache_write_file(path, text, (size_t)length, "", 0);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void fill_keys(uint32_t *keys, size_t count, uint64_t *state)
{
    for (size_t i = 0; i < count; ++i) {
        *state = *state * 6364136223846793005ull + 1442695040888963407ull;
        keys[i] = (uint32_t)(*state >> 32);
    }
}

/* The best of a few host sorts of count keys on one side; negative on failure. */
static double time_side(bitonic_context *context, bitonic_forced_device side, uint32_t *keys, size_t count,
                        uint64_t *state)
{
    context->choice.forced = side;
    double best = -1.0;
    for (int run = 0; run < 4; ++run) {
        fill_keys(keys, count, state);
        double start = now_ms();
        if (bitonic_sort_u32(context, keys, count, NULL) != BITONIC_SUCCESS) {
            best = -1.0;
            break;
        }
        double elapsed = now_ms() - start;
        if (run > 0 && (best < 0 || elapsed < best))  /* run 0 builds pipelines and buffers */
            best = elapsed;
    }
    context->choice.forced = BITONIC_FORCED_NONE;
    return best;
}

/* Walks up the sizes until the device beats the CPU path, then interpolates. */
static uint64_t calibrate(bitonic_context *context, double *out_cpu_ms, double *out_device_ms, uint64_t *out_at)
{
    uint32_t *keys = malloc(((size_t)1 << LARGEST_LOG) * sizeof *keys);
    if (!keys)
        return CROSSOVER_NEVER;
    uint64_t state = 0x9e3779b97f4a7c15ull, crossover = CROSSOVER_NEVER;
    double start = now_ms(), previous_ratio = 0.0;
    for (uint32_t log = SMALLEST_LOG; log <= LARGEST_LOG; log += 2) {
        size_t count = (size_t)1 << log;
        double cpu = time_side(context, BITONIC_FORCED_CPU, keys, count, &state);
        double device = time_side(context, BITONIC_FORCED_DEVICE, keys, count, &state);
        if (cpu < 0 || device < 0)
            break;  /* a side that fails is not chosen: stay on the CPU path */
        *out_cpu_ms = cpu;
        *out_device_ms = device;
        *out_at = count;
        double ratio = device / (cpu > 1e-6 ? cpu : 1e-6);
        if (ratio < 1.0) {
            if (log == SMALLEST_LOG || previous_ratio <= 1.0) {
                crossover = count;
            } else {
                /* Where the ratio crosses 1, linear in log2(n) between the last
                 * two sizes; 2^fraction taken as 1 + fraction (within 6%). */
                double at = (double)(log - 2) + 2.0 * (previous_ratio - 1.0) / (previous_ratio - ratio);
                uint32_t whole = (uint32_t)at;
                crossover = (uint64_t)((double)((uint64_t)1 << whole) * (1.0 + (at - (double)whole)));
            }
            break;
        }
        previous_ratio = ratio;
        /* Far behind at a size where buses and latency no longer dominate, or
         * too slow to finish: the device is not worth it for host sorts. */
        if ((log >= 18 && ratio > 3.0) || now_ms() - start > CALIBRATION_BUDGET_MS)
            break;
    }
    free(keys);
    return crossover;
}

uint64_t bitonic_device_choice_known(const bitonic_device_choice *choice)
{
    return choice->crossover_keys != 0 ? choice->crossover_keys : read_crossover(choice->path);
}

bool bitonic_device_choice_on_cpu(bitonic_context *context, size_t count)
{
    bitonic_device_choice *choice = &context->choice;
    if (choice->forced != BITONIC_FORCED_NONE)
        return choice->forced == BITONIC_FORCED_CPU;
    if (choice->crossover_keys == 0 && choice->use_model) {
        if (count < ((size_t)1 << SMALLEST_LOG))
            return true;  /* no need to calibrate to know this one */
        choice->crossover_keys = read_crossover(choice->path);
        if (choice->crossover_keys == 0) {
            double start = now_ms(), cpu_ms = 0, device_ms = 0;
            uint64_t at = 0;
            choice->crossover_keys = calibrate(context, &cpu_ms, &device_ms, &at);
            choice->calibration_ms = now_ms() - start;
            write_crossover(choice->path, choice->crossover_keys, cpu_ms, device_ms, at);
        }
    }
    return (uint64_t)count < choice->crossover_keys;
}
