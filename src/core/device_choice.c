/* device_choice.c: the CPU/GPU crossover of host sorts (device_choice.h).
 *
 * The model: each side's time for a host sort of n u32 keys is measured at
 * n = 2^12, 2^14, ... until the device is faster; the crossover is where the
 * ratio of the two crosses 1, interpolated on log n between the last two
 * sizes. Measured, not derived from specifications, because what decides it
 * (submission latency, bus speed, pinning, the CPU's cores) varies more than
 * any formula would admit. It is stored per device, driver, CPU thread count
 * and library version, so it is paid once. Pairs and 64-bit keys each have a
 * crossover of their own, measured after the u32 one: neither side takes
 * the same multiple of its u32 time for them (one count for all once sent
 * pairs of 2^24 keys to a CPU path 200x slower than the device on the H100
 * machine, when the CPU path sorted them by a one-thread radix sort).
 *
 * The file also keeps each measured size and what making the device took.
 * A context whose device is not made yet (deferred with the default selection)
 * would pay that on its first device sort, so above the crossover such a sort
 * still runs on the CPU path when that finishes first: the one-shot process
 * (`bitonic sort` of 2^20 keys) is not charged a device it does not need. */
#define _POSIX_C_SOURCE 200809L
#include "device_choice.h"

#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CROSSOVER_MAGIC "bitonic crossover 3"
#define CROSSOVER_NEVER UINT64_MAX        /* the device never wins: every host sort on the CPU path */
#define SMALLEST_LOG 12u                  /* below 2^12 keys the CPU path always wins (no submission) */
#define LARGEST_LOG 22u
#define LARGEST_WIDE_LOG 18u              /* pairs and 64-bit keys: timed up to here, to bound the calibration */
#define CALIBRATION_BUDGET_MS 3000.0      /* a slow device (lavapipe) is given up on, not waited for */

/* BITONIC_CROSSOVER through the shared parser (settings.c): 0 when unset or
 * empty, and when malformed, which context creation has refused already. */
static uint64_t crossover_from_env(void)
{
    bitonic_setting_value crossover;
    return bitonic_setting_read(BITONIC_SETTING_CROSSOVER, &crossover) ? crossover.number : 0;
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
        choice->crossover_keys = choice->wide_crossover_keys = choice->key64_crossover_keys =
            asked == 0 ? 1u : asked;  /* a named device takes every host sort */
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

/* A count or "never"; 0 when it is neither. */
static uint64_t parse_keys(const char *word)
{
    if (strcmp(word, "never") == 0)
        return CROSSOVER_NEVER;
    char *end;
    uint64_t keys = strtoull(word, &end, 10);
    return *end == '\0' ? keys : 0;
}

/* The crossover and the measured points of one kind of sort. */
static uint64_t *crossover_of(bitonic_device_choice *choice, bitonic_sort_kind kind)
{
    return kind == BITONIC_SORT_PAIRS    ? &choice->wide_crossover_keys
           : kind == BITONIC_SORT_KEYS64 ? &choice->key64_crossover_keys
                                         : &choice->crossover_keys;
}

static bitonic_choice_point *points_of(bitonic_device_choice *choice, bitonic_sort_kind kind, uint32_t **out_count)
{
    *out_count = kind == BITONIC_SORT_PAIRS    ? &choice->wide_point_count
                 : kind == BITONIC_SORT_KEYS64 ? &choice->key64_point_count
                                               : &choice->point_count;
    return kind == BITONIC_SORT_PAIRS    ? choice->wide_points
           : kind == BITONIC_SORT_KEYS64 ? choice->key64_points
                                         : choice->points;
}

/* The stored crossover (0 when the file is missing or not one of ours), and
 * the wide crossover (the same when the file has none), the measurements and
 * the device cost beside it when the file has them. */
static uint64_t read_crossover_file(const bitonic_host_memory *memory, const char *path,
                                    bitonic_device_choice *out_model)
{
    unsigned char *bytes;
    size_t size;
    if (!path[0] || !bitonic_cache_read_file_in(memory, path, 2048, &bytes, &size))
        return 0;
    char text[2049];
    memcpy(text, bytes, size);
    text[size] = '\0';
    bitonic_host_memory_free(memory, bytes);
    char word[32];
    const char *line = strchr(text, '\n');
    if (!line || (size_t)(line - text) != strlen(CROSSOVER_MAGIC) ||
        strncmp(text, CROSSOVER_MAGIC, strlen(CROSSOVER_MAGIC)) != 0)
        return 0;
    if (sscanf(line + 1, "keys %31s", word) != 1)
        return 0;
    uint64_t keys = parse_keys(word);
    if (keys == 0)
        return 0;
    if (out_model) {
        out_model->point_count = out_model->wide_point_count = out_model->key64_point_count = 0;
        out_model->device_create_ms = out_model->device_release_ms = 0;
        out_model->wide_crossover_keys = keys;
        out_model->key64_crossover_keys = 0;  /* the pairs' unless the file has its own */
        for (line = strchr(line + 1, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            bitonic_choice_point point;
            double create_ms;
            if (sscanf(line + 1, "wide_keys %31s", word) == 1 && parse_keys(word) != 0)
                out_model->wide_crossover_keys = parse_keys(word);
            else if (sscanf(line + 1, "u64_keys %31s", word) == 1 && parse_keys(word) != 0)
                out_model->key64_crossover_keys = parse_keys(word);
            else if (sscanf(line + 1, "u64_point %lf %lf %lf", &point.keys, &point.cpu_ms, &point.device_ms) == 3 &&
                     point.keys >= 1 && point.cpu_ms > 0 && point.device_ms > 0 &&
                     out_model->key64_point_count < BITONIC_CHOICE_MAX_POINTS &&
                     (out_model->key64_point_count == 0 ||
                      point.keys > out_model->key64_points[out_model->key64_point_count - 1].keys))
                out_model->key64_points[out_model->key64_point_count++] = point;
            else if (sscanf(line + 1, "wide_point %lf %lf %lf", &point.keys, &point.cpu_ms, &point.device_ms) == 3 &&
                     point.keys >= 1 && point.cpu_ms > 0 && point.device_ms > 0 &&
                     out_model->wide_point_count < BITONIC_CHOICE_MAX_POINTS &&
                     (out_model->wide_point_count == 0 ||
                      point.keys > out_model->wide_points[out_model->wide_point_count - 1].keys))
                out_model->wide_points[out_model->wide_point_count++] = point;
            else if (sscanf(line + 1, "create_ms %lf", &create_ms) == 1 && create_ms >= 0)
                out_model->device_create_ms = create_ms;
            else if (sscanf(line + 1, "release_ms %lf", &create_ms) == 1 && create_ms >= 0)
                out_model->device_release_ms = create_ms;
            else if (sscanf(line + 1, "point %lf %lf %lf", &point.keys, &point.cpu_ms, &point.device_ms) == 3 &&
                     point.keys >= 1 && point.cpu_ms > 0 && point.device_ms > 0 &&
                     out_model->point_count < BITONIC_CHOICE_MAX_POINTS &&
                     (out_model->point_count == 0 || point.keys > out_model->points[out_model->point_count - 1].keys))
                out_model->points[out_model->point_count++] = point;
        }
        /* A file without lines of its own for 64-bit keys gives them the pairs'. */
        if (out_model->key64_crossover_keys == 0)
            out_model->key64_crossover_keys = out_model->wide_crossover_keys;
        if (out_model->key64_point_count == 0) {
            memcpy(out_model->key64_points, out_model->wide_points, sizeof out_model->key64_points);
            out_model->key64_point_count = out_model->wide_point_count;
        }
    }
    return keys;
}

uint64_t bitonic_device_choice_read_file(const char *path, bitonic_device_choice *out_model)
{
    return read_crossover_file(out_model ? out_model->memory : NULL, path, out_model);
}

static void write_crossover(const char *path, const bitonic_device_choice *choice)
{
    if (!path[0])
        return;
    char text[3072], keys[24], wide_keys[24], key64_keys[24];
    snprintf(keys, sizeof keys, "%llu", (unsigned long long)choice->crossover_keys);
    snprintf(wide_keys, sizeof wide_keys, "%llu", (unsigned long long)choice->wide_crossover_keys);
    snprintf(key64_keys, sizeof key64_keys, "%llu", (unsigned long long)choice->key64_crossover_keys);
    int length = snprintf(text, sizeof text, CROSSOVER_MAGIC "\nkeys %s\nwide_keys %s\nu64_keys %s\n",
                          choice->crossover_keys == CROSSOVER_NEVER ? "never" : keys,
                          choice->wide_crossover_keys == CROSSOVER_NEVER ? "never" : wide_keys,
                          choice->key64_crossover_keys == CROSSOVER_NEVER ? "never" : key64_keys);
    if (length > 0 && (size_t)length < sizeof text)
        length += snprintf(text + length, sizeof text - (size_t)length, "create_ms %.3f\n",
                           choice->device_create_ms);
    if (choice->device_release_ms > 0 && length > 0 && (size_t)length < sizeof text)
        length += snprintf(text + length, sizeof text - (size_t)length, "release_ms %.3f\n",
                           choice->device_release_ms);
    for (uint32_t p = 0; p < choice->point_count && length > 0 && (size_t)length < sizeof text; ++p)
        length += snprintf(text + length, sizeof text - (size_t)length, "point %.0f %.4f %.4f\n",
                           choice->points[p].keys, choice->points[p].cpu_ms, choice->points[p].device_ms);
    for (uint32_t p = 0; p < choice->wide_point_count && length > 0 && (size_t)length < sizeof text; ++p)
        length += snprintf(text + length, sizeof text - (size_t)length, "wide_point %.0f %.4f %.4f\n",
                           choice->wide_points[p].keys, choice->wide_points[p].cpu_ms,
                           choice->wide_points[p].device_ms);
    for (uint32_t p = 0; p < choice->key64_point_count && length > 0 && (size_t)length < sizeof text; ++p)
        length += snprintf(text + length, sizeof text - (size_t)length, "u64_point %.0f %.4f %.4f\n",
                           choice->key64_points[p].keys, choice->key64_points[p].cpu_ms,
                           choice->key64_points[p].device_ms);
    if (length > 0 && (size_t)length < sizeof text)
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

/* The best of a few host sorts of count keys of a kind on one side; negative
 * on failure. keys holds 2 x count words (64-bit keys), values count. */
static double time_side(bitonic_device_choice *choice, const bitonic_choice_target *target, bitonic_forced_device side,
                        bitonic_sort_kind kind, uint32_t *keys, uint32_t *values, size_t count, uint64_t *state)
{
    choice->forced = side;
    double best = -1.0;
    for (int run = 0; run < 4; ++run) {
        fill_keys(keys, kind == BITONIC_SORT_KEYS64 ? 2 * count : count, state);
        for (size_t i = 0; kind == BITONIC_SORT_PAIRS && i < count; ++i)
            values[i] = (uint32_t)i;
        double start = now_ms();
        bitonic_status sorted = target->measure(target->measure_user_data, kind, keys,
                                                kind == BITONIC_SORT_PAIRS ? values : NULL, count);
        if (sorted != BITONIC_SUCCESS) {
            best = -1.0;
            break;
        }
        double elapsed = now_ms() - start;
        if (run > 0 && (best < 0 || elapsed < best))  /* run 0 builds pipelines and buffers */
            best = elapsed;
    }
    choice->forced = BITONIC_FORCED_NONE;
    return best;
}

/* Walks up the sizes, 2^12 to 2^22, timing both sides; the crossover is where
 * the device first beats the CPU path, interpolated between the last two sizes.
 * It goes on measuring past that point (for the first-call estimate), unless
 * the device is hopeless or the time budget is spent. */
static uint64_t calibrate(bitonic_device_choice *choice, const bitonic_choice_target *target)
{
    uint32_t *keys = bitonic_host_memory_alloc(choice->memory, ((size_t)1 << LARGEST_LOG) * sizeof *keys);
    uint32_t *values = bitonic_host_memory_alloc(choice->memory, ((size_t)1 << LARGEST_LOG) * sizeof *values);
    choice->point_count = choice->wide_point_count = choice->key64_point_count = 0;
    choice->wide_crossover_keys = choice->key64_crossover_keys = CROSSOVER_NEVER;
    if (!keys || !values) {
        bitonic_host_memory_free(choice->memory, keys);
        bitonic_host_memory_free(choice->memory, values);
        return CROSSOVER_NEVER;
    }
    uint64_t state = 0x9e3779b97f4a7c15ull, crossover = CROSSOVER_NEVER;
    /* u32 keys, then pairs and 64-bit keys up to 2^18 (the CPU path's pairs
     * take 5 ms there on the H100 machine, and more above); all past the
     * crossover, for the first-call estimate. A device that never beats the
     * CPU path on u32 keys is not tried on the others. */
    for (int kind_number = BITONIC_SORT_KEYS32; kind_number <= BITONIC_SORT_KEYS64; ++kind_number) {
        bitonic_sort_kind kind = (bitonic_sort_kind)kind_number;
        bool wide = kind != BITONIC_SORT_KEYS32;
        if (wide && crossover == CROSSOVER_NEVER)
            break;
        uint64_t found = CROSSOVER_NEVER;
        double start = now_ms(), previous_ratio = 0.0;
        for (uint32_t log = SMALLEST_LOG; log <= LARGEST_LOG; log += 2) {
            size_t count = (size_t)1 << log;
            double cpu = time_side(choice, target, BITONIC_FORCED_CPU, kind, keys, values, count, &state);
            double device = time_side(choice, target, BITONIC_FORCED_DEVICE, kind, keys, values, count, &state);
            if (cpu < 0 || device < 0)
                break;  /* a side that fails is not chosen: stay on the CPU path */
            cpu = cpu > 1e-6 ? cpu : 1e-6;
            uint32_t *point_count;
            bitonic_choice_point *points = points_of(choice, kind, &point_count);
            if (*point_count < BITONIC_CHOICE_MAX_POINTS)
                points[(*point_count)++] = (bitonic_choice_point){(double)count, cpu, device};
            double ratio = device / cpu;
            if (ratio < 1.0 && found == CROSSOVER_NEVER) {
                if (log == SMALLEST_LOG || previous_ratio <= 1.0) {
                    found = count;
                } else {
                    /* Where the ratio crosses 1, linear in log2(n) between the last
                     * two sizes; 2^fraction taken as 1 + fraction (within 6%). */
                    double at = (double)(log - 2) + 2.0 * (previous_ratio - 1.0) / (previous_ratio - ratio);
                    uint32_t whole = (uint32_t)at;
                    found = (uint64_t)((double)((uint64_t)1 << whole) * (1.0 + (at - (double)whole)));
                }
            }
            previous_ratio = ratio;
            /* Far behind at a size where buses and latency no longer dominate, or
             * too slow to go on: the device is not worth it for host sorts. */
            if ((found == CROSSOVER_NEVER && log >= 18 && ratio > 3.0) || (wide && log >= LARGEST_WIDE_LOG) ||
                now_ms() - start > CALIBRATION_BUDGET_MS)
                break;
        }
        if (wide)
            *crossover_of(choice, kind) = found;
        else
            crossover = found;
    }
    choice->device_create_ms = target->ops->device_create_ms(target->state);
    bitonic_host_memory_free(choice->memory, keys);
    bitonic_host_memory_free(choice->memory, values);
    return crossover;
}

/* A side's time at count keys from the measured points: linear between
 * neighbours, and beyond the ends in proportion to count (the CPU's n log n
 * and the device's fixed latency make this off for both, the same way). */
static double estimate_ms(bitonic_device_choice *choice, bitonic_sort_kind kind, double count, bool device)
{
    uint32_t *point_count;
    const bitonic_choice_point *points = points_of(choice, kind, &point_count);
    uint32_t last = *point_count - 1u;
    if (count <= points[0].keys)
        return device ? points[0].device_ms : points[0].cpu_ms * count / points[0].keys;
    for (uint32_t p = 0; p < last; ++p) {
        if (count > points[p + 1].keys)
            continue;
        double a = device ? points[p].device_ms : points[p].cpu_ms;
        double b = device ? points[p + 1].device_ms : points[p + 1].cpu_ms;
        return a + (b - a) * (count - points[p].keys) / (points[p + 1].keys - points[p].keys);
    }
    return (device ? points[last].device_ms : points[last].cpu_ms) * count / points[last].keys;
}

uint64_t bitonic_device_choice_known(const bitonic_device_choice *choice)
{
    return choice->crossover_keys != 0 ? choice->crossover_keys : read_crossover_file(choice->memory, choice->path, NULL);
}

bool bitonic_device_choice_on_cpu(bitonic_device_choice *choice, const bitonic_choice_target *target, size_t count,
                                  bitonic_sort_kind kind)
{
    if (choice->forced != BITONIC_FORCED_NONE)
        return choice->forced == BITONIC_FORCED_CPU;
    if (choice->crossover_keys == 0 && choice->use_model) {
        if (count < ((size_t)1 << SMALLEST_LOG))
            return true;  /* no need to calibrate to know this one */
        choice->crossover_keys = read_crossover_file(choice->memory, choice->path, choice);
        /* Calibrating makes the device; one that cannot be made (a census
         * naming a GPU that is gone) leaves every host sort on the CPU path
         * and writes nothing. */
        if (choice->crossover_keys == 0 && !target->ops->device_ready(target->state) &&
            target->ops->device_make(target->state) != BITONIC_SUCCESS)
            return true;
        if (choice->crossover_keys == 0) {
            double start = now_ms();
            choice->crossover_keys = calibrate(choice, target);
            choice->calibration_ms = now_ms() - start;
            write_crossover(choice->path, choice);
        }
    }
    if ((uint64_t)count < *crossover_of(choice, kind))
        return true;
    /* Above the crossover the device wins call for call; but if it has still
     * to be made, this call pays for that too, and for its release. */
    uint32_t *point_count;
    points_of(choice, kind, &point_count);
    if (choice->use_model && *point_count > 0 && !target->ops->device_ready(target->state) &&
        estimate_ms(choice, kind, (double)count, false) <
            estimate_ms(choice, kind, (double)count, true) + choice->device_create_ms + choice->device_release_ms)
        return true;
    return choice->use_model && !target->ops->device_ready(target->state) &&
           target->ops->device_make(target->state) != BITONIC_SUCCESS;
}

void bitonic_device_choice_note_release(bitonic_device_choice *choice, double release_ms)
{
    if (!choice->use_model || choice->point_count == 0 || choice->device_release_ms > 0 || release_ms <= 0)
        return;
    choice->device_release_ms = release_ms;
    write_crossover(choice->path, choice);
}
