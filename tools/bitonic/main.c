/* main.c: the `bitonic` command-line tool.
 *
 *   bitonic info                     devices, limits, the chosen one and its sizes
 *   bitonic sort IN OUT              sort a raw uint32 or .npy file
 *   bitonic bench                    timed, verified sorts of random keys
 *
 * It uses only the public API (bitonic.h). Errors are one line on stderr and a
 * non-zero exit; a failed sort never leaves an output file behind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_command.h"
#include "bench_tune.h"
#include "bitonic.h"
#include "key_file.h"
#ifdef BITONIC_WITH_MPI
#include "distributed_command.h"
#endif

static void usage(FILE *out)
{
    fputs("usage: bitonic info [--device SEL] [--pipelines]\n"
          "       bitonic sort IN OUT [--descending] [--stable] [--argsort [--index-dtype uint32|int64]]\n"
          "                           [--device SEL] [--strategy merge|network|transpose] [--timing]\n"
          "       bitonic bench [--device SEL] [--types LIST] [--min-log K] [--max-log K] [--runs N] [--pow2]\n"
          "                     [--csv] [--profile] [--startup] [--host-only] [--no-e2e] [--validation]\n"
          "                     [--strategy S] [--cpu-threads N] [--layout auto|1d|2d] [--tune NAME=VALUE]\n"
          "       mpirun -np P bitonic sort --distributed IN OUT [--descending] [--device SEL]\n"
          "       mpirun -np P bitonic bench --distributed [--log K] [--runs N] [--types LIST]\n"
          "       bitonic --version | --help\n"
          "\n"
          "info    the devices, their limits, which one the library picks and its sizes\n"
          "sort    sorts IN into OUT (written whole, or not at all): raw little-endian uint32, or\n"
          "        NumPy .npy of (u)int32, (u)int64, float32 or float64; --argsort writes the indices\n"
          "bench   sorts fresh random keys from 2^10 (--min-log) up, verifies each, and reports the\n"
          "        median GPU time of at least 10 runs beside the end-to-end time and the CPU path\n"
          "SEL     cpu, vulkan, gles, a device index from `bitonic info`, or part of a device name\n"
          "        (default: $BITONIC_DEVICE, else the first GPU, else the CPU path)\n"
          "LIST    u32,f32,pairs,u64,rows (gles: u32,records)\n"
          "--tune  the bench's experiment settings: `bitonic bench --tune help` lists them\n"
          "Distributed commands exist when the tool is built with MPI. Docs: docs/API.md.\n",
          out);
}

/* A usage error: one line, then where to look. */
static int usage_error(const char *format, const char *detail)
{
    fputs("bitonic: ", stderr);
    fprintf(stderr, format, detail);
    fputs(" (see bitonic --help)\n", stderr);
    return 2;
}

static const char *device_type_name(uint32_t type)
{
    switch (type) {
    case 1: return "integrated GPU";
    case 2: return "discrete GPU";
    case 3: return "virtual GPU";
    case 4: return "CPU";
    default: return "other";
    }
}

static const char *backend_name(bitonic_backend backend)
{
    switch (backend) {
    case BITONIC_BACKEND_VULKAN: return "Vulkan";
    case BITONIC_BACKEND_GLES: return "OpenGL ES fragment passes";
    default: return "CPU path";
    }
}

/* The GLES backend is never chosen automatically, so it is listed on its own. */
static void print_gles_info(void)
{
    bitonic_context *context;
    bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = "gles"}, &context);
    if (status != BITONIC_SUCCESS) {
        printf("OpenGL ES (device gles): %s\n", bitonic_status_string(status));
        return;
    }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    printf("OpenGL ES (device gles): %s\n"
           "  largest texture side %u, at most %" PRIu64 " keys per sort; GPU timer queries %s\n",
           info.device_name, info.gles_max_texture_size, info.max_keys,
           info.gles_timer_query ? "yes" : "no (glFinish wall time)");
    bitonic_context_destroy(context);
}

static int command_info(const char *device, bool pipelines)
{
    bitonic_device_info devices[16];
    uint32_t count = 0;
    bitonic_status status = bitonic_list_devices(devices, 16, &count);
    if (status != BITONIC_SUCCESS) {
        printf("Vulkan: %s\n", bitonic_status_string(status));
    } else {
        printf("Vulkan devices: %u\n", count);
        for (uint32_t i = 0; i < count && i < 16; ++i) {
            const bitonic_device_info *d = &devices[i];
            printf("  [%u] %s (%s, Vulkan %u.%u.%u)%s\n", d->index, d->name, device_type_name(d->device_type),
                   d->api_version >> 22, (d->api_version >> 12) & 0x3ffu, d->api_version & 0xfffu,
                   d->suitable ? "" : "  -- unsuitable: lacks compute or VK_KHR_push_descriptor");
            printf("      subgroup %u, %u invocations per workgroup, %u bytes shared memory, %" PRIu64
                   " bytes per storage buffer",
                   d->subgroup_size, d->max_workgroup_invocations, d->max_shared_memory_bytes,
                   d->max_storage_buffer_range);
            if (d->multiprocessors != 0)
                printf(", %u multiprocessors", d->multiprocessors);
            printf("\n");
        }
    }
    print_gles_info();
    bitonic_context *context;
    status = bitonic_context_create(&(bitonic_context_desc){.device = device, .capture_pipeline_statistics = pipelines},
                                    &context);
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot open the device: %s\n", bitonic_status_string(status));
        return 1;
    }
    bitonic_context_info info;
    bitonic_context_get_info(context, &info);
    printf("Chosen: %s (%s)\n", info.device_name, backend_name(info.backend));
    if (info.backend == BITONIC_BACKEND_VULKAN)
        printf("  tile %u keys = %u threads x %u keys (%s); up to %u steps per global pass; subgroup %u;\n"
               "  at most %" PRIu64 " keys per sort; timestamps %s\n",
               info.tile_keys, info.workgroup_size, info.keys_per_thread,
               info.tile_uses_subgroup_shuffle ? "subgroup shuffles" : "shared memory", info.max_strides_per_global_pass,
               info.subgroup_size, info.max_keys, info.timestamp_period_ns > 0 ? "yes" : "no");
    if (info.backend == BITONIC_BACKEND_VULKAN && info.tile_sort_keys_per_thread > 0)
        printf("  tiles sorted by merging: %u threads x %u keys (the network's tile kernel above merges within "
               "tiles for --strategy network and transpose)\n",
               info.tile_keys / info.tile_sort_keys_per_thread, info.tile_sort_keys_per_thread);
    if (info.backend == BITONIC_BACKEND_VULKAN) {
        if (info.device_addresses)
            printf("  addressing: device addresses (merge sorts past the storage-buffer binding of %" PRIu64
                   " keys; rows, network and transpose stop there)\n",
                   info.bound_max_keys);
        else
            printf("  addressing: bound buffers (at most %" PRIu64 " keys: the device lacks bufferDeviceAddress "
                   "or shaderInt64, or BITONIC_DEVICE_ADDRESSES=0)\n",
                   info.bound_max_keys);
    }
    printf("Cache directory: %s\n", info.cache_directory[0] ? info.cache_directory
                                                             : "off (BITONIC_PIPELINE_CACHE=0 or no home directory)");
    if (info.backend == BITONIC_BACKEND_VULKAN) {
        if (info.crossover_keys == 0)
            printf("Host sorts: CPU path or GPU by a model calibrated on the first host sort of 4096 keys or more\n");
        else if (info.crossover_keys == UINT64_MAX)
            printf("Host sorts: all on the CPU path (the device was slower at every size measured)\n");
        else if (info.crossover_keys <= 1)
            printf("Host sorts: all on this device\n");
        else
            printf("Host sorts: CPU path below %" PRIu64 " keys, this device from there\n", info.crossover_keys);
    }
    if (info.backend == BITONIC_BACKEND_VULKAN && info.pipeline_cache_path[0])
        printf("Pipeline cache: %s (%s)\n", info.pipeline_cache_path,
               info.pipeline_cache_loaded_bytes ? "warm" : "cold: filled as pipelines are built");
    else if (info.backend == BITONIC_BACKEND_VULKAN)
        printf("Pipeline cache: off (BITONIC_PIPELINE_CACHE=0, or no cache directory)\n");
    if (pipelines) {
        static char report[16384];
        status = bitonic_context_pipeline_report(context, report, sizeof report);
        if (status == BITONIC_SUCCESS)
            printf("Pipelines (driver statistics):\n%s", report);
        else
            printf("Pipelines: no statistics (%s)\n", bitonic_status_string(status));
    }
    bitonic_context_destroy(context);
    return 0;
}

typedef struct sort_command {
    const char *in_path, *out_path, *device;
    bitonic_strategy strategy;
    bool descending, stable, argsort;
    bool int64_indices;              /* --argsort writes int64 instead of uint32 */
    bool timing;                     /* --timing: the time of each step on stderr */
} sort_command;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static bool key_type_of(enum key_dtype dtype, bitonic_key_type *out)
{
    switch (dtype) {
    case KEY_DTYPE_U32: *out = BITONIC_KEY_U32; return true;
    case KEY_DTYPE_I32: *out = BITONIC_KEY_I32; return true;
    case KEY_DTYPE_F32: *out = BITONIC_KEY_F32; return true;
    case KEY_DTYPE_U64: *out = BITONIC_KEY_U64; return true;
    case KEY_DTYPE_I64: *out = BITONIC_KEY_I64; return true;
    case KEY_DTYPE_F64: *out = BITONIC_KEY_F64; return true;
    default: return false;
    }
}

/* The permutation as the key file to write: uint32, or int64 in a .npy. */
static bool permutation_file(const uint32_t *indices, size_t count, const struct key_file *input, bool int64,
                             struct key_file *out)
{
    *out = (struct key_file){.format = input->format, .dtype = KEY_DTYPE_U32, .count = count};
    if (!int64) {
        out->data = malloc(count ? count * sizeof(uint32_t) : 1);
        if (out->data && count)
            memcpy(out->data, indices, count * sizeof(uint32_t));
        return out->data != NULL;
    }
    out->format = KEY_FILE_FORMAT_NPY;
    out->dtype = KEY_DTYPE_I64;
    int64_t *wide = malloc(count ? count * sizeof *wide : 1);
    for (size_t i = 0; wide && i < count; ++i)
        wide[i] = indices[i];
    out->data = wide;
    return wide != NULL;
}

/* The context is made on a thread of its own while the main thread reads the
 * file: both take tens of milliseconds (opening Vulkan, even only to find no
 * GPU, and reading 2^24 keys), so the second costs nothing on two cores. */
typedef struct context_opening {
    const char *device;
    bitonic_strategy strategy;
    bitonic_context *context;
    bitonic_status status;
    double done_ms;
} context_opening;

static void *open_context(void *argument)
{
    context_opening *opening = argument;
    opening->status = bitonic_context_create(
        &(bitonic_context_desc){.device = opening->device, .strategy = opening->strategy}, &opening->context);
    opening->done_ms = now_ms();
    return NULL;
}

static int command_sort(const sort_command *command)
{
    double started = now_ms();
    char error[512];
    struct key_file keys;
    struct key_file_read_options read_options = {
        .accepted_dtypes = KEY_DTYPE_ALL_BITS};
    context_opening opening = {.device = command->device, .strategy = command->strategy};
    pthread_t opener;
    bool threaded = pthread_create(&opener, NULL, open_context, &opening) == 0;
    int read_result = key_file_read(command->in_path, &read_options, &keys, error, sizeof error);
    double read_done = now_ms();
    if (threaded)
        pthread_join(opener, NULL);
    else
        open_context(&opening);
    if (read_result != 0) {
        fprintf(stderr, "bitonic: %s\n", error);
        bitonic_context_destroy(opening.context);
        return 1;
    }
    bitonic_sort_options options = {.order = command->descending ? BITONIC_ORDER_DESCENDING : BITONIC_ORDER_ASCENDING,
                                    .stable = command->stable};
    key_type_of(keys.dtype, &options.key_type);
    bitonic_context *context = opening.context;
    bitonic_status status = opening.status;
    double context_done = now_ms();
    if (status != BITONIC_SUCCESS) {
        fprintf(stderr, "bitonic: cannot open the device: %s\n", bitonic_status_string(status));
        key_file_free(&keys);
        return 1;
    }
    uint32_t *indices = NULL;
    /* No device query before the sort: with the default selection the GPU is
     * opened only if the sort goes there, and the sort itself says TOO_LARGE. */
    if (status == BITONIC_SUCCESS && command->argsort && keys.count >= UINT32_MAX) {
        status = BITONIC_ERROR_TOO_LARGE;
    } else if (status == BITONIC_SUCCESS && command->argsort) {
        indices = malloc(keys.count ? keys.count * sizeof *indices : 1);
        status = indices ? bitonic_argsort(context, keys.data, keys.count, indices, &options)
                         : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    } else if (status == BITONIC_SUCCESS) {
        status = bitonic_sort(context, keys.data, keys.count, &options);
    }
    if (status == BITONIC_ERROR_TOO_LARGE) {
        bitonic_context_info info;
        bitonic_context_get_info(context, &info);
        uint64_t max_keys = keys.element_size == 8 ? info.max_keys / 2u : info.max_keys;
        if (command->argsort && max_keys >= UINT32_MAX)
            max_keys = UINT32_MAX - 1u;
        fprintf(stderr, "bitonic: %s: %zu keys, but %s sorts at most %" PRIu64 " in one buffer\n", command->in_path,
                keys.count, info.device_name, max_keys);
    }
    if (status != BITONIC_SUCCESS && status != BITONIC_ERROR_TOO_LARGE)
        fprintf(stderr, "bitonic: sorting %s failed: %s\n", command->in_path, bitonic_status_string(status));
    double sort_done = now_ms();
    bitonic_host_timing stages;
    bool staged = bitonic_context_last_host_timing(context, &stages) == BITONIC_SUCCESS;
    bitonic_context_destroy(context);
    double destroy_done = now_ms();
    int exit_code = 1;
    if (status == BITONIC_SUCCESS) {
        struct key_file permutation = {0};
        const struct key_file *result = &keys;
        if (command->argsort) {
            if (!permutation_file(indices, keys.count, &keys, command->int64_indices, &permutation)) {
                fprintf(stderr, "bitonic: out of memory for the permutation\n");
                status = BITONIC_ERROR_OUT_OF_HOST_MEMORY;
            }
            result = &permutation;
        }
        if (status == BITONIC_SUCCESS) {
            if (key_file_write_atomic(command->out_path, result, error, sizeof error) == 0)
                exit_code = 0;
            else
                fprintf(stderr, "bitonic: %s\n", error);
        }
        key_file_free(&permutation);
    }
    double write_done = now_ms();
    free(indices);
    key_file_free(&keys);
    if (command->timing) {
        fprintf(stderr, "bitonic: read %.1f ms, context %.1f ms (%.1f ms after the read), sort %.1f ms",
                read_done - started, opening.done_ms - started, context_done - read_done,
                sort_done - context_done);
        if (staged && stages.ran_on == BITONIC_BACKEND_VULKAN)
            fprintf(stderr, " (GPU%s: host %.1f, upload %.1f, sort %.1f, download %.1f)",
                    stages.imported ? ", imported" : ", staged", stages.prepare_ms + stages.finish_ms,
                    stages.upload_ms, stages.sort_ms, stages.download_ms);
        else if (staged)
            fprintf(stderr, " (CPU path)");
        fprintf(stderr, ", release %.1f ms, write %.1f ms, free %.1f ms\n", destroy_done - sort_done,
                write_done - destroy_done, now_ms() - write_done);
    }
    return exit_code;
}

static bool parse_unsigned(const char *text, unsigned min, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long value = strtoul(text ? text : "", &end, 10);
    if (!text || *text == '\0' || *end != '\0' || errno || value < min || value > max)
        return false;
    *out = (unsigned)value;
    return true;
}

static bool parse_strategy(const char *text, bitonic_strategy *out)
{
    static const struct {
        const char *name;
        bitonic_strategy strategy;
    } names[] = {{"merge", BITONIC_STRATEGY_MERGE}, {"network", BITONIC_STRATEGY_NETWORK},
                 {"transpose", BITONIC_STRATEGY_TRANSPOSE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].strategy;
            return true;
        }
    return false;
}

/* The library refuses a malformed BITONIC_* setting (context creation returns
 * INVALID_ARGUMENT); the tool says which variable and why before it tries. */
static bool environment_is_valid(void)
{
    char problem[256];
    if (bitonic_check_environment(problem, sizeof problem) == BITONIC_SUCCESS)
        return true;
    fprintf(stderr, "bitonic: %s\n", problem);
    return false;
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "a command is needed: info, sort or bench");
    const char *command = argv[1];
    if (is_help(command)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        printf("bitonic %d.%d.%d\n", BITONIC_VERSION_MAJOR, BITONIC_VERSION_MINOR, BITONIC_VERSION_PATCH);
        return 0;
    }
    if (strcmp(command, "info") != 0 && strcmp(command, "sort") != 0 && strcmp(command, "bench") != 0)
        return usage_error("unknown command '%s'", command);
    if (!environment_is_valid())
        return 2;
    for (int i = 2; i < argc; ++i) {
        if (is_help(argv[i]) && strcmp(argv[i], "help") != 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--distributed") == 0) {
#ifdef BITONIC_WITH_MPI
            return distributed_main(argc, argv);   /* its own arguments, under mpirun */
#else
            fputs("bitonic: this build has no MPI: --distributed is not available\n", stderr);
            return 2;
#endif
        }
    }
    const char *device = NULL;
    const char *positional[2] = {NULL, NULL};
    int positional_count = 0;
    bool descending = false, stable = false, argsort = false, int64_indices = false;
    bool pipelines = false, sort_timing = false;
    bench_options bench = bench_default_options();
    for (int i = 2; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = strcmp(arg, "--device") == 0 || strcmp(arg, "--index-dtype") == 0 ||
                           strcmp(arg, "--types") == 0 || strcmp(arg, "--layout") == 0 ||
                           strcmp(arg, "--strategy") == 0 || strcmp(arg, "--tune") == 0 ||
                           strcmp(arg, "--min-log") == 0 || strcmp(arg, "--max-log") == 0 ||
                           strcmp(arg, "--runs") == 0 || strcmp(arg, "--cpu-threads") == 0;
        if (takes_value && !value)
            return usage_error("%s needs a value", arg);
        if (strcmp(arg, "--device") == 0) {
            device = value;
            ++i;
        } else if (strcmp(arg, "--descending") == 0) {
            descending = true;
        } else if (strcmp(arg, "--stable") == 0) {
            stable = true;
        } else if (strcmp(arg, "--argsort") == 0) {
            argsort = true;
        } else if (strcmp(arg, "--index-dtype") == 0) {
            if (strcmp(value, "int64") == 0)
                int64_indices = true;
            else if (strcmp(value, "uint32") != 0)
                return usage_error("--index-dtype is uint32 or int64, not '%s'", value);
            ++i;
        } else if (strcmp(arg, "--types") == 0) {
            if (!bench_parse_types(value, &bench.types))
                return usage_error("--types takes a list of u32, f32, pairs, u64, rows and records, not '%s'", value);
            ++i;
        } else if (strcmp(arg, "--layout") == 0) {
            static const char *layouts[] = {"auto", "1d", "2d"};
            bench.gles_layout = 3;
            for (unsigned l = 0; l < 3; ++l)
                if (strcmp(value, layouts[l]) == 0)
                    bench.gles_layout = l;
            if (bench.gles_layout == 3)
                return usage_error("--layout is auto, 1d or 2d, not '%s'", value);
            ++i;
        } else if (strcmp(arg, "--strategy") == 0) {
            if (!parse_strategy(value, &bench.strategy))
                return usage_error("--strategy is merge, network or transpose, not '%s'", value);
            ++i;
        } else if (strcmp(arg, "--tune") == 0) {
            if (strcmp(value, "help") == 0) {
                bench_tune_print(stdout);
                return 0;
            }
            char error[160];
            if (!bench_tune_apply(&bench, value, error, sizeof error))
                return usage_error("%s", error);
            ++i;
        } else if (strcmp(arg, "--min-log") == 0 || strcmp(arg, "--max-log") == 0 || strcmp(arg, "--runs") == 0 ||
                   strcmp(arg, "--cpu-threads") == 0) {
            unsigned *target = strcmp(arg, "--runs") == 0      ? &bench.runs
                               : strcmp(arg, "--min-log") == 0 ? &bench.min_log
                               : strcmp(arg, "--max-log") == 0 ? &bench.max_log
                                                               : &bench.cpu_threads;
            /* One run is allowed for the largest sizes (2^32 keys), where each
             * run's host-side generation and check take tens of seconds; 0
             * threads: all cores; sizes up to 2^36 keys (device addresses). */
            unsigned low = target == &bench.cpu_threads ? 0 : 1;
            unsigned high = target == &bench.runs ? 1000 : target == &bench.cpu_threads ? 1024 : 36;
            if (!parse_unsigned(value, low, high, target)) {
                char what[96];
                snprintf(what, sizeof what, "%s wants a number from %u to %u", arg, low, high);
                return usage_error("%s", what);
            }
            ++i;
        } else if (strcmp(arg, "--pipelines") == 0) {
            pipelines = true;
        } else if (strcmp(arg, "--csv") == 0) {
            bench.csv = true;
        } else if (strcmp(arg, "--profile") == 0) {
            bench.profile = true;
        } else if (strcmp(arg, "--timing") == 0) {
            sort_timing = true;
        } else if (strcmp(arg, "--pow2") == 0) {
            bench.pow2_only = true;
        } else if (strcmp(arg, "--host-only") == 0) {
            bench.host_only = true;
        } else if (strcmp(arg, "--startup") == 0) {
            bench.startup = true;
        } else if (strcmp(arg, "--no-e2e") == 0) {
            bench.end_to_end = false;
        } else if (strcmp(arg, "--validation") == 0) {
            bench.validation = true;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option '%s'", arg);
        } else if (positional_count < 2) {
            positional[positional_count++] = arg;
        } else {
            return usage_error("unexpected argument '%s'", arg);
        }
    }
    bench.device = device;
    if (strcmp(command, "info") == 0 && positional_count == 0)
        return command_info(device, pipelines);
    if (strcmp(command, "sort") == 0 && positional_count == 2)
        return command_sort(&(sort_command){positional[0], positional[1], device, bench.strategy, descending, stable,
                                            argsort, int64_indices, sort_timing});
    if (strcmp(command, "bench") == 0 && positional_count == 0)
        return bench.startup ? bench_startup(&bench) : bench_run(&bench);
    if (strcmp(command, "sort") == 0)
        return usage_error("%s", "sort takes IN and OUT");
    return usage_error("%s takes no file arguments", command);
}
