/* overrides.c: the sorter's tuning as the caller's description overrides it
 * (bitonic_vulkan_sorter_desc): the choices made for measuring, laid over
 * what tuning.c derived from the device. */
#include "sorter_internal.h"

/* The split pass's workgroup size asked for in desc, clamped to the device. */
static uint32_t split_workgroup_size(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc)
{
    uint32_t size = desc->merge_split_workgroup_size;
    if (size > sorter->limits.max_workgroup_invocations)
        size = sorter->limits.max_workgroup_invocations;
    if (size > sorter->limits.max_workgroup_size_x)
        size = sorter->limits.max_workgroup_size_x;
    return size;
}

/* The split-pass choices the caller made, over a derived tuning (every
 * bound variant, the small sorts' included, takes them alike). */
void sorter_apply_split_overrides(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                                  uint32_t bytes_per_key, bitonic_tuning *tuning)
{
    if (desc->merge_split_pass_min_chunks != 0)
        tuning->merge_split_pass_min_chunks = desc->merge_split_pass_min_chunks;
    if (desc->merge_split_probes != 0) {  /* asked for: at every size */
        tuning->merge_split_probes =
            desc->merge_split_probes < MAX_SPLIT_PROBES ? desc->merge_split_probes : MAX_SPLIT_PROBES;
        tuning->merge_split_probes_max_chunks = UINT32_MAX;
    }
    if (desc->merge_split_workgroup_size != 0)
        tuning->merge_split_workgroup_size = split_workgroup_size(sorter, desc);
    if (desc->merge_split_guided_min_chunks != 0)
        tuning->merge_split_guided_min_chunks = desc->merge_split_guided_min_chunks;
    if (desc->merge_split_no_samples)
        tuning->merge_split_samples = false;
    if (desc->merge_fused_split_min_chunks != 0)
        tuning->merge_fused_split_min_chunks = desc->merge_fused_split_min_chunks;
    if (desc->merge_fused_split_probes != 0)
        tuning->merge_fused_split_probes =
            desc->merge_fused_split_probes < MAX_SPLIT_PROBES ? desc->merge_fused_split_probes : MAX_SPLIT_PROBES;
    if (desc->merge_fused_split_searcher != BITONIC_SPLIT_SEARCHER_DEFAULT)
        tuning->merge_fused_split_by_subgroup =
            desc->merge_fused_split_searcher == BITONIC_SPLIT_SEARCHER_SUBGROUP && sorter->limits.subgroup_ballot;
    /* The partition sort's, where the variant can take it (record_partition_sort). */
    if (desc->partition_min_keys != 0)
        tuning->partition_min_keys = desc->partition_min_keys == UINT32_MAX ? UINT64_MAX : desc->partition_min_keys;
    if (desc->partition_levels != 0)
        tuning->partition_levels = desc->partition_levels == UINT32_MAX ? 0u : desc->partition_levels;
    if (desc->partition_samples_per_bucket != 0)
        tuning->partition_samples_per_bucket = desc->partition_samples_per_bucket;
    if (desc->partition_buckets_per_window != 0)
        tuning->partition_buckets_per_window = desc->partition_buckets_per_window < 2u ? 1u : 2u;
    if (desc->partition_nested_min_levels != 0)
        tuning->partition_nested_min_levels = desc->partition_nested_min_levels;
    tuning->partition_fallback_in_batches = desc->partition_fallback_in_batches;
    if (desc->partition_split_by_thread_min_keys != 0)
        tuning->partition_split_by_thread_min_keys = desc->partition_split_by_thread_min_keys == UINT32_MAX
                                                         ? UINT64_MAX
                                                         : desc->partition_split_by_thread_min_keys;
    if (desc->partition_scatter_workgroups != 0)
        tuning->partition_scatter_workgroups = desc->partition_scatter_workgroups;
    if (desc->partition_count_workgroups != 0)
        tuning->partition_workgroups = desc->partition_count_workgroups;
    /* Fewer threads stage as many keys, more a thread, where shared memory
     * and the registers allow (tuning.c); a tile of its own size is staged
     * by as many threads, more or fewer keys a thread. */
    bool fewer_threads =
        desc->partition_workgroup_size != 0 && desc->partition_workgroup_size < tuning->partition_workgroup_size;
    if (fewer_threads || desc->partition_scatter_tile_keys != 0)
        bitonic_tuning_set_partition_workgroup(
            &sorter->limits, bytes_per_key,
            fewer_threads ? desc->partition_workgroup_size : tuning->partition_workgroup_size,
            desc->partition_scatter_tile_keys, tuning);
}
