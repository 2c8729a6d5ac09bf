/* dispatch.c: what every strategy records with: workgroup grids that fit the
 * device, the barriers between passes, the dispatch recorder (the pipeline
 * bound last, push constants, a timestamp a pass when profiling) and the
 * push of the sort pipelines' bindings. */
#include <stddef.h>

#include "sorter_internal.h"

/* Spreads a workgroup count over x and y: x is limited per dimension (65535 on
 * many devices); the shaders linearise the two back. */
bool sorter_split_groups(const bitonic_vulkan_sorter *sorter, uint64_t workgroups, uint32_t *x, uint32_t *y)
{
    uint64_t max_x = sorter->max_group_count[0];
    *x = (uint32_t)(workgroups < max_x ? workgroups : max_x);
    uint64_t rows = (workgroups + *x - 1u) / *x;
    if (rows > sorter->max_group_count[1])
        return false;
    *y = (uint32_t)rows;
    return true;
}

void sorter_record_pass_barrier(VkCommandBuffer command_buffer)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                         1, &barrier, 0, NULL, 0, NULL);
}

dispatch_recorder sorter_dispatch_recorder_for(VkCommandBuffer command_buffer, const sorter_variant *variant,
                                               const bitonic_vulkan_sort_info *info)
{
    return (dispatch_recorder){command_buffer, variant->pipeline_layout, info,
                               info->timestamps != VK_NULL_HANDLE && info->profile_passes, VK_NULL_HANDLE, 0,
                               NULL, 0};
}

/* What every dispatch records before it: its pipeline (when another was
 * bound) and its push constants. */
static void prepare_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                             uint32_t constants_size)
{
    if (pipeline != recorder->bound) {
        vkCmdBindPipeline(recorder->command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        recorder->bound = pipeline;
    }
    vkCmdPushConstants(recorder->command_buffer, recorder->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, constants_size,
                       constants);
}

/* ... and after it: its timestamp when profiling, its name and bytes where
 * the caller asked for them, and the count. */
void sorter_finish_dispatch(dispatch_recorder *recorder)
{
    if (recorder->profile)
        vkCmdWriteTimestamp(recorder->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, recorder->info->timestamps,
                            recorder->info->first_query + 1u + recorder->count);
    const bitonic_vulkan_sort_info *info = recorder->info;
    if (info->pass_details && recorder->count < info->pass_detail_capacity)
        info->pass_details[recorder->count] =
            (bitonic_pass_detail){recorder->next_name ? recorder->next_name : "pass", recorder->next_bytes};
    recorder->next_name = NULL;
    recorder->next_bytes = 0;
    ++recorder->count;
}

void sorter_record_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                            uint32_t constants_size, uint32_t groups_x, uint32_t groups_y)
{
    prepare_dispatch(recorder, pipeline, constants, constants_size);
    vkCmdDispatch(recorder->command_buffer, groups_x, groups_y, 1);
    sorter_finish_dispatch(recorder);
}

/* A dispatch whose size the GPU wrote at buffer + offset (the partition's fallback). */
void sorter_record_dispatch_indirect(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                                     uint32_t constants_size, VkBuffer buffer, VkDeviceSize offset)
{
    prepare_dispatch(recorder, pipeline, constants, constants_size);
    vkCmdDispatchIndirect(recorder->command_buffer, buffer, offset);
    sorter_finish_dispatch(recorder);
}

void sorter_record_sized_dispatch(dispatch_recorder *recorder, VkPipeline pipeline,
                                  const pass_push_constants *constants, dispatch_size size)
{
    if (size.indirect != VK_NULL_HANDLE)
        sorter_record_dispatch_indirect(recorder, pipeline, constants, sizeof *constants, size.indirect, size.offset);
    else
        sorter_record_dispatch(recorder, pipeline, constants, sizeof *constants, size.x, size.y);
}

/* After the scatter: its workgroup 0's writes are read as dispatch sizes too. */
void sorter_record_indirect_barrier(VkCommandBuffer command_buffer)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                                VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
    vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &barrier, 0,
                         NULL, 0, NULL);
}

/* Pushes every binding of the sort pipelines (shaders/network.glsl,
 * merge_pass.comp): the sides, their 16-byte views, the GPU-side count and the
 * merge splits; the values bindings only with values. */
void sorter_push_sort_bindings(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                               const sorter_variant *variant, bool with_values, sort_sides sides,
                               VkDescriptorBufferInfo count_binding, VkDescriptorBufferInfo splits)
{
    VkDescriptorBufferInfo buffers[MAX_SORT_BINDINGS] = {
        [KEYS_BINDING] = sides.keys_in,          [VALUES_BINDING] = sides.values_in,
        [COUNT_BINDING] = count_binding,         [KEYS_OUT_BINDING] = sides.keys_out,
        [VALUES_OUT_BINDING] = sides.values_out, [SPLITS_BINDING] = splits,
        [KEYS_VECTOR_BINDING] = sides.keys_in,   [KEYS_OUT_VECTOR_BINDING] = sides.keys_out,
        [VALUES_VECTOR_BINDING] = sides.values_in, [VALUES_OUT_VECTOR_BINDING] = sides.values_out,
    };
    VkWriteDescriptorSet writes[MAX_SORT_BINDINGS];
    uint32_t write_count = 0;
    for (uint32_t b = 0; b < MAX_SORT_BINDINGS; ++b)
        if (with_values || !is_values_binding(b))
            writes[write_count++] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = b, .descriptorCount = 1,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &buffers[b]};
    sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, variant->pipeline_layout, 0,
                                write_count, writes);
}
