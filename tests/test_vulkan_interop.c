/* test_vulkan_interop.c: the recording API on a device the test creates
 * itself, as an engine would: its own instance (validation on), device, buffers
 * and command buffer. Sorts keys with values (the values are the original
 * indices, so the result must be a permutation that sorts the keys), records
 * timestamps, sorts at an offset inside a larger buffer, and checks the
 * documented failures (too many keys, missing push descriptors). Also the
 * partition sort's samples, read from the scratch: the sort is exact whatever
 * its splitters, so only there does a samples' sort that fails to sort show. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bitonic_tuning_overrides.h"
#include "bitonic_vulkan.h"
#include "test_util.h"
#include "vk_internal.h"
#include "vulkan_test_device.h"

typedef struct app {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer commands;
    VkPhysicalDeviceMemoryProperties memory;
    VkDeviceSize offset_alignment;
    unsigned messages;
} app;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    test_print_validation_message(user, data->pMessage);
    return VK_FALSE;
}

static bool name_matches(const char *name, const char *selector)
{
    if (strcmp(selector, "vulkan") == 0)
        return true;
    for (const char *s = name; *s; ++s)
        if (strncasecmp(s, selector, strlen(selector)) == 0)
            return true;
    return false;
}

static bool create_app(app *a, bool push_descriptors)
{
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkApplicationInfo app_info = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
        .pfnUserCallback = on_message, .pUserData = &a->messages};
    VkInstanceCreateInfo instance_info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &messenger_info,
                                          .pApplicationInfo = &app_info, .enabledLayerCount = 1,
                                          .ppEnabledLayerNames = &layer, .enabledExtensionCount = 1,
                                          .ppEnabledExtensionNames = instance_extensions};
    if (vkCreateInstance(&instance_info, NULL, &a->instance) != VK_SUCCESS)
        return false;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkCreateDebugUtilsMessengerEXT");
    create_messenger(a->instance, &messenger_info, NULL, &a->messenger);

    uint32_t count = 8;
    VkPhysicalDevice devices[8];
    vkEnumeratePhysicalDevices(a->instance, &count, devices);
    const char *selector = test_device_selector();
    for (uint32_t i = 0; i < count && !a->physical_device; ++i) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(devices[i], &properties);
        if (name_matches(properties.deviceName, selector)) {
            a->physical_device = devices[i];
            a->offset_alignment = properties.limits.minStorageBufferOffsetAlignment;
        }
    }
    if (!a->physical_device)
        return false;
    vkGetPhysicalDeviceMemoryProperties(a->physical_device, &a->memory);
    uint32_t family_count = 16;
    VkQueueFamilyProperties families[16];
    vkGetPhysicalDeviceQueueFamilyProperties(a->physical_device, &family_count, families);
    uint32_t family = 0;
    while (family < family_count && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
        ++family;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = family, .queueCount = 1, .pQueuePriorities = &priority};
    const char *device_extensions[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                                      .pQueueCreateInfos = &queue_info,
                                      .enabledExtensionCount = push_descriptors ? 1u : 0u,
                                      .ppEnabledExtensionNames = device_extensions};
    if (vkCreateDevice(a->physical_device, &device_info, NULL, &a->device) != VK_SUCCESS)
        return false;
    vkGetDeviceQueue(a->device, family, 0, &a->queue);
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                         .queueFamilyIndex = family};
    vkCreateCommandPool(a->device, &pool_info, NULL, &a->pool);
    VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = a->pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = 1};
    return vkAllocateCommandBuffers(a->device, &allocate, &a->commands) == VK_SUCCESS;
}

static void destroy_app(app *a)
{
    if (a->device) {
        vkDestroyCommandPool(a->device, a->pool, NULL);
        vkDestroyDevice(a->device, NULL);
    }
    if (a->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(a->instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy_messenger(a->instance, a->messenger, NULL);
    }
    if (a->instance)
        vkDestroyInstance(a->instance, NULL);
}

typedef struct host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    uint32_t *data;
} host_buffer;

/* Host-visible storage buffers keep the test short; the sort does not care. */
static bool create_host_buffer(app *a, VkDeviceSize size, host_buffer *out)
{
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                               .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT};
    if (vkCreateBuffer(a->device, &info, NULL, &out->buffer) != VK_SUCCESS)
        return false;
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(a->device, out->buffer, &requirements);
    VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < a->memory.memoryTypeCount &&
           !((requirements.memoryTypeBits & (1u << type)) &&
             (a->memory.memoryTypes[type].propertyFlags & wanted) == wanted))
        ++type;
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = requirements.size, .memoryTypeIndex = type};
    return vkAllocateMemory(a->device, &allocate, NULL, &out->memory) == VK_SUCCESS &&
           vkBindBufferMemory(a->device, out->buffer, out->memory, 0) == VK_SUCCESS &&
           vkMapMemory(a->device, out->memory, 0, VK_WHOLE_SIZE, 0, (void **)&out->data) == VK_SUCCESS;
}

static void destroy_host_buffer(app *a, host_buffer *b)
{
    vkDestroyBuffer(a->device, b->buffer, NULL);
    vkFreeMemory(a->device, b->memory, NULL);
}

static bool submit(app *a)
{
    VkSubmitInfo submit_info = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                                .pCommandBuffers = &a->commands};
    return vkQueueSubmit(a->queue, 1, &submit_info, VK_NULL_HANDLE) == VK_SUCCESS &&
           vkQueueWaitIdle(a->queue) == VK_SUCCESS;
}

/* Ends the command buffer with a barrier that makes the sort's writes
 * visible to the host. */
static void end_for_host(app *a)
{
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(a->commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host,
                         0, NULL, 0, NULL);
    vkEndCommandBuffer(a->commands);
}

/* Sorts count pairs at a key offset of `first` keys; returns whether the
 * result is right: keys in order, values a permutation that maps back. */
static bool sort_pairs(app *a, bitonic_vulkan_sorter *sorter, host_buffer *keys, host_buffer *values, uint32_t first,
                       uint32_t count, bitonic_order order, VkQueryPool queries, const host_buffer *scratch,
                       VkDeviceSize scratch_offset, uint64_t *seed)
{
    uint32_t *input = malloc((count + 1) * sizeof *input);
    for (uint32_t i = 0; i < count; ++i) {
        input[i] = (uint32_t)test_random_u64(seed) % (count / 3 + 1);
        keys->data[first + i] = input[i];
        values->data[first + i] = i;
    }
    keys->data[first + count] = 0xdeadbeef;  /* must survive: no write past the end */
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(a->commands, &begin);
    if (queries)
        vkCmdResetQueryPool(a->commands, queries, 0, 2);
    bitonic_vulkan_sort_info info = {.keys = keys->buffer, .keys_offset = (VkDeviceSize)first * 4u, .count = count,
                                     .order = order, .values = values->buffer,
                                     .values_offset = (VkDeviceSize)first * 4u, .timestamps = queries,
                                     .scratch = scratch ? scratch->buffer : VK_NULL_HANDLE,
                                     .scratch_offset = scratch_offset};
    bitonic_status status = bitonic_vulkan_record_sort(sorter, a->commands, &info);
    end_for_host(a);
    bool ok = status == BITONIC_SUCCESS && submit(a) && keys->data[first + count] == 0xdeadbeef;
    bool *seen = calloc(count + 1, 1);
    for (uint32_t i = 0; ok && i < count; ++i) {
        uint32_t key = keys->data[first + i], value = values->data[first + i];
        ok = value < count && !seen[value] && input[value] == key;
        if (ok && i > 0)
            ok = order == BITONIC_ORDER_ASCENDING ? keys->data[first + i - 1] <= key : keys->data[first + i - 1] >= key;
        if (ok)
            seen[value] = true;
    }
    free(seen);
    free(input);
    return ok;
}

/* The count comes from a buffer at execution time: `live` keys are sorted,
 * the rest of the `max_count` keys stay as they were. */
static bool sort_with_gpu_count(app *a, bitonic_vulkan_sorter *sorter, host_buffer *keys, host_buffer *count,
                                uint32_t live, uint32_t max_count, const host_buffer *scratch, uint64_t *seed)
{
    uint32_t *input = malloc((max_count + 1) * sizeof *input);
    for (uint32_t i = 0; i < max_count; ++i)
        input[i] = keys->data[i] = (uint32_t)test_random_u64(seed) % 1000u;
    count->data[3] = live;  /* at byte offset 12 */
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(a->commands, &begin);
    bitonic_vulkan_sort_info info = {.keys = keys->buffer, .count = max_count, .count_buffer = count->buffer,
                                     .count_offset = 12, .scratch = scratch ? scratch->buffer : VK_NULL_HANDLE};
    bitonic_status status = bitonic_vulkan_record_sort(sorter, a->commands, &info);
    end_for_host(a);
    bool ok = status == BITONIC_SUCCESS && submit(a);
    uint32_t sorted_live = live < max_count ? live : max_count;
    uint64_t sum_in = 0, sum_out = 0;
    for (uint32_t i = 0; i < sorted_live; ++i) {
        sum_in += input[i];
        sum_out += keys->data[i];
        ok = ok && (i == 0 || keys->data[i - 1] <= keys->data[i]);
    }
    for (uint32_t i = sorted_live; i < max_count && ok; ++i)
        ok = keys->data[i] == input[i];
    free(input);
    return ok && sum_in == sum_out;
}

static int compare_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Where the partition's sample i comes from (partition_pass.comp,
 * sample_position): one key from each of `samples` equal stretches, at a
 * place in it that a hash of the stretch picks. */
static uint32_t sample_position(uint32_t i, uint32_t count, uint32_t samples)
{
    uint32_t stretch = count / samples;
    uint32_t hashed = (i + 1u) * 0x9e3779b9u;
    hashed ^= hashed >> 16;
    return i * stretch + hashed % stretch;
}

/* A partition sort of u32 keys (values their indices where with_values)
 * leaves in its scratch each sample as the key (and value) at its place, and
 * each run of them sorted by key in the sort's order (all of them, sorted
 * whole); and the keys sorted. */
static bool check_partition_samples(app *a, bitonic_vulkan_sorter *sorter, uint32_t count, bool with_values,
                                    bitonic_order order, uint64_t *seed)
{
    bitonic_vulkan_sort_info info = {.count = count, .order = order};
    host_buffer keys = {0}, values = {0}, scratch = {0};
    bool ok = create_host_buffer(a, (VkDeviceSize)count * 4u, &keys);
    info.keys = keys.buffer;
    if (with_values) {
        ok = ok && create_host_buffer(a, (VkDeviceSize)count * 4u, &values);
        info.values = values.buffer;
    }
    VkDeviceSize keys_at = 0, values_at = 0;
    uint32_t samples = 0, runs_log = 0;
    ok = ok && bitonic_vk_partition_samples(sorter, &info, &keys_at, &values_at, &samples, &runs_log) &&
         samples >= 2u && samples <= count && (samples >> runs_log) >= 2u;
    ok = ok && create_host_buffer(a, bitonic_vulkan_sort_scratch_bytes(sorter, &info), &scratch);
    if (!ok) {  /* what was made goes (destroying a null handle does nothing) */
        destroy_host_buffer(a, &scratch);
        destroy_host_buffer(a, &values);
        destroy_host_buffer(a, &keys);
        return false;
    }
    info.scratch = scratch.buffer;
    uint32_t *input = malloc((size_t)count * sizeof *input);
    for (uint32_t i = 0; i < count; ++i) {
        /* Repeats: equal keys among the samples too. */
        input[i] = keys.data[i] = (uint32_t)test_random_u64(seed) % (count / 2u);
        if (with_values)
            values.data[i] = i;
    }
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(a->commands, &begin);
    bitonic_status status = bitonic_vulkan_record_sort(sorter, a->commands, &info);
    end_for_host(a);
    ok = status == BITONIC_SUCCESS && submit(a);
    const uint32_t *sample_keys = scratch.data + keys_at / 4u, *sample_values = scratch.data + values_at / 4u;
    uint32_t run = samples >> runs_log;
    uint64_t *expected = malloc((size_t)run * sizeof *expected), *got = malloc((size_t)run * sizeof *got);
    for (uint32_t first = 0; ok && first < samples; first += run) {
        /* The run holds the keys (and values) at its samples' places... */
        for (uint32_t j = 0; j < run; ++j) {
            uint32_t position = sample_position(first + j, count, samples);
            expected[j] = (uint64_t)input[position] << 32 | (with_values ? position : 0u);
            got[j] = (uint64_t)sample_keys[first + j] << 32 | (with_values ? sample_values[first + j] : 0u);
        }
        qsort(expected, run, sizeof *expected, compare_u64);
        qsort(got, run, sizeof *got, compare_u64);
        ok = memcmp(expected, got, (size_t)run * sizeof *got) == 0;
        /* ... by key in the sort's order. */
        for (uint32_t j = first + 1; ok && j < first + run; ++j)
            ok = order == BITONIC_ORDER_ASCENDING ? sample_keys[j - 1] <= sample_keys[j]
                                                  : sample_keys[j - 1] >= sample_keys[j];
    }
    free(expected);
    free(got);
    for (uint32_t i = 1; ok && i < count; ++i)
        ok = order == BITONIC_ORDER_ASCENDING ? keys.data[i - 1] <= keys.data[i] : keys.data[i - 1] >= keys.data[i];
    free(input);
    destroy_host_buffer(a, &scratch);
    destroy_host_buffer(a, &values);
    destroy_host_buffer(a, &keys);
    return ok;
}

int main(void)
{
    test_counter t = {0};
    app a = {0};
    if (!TEST_CHECK(&t, create_app(&a, true), "create a Vulkan device with validation on")) {
        destroy_app(&a);
        return test_finish(&t);
    }
    bitonic_vulkan_sorter *sorter = NULL;
    /* No enable_64bit_keys: these sorters build the pairs' kernels that compare
     * a pair in two parts (a device without shaderInt64); the suites that sort
     * through a context (vk_context.c) take the 64-bit comparison. */
    bitonic_vulkan_sorter_desc desc = {.instance = a.instance, .physical_device = a.physical_device,
                                       .device = a.device};
    bitonic_status status = bitonic_vulkan_sorter_create(&desc, &sorter);
    if (TEST_CHECK(&t, status == BITONIC_SUCCESS, "sorter (%s)", bitonic_status_string(status))) {
        bitonic_vulkan_sorter_info info;
        bitonic_vulkan_sorter_get_info(sorter, &info);
        uint32_t capacity = 3u * info.tile_keys + 1000u;
        uint32_t first = (uint32_t)(a.offset_alignment / 4u > 16u ? a.offset_alignment / 4u : 16u);
        host_buffer keys, values;
        create_host_buffer(&a, (capacity + first + 1u) * 4u, &keys);
        create_host_buffer(&a, (capacity + first + 1u) * 4u, &values);
        VkQueryPool queries;
        VkQueryPoolCreateInfo query_info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                            .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
        vkCreateQueryPool(a.device, &query_info, NULL, &queries);
        uint64_t seed = 99;
        /* Scratch for the largest sort (pairs of capacity keys), at an aligned offset. */
        bitonic_vulkan_sort_info largest = {.keys = keys.buffer, .values = values.buffer, .count = capacity};
        VkDeviceSize scratch_bytes = bitonic_vulkan_sort_scratch_bytes(sorter, &largest);
        VkDeviceSize scratch_offset = a.offset_alignment;
        host_buffer scratch;
        create_host_buffer(&a, scratch_offset + scratch_bytes, &scratch);
        TEST_CHECK(&t, scratch_bytes >= (VkDeviceSize)capacity * 8u, "scratch of %llu bytes for %u pairs",
                   (unsigned long long)scratch_bytes, capacity);
        uint32_t counts[] = {0, 1, 2, 3, 17, 255, 256, 257, info.tile_keys - 1, info.tile_keys, info.tile_keys + 1,
                             2 * info.tile_keys + 5, capacity};
        for (int merge = 0; merge < 2; ++merge)
            for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
                for (int o = 0; o < 2; ++o)
                    TEST_CHECK(&t, sort_pairs(&a, sorter, &keys, &values, i % 2 ? first : 0, counts[i],
                                              (bitonic_order)o, i == 4 ? queries : VK_NULL_HANDLE,
                                              merge ? &scratch : NULL, i % 2 ? scratch_offset : 0, &seed),
                               "pairs: %u keys, %s, offset %u, %s", counts[i], o ? "descending" : "ascending",
                               i % 2 ? first : 0, merge ? "merging through scratch" : "network");
        /* The same merges with the splits found in a pass of their own (a sorter
         * that does that from the first chunk on). */
        bitonic_vulkan_sorter *split_sorter = NULL;
        bitonic_tuning_overrides split_tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES,
                                                 .merge_split_pass_min_chunks = 1};
        bitonic_vulkan_sorter_desc split_desc = desc;
        split_desc.next = &split_tuning;
        if (TEST_CHECK(&t, bitonic_vulkan_sorter_create(&split_desc, &split_sorter) == BITONIC_SUCCESS,
                       "a sorter with merge split passes")) {
            VkDeviceSize split_scratch_bytes = bitonic_vulkan_sort_scratch_bytes(split_sorter, &largest);
            /* Beyond the keys' and values' copies; no less than the default
             * sorter's, which keeps the same words where its merges search on
             * run samples instead (there the samples start after them). */
            TEST_CHECK(&t, split_scratch_bytes > (VkDeviceSize)capacity * 8u && split_scratch_bytes >= scratch_bytes,
                       "split passes need room for the splits (%llu bytes, %llu by default)",
                       (unsigned long long)split_scratch_bytes, (unsigned long long)scratch_bytes);
            if (split_scratch_bytes > scratch_bytes) {
                destroy_host_buffer(&a, &scratch);
                create_host_buffer(&a, scratch_offset + split_scratch_bytes, &scratch);
            }
            for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
                TEST_CHECK(&t, sort_pairs(&a, split_sorter, &keys, &values, i % 2 ? first : 0, counts[i],
                                          (bitonic_order)(i % 2), VK_NULL_HANDLE, &scratch, i % 2 ? scratch_offset : 0,
                                          &seed),
                           "pairs: %u keys, merges with split passes", counts[i]);
        }
        host_buffer count;
        create_host_buffer(&a, 64, &count);
        uint32_t lives[] = {0, 1, 5, 300, info.tile_keys + 3, capacity - 1, capacity, capacity + 50};
        for (int merge = 0; merge < 2; ++merge)
            for (size_t i = 0; i < sizeof lives / sizeof lives[0]; ++i)
                TEST_CHECK(&t, sort_with_gpu_count(&a, sorter, &keys, &count, lives[i], capacity,
                                                   merge ? &scratch : NULL, &seed),
                           "count read on the GPU: %u live of at most %u, %s", lives[i], capacity,
                           merge ? "merging" : "network");
        /* At most 1024 + 5: one tile pass that places a tail of up to 5 keys
         * (schedule.h's tile_tail), whatever count it reads. */
        uint32_t tail_lives[] = {0, 1, 5, 1000, 1024, 1025, 1028, 1029, 1100};
        for (int merge = 0; merge < 2; ++merge)
            for (size_t i = 0; i < sizeof tail_lives / sizeof tail_lives[0]; ++i)
                TEST_CHECK(&t, sort_with_gpu_count(&a, sorter, &keys, &count, tail_lives[i], 1029u,
                                                   merge ? &scratch : NULL, &seed),
                           "count read on the GPU: %u live of at most 1024 + 5 (a tile and its tail), %s",
                           tail_lives[i], merge ? "scratch given" : "no scratch");
        for (size_t i = 0; split_sorter && i < sizeof lives / sizeof lives[0]; ++i)
            TEST_CHECK(&t, sort_with_gpu_count(&a, split_sorter, &keys, &count, lives[i], capacity, &scratch, &seed),
                       "count read on the GPU: %u live of at most %u, merges with split passes", lives[i], capacity);
        bitonic_vulkan_sorter_destroy(split_sorter);
        /* The transpose strategy through the recording API: the sorter's
         * strategy says what the scratch is for; without scratch it is the network. */
        bitonic_vulkan_sorter *transpose_sorter = NULL, *network_sorter = NULL;
        bitonic_vulkan_sorter_desc transpose_desc = desc, network_desc = desc;
        transpose_desc.strategy = BITONIC_STRATEGY_TRANSPOSE;
        network_desc.strategy = BITONIC_STRATEGY_NETWORK;
        if (TEST_CHECK(&t, bitonic_vulkan_sorter_create(&transpose_desc, &transpose_sorter) == BITONIC_SUCCESS &&
                               bitonic_vulkan_sorter_create(&network_desc, &network_sorter) == BITONIC_SUCCESS,
                       "sorters with the transpose and the network strategy")) {
            VkDeviceSize view_bytes = bitonic_vulkan_sort_scratch_bytes(transpose_sorter, &largest);
            TEST_CHECK(&t, view_bytes >= (VkDeviceSize)capacity * 8u &&
                               bitonic_vulkan_sort_scratch_bytes(network_sorter, &largest) == 0,
                       "scratch: %llu bytes for the transposed view of %u pairs, none for the network",
                       (unsigned long long)view_bytes, capacity);
            host_buffer view;
            create_host_buffer(&a, scratch_offset + view_bytes, &view);
            for (int with_view = 0; with_view < 2; ++with_view)
                for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i)
                    TEST_CHECK(&t, sort_pairs(&a, transpose_sorter, &keys, &values, i % 2 ? first : 0, counts[i],
                                              (bitonic_order)(i % 2), VK_NULL_HANDLE, with_view ? &view : NULL,
                                              i % 2 ? scratch_offset : 0, &seed),
                               "pairs: %u keys, transpose strategy, %s", counts[i],
                               with_view ? "views in scratch" : "no scratch: network");
            for (size_t i = 0; i < sizeof lives / sizeof lives[0]; ++i)
                TEST_CHECK(&t, sort_with_gpu_count(&a, transpose_sorter, &keys, &count, lives[i], capacity, &view,
                                                   &seed),
                           "count read on the GPU: %u live of at most %u, transpose strategy", lives[i], capacity);
            bitonic_vulkan_sort_info two = {.keys = keys.buffer, .count = info.tile_keys * 2};
            uint32_t network_passes = bitonic_vulkan_sort_pass_count(transpose_sorter, &two);
            two.scratch = view.buffer;
            TEST_CHECK(&t, network_passes == 3 && bitonic_vulkan_sort_pass_count(transpose_sorter, &two) == 5 &&
                               bitonic_vulkan_sort_pass_count(network_sorter, &two) == 3,
                       "pass counts at two tiles: the network 3; the transpose 5 (tile sort, transpose, view tile, "
                       "transpose back, tile)");
            destroy_host_buffer(&a, &view);
        }
        bitonic_vulkan_sorter_destroy(transpose_sorter);
        bitonic_vulkan_sorter_destroy(network_sorter);
        bitonic_vulkan_sorter_desc unknown = desc;
        unknown.strategy = (bitonic_strategy)9;
        bitonic_vulkan_sorter *refused = NULL;
        TEST_CHECK(&t, bitonic_vulkan_sorter_create(&unknown, &refused) == BITONIC_ERROR_INVALID_ARGUMENT && !refused,
                   "an unknown strategy is refused");
        destroy_host_buffer(&a, &count);
        uint64_t stamps[2] = {0, 0};
        vkGetQueryPoolResults(a.device, queries, 0, 2, sizeof stamps, stamps, 8, VK_QUERY_RESULT_64_BIT);
        TEST_CHECK(&t, stamps[1] >= stamps[0], "timestamps written in order");

        vkBeginCommandBuffer(a.commands, &(VkCommandBufferBeginInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO});
        bitonic_vulkan_sort_info too_many = {.keys = keys.buffer, .count = (uint32_t)(info.max_keys + 1)};
        if (info.max_keys < UINT32_MAX)
            TEST_CHECK(&t, bitonic_vulkan_record_sort(sorter, a.commands, &too_many) == BITONIC_ERROR_TOO_LARGE,
                       "more keys than a buffer binding holds");
        bitonic_vulkan_sort_info no_keys = {.count = 5};
        TEST_CHECK(&t, bitonic_vulkan_record_sort(sorter, a.commands, &no_keys) == BITONIC_ERROR_INVALID_ARGUMENT,
                   "no key buffer");
        vkEndCommandBuffer(a.commands);
        bitonic_vulkan_sort_info one = {.keys = keys.buffer, .count = 1};
        bitonic_vulkan_sort_info tile = {.keys = keys.buffer, .count = info.tile_keys};
        bitonic_vulkan_sort_info two_tiles = {.keys = keys.buffer, .count = info.tile_keys * 2};
        bitonic_vulkan_sort_info rows = {.keys = keys.buffer, .count = info.tile_keys * 2, .row_length = 4};
        bitonic_vulkan_sort_info wide = {.keys = keys.buffer, .count = 8, .key_type = BITONIC_KEY_U64};
        TEST_CHECK(&t, bitonic_vulkan_sort_pass_count(sorter, &one) == 0 &&
                           bitonic_vulkan_sort_pass_count(sorter, &tile) == 1 &&
                           bitonic_vulkan_sort_pass_count(sorter, &two_tiles) == 3 &&
                           bitonic_vulkan_sort_pass_count(sorter, &rows) == 1,
                   "pass counts: one tile pass, then global + tile merge; rows of 4 in one tile pass");
        TEST_CHECK(&t, bitonic_vulkan_sort_pass_count(sorter, &wide) == 0,
                   "no passes for 64-bit keys on a device created without shaderInt64");
        /* A merge sort of few 32-bit keys may use the small-sort shapes, whose
         * tile can be smaller than the network's (an H100: 4096 against 8192). */
        uint32_t merge_tile = info.tile_keys;
        if (info.small_sort_max_keys >= (uint64_t)info.tile_keys * 2u && info.small_sort_tile_keys != 0)
            merge_tile = info.small_sort_tile_keys;
        bitonic_vulkan_sort_info merge_one = {.keys = keys.buffer, .count = merge_tile};
        bitonic_vulkan_sort_info merge_two = {.keys = keys.buffer, .count = merge_tile * 2};
        TEST_CHECK(&t, bitonic_vulkan_sort_scratch_bytes(sorter, &merge_one) == 0 &&
                           bitonic_vulkan_sort_scratch_bytes(sorter, &rows) == 0 &&
                           bitonic_vulkan_sort_scratch_bytes(sorter, &merge_two) >= (VkDeviceSize)merge_tile * 8u,
                   "scratch: none for one tile or rows, a copy of the keys above");
        merge_two.scratch = scratch.buffer;
        rows.scratch = scratch.buffer;
        TEST_CHECK(&t, bitonic_vulkan_sort_pass_count(sorter, &merge_two) == 2 &&
                           bitonic_vulkan_sort_pass_count(sorter, &rows) == 1,
                   "with scratch: the tile sort and one merge pass; rows keep the network");
        two_tiles.scratch = scratch.buffer;
        two_tiles.scratch_offset = 4;
        vkBeginCommandBuffer(a.commands, &(VkCommandBufferBeginInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO});
        if (a.offset_alignment > 4)
            TEST_CHECK(&t, bitonic_vulkan_record_sort(sorter, a.commands, &two_tiles) == BITONIC_ERROR_INVALID_ARGUMENT,
                       "a misaligned scratch offset is refused");
        vkEndCommandBuffer(a.commands);
        destroy_host_buffer(&a, &scratch);
        vkDestroyQueryPool(a.device, queries, NULL);
        destroy_host_buffer(&a, &keys);
        destroy_host_buffer(&a, &values);
        bitonic_vulkan_sorter_destroy(sorter);
    }
    /* The partition's samples, in runs (sorted by the sample step) and whole
     * (by the library's sort after it), from 16 tiles of keys on. */
    for (int whole = 0; whole < 2; ++whole) {
        bitonic_tuning_overrides partition_tuning = {.type = BITONIC_STRUCTURE_TYPE_TUNING_OVERRIDES,
                                                     .partition_min_keys = 1,
                                                     .partition_whole_samples = whole != 0,
                                                     /* small sorts do not partition */
                                                     .small_sort_max_keys = UINT32_MAX};
        bitonic_vulkan_sorter_desc partition_desc = desc;
        partition_desc.next = &partition_tuning;
        bitonic_vulkan_sorter *partition_sorter = NULL;
        if (!TEST_CHECK(&t, bitonic_vulkan_sorter_create(&partition_desc, &partition_sorter) == BITONIC_SUCCESS,
                        "a sorter that partitions from one key on"))
            continue;
        bitonic_vulkan_sorter_info partition_info;
        bitonic_vulkan_sorter_get_info(partition_sorter, &partition_info);
        uint64_t seed = 7;
        for (int with_values = 0; with_values < 2; ++with_values)
            for (int o = 0; o < 2; ++o) {
                uint32_t count = 16u * partition_info.tile_keys + 3u * (uint32_t)o;
                TEST_CHECK(&t, check_partition_samples(&a, partition_sorter, count, with_values != 0, (bitonic_order)o,
                                                       &seed),
                           "partition samples %s: %u %s, %s, each the key at its place and sorted", whole ? "whole" : "in runs",
                           count, with_values ? "pairs" : "keys", o ? "descending" : "ascending");
            }
        bitonic_vulkan_sorter_destroy(partition_sorter);
    }
    TEST_CHECK(&t, bitonic_vulkan_sorter_create(NULL, &sorter) == BITONIC_ERROR_INVALID_ARGUMENT,
               "NULL description refused");
    destroy_app(&a);

    app plain = {0};
    if (create_app(&plain, false)) {
        bitonic_vulkan_sorter_desc plain_desc = {.instance = plain.instance,
                                                 .physical_device = plain.physical_device, .device = plain.device};
        TEST_CHECK(&t, bitonic_vulkan_sorter_create(&plain_desc, &sorter) == BITONIC_ERROR_UNSUPPORTED,
                   "a device without VK_KHR_push_descriptor is refused");
    }
    destroy_app(&plain);
    TEST_CHECK(&t, a.messages == 0 && plain.messages == 0, "no validation message");
    return test_finish(&t);
}
