/* bitonic_tuning_overrides.h: the library's tuning overrides, for measuring
 * and for tests. Not installed and not part of the API: the fields come and go
 * with the experiments (docs/TUNING.md says what each one does and why the
 * defaults are what they are).
 *
 * The overrides reach the library as an entry of the `next` chain of
 * bitonic_context_desc or bitonic_vulkan_sorter_desc (the chain rule is in
 * bitonic.h). A context hands its overrides on to the sorter it makes. Every
 * zero field keeps the tuning derived from the device's limits (src/core/
 * tuning.c), so a zeroed struct changes nothing:
 *
 *     bitonic_tuning_overrides tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES, .tile_keys = 256};
 *     bitonic_context_create(&(bitonic_context_desc){.next = &tuning, .device = "vulkan"}, &context);
 *
 * Sizes are clamped to what the device allows; tile and chunk sizes are
 * powers of two (others are rounded up). Giving any of tile_keys,
 * tile_keys_per_thread, max_strides_per_global_pass, merge_chunk_keys or
 * merge_kernel turns off the small sorts' shapes of
 * their own, so every sort uses what was asked for. */
#ifndef BITONIC_TUNING_OVERRIDES_H
#define BITONIC_TUNING_OVERRIDES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The chain entry's type ("BT" and 1). */
#define BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES 0x42540001u

/* How a merge pass merges its chunk. */
typedef enum bitonic_merge_kernel {
    BITONIC_MERGE_KERNEL_DEFAULT = 0,  /* the tuning's choice for the device */
    BITONIC_MERGE_KERNEL_SHARED = 1,   /* slices staged in shared memory, coalesced loads and stores */
    BITONIC_MERGE_KERNEL_DIRECT = 2,   /* no shared memory: each thread merges from device memory */
} bitonic_merge_kernel;

/* Who runs each split search a merge makes on run samples where no split pass
 * ran. */
typedef enum bitonic_split_searcher {
    BITONIC_SPLIT_SEARCHER_DEFAULT = 0,   /* the tuning's choice for the device */
    BITONIC_SPLIT_SEARCHER_THREAD = 1,    /* one thread, a few probes a round */
    BITONIC_SPLIT_SEARCHER_SUBGROUP = 2,  /* a subgroup, a probe a lane and a ballot a round (where ballots exist) */
} bitonic_split_searcher;

/* 0 (false, DEFAULT) everywhere: the tuning's choice. UINT32_MAX where a
 * threshold says so: never. docs/TUNING.md, "The overrides", has a line for
 * each field. */
typedef struct bitonic_tuning_overrides {
    uint32_t type;                   /* BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES */
    const void *next;

    /* The tile and the network's global passes. On the GLES backend
     * max_strides_per_global_pass is the steps one draw runs (1..3). */
    uint32_t tile_keys;
    uint32_t tile_keys_per_thread;   /* 8 or 16 (the kernels' builds; fewer is refused) */
    uint32_t max_strides_per_global_pass;
    bool tile_scalar_io;             /* the tile sort moves one key at a time, not 16 bytes */
    bool network_tile_sort;          /* tiles sorted by the network, not by the tile merge sort */
    bool no_subgroup_shuffle;        /* the shared-memory tile kernel even where shuffles exist */

    /* The merge levels. */
    uint32_t merge_chunk_keys;
    bitonic_merge_kernel merge_kernel;
    bool merge_scalar_io;            /* merges move one key at a time, not 16 bytes */
    bool merge_store_from_registers; /* merges store from registers, not through shared memory */
    uint32_t merge_split_pass_min_chunks;
    uint32_t merge_split_probes;     /* 1..7 */
    uint32_t merge_split_workgroup_size;
    uint32_t merge_split_guided_min_chunks;
    bool merge_split_no_samples;     /* split passes search the keys alone, not the run samples first */
    uint32_t merge_fused_split_min_chunks;
    uint32_t merge_fused_split_probes;  /* 1..7 */
    bitonic_split_searcher merge_fused_split_searcher;

    /* The small sorts' shapes (small_sort_max_keys UINT32_MAX: none). */
    uint32_t small_sort_tile_keys;
    uint32_t small_sort_max_keys;

    /* The partition sort. */
    uint32_t partition_min_keys;
    uint32_t partition_levels;       /* UINT32_MAX: windows of the tile alone */
    uint32_t partition_samples_per_bucket;
    uint32_t partition_buckets_per_window;  /* 1 or 2 */
    uint32_t partition_nested_min_levels;
    uint32_t partition_nested_tile_keys;    /* the nested partition's tile (a power of two) */
    uint32_t partition_split_by_thread_min_keys;
    uint32_t partition_scatter_workgroups;  /* UINT32_MAX: one a tile */
    uint32_t partition_count_workgroups;
    uint32_t partition_workgroup_size;      /* at most the tuning's */
    uint32_t partition_scatter_tile_keys;
    bool partition_fallback_in_batches;
    bool partition_whole_samples;
    bool partition_split_pairs;
    bool partition_window_staged_stores;
    bool no_subgroup_arithmetic;     /* the partition's scans in shared memory even where subgroup sums exist */

    /* Sorts that device addresses can take take them at every size, not only
     * past the largest storage-buffer binding (their buffers then need the
     * device-address usage). No effect without device addresses. */
    bool force_device_addresses;
} bitonic_tuning_overrides;

/* The overrides in the chain that starts at next, or a zeroed struct (the
 * derived tuning) when there are none. Entries of other types are skipped. */
static inline const bitonic_tuning_overrides *bitonic_tuning_overrides_find(const void *next)
{
    static const bitonic_tuning_overrides derived = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES};
    for (const bitonic_chain_entry *entry = (const bitonic_chain_entry *)next; entry;
         entry = (const bitonic_chain_entry *)entry->next)
        if (entry->type == BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES)
            return (const bitonic_tuning_overrides *)(const void *)entry;
    return &derived;
}

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_TUNING_OVERRIDES_H */
