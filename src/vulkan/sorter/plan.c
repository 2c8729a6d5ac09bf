/* plan.c: the planner. A sort's plan is made once, from the device's tuning
 * and the sort's shape, and names one strategy; that strategy's file plans
 * the rest and records it.
 *
 * OVERVIEW
 *
 *   sorter_plan_sort_runs: check the sort, then choose
 *
 *     the variant ..... KEYS32, PAIRS32, KEYS64 or PAIRS64 by keys and values;
 *                       KEYS32_SMALL for merge sorts of few 32-bit keys
 *     rows ............ each row padded to 2^row_log: the network (merge.c)
 *     past the binding, or forced by a test:
 *                       the device-address variants' tile sort and merges
 *                       (planned by merge.c, recorded by device_address.c)
 *     TRANSPOSE strategy, more than a tile:
 *                       tile passes on a transposed view (transpose.c)
 *     otherwise ....... the tile sort, then (merge.c)
 *                         with scratch: two-run merges (split passes, samples)
 *                         without: the network's global passes
 *     merging one array of bound buffers, no count buffer, from
 *     tuning.partition_min_keys keys:
 *                       the partition sort instead (partition.c): samples,
 *                       count, scatter (nested: again in each bucket), tile
 *                       sort, merges up to windows, window merge, fallback;
 *                       pairs of 32-bit keys packed where they fit
 *     one tile merge sort of at most the short tile: its own pipeline
 *
 *   sorter_record_sort_passes: build what the plan binds (pipelines.c), then
 *   record the chosen strategy, a dispatch a pass (dispatch.c):
 *
 *     TIMESTAMP, tile sort, BARRIER, [split pass, BARRIER,] merge, BARRIER,
 *     ..., TIMESTAMP
 */
#include "sorter_internal.h"

/* The passes that sort virtual_count keys, every aligned block of 2^row_log
 * on its own when row_log is not 0. */
uint32_t sorter_build_schedule(const bitonic_vulkan_sorter *sorter, uint64_t virtual_count, int variant,
                               uint32_t row_log, bool merge, bool transpose, bool merge_tail, bool tile_tail,
                               bitonic_pass *passes)
{
    const bitonic_tuning *tuning = &sorter->variants[variant].tuning;
    bitonic_schedule_params params = {tuning->tile_log, tuning->max_global_steps, row_log, merge, transpose,
                                      merge_tail ? tuning->tile_log : 0u, tile_tail ? tuning->tile_tail_log : 0u};
    return bitonic_schedule_build(virtual_count, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* with_scratch: plan as if the caller gives scratch memory (the size query
 * plans the sort that scratch will allow, before there is any). */
bitonic_status sorter_plan_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                bool with_scratch, sort_plan *plan)
{
    return sorter_plan_sort_runs(sorter, info, with_scratch, 0, true, plan);
}

/* run_log (not 0): the keys are sorted in aligned runs of 2^run_log already,
 * and the plan holds only the merges above them, an even number of passes. */
bitonic_status sorter_plan_sort_runs(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool allow_partition, sort_plan *plan)
{
    plan->partition = false;
    plan->packed_pairs = false;
    plan->short_tile = false;
    plan->nested = false;
    plan->nested_tile = false;
    plan->merge_direct = false;
    if (!sorter || !info || info->keys == VK_NULL_HANDLE ||
        (info->order != BITONIC_ORDER_ASCENDING && info->order != BITONIC_ORDER_DESCENDING) ||
        (unsigned)info->key_type > (unsigned)BITONIC_KEY_F64 ||
        (info->count_buffer != VK_NULL_HANDLE && (info->count_offset % 4u != 0 || info->row_length != 0)))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bool key64 = is_key64(info->key_type);
    plan->key_bytes = key64 ? 8u : 4u;
    plan->count = info->count;
    if (info->count > (key64 ? sorter->max_keys / 2u : sorter->max_keys))
        return BITONIC_ERROR_TOO_LARGE;
    plan->variant_number = variant_index(key64, info->values != VK_NULL_HANDLE);
    if (!sorter->variants[plan->variant_number].available)
        return BITONIC_ERROR_UNSUPPORTED;
    /* Past what one binding covers only the merge with device addresses sorts. */
    bool past_binding = info->count > (key64 ? sorter->bound_max_keys / 2u : sorter->bound_max_keys);
    /* Rows: each is padded to a power of two in the virtual index space. */
    plan->row_log = 0;
    uint64_t virtual_count = info->count;
    bool rows = info->row_length != 0 && info->row_length < info->count;
    /* Small merge sorts have shapes of their own; the network alone (no scratch)
     * keeps the device's tile above one small tile. Up to one small tile there
     * is nothing to merge, so no scratch is needed: the scratch query planned
     * these sorts small and asked for none, and the device's 8192-key tile
     * sorted 4096 keys in 0.0204 ms on the H100 where two 4096-key tiles and a
     * merge sorted 4097 in 0.0168 (docs/perf-log.md, entry 36). */
    if (plan->variant_number == KEYS32 && !rows && sorter->strategy == BITONIC_STRATEGY_MERGE &&
        info->count <= sorter->small_sort_max_keys &&
        (with_scratch || info->count <= ((uint64_t)1 << sorter->variants[KEYS32_SMALL].tuning.tile_log)))
        plan->variant_number = KEYS32_SMALL;
    if (rows) {
        if (info->count % info->row_length != 0)
            return BITONIC_ERROR_INVALID_ARGUMENT;
        plan->row_log = bitonic_ceil_log2(info->row_length);
        virtual_count = (uint64_t)(info->count / info->row_length) << plan->row_log;
        if (past_binding || virtual_count > sorter->bound_max_keys * 2u || virtual_count > ((uint64_t)1 << 31))
            return BITONIC_ERROR_TOO_LARGE;
    }
    /* Device addresses take the merge of one array: where it must (past the
     * binding: a sort that cannot merge, with no scratch or another strategy,
     * is too large) or where the caller forces it (tests). */
    int wide_variant = wide_variant_index(key64, info->values != VK_NULL_HANDLE);
    bool wide_possible = sorter->device_addresses && sorter->variants[wide_variant].available && !rows &&
                         sorter->strategy == BITONIC_STRATEGY_MERGE;
    plan->wide = false;
    if (past_binding && (!wide_possible || !with_scratch))
        return BITONIC_ERROR_TOO_LARGE;
    /* Forced, only where no global pass is needed: the wide kernels are the
     * tile sort and the merge. */
    bool forced = sorter->force_device_addresses &&
                  (with_scratch || info->count <= ((uint64_t)1 << sorter->variants[wide_variant].tuning.tile_log));
    if (wide_possible && (past_binding || forced)) {
        plan->wide = true;
        plan->variant_number = wide_variant;
    }
    /* Merging needs room to merge into; segments and rows keep the network. */
    const bitonic_tuning *tuning = &sorter->variants[plan->variant_number].tuning;
    plan->transpose = false;
    if (sorter->strategy == BITONIC_STRATEGY_TRANSPOSE && !rows && info->count > ((uint64_t)1 << tuning->tile_log))
        return sorter_plan_transposed_sort(sorter, info, with_scratch, plan);
    bitonic_status planned = sorter_plan_merge_sort(sorter, info, with_scratch, run_log, rows, virtual_count, plan);
    if (planned != BITONIC_SUCCESS)
        return planned;
    if (plan->merge && run_log == 0 && allow_partition && !plan->wide && plan->variant_number <= PAIRS64 &&
        info->count_buffer == VK_NULL_HANDLE && !rows)
        sorter_plan_partition(sorter, info, plan);
    /* One pass stopping at runs no longer than the short tile is a sort of
     * at most that many keys (one tile either way): a workgroup of the short
     * tile's size, no idle threads. */
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    plan->short_tile = plan->pass_count == 1u && !plan->partition && !plan->wide && !rows && run_log == 0 &&
                       sorter_sorts_tile_by_merging(variant, &plan->passes[0]) && variant->tuning.short_tile_log != 0 &&
                       plan->passes[0].last_phase <= variant->tuning.short_tile_log;
    return BITONIC_SUCCESS;
}

/* The sort's passes; with run_log (not 0: the keys are sorted in aligned runs
 * of 2^run_log already) only the merges above those runs, the first reading
 * the caller's buffers. allow_partition: a partition sort where the plan asks
 * for one (not for the partition's own sort of its samples). */
bitonic_status sorter_record_sort_passes(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                         const bitonic_vulkan_sort_info *info, uint32_t run_log, bool allow_partition)
{
    if (command_buffer == VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    sort_plan plan;
    bitonic_status planned =
        sorter_plan_sort_runs(sorter, info, info && info->scratch != VK_NULL_HANDLE, run_log, allow_partition, &plan);
    if (planned != BITONIC_SUCCESS)
        return planned;
    VkResult built = sorter_ensure_plan_pipelines(sorter, &plan);
    if (built != VK_SUCCESS)
        return bitonic_status_from_vk(built);
    if (plan.transpose)
        return sorter_record_transposed_sort(sorter, command_buffer, info, &plan);
    if (plan.wide)
        return sorter_record_wide_sort(sorter, command_buffer, info, &plan);
    if (plan.partition)
        return sorter_record_partition_sort(sorter, command_buffer, info, &plan);
    return sorter_record_merge_sort(sorter, command_buffer, info, &plan, run_log);
}
