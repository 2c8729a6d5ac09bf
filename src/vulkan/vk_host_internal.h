/* vk_host_internal.h: what the files of the Vulkan host layer share: the
 * context and resident buffer objects, their timestamp and chunk limits, and
 * the helpers one file defines and another calls. The layer is vk_context.c
 * (the context's lifetime), vk_devices.c (instance, device choice, census),
 * vk_memory.c (allocation, scratch, resident buffers) and vk_host_sort.c (host
 * sorts and their chunked transfers); vk_host.h is what the backend calls. */
#ifndef BITONIC_VK_HOST_INTERNAL_H
#define BITONIC_VK_HOST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bitonic_tuning_overrides.h"
#include "cache_dir.h"
#include "schedule.h"
#include "vk_host.h"
#include "vk_internal.h"
#include "vk_pipeline_cache.h"
#include "vk_transfer.h"

/* The sort's own timestamps: before and after it, and between passes when profiled. */
#define QUERY_COUNT (2u + BITONIC_SCHEDULE_MAX_PASSES)
/* After the sort's own timestamps: three around the stages of a host sort
 * (sort_with_transfers), then two around each chunk's copy in the chunked
 * host sort (sort_in_chunks), uploads then downloads. */
#define STAGE_QUERY_COUNT 3u
#define CHUNK_QUERY_BASE (QUERY_COUNT + STAGE_QUERY_COUNT)
#define ALL_QUERIES (CHUNK_QUERY_BASE + 4u * MAX_HOST_CHUNKS)
/* A staged host sort of at least two chunks runs as a pipeline over chunks
 * (sort_in_chunks): the CPU copies chunk i+1 into the staging buffer while the
 * GPU copies chunk i over the bus, and on the way back the GPU copies chunk
 * j+1 while the CPU copies chunk j out. Chunks are at least this big (16
 * chunks of 4 MiB at 2^24 u32 keys), so the submissions, one per chunk, cost
 * little beside the copies; BITONIC_HOST_CHUNK_BYTES overrides it (tests), 0
 * turns the pipeline off. */
#define HOST_CHUNK_MIN_BYTES ((size_t)4 << 20)
#define MAX_HOST_CHUNKS 16u

struct bitonic_vk_context {
    /* The caller's allocators (bitonic_allocator): host memory for the
     * layer's own blocks, and callbacks (allocator NULL: the driver's) for
     * every Vulkan object it makes, copied into vulkan_callbacks. */
    bitonic_host_memory host_memory;
    VkAllocationCallbacks vulkan_callbacks;
    const VkAllocationCallbacks *allocator;
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
     * (bitonic_vk_ensure_device): a process whose host sorts all go to the CPU path never
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

/* Records a failing VkResult and turns it into a status. */
static inline bitonic_status fail(bitonic_vk_context *vk, VkResult result)
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

/* A vkCreate* or vkAllocate* call whose handle the context releases later:
 * on failure the handle is reset, since not every loader, layer and driver
 * leaves it VK_NULL_HANDLE (the loader's messenger does not), and a release
 * of what was never made is invalid. */
#define VK_TRY_MAKE(vk, call, handle)           \
    do {                                        \
        VkResult make_result_ = (call);         \
        if (make_result_ != VK_SUCCESS) {       \
            (handle) = VK_NULL_HANDLE;          \
            return fail((vk), make_result_);    \
        }                                       \
    } while (0)

/* A barrier between a transfer and the sort, or the sort and a transfer. */
static inline void record_buffer_barrier(VkCommandBuffer command_buffer, VkPipelineStageFlags source_stage,
                                         VkAccessFlags source_access, VkPipelineStageFlags destination_stage,
                                         VkAccessFlags destination_access)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = source_access,
                               .dstAccessMask = destination_access};
    vkCmdPipelineBarrier(command_buffer, source_stage, destination_stage, 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* Milliseconds on the monotonic clock, for the stages of host sorts. */
static inline double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* vk_devices.c: the instance (with the validation layer when asked), the
 * physical device a selector names, a compute queue family, and the census
 * entry of the default selection. */
bitonic_status bitonic_vk_create_instance(bitonic_vk_context *vk, bool validation);
bool bitonic_vk_find_compute_queue(VkPhysicalDevice physical_device, uint32_t *out_family,
                                   uint32_t *out_timestamp_bits);
bitonic_status bitonic_vk_choose_device(bitonic_vk_context *vk, const bitonic_selector *selector);
void bitonic_vk_write_census(const bitonic_vk_context *vk, bool found);
bitonic_status bitonic_vk_find_default_device(bitonic_vk_context *vk);

/* vk_context.c: the deferred device made on first use, and the context's one
 * command buffer, begun and then submitted and waited for. */
bitonic_status bitonic_vk_ensure_device(bitonic_vk_context *vk);
bitonic_status bitonic_vk_begin_commands(bitonic_vk_context *vk);
bitonic_status bitonic_vk_submit_and_wait(bitonic_vk_context *vk);

/* vk_memory.c: buffers and their memory, device arrays and their staging
 * twins, blocks of bitonic_host_alloc, and the merge scratch. */
bitonic_status bitonic_vk_allocate_buffer(bitonic_vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                                          VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags fallback,
                                          VkBuffer *out_buffer, VkDeviceMemory *out_memory);
bitonic_status bitonic_vk_create_array(bitonic_vk_context *vk, size_t capacity, device_array *array);
void bitonic_vk_destroy_array(bitonic_vk_context *vk, device_array *array);
bitonic_status bitonic_vk_ensure_staging(bitonic_vk_context *vk, device_array *array, VkDeviceSize bytes);
bitonic_status bitonic_vk_ensure_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer);
bool bitonic_vk_pinned_span(const bitonic_vk_context *vk, const void *pointer, size_t bytes,
                            bitonic_vk_host_span *out);
void bitonic_vk_record_upload(bitonic_vk_context *vk, const device_array *array, size_t count);
void bitonic_vk_record_download(bitonic_vk_context *vk, const device_array *array, size_t count);
void bitonic_vk_record_download_barrier(bitonic_vk_context *vk);
void bitonic_vk_attach_scratch(bitonic_vk_context *vk, bitonic_vulkan_sort_info *info);
void bitonic_vk_release_scratch(bitonic_vk_context *vk);

#endif /* BITONIC_VK_HOST_INTERNAL_H */
