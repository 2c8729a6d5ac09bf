/* bench_command.h: `bitonic bench`: sorts fresh random keys at a range of
 * sizes, times the GPU part with timestamps and the whole host-to-host call
 * with a clock, verifies every result, and prints a table or CSV. */
#ifndef BITONIC_BENCH_COMMAND_H
#define BITONIC_BENCH_COMMAND_H

#include <stdbool.h>

#include "bitonic.h"
#include "bitonic_tuning_overrides.h"

typedef struct bench_options {
    const char *device;
    unsigned min_log, max_log;   /* max_log 0: chosen from the device */
    unsigned runs;               /* timed runs per size (after 2 warm-ups); the median is reported */
    bool csv;
    bool profile;                /* print GPU time per pass */
    bool end_to_end;             /* also time host memory -> sort -> host memory */
    bool validation;
    unsigned tile_keys;          /* 0: derived from the device */
    unsigned max_steps;          /* steps per global pass, 0: derived */
    unsigned keys_per_thread;    /* in the tile kernel, 0: derived */
    unsigned types;              /* BENCH_TYPE_* bits: which kinds of sort to time */
    unsigned merge_chunk_keys;   /* keys a merge workgroup writes, 0: derived */
    unsigned merge_split_min_chunks; /* merges of this many chunks up get a split pass, 0: derived */
    unsigned merge_split_probes;     /* keys a split-pass thread tests a round, 0: derived */
    unsigned merge_split_workgroup_size;  /* threads a split-pass workgroup has, 0: derived */
    bool merge_split_plain_search;   /* split searches never guess from key values */
    bool merge_split_no_samples;     /* split searches do not narrow on run samples first */
    unsigned merge_fused_split_min_chunks;  /* merges with no split pass search on run samples from this many chunks */
    unsigned merge_fused_split_probes;      /* keys each of those searches tests a round */
    unsigned small_sort_tile_keys;          /* the small sorts' tile, 0: derived */
    unsigned small_sort_max_keys;           /* sorts up to this many keys are small, 0: derived, UINT32_MAX: none */
    unsigned partition_min_keys;            /* sorts of this many keys up partition, 0: derived, UINT32_MAX: none */
    unsigned partition_levels;              /* the partition's windows: the tile times 2^this, 0: derived */
    unsigned partition_samples;             /* samples a partition bucket, 0: derived */
    unsigned partition_nested_min_levels;   /* nested partitions from this many merge levels, 0: the tuning's */
    unsigned partition_nested_tile_keys;    /* the nested partition's tile, 0: the tuning's */
    unsigned partition_buckets_per_window;  /* the partition's buckets a window at most, 0: derived */
    unsigned partition_split_by_thread;     /* three-piece cursors by a thread from this many keys, 0: derived, UINT32_MAX: never */
    unsigned partition_scatter_groups;      /* the partition scatter's workgroups at most, 0: derived */
    unsigned partition_count_groups;        /* the partition count's workgroups at most, 0: derived */
    unsigned partition_threads;             /* a partition step's workgroup size, at most the derived; 0: derived */
    unsigned partition_scatter_tile;        /* keys the partition scatter stages a tile, 0: derived */
    bool merge_store_from_registers; /* merges store from registers, not through shared memory */
    bool partition_whole_samples;    /* the partition's samples sorted whole */
    bool partition_split_pairs;      /* pairs stay two arrays in the partition sort */
    bool partition_window_staged;    /* the window merge stores through shared memory */
    int merge_fused_split_searcher;  /* a bitonic_split_searcher (bitonic_tuning_overrides.h) */
    unsigned merge_split_guided_min_chunks;  /* split searches guess from this many chunks, 0: derived */
    int merge_kernel;              /* a bitonic_merge_kernel (bitonic_tuning_overrides.h) */
    bool merge_scalar_io;          /* merges move one key at a time */
    bool tile_scalar_io;           /* the tile sort moves one key at a time */
    bool network_tile_sort;        /* tiles sorted by the bitonic network, not merge-sorted */
    bool no_subgroup_shuffle;      /* no subgroup shuffles in the tile kernels (measuring) */
    bool no_subgroup_arithmetic;   /* the partition's scans in shared memory (measuring) */
    unsigned cpu_threads;          /* threads of the CPU path (its rows and --device cpu), 0: all cores */
    /* Appends impl,type,n,first_unix_ms,last_unix_ms for every timed batch, so
     * the GPU clock sampled meanwhile can be matched to each row. */
    const char *batch_log_path;
    unsigned gles_layout;          /* --device gles: a bitonic_gles_layout, 0 = automatic */
    /* How the sort goes beyond one tile: impl "bitonic" (the merge),
     * "bitonic_network" or "bitonic_transpose". */
    bitonic_strategy strategy;
    bool startup;                /* --startup: time context creation and the first sorts instead */
    bool host_only;              /* --host-only: only the host-memory rows (*_e2e, cpu_e2e), not the resident sort */
    bool pow2_only;              /* --pow2: only the 2^k sizes, not 3*2^(k-2) and 2^k+1 */
    /* --run-buffers: resident buffers of the largest size a batch sorts back to
     * back (0: up to 12, as memory allows). 1 leaves device memory for the
     * merge's scratch at the largest sizes (2^32 keys: 16 GiB each). */
    unsigned run_buffers;
} bench_options;

enum {
    BENCH_TYPE_U32 = 1u,         /* u32 keys */
    BENCH_TYPE_F32 = 2u,         /* f32 keys (random bits: NaNs, infinities and all) */
    BENCH_TYPE_PAIRS = 4u,       /* u32 keys with u32 values (the original indices) */
    BENCH_TYPE_U64 = 8u,         /* u64 keys */
    BENCH_TYPE_ROWS = 16u,       /* u32 keys as independent rows of BENCH_ROW_LENGTH */
    BENCH_TYPE_RECORDS = 32u,    /* --device gles only: RGBA records (4 x u32) by component 0 as f32 */
};

#define BENCH_ROW_LENGTH 1024u

/* Parses "u32,f32,pairs,u64,rows" into BENCH_TYPE_* bits; false on an unknown name. */
bool bench_parse_types(const char *text, unsigned *out_types);

bench_options bench_default_options(void);
/* The --tune settings of options as the library's tuning overrides, for the
 * next chain of a context's description. */
bitonic_tuning_overrides bench_tuning_overrides(const bench_options *options);
int bench_run(const bench_options *options);

/* `bench --device gles` (gles_bench.c, built with the GLES backend): u32 keys
 * and RGBA records through the fragment-shader backend. */
int gles_bench_run(const bench_options *options);
/* `bitonic bench --startup`: the wall time of bitonic_context_create, of the
 * first host sort of 2^16 u32 keys (which builds the pipelines it needs, from
 * the pipeline cache when it is warm), of a second one, and of the destroy
 * (which writes the cache back when it grew). Cold or warm is the caller's
 * doing: an empty or a filled cache directory. */
int bench_startup(const bench_options *options);

#endif /* BITONIC_BENCH_COMMAND_H */
