/* search.c: the range search in sorted keys (bitonic_vulkan_record_search):
 * for each query, a thread finds the lower bound of its low and the upper
 * bound of its high in the sort order; its pipelines are in pipelines.c. */
#include "sorter_internal.h"

bitonic_status bitonic_vulkan_record_search(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_search_info *info)
{
    if (!sorter || command_buffer == VK_NULL_HANDLE || !info ||
        (info->order != BITONIC_ORDER_ASCENDING && info->order != BITONIC_ORDER_DESCENDING) ||
        (unsigned)info->key_type > (unsigned)BITONIC_KEY_F64)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bool key64 = is_key64(info->key_type);
    if (key64 && !sorter->variants[KEYS64].available)
        return BITONIC_ERROR_UNSUPPORTED;
    if (info->query_count == 0)
        return BITONIC_SUCCESS;
    if (info->keys == VK_NULL_HANDLE || info->lows == VK_NULL_HANDLE || info->highs == VK_NULL_HANDLE ||
        info->first == VK_NULL_HANDLE || info->end == VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* The search binds its buffers: what one binding covers. */
    if (info->count > sorter->bound_max_keys || info->query_count > sorter->bound_max_keys)
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t workgroup = SEARCH_WORKGROUP < sorter->limits.max_workgroup_invocations
                             ? SEARCH_WORKGROUP
                             : sorter->limits.max_workgroup_invocations;
    uint32_t groups_x, groups_y;
    if (!sorter_split_groups(sorter, (info->query_count + (uint64_t)workgroup - 1u) / workgroup, &groups_x, &groups_y))
        return BITONIC_ERROR_TOO_LARGE;
    VkResult built = sorter_ensure_search_pipeline(sorter, key64);
    if (built != VK_SUCCESS)
        return bitonic_status_from_vk(built);
    /* An empty key array still needs a non-empty binding: its whole buffer. */
    VkDeviceSize key_bytes = key64 ? 8u : 4u;
    VkDeviceSize key_range = info->count ? (VkDeviceSize)info->count * key_bytes : VK_WHOLE_SIZE;
    VkDeviceSize bound_range = (VkDeviceSize)info->query_count * key_bytes;
    VkDeviceSize result_range = (VkDeviceSize)info->query_count * 4u;
    VkDescriptorBufferInfo buffers[SEARCH_BINDINGS] = {
        {info->keys, info->keys_offset, key_range},   {info->lows, info->lows_offset, bound_range},
        {info->highs, info->highs_offset, bound_range}, {info->first, info->first_offset, result_range},
        {info->end, info->end_offset, result_range},
    };
    VkWriteDescriptorSet writes[SEARCH_BINDINGS];
    for (uint32_t i = 0; i < SEARCH_BINDINGS; ++i)
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &buffers[i]};
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE,
                      key64 ? sorter->search_pipeline64 : sorter->search_pipeline);
    sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, sorter->search_pipeline_layout, 0,
                                SEARCH_BINDINGS, writes);
    search_push_constants constants = {info->count, info->query_count,
                                       info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                                       (uint32_t)info->key_type};
    vkCmdPushConstants(command_buffer, sorter->search_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       sizeof constants, &constants);
    vkCmdDispatch(command_buffer, groups_x, groups_y, 1);
    return BITONIC_SUCCESS;
}
