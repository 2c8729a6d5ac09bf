/* vk_internal.h: what the Vulkan files of the library share: VkResult to
 * status mapping, the embedded SPIR-V, and the sorter's internals that the host
 * layer (vk_context.c and the files of vk_host_internal.h) reads. */
#ifndef BITONIC_VK_INTERNAL_H
#define BITONIC_VK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic_vulkan.h"
#include "tuning.h"

bitonic_status bitonic_status_from_vk(VkResult result);

/* Generated from shaders/ at build time (cmake/embed_spirv.cmake): each kernel
 * once per keys-per-thread value, with and without values; pairs of 32-bit
 * keys also as values_i64 (compared as one 64-bit integer; not the _wide
 * kernels, whose pairs compare so in their values build). */
#define BITONIC_DECLARE_SPIRV(name) extern const uint32_t name[]; extern const size_t name##_size;
#define BITONIC_DECLARE_KERNEL(kernel, r)                                                                    \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_r##r) BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_values_r##r) \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_values_i64_r##r)                                          \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_r##r)                                                 \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_values_r##r)
/* A kernel built for every keys-per-thread value the tuning can pick, 1..4. */
#define BITONIC_DECLARE_KERNEL_R1_TO_4(kernel)                                                                  \
    BITONIC_DECLARE_KERNEL(kernel, 1) BITONIC_DECLARE_KERNEL(kernel, 2) BITONIC_DECLARE_KERNEL(kernel, 3)   \
    BITONIC_DECLARE_KERNEL(kernel, 4)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_shuffle_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_sort_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_sort_lanes_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(global_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(merge_pass)
BITONIC_DECLARE_KERNEL_R1_TO_4(merge_lanes_pass)
/* The window merge of packed pairs (UNPACK_OUT, network.glsl). */
#define BITONIC_DECLARE_UNPACK(kernel)                                                                       \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_unpack_r1) BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_unpack_r2) \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_unpack_r3) BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_unpack_r4)
BITONIC_DECLARE_UNPACK(merge_pass)
BITONIC_DECLARE_UNPACK(merge_lanes_pass)
BITONIC_DECLARE_KERNEL(merge_split, 1)
BITONIC_DECLARE_KERNEL_R1_TO_4(merge_direct)
BITONIC_DECLARE_KERNEL(transpose_pass, 1)
BITONIC_DECLARE_KERNEL(partition_pass, 1)
BITONIC_DECLARE_KERNEL(partition_lanes_pass, 1)
/* Built for 32-bit keys alone and with values and for 64-bit keys alone
 * (STORED_PLACES: the scatter on half tiles). */
#define BITONIC_DECLARE_STORED_PLACES(kernel)                                                                 \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_r1) BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_values_r1) \
    BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_values_i64_r1) BITONIC_DECLARE_SPIRV(bitonic_spirv_##kernel##_k64_r1)
BITONIC_DECLARE_STORED_PLACES(partition_stored_pass)
BITONIC_DECLARE_STORED_PLACES(partition_lanes_stored_pass)
/* The merge path's kernels with device addresses (WIDE_ADDRESSING, network.glsl);
 * its merge is the direct one only (sorter/device_address.c, sorter_create_wide_variants). */
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_pass_wide)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_shuffle_pass_wide)
BITONIC_DECLARE_KERNEL_R1_TO_4(tile_sort_pass_wide)
BITONIC_DECLARE_KERNEL(merge_split_wide, 1)
BITONIC_DECLARE_KERNEL_R1_TO_4(merge_direct_wide)

BITONIC_DECLARE_SPIRV(bitonic_spirv_search)
BITONIC_DECLARE_SPIRV(bitonic_spirv_search_k64)

typedef struct bitonic_spirv {
    const uint32_t *code;
    size_t size;
} bitonic_spirv;

/* Which build of a kernel: keys alone or with values, 32- or 64-bit keys, and
 * whether pairs of 32-bit keys compare as one 64-bit integer (the values_i64
 * builds, for a device with shaderInt64: network.glsl, pair_less). */
typedef struct bitonic_kernel_form {
    bool with_values;
    bool key64;
    bool pairs_as_int64;
} bitonic_kernel_form;

/* The module of a kernel ("tile" or "global") for a keys-per-thread log2; code
 * is NULL when that variant is not built. wide: the device-address build (the
 * merge path's kernels only). */
bitonic_spirv bitonic_spirv_tile_pass(uint32_t register_log, bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_tile_shuffle_pass(uint32_t register_log, bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_tile_sort_pass(uint32_t register_log, bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_tile_sort_lanes_pass(uint32_t register_log, bitonic_kernel_form form);
bitonic_spirv bitonic_spirv_global_pass(uint32_t register_log, bitonic_kernel_form form);
bitonic_spirv bitonic_spirv_merge_pass(uint32_t register_log, bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_merge_lanes_pass(uint32_t register_log, bitonic_kernel_form form);
/* merge_pass (lanes: merge_lanes_pass) built for packed pairs' window merge. */
bitonic_spirv bitonic_spirv_merge_unpack_pass(uint32_t register_log, bool lanes);
bitonic_spirv bitonic_spirv_merge_split(bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_merge_direct(uint32_t register_log, bitonic_kernel_form form, bool wide);
bitonic_spirv bitonic_spirv_transpose_pass(bitonic_kernel_form form);
bitonic_spirv bitonic_spirv_partition_pass(bitonic_kernel_form form, bool subgroup_scan);
/* No module ({NULL, 0}) for 64-bit keys with values, which stage places on whole tiles. */
bitonic_spirv bitonic_spirv_partition_stored_pass(bitonic_kernel_form form, bool subgroup_scan);


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
