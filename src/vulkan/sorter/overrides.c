/* overrides.c: the sorter's tuning, derived by tuning.c from the device's
 * limits, with the tuning overrides of the description's chain
 * (bitonic_tuning_overrides, src/private: sizes, kernels and split searches,
 * for measuring and tests; docs/TUNING.md) laid over it. Every override of
 * the tuning is read here, in sorter_derive_tuning, and nowhere else. */
#include "sorter_internal.h"

/* The split pass's workgroup size asked for, clamped to the device. */
static uint32_t split_workgroup_size(const bitonic_vulkan_sorter *sorter, const bitonic_tuning_overrides *overrides)
{
    uint32_t size = overrides->merge_split_workgroup_size;
    if (size > sorter->limits.max_workgroup_invocations)
        size = sorter->limits.max_workgroup_invocations;
    if (size > sorter->limits.max_workgroup_size_x)
        size = sorter->limits.max_workgroup_size_x;
    return size;
}

/* The tuning of every bound variant (KEYS32 .. PAIRS64; the 64-bit ones only
 * with enable_64bit_keys) and of the small sorts (KEYS32_SMALL, with
 * sorter->small_sort_max_keys, left 0 where they have no shapes of their
 * own), from sorter->limits (read from the device; the description may turn
 * subgroup operations off first) and the overrides. False
 * where the device cannot take a bound variant's shapes. */
bool sorter_derive_tuning(bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                          const bitonic_tuning_overrides *overrides)
{
    if (overrides->no_subgroup_shuffle)
        sorter->limits.subgroup_shuffle = false;
    if (overrides->no_subgroup_arithmetic)
        sorter->limits.subgroup_arithmetic = false;
    /* Small sorts get their own shapes (KEYS32_SMALL, and direct merges in the
     * other variants) unless the caller chose shapes or a merge kernel, or no
     * small shapes: then every sort uses what was asked for. */
    bool shapes_chosen = overrides->tile_keys != 0 || overrides->tile_keys_per_thread != 0 ||
                         overrides->max_strides_per_global_pass != 0 || overrides->merge_chunk_keys != 0 ||
                         overrides->merge_kernel != BITONIC_MERGE_KERNEL_DEFAULT;
    bool small_shapes = !shapes_chosen && overrides->small_sort_max_keys != UINT32_MAX;
    for (int variant = 0; variant <= KEYS32_SMALL; ++variant) {
        bool small = variant == KEYS32_SMALL;
        bool key64 = !small && variant >= KEYS64, with_values = variant == PAIRS32 || variant == PAIRS64;
        if (key64 && !desc->enable_64bit_keys)
            continue;
        uint32_t bytes_per_key = (key64 ? 8u : 4u) + (with_values ? 4u : 0u);
        bitonic_tuning *tuning = &sorter->variants[variant].tuning;
        if (small) {
            /* None: the sorts of few keys take the other variants' shapes. */
            if (!small_shapes ||
                !bitonic_tuning_derive_small(&sorter->limits, 4u, overrides->small_sort_tile_keys, overrides->small_sort_max_keys,
                                             tuning, &sorter->small_sort_max_keys))
                continue;
        } else if (!bitonic_tuning_derive(&sorter->limits, bytes_per_key, overrides->tile_keys, overrides->tile_keys_per_thread,
                                          overrides->max_strides_per_global_pass, tuning) ||
                   (overrides->merge_chunk_keys != 0 &&
                    !bitonic_tuning_set_merge(&sorter->limits, bytes_per_key, overrides->merge_chunk_keys, tuning))) {
            return false;
        }
        /* The split-pass choices, the partition's among them: every variant
         * takes them alike. */
        if (overrides->merge_split_pass_min_chunks != 0)
            tuning->merge_split_pass_min_chunks = overrides->merge_split_pass_min_chunks;
        if (overrides->merge_split_probes != 0) {  /* asked for: at every size */
            tuning->merge_split_probes =
                overrides->merge_split_probes < MAX_SPLIT_PROBES ? overrides->merge_split_probes : MAX_SPLIT_PROBES;
            tuning->merge_split_probes_max_chunks = UINT32_MAX;
        }
        if (overrides->merge_split_workgroup_size != 0)
            tuning->merge_split_workgroup_size = split_workgroup_size(sorter, overrides);
        if (overrides->merge_split_guided_min_chunks != 0)
            tuning->merge_split_guided_min_chunks = overrides->merge_split_guided_min_chunks;
        if (overrides->merge_split_no_samples)
            tuning->merge_split_samples = false;
        if (overrides->merge_fused_split_min_chunks != 0)
            tuning->merge_fused_split_min_chunks = overrides->merge_fused_split_min_chunks;
        if (overrides->merge_fused_split_probes != 0)
            tuning->merge_fused_split_probes =
                overrides->merge_fused_split_probes < MAX_SPLIT_PROBES ? overrides->merge_fused_split_probes : MAX_SPLIT_PROBES;
        if (overrides->merge_fused_split_searcher != BITONIC_SPLIT_SEARCHER_DEFAULT)
            tuning->merge_fused_split_by_subgroup =
                overrides->merge_fused_split_searcher == BITONIC_SPLIT_SEARCHER_SUBGROUP && sorter->limits.subgroup_ballot;
        /* The partition sort's, where the variant can take it (record_partition_sort). */
        if (overrides->partition_min_keys != 0)
            tuning->partition_min_keys = overrides->partition_min_keys == UINT32_MAX ? UINT64_MAX : overrides->partition_min_keys;
        if (overrides->partition_levels != 0)
            tuning->partition_levels = overrides->partition_levels == UINT32_MAX ? 0u : overrides->partition_levels;
        if (overrides->partition_samples_per_bucket != 0)
            tuning->partition_samples_per_bucket = overrides->partition_samples_per_bucket;
        if (overrides->partition_buckets_per_window != 0)
            tuning->partition_buckets_per_window = overrides->partition_buckets_per_window < 2u ? 1u : 2u;
        if (overrides->partition_nested_min_levels != 0)
            tuning->partition_nested_min_levels = overrides->partition_nested_min_levels;
        if (overrides->partition_nested_tile_keys != 0)
            bitonic_tuning_set_nested_tile(&sorter->limits, bitonic_ceil_log2(overrides->partition_nested_tile_keys),
                                           tuning);
        tuning->partition_fallback_in_batches = overrides->partition_fallback_in_batches;
        if (overrides->partition_split_by_thread_min_keys != 0)
            tuning->partition_split_by_thread_min_keys = overrides->partition_split_by_thread_min_keys == UINT32_MAX
                                                             ? UINT64_MAX
                                                             : overrides->partition_split_by_thread_min_keys;
        if (overrides->partition_scatter_workgroups != 0)
            tuning->partition_scatter_workgroups = overrides->partition_scatter_workgroups;
        if (overrides->partition_count_workgroups != 0)
            tuning->partition_workgroups = overrides->partition_count_workgroups;
        /* Fewer threads stage as many keys, more a thread, where shared memory
         * and the registers allow (tuning.c); a tile of its own size is staged
         * by as many threads, more or fewer keys a thread. */
        bool fewer_threads =
            overrides->partition_workgroup_size != 0 && overrides->partition_workgroup_size < tuning->partition_workgroup_size;
        if (fewer_threads || overrides->partition_scatter_tile_keys != 0)
            bitonic_tuning_set_partition_workgroup(
                &sorter->limits, bytes_per_key,
                fewer_threads ? overrides->partition_workgroup_size : tuning->partition_workgroup_size,
                overrides->partition_scatter_tile_keys, tuning);
        /* The merge kernel and the loads and stores, for the bound variants
         * (the small sorts' merge is the direct one). */
        if (!small) {
            if (overrides->merge_kernel != BITONIC_MERGE_KERNEL_DEFAULT)
                tuning->merge_direct = overrides->merge_kernel == BITONIC_MERGE_KERNEL_DIRECT;
            if (small_shapes)
                tuning->merge_direct_max_keys = bitonic_tuning_merge_direct_max_keys(key64, with_values,
                                                                                     tuning->tile_log);
            if (overrides->merge_scalar_io)
                tuning->merge_vector_io = false;
            if (overrides->merge_store_from_registers)
                tuning->merge_store_from_registers = true;
            if (overrides->partition_whole_samples)
                tuning->partition_sample_runs = false;
            if (overrides->partition_window_staged_stores)
                tuning->window_merge_store_from_registers = false;
            if (overrides->tile_scalar_io)
                tuning->tile_vector_io = false;
        }
        if (overrides->network_tile_sort)
            tuning->tile_merge_sort = false;
    }
    return true;
}
