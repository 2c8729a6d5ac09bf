/* gles_bench.c: `bitonic bench --device gles`: the OpenGL ES fragment-shader
 * backend on u32 keys and on RGBA records (four u32 words, ordered by component
 * 0 read as f32), from 2^min_log up to the largest size its textures hold
 * (at most 2^24). For each size it reports the median time of the draws (GL
 * timer queries where the driver has them, else wall time between glFinish
 * calls, named in the "timer" column), the draws against the network's
 * log2 N (log2 N + 1) / 2 steps (equal at one step a draw; --tune max-steps=S runs
 * up to S steps a draw), and whether every run matched the C reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_command.h"
#include "bitonic.h"
#include "bitonic_gles.h"

#define GLES_BENCH_MAX_LOG 24u
#define RECORD_COMPONENT 0u

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The f32 total order of bitonic.h as u32 bits (NaNs last), as the shader ranks keys. */
static uint32_t ordered_f32(uint32_t x)
{
    uint32_t sign_mask = 0u - (x >> 31);
    return (x ^ (sign_mask | 0x80000000u)) - 0x007fffffu;
}

/* The C reference for records: the key component as f32, then the other
 * components as u32 in order (bitonic_gles.h's tie rule). */
static int compare_records(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    uint32_t kx = ordered_f32(x[RECORD_COMPONENT]), ky = ordered_f32(y[RECORD_COMPONENT]);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    for (unsigned c = 0; c < 4; ++c)
        if (c != RECORD_COMPONENT && x[c] != y[c])
            return x[c] < y[c] ? -1 : 1;
    return 0;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct gles_size_result {
    double median_ms, min_ms;
    uint32_t passes;
    bool verified;
    bool failed;
} gles_size_result;

/* One sort of words (a copy of input) as u32 keys or records; time and passes from the library. */
static bitonic_status sort_once(bitonic_context *context, bitonic_buffer *buffer, bool records, uint32_t *words,
                                size_t n, bitonic_timing *timing)
{
    if (records) {
        bitonic_sort_options options = {.key_type = BITONIC_KEY_F32};
        return bitonic_gles_sort_records(context, words, n, RECORD_COMPONENT, &options, timing);
    }
    bitonic_status status = bitonic_buffer_upload(buffer, words, n);
    if (status == BITONIC_SUCCESS)
        status = bitonic_buffer_sort(buffer, n, NULL, timing);
    if (status == BITONIC_SUCCESS)
        status = bitonic_buffer_download(buffer, words, n);
    return status;
}

static gles_size_result measure(bitonic_context *context, bitonic_buffer *buffer, bool records, size_t n,
                                unsigned runs, uint64_t *seed)
{
    gles_size_result result = {.verified = true};
    size_t words_per_item = records ? 4u : 1u, bytes = n * words_per_item * sizeof(uint32_t);
    uint32_t *input = malloc(bytes), *expected = malloc(bytes), *work = malloc(bytes);
    double *times = malloc(runs * sizeof *times);
    if (!input || !expected || !work || !times) {
        result.failed = true;
        result.verified = false;
    }
    for (size_t i = 0; !result.failed && i < n * words_per_item; ++i)
        input[i] = (uint32_t)next_random(seed);
    if (!result.failed) {
        memcpy(expected, input, bytes);
        qsort(expected, n, words_per_item * sizeof(uint32_t), records ? compare_records : compare_u32);
    }
    /* One untimed run first: shader compilation and texture allocation. */
    for (unsigned run = 0; !result.failed && run <= runs; ++run) {
        memcpy(work, input, bytes);
        bitonic_timing timing = {0};
        bitonic_status status = sort_once(context, buffer, records, work, n, &timing);
        if (status != BITONIC_SUCCESS) {
            fprintf(stderr, "bitonic: GLES sort of %zu failed: %s\n", n, bitonic_status_string(status));
            result.failed = true;
            result.verified = false;
            break;
        }
        result.verified &= memcmp(work, expected, bytes) == 0;
        result.passes = timing.pass_count;
        if (run > 0)
            times[run - 1] = timing.sort_ms;
    }
    if (!result.failed) {
        qsort(times, runs, sizeof *times, compare_double);
        result.median_ms = times[runs / 2];
        result.min_ms = times[0];
    }
    free(input);
    free(expected);
    free(work);
    free(times);
    return result;
}

int gles_bench_run(const bench_options *options)
{
    bitonic_context *context;
    bitonic_tuning_overrides tuning = bench_tuning_overrides(options);  /* max-steps: the steps a draw runs */
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.next = &tuning, .device = "gles", .validation = options->validation,
                                .gles_layout = options->gles_layout},
        &context);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot open the device gles: %s\n", bitonic_status_string(status));
        return 1;
    }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    const char *timer = info.gles_timer_query ? "gl_timer_query" : "glfinish_wall";
    unsigned max_log = options->max_log && options->max_log < GLES_BENCH_MAX_LOG ? options->max_log : GLES_BENCH_MAX_LOG;
    uint32_t width = 0, height = 0;
    while (max_log > options->min_log &&
           bitonic_gles_texture_size((uint64_t)1 << max_log, (bitonic_gles_layout)options->gles_layout,
                                     info.gles_max_texture_size, &width, &height) != BITONIC_SUCCESS)
        --max_log;
    unsigned types = options->types & (BENCH_TYPE_U32 | BENCH_TYPE_RECORDS);
    if (types == 0)
        types = BENCH_TYPE_U32 | BENCH_TYPE_RECORDS;
    bitonic_buffer *buffer = NULL;
    if ((types & BENCH_TYPE_U32) &&
        (status = bitonic_buffer_create(context, (size_t)1 << max_log, &buffer)) != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: no buffer: %s\n", bitonic_status_string(status));
        bitonic_context_destroy(context);
        return 1;
    }
    unsigned steps = options->max_steps == 0 ? 1u
                     : options->max_steps > BITONIC_GLES_MAX_STEPS_PER_DRAW ? BITONIC_GLES_MAX_STEPS_PER_DRAW
                                                                          : options->max_steps;
    if (options->csv)
        printf("impl,type,n,width,height,steps_per_draw,passes,formula_passes,expected_passes,median_ms,min_ms,runs,"
               "timer,verified\n");
    else
        printf("# %s; largest texture side %u; times of the draws by %s; records by component %u as f32;\n"
               "# up to %u steps a draw (formula: log2 N (log2 N + 1) / 2 steps)\n"
               "%-8s %10s %11s %7s %8s %12s %12s %10s   %s\n",
               info.device_name, info.gles_max_texture_size, timer, RECORD_COMPONENT, steps, "type", "n", "texture",
               "passes", "formula", "median ms", "min ms", "Mkeys/s", "check");
    uint64_t seed = 2024;
    int exit_code = 0;
    for (unsigned log = options->min_log; log <= max_log && exit_code == 0; ++log) {
        size_t n = (size_t)1 << log;
        bitonic_gles_texture_size(n, (bitonic_gles_layout)options->gles_layout, info.gles_max_texture_size, &width,
                                  &height);
        uint32_t formula = bitonic_gles_network_pass_count(n), expected = bitonic_gles_draw_count(n, steps);
        for (unsigned type = BENCH_TYPE_U32; type <= BENCH_TYPE_RECORDS && exit_code == 0; type <<= 1) {
            if (!(types & type))
                continue;
            bool records = type == BENCH_TYPE_RECORDS;
            gles_size_result r = measure(context, buffer, records, n, options->runs, &seed);
            const char *name = records ? "rgba_f32" : "u32";
            if (r.failed || !r.verified || r.passes != expected)
                exit_code = 1;
            if (options->csv)
                printf("bitonic_gles,%s,%zu,%u,%u,%u,%u,%u,%u,%.6f,%.6f,%u,%s,%d\n", name, n, width, height, steps,
                       r.passes, formula, expected, r.median_ms, r.min_ms, options->runs, timer, r.verified ? 1 : 0);
            else
                printf("%-8s %10zu %5ux%-5u %7u %8u %12.4f %12.4f %10.3f   %s\n", name, n, width, height, r.passes,
                       formula, r.median_ms, r.min_ms, r.median_ms > 0 ? (double)n / (r.median_ms * 1e3) : 0.0,
                       r.verified ? (r.passes == expected ? "ok" : "PASSES DIFFER") : "WRONG");
            fflush(stdout);
        }
    }
    bitonic_buffer_destroy(buffer);
    bitonic_context_destroy(context);
    return exit_code;
}
