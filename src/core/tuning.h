/* tuning.h: the one place that turns a device's reported limits into the sizes
 * the sort uses (tile, keys per thread, workgroup sizes, steps per global pass).
 * Nothing else in the library picks a size, so a new GPU needs no code change. */
#ifndef BITONIC_TUNING_H
#define BITONIC_TUNING_H

#include <stdbool.h>
#include <stdint.h>

/* Keys a thread (log2) the GPU kernels are built for, as build-time constants
 * (shaders/CMakeLists.txt builds exactly these): the network's tile kernels
 * 3..4, the tile merge sort 2..4 (2 only on the short tile), the global passes
 * 1..4 steps, the merges 3 for 32-bit keys alone and 2 for the rest. The
 * tuning derives no other count on any device, and refuses an override that
 * would take one (tests/test_tuning.c). */
#define BITONIC_TILE_MIN_REGISTER_LOG 3u
#define BITONIC_SHORT_TILE_MIN_REGISTER_LOG 2u
#define BITONIC_GPU_MAX_REGISTER_LOG 4u
#define BITONIC_MERGE_REGISTER_LOG_4_BYTE_KEYS 3u
#define BITONIC_MERGE_REGISTER_LOG_WIDER_KEYS 2u

typedef struct bitonic_device_limits {
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_size_x;
    uint32_t max_shared_memory_bytes;
    uint32_t subgroup_size;
    bool subgroup_shuffle;          /* compute shaders have subgroupShuffleXor */
    bool subgroup_ballot;           /* compute shaders have subgroupBallot */
    bool subgroup_arithmetic;       /* compute shaders have subgroupInclusiveAdd and the like */
    /* Multiprocessors (NVIDIA's SMs, AMD's compute units, Arm's shader
     * cores) where the driver tells through an extension, else 0. */
    uint32_t multiprocessors;
} bitonic_device_limits;

typedef struct bitonic_tuning {
    uint32_t tile_log;              /* a workgroup sorts 2^tile_log keys on chip */
    uint32_t tile_register_log;     /* keys per thread in the tile kernel (log2) */
    uint32_t tile_workgroup_size;   /* 2^(tile_log - tile_register_log) */
    bool tile_uses_shuffle;         /* tile_shuffle_pass.comp instead of tile_pass.comp */
    /* A tile pass that sorts from scratch (phase 1) uses tile_sort_pass.comp,
     * the merge sort, with its own keys per thread (log2) and workgroup. */
    bool tile_merge_sort;
    uint32_t tile_sort_register_log;
    uint32_t tile_sort_workgroup_size;
    /* The tile merge sort grows runs to a subgroup's keys by shuffles before
     * its rounds in shared memory (tile_sort_pass.comp built with LANE_MERGES):
     * where shuffles exist and the workgroup is whole subgroups. */
    bool tile_sort_uses_shuffle;
    /* A second, shorter tile for the merge sort (log2; 0: none): a sort
     * that is one tile pass stopping at runs of at most 2^short_tile_log keys
     * (a sort of up to that many keys) runs it on a workgroup of its own
     * instead of the tile's, whose other threads would only meet its
     * barriers. */
    uint32_t short_tile_log;
    /* Keys a thread on the short tile (log2; at most tile_sort_register_log):
     * its workgroup is 2^(short_tile_log - short_tile_register_log) threads. */
    uint32_t short_tile_register_log;
    /* The most keys past a power of two that a sort of one tile sorts apart
     * and places (log2; 0: none; bitonic_schedule_params.tile_tail_log): a
     * thread each in the tile merge sort's workgroup, the short tile's too. */
    uint32_t tile_tail_log;
    uint32_t max_global_steps;      /* steps per global pass = registers per thread (log2) */
    uint32_t global_workgroup_size;
    /* Merge passes (merge_pass.comp): a workgroup writes 2^merge_chunk_log keys,
     * 2^merge_register_log a thread; chunk_log <= tile_log + 1, so a chunk never
     * spans two merged runs. */
    uint32_t merge_chunk_log;
    uint32_t merge_register_log;
    uint32_t merge_workgroup_size;
    uint32_t merge_search_lanes;    /* threads per split in the merge's k-ary split search */
    /* From this many merge chunks up, a merge pass finds its splits in a pass of
     * its own first, instead of in every merge workgroup. */
    uint32_t merge_split_pass_min_chunks;
    uint32_t merge_split_probes;    /* keys a split-pass thread tests a round (1: binary search) */
    uint32_t merge_split_probes_max_chunks;  /* merges of more chunks search binary */
    /* Threads a split-pass workgroup has: a subgroup, so the searches spread
     * over the multiprocessors (a merge workgroup's 128 put 4096 searches on 32
     * of the H100's 132; docs/perf-log.md, entry 40). */
    uint32_t merge_split_workgroup_size;
    /* From this many chunks up, the split pass places its probes by a guess
     * from the keys' values (merge_pass.comp, guided_merge_path_search)
     * instead of k-ary rounds alone (UINT32_MAX: never). */
    uint32_t merge_split_guided_min_chunks;
    /* A merge pass with another after it leaves a sample of every 32 keys it
     * writes, and that one's split pass searches the samples first
     * (merge_pass.comp, RUN_SAMPLES): every key type, bound buffers only. */
    bool merge_split_samples;
    /* From this many chunks up, where no split pass runs, a merge whose
     * previous merge left run samples finds its two splits a thread each on
     * the samples instead of by the k-ary search of the keys (UINT32_MAX:
     * never); run samples are then left from this many chunks up too. */
    uint32_t merge_fused_split_min_chunks;
    uint32_t merge_fused_split_probes;  /* keys each of those searches tests a round */
    /* Each of those searches by a subgroup, a key a lane a round and a ballot
     * to count the answers (merge_pass.comp built with LANE_SEARCH), instead
     * of by one thread: pairs and 64-bit keys, where subgroup ballots exist. */
    bool merge_fused_split_by_subgroup;
    /* The merge writes each thread's merged keys straight from its registers,
     * 16 bytes a store, instead of through shared memory once more: not
     * faster on the H100 for 32-bit keys, slower for 64-bit keys and pairs
     * (docs/perf-log.md, entry 44), so off by default. */
    bool merge_store_from_registers;
    /* The partition's window merge of buckets in up to three pieces (its
     * shared-memory kernel with THREE_PIECES) stores from registers even
     * where the merges do not: for 32-bit keys on the H200 it took 3.5-5%
     * less from 2^24 to 2^26 keys (the merge levels from registers 1-4%
     * more), level at 2^22; the lighter window merge of 2^20 keys took 16%
     * more, so it stages its stores still (docs/perf-log.md, entry 88). */
    bool window_merge_store_from_registers;
    /* Merge from device memory without shared memory (merge_pass.comp built
     * with DIRECT_MERGE) instead of staging the slices in shared memory. */
    bool merge_direct;
    /* Where merge_direct is false, the merges of sorts of at most this many
     * keys are direct all the same (0, as derived: none; the sorter sets it
     * from bitonic_tuning_merge_direct_max_keys): at these sizes a merge is latency,
     * not bandwidth, and the direct merge also takes in the tail past a power of
     * two (src/core/schedule.h, merge_tail_log). */
    uint64_t merge_direct_max_keys;
    /* Merges load and store 16 bytes at a time (four 32-bit keys or values,
     * two 64-bit keys) where the buffers are 16-byte aligned. */
    bool merge_vector_io;
    bool tile_vector_io;       /* the tile sort moves a thread's keys 16 bytes at a time where tiles are whole */
    /* Transpose passes (transpose_pass.comp): a workgroup moves a block of
     * 2^transpose_block_log x 2^transpose_block_log keys through shared memory. */
    uint32_t transpose_block_log;
    uint32_t transpose_workgroup_size;
    /* The partition sort (sorter/partition.c, sorter_record_partition_sort; the CPU model is
     * src/cpu/reference_partition.c): sorts of at least partition_min_keys
     * keys (UINT64_MAX: none) scatter the keys into buckets between sampled
     * splitters, sort aligned windows of W = tile << partition_levels keys
     * (or more) and merge the buckets that cross their boundaries, instead of
     * merging on to one run: 7 passes over memory (the count's a read alone)
     * where the merge levels take 12 at 2^24 keys. Open buckets average W / partition_buckets_per_window keys where the splitters allow, else up to W,
     * partition_samples_per_bucket samples each; at most
     * partition_max_splitters splitters fit shared memory. */
    uint64_t partition_min_keys;
    uint32_t partition_levels;
    uint32_t partition_buckets_per_window;
    /* The nested partition (sorter/partition.c, sorter_plan_partition) where the windows
     * would take at least this many merge levels (UINT32_MAX: never): each
     * open bucket longer than the tile partitioned again, up to
     * partition_max_splitters splitters of its own, and windows of the tile. */
    uint32_t partition_nested_min_levels;
    /* The nested partition's windows: tiles of at most 2^this keys (at most
     * tile_log), sorted on chip by the tile merge sort on a workgroup of
     * 2^(this - tile_sort_register_log) threads. Shorter tiles take less
     * shared memory, so that more workgroups share a multiprocessor, and the
     * nested partition makes its buckets shorter to match them
     * (docs/perf-log.md, entry 114). */
    uint32_t partition_nested_tile_log;
    /* The fallback selects in batches of runs however few (for tests). */
    bool partition_fallback_in_batches;
    /* Sorts of at least this many keys find the window merge's cursors in
     * buckets that span three runs by one thread's selection each, smaller
     * ones by a workgroup's search (UINT64_MAX: never). */
    uint64_t partition_split_by_thread_min_keys;
    uint32_t partition_samples_per_bucket;
    bool partition_sample_runs;      /* the samples sorted in runs by the sample step (sorter/partition.c, sorter_plan_partition) */
    uint32_t partition_max_splitters;
    uint32_t partition_workgroup_size;
    uint32_t partition_workgroups;   /* count workgroups, at most */
    uint32_t partition_scatter_keys; /* keys a thread of the scatter's tiles stages */
    /* A key and its value in at most 8 bytes (32-bit keys alone or with
     * values, 64-bit keys alone): the scatter stages no place beside each key
     * (partition_pass.comp's PLACES_BY_SEARCH, the same rule) and may take
     * half tiles, in a pipeline that stages places (STORED_PLACES) */
    bool partition_places_by_search;
    uint32_t partition_scatter_workgroups;  /* scatter workgroups at most, each taking tiles in turn */
    bool partition_scan_by_subgroup; /* the steps' scans by subgroup arithmetic (partition_lanes_pass) */
} bitonic_tuning;

/* bitonic_tuning.merge_direct_max_keys for a variant of the given keys and tile. */
uint64_t bitonic_tuning_merge_direct_max_keys(bool key64, bool with_values, uint32_t tile_log);

/* bytes_per_key: 4 for keys alone, 8 with a 32-bit value. The overrides are 0 for "derive"; an override above what the device allows
 * is clamped. Returns false if the device cannot hold a tile of the keys a
 * thread the kernels are built for, or an override asks for fewer. */
bool bitonic_tuning_derive(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t tile_keys_override,
                           uint32_t keys_per_thread_override, uint32_t max_steps_override, bitonic_tuning *out);

/* The tuning for small sorts of keys of bytes_per_key: a smaller tile with
 * fewer keys a thread and the merge without shared memory, which the H100
 * measured faster up to 2^18 keys (docs/perf-log.md, entries 19, 50). Writes
 * the largest count it is for; false when the device cannot run it. The
 * overrides (0: none) set the tile, clamped as bitonic_tuning_derive's, and
 * the largest count. */
bool bitonic_tuning_derive_small(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t tile_keys_override,
                                 uint32_t max_keys_override, bitonic_tuning *out,
                                 uint64_t *out_max_keys);

/* Sets the partition steps' workgroup size of a derived tuning (cut to what
 * the device allows), and with it the keys a thread of the scatter stages
 * (staged_tile_keys a tile where it is not 0, else the preferred tile) and the
 * splitters that fit beside them. */
void bitonic_tuning_set_partition_workgroup(const bitonic_device_limits *limits, uint32_t bytes_per_key,
                                            uint32_t threads, uint32_t staged_tile_keys, bitonic_tuning *tuning);

/* Sets the nested partition's tile of a derived tuning: 2^wanted_log keys,
 * cut to the tile, and the tile itself where the tile merge sort's workgroup
 * of that many keys would hold no thread's keys or part of a subgroup. */
void bitonic_tuning_set_nested_tile(const bitonic_device_limits *limits, uint32_t wanted_log, bitonic_tuning *tuning);

/* Sets the merge sizes of a derived tuning: the chunk asked for (0: the
 * preferred one), cut to what the device and the tile allow, of the keys a
 * thread the merges are built for (BITONIC_MERGE_REGISTER_LOG_*). False
 * where no chunk of at least two threads of those fits. */
bool bitonic_tuning_set_merge(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t chunk_keys_override,
                              bitonic_tuning *tuning);

/* Shared memory a transpose block of 2^block_log x 2^block_log keys takes, with
 * one word of padding a row (the transpose kernel's layout). */
uint64_t bitonic_transpose_shared_bytes(uint32_t block_log, uint32_t bytes_per_key);

/* Shared memory a tile of 2^tile_log keys takes, with its bank-conflict padding
 * of one word in 32 (the tile kernel's layout). */
uint64_t bitonic_tile_shared_bytes(uint32_t tile_log, uint32_t bytes_per_key);

#endif /* BITONIC_TUNING_H */
