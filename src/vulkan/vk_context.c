/* vk_context.c: the Vulkan host layer behind bitonic.h. It picks a device,
 * creates the instance (with the validation layer when asked), the device, a
 * queue and the sorter, and implements resident buffers and the host sort on
 * top of bitonic_vulkan_record_sort(): the same recording path an engine uses. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bitonic_tuning_overrides.h"
#include "context_internal.h"
#include "copy_crew.h"
#include "vk_census.h"
#include "vk_host.h"
#include "schedule.h"
#include "vk_internal.h"
#include "vk_pipeline_cache.h"
#include "vk_transfer.h"

#define QUERY_COUNT (2u + BITONIC_SCHEDULE_MAX_PASSES)
/* After the sort's own timestamps: three around the stages of a host sort
 * (sort_with_transfers), then two around each chunk's copy in the chunked
 * host sort (sort_in_chunks), uploads then downloads. */
#define STAGE_QUERY_COUNT 3u
#define CHUNK_QUERY_BASE (QUERY_COUNT + STAGE_QUERY_COUNT)
#define ALL_QUERIES (CHUNK_QUERY_BASE + 4u * MAX_HOST_CHUNKS)
/* Below this many bytes an array is staged, not imported: importing pins its
 * pages and makes a buffer, which costs more than copying a small array. */
#define MIN_IMPORT_BYTES ((size_t)1 << 20)
/* On a discrete GPU, up to this many: pinning the caller's pages cost more host
 * time than copying them through a staging buffer with several threads at every
 * size measured on the H100 machine (2^21 to 2^26 u32 keys: 2^24 8.1 ms against
 * 4.0 ms, 2^26 27.7 against 19.2; docs/perf-log.md, the host path). Above it the
 * array is imported anyway, so no staging twin of that size is kept. */
#define DISCRETE_MIN_IMPORT_BYTES ((size_t)512 << 20)
/* A staged host sort of at least two chunks runs as a pipeline over chunks
 * (sort_in_chunks): the CPU copies chunk i+1 into the staging buffer while the
 * GPU copies chunk i over the bus, and on the way back the GPU copies chunk
 * j+1 while the CPU copies chunk j out. Chunks are at least this big (16
 * chunks of 4 MiB at 2^24 u32 keys), so the submissions, one per chunk, cost
 * little beside the copies; BITONIC_HOST_CHUNK_BYTES overrides it (tests), 0
 * turns the pipeline off. */
#define HOST_CHUNK_MIN_BYTES ((size_t)4 << 20)
#define MAX_HOST_CHUNKS 16u
/* Threads that copy a chunk between the caller's array and the staging buffer,
 * at most one a core and at most 8: in one alternated call on the 16-core H100
 * machine, 8 sorted 2^25 and 2^26 keys from host memory in 12.7-13.0 and
 * 24.3-24.8 ms against 13.8-15.3 and 23.2-37.6 with 16 and 15.9-16.7 and
 * 34.2-35.7 with 4 (docs/perf-log.md, entry 29). BITONIC_HOST_COPY_THREADS
 * overrides it (measurements). */
#define MAX_COPY_HANDS 8u

struct bitonic_vk_context {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    uint32_t device_index;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool command_pool;
    VkCommandBuffer command_buffer;
    VkFence fence;
    VkQueryPool query_pool;          /* VK_NULL_HANDLE when the queue has no timestamps */
    /* The chunked host sort's command buffers (uploads, then downloads) and the
     * fences of its downloads, made on its first use. */
    size_t host_chunk_bytes;         /* 0: no chunked pipeline */
    bool chunk_sort_wanted;          /* sort each chunk as it arrives; not BITONIC_HOST_CHUNK_SORT=0 */
    bool chunk_objects_made;
    VkCommandBuffer chunk_commands[2 * MAX_HOST_CHUNKS];
    VkFence chunk_fences[MAX_HOST_CHUNKS];
    /* Blocks of bitonic_host_alloc, looked up by address at each host sort. */
    struct pinned_block *pinned;
    size_t pinned_count, pinned_capacity;
    /* bufferDeviceAddress and shaderInt64 are on: storage buffers get the
     * device-address usage, so sorts past one binding can reach them. */
    bool device_addresses;
    bitonic_vulkan_sorter *sorter;
    bitonic_vk_pipeline_cache pipeline_cache;  /* on disk between runs; the sorter builds lazily through it */
    bitonic_vk_importer importer;    /* host arrays as buffers (VK_EXT_external_memory_host), if the device can */
    /* With the default selection the logical device is made on first use
     * (ensure_device): a process whose host sorts all go to the CPU path never
     * pays for it. desc is the caller's, its strings and its tuning
     * overrides (handed on to the sorter) copied. */
    bitonic_context_desc desc;
    bitonic_tuning_overrides tuning_overrides;
    char cache_directory[BITONIC_CACHE_PATH_MAX];
    bitonic_status device_status;    /* what the deferred creation gave, once tried */
    /* With the default selection and a census on disk (vk_census.h) naming
     * the GPU, even the instance waits for first use: properties holds only
     * the census's ids and name until then. */
    bool instance_deferred;
    char census_path[BITONIC_CACHE_PATH_MAX];  /* "" when the default selection keeps none */
    double device_create_ms;         /* wall time of making it (instance, device, queue, sorter, cache) */
    double instance_ms;              /* the instance and device search, when made with the context */
    size_t import_min_bytes;         /* smaller arrays are staged; BITONIC_IMPORT_MIN_BYTES overrides (tests) */
    bool import_min_given;           /* else it depends on the device type, known once the device is */
    bool import_wanted;              /* not BITONIC_HOST_IMPORT=0 */
    uint64_t validation_messages;
    bitonic_message_fn on_message;
    void *message_user_data;
    VkResult last_result;
    /* Scratch for merge passes (bitonic_vulkan_sort_info.scratch), grown on
     * demand and kept for the next sort; never made with the network strategy. */
    VkBuffer scratch;
    VkDeviceMemory scratch_memory;
    VkDeviceSize scratch_bytes;
};

/* A block of bitonic_host_alloc: a host-visible buffer, mapped while it lives. */
typedef struct pinned_block pinned_block;
struct pinned_block {
    unsigned char *mapped;
    size_t bytes;
    VkBuffer buffer;
    VkDeviceMemory memory;
};

/* One array of 32-bit words on the device, with a host-visible staging buffer
 * for upload and download, made on first use and grown to what a transfer
 * needs: a host sort that imports the caller's array stages only its ragged
 * ends, so it never pays a full-size staging twin in host memory. */
typedef struct device_array {
    VkBuffer device_buffer;
    VkDeviceMemory device_memory;
    VkBuffer staging_buffer;
    VkDeviceMemory staging_memory;
    uint32_t *staging;
    VkDeviceSize staging_bytes;
} device_array;

struct bitonic_vk_buffer {
    size_t capacity;
    device_array keys;
    device_array values;             /* made on the first sort with values */
};

/* Sorts past the storage-buffer binding go through buffer device addresses
 * where the device has them; BITONIC_DEVICE_ADDRESSES=0 keeps the binding's
 * limit (docs/API.md, "Sizes"). */
static bool device_addresses_wanted(void)
{
    const char *text = getenv("BITONIC_DEVICE_ADDRESSES");
    return !(text && strcmp(text, "0") == 0);
}

/* Records a failing VkResult and turns it into a status. */
static bitonic_status fail(bitonic_vk_context *vk, VkResult result)
{
    vk->last_result = result;
    return bitonic_status_from_vk(result);
}

#define VK_TRY(vk, call)                      \
    do {                                      \
        VkResult try_result_ = (call);        \
        if (try_result_ != VK_SUCCESS)        \
            return fail((vk), try_result_);   \
    } while (0)

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

static bool has_layer(const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0)
        return false;
    VkLayerProperties *layers = malloc(count * sizeof *layers);
    bool found = false;
    if (layers && vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i)
            found = strcmp(layers[i].layerName, name) == 0;
    free(layers);
    return found;
}

static bitonic_status create_instance(bitonic_vk_context *vk, bool validation)
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
        if (!has_layer(layer))
            return BITONIC_ERROR_VALIDATION_LAYER_MISSING;
        info.pNext = &messenger_info;  /* also catches messages from instance creation itself */
        info.enabledLayerCount = 1;
        info.ppEnabledLayerNames = &layer;
        info.enabledExtensionCount = 2;
        info.ppEnabledExtensionNames = extensions;
    }
    VK_TRY(vk, vkCreateInstance(&info, NULL, &vk->instance));
    if (validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
        if (!create_messenger)
            return BITONIC_ERROR_VALIDATION_LAYER_MISSING;
        messenger_info.pNext = NULL;
        VK_TRY(vk, create_messenger(vk->instance, &messenger_info, NULL, &vk->messenger));
    }
    return BITONIC_SUCCESS;
}

/* A queue family with compute, preferring one that also has timestamps. */
static bool find_compute_queue(VkPhysicalDevice physical_device, uint32_t *out_family, uint32_t *out_timestamp_bits)
{
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &count, NULL);
    VkQueueFamilyProperties *families = malloc((count ? count : 1) * sizeof *families);
    if (!families)
        return false;
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
    free(families);
    return found;
}

static bool device_suitable(VkPhysicalDevice physical_device)
{
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(physical_device, &properties);
    uint32_t family, timestamp_bits = 0;
    return properties.apiVersion >= VK_API_VERSION_1_1 &&
           find_compute_queue(physical_device, &family, &timestamp_bits) &&
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

static bitonic_status choose_device(bitonic_vk_context *vk, const bitonic_selector *selector)
{
    uint32_t count = 0;
    VK_TRY(vk, vkEnumeratePhysicalDevices(vk->instance, &count, NULL));
    if (count == 0)
        return BITONIC_ERROR_DEVICE_NOT_FOUND;
    VkPhysicalDevice *devices = malloc(count * sizeof *devices);
    if (!devices)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    VkResult result = vkEnumeratePhysicalDevices(vk->instance, &count, devices);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        free(devices);
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
    free(devices);
    if (best == UINT32_MAX)
        return matched_unsuitable && selector->kind != BITONIC_SELECT_AUTO ? BITONIC_ERROR_UNSUPPORTED
                                                                          : BITONIC_ERROR_DEVICE_NOT_FOUND;
    return BITONIC_SUCCESS;
}

static bitonic_status create_device(bitonic_vk_context *vk, const bitonic_context_desc *desc)
{
    uint32_t timestamp_bits = 0;
    find_compute_queue(vk->physical_device, &vk->queue_family, &timestamp_bits);
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
    /* Device addresses take sorts past maxStorageBufferRange (vk_sorter.c); the
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
    VK_TRY(vk, vkCreateDevice(vk->physical_device, &device_info, NULL, &vk->device));
    vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    bitonic_vk_importer_init(vk->device, vk->physical_device, import, &vk->importer);

    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                         .queueFamilyIndex = vk->queue_family};
    VK_TRY(vk, vkCreateCommandPool(vk->device, &pool_info, NULL, &vk->command_pool));
    VkCommandBufferAllocateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                               .commandPool = vk->command_pool,
                                               .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &buffer_info, &vk->command_buffer));
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_TRY(vk, vkCreateFence(vk->device, &fence_info, NULL, &vk->fence));
    if (timestamp_bits > 0 && vk->properties.limits.timestampPeriod > 0.0f) {
        VkQueryPoolCreateInfo query_info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                            .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = ALL_QUERIES};
        VK_TRY(vk, vkCreateQueryPool(vk->device, &query_info, NULL, &vk->query_pool));
    }
    bitonic_vk_pipeline_cache_open(vk->device, &vk->properties, desc, &vk->pipeline_cache);
    bitonic_vulkan_sorter_desc sorter_desc = {.next = &vk->tuning_overrides,
                                              .instance = vk->instance, .physical_device = vk->physical_device,
                                              .device = vk->device, .pipeline_cache = vk->pipeline_cache.cache,
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
static double wall_ms(void);

/* The census entry for the device the default selection found (or for none). */
static void write_census(const bitonic_vk_context *vk, bool found)
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
static bitonic_status find_default_device(bitonic_vk_context *vk)
{
    bitonic_vk_census expected = {.found = true, .vendor_id = vk->properties.vendorID,
                                  .device_id = vk->properties.deviceID,
                                  .driver_version = vk->properties.driverVersion};
    bitonic_selector automatic = {BITONIC_SELECT_AUTO, 0, NULL};
    bitonic_status status = create_instance(vk, vk->desc.validation);
    if (status == BITONIC_SUCCESS)
        status = choose_device(vk, &automatic);
    if (status == BITONIC_SUCCESS) {
        vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
        if (vk->properties.vendorID != expected.vendor_id || vk->properties.deviceID != expected.device_id ||
            vk->properties.driverVersion != expected.driver_version)
            write_census(vk, true);
    } else if (status == BITONIC_ERROR_DEVICE_NOT_FOUND || status == BITONIC_ERROR_VULKAN_UNAVAILABLE) {
        write_census(vk, false);
    }
    return status;
}

/* The logical device, queue, sorter and pipeline cache, made now if they were
 * deferred; a failure is kept and returned again on every later call. */
static bitonic_status ensure_device(bitonic_vk_context *vk)
{
    if (vk->sorter)
        return BITONIC_SUCCESS;
    if (vk->device_status != BITONIC_SUCCESS)
        return vk->device_status;
    double start = wall_ms();
    bitonic_status status = BITONIC_SUCCESS;
    if (vk->instance_deferred && !vk->instance) {
        status = find_default_device(vk);
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
    bitonic_vk_context *vk = calloc(1, sizeof *vk);
    if (!vk)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
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
    const char *import_env = getenv("BITONIC_HOST_IMPORT");
    vk->import_wanted = !(import_env && strcmp(import_env, "0") == 0);
    const char *chunk_env = getenv("BITONIC_HOST_CHUNK_BYTES");
    vk->host_chunk_bytes = chunk_env && *chunk_env ? (size_t)strtoull(chunk_env, NULL, 10) : HOST_CHUNK_MIN_BYTES;
    const char *chunk_sort_env = getenv("BITONIC_HOST_CHUNK_SORT");
    vk->chunk_sort_wanted = !(chunk_sort_env && strcmp(chunk_sort_env, "0") == 0);
    const char *min_env = getenv("BITONIC_IMPORT_MIN_BYTES");
    vk->import_min_given = min_env && *min_env;
    vk->import_min_bytes = vk->import_min_given ? (size_t)strtoull(min_env, NULL, 10) : 0;
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
    bitonic_status status = create_instance(vk, desc->validation);
    if (status == BITONIC_SUCCESS)
        status = choose_device(vk, selector);
    if (status == BITONIC_SUCCESS)
        vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
    vk->instance_ms = wall_ms() - start;
    if (census && (status == BITONIC_SUCCESS || status == BITONIC_ERROR_DEVICE_NOT_FOUND))
        write_census(vk, status == BITONIC_SUCCESS);
    /* A device the caller named by index or name is made now, so its errors
     * come from here. The default selection (whose host sorts may all go to
     * the CPU path) and "vulkan" (the tests' default, which so cover this)
     * make it on first use. */
    if (status == BITONIC_SUCCESS && selector->kind != BITONIC_SELECT_AUTO &&
        selector->kind != BITONIC_SELECT_ANY_VULKAN)
        status = ensure_device(vk);
    if (status != BITONIC_SUCCESS) {
        bitonic_vk_context_destroy(vk);
        return status;
    }
    *out = vk;
    return BITONIC_SUCCESS;
}

/* The merge scratch (attach_scratch below), if any. */
static void release_scratch(bitonic_vk_context *vk)
{
    vkDestroyBuffer(vk->device, vk->scratch, NULL);
    vkFreeMemory(vk->device, vk->scratch_memory, NULL);
    vk->scratch = VK_NULL_HANDLE;
    vk->scratch_memory = VK_NULL_HANDLE;
    vk->scratch_bytes = 0;
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
    release_scratch(vk);
    for (size_t b = 0; b < vk->pinned_count; ++b) {  /* blocks the caller did not free */
        vkDestroyBuffer(vk->device, vk->pinned[b].buffer, NULL);
        vkFreeMemory(vk->device, vk->pinned[b].memory, NULL);
    }
    free(vk->pinned);
    vk->pinned = NULL;
    vk->pinned_count = vk->pinned_capacity = 0;
    vkDestroyQueryPool(vk->device, vk->query_pool, NULL);
    vkDestroyFence(vk->device, vk->fence, NULL);
    for (uint32_t c = 0; c < MAX_HOST_CHUNKS; ++c)
        vkDestroyFence(vk->device, vk->chunk_fences[c], NULL);
    memset(vk->chunk_fences, 0, sizeof vk->chunk_fences);
    memset(vk->chunk_commands, 0, sizeof vk->chunk_commands);  /* freed with the pool */
    vk->chunk_objects_made = false;
    vkDestroyCommandPool(vk->device, vk->command_pool, NULL);
    vkDestroyDevice(vk->device, NULL);
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
            destroy_messenger(vk->instance, vk->messenger, NULL);
    }
    if (vk->instance)
        vkDestroyInstance(vk->instance, NULL);
    free(vk);
}

bitonic_status bitonic_vk_context_pipeline_report(const bitonic_vk_context *vk, char *text, size_t capacity)
{
    /* The context is the caller's, not const: asking about it may make the device. */
    bitonic_status status = ensure_device((bitonic_vk_context *)vk);
    return status == BITONIC_SUCCESS ? bitonic_vulkan_sorter_pipeline_report(vk->sorter, text, capacity) : status;
}

void bitonic_vk_context_fill_info(const bitonic_vk_context *vk, bitonic_context_info *info)
{
    /* The sizes come from the sorter, so the info makes a deferred device
     * (and a deferred instance, whose properties it reports). */
    bitonic_status status = ensure_device((bitonic_vk_context *)vk);
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
    return ensure_device(vk);
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

/* The memory type for a buffer: it must have every wanted flag. Among those,
 * prefer types without flags that were not asked for (a DEVICE_LOCAL type that
 * is also HOST_VISIBLE sits in a small BAR window on many GPUs) and then the
 * largest heap, so keys live in plain device memory. */
static bool find_memory_type(const bitonic_vk_context *vk, uint32_t type_bits, VkMemoryPropertyFlags wanted,
                             uint32_t *out_type)
{
    const VkMemoryPropertyFlags extra_flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    bool found = false;
    uint32_t best_extra = 0;
    VkDeviceSize best_heap = 0;
    for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags flags = vk->memory.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (flags & wanted) != wanted)
            continue;
        uint32_t extra = (uint32_t)__builtin_popcount(flags & extra_flags & ~wanted);
        VkDeviceSize heap = vk->memory.memoryHeaps[vk->memory.memoryTypes[i].heapIndex].size;
        if (!found || extra < best_extra || (extra == best_extra && heap > best_heap)) {
            found = true;
            best_extra = extra;
            best_heap = heap;
            *out_type = i;
        }
    }
    return found;
}

static bitonic_status create_buffer(bitonic_vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                                    VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags fallback, VkBuffer *out_buffer,
                                    VkDeviceMemory *out_memory)
{
    /* Storage buffers can be reached by device address where the device has
     * them: a sort past one binding needs it of keys, values and scratch. */
    bool addressed = vk->device_addresses && (usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (addressed)
        usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
                                      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_TRY(vk, vkCreateBuffer(vk->device, &buffer_info, NULL, out_buffer));
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(vk->device, *out_buffer, &requirements);
    uint32_t type;
    if (!find_memory_type(vk, requirements.memoryTypeBits, wanted, &type) &&
        !find_memory_type(vk, requirements.memoryTypeBits, fallback, &type))
        return BITONIC_ERROR_UNSUPPORTED;
    VkMemoryAllocateFlagsInfo flags_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                            .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                          .pNext = addressed ? &flags_info : NULL,
                                          .allocationSize = requirements.size, .memoryTypeIndex = type};
    VK_TRY(vk, vkAllocateMemory(vk->device, &allocate_info, NULL, out_memory));
    VK_TRY(vk, vkBindBufferMemory(vk->device, *out_buffer, *out_memory, 0));
    return BITONIC_SUCCESS;
}

static void destroy_array(bitonic_vk_context *vk, device_array *array)
{
    vkDestroyBuffer(vk->device, array->device_buffer, NULL);
    vkFreeMemory(vk->device, array->device_memory, NULL);
    vkDestroyBuffer(vk->device, array->staging_buffer, NULL);
    vkFreeMemory(vk->device, array->staging_memory, NULL);  /* unmaps too */
    *array = (device_array){0};
}

static bitonic_status create_array(bitonic_vk_context *vk, size_t capacity, device_array *array)
{
    VkDeviceSize size = (VkDeviceSize)capacity * sizeof(uint32_t);
    bitonic_status status = create_buffer(
        vk, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &array->device_buffer, &array->device_memory);
    if (status != BITONIC_SUCCESS)
        destroy_array(vk, array);
    return status;
}

/* The staging buffer, made or grown to at least bytes (every submit waits, so
 * no pending work uses the one it replaces). */
static bitonic_status ensure_staging(bitonic_vk_context *vk, device_array *array, VkDeviceSize bytes)
{
    if (bytes <= array->staging_bytes)
        return BITONIC_SUCCESS;
    vkDestroyBuffer(vk->device, array->staging_buffer, NULL);
    vkFreeMemory(vk->device, array->staging_memory, NULL);
    array->staging_buffer = VK_NULL_HANDLE;
    array->staging_memory = VK_NULL_HANDLE;
    array->staging = NULL;
    array->staging_bytes = 0;
    bitonic_status status = create_buffer(vk, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                              VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                          &array->staging_buffer, &array->staging_memory);
    if (status == BITONIC_SUCCESS) {
        VkResult result = vkMapMemory(vk->device, array->staging_memory, 0, VK_WHOLE_SIZE, 0, (void **)&array->staging);
        if (result != VK_SUCCESS)
            status = fail(vk, result);
    }
    if (status != BITONIC_SUCCESS) {
        vkDestroyBuffer(vk->device, array->staging_buffer, NULL);
        vkFreeMemory(vk->device, array->staging_memory, NULL);
        array->staging_buffer = VK_NULL_HANDLE;
        array->staging_memory = VK_NULL_HANDLE;
        array->staging = NULL;
        return status;
    }
    array->staging_bytes = bytes;
    return BITONIC_SUCCESS;
}

/* A block the GPU's copies reach directly; ordinary memory where the device
 * cannot give one (or there is no device), which bitonic_vk_host_free knows
 * by its absence from the list. */
bitonic_status bitonic_vk_host_alloc(bitonic_vk_context *vk, size_t bytes, void **out_memory)
{
    size_t rounded = bytes > SIZE_MAX - 63u ? 0 : (bytes + 63u) & ~(size_t)63u;
    if (rounded == 0)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    if (ensure_device(vk) == BITONIC_SUCCESS &&
        (vk->pinned_count < vk->pinned_capacity || vk->pinned_capacity < SIZE_MAX / 2 / sizeof *vk->pinned)) {
        if (vk->pinned_count == vk->pinned_capacity) {
            size_t capacity = vk->pinned_capacity ? 2 * vk->pinned_capacity : 8;
            pinned_block *grown = realloc(vk->pinned, capacity * sizeof *grown);
            if (grown) {
                vk->pinned = grown;
                vk->pinned_capacity = capacity;
            }
        }
        pinned_block block = {.bytes = rounded};
        if (vk->pinned_count < vk->pinned_capacity &&
            create_buffer(vk, rounded, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                              VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &block.buffer,
                          &block.memory) == BITONIC_SUCCESS &&
            vkMapMemory(vk->device, block.memory, 0, VK_WHOLE_SIZE, 0, (void **)&block.mapped) == VK_SUCCESS) {
            vk->pinned[vk->pinned_count++] = block;
            *out_memory = block.mapped;
            return BITONIC_SUCCESS;
        }
        vkDestroyBuffer(vk->device, block.buffer, NULL);
        vkFreeMemory(vk->device, block.memory, NULL);
    }
    void *memory = NULL;
    if (posix_memalign(&memory, 64, rounded) != 0)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    *out_memory = memory;
    return BITONIC_SUCCESS;
}

void bitonic_vk_host_free(bitonic_vk_context *vk, void *memory)
{
    for (size_t b = 0; b < vk->pinned_count; ++b) {
        if (vk->pinned[b].mapped == memory) {
            vkDestroyBuffer(vk->device, vk->pinned[b].buffer, NULL);
            vkFreeMemory(vk->device, vk->pinned[b].memory, NULL);  /* unmaps too */
            vk->pinned[b] = vk->pinned[--vk->pinned_count];
            return;
        }
    }
    free(memory);
}

/* The span of an array inside a block of bitonic_host_alloc, borrowing the
 * block's buffer; false when the array is not inside one. */
static bool pinned_span(const bitonic_vk_context *vk, const void *pointer, size_t bytes, bitonic_vk_host_span *out)
{
    const unsigned char *p = pointer;
    for (size_t b = 0; b < vk->pinned_count; ++b) {
        const pinned_block *block = &vk->pinned[b];
        if (p >= block->mapped && bytes <= block->bytes && (size_t)(p - block->mapped) <= block->bytes - bytes) {
            *out = (bitonic_vk_host_span){.imported = block->buffer, .interior_bytes = bytes, .total_bytes = bytes,
                                          .imported_offset = (VkDeviceSize)(p - block->mapped), .borrowed = true};
            return true;
        }
    }
    return false;
}

void bitonic_vk_buffer_destroy(bitonic_vk_context *vk, bitonic_vk_buffer *buffer)
{
    if (!buffer)
        return;
    destroy_array(vk, &buffer->keys);
    destroy_array(vk, &buffer->values);
    free(buffer);
}

bitonic_status bitonic_vk_buffer_create(bitonic_vk_context *vk, size_t capacity, bitonic_vk_buffer **out)
{
    *out = NULL;
    bitonic_status made = ensure_device(vk);
    if (made != BITONIC_SUCCESS)
        return made;
    bitonic_vulkan_sorter_info info;
    bitonic_vulkan_sorter_get_info(vk->sorter, &info);
    if (capacity > info.max_keys)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_vk_buffer *buffer = calloc(1, sizeof *buffer);
    if (!buffer)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    buffer->capacity = capacity;
    bitonic_status status = create_array(vk, capacity, &buffer->keys);
    if (status != BITONIC_SUCCESS) {
        bitonic_vk_buffer_destroy(vk, buffer);
        return status;
    }
    *out = buffer;
    return BITONIC_SUCCESS;
}

/* A barrier between a transfer and the sort, or the sort and a transfer. */
static void record_buffer_barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags source_stage,
                                  VkAccessFlags source_access, VkPipelineStageFlags destination_stage,
                                  VkAccessFlags destination_access)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = source_access,
                               .dstAccessMask = destination_access};
    vkCmdPipelineBarrier(command_buffer, source_stage, destination_stage, 0, 1, &barrier, 0, NULL, 0, NULL);
}

static bitonic_status begin_commands(bitonic_vk_context *vk)
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

static bitonic_status submit_and_wait(bitonic_vk_context *vk)
{
    VK_TRY(vk, vkEndCommandBuffer(vk->command_buffer));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &vk->command_buffer};
    VK_TRY(vk, vkResetFences(vk->device, 1, &vk->fence));
    VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &submit, vk->fence));
    VK_TRY(vk, vkWaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX));
    return BITONIC_SUCCESS;
}

static void record_upload(bitonic_vk_context *vk, const device_array *array, size_t count)
{
    VkBufferCopy region = {.size = (VkDeviceSize)count * sizeof(uint32_t)};
    vkCmdCopyBuffer(vk->command_buffer, array->staging_buffer, array->device_buffer, 1, &region);
}

static void record_download(bitonic_vk_context *vk, const device_array *array, size_t count)
{
    VkBufferCopy region = {.size = (VkDeviceSize)count * sizeof(uint32_t)};
    vkCmdCopyBuffer(vk->command_buffer, array->device_buffer, array->staging_buffer, 1, &region);
}

static void record_download_barrier(bitonic_vk_context *vk)
{
    record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

static bitonic_status upload_array(bitonic_vk_context *vk, device_array *array, const uint32_t *words, size_t count)
{
    bitonic_status status = ensure_staging(vk, array, (VkDeviceSize)count * sizeof(uint32_t));
    if (status != BITONIC_SUCCESS)
        return status;
    memcpy(array->staging, words, count * sizeof(uint32_t));
    status = begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    record_upload(vk, array, count);
    return submit_and_wait(vk);
}

static bitonic_status download_array(bitonic_vk_context *vk, device_array *array, uint32_t *words, size_t count)
{
    bitonic_status status = ensure_staging(vk, array, (VkDeviceSize)count * sizeof(uint32_t));
    if (status != BITONIC_SUCCESS)
        return status;
    status = begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    record_download(vk, array, count);
    record_download_barrier(vk);
    status = submit_and_wait(vk);
    if (status == BITONIC_SUCCESS)
        memcpy(words, array->staging, count * sizeof(uint32_t));
    return status;
}

static bitonic_status ensure_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer)
{
    return buffer->values.device_buffer ? BITONIC_SUCCESS : create_array(vk, buffer->capacity, &buffer->values);
}

bitonic_status bitonic_vk_buffer_upload(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, const uint32_t *keys,
                                        size_t count)
{
    return upload_array(vk, &buffer->keys, keys, count);
}

bitonic_status bitonic_vk_buffer_download(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *keys,
                                          size_t count)
{
    return download_array(vk, &buffer->keys, keys, count);
}

bitonic_status bitonic_vk_buffer_upload_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer,
                                               const uint32_t *values, size_t count)
{
    bitonic_status status = ensure_values(vk, buffer);
    return status == BITONIC_SUCCESS ? upload_array(vk, &buffer->values, values, count) : status;
}

bitonic_status bitonic_vk_buffer_download_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *values,
                                                 size_t count)
{
    bitonic_status status = ensure_values(vk, buffer);
    return status == BITONIC_SUCCESS ? download_array(vk, &buffer->values, values, count) : status;
}

/* The sort of a resident buffer, as the recording API describes it. */
static bitonic_vulkan_sort_info sort_info_for(const bitonic_vk_buffer *buffer, size_t count, bool with_values,
                                              const bitonic_sort_request *request)
{
    return (bitonic_vulkan_sort_info){.keys = buffer->keys.device_buffer, .count = count,
                                      .order = request->order, .key_type = request->key_type,
                                      .row_length = request->row_length,
                                      .values = with_values ? buffer->values.device_buffer : VK_NULL_HANDLE};
}

/* Gives the sort the scratch it can use to merge, unless the context sorts
 * with the network alone. Scratch that cannot be had (device memory is short)
 * is not an error: the network sorts in place instead. Called before recording:
 * a grown scratch buffer replaces one no pending work uses (every submit waits). */
static void attach_scratch(bitonic_vk_context *vk, bitonic_vulkan_sort_info *info)
{
    VkDeviceSize wanted = bitonic_vulkan_sort_scratch_bytes(vk->sorter, info);
    if (wanted == 0)
        return;
    if (wanted > vk->scratch_bytes) {
        release_scratch(vk);
        if (create_buffer(vk, wanted, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                          &vk->scratch, &vk->scratch_memory) != BITONIC_SUCCESS) {
            release_scratch(vk);  /* a half-made buffer too */
            return;
        }
        vk->scratch_bytes = wanted;
    }
    info->scratch = vk->scratch;
}

/* Records the sort with timestamps when timing is wanted and possible. */
static bitonic_status record_sort(bitonic_vk_context *vk, bitonic_vulkan_sort_info info, bool timed, bool profile)
{
    if (timed) {
        vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, 0, QUERY_COUNT);
        info.timestamps = vk->query_pool;
        info.profile_passes = profile;
    }
    return bitonic_vulkan_record_sort(vk->sorter, vk->command_buffer, &info);
}

/* passes: what the recorded sort has, so the timestamps it wrote are known. */
static bitonic_status read_timing(bitonic_vk_context *vk, uint32_t passes, bool profile, bitonic_timing *timing)
{
    uint32_t stamps = profile && passes > 0 ? passes + 1u : 2u;
    uint64_t ticks[QUERY_COUNT];
    VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, 0, stamps, sizeof ticks, ticks, sizeof ticks[0],
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
    timing->sort_ms = (double)(ticks[stamps - 1] - ticks[0]) * period_ms;
    timing->pass_count = passes;
    if (profile)
        for (uint32_t p = 0; p < passes && p < timing->pass_capacity; ++p)
            timing->pass_ms[p] = (double)(ticks[p + 1] - ticks[p]) * period_ms;
    return BITONIC_SUCCESS;
}

/* The arrays of a host sort as the device sees them: imported or staged
 * (vk_transfer.c). NULL for a sort of a resident buffer. */
typedef struct host_spans {
    bitonic_vk_host_span keys, values;
    bool with_values;
} host_spans;

/* Timestamps around the stages of a host sort, after the sort's own: before
 * the upload, when the upload's copies are done (written at the TRANSFER stage,
 * which waits for them; the sort's own first stamp, at TOP_OF_PIPE, need not),
 * and when the download's copies are done. The sort's last stamp (BOTTOM_OF_PIPE)
 * ends the sort stage. */
enum {
    STAGE_QUERY_BEFORE_UPLOAD = QUERY_COUNT,
    STAGE_QUERY_AFTER_UPLOAD = QUERY_COUNT + 1,
    STAGE_QUERY_AFTER_DOWNLOAD = QUERY_COUNT + 2,
    STAGE_QUERIES = STAGE_QUERY_COUNT,
};

static void record_host_copies(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, const host_spans *spans,
                               bool to_device)
{
    bitonic_vk_host_span_record_copy(vk->command_buffer, &spans->keys, buffer->keys.staging_buffer,
                                     buffer->keys.device_buffer, 0, to_device);
    if (spans->with_values)
        bitonic_vk_host_span_record_copy(vk->command_buffer, &spans->values, buffer->values.staging_buffer,
                                         buffer->values.device_buffer, 0, to_device);
}

static bitonic_status sort_with_transfers(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, size_t count,
                                          bool with_values, const bitonic_sort_request *request,
                                          bitonic_timing *timing, const host_spans *spans,
                                          bitonic_host_timing *stages)
{
    size_t key_words = bitonic_key_words(request->key_type);
    if (count > buffer->capacity / key_words)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (with_values) {
        bitonic_status status = ensure_values(vk, buffer);
        if (status != BITONIC_SUCCESS)
            return status;
    }
    bool transfers = spans && count > 0;
    bool staged_timing = transfers && stages && vk->query_pool != VK_NULL_HANDLE;
    bool timed = (timing || staged_timing) && vk->query_pool != VK_NULL_HANDLE;
    bool profile = timed && timing && timing->pass_ms && timing->pass_capacity > 0;
    bitonic_status status = begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    if (staged_timing) {
        vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, STAGE_QUERY_BEFORE_UPLOAD, STAGE_QUERIES);
        vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->query_pool,
                            STAGE_QUERY_BEFORE_UPLOAD);
    }
    if (transfers) {
        record_host_copies(vk, buffer, spans, true);
        if (staged_timing)
            vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, vk->query_pool,
                                STAGE_QUERY_AFTER_UPLOAD);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }
    bitonic_vulkan_sort_info info = sort_info_for(buffer, count, with_values, request);
    attach_scratch(vk, &info);
    uint32_t passes = bitonic_vulkan_sort_pass_count(vk->sorter, &info);
    status = record_sort(vk, info, timed, profile);
    if (status != BITONIC_SUCCESS) {
        vkEndCommandBuffer(vk->command_buffer);
        return status;
    }
    if (transfers) {
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        record_host_copies(vk, buffer, spans, false);
        record_download_barrier(vk);
    }
    if (staged_timing)
        vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->query_pool,
                            STAGE_QUERY_AFTER_DOWNLOAD);
    status = submit_and_wait(vk);
    bitonic_timing sort_timing = {0};
    if (status == BITONIC_SUCCESS && timed)
        status = read_timing(vk, passes, profile, timing ? timing : &sort_timing);
    else if (timing && !timed)
        *timing = (bitonic_timing){.pass_count = passes};
    if (status == BITONIC_SUCCESS && staged_timing) {
        /* The sort's last stamp follows its last pass. */
        uint32_t last = profile && passes > 0 ? passes : 1u;
        uint64_t sort_end, stage_ticks[STAGE_QUERIES];
        VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, last, 1, sizeof sort_end, &sort_end,
                                         sizeof sort_end, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, STAGE_QUERY_BEFORE_UPLOAD, STAGE_QUERIES,
                                         sizeof stage_ticks, stage_ticks, sizeof stage_ticks[0],
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
        uint64_t before_upload = stage_ticks[0], after_upload = stage_ticks[1], after_download = stage_ticks[2];
        stages->upload_ms = (double)(after_upload - before_upload) * period_ms;
        stages->sort_ms = (double)(sort_end - after_upload) * period_ms;
        stages->download_ms = (double)(after_download - sort_end) * period_ms;
    }
    return status;
}

bitonic_status bitonic_vk_buffer_sort(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, size_t count,
                                      bool with_values, const bitonic_sort_request *request, bitonic_timing *timing)
{
    return sort_with_transfers(vk, buffer, count, with_values, request, timing, NULL, NULL);
}


static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The chunked host sort's command buffers and fences, made once. */
static bitonic_status ensure_chunk_objects(bitonic_vk_context *vk)
{
    if (vk->chunk_objects_made)
        return BITONIC_SUCCESS;
    VkCommandBufferAllocateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                               .commandPool = vk->command_pool,
                                               .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                               .commandBufferCount = 2 * MAX_HOST_CHUNKS};
    VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &buffer_info, vk->chunk_commands));
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    for (uint32_t c = 0; c < MAX_HOST_CHUNKS; ++c) {
        VkResult result = vkCreateFence(vk->device, &fence_info, NULL, &vk->chunk_fences[c]);
        if (result != VK_SUCCESS) {
            for (uint32_t d = 0; d < c; ++d)
                vkDestroyFence(vk->device, vk->chunk_fences[d], NULL);
            memset(vk->chunk_fences, 0, sizeof vk->chunk_fences);
            vkFreeCommandBuffers(vk->device, vk->command_pool, 2 * MAX_HOST_CHUNKS, vk->chunk_commands);
            memset(vk->chunk_commands, 0, sizeof vk->chunk_commands);
            return fail(vk, result);
        }
    }
    vk->chunk_objects_made = true;
    return BITONIC_SUCCESS;
}

/* How many chunks a staged host sort of bytes is cut into: 1 means no
 * pipeline (too small for two chunks, or turned off). */
static uint32_t host_chunk_count(const bitonic_vk_context *vk, size_t bytes)
{
    if (vk->host_chunk_bytes == 0)
        return 1;
    size_t chunks = bytes / vk->host_chunk_bytes;
    return chunks < 2 ? 1u : chunks > MAX_HOST_CHUNKS ? MAX_HOST_CHUNKS : (uint32_t)chunks;
}

/* Keys [first, end) of one chunk, and its copies in each direction. */
typedef struct host_chunk {
    size_t first, end;
} host_chunk;

/* Where the GPU copies an array's chunks from and to: the staging buffer
 * (which the CPU fills and empties chunk by chunk) or the caller's block of
 * bitonic_host_alloc (which it reads and writes directly). */
typedef struct chunk_source {
    VkBuffer buffer;
    VkDeviceSize offset;             /* where the array starts in it */
    bool copied_on_host;             /* staged: the CPU copies each chunk */
} chunk_source;

/* The measure of the union of the intervals [ticks[2i], ticks[2i+1]]: how long
 * the bus was busy with a direction's copies, which may queue behind each other. */
static uint64_t busy_ticks(const uint64_t *ticks, uint32_t intervals)
{
    uint64_t busy = 0, covered_until = 0;
    for (uint32_t i = 0; i < intervals; ++i) {
        uint64_t begin = ticks[2 * i], end = ticks[2 * i + 1];
        if (end <= begin)
            continue;
        if (begin < covered_until)
            begin = covered_until;
        if (end > begin) {
            busy += end - begin;
            covered_until = end;
        }
    }
    return busy;
}

/* One chunk's copy between the staging buffers and the device buffers, with a
 * timestamp on each side when timed. The first upload first orders itself
 * after the previous submission's writes and resets the chunk queries. */
static bitonic_status record_chunk_copy(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, VkCommandBuffer commands,
                                        const chunk_source sources[2], host_chunk chunk, size_t key_bytes,
                                        bool with_values, bool to_device,
                                        bool first, bool timed, uint32_t query,
                                        const bitonic_vulkan_sort_info *chunk_sort)
{
    VK_TRY(vk, vkResetCommandBuffer(commands, 0));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(vk, vkBeginCommandBuffer(commands, &begin));
    if (first) {
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        if (timed)
            vkCmdResetQueryPool(commands, vk->query_pool, CHUNK_QUERY_BASE, 4u * MAX_HOST_CHUNKS);
    }
    if (timed)
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->query_pool, query);
    VkDeviceSize key_at = chunk.first * key_bytes, value_at = chunk.first * sizeof(uint32_t);
    VkBufferCopy key_region = {to_device ? sources[0].offset + key_at : key_at,
                               to_device ? key_at : sources[0].offset + key_at, (chunk.end - chunk.first) * key_bytes};
    VkBufferCopy value_region = {to_device ? sources[1].offset + value_at : value_at,
                                 to_device ? value_at : sources[1].offset + value_at,
                                 (chunk.end - chunk.first) * sizeof(uint32_t)};
    if (to_device) {
        vkCmdCopyBuffer(commands, sources[0].buffer, buffer->keys.device_buffer, 1, &key_region);
        if (with_values)
            vkCmdCopyBuffer(commands, sources[1].buffer, buffer->values.device_buffer, 1, &value_region);
    } else {
        vkCmdCopyBuffer(commands, buffer->keys.device_buffer, sources[0].buffer, 1, &key_region);
        if (with_values)
            vkCmdCopyBuffer(commands, buffer->values.device_buffer, sources[1].buffer, 1, &value_region);
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    }
    if (timed)
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, vk->query_pool, query + 1);
    if (chunk_sort) {
        /* After this chunk's copy, and after the previous chunk's sort (they share the scratch). */
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        bitonic_status sorted = bitonic_vulkan_record_sort(vk->sorter, commands, chunk_sort);
        if (sorted != BITONIC_SUCCESS) {
            vkEndCommandBuffer(commands);
            return sorted;
        }
    }
    VK_TRY(vk, vkEndCommandBuffer(commands));
    return BITONIC_SUCCESS;
}

static bitonic_status submit_commands(bitonic_vk_context *vk, VkCommandBuffer commands, VkFence fence)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &commands};
    VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &submit, fence));
    return BITONIC_SUCCESS;
}

/* The copies of one chunk between the caller's arrays and the staging buffers. */
static void copy_chunk(bitonic_copy_crew *crew, bitonic_vk_buffer *buffer, const chunk_source sources[2], void *keys,
                       uint32_t *values, host_chunk chunk, size_t key_bytes, bool to_staging)
{
    unsigned char *host_keys = (unsigned char *)keys + chunk.first * key_bytes;
    unsigned char *staged_keys = (unsigned char *)buffer->keys.staging + chunk.first * key_bytes;
    bitonic_copy_job jobs[2];
    unsigned job_count = 0;
    if (sources[0].copied_on_host)
        jobs[job_count++] = (bitonic_copy_job){to_staging ? (void *)staged_keys : (void *)host_keys,
                                               to_staging ? host_keys : staged_keys,
                                               (chunk.end - chunk.first) * key_bytes};
    if (values && sources[1].copied_on_host) {
        uint32_t *host_values = values + chunk.first, *staged_values = buffer->values.staging + chunk.first;
        jobs[job_count++] = (bitonic_copy_job){to_staging ? staged_values : host_values,
                                               to_staging ? host_values : staged_values,
                                               (chunk.end - chunk.first) * sizeof(uint32_t)};
    }
    if (job_count > 0)
        bitonic_copy_crew_copy(crew, jobs, job_count);
}

/* The host sort of staged arrays as a pipeline over chunks: the CPU copies
 * chunk i into the staging buffer and submits its upload, so the bus carries
 * chunk i while the CPU copies chunk i+1; the sort follows the last upload; the
 * downloads are submitted at once, each with its fence, and the CPU copies
 * chunk j out while the bus carries chunk j+1. Without it the CPU's copies
 * (3.6 ms at 2^24 on the H100 machine) and the bus's (2.8 ms) ran one after
 * the other. On any failure after the first submission the queue is drained
 * before returning, so nothing pending uses the buffers. */
static bitonic_status sort_in_chunks(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, void *keys, uint32_t *values,
                                     size_t count, const bitonic_sort_request *request, uint32_t chunk_count,
                                     const host_spans *spans, bitonic_timing *timing, bitonic_host_timing *stages)
{
    double start = wall_ms();
    bool with_values = values != NULL;
    size_t key_bytes = bitonic_key_words(request->key_type) * sizeof(uint32_t);
    /* Each array from the staging buffer, or from the caller's pinned block. */
    const bitonic_vk_host_span *array_spans[2] = {&spans->keys, &spans->values};
    device_array *arrays[2] = {&buffer->keys, &buffer->values};
    size_t array_bytes[2] = {count * key_bytes, count * sizeof(uint32_t)};
    chunk_source sources[2] = {{0}};
    bitonic_status status = BITONIC_SUCCESS;
    for (int a = 0; a < (with_values ? 2 : 1) && status == BITONIC_SUCCESS; ++a) {
        if (array_spans[a]->borrowed) {
            sources[a] = (chunk_source){array_spans[a]->imported, array_spans[a]->imported_offset, false};
        } else {
            status = ensure_staging(vk, arrays[a], array_bytes[a]);
            sources[a] = (chunk_source){arrays[a]->staging_buffer, 0, true};
        }
    }
    if (status == BITONIC_SUCCESS)
        status = ensure_chunk_objects(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    bitonic_vulkan_sort_info info = sort_info_for(buffer, count, with_values, request);
    attach_scratch(vk, &info);  /* before the first submission: nothing pending uses the scratch */
    /* Chunks of whole cache lines of keys (16 keys), the last one shorter. */
    size_t chunk_keys = ((count + chunk_count - 1) / chunk_count + 15u) & ~(size_t)15u;
    /* Where the sort merges runs, each chunk is sorted as soon as it is on the
     * device (while the next one crosses the bus), and the sort after the last
     * upload only merges the chunks: chunks of 2^run_log keys then, with an
     * even number of merge levels above them (the last merge writes the keys'
     * own buffer), so sometimes half as many chunks as the bytes would give. */
    uint32_t tile_log = 0, run_log = 0, total_log = bitonic_ceil_log2(count);
    if (vk->chunk_sort_wanted && bitonic_vk_merge_of_runs_tile_log(vk->sorter, &info, &tile_log) == BITONIC_SUCCESS) {
        uint32_t r = bitonic_ceil_log2((count + chunk_count - 1) / chunk_count);
        if (r < tile_log)
            r = tile_log;
        if (total_log > r && (total_log - r) % 2u != 0)
            ++r;
        if (total_log > r) {
            run_log = r;
            chunk_keys = (size_t)1 << r;
        }
    }
    chunk_count = (uint32_t)((count + chunk_keys - 1) / chunk_keys);
    bool staged_timing = stages && vk->query_pool != VK_NULL_HANDLE;
    bool timed = (timing || staged_timing) && vk->query_pool != VK_NULL_HANDLE;
    bool profile = timed && timing && timing->pass_ms && timing->pass_capacity > 0 && run_log == 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned hands = cores < 1 ? 1u : cores > (long)MAX_COPY_HANDS ? MAX_COPY_HANDS : (unsigned)cores;
    const char *hands_env = getenv("BITONIC_HOST_COPY_THREADS");
    if (hands_env && atoi(hands_env) > 0)
        hands = (unsigned)atoi(hands_env);
    bool host_copies = sources[0].copied_on_host || (with_values && sources[1].copied_on_host);
    bitonic_copy_crew *crew = host_copies ? bitonic_copy_crew_start(hands) : NULL;  /* NULL: the caller copies alone */
    bool submitted = false;
    double first_submitted = start, last_arrived = start;
    for (uint32_t c = 0; c < chunk_count && status == BITONIC_SUCCESS; ++c) {
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        bitonic_vulkan_sort_info chunk_sort = info;
        chunk_sort.count = chunk.end - chunk.first;
        chunk_sort.keys_offset = chunk.first * key_bytes;
        chunk_sort.values_offset = chunk.first * sizeof(uint32_t);
        status = record_chunk_copy(vk, buffer, vk->chunk_commands[c], sources, chunk, key_bytes, with_values, true,
                                   c == 0,
                                   staged_timing, CHUNK_QUERY_BASE + 2 * c, run_log > 0 ? &chunk_sort : NULL);
        if (status != BITONIC_SUCCESS)
            break;
        copy_chunk(crew, buffer, sources, keys, values, chunk, key_bytes, true);
        status = submit_commands(vk, vk->chunk_commands[c], VK_NULL_HANDLE);
        if (status == BITONIC_SUCCESS && !submitted) {
            submitted = true;
            first_submitted = wall_ms();
        }
    }
    uint32_t passes = 0;
    if (status == BITONIC_SUCCESS) {
        passes = bitonic_vulkan_sort_pass_count(vk->sorter, &info);
        status = begin_commands(vk);
    }
    if (status == BITONIC_SUCCESS) {
        if (run_log > 0) {
            /* The merges of the sorted chunks, timed as the sort stage. */
            if (timed) {
                vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, 0, QUERY_COUNT);
                info.timestamps = vk->query_pool;
            }
            status = bitonic_vk_record_merge_of_runs(vk->sorter, vk->command_buffer, &info, run_log);
        } else {
            status = record_sort(vk, info, timed, profile);
        }
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        VkResult ended = vkEndCommandBuffer(vk->command_buffer);
        if (status == BITONIC_SUCCESS)
            status = ended == VK_SUCCESS ? submit_commands(vk, vk->command_buffer, VK_NULL_HANDLE) : fail(vk, ended);
    }
    uint32_t downloads_submitted = 0;
    for (uint32_t c = 0; c < chunk_count && status == BITONIC_SUCCESS; ++c) {
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        status = record_chunk_copy(vk, buffer, vk->chunk_commands[MAX_HOST_CHUNKS + c], sources, chunk, key_bytes,
                                   with_values, false, false, staged_timing, CHUNK_QUERY_BASE + 2 * (MAX_HOST_CHUNKS + c), NULL);
        if (status == BITONIC_SUCCESS) {
            VkResult reset = vkResetFences(vk->device, 1, &vk->chunk_fences[c]);
            status = reset == VK_SUCCESS ? submit_commands(vk, vk->chunk_commands[MAX_HOST_CHUNKS + c],
                                                           vk->chunk_fences[c])
                                         : fail(vk, reset);
        }
        if (status == BITONIC_SUCCESS)
            ++downloads_submitted;
    }
    for (uint32_t c = 0; c < downloads_submitted && status == BITONIC_SUCCESS; ++c) {
        VkResult waited = vkWaitForFences(vk->device, 1, &vk->chunk_fences[c], VK_TRUE, UINT64_MAX);
        if (waited != VK_SUCCESS) {
            status = fail(vk, waited);
            break;
        }
        last_arrived = wall_ms();
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        copy_chunk(crew, buffer, sources, keys, values, chunk, key_bytes, false);
    }
    bitonic_copy_crew_stop(crew);
    if (status != BITONIC_SUCCESS) {
        if (submitted)
            vkQueueWaitIdle(vk->queue);
        return status;
    }
    bitonic_timing sort_timing = {0};
    if (timed)
        status = read_timing(vk, passes, profile, timing ? timing : &sort_timing);
    else if (timing)
        *timing = (bitonic_timing){.pass_count = passes};
    if (status == BITONIC_SUCCESS && stages) {
        double end = wall_ms();
        bitonic_host_timing local = {.ran_on = BITONIC_BACKEND_VULKAN, .count = count, .chunks = chunk_count,
                                     .pinned = spans->keys.borrowed,
                                     .total_ms = end - start, .prepare_ms = first_submitted - start,
                                     .finish_ms = end - last_arrived,
                                     .sort_ms = timing ? timing->sort_ms : sort_timing.sort_ms};
        if (staged_timing) {
            /* Only the queries of the chunks there were: the others stay unwritten. */
            uint64_t ticks[4 * MAX_HOST_CHUNKS];
            for (uint32_t direction = 0; direction < 2; ++direction)
                VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool,
                                                 CHUNK_QUERY_BASE + direction * 2u * MAX_HOST_CHUNKS, 2u * chunk_count,
                                                 2u * chunk_count * sizeof ticks[0],
                                                 ticks + direction * 2u * MAX_HOST_CHUNKS, sizeof ticks[0],
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
            local.upload_ms = (double)busy_ticks(ticks, chunk_count) * period_ms;
            local.download_ms = (double)busy_ticks(ticks + 2 * MAX_HOST_CHUNKS, chunk_count) * period_ms;
        }
        *stages = local;
    }
    return status;
}

bitonic_status bitonic_vk_sort_host(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, void *keys,
                                    uint32_t *values, size_t count, const bitonic_sort_request *request,
                                    bitonic_timing *timing, bitonic_host_timing *stages)
{
    double start = wall_ms();
    bool with_values = values != NULL;
    if (with_values) {
        bitonic_status status = ensure_values(vk, buffer);
        if (status != BITONIC_SUCCESS)
            return status;
    }
    size_t key_bytes = bitonic_key_words(request->key_type) * sizeof(uint32_t);
    if (count > buffer->capacity / bitonic_key_words(request->key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* Keys and values are imported where the driver can (each on its own: one
     * may be aligned well enough and the other not), else staged. */
    host_spans spans = {.with_values = with_values};
    size_t min_import = vk->import_min_given ? vk->import_min_bytes
                        : vk->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? DISCRETE_MIN_IMPORT_BYTES
                                                                                             : MIN_IMPORT_BYTES;
    /* Arrays in blocks of bitonic_host_alloc need neither. */
    bool pinned = pinned_span(vk, keys, count * key_bytes, &spans.keys);
    bool imported =
        !pinned && bitonic_vk_host_span_import(&vk->importer, keys, count * key_bytes, min_import, &spans.keys);
    if (with_values && !pinned_span(vk, values, count * sizeof(uint32_t), &spans.values))
        bitonic_vk_host_span_import(&vk->importer, values, count * sizeof(uint32_t), min_import, &spans.values);
    /* Arrays staged whole (beside a pinned one or not), and big enough, go
     * through the chunked pipeline: it hides the CPU's copies behind the bus.
     * Arrays all pinned have no copies to hide, and one submission beats the
     * chunks there (H100, 2^24 u32: 4.15-4.44 ms against 5.16; docs/perf-log.md, entry 29). */
    bool staged_keys = spans.keys.imported == VK_NULL_HANDLE, staged_values = with_values &&
                                                                              spans.values.imported == VK_NULL_HANDLE;
    if ((staged_keys || spans.keys.borrowed) && (!with_values || staged_values || spans.values.borrowed) &&
        (staged_keys || staged_values)) {
        uint32_t chunks = host_chunk_count(vk, count * (key_bytes + (with_values ? sizeof(uint32_t) : 0)));
        if (chunks > 1)
            return sort_in_chunks(vk, buffer, keys, values, count, request, chunks, &spans, timing, stages);
    }
    bitonic_status staged = ensure_staging(vk, &buffer->keys, bitonic_vk_host_span_staging_bytes(&spans.keys));
    if (staged == BITONIC_SUCCESS && with_values)
        staged = ensure_staging(vk, &buffer->values, bitonic_vk_host_span_staging_bytes(&spans.values));
    if (staged != BITONIC_SUCCESS) {
        bitonic_vk_host_span_release(vk->device, &spans.keys);
        bitonic_vk_host_span_release(vk->device, &spans.values);
        return staged;
    }
    bitonic_vk_host_span_stage_ends(&spans.keys, keys, buffer->keys.staging, true);
    if (with_values)
        bitonic_vk_host_span_stage_ends(&spans.values, values, buffer->values.staging, true);
    double prepared = wall_ms();
    bitonic_host_timing local = {0};
    bitonic_status status =
        sort_with_transfers(vk, buffer, count, with_values, request, timing, &spans, stages ? &local : NULL);
    double sorted = wall_ms();
    if (status == BITONIC_SUCCESS) {
        bitonic_vk_host_span_stage_ends(&spans.keys, keys, buffer->keys.staging, false);
        if (with_values)
            bitonic_vk_host_span_stage_ends(&spans.values, values, buffer->values.staging, false);
    }
    bitonic_vk_host_span_release(vk->device, &spans.keys);
    bitonic_vk_host_span_release(vk->device, &spans.values);
    if (stages && status == BITONIC_SUCCESS) {
        double end = wall_ms();
        local.ran_on = BITONIC_BACKEND_VULKAN;
        local.count = count;
        local.imported = imported;
        local.pinned = pinned;
        local.chunks = 1;
        local.prepare_ms = prepared - start;
        local.finish_ms = end - sorted;
        local.total_ms = end - start;
        *stages = local;
    }
    return status;
}

bitonic_status bitonic_vk_search_host(bitonic_vk_context *vk, const void *sorted_keys, size_t count,
                                      const void *lows, const void *highs, size_t query_count,
                                      uint32_t *out_first, uint32_t *out_end, const bitonic_sort_request *request)
{
    enum { KEYS, LOWS, HIGHS, FIRST, END, ARRAYS };
    bitonic_status made = ensure_device(vk);
    if (made != BITONIC_SUCCESS)
        return made;
    if (count >= UINT32_MAX || query_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;  /* the search binds its buffers: far below this */
    device_array arrays[ARRAYS] = {{0}};
    size_t words = bitonic_key_words(request->key_type);  /* per key and per bound */
    size_t sizes[ARRAYS] = {count ? count * words : 1, query_count * words, query_count * words, query_count,
                            query_count};
    bitonic_status status = BITONIC_SUCCESS;
    for (int a = 0; a < ARRAYS && status == BITONIC_SUCCESS; ++a) {
        status = create_array(vk, sizes[a], &arrays[a]);
        if (status == BITONIC_SUCCESS)
            status = ensure_staging(vk, &arrays[a], (VkDeviceSize)sizes[a] * sizeof(uint32_t));
    }
    if (status == BITONIC_SUCCESS) {
        memcpy(arrays[KEYS].staging, sorted_keys, count * words * sizeof(uint32_t));
        memcpy(arrays[LOWS].staging, lows, query_count * words * sizeof(uint32_t));
        memcpy(arrays[HIGHS].staging, highs, query_count * words * sizeof(uint32_t));
        status = begin_commands(vk);
    }
    if (status == BITONIC_SUCCESS) {
        for (int a = KEYS; a <= HIGHS; ++a)
            record_upload(vk, &arrays[a], sizes[a]);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        bitonic_vulkan_search_info info = {
            .keys = arrays[KEYS].device_buffer, .count = (uint32_t)count, .order = request->order,
            .key_type = request->key_type, .lows = arrays[LOWS].device_buffer, .highs = arrays[HIGHS].device_buffer,
            .query_count = (uint32_t)query_count, .first = arrays[FIRST].device_buffer,
            .end = arrays[END].device_buffer};
        status = bitonic_vulkan_record_search(vk->sorter, vk->command_buffer, &info);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        record_download(vk, &arrays[FIRST], query_count);
        record_download(vk, &arrays[END], query_count);
        record_download_barrier(vk);
        if (status == BITONIC_SUCCESS)
            status = submit_and_wait(vk);
        else
            vkEndCommandBuffer(vk->command_buffer);
    }
    if (status == BITONIC_SUCCESS) {
        memcpy(out_first, arrays[FIRST].staging, query_count * sizeof(uint32_t));
        memcpy(out_end, arrays[END].staging, query_count * sizeof(uint32_t));
    }
    for (int a = 0; a < ARRAYS; ++a)
        destroy_array(vk, &arrays[a]);
    return status;
}

bitonic_status bitonic_list_devices(bitonic_device_info *out_devices, uint32_t capacity, uint32_t *out_count)
{
    if (!out_count || (!out_devices && capacity > 0))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_count = 0;
    bitonic_vk_context scratch = {0};
    bitonic_status status = create_instance(&scratch, false);
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
