/* gpu.c: the app's Vulkan instance, device, memory and compute kernels (see
 * gpu.h). Device choice follows the library's order (discrete, integrated,
 * virtual GPU) but, unlike the library's automatic choice, falls back to a CPU
 * driver such as lavapipe, so the app runs on a machine without a GPU. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
#define MAX_KERNEL_BINDINGS 8u

bool gpu_check(VkResult result, const char *what)
{
    if (result == VK_SUCCESS)
        return true;
    fprintf(stderr, "bitonic-boids: %s failed (VkResult %d)\n", what, (int)result);
    return false;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                            VkDebugUtilsMessageTypeFlagsEXT types,
                                                            const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                            void *user)
{
    gpu *g = user;
    if (g->validation_messages < 20)
        fprintf(stderr, "VALIDATION: %s\n", data->pMessage);
    ++g->validation_messages;
    return VK_FALSE;
}

static bool has_layer(const char *name)
{
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, NULL);
    VkLayerProperties *layers = malloc((count ? count : 1) * sizeof *layers);
    bool found = false;
    if (layers && vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static bool create_instance(const gpu_desc *desc, gpu *g)
{
    const char *extensions[16];
    uint32_t extension_count = 0;
    for (uint32_t i = 0; i < desc->instance_extension_count && extension_count < 14; ++i)
        extensions[extension_count++] = desc->instance_extensions[i];
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                        .enabledValidationFeatureCount = 1, .pEnabledValidationFeatures = enables};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = &features,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_validation_message,
        .pUserData = g,
    };
    const char *layer = VALIDATION_LAYER;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "bitonic-boids",
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (desc->validation) {
        if (!has_layer(VALIDATION_LAYER)) {
            fprintf(stderr, "bitonic-boids: --validation needs %s, which is not installed\n", VALIDATION_LAYER);
            return false;
        }
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
        info.pNext = &messenger_info;  /* also catches messages from instance creation itself */
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &layer;
    }
    info.enabledExtensionCount = extension_count;
    info.ppEnabledExtensionNames = extensions;
    if (!gpu_check(vkCreateInstance(&info, NULL, &g->instance), "vkCreateInstance"))
        return false;
    if (desc->validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(g->instance, "vkCreateDebugUtilsMessengerEXT");
        messenger_info.pNext = NULL;
        if (!create_messenger ||
            !gpu_check(create_messenger(g->instance, &messenger_info, NULL, &g->messenger), "debug messenger"))
            return false;
    }
    return true;
}

static bool name_contains(const char *name, const char *wanted)
{
    size_t length = strlen(wanted);
    for (const char *start = name; *start; ++start) {
        size_t i = 0;
        while (i < length && start[i] && tolower((unsigned char)start[i]) == tolower((unsigned char)wanted[i]))
            ++i;
        if (i == length)
            return true;
    }
    return length == 0;
}

static bool has_device_extension(VkPhysicalDevice physical_device, const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, NULL) != VK_SUCCESS)
        return false;
    VkExtensionProperties *extensions = malloc((count ? count : 1) * sizeof *extensions);
    bool found = false;
    if (extensions && vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, extensions) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i)
            found = strcmp(extensions[i].extensionName, name) == 0;
    free(extensions);
    return found;
}

/* A family with graphics and compute (one queue runs the step and the drawing),
 * preferring one with timestamps. UINT32_MAX when none. */
static uint32_t find_queue_family(const gpu_desc *desc, VkInstance instance, VkPhysicalDevice physical_device,
                                  uint32_t *out_timestamp_bits)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, NULL);
    VkQueueFamilyProperties *families = malloc((count ? count : 1) * sizeof *families);
    if (!families)
        return UINT32_MAX;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, families);
    uint32_t found = UINT32_MAX;
    VkQueueFlags wanted = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (uint32_t i = 0; i < count; ++i) {
        if ((families[i].queueFlags & wanted) != wanted)
            continue;
        if (desc->queue_family_ok && !desc->queue_family_ok(instance, physical_device, i, desc->queue_family_user))
            continue;
        if (found == UINT32_MAX || (*out_timestamp_bits == 0 && families[i].timestampValidBits > 0)) {
            found = i;
            *out_timestamp_bits = families[i].timestampValidBits;
        }
    }
    free(families);
    return found;
}

static int type_rank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static bool device_suitable(const gpu_desc *desc, VkInstance instance, VkPhysicalDevice physical_device)
{
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(physical_device, &properties);
    uint32_t timestamp_bits = 0;
    return properties.apiVersion >= VK_API_VERSION_1_1 &&
           find_queue_family(desc, instance, physical_device, &timestamp_bits) != UINT32_MAX &&
           has_device_extension(physical_device, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) &&
           (!desc->swapchain || has_device_extension(physical_device, VK_KHR_SWAPCHAIN_EXTENSION_NAME));
}

static bool choose_device(const gpu_desc *desc, gpu *g)
{
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(g->instance, &count, NULL);
    VkPhysicalDevice *devices = malloc((count ? count : 1) * sizeof *devices);
    if (!devices || vkEnumeratePhysicalDevices(g->instance, &count, devices) != VK_SUCCESS)
        count = 0;
    const char *wanted = desc->device_name && *desc->device_name ? desc->device_name : NULL;
    int best_rank = 99;
    for (uint32_t i = 0; i < count; ++i) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[i], &properties);
        int rank = wanted ? (name_contains(properties.deviceName, wanted) ? 0 : 99) : type_rank(properties.deviceType);
        if (rank < best_rank && device_suitable(desc, g->instance, devices[i])) {
            best_rank = rank;
            g->physical_device = devices[i];
        }
    }
    if (!g->physical_device) {
        fprintf(stderr, "bitonic-boids: no Vulkan device %s%s%swith graphics + compute and %s%s\n",
                wanted ? "named like \"" : "", wanted ? wanted : "", wanted ? "\" " : "",
                VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, desc->swapchain ? " and a presentable queue" : "");
        for (uint32_t i = 0; i < count; ++i) {
            VkPhysicalDeviceProperties properties;
            vkGetPhysicalDeviceProperties(devices[i], &properties);
            fprintf(stderr, "  device %u: %s%s\n", i, properties.deviceName,
                    device_suitable(desc, g->instance, devices[i]) ? "" : " (unsuitable)");
        }
    }
    free(devices);
    return g->physical_device != VK_NULL_HANDLE;
}

static bool create_device(const gpu_desc *desc, gpu *g)
{
    g->queue_family = find_queue_family(desc, g->instance, g->physical_device, &g->timestamp_valid_bits);
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                              .pNext = &subgroup};
    vkGetPhysicalDeviceProperties2(g->physical_device, &properties);
    g->properties = properties.properties;
    g->subgroup_size = subgroup.subgroupSize;
    vkGetPhysicalDeviceMemoryProperties(g->physical_device, &g->memory);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = g->queue_family, .queueCount = 1,
                                          .pQueuePriorities = &priority};
    const char *extensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                                      .pQueueCreateInfos = &queue_info,
                                      .enabledExtensionCount = desc->swapchain ? 2u : 1u,
                                      .ppEnabledExtensionNames = extensions};
    if (!gpu_check(vkCreateDevice(g->physical_device, &device_info, NULL, &g->device), "vkCreateDevice"))
        return false;
    vkGetDeviceQueue(g->device, g->queue_family, 0, &g->queue);
    g->push_descriptor_set =
        (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(g->device, "vkCmdPushDescriptorSetKHR");
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                         .queueFamilyIndex = g->queue_family};
    return g->push_descriptor_set &&
           gpu_check(vkCreateCommandPool(g->device, &pool_info, NULL, &g->command_pool), "vkCreateCommandPool");
}

bool gpu_create(const gpu_desc *desc, gpu *g)
{
    memset(g, 0, sizeof *g);
    return create_instance(desc, g) && choose_device(desc, g) && create_device(desc, g);
}

void gpu_destroy(gpu *g)
{
    if (g->device) {
        vkDeviceWaitIdle(g->device);
        if (g->command_pool)
            vkDestroyCommandPool(g->device, g->command_pool, NULL);
        vkDestroyDevice(g->device, NULL);
    }
    if (g->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(g->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger)
            destroy_messenger(g->instance, g->messenger, NULL);
    }
    if (g->instance)
        vkDestroyInstance(g->instance, NULL);
    g->device = VK_NULL_HANDLE;
    g->instance = VK_NULL_HANDLE;
}

uint32_t gpu_memory_type(const gpu *g, uint32_t allowed_types, VkMemoryPropertyFlags wanted)
{
    for (uint32_t i = 0; i < g->memory.memoryTypeCount; ++i)
        if ((allowed_types & (1u << i)) && (g->memory.memoryTypes[i].propertyFlags & wanted) == wanted)
            return i;
    return UINT32_MAX;
}

bool gpu_buffer_create(gpu *g, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible, gpu_buffer *out)
{
    memset(out, 0, sizeof *out);
    out->size = size;
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
    if (!gpu_check(vkCreateBuffer(g->device, &info, NULL, &out->buffer), "vkCreateBuffer"))
        return false;
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(g->device, out->buffer, &requirements);
    uint32_t type;
    if (host_visible) {
        VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        type = gpu_memory_type(g, requirements.memoryTypeBits, coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
        if (type == UINT32_MAX)
            type = gpu_memory_type(g, requirements.memoryTypeBits, coherent);
    } else {
        type = gpu_memory_type(g, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (type == UINT32_MAX)
            type = gpu_memory_type(g, requirements.memoryTypeBits, 0);
    }
    if (type == UINT32_MAX) {
        fprintf(stderr, "bitonic-boids: no suitable memory type for a buffer\n");
        return false;
    }
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = requirements.size, .memoryTypeIndex = type};
    if (!gpu_check(vkAllocateMemory(g->device, &allocate, NULL, &out->memory), "vkAllocateMemory") ||
        !gpu_check(vkBindBufferMemory(g->device, out->buffer, out->memory, 0), "vkBindBufferMemory"))
        return false;
    if (host_visible && !gpu_check(vkMapMemory(g->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped), "vkMapMemory"))
        return false;
    return true;
}

void gpu_buffer_destroy(gpu *g, gpu_buffer *b)
{
    if (b->buffer)
        vkDestroyBuffer(g->device, b->buffer, NULL);
    if (b->memory)
        vkFreeMemory(g->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

bool gpu_begin_one_shot(gpu *g, VkCommandBuffer *out)
{
    VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = g->command_pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    if (!gpu_check(vkAllocateCommandBuffers(g->device, &allocate, out), "vkAllocateCommandBuffers"))
        return false;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return gpu_check(vkBeginCommandBuffer(*out, &begin), "vkBeginCommandBuffer");
}

bool gpu_end_one_shot(gpu *g, VkCommandBuffer commands)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &commands};
    bool ok = gpu_check(vkEndCommandBuffer(commands), "vkEndCommandBuffer") &&
              gpu_check(vkQueueSubmit(g->queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit") &&
              gpu_check(vkQueueWaitIdle(g->queue), "vkQueueWaitIdle");
    vkFreeCommandBuffers(g->device, g->command_pool, 1, &commands);
    return ok;
}

bool gpu_upload(gpu *g, const void *data, VkDeviceSize size, gpu_buffer *destination)
{
    gpu_buffer staging;
    if (!gpu_buffer_create(g, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &staging)) {
        gpu_buffer_destroy(g, &staging);
        return false;
    }
    memcpy(staging.mapped, data, size);
    VkCommandBuffer commands;
    bool ok = gpu_begin_one_shot(g, &commands);
    if (ok) {
        vkCmdCopyBuffer(commands, staging.buffer, destination->buffer, 1, &(VkBufferCopy){.size = size});
        gpu_compute_barrier(commands);
        ok = gpu_end_one_shot(g, commands);
    }
    gpu_buffer_destroy(g, &staging);
    return ok;
}

bool gpu_download(gpu *g, gpu_buffer *source, VkDeviceSize size, void *data)
{
    gpu_buffer staging;
    if (!gpu_buffer_create(g, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, &staging)) {
        gpu_buffer_destroy(g, &staging);
        return false;
    }
    VkCommandBuffer commands;
    bool ok = gpu_begin_one_shot(g, &commands);
    if (ok) {
        gpu_compute_barrier(commands);
        vkCmdCopyBuffer(commands, source->buffer, staging.buffer, 1, &(VkBufferCopy){.size = size});
        VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                             NULL, 0, NULL);
        ok = gpu_end_one_shot(g, commands);
    }
    if (ok)
        memcpy(data, staging.mapped, size);
    gpu_buffer_destroy(g, &staging);
    return ok;
}

bool gpu_kernel_create(gpu *g, const uint32_t *code, size_t code_size, uint32_t binding_count,
                       uint32_t push_constant_size, uint32_t workgroup_size, gpu_kernel *out)
{
    memset(out, 0, sizeof *out);
    out->binding_count = binding_count;
    out->workgroup_size = workgroup_size;
    VkDescriptorSetLayoutBinding bindings[MAX_KERNEL_BINDINGS];
    for (uint32_t i = 0; i < binding_count && i < MAX_KERNEL_BINDINGS; ++i)
        bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                     .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                                .bindingCount = binding_count, .pBindings = bindings};
    if (binding_count > MAX_KERNEL_BINDINGS ||
        !gpu_check(vkCreateDescriptorSetLayout(g->device, &set_info, NULL, &out->set_layout), "descriptor set layout"))
        return false;
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = push_constant_size};
    VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                              .setLayoutCount = 1, .pSetLayouts = &out->set_layout,
                                              .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    if (!gpu_check(vkCreatePipelineLayout(g->device, &layout_info, NULL, &out->layout), "pipeline layout"))
        return false;
    VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            .codeSize = code_size, .pCode = code};
    VkShaderModule module;
    if (!gpu_check(vkCreateShaderModule(g->device, &module_info, NULL, &module), "vkCreateShaderModule"))
        return false;
    VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = 4};
    VkSpecializationInfo specialization = {.mapEntryCount = 1, .pMapEntries = &entry, .dataSize = 4,
                                           .pData = &workgroup_size};
    VkComputePipelineCreateInfo pipeline_info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module, .pName = "main", .pSpecializationInfo = &specialization},
        .layout = out->layout,
    };
    bool ok = gpu_check(vkCreateComputePipelines(g->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &out->pipeline),
                        "vkCreateComputePipelines");
    vkDestroyShaderModule(g->device, module, NULL);
    return ok;
}

void gpu_kernel_destroy(gpu *g, gpu_kernel *k)
{
    if (k->pipeline)
        vkDestroyPipeline(g->device, k->pipeline, NULL);
    if (k->layout)
        vkDestroyPipelineLayout(g->device, k->layout, NULL);
    if (k->set_layout)
        vkDestroyDescriptorSetLayout(g->device, k->set_layout, NULL);
    memset(k, 0, sizeof *k);
}

bool gpu_split_groups(const gpu *g, uint64_t invocations, uint32_t workgroup_size, uint32_t max_groups_x,
                      uint32_t *out_x, uint32_t *out_y)
{
    uint64_t groups = (invocations + workgroup_size - 1u) / workgroup_size;
    if (groups == 0)
        groups = 1;
    uint64_t limit_x = g->properties.limits.maxComputeWorkGroupCount[0];
    if (max_groups_x != 0 && max_groups_x < limit_x)
        limit_x = max_groups_x;
    *out_x = (uint32_t)(groups < limit_x ? groups : limit_x);
    uint64_t rows = (groups + *out_x - 1u) / *out_x;
    *out_y = (uint32_t)rows;
    return rows <= g->properties.limits.maxComputeWorkGroupCount[1];
}

void gpu_kernel_dispatch(gpu *g, VkCommandBuffer commands, const gpu_kernel *k, const VkBuffer *buffers,
                         const void *push_constants, uint32_t push_constant_size, uint64_t invocations,
                         uint32_t max_groups_x)
{
    VkDescriptorBufferInfo infos[MAX_KERNEL_BINDINGS];
    VkWriteDescriptorSet writes[MAX_KERNEL_BINDINGS];
    for (uint32_t i = 0; i < k->binding_count; ++i) {
        infos[i] = (VkDescriptorBufferInfo){.buffer = buffers[i], .offset = 0, .range = VK_WHOLE_SIZE};
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                           .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &infos[i]};
    }
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
    g->push_descriptor_set(commands, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, k->binding_count, writes);
    vkCmdPushConstants(commands, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_size, push_constants);
    uint32_t groups_x, groups_y;
    gpu_split_groups(g, invocations, k->workgroup_size, max_groups_x, &groups_x, &groups_y);
    vkCmdDispatch(commands, groups_x, groups_y, 1);
}

void gpu_compute_barrier(VkCommandBuffer commands)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                                VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vkCmdPipelineBarrier(commands, stages, stages, 0, 1, &barrier, 0, NULL, 0, NULL);
}
