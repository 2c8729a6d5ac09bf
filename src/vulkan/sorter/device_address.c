/* device_address.c: the merge sort through device addresses, for arrays past
 * the largest binding (maxStorageBufferRange) or where a test forces it: the
 * variants KEYS32_WIDE .. with the direct merge, and the recording that tells
 * each pass where its sides lie in push constants instead of bindings. */
#include "sorter_internal.h"

/* The largest count of 32-bit keys that device addresses reach: as many as the
 * largest device-local heap holds with their scratch copy (4 + 4 bytes a key),
 * never fewer than bound buffers take. Addressing itself (64-bit positions)
 * goes much further; memory is what ends a sort first. */
static uint64_t device_address_max_keys(VkPhysicalDevice physical_device, uint64_t bound_max_keys)
{
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical_device, &memory);
    VkDeviceSize largest = 0;
    for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
        if ((memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && memory.memoryHeaps[h].size > largest)
            largest = memory.memoryHeaps[h].size;
    uint64_t keys = largest / (2u * sizeof(uint32_t));
    return keys > bound_max_keys ? keys : bound_max_keys;
}

/* The device-address variants (KEYS32_WIDE ..), with the tuning of their bound
 * counterparts, when the device was made with bufferDeviceAddress and
 * shaderInt64 (the kernels' positions are 64-bit). Without them nothing
 * changes: max_keys stays what one binding covers. */
VkResult sorter_create_wide_variants(bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                                     bool eager)
{
    if (!desc->enable_device_addresses || !desc->enable_64bit_keys)
        return VK_SUCCESS;
    sorter->get_buffer_address =
        (PFN_vkGetBufferDeviceAddress)vkGetDeviceProcAddr(desc->device, "vkGetBufferDeviceAddress");
    if (!sorter->get_buffer_address)
        sorter->get_buffer_address =
            (PFN_vkGetBufferDeviceAddress)vkGetDeviceProcAddr(desc->device, "vkGetBufferDeviceAddressKHR");
    if (!sorter->get_buffer_address)
        return VK_SUCCESS;
    VkResult result = VK_SUCCESS;
    for (int bound = KEYS32; bound <= PAIRS64 && result == VK_SUCCESS; ++bound) {
        const sorter_variant *base = &sorter->variants[bound];
        sorter_variant *variant = &sorter->variants[wide_variant_index(base->key64, base->with_values)];
        /* Tiles sorted by the network (an override) have no wide build. */
        if (!base->available || !base->tuning.tile_merge_sort)
            continue;
        variant->tuning = base->tuning;
        /* The merge without shared memory: the shared-memory merge built with
         * device addresses gave wrong keys on the H100 wherever a merge met a
         * partial last tile, hung there when it searched its own splits, and
         * went wrong on lavapipe with 16-byte loads after a split pass, while
         * the direct merge sorted every case right on both (2026-11-23,
         * docs/API.md, "Sizes"). */
        variant->tuning.merge_direct = true;
        /* Split searches that guess from key values, built with 64-bit
         * positions, gave wrong splits on the H100 at every size (while
         * lavapipe sorted every case right, and the bound build passed on
         * both; docs/perf-log.md, entry 41): the wide path searches by
         * plain rounds, whatever was asked. */
        variant->tuning.merge_split_guided_min_chunks = UINT32_MAX;
        bitonic_kernel_form form = {.with_values = base->with_values, .key64 = base->key64,
                                    .pairs_as_int64 = base->pairs_as_int64};
        result = sorter_create_variant(sorter, desc->pipeline_cache, form, true, variant);
        if (result == VK_SUCCESS && eager)
            result = sorter_create_variant_pipelines(sorter, variant);
        variant->available = result == VK_SUCCESS;
    }
    if (result == VK_SUCCESS) {
        sorter->device_addresses = true;
        sorter->max_keys = device_address_max_keys(desc->physical_device, sorter->bound_max_keys);
    }
    return result;
}

static VkDeviceAddress buffer_address(const bitonic_vulkan_sorter *sorter, VkBuffer buffer, VkDeviceSize offset)
{
    if (buffer == VK_NULL_HANDLE)
        return 0;
    VkBufferDeviceAddressInfo address_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                              .buffer = buffer};
    return sorter->get_buffer_address(sorter->device, &address_info) + offset;
}

/* Records a sort planned with device addresses (plan->wide): the tile sort and
 * the merges of bitonic_vulkan_record_sort(), with the same sides (0: the
 * caller's keys and values, 1: their copies in scratch) and timestamps, but
 * each pass is told where its sides lie in its push constants, so no binding
 * limits the sizes. Only the GPU-side count is bound. */
bitonic_status sorter_record_wide_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                       const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!sorter_plan_grids(sorter, plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;
    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    if (plan->pass_count > 0) {
        bool indirect = info->count_buffer != VK_NULL_HANDLE;
        VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                                .offset = indirect ? 0 : info->keys_offset,
                                                .range = indirect ? VK_WHOLE_SIZE : 4u};
        VkWriteDescriptorSet count_write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstBinding = COUNT_BINDING, .descriptorCount = 1,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .pBufferInfo = &count_binding};
        sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, variant->pipeline_layout, 0, 1,
                                    &count_write);
        VkDeviceAddress side_keys[2], side_values[2], splits = 0;
        side_keys[0] = side_keys[1] = buffer_address(sorter, info->keys, info->keys_offset);
        side_values[0] = side_values[1] = buffer_address(sorter, info->values, info->values_offset);
        if (plan->merge) {
            side_keys[1] = buffer_address(sorter, info->scratch, info->scratch_offset);
            if (info->values != VK_NULL_HANDLE)
                side_values[1] = side_keys[1] + plan->scratch_values_at;
            if (plan->split_pass)
                splits = side_keys[1] + plan->scratch_splits_at;
        }
        uint32_t merge_count = plan->merge ? plan->pass_count - 1u : 0u;
        uint32_t read_side = 0, write_side = merge_count % 2u;
        dispatch_recorder recorder = sorter_dispatch_recorder_for(command_buffer, variant, info);
        for (uint32_t p = 0; p < plan->pass_count; ++p) {
            const bitonic_pass *pass = &plan->passes[p];
            if (pass->kind == BITONIC_PASS_MERGE) {
                read_side = write_side;
                write_side = 1u - read_side;
            }
            wide_push_constants constants = {
                .pass = {.count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
                         .last_phase = pass->last_phase, .group_count = pass->group_count,
                         .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                         .key_type = (uint32_t)info->key_type,
                         .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
                         .output_buffer = pass->kind == BITONIC_PASS_TILE && write_side != 0u ? 1u : 0u},
                .count_high = (uint32_t)(info->count >> 32),
                .keys_address = side_keys[read_side], .values_address = side_values[read_side],
                .keys_out_address = side_keys[write_side], .values_out_address = side_values[write_side],
                .splits_address = splits,
            };
            if (pass->kind == BITONIC_PASS_MERGE) {
                constants.pass.group_count = plan->chunk_count;
                if (plan->split_pass) {
                    sorter_name_pass(&recorder, "merge split", 0u);
                    sorter_record_dispatch(&recorder,
                                           sorter_split_pipeline(variant, plan),
                                           &constants, sizeof constants, split_x, split_y);
                    sorter_record_pass_barrier(command_buffer);
                    constants.pass.splits_given = 1u;
                }
            }
            VkPipeline pipeline =
                pass->kind == BITONIC_PASS_TILE ? sorter_tile_pipeline_for(variant, pass) : variant->merge_pipeline;
            sorter_name_pass(&recorder, pass->kind == BITONIC_PASS_TILE ? "tile sort" : "merge",
                             sorter_bytes_moved(info->count, plan->key_bytes, info->values != VK_NULL_HANDLE));
            sorter_record_dispatch(&recorder, pipeline, &constants, sizeof constants, group_x[p], group_y[p]);
            if (p + 1 < plan->pass_count)
                sorter_record_pass_barrier(command_buffer);
        }
    }
    if (timed && !(info->profile_passes && plan->pass_count > 0))
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}
