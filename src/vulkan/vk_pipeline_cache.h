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
    /* The context's allocators, which must outlive the cache: the
     * VkPipelineCache's callbacks and the host memory of the file's bytes. */
    const VkAllocationCallbacks *allocator;
    const bitonic_host_memory *memory;
} bitonic_vk_pipeline_cache;

/* Opens the cache of this device: the file keyed by vendor, device, driver
 * version, pipelineCacheUUID and the library version, when there is one and its
 * header and checksum match, else an empty cache. Never fails a context: the
 * worst case is a cache that starts empty or is not saved. */
void bitonic_vk_pipeline_cache_open(VkDevice device, const VkAllocationCallbacks *allocator,
                                    const bitonic_host_memory *memory, const VkPhysicalDeviceProperties *properties,
                                    const bitonic_context_desc *desc, bitonic_vk_pipeline_cache *out);

/* Writes the cache back when the driver's data grew since it was loaded
 * (pipelines were built that were not in it); best effort. */
void bitonic_vk_pipeline_cache_save(VkDevice device, const VkPhysicalDeviceProperties *properties,
                                    bitonic_vk_pipeline_cache *cache);

void bitonic_vk_pipeline_cache_close(VkDevice device, bitonic_vk_pipeline_cache *cache);

/* The file's format, for the open and save above and the mutation test
 * (tests/fuzz/mutate_cache_readers.c): a header of this many bytes (ids,
 * length, checksum), then the driver's data. */
#define BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES 72u

/* The header for a file holding data (the driver's, whose own header it
 * does not check). */
void bitonic_vk_pipeline_cache_header(const VkPhysicalDeviceProperties *properties, const unsigned char *data,
                                      size_t size, unsigned char out[BITONIC_VK_PIPELINE_CACHE_HEADER_BYTES]);

/* The driver data inside the file's bytes when every check passes (our
 * header, its length and checksum, the driver's header for this device),
 * with its size in *out_size; else NULL and 0. */
const unsigned char *bitonic_vk_pipeline_cache_check(const unsigned char *bytes, size_t size,
                                                     const VkPhysicalDeviceProperties *properties, size_t *out_size);

#endif /* BITONIC_VK_PIPELINE_CACHE_H */
