/* vk_pipeline_cache.h: the Vulkan pipeline cache kept on disk between runs, so
 * that a context on a device it has seen before builds its pipelines from the
 * driver's cached binaries instead of compiling SPIR-V again. */
#ifndef BITONIC_VK_PIPELINE_CACHE_H
#define BITONIC_VK_PIPELINE_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <vulkan/vulkan.h>

#include "bitonic.h"
#include "cache_dir.h"

typedef struct bitonic_vk_pipeline_cache {
    VkPipelineCache cache;           /* VK_NULL_HANDLE if even an empty one could not be made */
    char path[BITONIC_CACHE_PATH_MAX];/* the file; "" when the disk cache is off */
    size_t loaded_bytes;             /* driver data read from the file; 0 when it started empty */
    bool rejected;                   /* a file was there but foreign or damaged: it will be rewritten */
} bitonic_vk_pipeline_cache;

/* Opens the cache of this device: the file keyed by vendor, device, driver
 * version, pipelineCacheUUID and the library version, when there is one and its
 * header and checksum match, else an empty cache. Never fails a context: the
 * worst case is a cache that starts empty or is not saved. */
void bitonic_vk_pipeline_cache_open(VkDevice device, const VkPhysicalDeviceProperties *properties,
                                    const bitonic_context_desc *desc, bitonic_vk_pipeline_cache *out);

/* Writes the cache back when the driver's data grew since it was loaded
 * (pipelines were built that were not in it); best effort. */
void bitonic_vk_pipeline_cache_save(VkDevice device, const VkPhysicalDeviceProperties *properties,
                                    bitonic_vk_pipeline_cache *cache);

void bitonic_vk_pipeline_cache_close(VkDevice device, bitonic_vk_pipeline_cache *cache);

#endif /* BITONIC_VK_PIPELINE_CACHE_H */
