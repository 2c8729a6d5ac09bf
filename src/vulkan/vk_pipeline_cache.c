/* vk_pipeline_cache.c: the on-disk pipeline cache (vk_pipeline_cache.h).
 *
 * File: <cache dir>/pipelines-<vendor>-<device>-<driver>-<uuid>-<library>.bin,
 * a header of ours, then the driver's VkPipelineCache data. The name keeps
 * devices and drivers apart; the header is checked anyway (a copied or damaged
 * file, a hash collision of names, a truncated write by an old version), and
 * the driver's own header inside the data too, because a driver handed data of
 * another device may crash rather than reject it. A file that fails any check
 * is ignored and replaced on the next save. */
#include "vk_pipeline_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAGIC "bitonic pipeline cache\n"
#define MAX_CACHE_BYTES ((size_t)256 << 20)

/* The file's own header; BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES says its size. */
typedef struct file_header {
    char magic[24];
    uint32_t library_version;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t driver_version;
    uint8_t cache_uuid[VK_UUID_SIZE];
    uint64_t data_bytes;
    uint64_t checksum;
} file_header;
_Static_assert(sizeof(file_header) == BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES, "the header's size is part of the file");

static uint32_t library_version(void)
{
    return (uint32_t)VK_MAKE_API_VERSION(0, BITONIC_VERSION_MAJOR, BITONIC_VERSION_MINOR, BITONIC_VERSION_PATCH);
}

static file_header header_for(const VkPhysicalDeviceProperties *properties)
{
    file_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, CACHE_MAGIC, sizeof CACHE_MAGIC);
    header.library_version = library_version();
    header.vendor_id = properties->vendorID;
    header.device_id = properties->deviceID;
    header.driver_version = properties->driverVersion;
    memcpy(header.cache_uuid, properties->pipelineCacheUUID, VK_UUID_SIZE);
    return header;
}

static void file_name(const char *directory, const VkPhysicalDeviceProperties *properties, char *out,
                      size_t capacity)
{
    char uuid[2 * VK_UUID_SIZE + 1];
    for (unsigned i = 0; i < VK_UUID_SIZE; ++i)
        snprintf(uuid + 2 * i, 3, "%02x", properties->pipelineCacheUUID[i]);
    int written = snprintf(out, capacity, "%s/pipelines-%04x-%04x-%08x-%s-%u.%u.%u.bin", directory,
                           properties->vendorID, properties->deviceID, properties->driverVersion, uuid,
                           BITONIC_VERSION_MAJOR, BITONIC_VERSION_MINOR, BITONIC_VERSION_PATCH);
    if (written < 0 || (size_t)written >= capacity)
        out[0] = '\0';
}

/* The driver's header at the start of its data (VkPipelineCacheHeaderVersionOne). */
static bool driver_header_matches(const unsigned char *data, size_t size, const VkPhysicalDeviceProperties *properties)
{
    VkPipelineCacheHeaderVersionOne header;
    if (size < sizeof header)
        return false;
    memcpy(&header, data, sizeof header);
    return header.headerSize >= sizeof header && header.headerSize <= size &&
           header.headerVersion == VK_PIPELINE_CACHE_HEADER_VERSION_ONE && header.vendorID == properties->vendorID &&
           header.deviceID == properties->deviceID &&
           memcmp(header.pipelineCacheUUID, properties->pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

const unsigned char *bitonic_vk_pipeline_cache_check(const unsigned char *bytes, size_t size,
                                                     const VkPhysicalDeviceProperties *properties, size_t *out_size)
{
    *out_size = 0;
    file_header expected = header_for(properties), found;
    if (size < sizeof found)
        return NULL;
    memcpy(&found, bytes, sizeof found);
    const unsigned char *data = bytes + sizeof found;
    size_t data_size = size - sizeof found;
    if (memcmp(found.magic, expected.magic, sizeof found.magic) != 0 ||
        found.library_version != expected.library_version || found.vendor_id != expected.vendor_id ||
        found.device_id != expected.device_id || found.driver_version != expected.driver_version ||
        memcmp(found.cache_uuid, expected.cache_uuid, VK_UUID_SIZE) != 0 || found.data_bytes != data_size ||
        found.checksum != bitonic_cache_checksum(data, data_size) ||
        !driver_header_matches(data, data_size, properties))
        return NULL;
    *out_size = data_size;
    return data;
}

void bitonic_vk_pipeline_cache_header(const VkPhysicalDeviceProperties *properties, const unsigned char *data,
                                      size_t size, unsigned char out[BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES])
{
    file_header header = header_for(properties);
    header.data_bytes = size;
    header.checksum = bitonic_cache_checksum(data, size);
    memcpy(out, &header, sizeof header);
}

void bitonic_vk_pipeline_cache_open(VkDevice device, const VkAllocationCallbacks *allocator,
                                    const bitonic_host_memory *memory, const VkPhysicalDeviceProperties *properties,
                                    const bitonic_context_desc *desc, bitonic_vk_pipeline_cache *out)
{
    memset(out, 0, sizeof *out);
    out->allocator = allocator;
    out->memory = memory;
    char directory[BITONIC_CACHE_PATH_MAX];
    if (bitonic_cache_directory(desc, directory, sizeof directory))
        file_name(directory, properties, out->path, sizeof out->path);
    unsigned char *bytes = NULL;
    size_t size = 0, data_size = 0;
    const unsigned char *data = NULL;
    if (out->path[0] && bitonic_cache_read_file_in(memory, out->path, MAX_CACHE_BYTES, &bytes, &size)) {
        data = bitonic_vk_pipeline_cache_check(bytes, size, properties, &data_size);
        out->rejected = data == NULL;
    }
    VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                      .initialDataSize = data ? data_size : 0, .pInitialData = data};
    if (vkCreatePipelineCache(device, &info, allocator, &out->cache) == VK_SUCCESS) {
        out->loaded_bytes = data ? data_size : 0;
    } else if (data) {
        /* The driver refused the data after all: start empty, rewrite later. */
        out->rejected = true;
        info.initialDataSize = 0;
        info.pInitialData = NULL;
        if (vkCreatePipelineCache(device, &info, allocator, &out->cache) != VK_SUCCESS)
            out->cache = VK_NULL_HANDLE;
    }
    bitonic_host_memory_free(memory, bytes);
}

void bitonic_vk_pipeline_cache_save(VkDevice device, const VkPhysicalDeviceProperties *properties,
                                    bitonic_vk_pipeline_cache *cache)
{
    if (cache->cache == VK_NULL_HANDLE || !cache->path[0])
        return;
    size_t size = 0;
    if (vkGetPipelineCacheData(device, cache->cache, &size, NULL) != VK_SUCCESS || size == 0 ||
        size > MAX_CACHE_BYTES)
        return;
    /* Nothing new since it was loaded, and the file was good: leave it. */
    if (size == cache->loaded_bytes && !cache->rejected)
        return;
    unsigned char *data = bitonic_host_memory_alloc(cache->memory, size);
    if (!data)
        return;
    if (vkGetPipelineCacheData(device, cache->cache, &size, data) == VK_SUCCESS &&
        driver_header_matches(data, size, properties)) {
        unsigned char header[BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES];
        bitonic_vk_pipeline_cache_header(properties, data, size, header);
        /* An unwritable directory only costs the next run its warm start. */
        if (bitonic_cache_write_file(cache->path, header, sizeof header, data, size)) {
            cache->loaded_bytes = size;
            cache->rejected = false;
        }
    }
    bitonic_host_memory_free(cache->memory, data);
}

void bitonic_vk_pipeline_cache_close(VkDevice device, bitonic_vk_pipeline_cache *cache)
{
    if (cache->cache != VK_NULL_HANDLE)
        vkDestroyPipelineCache(device, cache->cache, cache->allocator);
    cache->cache = VK_NULL_HANDLE;
}
