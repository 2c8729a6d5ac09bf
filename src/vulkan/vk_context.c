/* vk_context.c: the Vulkan host layer behind bitonic.h, and the lifetime of its
 * context: what the description and environment settle at creation, the census
 * that lets the default selection defer the instance, the logical device,
 * queue, sorter and pipeline cache (made with the context or on first use),
 * their release, what the context reports, and its one command buffer. The
 * rest of the layer: vk_devices.c, vk_memory.c, vk_host_sort.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_census.h"
#include "settings.h"
#include "vk_host_internal.h"

/* Sorts past the storage-buffer binding go through buffer device addresses
 * where the device has them; BITONIC_DEVICE_ADDRESSES=0 keeps the binding's
 * limit (docs/API.md, "Sizes"). */
static bool switch_is_off(bitonic_setting setting)
{
    bitonic_setting_value value;
    return bitonic_setting_read(setting, &value) && value.given && value.number == 0;
}

static bool device_addresses_wanted(void)
{
    return !switch_is_off(BITONIC_SETTING_DEVICE_ADDRESSES);
}

static bitonic_status create_device(bitonic_vk_context *vk, const bitonic_context_desc *desc)
{
    uint32_t timestamp_bits = 0;
    bitonic_vk_find_compute_queue(vk->physical_device, &vk->queue_family, &timestamp_bits);
    vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
    vkGetPhysicalDeviceMemoryProperties(vk->physical_device, &vk->memory);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = vk->queue_family, .queueCount = 1,
                                          .pQueuePriorities = &priority};
    const char *extensions[3] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    uint32_t extension_count = 1;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
        .pipelineExecutableInfo = VK_TRUE};
    VkPhysicalDeviceFeatures supported;
    vkGetPhysicalDeviceFeatures(vk->physical_device, &supported);
    VkPhysicalDeviceFeatures enabled = {.shaderInt64 = supported.shaderInt64};
    /* Device addresses take sorts past maxStorageBufferRange (sorter/device_address.c); the
     * kernels that use them count in 64 bits, so they need shaderInt64 too. */
    VkPhysicalDeviceBufferDeviceAddressFeatures address_features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
    if (vk->properties.apiVersion >= VK_API_VERSION_1_2 && supported.shaderInt64) {
        VkPhysicalDeviceFeatures2 features2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                               .pNext = &address_features};
        vkGetPhysicalDeviceFeatures2(vk->physical_device, &features2);
    }
    vk->device_addresses = address_features.bufferDeviceAddress == VK_TRUE;
    address_features = (VkPhysicalDeviceBufferDeviceAddressFeatures){
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES,
        .bufferDeviceAddress = VK_TRUE};
    bool statistics = desc->capture_pipeline_statistics &&
                      bitonic_vk_has_device_extension(vk->physical_device, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (statistics)
        extensions[extension_count++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    /* Host sorts import the caller's arrays where the device can
     * (vk_transfer.c); BITONIC_HOST_IMPORT=0 stages them instead. */
    VkDeviceSize import_alignment = 0;
    bool import = vk->import_wanted && bitonic_vk_import_supported(vk->physical_device, &import_alignment);
    if (import)
        extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    address_features.pNext = statistics ? &executable_features : NULL;
    void *features_chain = vk->device_addresses ? (void *)&address_features : address_features.pNext;
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                      .pNext = features_chain,
                                      .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue_info,
                                      .enabledExtensionCount = extension_count,
                                      .ppEnabledExtensionNames = extensions, .pEnabledFeatures = &enabled};
    VK_TRY_MAKE(vk, vkCreateDevice(vk->physical_device, &device_info, vk->allocator, &vk->device), vk->device);
    vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    bitonic_vk_importer_init(vk->device, vk->allocator, vk->physical_device, import, &vk->importer);

    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                         .queueFamilyIndex = vk->queue_family};
    VK_TRY_MAKE(vk, vkCreateCommandPool(vk->device, &pool_info, vk->allocator, &vk->command_pool), vk->command_pool);
    VkCommandBufferAllocateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                               .commandPool = vk->command_pool,
                                               .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VK_TRY_MAKE(vk, vkAllocateCommandBuffers(vk->device, &buffer_info, &vk->command_buffer), vk->command_buffer);
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY_MAKE(vk, vkCreateFence(vk->device, &fence_info, vk->allocator, &vk->fence), vk->fence);
    if (timestamp_bits > 0 && vk->properties.limits.timestampPeriod > 0.0f) {
        VkQueryPoolCreateInfo query_info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                            .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = ALL_QUERIES};
        VK_TRY_MAKE(vk, vkCreateQueryPool(vk->device, &query_info, vk->allocator, &vk->query_pool), vk->query_pool);
    }
    bitonic_vk_pipeline_cache_open(vk->device, vk->allocator, &vk->host_memory, &vk->properties, desc,
                                   &vk->pipeline_cache);
    bitonic_vulkan_sorter_desc sorter_desc = {.next = &vk->tuning_overrides,
                                              .instance = vk->instance, .physical_device = vk->physical_device,
                                              .device = vk->device, .allocator = vk->allocator,
                                              .pipeline_cache = vk->pipeline_cache.cache,
                                              .lazy_pipelines = true,
                                              .capture_pipeline_statistics = statistics,
                                              .enable_64bit_keys = supported.shaderInt64 == VK_TRUE,
                                              .enable_device_addresses = vk->device_addresses &&
                                                                         (vk->tuning_overrides.force_device_addresses ||
                                                                          device_addresses_wanted()),
                                              .strategy = desc->strategy};
    return bitonic_vulkan_sorter_create(&sorter_desc, &vk->sorter);
}

static void release_device(bitonic_vk_context *vk);

/* The logical device, queue, sorter and pipeline cache, made now if they were
 * deferred; a failure is kept and returned again on every later call. */
bitonic_status bitonic_vk_ensure_device(bitonic_vk_context *vk)
{
    if (vk->sorter)
        return BITONIC_SUCCESS;
    if (vk->device_status != BITONIC_SUCCESS)
        return vk->device_status;
    double start = wall_ms();
    bitonic_status status = BITONIC_SUCCESS;
    if (vk->instance_deferred && !vk->instance) {
        status = bitonic_vk_find_default_device(vk);
        if (status != BITONIC_SUCCESS) {
            vk->device_create_ms = wall_ms() - start;
            vk->device_status = status;
            return status;
        }
    }
    status = create_device(vk, &vk->desc);
    /* The instance counts too: a process that skips it (census) would pay it here. */
    vk->device_create_ms = vk->instance_ms + (wall_ms() - start);
    if (status != BITONIC_SUCCESS) {
        release_device(vk);
        vk->device_status = status;
    }
    return status;
}

bitonic_status bitonic_vk_context_create(const bitonic_context_desc *desc, const bitonic_selector *selector,
                                         bitonic_vk_context **out)
{
    *out = NULL;
    if ((unsigned)desc->strategy > (unsigned)BITONIC_STRATEGY_TRANSPOSE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_host_memory memory;
    if (!bitonic_host_memory_from_chain(desc->next, &memory))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_vk_context *vk = bitonic_host_memory_calloc(&memory, 1, sizeof *vk);
    if (!vk)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    /* The callbacks are copied: the caller's struct need not outlive the call. */
    vk->host_memory = memory;
    if (memory.vulkan) {
        vk->vulkan_callbacks = *memory.vulkan;
        vk->allocator = &vk->vulkan_callbacks;
    }
    vk->host_memory.vulkan = vk->allocator;
    /* What the description and the environment say is settled now, not when
     * the device is made: the caller's strings and environment may change. */
    vk->desc = *desc;
    vk->desc.device = NULL;
    vk->tuning_overrides = *bitonic_tuning_overrides_find(desc->next);
    vk->tuning_overrides.next = NULL;
    vk->desc.next = NULL;
    if (bitonic_cache_directory(desc, vk->cache_directory, sizeof vk->cache_directory))
        vk->desc.cache_directory = vk->cache_directory;
    else
        vk->desc.no_disk_cache = true;
    /* Parsed by settings.c; bitonic_context_create has refused malformed ones. */
    vk->import_wanted = !switch_is_off(BITONIC_SETTING_HOST_IMPORT);
    bitonic_setting_value chunk_bytes, import_min;
    bool chunk_given = bitonic_setting_read(BITONIC_SETTING_HOST_CHUNK_BYTES, &chunk_bytes) && chunk_bytes.given;
    vk->host_chunk_bytes = chunk_given ? (size_t)chunk_bytes.number : HOST_CHUNK_MIN_BYTES;
    vk->chunk_sort_wanted = !switch_is_off(BITONIC_SETTING_HOST_CHUNK_SORT);
    vk->import_min_given = bitonic_setting_read(BITONIC_SETTING_IMPORT_MIN_BYTES, &import_min) && import_min.given;
    vk->import_min_bytes = vk->import_min_given ? (size_t)import_min.number : 0;
    vk->on_message = desc->on_validation_message;
    vk->message_user_data = desc->message_user_data;
    /* The default selection asks the census first: "no GPU" ends here, and a
     * named GPU leaves the instance to first use. Not with validation (the
     * tests ask for the layer and its messages from the start). */
    bool census = selector->kind == BITONIC_SELECT_AUTO && !desc->validation &&
                  bitonic_vk_census_path(vk->desc.no_disk_cache ? NULL : vk->cache_directory, vk->census_path,
                                         sizeof vk->census_path);
    bitonic_vk_census known;
    if (census && bitonic_vk_census_read(vk->census_path, &known)) {
        if (!known.found) {
            bitonic_vk_context_destroy(vk);
            return BITONIC_ERROR_DEVICE_NOT_FOUND;
        }
        vk->instance_deferred = true;
        vk->properties.vendorID = known.vendor_id;
        vk->properties.deviceID = known.device_id;
        vk->properties.driverVersion = known.driver_version;
        snprintf(vk->properties.deviceName, sizeof vk->properties.deviceName, "%s", known.device_name);
        *out = vk;
        return BITONIC_SUCCESS;
    }
    double start = wall_ms();
    bitonic_status status = bitonic_vk_create_instance(vk, desc->validation);
    if (status == BITONIC_SUCCESS)
        status = bitonic_vk_choose_device(vk, selector);
    if (status == BITONIC_SUCCESS)
        vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
    vk->instance_ms = wall_ms() - start;
    if (census && (status == BITONIC_SUCCESS || status == BITONIC_ERROR_DEVICE_NOT_FOUND))
        bitonic_vk_write_census(vk, status == BITONIC_SUCCESS);
    /* A device the caller named by index or name is made now, so its errors
     * come from here. The default selection (whose host sorts may all go to
     * the CPU path) and "vulkan" (the tests' default, which so cover this)
     * make it on first use. */
    if (status == BITONIC_SUCCESS && selector->kind != BITONIC_SELECT_AUTO &&
        selector->kind != BITONIC_SELECT_ANY_VULKAN)
        status = bitonic_vk_ensure_device(vk);
    if (status != BITONIC_SUCCESS) {
        bitonic_vk_context_destroy(vk);
        return status;
    }
    *out = vk;
    return BITONIC_SUCCESS;
}

/* Everything made on the logical device, and the device. */
static void release_device(bitonic_vk_context *vk)
{
    if (!vk->device)
        return;
    vkDeviceWaitIdle(vk->device);
    bitonic_vulkan_sorter_destroy(vk->sorter);
    vk->sorter = NULL;
    bitonic_vk_pipeline_cache_save(vk->device, &vk->properties, &vk->pipeline_cache);
    bitonic_vk_pipeline_cache_close(vk->device, &vk->pipeline_cache);
    bitonic_vk_release_scratch(vk);
    for (size_t b = 0; b < vk->pinned_count; ++b) {  /* blocks the caller did not free */
        vkDestroyBuffer(vk->device, vk->pinned[b].buffer, vk->allocator);
        vkFreeMemory(vk->device, vk->pinned[b].memory, vk->allocator);
    }
    bitonic_host_memory_free(&vk->host_memory, vk->pinned);
    vk->pinned = NULL;
    vk->pinned_count = vk->pinned_capacity = 0;
    vkDestroyQueryPool(vk->device, vk->query_pool, vk->allocator);
    vkDestroyFence(vk->device, vk->fence, vk->allocator);
    for (uint32_t c = 0; c < MAX_HOST_CHUNKS; ++c)
        vkDestroyFence(vk->device, vk->chunk_fences[c], vk->allocator);
    memset(vk->chunk_fences, 0, sizeof vk->chunk_fences);
    memset(vk->chunk_commands, 0, sizeof vk->chunk_commands);  /* freed with the pool */
    vk->chunk_objects_made = false;
    vkDestroyCommandPool(vk->device, vk->command_pool, vk->allocator);
    vkDestroyDevice(vk->device, vk->allocator);
    vk->query_pool = VK_NULL_HANDLE;
    vk->fence = VK_NULL_HANDLE;
    vk->command_pool = VK_NULL_HANDLE;
    vk->command_buffer = VK_NULL_HANDLE;
    vk->device = VK_NULL_HANDLE;
}

void bitonic_vk_context_destroy(bitonic_vk_context *vk)
{
    if (!vk)
        return;
    release_device(vk);
    if (vk->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger)
            destroy_messenger(vk->instance, vk->messenger, vk->allocator);
    }
    if (vk->instance)
        vkDestroyInstance(vk->instance, vk->allocator);
    bitonic_host_memory memory = vk->host_memory;
    bitonic_host_memory_free(&memory, vk);
}

bitonic_status bitonic_vk_context_pipeline_report(const bitonic_vk_context *vk, char *text, size_t capacity)
{
    /* The context is the caller's, not const: asking about it may make the device. */
    bitonic_status status = bitonic_vk_ensure_device((bitonic_vk_context *)vk);
    return status == BITONIC_SUCCESS ? bitonic_vulkan_sorter_pipeline_report(vk->sorter, text, capacity) : status;
}

void bitonic_vk_context_fill_info(const bitonic_vk_context *vk, bitonic_context_info *info)
{
    /* The sizes come from the sorter, so the info makes a deferred device
     * (and a deferred instance, whose properties it reports). */
    bitonic_status status = bitonic_vk_ensure_device((bitonic_vk_context *)vk);
    snprintf(info->device_name, sizeof info->device_name, "%s", vk->properties.deviceName);
    info->vulkan_device_index = vk->device_index;
    info->vulkan_api_version = vk->properties.apiVersion;
    info->vulkan_device_type = (uint32_t)vk->properties.deviceType;
    if (status != BITONIC_SUCCESS) {
        info->last_vk_result = vk->last_result;
        return;
    }
    bitonic_vulkan_sorter_info sorter_info;
    bitonic_vulkan_sorter_get_info(vk->sorter, &sorter_info);
    info->subgroup_size = sorter_info.subgroup_size;
    info->workgroup_size = sorter_info.workgroup_size;
    info->keys_per_thread = sorter_info.keys_per_thread;
    info->tile_keys = sorter_info.tile_keys;
    info->max_strides_per_global_pass = sorter_info.max_strides_per_global_pass;
    info->max_keys = sorter_info.max_keys;
    info->bound_max_keys = sorter_info.bound_max_keys;
    info->device_addresses = sorter_info.device_addresses;
    info->tile_uses_subgroup_shuffle = sorter_info.tile_uses_subgroup_shuffle;
    info->tile_sort_keys_per_thread = sorter_info.tile_sort_keys_per_thread;
    info->timestamp_period_ns = vk->query_pool ? vk->properties.limits.timestampPeriod : 0.0;
    info->validation_messages = vk->validation_messages;
    info->last_vk_result = vk->last_result;
    snprintf(info->pipeline_cache_path, sizeof info->pipeline_cache_path, "%s", vk->pipeline_cache.path);
    info->pipeline_cache_loaded_bytes = vk->pipeline_cache.loaded_bytes;
}

bool bitonic_vk_context_device_ready(const bitonic_vk_context *vk)
{
    return vk->sorter != NULL;
}

bitonic_status bitonic_vk_context_make_device(bitonic_vk_context *vk)
{
    return bitonic_vk_ensure_device(vk);
}

double bitonic_vk_context_device_create_ms(const bitonic_vk_context *vk)
{
    return vk->device_create_ms;
}

void bitonic_vk_context_device_key(const bitonic_vk_context *vk, char *out, size_t capacity)
{
    snprintf(out, capacity, "%04x-%04x-%08x", vk->properties.vendorID, vk->properties.deviceID,
             vk->properties.driverVersion);
}

bitonic_status bitonic_vk_begin_commands(bitonic_vk_context *vk)
{
    VK_TRY(vk, vkResetCommandBuffer(vk->command_buffer, 0));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(vk, vkBeginCommandBuffer(vk->command_buffer, &begin));
    /* Order this submission's transfers and sorts after the previous one's: a
     * fence wait alone does not make device writes visible to later commands. */
    record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT |
                              VK_ACCESS_SHADER_WRITE_BIT);
    return BITONIC_SUCCESS;
}

bitonic_status bitonic_vk_submit_and_wait(bitonic_vk_context *vk)
{
    VK_TRY(vk, vkEndCommandBuffer(vk->command_buffer));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &vk->command_buffer};
    VK_TRY(vk, vkResetFences(vk->device, 1, &vk->fence));
    VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &submit, vk->fence));
    VK_TRY(vk, vkWaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX));
    return BITONIC_SUCCESS;
}
