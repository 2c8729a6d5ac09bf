/* bench_command.c: the benchmark of `bitonic bench` (see bench_command.h).
 * Each run sorts freshly generated keys, so no run sees data a previous run
 * left sorted; every output is checked (order plus a fingerprint of the key
 * multiset), and a wrong result stops the bench with an error. The keys and
 * their checks are bench_keys.c's. */
#define _POSIX_C_SOURCE 200809L
#include "bench_command.h"
#include "bench_keys.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"

#define WARMUP_RUNS 2u
#define MAX_PROFILE_PASSES 600u
/* Keys of the scratch buffer sorted to bring the GPU's clocks up before each
 * timed sort: generating and checking keys on the host leaves the GPU idle long
 * enough to drop to its idle clock, and a sort timed right after would measure
 * the clock ramp, not the sort (seen on the H100: 5, 30 and 60 ms of warm-up were too
 * little after the host had checked 2^24 keys). */
#define CLOCK_WARMUP_KEYS (1u << 22)
#define CLOCK_WARMUP_MS 250.0
/* 250 ms did not always do: in one H100 sweep of five, the batches of 2^24
 * keys still ran at 690 MHz of 1980 after it (docs/perf-log.md,
 * entry 25). So the warm-up goes on until three sorts of the warm-up keys in a row take
 * at most CLOCK_STEADY times the fastest seen in this call (at most
 * CLOCK_WARMUP_MAX_MS), and a batch is sorted again, up to BATCH_RETRIES times,
 * when a sort of the warm-up keys right after it takes more than
 * CLOCK_DROPPED times the fastest: the clock fell while it ran; or less than
 * the fastest before the batch over CLOCK_DROPPED: the clock was still rising
 * (the first batch of a call on the H200, at 630-810 MHz after a warm-up
 * that never left 345: every warm-up sort was as slow, so none looked slow;
 * docs/perf-log.md, entry 107). */
#define CLOCK_WARMUP_MAX_MS 2000.0
#define CLOCK_STEADY 1.05
#define CLOCK_DROPPED 1.10
#define BATCH_RETRIES 2u
/* Resident buffers a batch of timed runs sorts back to back. */
#define RUN_BUFFERS 12u

bench_options bench_default_options(void)
{
    return (bench_options){.min_log = 10, .max_log = 0, .runs = 10, .end_to_end = true, .types = BENCH_TYPE_U32};
}

bool bench_parse_types(const char *text, unsigned *out_types)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"u32", BENCH_TYPE_U32}, {"f32", BENCH_TYPE_F32}, {"pairs", BENCH_TYPE_PAIRS}, {"u64", BENCH_TYPE_U64},
                   {"rows", BENCH_TYPE_ROWS}, {"records", BENCH_TYPE_RECORDS}};
    unsigned types = 0;
    while (text && *text) {
        size_t length = strcspn(text, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
            if (strlen(names[i].name) == length && strncmp(text, names[i].name, length) == 0) {
                types |= names[i].bit;
                known = true;
            }
        if (!known)
            return false;
        text += length + (text[length] == ',');
    }
    *out_types = types;
    return types != 0;
}

static const char *type_name(unsigned type)
{
    return type == BENCH_TYPE_F32     ? "f32"
           : type == BENCH_TYPE_PAIRS ? "pairs"
           : type == BENCH_TYPE_U64   ? "u64"
           : type == BENCH_TYPE_ROWS  ? "rows1024"
                                      : "u32";
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Stages of a host-memory sort (bitonic_host_timing), medians over the runs. */
typedef struct stage_times {
    bool present;
    double upload_ms, sort_ms, download_ms, host_ms;  /* host_ms: the CPU's part (importing or staging) */
} stage_times;

typedef struct measurement {
    double median_ms, min_ms;
    unsigned runs;
    bool verified;
    stage_times stages;
    /* Wall-clock span of the timed runs (Unix ms), for --tune batch-log: lets a
     * script match each row with the GPU clock sampled meanwhile. */
    double first_unix_ms, last_unix_ms;
} measurement;

static double unix_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double median_of(double *times, unsigned runs)
{
    qsort(times, runs, sizeof *times, compare_double);
    return runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
}

static measurement summarize(double *times, unsigned runs, bool verified)
{
    double median = median_of(times, runs);
    return (measurement){median, times[0], runs, verified, {0}, 0.0, 0.0};
}

/* The warm-up keys on the GPU and the fastest GPU time one sort of them has
 * taken in this call: the yardstick for "the clock is up". */
typedef struct clock_guard {
    bitonic_buffer *scratch;  /* NULL: nothing to warm (the CPU path, a CPU driver) */
    double best_ms;           /* 0 until a sort has been timed */
} clock_guard;

/* One sort of the warm-up keys; its GPU time (0 where the device has no
 * timestamps) in *ms, the fastest so far kept in the guard. */
static bitonic_status time_warmup_sort(clock_guard *guard, double *ms)
{
    bitonic_timing timing = {0};
    bitonic_status status = bitonic_buffer_sort(guard->scratch, CLOCK_WARMUP_KEYS, NULL, &timing);
    *ms = status == BITONIC_SUCCESS ? timing.sort_ms : 0.0;
    if (*ms > 0.0 && (guard->best_ms == 0.0 || *ms < guard->best_ms))
        guard->best_ms = *ms;
    return status;
}

/* Sorts the warm-up keys back to back for CLOCK_WARMUP_MS, and on until three
 * in a row are within CLOCK_STEADY of the fastest (time alone where there are
 * no timestamps), for at most CLOCK_WARMUP_MAX_MS. */
static bitonic_status warm_clocks(clock_guard *guard)
{
    if (!guard->scratch)
        return BITONIC_SUCCESS;
    bitonic_status status = BITONIC_SUCCESS;
    double start = now_ms();
    unsigned steady = 0;
    for (int i = 0; i < 1000000 && status == BITONIC_SUCCESS; ++i) {
        double elapsed = now_ms() - start, ms;
        bool timed = guard->best_ms > 0.0;
        if (elapsed >= CLOCK_WARMUP_MAX_MS || (elapsed >= CLOCK_WARMUP_MS && (steady >= 3 || !timed)))
            break;
        status = time_warmup_sort(guard, &ms);
        steady = ms > 0.0 && ms <= CLOCK_STEADY * guard->best_ms ? steady + 1 : 0;
    }
    return status;
}

/* Whether a sort of the warm-up keys now takes over CLOCK_DROPPED times the
 * fastest (the clock has fallen), or under the fastest before the batch
 * (best_before) by that much (the clock has risen since: the batch ran below
 * it). False where nothing can tell. */
static bool clock_moved(clock_guard *guard, double best_before)
{
    double ms;
    if (!guard->scratch || time_warmup_sort(guard, &ms) != BITONIC_SUCCESS || ms == 0.0)
        return false;
    return ms > CLOCK_DROPPED * guard->best_ms || (best_before > 0.0 && ms * CLOCK_DROPPED < best_before);
}

/* Fresh random keys of the bench type (with values for pairs; u64 keys take
 * two words each) into the resident buffer; *out_fingerprint, when given,
 * their multiset's fingerprint for the check. */
static bitonic_status upload_random(bitonic_buffer *buffer, uint32_t *keys, uint32_t *values, size_t n, unsigned type,
                                    uint64_t *seed, uint64_t *out_fingerprint)
{
    bool pairs = type == BENCH_TYPE_PAIRS, wide = type == BENCH_TYPE_U64;
    uint64_t fingerprint =
        wide ? bench_fill_random64(keys, n, seed) : bench_fill_random(keys, pairs ? values : NULL, n, seed);
    if (out_fingerprint)
        *out_fingerprint = fingerprint;
    bitonic_status status = bitonic_buffer_upload(buffer, keys, wide ? 2 * n : n);
    if (status == BITONIC_SUCCESS && pairs)
        status = bitonic_buffer_upload_values(buffer, values, n);
    return status;
}

/* The resident sort of the bench type: pairs, rows of BENCH_ROW_LENGTH, or keys. */
static bitonic_status sort_resident(bitonic_buffer *buffer, size_t n, unsigned type, bitonic_timing *timing)
{
    bitonic_sort_options sort_options = {.key_type = type == BENCH_TYPE_F32   ? BITONIC_KEY_F32
                                                     : type == BENCH_TYPE_U64 ? BITONIC_KEY_U64
                                                                              : BITONIC_KEY_U32};
    if (type == BENCH_TYPE_PAIRS)
        return bitonic_buffer_sort_pairs(buffer, n, &sort_options, timing);
    if (type == BENCH_TYPE_ROWS)
        return bitonic_buffer_sort_rows(buffer, n / BENCH_ROW_LENGTH, BENCH_ROW_LENGTH, &sort_options, timing);
    return bitonic_buffer_sort(buffer, n, &sort_options, timing);
}

/* GPU time of the sort alone, keys resident on the device. The keys of a
 * batch of runs are made and uploaded first, the clocks warmed, then the batch
 * is sorted back to back and only then downloaded and checked: host work between
 * timed sorts would let the GPU fall back to its idle clock. */
static bitonic_status measure_resident(clock_guard *guard, bitonic_buffer **buffers, unsigned buffer_count,
                                       uint32_t *keys, uint32_t *values, size_t n, unsigned type,
                                       const bench_options *options, uint64_t *seed, measurement *out)
{
    unsigned total = WARMUP_RUNS + options->runs;
    double *times = malloc(options->runs * sizeof *times);
    uint64_t fingerprints[RUN_BUFFERS];
    bool verified = true;
    bool pairs = type == BENCH_TYPE_PAIRS, wide = type == BENCH_TYPE_U64;
    bitonic_status status = times ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    double first_unix_ms = 0.0, last_unix_ms = 0.0;
    for (unsigned first = 0; first < total && status == BITONIC_SUCCESS; first += buffer_count) {
        unsigned batch = total - first < buffer_count ? total - first : buffer_count;
        /* A batch the clock fell under is made and sorted again (new keys: its
         * buffers hold sorted ones now). */
        for (unsigned attempt = 0; status == BITONIC_SUCCESS; ++attempt) {
            for (unsigned b = 0; b < batch && status == BITONIC_SUCCESS; ++b)
                status = upload_random(buffers[b], keys, values, n, type, seed, &fingerprints[b]);
            if (status == BITONIC_SUCCESS)
                status = warm_clocks(guard);
            double best_before = guard->best_ms;
            for (unsigned b = 0; b < batch && status == BITONIC_SUCCESS; ++b) {
                if (first + b == WARMUP_RUNS)
                    first_unix_ms = unix_ms();
                bitonic_timing timing = {0};
                status = sort_resident(buffers[b], n, type, &timing);
                if (first + b >= WARMUP_RUNS)
                    times[first + b - WARMUP_RUNS] = timing.sort_ms;
            }
            last_unix_ms = unix_ms();
            if (status != BITONIC_SUCCESS || attempt == BATCH_RETRIES || first + batch <= WARMUP_RUNS ||
                !clock_moved(guard, best_before))
                break;
            fprintf(stderr, "bitonic: the GPU clock moved during a batch of %zu keys; sorting it again\n", n);
        }
        for (unsigned b = 0; b < batch && status == BITONIC_SUCCESS; ++b) {
            status = bitonic_buffer_download(buffers[b], keys, wide ? 2 * n : n);
            if (status == BITONIC_SUCCESS && pairs)
                status = bitonic_buffer_download_values(buffers[b], values, n);
            bool right = wide                       ? bench_verify64(keys, n, fingerprints[b])
                         : type == BENCH_TYPE_ROWS ? bench_verify_rows(keys, n, fingerprints[b])
                                                   : bench_verify(keys, pairs ? values : NULL, n, fingerprints[b], type);
            if (status == BITONIC_SUCCESS && !right)
                verified = false;
        }
    }
    if (status == BITONIC_SUCCESS) {
        *out = summarize(times, options->runs, verified);
        out->first_unix_ms = first_unix_ms;
        out->last_unix_ms = last_unix_ms;
    }
    free(times);
    return status;
}

/* Host memory to host memory through bitonic_sort_u32 (bitonic_sort_pairs,
 * bitonic_sort for u64 keys), timed by the clock,
 * with the stages the library reports (bitonic_context_last_host_timing).
 * The GPU's clocks are warmed before each run (guard: NULL for the CPU path):
 * making and checking 2^26 keys on the host between runs let the H100 fall to
 * its idle clock, and the sort stage took 25.8 ms there against 5.7 resident. */
/* Host sorts (host memory in and out) of one key type: u32 keys, pairs of u32
 * keys and values, or u64 keys (2n words of keys). */
static bitonic_status measure_end_to_end(bitonic_context *context, clock_guard *guard, uint32_t *keys,
                                         uint32_t *values, size_t n, unsigned type, const bench_options *options,
                                         uint64_t *seed, measurement *out)
{
    double *times = malloc(5 * options->runs * sizeof *times);
    if (!times)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    double *upload = times + options->runs, *sort = upload + options->runs, *download = sort + options->runs,
           *host = download + options->runs;
    bool verified = true, staged = true;
    bitonic_status status = BITONIC_SUCCESS;
    for (unsigned run = 0; run < WARMUP_RUNS + options->runs && status == BITONIC_SUCCESS; ++run) {
        bool pairs = type == BENCH_TYPE_PAIRS, wide = type == BENCH_TYPE_U64;
        uint64_t fingerprint =
            wide ? bench_fill_random64(keys, n, seed) : bench_fill_random(keys, pairs ? values : NULL, n, seed);
        if (guard && (status = warm_clocks(guard)) != BITONIC_SUCCESS)
            break;
        double start = now_ms();
        status = pairs  ? bitonic_sort_pairs(context, keys, values, n, NULL)
                 : wide ? bitonic_sort(context, keys, n, &(bitonic_sort_options){.key_type = BITONIC_KEY_U64})
                        : bitonic_sort_u32(context, keys, n, NULL);
        double elapsed = now_ms() - start;
        if (status == BITONIC_SUCCESS && !(wide ? bench_verify64(keys, n, fingerprint)
                                                : bench_verify(keys, pairs ? values : NULL, n, fingerprint, type)))
            verified = false;
        bitonic_host_timing stages;
        if (status == BITONIC_SUCCESS && bitonic_context_last_host_timing(context, &stages) != BITONIC_SUCCESS)
            staged = false;
        if (run >= WARMUP_RUNS && status == BITONIC_SUCCESS) {
            unsigned r = run - WARMUP_RUNS;
            times[r] = elapsed;
            upload[r] = stages.upload_ms;
            sort[r] = stages.sort_ms;
            download[r] = stages.download_ms;
            host[r] = stages.prepare_ms + stages.finish_ms;
            staged = staged && stages.ran_on == BITONIC_BACKEND_VULKAN;
        }
    }
    if (status == BITONIC_SUCCESS) {
        *out = summarize(times, options->runs, verified);
        if (staged)
            out->stages = (stage_times){true, median_of(upload, options->runs), median_of(sort, options->runs),
                                        median_of(download, options->runs), median_of(host, options->runs)};
    }
    free(times);
    return status;
}

/* One sort of n random keys of the type (u32 keys, pairs or u64 keys) with a
 * timestamp after every pass, printed pass by pass. */
static void print_profile(clock_guard *guard, bitonic_buffer *buffer, uint32_t *keys, uint32_t *values, size_t n,
                          unsigned type, uint64_t *seed)
{
    double pass_ms[MAX_PROFILE_PASSES];
    bitonic_pass_detail details[MAX_PROFILE_PASSES];
    bitonic_timing timing = {.pass_ms = pass_ms, .pass_capacity = MAX_PROFILE_PASSES, .pass_details = details};
    for (uint32_t p = 0; p < MAX_PROFILE_PASSES; ++p)
        details[p] = (bitonic_pass_detail){"pass", 0};
    if (upload_random(buffer, keys, values, n, type, seed, NULL) != BITONIC_SUCCESS ||
        warm_clocks(guard) != BITONIC_SUCCESS || sort_resident(buffer, n, type, &timing) != BITONIC_SUCCESS)
        return;
    printf("  profile of %zu %s: %u passes, %.4f ms\n", n,
           type == BENCH_TYPE_PAIRS ? "pairs" : type == BENCH_TYPE_U64 ? "u64 keys" : "keys",
           timing.pass_count, timing.sort_ms);
    /* A line a pass: its name, time, the bytes it reads and writes, and their
     * rate (bench/report/passes.py sets it beside the copy rate). */
    for (uint32_t p = 0; p < timing.pass_count && p < MAX_PROFILE_PASSES; ++p) {
        printf("    pass %2u %-16s %9.4f ms", p, details[p].name, pass_ms[p]);
        if (details[p].bytes > 0 && pass_ms[p] > 0.0)
            printf(" %12.3f MB %8.1f GB/s", (double)details[p].bytes * 1e-6,
                   (double)details[p].bytes / (pass_ms[p] * 1e-3) * 1e-9);
        printf("\n");
    }
}

/* Host-path rows add their stages: upload, sort and download on the GPU, the
 * host's own part, and the whole call over the bus time (upload + download),
 * which is 1 when the sort and the host's part cost nothing beside the bus. */
/* The processor's name from /proc/cpuinfo ("" where there is none). */
static void cpu_model_name(char *name, size_t capacity)
{
    name[0] = '\0';
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    if (!cpuinfo)
        return;
    char line[512];
    while (fgets(line, sizeof line, cpuinfo)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(name, capacity, "%s", colon + 2);
            name[strcspn(name, "\n")] = '\0';
            break;
        }
    }
    fclose(cpuinfo);
}

/* The table's head on the CPU path: what ran (the processor, its threads, the
 * instruction set) and why this device, and no GPU stage columns. */
static void print_cpu_header(const bench_options *options, const bitonic_context_info *info)
{
    char model[256];
    cpu_model_name(model, sizeof model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = options->cpu_threads != 0 ? options->cpu_threads : cores > 0 ? (unsigned)cores : 1u;
    const char *selector = options->device ? options->device : getenv("BITONIC_DEVICE");
    printf("# the CPU path (%s) on %s, %u threads; %s\n", info->device_name, model[0] ? model : "an unknown processor",
           threads,
           selector && *selector ? "the device named (--device or BITONIC_DEVICE)"
                                 : "no GPU was found (a CPU-only Vulkan driver is never picked by default)");
    printf("# median of %u runs after %u warm-ups; random keys; *_e2e: host memory in and out\n"
           "%-14s %-6s %12s %12s %12s %10s   %-5s\n",
           options->runs, WARMUP_RUNS, "impl", "type", "n", "median ms", "min ms", "G keys/s", "check");
}

static void print_row(const bench_options *options, const char *impl, unsigned type, size_t n, const measurement *m,
                      FILE *batch_log)
{
    if (batch_log && m->last_unix_ms > 0.0) {
        fprintf(batch_log, "%s,%s,%zu,%.3f,%.3f\n", impl, type_name(type), n, m->first_unix_ms, m->last_unix_ms);
        fflush(batch_log);
    }
    const stage_times *st = &m->stages;
    double bus = st->upload_ms + st->download_ms;
    if (options->csv) {
        printf("%s,%s,%zu,%.6f,%.6f,%u,%d", impl, type_name(type), n, m->median_ms, m->min_ms, m->runs,
               m->verified ? 1 : 0);
        if (st->present)
            printf(",%.6f,%.6f,%.6f,%.6f,%.3f\n", st->upload_ms, st->sort_ms, st->download_ms, st->host_ms,
                   bus > 0 ? m->median_ms / bus : 0.0);
        else
            printf(",,,,,\n");
        return;
    }
    printf("%-14s %-6s %12zu %12.4f %12.4f %10.3f   %-*s", impl, type_name(type), n, m->median_ms, m->min_ms,
           m->median_ms > 0 ? (double)n / (m->median_ms * 1e6) : 0.0, st->present ? 5 : 0, m->verified ? "ok" : "WRONG");
    if (st->present)
        printf(" %10.4f %10.4f %10.4f %10.4f %7.2f\n", st->upload_ms, st->sort_ms, st->download_ms, st->host_ms,
               bus > 0 ? m->median_ms / bus : 0.0);
    else
        printf("\n");
}

/* The impl column of the Vulkan path: which strategy, and whether the time is
 * host to host. */
/* The row's name: the resident sort, the host sort (e2e), or the host sort of
 * a block of bitonic_host_alloc (pinned e2e), by strategy. */
static const char *impl_name(const bench_options *options, bool end_to_end, bool pinned)
{
    switch (options->strategy) {
    case BITONIC_STRATEGY_NETWORK:
        return pinned ? "bitonic_network_pinned_e2e" : end_to_end ? "bitonic_network_e2e" : "bitonic_network";
    case BITONIC_STRATEGY_TRANSPOSE:
        return pinned ? "bitonic_transpose_pinned_e2e" : end_to_end ? "bitonic_transpose_e2e" : "bitonic_transpose";
    default: return pinned ? "pinned_e2e" : end_to_end ? "bitonic_e2e" : "bitonic";
    }
}

/* The --tune settings as the library's tuning overrides (0: the tuning's). */
bitonic_tuning_overrides bench_tuning_overrides(const bench_options *options)
{
    return (bitonic_tuning_overrides){
        .type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES,
        .tile_keys = options->tile_keys,
        .tile_keys_per_thread = options->keys_per_thread,
        .max_strides_per_global_pass = options->max_steps,
        .merge_chunk_keys = options->merge_chunk_keys,
        .merge_split_pass_min_chunks = options->merge_split_min_chunks,
        .merge_split_probes = options->merge_split_probes,
        .merge_split_workgroup_size = options->merge_split_workgroup_size,
        .merge_split_guided_min_chunks =
            options->merge_split_plain_search ? UINT32_MAX : options->merge_split_guided_min_chunks,
        .merge_split_no_samples = options->merge_split_no_samples,
        .merge_fused_split_min_chunks = options->merge_fused_split_min_chunks,
        .merge_fused_split_probes = options->merge_fused_split_probes,
        .merge_fused_split_searcher = (bitonic_split_searcher)options->merge_fused_split_searcher,
        .small_sort_tile_keys = options->small_sort_tile_keys,
        .small_sort_max_keys = options->small_sort_max_keys,
        .partition_min_keys = options->partition_min_keys,
        .partition_levels = options->partition_levels,
        .partition_samples_per_bucket = options->partition_samples,
        .partition_buckets_per_window = options->partition_buckets_per_window,
        .partition_nested_min_levels = options->partition_nested_min_levels,
        .partition_nested_tile_keys = options->partition_nested_tile_keys,
        .partition_split_by_thread_min_keys = options->partition_split_by_thread,
        .partition_scatter_workgroups = options->partition_scatter_groups,
        .partition_workgroup_size = options->partition_threads,
        .partition_count_workgroups = options->partition_count_groups,
        .partition_scatter_tile_keys = options->partition_scatter_tile,
        .merge_store_from_registers = options->merge_store_from_registers,
        .partition_whole_samples = options->partition_whole_samples,
        .partition_split_pairs = options->partition_split_pairs,
        .partition_window_staged_stores = options->partition_window_staged,
        .merge_kernel = (bitonic_merge_kernel)options->merge_kernel,
        .merge_scalar_io = options->merge_scalar_io,
        .tile_scalar_io = options->tile_scalar_io,
        .network_tile_sort = options->network_tile_sort,
        .no_subgroup_shuffle = options->no_subgroup_shuffle,
        .no_subgroup_arithmetic = options->no_subgroup_arithmetic,
    };
}

int bench_run(const bench_options *options)
{
#ifdef BITONIC_HAVE_GLES
    if (options->device && strcmp(options->device, "gles") == 0)
        return gles_bench_run(options);
#endif
    bitonic_context *context;
    bitonic_tuning_overrides tuning = bench_tuning_overrides(options);
    bitonic_context_desc desc = {.next = &tuning, .device = options->device, .validation = options->validation,
                                 .strategy = options->strategy, .cpu_threads = options->cpu_threads,
                                 /* every host sort on the device: the CPU path has its own rows */
                                 .crossover_keys = 1};
    FILE *batch_log = NULL;
    if (options->batch_log_path && !(batch_log = fopen(options->batch_log_path, "a"))) {
        fprintf(stderr, "bitonic: cannot open the batch log %s\n", options->batch_log_path);
        return 1;
    }
    bitonic_status status = bitonic_context_create(&desc, &context);
    /* The CPU path beside the device for host-memory sorts, so the crossover shows. */
    bitonic_context *cpu_context = NULL;
    if (status == BITONIC_SUCCESS && options->end_to_end &&
        bitonic_context_create(&(bitonic_context_desc){.device = "cpu", .cpu_threads = options->cpu_threads},
                               &cpu_context) != BITONIC_SUCCESS)
        cpu_context = NULL;
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot open the device: %s\n", bitonic_status_string(status));
        if (batch_log)
            fclose(batch_log);
        return 1;
    }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    unsigned max_log = options->max_log;
    if (max_log == 0)
        max_log = info.backend == BITONIC_BACKEND_CPU ? 22u : info.vulkan_device_type == 4u ? 16u : 24u;
    while (max_log > options->min_log && ((uint64_t)1 << max_log) + 1u > info.max_keys)
        --max_log;
    /* u64 keys take two words each. */
    size_t capacity = (((size_t)1 << max_log) + 1u) * ((options->types & BENCH_TYPE_U64) ? 2u : 1u);
    uint32_t *keys = malloc(capacity * sizeof *keys);
    uint32_t *values = malloc(capacity * sizeof *values);
    /* Host-path rows from bitonic_host_alloc memory, made on first use. */
    uint32_t *pinned_keys = NULL, *pinned_values = NULL;
    bool pinned_tried = false;
    /* Fewer run buffers only when memory runs short: each batch warms the clocks anew. */
    bitonic_buffer *buffers[RUN_BUFFERS] = {NULL}, *scratch = NULL;
    unsigned buffer_count = 0;
    status = keys && values ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    unsigned wanted_buffers = options->run_buffers ? options->run_buffers : RUN_BUFFERS;
    while (status == BITONIC_SUCCESS && buffer_count < wanted_buffers) {
        bitonic_status created = bitonic_buffer_create(context, capacity, &buffers[buffer_count]);
        if (created == BITONIC_SUCCESS)
            ++buffer_count;
        else if (buffer_count == 0)
            status = created;
        else
            break;
    }
    /* Only a GPU changes its clock with load; the CPU path needs no warming. */
    if (status == BITONIC_SUCCESS && info.backend == BITONIC_BACKEND_VULKAN && info.vulkan_device_type != 4u &&
        CLOCK_WARMUP_KEYS <= info.max_keys)
        status = bitonic_buffer_create(context, CLOCK_WARMUP_KEYS, &scratch);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot allocate %zu keys: %s\n", capacity, bitonic_status_string(status));
        if (batch_log)
            fclose(batch_log);
        for (unsigned b = 0; b < buffer_count; ++b)
            bitonic_buffer_destroy(buffers[b]);
        free(keys);
        free(values);
        bitonic_context_destroy(context);
        return 1;
    }
    bitonic_buffer *buffer = buffers[0];
    if (options->csv)
        printf("impl,type,n,median_ms,min_ms,runs,verified,upload_ms,sort_ms,download_ms,host_ms,vs_bus\n");
    else if (info.backend == BITONIC_BACKEND_CPU)
        print_cpu_header(options, &info);
    else
        printf("# %s; tile %u keys (%u per thread); median of %u runs after %u warm-ups; random keys\n"
               "# *_e2e: host memory in and out (bitonic_sort_u32, _pairs, u64); stages are GPU timestamps, host = the CPU's\n"
               "# part (import or staging), vs_bus = the whole call over upload + download\n"
               "%-14s %-6s %12s %12s %12s %10s   %-5s %10s %10s %10s %10s %7s\n",
               info.device_name, info.tile_keys, info.keys_per_thread, options->runs, WARMUP_RUNS, "impl", "type",
               "n", "median ms", "min ms", "G keys/s", "check", "upload", "sort", "download", "host", "vs_bus");
    uint64_t seed = (uint64_t)time(NULL);
    int exit_code = 0;
    /* A GPU coming from idle needs longer than one batch's warm-up: the first
     * batch of a call ran at a low clock on the H100 (docs/perf-log.md, entry 19). */
    clock_guard guard = {.scratch = scratch};
    if ((status = warm_clocks(&guard)) != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: warming the GPU failed: %s\n", bitonic_status_string(status));
        exit_code = 1;
    }
    for (unsigned log = options->min_log; log <= max_log && exit_code == 0; ++log) {
        /* 3 * 2^(log-2) lies between 2^(log-1) + 1 and 2^log: sizes in ascending order */
        size_t ordered[3] = {3u * ((size_t)1 << log) / 4u, (size_t)1 << log, ((size_t)1 << log) + 1u};
        unsigned first = log > options->min_log && log >= 2 ? 0u : 1u;
        unsigned size_count = 3u;
        for (unsigned s = first; s < size_count && exit_code == 0; ++s) {
            if (options->pow2_only && s != 1)
                continue;
            size_t n = ordered[s];
            measurement resident, host;
            for (unsigned type = BENCH_TYPE_U32; type <= BENCH_TYPE_ROWS && status == BITONIC_SUCCESS; type <<= 1) {
                if (!(options->types & type) || (type == BENCH_TYPE_ROWS && n % BENCH_ROW_LENGTH != 0))
                    continue;  /* rows: only sizes that are whole rows */
                if (options->host_only && info.backend == BITONIC_BACKEND_VULKAN)
                    continue;
                status = measure_resident(&guard, buffers, buffer_count, keys, values, n, type, options, &seed,
                                          &resident);
                if (status == BITONIC_SUCCESS) {
                    const char *name =
                        info.backend == BITONIC_BACKEND_CPU ? "bitonic_cpu" : impl_name(options, false, false);
                    print_row(options, name, type, n, &resident, batch_log);
                    if (!resident.verified)
                        exit_code = 1;
                }
            }
            /* Host-path rows: u32 keys, pairs and u64 keys, each from malloc'd
             * memory (staged or imported), from a block of bitonic_host_alloc (no
             * staging, no pinning), and on the CPU path. */
            static const unsigned host_types[] = {BENCH_TYPE_U32, BENCH_TYPE_PAIRS, BENCH_TYPE_U64};
            for (unsigned h = 0; h < 3 && options->end_to_end && info.backend == BITONIC_BACKEND_VULKAN; ++h) {
                unsigned type = host_types[h];
                if (status != BITONIC_SUCCESS || !(options->types & type))
                    continue;
                status = measure_end_to_end(context, &guard, keys, values, n, type, options, &seed, &host);
                if (status == BITONIC_SUCCESS) {
                    print_row(options, impl_name(options, true, false), type, n, &host, NULL);
                    if (!host.verified)
                        exit_code = 1;
                }
                if (status == BITONIC_SUCCESS && !pinned_tried) {
                    pinned_tried = true;
                    if (bitonic_host_alloc(context, capacity * sizeof *pinned_keys, (void **)&pinned_keys) !=
                            BITONIC_SUCCESS ||
                        bitonic_host_alloc(context, capacity * sizeof *pinned_values, (void **)&pinned_values) !=
                            BITONIC_SUCCESS) {
                        bitonic_host_free(context, pinned_keys);  /* no rows then */
                        pinned_keys = NULL;
                    }
                }
                if (status == BITONIC_SUCCESS && pinned_keys) {
                    status = measure_end_to_end(context, &guard, pinned_keys, pinned_values, n, type, options, &seed,
                                                &host);
                    if (status == BITONIC_SUCCESS) {
                        print_row(options, impl_name(options, true, true), type, n, &host, NULL);
                        if (!host.verified)
                            exit_code = 1;
                    }
                }
                if (status == BITONIC_SUCCESS && cpu_context) {
                    status = measure_end_to_end(cpu_context, NULL, keys, values, n, type, options, &seed, &host);
                    if (status == BITONIC_SUCCESS) {
                        print_row(options, "cpu_e2e", type, n, &host, NULL);
                        if (!host.verified)
                            exit_code = 1;
                    }
                }
            }
            /* Profiles: u32 keys (whatever the types), pairs and u64 keys where asked for. */
            static const unsigned profiled_types[] = {BENCH_TYPE_U32, BENCH_TYPE_PAIRS, BENCH_TYPE_U64};
            for (unsigned p = 0; p < 3 && status == BITONIC_SUCCESS && options->profile && !options->csv; ++p)
                if (profiled_types[p] == BENCH_TYPE_U32 || (options->types & profiled_types[p]))
                    print_profile(&guard, buffer, keys, values, n, profiled_types[p], &seed);
            if (status != BITONIC_SUCCESS) {
                fprintf(stderr, "bitonic: sorting %zu keys failed: %s\n", n, bitonic_status_string(status));
                exit_code = 1;
            }
            fflush(stdout);
        }
    }
    if (exit_code == 0 && options->validation) {
        bitonic_context_get_info(context, &info);
        if (info.validation_messages > 0) {
            fprintf(stderr, "bitonic: %" PRIu64 " validation messages\n", info.validation_messages);
            exit_code = 1;
        }
    }
    if (exit_code != 0 && status == BITONIC_SUCCESS)
        fprintf(stderr, "bitonic: a sorted result was wrong\n");
    if (batch_log)
        fclose(batch_log);
    bitonic_buffer_destroy(scratch);
    for (unsigned b = 0; b < buffer_count; ++b)
        bitonic_buffer_destroy(buffers[b]);
    free(keys);
    free(values);
    bitonic_host_free(context, pinned_keys);
    bitonic_host_free(context, pinned_values);
    bitonic_context_destroy(context);
    bitonic_context_destroy(cpu_context);
    return exit_code;
}

int bench_startup(const bench_options *options)
{
    enum { STARTUP_KEYS = 1 << 16 };
    uint32_t *keys = malloc(STARTUP_KEYS * sizeof *keys);
    if (!keys) {
        fprintf(stderr, "bitonic: out of memory\n");
        return 1;
    }
    uint64_t seed = 12345;
    double start = now_ms();
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.device = options->device, .validation = options->validation}, &context);
    double created = now_ms();
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot open the device: %s\n", bitonic_status_string(status));
        free(keys);
        return 1;
    }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    double sort_ms[2] = {0, 0};
    bool right = true;
    for (int i = 0; i < 2 && status == BITONIC_SUCCESS; ++i) {
        uint64_t fingerprint = bench_fill_random(keys, NULL, STARTUP_KEYS, &seed);
        double before = now_ms();
        status = bitonic_sort_u32(context, keys, STARTUP_KEYS, NULL);
        sort_ms[i] = now_ms() - before;
        right = right && bench_verify(keys, NULL, STARTUP_KEYS, fingerprint, BENCH_TYPE_U32);
    }
    double before_destroy = now_ms();
    bitonic_context_destroy(context);
    double destroyed = now_ms();
    free(keys);
    if (status != BITONIC_SUCCESS || !right) {
        fprintf(stderr, "bitonic: the startup sort failed: %s\n",
                status != BITONIC_SUCCESS ? bitonic_status_string(status) : "wrong result");
        return 1;
    }
    const char *cache = info.pipeline_cache_path[0] ? (info.pipeline_cache_loaded_bytes ? "warm" : "cold") : "off";
    if (options->csv)
        printf("device,cache,create_ms,first_sort_ms,second_sort_ms,destroy_ms\n\"%s\",%s,%.3f,%.3f,%.3f,%.3f\n",
               info.device_name, cache, created - start, sort_ms[0], sort_ms[1], destroyed - before_destroy);
    else
        printf("%s; pipeline cache %s\n  context create %.3f ms, first sort of %d keys %.3f ms, second %.3f ms, "
               "destroy %.3f ms\n",
               info.device_name, cache, created - start, STARTUP_KEYS, sort_ms[0], sort_ms[1],
               destroyed - before_destroy);
    return 0;
}
