/* vk_internal.h: what the Vulkan files of the library share: VkResult to
 * status mapping, the embedded SPIR-V, and the sorter's internals that the host
 * layer (vk_context.c) reads. */
#ifndef BITONIC_VK_INTERNAL_H
#define BITONIC_VK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic_vulkan.h"
#include "tuning.h"

bitonic_status bitonic_status_from_vk(VkResult result);

/* Generated from shaders/ at build time (cmake/embed_spirv.cmake). */
extern const uint32_t bitonic_spirv_tile_pass[];
extern const size_t bitonic_spirv_tile_pass_size;
extern const uint32_t bitonic_spirv_tile_pass_values[];
extern const size_t bitonic_spirv_tile_pass_values_size;
extern const uint32_t bitonic_spirv_global_pass[];
extern const size_t bitonic_spirv_global_pass_size;
extern const uint32_t bitonic_spirv_global_pass_values[];
extern const size_t bitonic_spirv_global_pass_values_size;

/* Reads the limits the tuning needs from a physical device. */
void bitonic_vk_read_limits(VkPhysicalDevice physical_device, bitonic_device_limits *out_limits,
                            uint64_t *out_max_storage_range);

#endif /* BITONIC_VK_INTERNAL_H */
