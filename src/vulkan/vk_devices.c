/* vk_devices.c: the Vulkan instance (with the validation layer and its
 * messenger when asked), the choice of a physical device from a selector (by
 * index, by name, or the best type that has what the sorter needs), the census
 * entry that lets the next process's default selection skip the search, and
 * bitonic_list_devices. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_census.h"
#include "vk_host_internal.h"

static VKAPI_ATTR VkBool32 VKAPI_CALL on_debug_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                       VkDebugUtilsMessageTypeFlagsEXT types,
                                                       const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                       void *user_data)
{
    bitonic_vk_context *vk = user_data;
    ++vk->validation_messages;
    if (vk->on_message)
        vk->on_message(vk->message_user_data, data && data->pMessage ? data->pMessage : "(no message text)");
    return VK_FALSE;
}

/* BITONIC_SUCCESS when the layer is installed, BITONIC_ERROR_VALIDATION_LAYER_MISSING
 * when not, BITONIC_ERROR_OUT_OF_HOST_MEMORY when the list could not be read. */
static bitonic_status find_layer(const bitonic_host_memory *memory, const char *name)
{
    uint32_t count = 0;
    VkResult result = vkEnumerateInstanceLayerProperties(&count, NULL);
    if (result != VK_SUCCESS || count == 0)
        return result == VK_ERROR_OUT_OF_HOST_MEMORY ? BITONIC_ERROR_OUT_OF_HOST_MEMORY
                                                     : BITONIC_ERROR_VALIDATION_LAYER_MISSING;
    VkLayerProperties *layers = bitonic_host_memory_alloc(memory, count * sizeof *layers);
    if (!layers)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    result = vkEnumerateInstanceLayerProperties(&count, layers);
    bool found = false;
    for (uint32_t i = 0; (result == VK_SUCCESS || result == VK_INCOMPLETE) && i < count && !found; ++i)
        found = strcmp(layers[i].layerName, name) == 0;
    bitonic_host_memory_free(memory, layers);
    if (result == VK_ERROR_OUT_OF_HOST_MEMORY)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    return found ? BITONIC_SUCCESS : BITONIC_ERROR_VALIDATION_LAYER_MISSING;
}

bitonic_status bitonic_vk_create_instance(bitonic_vk_context *vk, bool validation)
{
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS || loader_version < VK_API_VERSION_1_1)
        return BITONIC_ERROR_VULKAN_UNAVAILABLE;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "bitonic",
                             .pEngineName = "bitonic", .apiVersion = VK_API_VERSION_1_3};
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                        .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = &features,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_debug_message,
        .pUserData = vk,
    };
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (validation) {
        bitonic_status layer_found = find_layer(&vk->host_memory, layer);
        if (layer_found != BITONIC_SUCCESS)
            return layer_found;
        info.pNext = &messenger_info;  /* also catches messages from instance creation itself */
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &layer;
        info.enabledExtensionCount = 2;
        info.ppEnabledExtensionNames = extensions;
    }
    VK_TRY_MAKE(vk, vkCreateInstance(&info, vk->allocator, &vk->instance), vk->instance);
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create_messenger)
            return BITONIC_ERROR_VALIDATION_LAYER_MISSING;
        messenger_info.pNext = NULL;
        VK_TRY_MAKE(vk, create_messenger(vk->instance, &messenger_info, vk->allocator, &vk->messenger), vk->messenger);
    }
    return BITONIC_SUCCESS;
}

/* A queue family with compute, preferring one that also has timestamps. The
 * families are read into an array on the stack: devices have a handful, and a
 * search that cannot fail for want of memory cannot call a device unsuitable
 * for it. */
#define MAX_QUEUE_FAMILIES 64u

bool bitonic_vk_find_compute_queue(VkPhysicalDevice physical_device, uint32_t *out_family,
                                   uint32_t *out_timestamp_bits)
{
    VkQueueFamilyProperties families[MAX_QUEUE_FAMILIES];
    uint32_t count = MAX_QUEUE_FAMILIES;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, families);
    bool found = false;
    for (uint32_t i = 0; i < count; ++i) {
        if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
            continue;
        if (!found || (*out_timestamp_bits == 0 && families[i].timestampValidBits > 0)) {
            *out_family = i;
            *out_timestamp_bits = families[i].timestampValidBits;
            found = true;
        }
    }
    return found;
}

static bool device_suitable(VkPhysicalDevice physical_device)
{
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(physical_device, &properties);
    uint32_t family, timestamp_bits = 0;
    return properties.apiVersion >= VK_API_VERSION_1_1 &&
           bitonic_vk_find_compute_queue(physical_device, &family, &timestamp_bits) &&
           bitonic_vk_has_device_extension(physical_device, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
}

static bool name_contains(const char *name, const char *wanted)
{
    size_t wanted_length = strlen(wanted);
    for (const char *start = name; *start; ++start) {
        size_t i = 0;
        while (i < wanted_length && start[i] &&
               tolower((unsigned char)start[i]) == tolower((unsigned char)wanted[i]))
            ++i;
        if (i == wanted_length)
            return true;
    }
    return wanted_length == 0;
}

/* Lower is preferred; -1 means "never pick automatically". */
static int type_rank(VkPhysicalDeviceType type, bool cpu_allowed)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return cpu_allowed ? 3 : -1;
    default: return cpu_allowed ? 4 : -1;
    }
}

bitonic_status bitonic_vk_choose_device(bitonic_vk_context *vk, const bitonic_selector *selector)
{
    uint32_t count = 0;
    VK_TRY(vk, vkEnumeratePhysicalDevices(vk->instance, &count, NULL));
    if (count == 0)
        return BITONIC_ERROR_DEVICE_NOT_FOUND;
    VkPhysicalDevice *devices = bitonic_host_memory_alloc(&vk->host_memory, count * sizeof *devices);
    if (!devices)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    VkResult result = vkEnumeratePhysicalDevices(vk->instance, &count, devices);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        bitonic_host_memory_free(&vk->host_memory, devices);
        return fail(vk, result);
    }
    int best_rank = -1;
    uint32_t best = UINT32_MAX;
    bool matched_unsuitable = false;
    for (uint32_t i = 0; i < count; ++i) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[i], &properties);
        int rank;
        switch (selector->kind) {
        case BITONIC_SELECT_INDEX: rank = i == selector->index ? 0 : -1; break;
        case BITONIC_SELECT_NAME: rank = name_contains(properties.deviceName, selector->name) ? 0 : -1; break;
        case BITONIC_SELECT_ANY_VULKAN: rank = type_rank(properties.deviceType, true); break;
        default: rank = type_rank(properties.deviceType, false); break;
        }
        if (rank < 0 || (best_rank >= 0 && rank >= best_rank))
            continue;
        if (!device_suitable(devices[i])) {
            matched_unsuitable = true;
            continue;
        }
        best_rank = rank;
        best = i;
    }
    if (best != UINT32_MAX) {
        vk->physical_device = devices[best];
        vk->device_index = best;
    }
    bitonic_host_memory_free(&vk->host_memory, devices);
    if (best == UINT32_MAX)
        return matched_unsuitable && selector->kind != BITONIC_SELECT_AUTO ? BITONIC_ERROR_UNSUPPORTED
                                                                          : BITONIC_ERROR_DEVICE_NOT_FOUND;
    return BITONIC_SUCCESS;
}

/* The census entry for the device the default selection found (or for none). */
void bitonic_vk_write_census(const bitonic_vk_context *vk, bool found)
{
    bitonic_vk_census census = {.found = found};
    if (found) {
        census.vendor_id = vk->properties.vendorID;
        census.device_id = vk->properties.deviceID;
        census.driver_version = vk->properties.driverVersion;
        snprintf(census.device_name, sizeof census.device_name, "%s", vk->properties.deviceName);
    }
    bitonic_vk_census_write(vk->census_path, &census);
}

/* The instance and the default selection's device, made now for a context
 * whose census let it skip them at creation. A census that no longer holds
 * (the GPU gone, or another in its place) is rewritten for the next process. */
bitonic_status bitonic_vk_find_default_device(bitonic_vk_context *vk)
{
    bitonic_vk_census expected = {.found = true, .vendor_id = vk->properties.vendorID,
                                  .device_id = vk->properties.deviceID,
                                  .driver_version = vk->properties.driverVersion};
    bitonic_selector automatic = {BITONIC_SELECT_AUTO, 0, NULL};
    bitonic_status status = bitonic_vk_create_instance(vk, vk->desc.validation);
    if (status == BITONIC_SUCCESS)
        status = bitonic_vk_choose_device(vk, &automatic);
    if (status == BITONIC_SUCCESS) {
        vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
        if (vk->properties.vendorID != expected.vendor_id || vk->properties.deviceID != expected.device_id ||
            vk->properties.driverVersion != expected.driver_version)
            bitonic_vk_write_census(vk, true);
    } else if (status == BITONIC_ERROR_DEVICE_NOT_FOUND || status == BITONIC_ERROR_VULKAN_UNAVAILABLE) {
        bitonic_vk_write_census(vk, false);
    }
    return status;
}

bitonic_status bitonic_list_devices(bitonic_device_info *out_devices, uint32_t capacity, uint32_t *out_count)
{
    if (!out_count || (!out_devices && capacity > 0))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_count = 0;
    bitonic_vk_context scratch = {0};
    bitonic_status status = bitonic_vk_create_instance(&scratch, false);
    if (status != BITONIC_SUCCESS)
        return status == BITONIC_ERROR_VULKAN ? BITONIC_ERROR_VULKAN_UNAVAILABLE : status;
    uint32_t count = 0;
    VkResult result = vkEnumeratePhysicalDevices(scratch.instance, &count, NULL);
    VkPhysicalDevice *devices = count ? malloc(count * sizeof *devices) : NULL;
    if (result == VK_SUCCESS && count > 0 && devices)
        result = vkEnumeratePhysicalDevices(scratch.instance, &count, devices);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        free(devices);
        vkDestroyInstance(scratch.instance, NULL);
        return bitonic_status_from_vk(result);
    }
    for (uint32_t i = 0; i < count && i < capacity && devices; ++i) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[i], &properties);
        bitonic_device_limits limits;
        uint64_t max_range;
        bitonic_vk_read_limits(devices[i], &limits, &max_range);
        bitonic_device_info *info = &out_devices[i];
        memset(info, 0, sizeof *info);
        snprintf(info->name, sizeof info->name, "%s", properties.deviceName);
        info->index = i;
        info->vendor_id = properties.vendorID;
        info->device_id = properties.deviceID;
        info->device_type = (uint32_t)properties.deviceType;
        info->api_version = properties.apiVersion;
        info->subgroup_size = limits.subgroup_size;
        info->max_workgroup_invocations = limits.max_workgroup_invocations;
        info->max_shared_memory_bytes = limits.max_shared_memory_bytes;
        info->max_storage_buffer_range = max_range;
        info->multiprocessors = limits.multiprocessors;
        info->suitable = device_suitable(devices[i]);
    }
    *out_count = count;
    free(devices);
    vkDestroyInstance(scratch.instance, NULL);
    return BITONIC_SUCCESS;
}
