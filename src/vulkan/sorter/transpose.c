/* transpose.c: the transpose strategy (BITONIC_STRATEGY_TRANSPOSE): a sort
 * of more than a tile runs its long strides as tile passes on a transposed
 * view of the keys in the scratch buffer (TRANSPOSE passes between the two
 * sides); without the scratch, or where the view does not fit, the network. */
#include "sorter_internal.h"

/* The plan of a sort of one array of more than a tile with the transpose
 * strategy: the views in scratch when the caller gives it (and the schedule
 * fits the pass limit and one binding holds the view), else the network. */
bitonic_status sorter_plan_transposed_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                           bool with_scratch, sort_plan *plan)
{
    plan->merge = plan->split_pass = false;
    plan->split_search = SPLIT_SEARCH_PROBES;
    plan->chunk_count = 0;
    plan->scratch_splits_at = plan->scratch_bytes = plan->splits_bytes = 0;
    plan->view_keys = 0;
    plan->pass_count =
        sorter_build_schedule(sorter, info->count, plan->variant_number, 0, false, true, false, false, plan->passes);
    for (uint32_t p = 0; p < plan->pass_count && plan->pass_count != UINT32_MAX; ++p)
        if (plan->passes[p].kind == BITONIC_PASS_TRANSPOSE &&
            bitonic_view_keys(&plan->passes[p], info->count) > plan->view_keys)
            plan->view_keys = bitonic_view_keys(&plan->passes[p], info->count);
    uint64_t max_keys = plan->key_bytes == 8u ? sorter->bound_max_keys / 2u : sorter->bound_max_keys;
    plan->transpose = plan->pass_count != UINT32_MAX && plan->view_keys <= max_keys;
    if (plan->transpose) {
        plan->scratch_values_at = align_up((VkDeviceSize)plan->view_keys * plan->key_bytes, sorter->storage_alignment);
        VkDeviceSize values_bytes = info->values != VK_NULL_HANDLE ? (VkDeviceSize)plan->view_keys * 4u : 0;
        plan->scratch_bytes = plan->scratch_values_at + values_bytes;
    }
    if (!with_scratch)
        plan->transpose = false;
    if (plan->transpose && info->scratch_offset % sorter->storage_alignment != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (!plan->transpose)
        plan->pass_count = sorter_build_schedule(sorter, info->count, plan->variant_number, 0, false, false, false,
                                                 false, plan->passes);
    if (plan->pass_count == UINT32_MAX)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    plan->dispatch_count = plan->pass_count;
    return BITONIC_SUCCESS;
}

/* Workgroups of a TRANSPOSE pass: one per block of stored columns x rows. */
static uint64_t transpose_workgroups(const bitonic_tuning *tuning, const bitonic_pass *pass)
{
    uint64_t columns = (uint64_t)1 << pass->view_column_log;
    uint64_t block = (uint64_t)1 << tuning->transpose_block_log;
    uint64_t column_blocks = columns > block ? columns / block : 1u;
    return column_blocks * ((pass->group_count + block - 1u) / block);
}

/* Records a sort planned with the transpose strategy (plan->transpose), with
 * its timestamps, as bitonic_vulkan_record_sort() does for the others. Side 0
 * is the caller's keys and values, side 1 the view in the scratch buffer: a
 * TRANSPOSE pass reads one side and writes the other, a tile pass works in
 * place on the side its view says. Descriptors are pushed only when the sides
 * change. Every dispatch is checked to fit before anything is recorded. */
bitonic_status sorter_record_transposed_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                             const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint64_t workgroups = pass->kind == BITONIC_PASS_TRANSPOSE ? transpose_workgroups(&variant->tuning, pass)
                                                                   : pass->group_count;
        if (!sorter_split_groups(sorter, workgroups, &group_x[p], &group_y[p]))
            return BITONIC_ERROR_TOO_LARGE;
    }
    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    bool indirect = info->count_buffer != VK_NULL_HANDLE;
    VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                            .offset = indirect ? 0 : info->keys_offset,
                                            .range = indirect ? VK_WHOLE_SIZE : 4u};
    VkDescriptorBufferInfo side_keys[2] = {
        {info->keys, info->keys_offset, (VkDeviceSize)info->count * plan->key_bytes},
        {info->scratch, info->scratch_offset, (VkDeviceSize)plan->view_keys * plan->key_bytes},
    };
    VkDescriptorBufferInfo side_values[2] = {
        {info->values, info->values_offset, (VkDeviceSize)info->count * 4u},
        {info->scratch, info->scratch_offset + plan->scratch_values_at, (VkDeviceSize)plan->view_keys * 4u},
    };
    uint32_t pushed_read = UINT32_MAX, pushed_write = UINT32_MAX;
    dispatch_recorder recorder = sorter_dispatch_recorder_for(command_buffer, variant, info);
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint32_t read_side = pass->kind == BITONIC_PASS_TRANSPOSE ? (pass->to_view ? 0u : 1u)
                                                                  : (pass->view_column_log != 0 ? 1u : 0u);
        uint32_t write_side = pass->kind == BITONIC_PASS_TRANSPOSE ? 1u - read_side : read_side;
        if (read_side != pushed_read || write_side != pushed_write) {
            sorter_push_sort_bindings(sorter, command_buffer, variant, with_values,
                                      (sort_sides){side_keys[read_side], side_values[read_side], side_keys[write_side],
                                            side_values[write_side]},
                                      count_binding, count_binding);
            pushed_read = read_side;
            pushed_write = write_side;
        }
        uint64_t columns_mask = ((uint64_t)1 << pass->view_column_log) - 1u;
        pass_push_constants constants = {
            .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
            .last_phase = pass->last_phase, .group_count = pass->group_count,
            .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
            .key_type = (uint32_t)info->key_type,
            .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
            .view_column_log = pass->view_column_log, .view_row_log = pass->view_row_log,
            .view_rows_used = (uint32_t)((info->count + columns_mask) >> pass->view_column_log),
            .view_mirror_phase = pass->view_mirror_phase, .view_forward = pass->to_view ? 1u : 0u,
        };
        sorter_name_pass(&recorder, pass->kind == BITONIC_PASS_TRANSPOSE ? "transpose" : "tile sort",
                         sorter_bytes_moved(info->count, plan->key_bytes, with_values));
        sorter_record_dispatch(&recorder,
                               pass->kind == BITONIC_PASS_TRANSPOSE ? variant->transpose_pipeline
                                                             : sorter_tile_pipeline_for(variant, pass),
                               &constants, sizeof constants, group_x[p], group_y[p]);
        if (p + 1 < plan->pass_count)
            sorter_record_pass_barrier(command_buffer);
    }
    /* The plan has passes (more keys than a tile), so with profile_passes the
     * last pass's timestamp is the end. */
    if (timed && !info->profile_passes)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}
