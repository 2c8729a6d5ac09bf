/* merge.c: the merge strategy (BITONIC_STRATEGY_MERGE) and the network it
 * falls back to: the tile sort (by the network or the tile merge sort, on the
 * short tile for small sorts), two-run merges above it with their split
 * passes and run samples, and the network's global passes for sorts without
 * scratch and for rows. The two-run merge is also the partition's. */
#include "sorter_internal.h"

/* Whether a tile pass sorts its tiles from scratch with the merge sort
 * (tile_sort_pass.comp): one that starts at phase 1 outside a transposed view,
 * where the merge sort gives what the network would. */
bool sorter_sorts_tile_by_merging(const sorter_variant *variant, const bitonic_pass *pass)
{
    return variant->tuning.tile_merge_sort && pass->kind == BITONIC_PASS_TILE && pass->phase == 1 &&
           pass->stride_log == 0 && pass->view_column_log == 0;
}

/* The pipeline of a tile pass. */
VkPipeline sorter_tile_pipeline_for(const sorter_variant *variant, const bitonic_pass *pass)
{
    return sorter_sorts_tile_by_merging(variant, pass) ? variant->tile_sort_pipeline : variant->tile_pipeline;
}

/* Whether a merge pass takes in the tail (bitonic_pass.last_phase). */
static bool merge_takes_tail(const bitonic_pass *pass)
{
    return pass->kind == BITONIC_PASS_MERGE && pass->last_phase == pass->phase + 1u;
}

/* Which pipeline a plan's two-run merge takes: the variant's merge where that
 * is the direct one (tuning.merge_direct), which takes a tail in by itself;
 * else the direct merge for every merge of a small sort
 * (tuning.merge_direct_max_keys), the shared-memory merge that takes in a
 * tail for the merge that does, and the variant's merge for the rest. */
pipeline_kind sorter_merge_pipeline_kind(const sorter_variant *variant, const sort_plan *plan,
                                         const bitonic_pass *pass)
{
    if (variant->tuning.merge_direct)
        return PIPELINE_MERGE;
    if (plan->merge_direct)
        return PIPELINE_MERGE_DIRECT;
    return merge_takes_tail(pass) ? PIPELINE_MERGE_TAIL : PIPELINE_MERGE;
}

static VkPipeline merge_pipeline_of(const sorter_variant *variant, pipeline_kind kind)
{
    return kind == PIPELINE_MERGE_DIRECT ? variant->merge_direct_pipeline
           : kind == PIPELINE_MERGE_TAIL ? variant->merge_tail_pipeline
                                         : variant->merge_pipeline;
}

/* ... and of a planned sort's tile pass. */
static VkPipeline plan_tile_pipeline(const sorter_variant *variant, const sort_plan *plan, const bitonic_pass *pass)
{
    if (pass->tile_tail)
        return plan->short_tile ? variant->short_tile_sort_tail_pipeline : variant->tile_sort_tail_pipeline;
    return plan->short_tile ? variant->short_tile_sort_pipeline : sorter_tile_pipeline_for(variant, pass);
}

/* The split pipeline a plan's merges take (plan->split_pass set). */
VkPipeline sorter_split_pipeline(const sorter_variant *variant, const sort_plan *plan)
{
    return plan->split_search == SPLIT_SEARCH_GUIDED   ? variant->merge_split_guided_pipeline
           : plan->split_search == SPLIT_SEARCH_BINARY ? variant->merge_split_binary_pipeline
                                                       : variant->merge_split_pipeline;
}

/* A merge's workgroups: a chunk of output keys each; where it takes in the
 * tail, the chunks of its two runs, then a thread a tail key (merge_pass.comp,
 * place_tail_key). */
static uint64_t merge_workgroups(const bitonic_tuning *tuning, const sort_plan *plan, const bitonic_pass *pass)
{
    if (!merge_takes_tail(pass))
        return plan->chunk_count;
    uint64_t tail_first = (uint64_t)1 << pass->phase;
    uint64_t tail_groups = (plan->count - tail_first + tuning->merge_workgroup_size - 1u) / tuning->merge_workgroup_size;
    return (tail_first >> tuning->merge_chunk_log) + tail_groups;
}

/* The workgroup grid of every dispatch of a tile-and-merge or network plan
 * (and of the split passes); false when one does not fit the device. */
bool sorter_plan_grids(const bitonic_vulkan_sorter *sorter, const sort_plan *plan, uint32_t *group_x,
                       uint32_t *group_y, uint32_t *split_x, uint32_t *split_y)
{
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t split_threads = variant->tuning.merge_split_workgroup_size;
    if (plan->merge && plan->split_pass &&
        !sorter_split_groups(sorter, (plan->chunk_count + split_threads - 1u) / split_threads, split_x, split_y))
        return false;
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint64_t groups = pass->group_count;
        uint64_t workgroups = pass->kind == BITONIC_PASS_TILE    ? groups
                              : pass->kind == BITONIC_PASS_MERGE ? merge_workgroups(&variant->tuning, plan, pass)
                                                                 : (groups + variant->tuning.global_workgroup_size - 1u) /
                                                                       variant->tuning.global_workgroup_size;
        if (!sorter_split_groups(sorter, workgroups, &group_x[p], &group_y[p]))
            return false;
    }
    return true;
}

/* Records a two-run merge pass, its constants set but for the split and
 * sample fields. First its split pass, one chunk's split a thread (on the
 * samples first where the pass before left them), where the plan has split
 * passes and the merge does not search its own splits on those samples
 * (fused, where the plan says: never a direct merge's plan, which has no
 * samples); then the merge, which leaves samples for the next merge where
 * write_samples. Returns whether it left them. */
bool sorter_record_two_run_merge(dispatch_recorder *recorder, const sorter_variant *variant, const sort_plan *plan,
                                 const bitonic_pass *pass, pass_push_constants constants, bool samples_left,
                                 bool write_samples, dispatch_size split, dispatch_size merge)
{
    bool fused = plan->fused_split && samples_left;
    if (plan->split_pass && !fused) {
        constants.sample_runs = samples_left ? 1u : 0u;
        sorter_name_pass(recorder, "merge split", 0u);
        sorter_record_sized_dispatch(recorder, sorter_split_pipeline(variant, plan), &constants, split);
        sorter_record_pass_barrier(recorder->command_buffer);
        constants.splits_given = 1u;
    }
    uint32_t search = plan->split_search == SPLIT_SEARCH_GUIDED ? MERGE_SAMPLES_GUIDED : 0u;
    constants.sample_runs = (fused ? MERGE_SAMPLES_SEARCH | search : 0u) | (write_samples ? MERGE_SAMPLES_WRITE : 0u);
    sorter_name_pass(recorder, "merge", sorter_bytes_moved(plan->count, variant->key64 ? 8u : 4u, variant->with_values));
    sorter_record_sized_dispatch(recorder, merge_pipeline_of(variant, sorter_merge_pipeline_kind(variant, plan, pass)),
                                 &constants, merge);
    return write_samples;
}

/* The tile sort and what follows it for the merge strategy and the network:
 * with scratch, two-run merges above the tile (a split pass before each where
 * the chunks are many, run samples for the next merge's search); without it,
 * or for rows, the network's global passes. run_log (not 0): the keys are
 * sorted in aligned runs of 2^run_log already, and the plan holds only the
 * merges above them, an even number of passes. */
bitonic_status sorter_plan_merge_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool rows, uint64_t virtual_count,
                                     sort_plan *plan)
{
    const bitonic_tuning *tuning = &sorter->variants[plan->variant_number].tuning;
    plan->merge = !rows && info->count > ((uint64_t)1 << tuning->tile_log) &&
                  sorter->strategy == BITONIC_STRATEGY_MERGE;
    uint64_t chunk_keys = (uint64_t)1 << tuning->merge_chunk_log;
    uint64_t chunk_count = (info->count + chunk_keys - 1u) / chunk_keys;
    if (chunk_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    plan->chunk_count = (uint32_t)chunk_count;
    /* The device-address kernels read 64-bit splits through pointers that
     * promise their alignment: their scratch sections start at least 16-byte
     * aligned whatever the binding rule. */
    VkDeviceSize section_alignment = plan->wide && sorter->storage_alignment < 16u ? 16u : sorter->storage_alignment;
    plan->scratch_values_at = align_up((VkDeviceSize)info->count * plan->key_bytes, section_alignment);
    VkDeviceSize values_bytes = info->values != VK_NULL_HANDLE ? (VkDeviceSize)info->count * 4u : 0;
    plan->scratch_splits_at = align_up(plan->scratch_values_at + values_bytes, section_alignment);
    plan->split_pass = plan->chunk_count >= tuning->merge_split_pass_min_chunks;
    plan->split_search = plan->chunk_count >= tuning->merge_split_guided_min_chunks ? SPLIT_SEARCH_GUIDED
                         : plan->chunk_count > tuning->merge_split_probes_max_chunks ? SPLIT_SEARCH_BINARY
                                                                                      : SPLIT_SEARCH_PROBES;
    VkDeviceSize split_bytes = plan->wide ? 8u : 4u;  /* the device-address kernels' splits are 64-bit */
    plan->merge_direct = tuning->merge_direct || (!rows && info->count <= tuning->merge_direct_max_keys);
    /* Run samples (merge_pass.comp, RUN_SAMPLES): one key of every 32, with
     * its value where there are values, for merges that search their splits
     * in a split pass or, with none, in their own workgroups (fused: a thread
     * a split, on the samples). Bound buffers only. */
    bool fused_possible = !plan->split_pass && plan->chunk_count >= tuning->merge_fused_split_min_chunks;
    plan->run_samples = plan->merge && (plan->split_pass || fused_possible) && !plan->wide &&
                        plan->variant_number <= PAIRS64 && tuning->merge_split_samples && !plan->merge_direct &&
                        tuning->merge_chunk_log >= RUN_SAMPLE_LOG &&
                        tuning->tile_log >= RUN_SAMPLE_LOG;
    plan->fused_split = plan->run_samples && fused_possible;
    /* The splits (a word a chunk), where the samples start also when no split
     * pass writes them; then two regions of samples, one for the merges of
     * odd phases and one for even, so a fused merge never overwrites a sample
     * that another of its workgroups still reads. */
    VkDeviceSize splits_region =
        plan->split_pass || plan->run_samples ? (VkDeviceSize)plan->chunk_count * split_bytes : 0u;
    if (plan->run_samples) {
        VkDeviceSize sample_bytes = plan->key_bytes + (info->values != VK_NULL_HANDLE ? 4u : 0u);  /* SAMPLE_WORDS */
        splits_region += 2u * ((info->count + RUN_SAMPLE_KEYS - 1u) / RUN_SAMPLE_KEYS) * sample_bytes;
    }
    plan->splits_bytes = splits_region;
    plan->scratch_bytes = !plan->merge        ? 0
                          : splits_region > 0 ? plan->scratch_splits_at + splits_region
                                              : plan->scratch_values_at + values_bytes;
    if (!with_scratch)
        plan->merge = false;
    if (plan->merge && info->scratch_offset % sorter->storage_alignment != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* The last merge takes in a short tail (one pass fewer just past a power
     * of two) where no split pass searches for it and it merges runs of the
     * whole array: the direct merge, every merge of a small sort; past those
     * sizes and below the partition's, the shared-memory merge's tail pipeline
     * (merge_pipeline_kind), where the tail had taken a merge pass of its own
     * (0.006 ms at 2^19 + 1 u32 keys on the H100; docs/perf-log.md,
     * entries 72 and 73). Not where four-run merges would take its pass. */
    bool last_merge_takes_tail = !rows && info->count < tuning->partition_min_keys;
    bool merge_tail = plan->merge && (plan->merge_direct || last_merge_takes_tail) && !plan->wide &&
                      !plan->split_pass && run_log == 0 && tuning->merge_chunk_log <= tuning->tile_log + 1u;
    /* A sort of one tile and a short tail past it places the tail in the tile
     * merge sort's pass: plain arrays through bound buffers. */
    bool tile_tail = sorter->strategy == BITONIC_STRATEGY_MERGE && tuning->tile_merge_sort && !plan->wide && !rows &&
                     run_log == 0;
    plan->pass_count = rows && info->row_length <= 1
                           ? 0
                           : sorter_build_schedule(sorter, virtual_count, plan->variant_number, plan->row_log,
                                                   plan->merge, false, merge_tail, tile_tail, plan->passes);
    if (plan->pass_count == UINT32_MAX)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    plan->dispatch_count = plan->pass_count;
    if (plan->merge && plan->split_pass)
        plan->dispatch_count += plan->pass_count - 1u;  /* every pass but the tile sort merges */
    if (plan->merge && run_log > 0) {
        /* Only the merges of runs longer than the presorted ones. */
        uint32_t kept = 0;
        for (uint32_t p = 0; p < plan->pass_count; ++p)
            if (plan->passes[p].kind == BITONIC_PASS_MERGE && plan->passes[p].phase > run_log)
                plan->passes[kept++] = plan->passes[p];
        plan->pass_count = kept;
        plan->dispatch_count = plan->pass_count + (plan->split_pass ? plan->pass_count : 0u);
    }
    return BITONIC_SUCCESS;
}

/* Records a tile-and-merge or network plan, with its timestamps: side 0 is the
 * caller's keys and values, side 1 their scratch copies; the tile sort writes
 * the side that leaves the last merge writing the caller's buffers. With
 * run_log only the merges above the presorted runs, the first reading side 0. */
bitonic_status sorter_record_merge_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                        const bitonic_vulkan_sort_info *info, const sort_plan *plan, uint32_t run_log)
{
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    const bitonic_pass *passes = plan->passes;
    uint32_t pass_count = plan->pass_count, row_log = plan->row_log, key_bytes = plan->key_bytes;

    /* Check every dispatch fits before recording anything. */
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!sorter_plan_grids(sorter, plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;

    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    if (pass_count > 0) {
        /* Without a count buffer the keys stand in for it: the shader does not read it. */
        bool indirect = info->count_buffer != VK_NULL_HANDLE;
        VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                                .offset = indirect ? 0 : info->keys_offset,
                                                .range = indirect ? VK_WHOLE_SIZE : 4u};
        /* Side 0 is the caller's keys and values, side 1 their scratch copies. A
         * merge reads one side and writes the other; the tile sort writes the side
         * that leaves the last merge writing the caller's buffers. */
        VkDescriptorBufferInfo side_keys[2], side_values[2];
        VkDescriptorBufferInfo splits = count_binding;
        side_keys[0] = (VkDescriptorBufferInfo){info->keys, info->keys_offset, (VkDeviceSize)info->count * key_bytes};
        side_values[0] = (VkDescriptorBufferInfo){info->values, info->values_offset, (VkDeviceSize)info->count * 4u};
        side_keys[1] = side_keys[0];
        side_values[1] = side_values[0];
        if (plan->merge) {
            side_keys[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset, side_keys[0].range};
            side_values[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_values_at,
                                                      side_values[0].range};
            if (plan->splits_bytes > 0)  /* the split pass's splits or the cut pass's cuts */
                splits = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_splits_at,
                                                  plan->splits_bytes};
        }
        /* 16-byte views of keys and values need both sides to start 16-byte aligned. */
        bool aligned = info->keys_offset % 16u == 0 && (!with_values || info->values_offset % 16u == 0) &&
                       (!plan->merge || (info->scratch_offset % 16u == 0 &&
                                        (info->scratch_offset + plan->scratch_values_at) % 16u == 0));
        bool merge_vector_io = aligned && variant->tuning.merge_vector_io;
        bool tile_vector_io = aligned && variant->tuning.tile_vector_io;
        /* Without a tile pass (run_log) the first merge reads side 0: the caller
         * made the merge count even, so the last one writes side 0. */
        uint32_t merge_count = !plan->merge ? 0u : run_log > 0 ? pass_count : pass_count - 1u;
        uint32_t read_side = 0, write_side = run_log > 0 ? 0u : merge_count % 2u;
        dispatch_recorder recorder = sorter_dispatch_recorder_for(command_buffer, variant, info);
        bool pushed = false;
        bool samples_left = false;  /* the last merge recorded left run samples */
        for (uint32_t p = 0; p < pass_count; ++p) {
            const bitonic_pass *pass = &passes[p];
            /* The tile sort reads side 0 and writes write_side; each merge then
             * reads what the previous pass wrote and writes the other side. */
            if (pass->kind == BITONIC_PASS_MERGE) {
                read_side = write_side;
                write_side = 1u - read_side;
            }
            if (!pushed || pass->kind == BITONIC_PASS_MERGE) {
                sorter_push_sort_bindings(sorter, command_buffer, variant, with_values,
                                          (sort_sides){side_keys[read_side], side_values[read_side],
                                                       side_keys[write_side], side_values[write_side]},
                                          count_binding, splits);
                pushed = true;
            }
            pass_push_constants constants = {
                .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
                .last_phase = pass->last_phase, .group_count = pass->group_count,
                .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                .key_type = (uint32_t)info->key_type,
                .row_log = row_log,
                .row_length = info->row_length,
                .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
                .output_buffer = pass->kind == BITONIC_PASS_TILE && write_side != 0u ? 1u : 0u,
                .vector_io = (pass->kind == BITONIC_PASS_TILE ? tile_vector_io : merge_vector_io) ? 1u : 0u,
            };
            if (pass->kind == BITONIC_PASS_TILE && plan->run_samples && sorter_sorts_tile_by_merging(variant, pass) &&
                pass->last_phase == variant->tuning.tile_log && p + 1 < pass_count &&
                passes[p + 1].kind == BITONIC_PASS_MERGE) {
                /* The tile merge sort leaves samples for the first merge. */
                constants.sample_runs = MERGE_SAMPLES_WRITE;
                samples_left = true;
            } else if (pass->kind == BITONIC_PASS_MERGE) {
                /* Every pass after a merge merges: samples for the next one. */
                constants.group_count = (uint32_t)merge_workgroups(&variant->tuning, plan, pass);
                samples_left = sorter_record_two_run_merge(&recorder, variant, plan, pass, constants, samples_left,
                                                           plan->run_samples && p + 1 < pass_count,
                                                           (dispatch_size){split_x, split_y, VK_NULL_HANDLE, 0},
                                                           (dispatch_size){group_x[p], group_y[p], VK_NULL_HANDLE, 0});
                if (p + 1 < pass_count)
                    sorter_record_pass_barrier(command_buffer);
                continue;
            }
            VkPipeline pipeline = pass->kind == BITONIC_PASS_TILE ? plan_tile_pipeline(variant, plan, pass)
                                                                  : variant->global_pipelines[pass->step_count];
            sorter_name_pass(&recorder, pass->kind == BITONIC_PASS_TILE ? "tile sort" : "network pass",
                             sorter_bytes_moved(info->count, key_bytes, with_values));
            sorter_record_dispatch(&recorder, pipeline, &constants, sizeof constants, group_x[p], group_y[p]);
            if (p + 1 < pass_count)
                sorter_record_pass_barrier(command_buffer);
        }
    }
    if (timed && !(info->profile_passes && pass_count > 0))
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}
