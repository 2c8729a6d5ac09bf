/* bench_tune.c: the table of `bitonic bench --tune` settings (bench_tune.h).
 * One row a setting: its name, the bench_options field it sets, the values it
 * takes and a line of help, so parsing, checking and `--tune help` read the
 * same table. */
#include "bench_tune.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum tune_kind {
    TUNE_NUMBER,        /* an unsigned field, from low to high */
    TUNE_FLAG,          /* a bool field: NAME, NAME=1 or NAME=0 */
    TUNE_CHOICE,        /* an int field: one of choices[], stored as its index + 1 (0: the default) */
    TUNE_TEXT,          /* a const char * field */
} tune_kind;

typedef struct tune_setting {
    const char *name;
    tune_kind kind;
    size_t offset;          /* of the field in bench_options */
    unsigned low, high;     /* TUNE_NUMBER */
    const char *choices[3]; /* TUNE_CHOICE */
    const char *help;
} tune_setting;

#define FIELD(name) offsetof(bench_options, name)
#define NUMBER(text, field, lo, hi, about) {text, TUNE_NUMBER, FIELD(field), lo, hi, {NULL}, about}
#define FLAG(text, field, about) {text, TUNE_FLAG, FIELD(field), 0, 1, {NULL}, about}

static const tune_setting settings[] = {
    NUMBER("tile-keys", tile_keys, 1, 1u << 24, "keys a workgroup sorts on chip (a power of two)"),
    NUMBER("keys-per-thread", keys_per_thread, 8, 16, "keys a thread of the tile kernels (8 or 16)"),
    NUMBER("max-steps", max_steps, 1, 5, "network steps a global pass (GLES: a draw, 1..3)"),
    NUMBER("merge-chunk", merge_chunk_keys, 1, 1u << 24, "keys a merge workgroup writes"),
    {"merge-kernel", TUNE_CHOICE, FIELD(merge_kernel), 0, 0, {"shared", "direct", NULL},
     "merges staged in shared memory, or straight from device memory"},
    NUMBER("merge-split-min-chunks", merge_split_min_chunks, 1, 1u << 24, "merges of this many chunks get a split pass"),
    NUMBER("merge-split-probes", merge_split_probes, 1, 7, "keys a split-pass thread tests a round"),
    NUMBER("merge-split-workgroup", merge_split_workgroup_size, 1, 1024, "threads a split-pass workgroup has"),
    NUMBER("merge-split-guided-min-chunks", merge_split_guided_min_chunks, 1, 1u << 24,
           "split searches guess from key values from this many chunks"),
    FLAG("merge-split-plain", merge_split_plain_search, "split searches never guess from key values"),
    FLAG("merge-split-no-samples", merge_split_no_samples, "split searches do not narrow on run samples first"),
    NUMBER("merge-fused-split-min-chunks", merge_fused_split_min_chunks, 1, UINT32_MAX,
           "merges without a split pass search run samples from this many chunks (4294967295: never)"),
    NUMBER("merge-fused-split-probes", merge_fused_split_probes, 1, 7, "keys each of those searches tests a round"),
    {"merge-fused-split-searcher", TUNE_CHOICE, FIELD(merge_fused_split_searcher), 0, 0, {"thread", "subgroup", NULL},
     "who runs those searches"},
    FLAG("merge-store-registers", merge_store_from_registers, "merges store from registers"),
    FLAG("merge-scalar-io", merge_scalar_io, "merges move one key at a time"),
    FLAG("tile-scalar-io", tile_scalar_io, "the tile sort moves one key at a time"),
    FLAG("network-tile-sort", network_tile_sort, "tiles sorted by the network, not merge-sorted"),
    FLAG("no-subgroup-shuffle", no_subgroup_shuffle, "no subgroup shuffles in the tile kernels"),
    FLAG("no-subgroup-arithmetic", no_subgroup_arithmetic, "the partition's scans in shared memory"),
    NUMBER("small-tile-keys", small_sort_tile_keys, 1, 1u << 24, "the small sorts' tile"),
    NUMBER("small-max-keys", small_sort_max_keys, 1, UINT32_MAX, "sorts up to this many keys are small (4294967295: none)"),
    NUMBER("partition-min-keys", partition_min_keys, 1, UINT32_MAX, "sorts of this many keys partition (4294967295: never)"),
    NUMBER("partition-levels", partition_levels, 1, UINT32_MAX, "windows of the tile times 2^this (4294967295: the tile)"),
    NUMBER("partition-samples", partition_samples, 1, 1024, "samples a bucket"),
    NUMBER("partition-buckets-per-window", partition_buckets_per_window, 1, 2, "buckets a window at most"),
    NUMBER("partition-nested", partition_nested_min_levels, 1, UINT32_MAX,
           "nested partitions from this many merge levels (4294967295: never)"),
    NUMBER("partition-nested-tile", partition_nested_tile_keys, 1, 1u << 24,
           "the nested partition's tile, at most the tile (a power of two)"),
    NUMBER("partition-split-by-thread", partition_split_by_thread, 1, UINT32_MAX,
           "three-piece cursors by a thread from this many keys (4294967295: never)"),
    NUMBER("partition-scatter-groups", partition_scatter_groups, 1, UINT32_MAX,
           "the scatter's workgroups at most (4294967295: one a tile)"),
    NUMBER("partition-count-groups", partition_count_groups, 1, UINT32_MAX, "the count's workgroups at most"),
    NUMBER("partition-threads", partition_threads, 1, 1024, "a partition step's workgroup, at most the derived"),
    NUMBER("partition-scatter-tile", partition_scatter_tile, 1, 1u << 16, "keys the scatter stages a tile"),
    FLAG("partition-whole-samples", partition_whole_samples, "the samples sorted whole"),
    FLAG("partition-split-pairs", partition_split_pairs, "pairs stay two arrays"),
    FLAG("partition-window-staged", partition_window_staged, "the window merge stores through shared memory"),
    NUMBER("run-buffers", run_buffers, 1, 12, "resident buffers of the largest size sorted back to back"),
    {"batch-log", TUNE_TEXT, FIELD(batch_log_path), 0, 0, {NULL},
     "FILE: append impl,type,n,first_unix_ms,last_unix_ms for each timed batch"},
};

static bool parse_number(const char *text, unsigned low, unsigned high, unsigned *out)
{
    if (!text || *text < '0' || *text > '9')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < low || value > high)
        return false;
    *out = (unsigned)value;
    return true;
}

bool bench_tune_apply(bench_options *options, const char *setting, char *error, size_t error_capacity)
{
    const char *equals = strchr(setting, '=');
    size_t name_length = equals ? (size_t)(equals - setting) : strlen(setting);
    const char *value = equals ? equals + 1 : NULL;
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; ++s) {
        const tune_setting *row = &settings[s];
        if (strlen(row->name) != name_length || strncmp(row->name, setting, name_length) != 0)
            continue;
        char *field = (char *)options + row->offset;
        switch (row->kind) {
        case TUNE_NUMBER:
            if (parse_number(value, row->low, row->high, (unsigned *)(void *)field))
                return true;
            snprintf(error, error_capacity, "--tune %s wants a number from %u to %u", row->name, row->low, row->high);
            return false;
        case TUNE_FLAG:
            if (!value || strcmp(value, "1") == 0 || strcmp(value, "0") == 0) {
                *(bool *)(void *)field = !value || value[0] == '1';
                return true;
            }
            snprintf(error, error_capacity, "--tune %s is on (%s or %s=1) or off (%s=0)", row->name, row->name,
                     row->name, row->name);
            return false;
        case TUNE_CHOICE:
            for (int c = 0; value && c < 3 && row->choices[c]; ++c)
                if (strcmp(value, row->choices[c]) == 0) {
                    *(int *)(void *)field = c + 1;
                    return true;
                }
            snprintf(error, error_capacity, "--tune %s is %s or %s", row->name, row->choices[0], row->choices[1]);
            return false;
        case TUNE_TEXT:
            if (value && *value) {
                *(const char **)(void *)field = value;
                return true;
            }
            snprintf(error, error_capacity, "--tune %s wants a value (%s=...)", row->name, row->name);
            return false;
        }
    }
    snprintf(error, error_capacity, "no --tune setting '%.*s' (bitonic bench --tune help lists them)",
             (int)(name_length > 64 ? 64 : name_length), setting);
    return false;
}

void bench_tune_print(FILE *out)
{
    fputs("bitonic bench --tune NAME=VALUE (repeatable): experiment settings, for measuring\n", out);
    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; ++s) {
        const tune_setting *row = &settings[s];
        char values[64];
        switch (row->kind) {
        case TUNE_NUMBER: snprintf(values, sizeof values, "=%u..%u", row->low, row->high); break;
        case TUNE_FLAG: snprintf(values, sizeof values, "[=0|1]"); break;
        case TUNE_CHOICE: snprintf(values, sizeof values, "=%s|%s", row->choices[0], row->choices[1]); break;
        case TUNE_TEXT: snprintf(values, sizeof values, "=FILE"); break;
        }
        fprintf(out, "  %s%-*s %s\n", row->name, (int)(44 - strlen(row->name)), values, row->help);
    }
}
