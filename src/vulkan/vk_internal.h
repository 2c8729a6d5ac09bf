/* vk_internal.h: what the Vulkan files of the library share: VkResult to
 * status mapping, the names of the embedded kernels' builds, and the sorter's internals that the host
 * layer (vk_context.c and the files of vk_host_internal.h) reads. */
#ifndef BITONIC_VK_INTERNAL_H
#define BITONIC_VK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic_vulkan.h"
#include "tuning.h"

bitonic_status bitonic_status_from_vk(VkResult result);

/* Which build of a kernel: keys alone or with values, 32- or 64-bit keys, and
 * whether pairs of 32-bit keys compare as one 64-bit integer (the values_i64
 * builds, for a device with shaderInt64: network.glsl, pair_less). */
typedef struct bitonic_kernel_form {
    bool with_values;
    bool key64;
    bool pairs_as_int64;
} bitonic_kernel_form;

/* Longest name of an embedded module (shader_modules.h), with its NUL. */
#define BITONIC_MODULE_NAME_CAPACITY 64u

/* Writes the name of a kernel's module as shaders/CMakeLists.txt builds it:
 * the kernel ("tile_sort_lanes_pass"), _wide for the device-address build,
 * the form (_values, _values_i64, _k64, _k64_values) and the keys a thread
 * (_r and their log2). The pipelines look it up (bitonic_shader_module_find);
 * a build that is not embedded fails the pipeline with
 * VK_ERROR_FEATURE_NOT_PRESENT. */
void bitonic_kernel_module_name(char name[BITONIC_MODULE_NAME_CAPACITY], const char *kernel, bitonic_kernel_form form,
                                bool wide, uint32_t register_log);


/* Merging presorted runs, for the chunked host sort (vk_host_sort.c): each chunk
 * is sorted on its own as it arrives, and this finishes the sort.
 * bitonic_vk_merge_of_runs_tile_log says whether the sort info describes can
 * be finished so (the merge strategy with the bound kernels, scratch given,
 * one array, no count buffer: BITONIC_ERROR_UNSUPPORTED or the plan's error
 * otherwise) and the smallest run it can start from (2^tile_log keys).
 * bitonic_vk_record_merge_of_runs records the merges of the sort above runs of
 * 2^run_log keys (every aligned block of that many keys of the info's range
 * sorted, the last one shorter), reading and writing what bitonic_vulkan_record_sort
 * would, with the same barriers; it needs run_log >= tile_log and an even
 * number of merges left (ceil(log2 count) - run_log), so that the last one
 * writes the caller's buffers (BITONIC_ERROR_INVALID_ARGUMENT otherwise). */
bitonic_status bitonic_vk_merge_of_runs_tile_log(const bitonic_vulkan_sorter *sorter,
                                                 const bitonic_vulkan_sort_info *info, uint32_t *out_tile_log);
bitonic_status bitonic_vk_record_merge_of_runs(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                               const bitonic_vulkan_sort_info *info, uint32_t run_log);

/* Where a partition sort of `info` leaves its samples in the scratch, for
 * tests: their keys and values (bytes from info->scratch_offset), how many,
 * and the runs they are sorted in (log2; 0: sorted whole). False where the
 * sort does not partition. */
bool bitonic_vk_partition_samples(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                  VkDeviceSize *out_keys_at, VkDeviceSize *out_values_at, uint32_t *out_count,
                                  uint32_t *out_runs_log);

/* Whether the physical device offers the named device extension. */
bool bitonic_vk_has_device_extension(VkPhysicalDevice physical_device, const char *name);

/* Reads the limits the tuning needs from a physical device. */
void bitonic_vk_read_limits(VkPhysicalDevice physical_device, bitonic_device_limits *out_limits,
                            uint64_t *out_max_storage_range);

#endif /* BITONIC_VK_INTERNAL_H */
