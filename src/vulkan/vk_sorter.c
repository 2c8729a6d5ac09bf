/* vk_sorter.c: the Vulkan sorter's lifetime and public entry points. Creates
 * the variants and their pipelines for one device (sizes from tuning.c,
 * overridden by the description in overrides.c) and destroys them; the sort's
 * entry points plan it (sorter/plan.c) and hand it to its strategy's file in
 * sorter/. Descriptors are pushed (VK_KHR_push_descriptor), so recording
 * allocates nothing and any buffer of the caller's can be sorted without
 * registering it first. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sorter/sorter_internal.h"

bitonic_status bitonic_status_from_vk(VkResult result)
{
    switch (result) {
    case VK_SUCCESS: return BITONIC_SUCCESS;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return BITONIC_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return BITONIC_ERROR_DEVICE_LOST;
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_INCOMPATIBLE_DRIVER: return BITONIC_ERROR_VULKAN_UNAVAILABLE;
    case VK_ERROR_LAYER_NOT_PRESENT: return BITONIC_ERROR_VALIDATION_LAYER_MISSING;
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT: return BITONIC_ERROR_UNSUPPORTED;
    default: return BITONIC_ERROR_VULKAN;
    }
}

bool bitonic_vk_has_device_extension(VkPhysicalDevice physical_device, const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, NULL) != VK_SUCCESS || count == 0)
        return false;
    VkExtensionProperties *extensions = malloc(count * sizeof *extensions);
    bool found = false;
    if (extensions && vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, extensions) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i)
            found = strcmp(extensions[i].extensionName, name) == 0;
    free(extensions);
    return found;
}

void bitonic_vk_read_limits(VkPhysicalDevice physical_device, bitonic_device_limits *out_limits,
                            uint64_t *out_max_storage_range)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                              .pNext = &subgroup};
    /* The multiprocessors, where an extension tells them (each structure
     * chained only where the device has its extension, as the spec asks):
     * the partition's steps launch a workgroup each (tuning.c). */
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nvidia = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceShaderCorePropertiesAMD amd = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
    VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
    bool has_nvidia = bitonic_vk_has_device_extension(physical_device, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    bool has_amd = bitonic_vk_has_device_extension(physical_device, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
    bool has_arm = bitonic_vk_has_device_extension(physical_device, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
    if (has_nvidia) {
        nvidia.pNext = properties.pNext;
        properties.pNext = &nvidia;
    }
    if (has_amd) {
        amd.pNext = properties.pNext;
        properties.pNext = &amd;
    }
    if (has_arm) {
        arm.pNext = properties.pNext;
        properties.pNext = &arm;
    }
    vkGetPhysicalDeviceProperties2(physical_device, &properties);
    out_limits->multiprocessors =
        has_nvidia ? nvidia.shaderSMCount
        : has_amd  ? amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray
        : has_arm  ? arm.shaderCoreCount
                   : 0u;
    const VkPhysicalDeviceLimits *limits = &properties.properties.limits;
    out_limits->max_workgroup_invocations = limits->maxComputeWorkGroupInvocations;
    out_limits->max_workgroup_size_x = limits->maxComputeWorkGroupSize[0];
    out_limits->max_shared_memory_bytes = limits->maxComputeSharedMemorySize;
    out_limits->subgroup_size = subgroup.subgroupSize;
    out_limits->subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                   (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                   (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
    out_limits->subgroup_ballot = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                  (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                  (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
    out_limits->subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
    *out_max_storage_range = limits->maxStorageBufferRange;
}

bitonic_status bitonic_vulkan_sorter_create(const bitonic_vulkan_sorter_desc *desc,
                                            bitonic_vulkan_sorter **out_sorter)
{
    if (!out_sorter)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_sorter = NULL;
    if (!desc || desc->physical_device == VK_NULL_HANDLE || desc->device == VK_NULL_HANDLE ||
        (unsigned)desc->strategy > (unsigned)BITONIC_STRATEGY_TRANSPOSE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    const bitonic_tuning_overrides *overrides = bitonic_tuning_overrides_find(desc->next);
    bitonic_vulkan_sorter *sorter = calloc(1, sizeof *sorter);
    if (!sorter)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    sorter->device = desc->device;
    sorter->allocator = desc->allocator;
    sorter->capture_statistics = desc->capture_pipeline_statistics;
    sorter->strategy = desc->strategy;
    sorter->pipeline_cache = desc->pipeline_cache;
    bool eager = !desc->lazy_pipelines || desc->capture_pipeline_statistics;
    sorter->push_descriptor_set =
        (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(desc->device, "vkCmdPushDescriptorSetKHR");
    if (!sorter->push_descriptor_set) {
        free(sorter);
        return BITONIC_ERROR_UNSUPPORTED;
    }

    uint64_t max_storage_range;
    bitonic_vk_read_limits(desc->physical_device, &sorter->limits, &max_storage_range);
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(desc->physical_device, &properties);
    memcpy(sorter->max_group_count, properties.limits.maxComputeWorkGroupCount, sizeof sorter->max_group_count);
    sorter->storage_alignment = properties.limits.minStorageBufferOffsetAlignment;
    if (sorter->storage_alignment == 0)
        sorter->storage_alignment = 1;
    /* One binding covers the keys; group and key indices are 32-bit in the shaders. */
    sorter->bound_max_keys = max_storage_range / sizeof(uint32_t);
    if (sorter->bound_max_keys > ((uint64_t)1 << 31))
        sorter->bound_max_keys = (uint64_t)1 << 31;
    sorter->max_keys = sorter->bound_max_keys;
    sorter->force_device_addresses = overrides->force_device_addresses;

    /* The tuning of every variant, the overrides over what the device's
     * limits give (overrides.c), before any variant is made. */
    if (!sorter_derive_tuning(sorter, desc, overrides)) {
        bitonic_vulkan_sorter_destroy(sorter);
        return BITONIC_ERROR_UNSUPPORTED;
    }
    VkResult result = VK_SUCCESS;
    for (int variant = 0; variant < KEYS32_SMALL && result == VK_SUCCESS; ++variant) {
        bool key64 = variant >= KEYS64, with_values = variant == PAIRS32 || variant == PAIRS64;
        if (key64 && !desc->enable_64bit_keys)
            continue;
        /* Pairs of 32-bit keys compare as one 64-bit integer where the device has shaderInt64. */
        bitonic_kernel_form form = {.with_values = with_values, .key64 = key64,
                                    .pairs_as_int64 = with_values && !key64 && desc->enable_64bit_keys};
        result = sorter_create_variant(sorter, desc->pipeline_cache, form, false, &sorter->variants[variant]);
        if (result == VK_SUCCESS && eager)
            result = sorter_create_variant_pipelines(sorter, &sorter->variants[variant]);
        sorter->variants[variant].available = result == VK_SUCCESS;
    }
    if (result == VK_SUCCESS)
        result = sorter_create_wide_variants(sorter, desc, eager);
    if (result == VK_SUCCESS && sorter->small_sort_max_keys != 0) {
        result = sorter_create_variant(sorter, desc->pipeline_cache, (bitonic_kernel_form){0}, false,
                                       &sorter->variants[KEYS32_SMALL]);
        if (result == VK_SUCCESS && eager)
            result = sorter_create_variant_pipelines(sorter, &sorter->variants[KEYS32_SMALL]);
        sorter->variants[KEYS32_SMALL].available = result == VK_SUCCESS;
        if (result != VK_SUCCESS)
            sorter->small_sort_max_keys = 0;
    }
    sorter->pack_pairs = result == VK_SUCCESS && !overrides->partition_split_pairs && sorter_pairs_pack_fits(sorter);
    for (uint32_t three_pieces = 0; sorter->pack_pairs && eager && three_pieces < 2u && result == VK_SUCCESS;
         ++three_pieces)
        result = sorter_ensure_pipeline(sorter, &sorter->variants[PAIRS32], PIPELINE_WINDOW_UNPACK, three_pieces);
    if (result == VK_SUCCESS)
        result = sorter_create_search_pipeline(sorter, desc->pipeline_cache);
    if (result == VK_SUCCESS && eager)
        result = sorter_ensure_search_pipeline(sorter, false);
    if (result == VK_SUCCESS && eager && sorter->variants[KEYS64].available)
        result = sorter_ensure_search_pipeline(sorter, true);
    if (result != VK_SUCCESS) {
        bitonic_vulkan_sorter_destroy(sorter);
        return bitonic_status_from_vk(result);
    }
    *out_sorter = sorter;
    return BITONIC_SUCCESS;
}

void bitonic_vulkan_sorter_destroy(bitonic_vulkan_sorter *sorter)
{
    if (!sorter)
        return;
    vkDestroyPipeline(sorter->device, sorter->search_pipeline, sorter->allocator);
    vkDestroyPipeline(sorter->device, sorter->search_pipeline64, sorter->allocator);
    vkDestroyPipelineLayout(sorter->device, sorter->search_pipeline_layout, sorter->allocator);
    vkDestroyDescriptorSetLayout(sorter->device, sorter->search_set_layout, sorter->allocator);
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        sorter_variant *variant = &sorter->variants[v];
        for (uint32_t steps = 0; steps <= BITONIC_MAX_STEP_GROUP_LOG; ++steps)
            vkDestroyPipeline(sorter->device, variant->global_pipelines[steps], sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_sort_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->short_tile_sort_pipeline, sorter->allocator);
        for (uint32_t w = 0; w < NESTED_WINDOW_LOGS; ++w)
            vkDestroyPipeline(sorter->device, variant->nested_tile_sort_pipelines[w], sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_sort_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->short_tile_sort_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_direct_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_binary_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_guided_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->transpose_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->partition_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->partition_half_scatter_pipeline, sorter->allocator);
        for (int i = 0; i < 2; ++i) {
            vkDestroyPipeline(sorter->device, variant->window_merge_pipeline[i], sorter->allocator);
            vkDestroyPipeline(sorter->device, variant->window_split_pipeline[i], sorter->allocator);
            vkDestroyPipeline(sorter->device, variant->window_unpack_pipeline[i], sorter->allocator);
        }
        vkDestroyPipelineLayout(sorter->device, variant->pipeline_layout, sorter->allocator);
        vkDestroyDescriptorSetLayout(sorter->device, variant->set_layout, sorter->allocator);
    }
    free(sorter);
}

void bitonic_vulkan_sorter_get_info(const bitonic_vulkan_sorter *sorter, bitonic_vulkan_sorter_info *out_info)
{
    const bitonic_tuning *tuning = &sorter->variants[KEYS32].tuning;
    out_info->subgroup_size = sorter->limits.subgroup_size;
    out_info->workgroup_size = tuning->tile_workgroup_size;
    out_info->keys_per_thread = 1u << tuning->tile_register_log;
    out_info->tile_keys = 1u << tuning->tile_log;
    out_info->max_strides_per_global_pass = tuning->max_global_steps;
    out_info->max_keys = sorter->max_keys;
    out_info->bound_max_keys = sorter->bound_max_keys;
    out_info->device_addresses = sorter->device_addresses;
    out_info->tile_uses_subgroup_shuffle = tuning->tile_uses_shuffle;
    out_info->tile_sort_keys_per_thread = tuning->tile_merge_sort ? 1u << tuning->tile_sort_register_log : 0u;
    out_info->merge_chunk_keys = 1u << tuning->merge_chunk_log;
    bool small = sorter->small_sort_max_keys != 0 && sorter->variants[KEYS32_SMALL].available;
    out_info->small_sort_tile_keys = small ? 1u << sorter->variants[KEYS32_SMALL].tuning.tile_log : 0u;
    out_info->small_sort_max_keys = small ? sorter->small_sort_max_keys : 0u;
}

VkDeviceSize bitonic_vulkan_sort_scratch_bytes(const bitonic_vulkan_sorter *sorter,
                                               const bitonic_vulkan_sort_info *info)
{
    sort_plan plan;
    if (!info)
        return 0;
    /* The size does not depend on a scratch buffer being set yet. */
    bitonic_vulkan_sort_info asked = *info;
    asked.scratch = VK_NULL_HANDLE;
    asked.scratch_offset = 0;
    return sorter_plan_sort(sorter, &asked, true, &plan) == BITONIC_SUCCESS ? plan.scratch_bytes : 0;
}

uint32_t bitonic_vulkan_sort_pass_count(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info)
{
    sort_plan plan;
    return sorter_plan_sort(sorter, info, info && info->scratch != VK_NULL_HANDLE, &plan) == BITONIC_SUCCESS
               ? plan.dispatch_count
               : 0;
}

/* Whether a sort's plan merges runs above its tile with the bound kernels
 * (not the transpose, not device addresses), so that merging presorted runs
 * (bitonic_vk_record_merge_of_runs) can finish it; the tile's log2 when so. */
static bool plan_merges_runs(const bitonic_vulkan_sorter *sorter, const sort_plan *plan, uint32_t *out_tile_log)
{
    if (!plan->merge || plan->transpose || plan->wide || plan->row_log != 0)
        return false;
    *out_tile_log = sorter->variants[plan->variant_number].tuning.tile_log;
    return true;
}

bool bitonic_vk_partition_samples(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                  VkDeviceSize *out_keys_at, VkDeviceSize *out_values_at, uint32_t *out_count,
                                  uint32_t *out_runs_log)
{
    sort_plan plan;
    if (!sorter || !info || sorter_plan_sort(sorter, info, true, &plan) != BITONIC_SUCCESS || !plan.partition)
        return false;
    *out_keys_at = plan.partition_at + plan.samples_at;
    *out_values_at = plan.partition_at + plan.sample_values_at;
    *out_count = plan.sample_count;
    *out_runs_log = plan.sample_runs_log;
    return true;
}

bitonic_status bitonic_vk_merge_of_runs_tile_log(const bitonic_vulkan_sorter *sorter,
                                                 const bitonic_vulkan_sort_info *info, uint32_t *out_tile_log)
{
    sort_plan plan;
    if (!info || !out_tile_log || info->count_buffer != VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_status planned = sorter_plan_sort(sorter, info, info->scratch != VK_NULL_HANDLE, &plan);
    if (planned != BITONIC_SUCCESS)
        return planned;
    return plan_merges_runs(sorter, &plan, out_tile_log) ? BITONIC_SUCCESS : BITONIC_ERROR_UNSUPPORTED;
}

bitonic_status bitonic_vulkan_record_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                          const bitonic_vulkan_sort_info *info)
{
    return sorter_record_sort_passes(sorter, command_buffer, info, 0, true);
}

bitonic_status bitonic_vk_record_merge_of_runs(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                               const bitonic_vulkan_sort_info *info, uint32_t run_log)
{
    uint32_t tile_log;
    bitonic_status status = bitonic_vk_merge_of_runs_tile_log(sorter, info, &tile_log);
    if (status != BITONIC_SUCCESS)
        return status;
    uint32_t merges = run_log < 64 && info->count > ((uint64_t)1 << run_log)
                          ? bitonic_ceil_log2(info->count) - run_log
                          : 0;
    if (run_log < tile_log || merges == 0 || merges % 2u != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    return sorter_record_sort_passes(sorter, command_buffer, info, run_log, false);
}
