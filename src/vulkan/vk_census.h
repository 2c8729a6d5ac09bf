/* vk_census.h: the default selection's outcome kept between processes, so a
 * context that may never use the GPU does not make a Vulkan instance to find
 * out which GPU it would use (vk_census.c says what the key covers). */
#ifndef BITONIC_VK_CENSUS_H
#define BITONIC_VK_CENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache_dir.h"

typedef struct bitonic_vk_census {
    bool found;              /* false: the default selection found no GPU it takes */
    uint32_t vendor_id, device_id, driver_version;
    char device_name[256];
} bitonic_vk_census;

/* The census file for this machine's drivers, environment and GPUs in
 * cache_directory; false ("" in out) without a directory. */
bool bitonic_vk_census_path(const char *cache_directory, char *out, size_t capacity);

/* False when the file is missing, damaged or not one of ours. */
bool bitonic_vk_census_read(const char *path, bitonic_vk_census *out);

/* Best effort, replaced atomically; nothing happens without a path. */
void bitonic_vk_census_write(const char *path, const bitonic_vk_census *census);

#endif /* BITONIC_VK_CENSUS_H */
