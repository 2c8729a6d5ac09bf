/* vk_sorter.c: the Vulkan executor of the schedule. Creates the pipelines for
 * one device (sizes from tuning.c, passed as specialisation constants) and
 * records a sort as one dispatch per pass of the schedule, with a
 * compute-to-compute barrier between passes; MERGE passes ping-pong between
 * the keys and the caller's scratch buffer, and big ones are two dispatches
 * (the merge-path splits, then the merge). With the transpose strategy the
 * scratch buffer holds the transposed view instead (record_transposed_sort).
 * Descriptors are pushed (VK_KHR_push_descriptor), so recording allocates
 * nothing and any buffer of the caller's can be sorted without registering it
 * first. A merge sort whose buffers pass the largest binding
 * (maxStorageBufferRange) records the same passes with the device-address
 * builds of the kernels instead (record_wide_sort). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic_tuning_overrides.h"
#include "schedule.h"
#include "vk_internal.h"

/* Pipelines for 32- and 64-bit keys, each with and without values, a second
 * set for small sorts of 32-bit keys (bitonic_tuning_derive_small), and the
 * first four again with device addresses (sorts past the largest binding). */
enum {
    KEYS32 = 0, PAIRS32 = 1, KEYS64 = 2, PAIRS64 = 3, KEYS32_SMALL = 4,
    KEYS32_WIDE = 5, PAIRS32_WIDE = 6, KEYS64_WIDE = 7, PAIRS64_WIDE = 8, VARIANT_COUNT = 9
};

static int variant_index(bool key64, bool with_values)
{
    return (key64 ? KEYS64 : KEYS32) + (with_values ? 1 : 0);
}

static int wide_variant_index(bool key64, bool with_values)
{
    return KEYS32_WIDE + variant_index(key64, with_values);
}

static bool is_key64(bitonic_key_type type)
{
    return type == BITONIC_KEY_U64 || type == BITONIC_KEY_I64 || type == BITONIC_KEY_F64;
}

typedef struct pass_push_constants {
    uint32_t count;
    uint32_t phase;
    uint32_t stride_log;
    uint32_t last_phase;
    uint32_t group_count;
    uint32_t key_xor;
    uint32_t key_type;
    uint32_t row_log;
    uint32_t row_length;
    uint32_t count_offset;
    uint32_t output_buffer;
    uint32_t splits_given;
    uint32_t vector_io;
    uint32_t view_column_log;
    uint32_t view_row_log;
    uint32_t view_rows_used;
    uint32_t view_mirror_phase;
    uint32_t view_forward;
    uint32_t sample_runs;   /* merge: leave run samples after the splits; split pass: read them */
} pass_push_constants;

/* The push constants of the device-address kernels (WIDE_ADDRESSING in
 * shaders/network.glsl): the same, then the count's high word and where the
 * pass reads and writes. 120 bytes, inside the 128 every device offers. */
typedef struct wide_push_constants {
    pass_push_constants pass;
    uint32_t count_high;
    VkDeviceAddress keys_address;
    VkDeviceAddress values_address;
    VkDeviceAddress keys_out_address;
    VkDeviceAddress values_out_address;
    VkDeviceAddress splits_address;
} wide_push_constants;
_Static_assert(offsetof(wide_push_constants, keys_address) == 80 && sizeof(wide_push_constants) == 120,
               "the layout of PassParams in shaders/network.glsl");

/* The bindings of every sort pipeline (shaders/network.glsl); the values ones
 * only with values. */
enum {
    KEYS_BINDING = 0,
    VALUES_BINDING = 1,
    COUNT_BINDING = 2,
    KEYS_OUT_BINDING = 3,
    VALUES_OUT_BINDING = 4,
    SPLITS_BINDING = 5,
    KEYS_VECTOR_BINDING = 6,      /* keys and values again, as uvec4 (merge_pass.comp) */
    KEYS_OUT_VECTOR_BINDING = 7,
    VALUES_VECTOR_BINDING = 8,
    VALUES_OUT_VECTOR_BINDING = 9,
    MAX_SORT_BINDINGS = 10,
};
#define NO_COUNT_BUFFER UINT32_MAX
/* Probes a split-pass thread may be asked to test a round
 * (bitonic_tuning_overrides.merge_split_probes): more are clamped to it. */
#define MAX_SPLIT_PROBES 7u
/* The bits of a merge's sample_runs (SAMPLES_* in shaders/run_samples.glsl):
 * leave run samples; search this merge's splits on the ones the pass before
 * left; by guided searches. A split pass takes 1: read the samples; the tile
 * merge sort 1: leave them. */
#define MERGE_SAMPLES_WRITE 1u
#define MERGE_SAMPLES_SEARCH 2u
#define MERGE_SAMPLES_GUIDED 4u
/* The window split pass's cursors in three pieces by a thread each
 * (SPLIT_BY_THREAD in merge_pass.comp). */
#define MERGE_SPLIT_BY_THREAD 8u
/* Threads of the window split pass's workgroups, a chunk each, at most: each
 * tests a position a round of their searches (merge_pass.comp,
 * window_split_three). */
#define WINDOW_SPLIT_THREADS 32u
/* Run samples: one key of every 2^RUN_SAMPLE_LOG (SAMPLE_LOG in merge_pass.comp). */
#define RUN_SAMPLE_LOG 5u
#define RUN_SAMPLE_KEYS (1u << RUN_SAMPLE_LOG)
/* The tile merge sort takes a group's first and last key from a thread's first
 * and last register: a thread's keys must divide the group. */
_Static_assert(BITONIC_MAX_STEP_GROUP_LOG <= RUN_SAMPLE_LOG, "keys a thread, at most one sample group");

/* The bindings that only pipelines with values have. */
static bool is_values_binding(uint32_t binding)
{
    return binding == VALUES_BINDING || binding == VALUES_OUT_BINDING || binding == VALUES_VECTOR_BINDING ||
           binding == VALUES_OUT_VECTOR_BINDING;
}

typedef struct sorter_variant {
    bool available;                 /* 64-bit variants need shaderInt64 (enable_64bit_keys) */
    bool with_values, key64;
    bool pairs_as_int64;            /* pairs of 32-bit keys compared as one 64-bit integer (values_i64) */
    bool wide;                      /* device addresses: only the Count binding, wide push constants */
    bitonic_tuning tuning;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkPipeline tile_pipeline;
    VkPipeline tile_sort_pipeline;  /* tile passes from phase 1 (tuning.tile_merge_sort) */
    VkPipeline short_tile_sort_pipeline;  /* the same on tiles of 2^tuning.short_tile_log keys */
    /* The same two for passes that place a tail (bitonic_pass.tile_tail): the
     * tail's code is specialised away in the others, which it made up to 5%
     * slower on the H100 (docs/perf-log.md, entry 71). */
    VkPipeline tile_sort_tail_pipeline;
    VkPipeline short_tile_sort_tail_pipeline;
    VkPipeline global_pipelines[BITONIC_MAX_STEP_GROUP_LOG + 1];  /* by steps per pass */
    VkPipeline merge_pipeline;
    /* The direct merge, for sorts of up to tuning.merge_direct_max_keys where
     * merge_pipeline merges through shared memory. */
    VkPipeline merge_direct_pipeline;
    /* merge_pipeline's kernel with TAKES_TAIL: the last merge of a sort of
     * 2^q + m keys, which takes the m in (bitonic_pass.last_phase). */
    VkPipeline merge_tail_pipeline;
    VkPipeline merge_split_pipeline;  /* the splits of a big merge, in a dispatch of their own */
    /* The same searching binary, for merges of more than
     * tuning.merge_split_probes_max_chunks chunks (tuning.c says why). */
    VkPipeline merge_split_binary_pipeline;
    /* ... and the one that guesses from key values, in merges of at least
     * tuning.merge_split_guided_min_chunks chunks (tuning.c says why). */
    VkPipeline merge_split_guided_pipeline;
    VkPipeline transpose_pipeline;    /* TRANSPOSE passes of the transpose strategy */
    VkPipeline partition_pipeline;    /* the partition sort's steps (partition_pass.comp) */
    /* Its scatter on half tiles (STORED_PLACES), for keys of at most 8
     * bytes with their values; VK_NULL_HANDLE where tiles are never halved. */
    VkPipeline partition_half_scatter_pipeline;
    /* The partition sort's window merge and its split pass: merge_pass.comp
     * with WINDOW_MERGE, which every other merge pipeline has false. */
    /* The window merge and its split pass, for buckets of up to a window [0]
     * and of up to two windows, which may span three runs [1]
     * (sort_plan.window_three_pieces). */
    VkPipeline window_merge_pipeline[2];
    VkPipeline window_split_pipeline[2];
    /* PAIRS32's alone: the window merge of packed pairs (sort_plan.packed_pairs),
     * KEYS64's kernel built with UNPACK_OUT, writing the caller's keys and
     * values apart; bound with this variant's layout, which has them. */
    VkPipeline window_unpack_pipeline[2];
} sorter_variant;

typedef struct search_push_constants {
    uint32_t count;
    uint32_t query_count;
    uint32_t key_xor;
    uint32_t key_type;
} search_push_constants;

#define SEARCH_BINDINGS 5u
#define SEARCH_WORKGROUP 64u

struct bitonic_vulkan_sorter {
    VkDevice device;
    bool capture_statistics;
    VkPipelineCache pipeline_cache;   /* the caller's; lazily built pipelines use it too */
    const VkAllocationCallbacks *allocator;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
    bitonic_device_limits limits;
    uint32_t max_group_count[3];
    uint64_t max_keys;                /* 32-bit keys; half of it for 64-bit ones */
    uint64_t bound_max_keys;          /* the same through bound buffers (one binding covers the keys) */
    bool device_addresses;            /* the wide variants exist (enable_device_addresses) */
    bool force_device_addresses;      /* every sort they can take uses them (tests) */
    PFN_vkGetBufferDeviceAddress get_buffer_address;
    VkDeviceSize storage_alignment;   /* minStorageBufferOffsetAlignment: scratch sections start on it */
    bitonic_strategy strategy;        /* what the scratch is for: merging, transposing, or nothing */
    sorter_variant variants[VARIANT_COUNT];
    uint64_t small_sort_max_keys;   /* 32-bit key sorts up to this count use KEYS32_SMALL (0: none) */
    /* Partition sorts of pairs of 32-bit keys run packed, a pair one 64-bit
     * key, on KEYS64's pipelines between the scatter and the unpack
     * (pairs_pack_fits). */
    bool pack_pairs;
    VkDescriptorSetLayout search_set_layout;
    VkPipelineLayout search_pipeline_layout;
    VkPipeline search_pipeline;
    VkPipeline search_pipeline64;     /* VK_NULL_HANDLE without enable_64bit_keys */
};

bitonic_status bitonic_status_from_vk(VkResult result)
{
    switch (result) {
    case VK_SUCCESS: return BITONIC_SUCCESS;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return BITONIC_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return BITONIC_ERROR_DEVICE_LOST;
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_INCOMPATIBLE_DRIVER: return BITONIC_ERROR_VULKAN_UNAVAILABLE;
    case VK_ERROR_LAYER_NOT_PRESENT: return BITONIC_ERROR_VALIDATION_LAYER_MISSING;
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT: return BITONIC_ERROR_UNSUPPORTED;
    default: return BITONIC_ERROR_VULKAN;
    }
}

bool bitonic_vk_has_device_extension(VkPhysicalDevice physical_device, const char *name)
{
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, NULL) != VK_SUCCESS || count == 0)
        return false;
    VkExtensionProperties *extensions = malloc(count * sizeof *extensions);
    bool found = false;
    if (extensions && vkEnumerateDeviceExtensionProperties(physical_device, NULL, &count, extensions) == VK_SUCCESS)
        for (uint32_t i = 0; i < count && !found; ++i)
            found = strcmp(extensions[i].extensionName, name) == 0;
    free(extensions);
    return found;
}

void bitonic_vk_read_limits(VkPhysicalDevice physical_device, bitonic_device_limits *out_limits,
                            uint64_t *out_max_storage_range)
{
    VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                              .pNext = &subgroup};
    /* The multiprocessors, where an extension tells them (each structure
     * chained only where the device has its extension, as the spec asks):
     * the partition's steps launch a workgroup each (tuning.c). */
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nvidia = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceShaderCorePropertiesAMD amd = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
    VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
    bool has_nvidia = bitonic_vk_has_device_extension(physical_device, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    bool has_amd = bitonic_vk_has_device_extension(physical_device, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
    bool has_arm = bitonic_vk_has_device_extension(physical_device, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
    if (has_nvidia) {
        nvidia.pNext = properties.pNext;
        properties.pNext = &nvidia;
    }
    if (has_amd) {
        amd.pNext = properties.pNext;
        properties.pNext = &amd;
    }
    if (has_arm) {
        arm.pNext = properties.pNext;
        properties.pNext = &arm;
    }
    vkGetPhysicalDeviceProperties2(physical_device, &properties);
    out_limits->multiprocessors =
        has_nvidia ? nvidia.shaderSMCount
        : has_amd  ? amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray
        : has_arm  ? arm.shaderCoreCount
                   : 0u;
    const VkPhysicalDeviceLimits *limits = &properties.properties.limits;
    out_limits->max_workgroup_invocations = limits->maxComputeWorkGroupInvocations;
    out_limits->max_workgroup_size_x = limits->maxComputeWorkGroupSize[0];
    out_limits->max_shared_memory_bytes = limits->maxComputeSharedMemorySize;
    out_limits->subgroup_size = subgroup.subgroupSize;
    out_limits->subgroup_shuffle = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                   (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                   (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
    out_limits->subgroup_ballot = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                  (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                  (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
    out_limits->subgroup_arithmetic = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                                      (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
    *out_max_storage_range = limits->maxStorageBufferRange;
}

#define SPIRV_MODULE(name) ((bitonic_spirv){name, name##_size})
/* The module of `form` (a bitonic_kernel_form in scope), pairs of 32-bit keys
 * from values_module. */
#define SPIRV_SELECT_FORMS(kernel, r, values_module)                                               \
    (form.key64 ? (form.with_values ? SPIRV_MODULE(bitonic_spirv_##kernel##_k64_values_r##r)       \
                                    : SPIRV_MODULE(bitonic_spirv_##kernel##_k64_r##r))             \
                : (form.with_values ? (values_module) : SPIRV_MODULE(bitonic_spirv_##kernel##_r##r)))
#define SPIRV_SELECT(kernel, r)                                                                    \
    SPIRV_SELECT_FORMS(kernel, r,                                                                  \
                       form.pairs_as_int64 ? SPIRV_MODULE(bitonic_spirv_##kernel##_values_i64_r##r) \
                                           : SPIRV_MODULE(bitonic_spirv_##kernel##_values_r##r))
/* The device-address builds: one build of pairs, which compares them as 64-bit integers. */
#define SPIRV_SELECT_WIDE(kernel, r) SPIRV_SELECT_FORMS(kernel, r, SPIRV_MODULE(bitonic_spirv_##kernel##_values_r##r))
#define SPIRV_CASE(kernel, r) \
    case r: return SPIRV_SELECT(kernel, r);
/* A kernel built twice: with bound buffers, and with device addresses (_wide). */
#define SPIRV_CASE_WIDE(kernel, r) \
    case r: return wide ? SPIRV_SELECT_WIDE(kernel##_wide, r) : SPIRV_SELECT(kernel, r);

bitonic_spirv bitonic_spirv_tile_pass(uint32_t register_log, bitonic_kernel_form form, bool wide)
{
    switch (register_log) {
        SPIRV_CASE_WIDE(tile_pass, 1) SPIRV_CASE_WIDE(tile_pass, 2) SPIRV_CASE_WIDE(tile_pass, 3)
        SPIRV_CASE_WIDE(tile_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_tile_shuffle_pass(uint32_t register_log, bitonic_kernel_form form, bool wide)
{
    switch (register_log) {
        SPIRV_CASE_WIDE(tile_shuffle_pass, 1) SPIRV_CASE_WIDE(tile_shuffle_pass, 2)
        SPIRV_CASE_WIDE(tile_shuffle_pass, 3) SPIRV_CASE_WIDE(tile_shuffle_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_tile_sort_pass(uint32_t register_log, bitonic_kernel_form form, bool wide)
{
    switch (register_log) {
        SPIRV_CASE_WIDE(tile_sort_pass, 1) SPIRV_CASE_WIDE(tile_sort_pass, 2)
        SPIRV_CASE_WIDE(tile_sort_pass, 3) SPIRV_CASE_WIDE(tile_sort_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_tile_sort_lanes_pass(uint32_t register_log, bitonic_kernel_form form)
{
    switch (register_log) {
        SPIRV_CASE(tile_sort_lanes_pass, 1) SPIRV_CASE(tile_sort_lanes_pass, 2)
        SPIRV_CASE(tile_sort_lanes_pass, 3) SPIRV_CASE(tile_sort_lanes_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_global_pass(uint32_t register_log, bitonic_kernel_form form)
{
    switch (register_log) {
        SPIRV_CASE(global_pass, 1) SPIRV_CASE(global_pass, 2) SPIRV_CASE(global_pass, 3)
        SPIRV_CASE(global_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_merge_split(bitonic_kernel_form form, bool wide)
{
    switch (1) { SPIRV_CASE_WIDE(merge_split, 1) }
}

bitonic_spirv bitonic_spirv_transpose_pass(bitonic_kernel_form form)
{
    switch (1) { SPIRV_CASE(transpose_pass, 1) }
}

bitonic_spirv bitonic_spirv_partition_pass(bitonic_kernel_form form, bool subgroup_scan)
{
    if (subgroup_scan)
        switch (1) { SPIRV_CASE(partition_lanes_pass, 1) }
    switch (1) { SPIRV_CASE(partition_pass, 1) }
}

/* The kernels of STORED_PLACES are built for 32-bit keys alone and with
 * values, and for 64-bit keys alone. */
#define SPIRV_SELECT_STORED_PLACES(kernel)                                                       \
    (form.key64             ? SPIRV_MODULE(bitonic_spirv_##kernel##_k64_r1)                      \
     : !form.with_values    ? SPIRV_MODULE(bitonic_spirv_##kernel##_r1)                          \
     : form.pairs_as_int64 ? SPIRV_MODULE(bitonic_spirv_##kernel##_values_i64_r1)               \
                           : SPIRV_MODULE(bitonic_spirv_##kernel##_values_r1))

bitonic_spirv bitonic_spirv_partition_stored_pass(bitonic_kernel_form form, bool subgroup_scan)
{
    if (form.key64 && form.with_values)
        return (bitonic_spirv){NULL, 0};
    return subgroup_scan ? SPIRV_SELECT_STORED_PLACES(partition_lanes_stored_pass)
                         : SPIRV_SELECT_STORED_PLACES(partition_stored_pass);
}

bitonic_spirv bitonic_spirv_merge_pass(uint32_t register_log, bitonic_kernel_form form, bool wide)
{
    if (wide)  /* not built: the device-address merge is the direct one */
        return (bitonic_spirv){NULL, 0};
    switch (register_log) {
        SPIRV_CASE(merge_pass, 1) SPIRV_CASE(merge_pass, 2) SPIRV_CASE(merge_pass, 3)
        SPIRV_CASE(merge_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_merge_lanes_pass(uint32_t register_log, bitonic_kernel_form form)
{
    switch (register_log) {
        SPIRV_CASE(merge_lanes_pass, 1) SPIRV_CASE(merge_lanes_pass, 2) SPIRV_CASE(merge_lanes_pass, 3)
        SPIRV_CASE(merge_lanes_pass, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}

bitonic_spirv bitonic_spirv_merge_unpack_pass(uint32_t register_log, bool lanes)
{
#define SPIRV_UNPACK_CASE(r)                                                                  \
    case r:                                                                                   \
        return lanes ? SPIRV_MODULE(bitonic_spirv_merge_lanes_pass_k64_unpack_r##r)          \
                     : SPIRV_MODULE(bitonic_spirv_merge_pass_k64_unpack_r##r);
    switch (register_log) {
        SPIRV_UNPACK_CASE(1) SPIRV_UNPACK_CASE(2) SPIRV_UNPACK_CASE(3) SPIRV_UNPACK_CASE(4)
    default: return (bitonic_spirv){NULL, 0};
    }
#undef SPIRV_UNPACK_CASE
}

bitonic_spirv bitonic_spirv_merge_direct(uint32_t register_log, bitonic_kernel_form form, bool wide)
{
    switch (register_log) {
        SPIRV_CASE_WIDE(merge_direct, 1) SPIRV_CASE_WIDE(merge_direct, 2) SPIRV_CASE_WIDE(merge_direct, 3)
        SPIRV_CASE_WIDE(merge_direct, 4)
    default: return (bitonic_spirv){NULL, 0};
    }
}


static VkResult create_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineCache cache, VkPipelineLayout layout,
                                bitonic_spirv spirv, const uint32_t *constants, uint32_t constant_count,
                                VkPipeline *out_pipeline)
{
    if (!spirv.code)
        return VK_ERROR_FEATURE_NOT_PRESENT;
    if (constant_count > 8u)
        return VK_ERROR_INITIALIZATION_FAILED;  /* more than entries[] below holds */
    const uint32_t *code = spirv.code;
    size_t code_size = spirv.size;
    VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            .codeSize = code_size, .pCode = code};
    VkShaderModule module;
    VkResult result = vkCreateShaderModule(sorter->device, &module_info, sorter->allocator, &module);
    if (result != VK_SUCCESS)
        return result;
    VkSpecializationMapEntry entries[8];
    for (uint32_t i = 0; i < constant_count; ++i)
        entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = i * 4u, .size = 4};
    VkSpecializationInfo specialization = {.mapEntryCount = constant_count, .pMapEntries = entries,
                                           .dataSize = constant_count * 4u, .pData = constants};
    VkComputePipelineCreateInfo pipeline_info = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module, .pName = "main",
                  .pSpecializationInfo = &specialization},
        .layout = layout,
        .flags = sorter->capture_statistics ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0,
    };
    result = vkCreateComputePipelines(sorter->device, cache, 1, &pipeline_info, sorter->allocator, out_pipeline);
    vkDestroyShaderModule(sorter->device, module, sorter->allocator);
    return result;
}

static VkResult create_variant(bitonic_vulkan_sorter *sorter, VkPipelineCache cache, bitonic_kernel_form form,
                               bool wide, sorter_variant *variant)
{
    /* Keys, values (with values), the execution-time count, where a pass that
     * does not work in place writes keys and values, and the merge splits. The
     * device-address kernels bind only the count: the rest are addresses. */
    uint32_t binding_numbers[MAX_SORT_BINDINGS];
    uint32_t binding_count = 0;
    for (uint32_t b = 0; b < MAX_SORT_BINDINGS; ++b)
        if (wide ? b == COUNT_BINDING : (form.with_values || !is_values_binding(b)))
            binding_numbers[binding_count++] = b;
    VkDescriptorSetLayoutBinding bindings[MAX_SORT_BINDINGS];
    for (uint32_t i = 0; i < binding_count; ++i)
        bindings[i] = (VkDescriptorSetLayoutBinding){.binding = binding_numbers[i],
                                                     .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                     .descriptorCount = 1,
                                                     .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                                .bindingCount = binding_count, .pBindings = bindings};
    VkResult result = vkCreateDescriptorSetLayout(sorter->device, &set_info, sorter->allocator, &variant->set_layout);
    if (result != VK_SUCCESS)
        return result;
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0,
                                 .size = wide ? sizeof(wide_push_constants) : sizeof(pass_push_constants)};
    VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                              .setLayoutCount = 1, .pSetLayouts = &variant->set_layout,
                                              .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    variant->with_values = form.with_values;
    variant->key64 = form.key64;
    variant->pairs_as_int64 = form.pairs_as_int64 && form.with_values && !form.key64;
    variant->wide = wide;
    (void)cache;
    return vkCreatePipelineLayout(sorter->device, &layout_info, sorter->allocator, &variant->pipeline_layout);
}

/* The pipelines of a variant, each built once, when first needed (or all at
 * creation for an eager sorter). steps: a global pass of that many steps. */
typedef enum pipeline_kind {
    PIPELINE_TILE,
    PIPELINE_TILE_SORT,
    PIPELINE_SHORT_TILE_SORT,
    PIPELINE_GLOBAL,
    PIPELINE_MERGE,
    PIPELINE_MERGE_TAIL,
    PIPELINE_MERGE_DIRECT,
    PIPELINE_MERGE_SPLIT,
    PIPELINE_MERGE_SPLIT_BINARY,
    PIPELINE_MERGE_SPLIT_GUIDED,
    PIPELINE_TRANSPOSE,
    PIPELINE_PARTITION,
    PIPELINE_WINDOW_MERGE,
    PIPELINE_WINDOW_SPLIT,
    PIPELINE_WINDOW_UNPACK,
} pipeline_kind;

/* Whether the partition's scatter may take half tiles (scatter_tile_for):
 * keys whose staged tile holds no places (a key and its value in at most 8
 * bytes), and at least two keys a thread. */
static bool partition_halves_tiles(const bitonic_tuning *tuning)
{
    return tuning->partition_places_by_search && tuning->partition_scatter_keys >= 2u;
}

static VkResult ensure_pipeline(bitonic_vulkan_sorter *sorter, sorter_variant *variant, pipeline_kind kind,
                                uint32_t steps)
{
    const bitonic_tuning *tuning = &variant->tuning;
    bool with_values = variant->with_values, key64 = variant->key64, wide = variant->wide;
    bitonic_kernel_form form = {.with_values = with_values, .key64 = key64, .pairs_as_int64 = variant->pairs_as_int64};
    /* The fourth is the split pass's probes a round (in the shared-memory merge,
     * those of its own searches on run samples); the fifth is SPLIT_GUIDED in
     * the split pass and STORE_FROM_REGISTERS in the shared-memory merge
     * (create_pipeline passes four elsewhere); the sixth WINDOW_MERGE, true in
     * the partition's window merge and its split pass alone, and the seventh
     * THREE_PIECES there (steps: 1 for buckets of up to two windows); the
     * eighth TAKES_TAIL, true in merge_tail_pipeline alone. */
    uint32_t merge_constants[8] = {tuning->merge_workgroup_size, tuning->merge_chunk_log, tuning->merge_search_lanes,
                                   tuning->merge_split_probes, 0u, 0u, steps != 0 ? VK_TRUE : VK_FALSE, VK_FALSE};
    switch (kind) {
    case PIPELINE_TILE: {
        if (variant->tile_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t tile_constants[2] = {tuning->tile_workgroup_size, tuning->tile_log};
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               tuning->tile_uses_shuffle
                                   ? bitonic_spirv_tile_shuffle_pass(tuning->tile_register_log, form, wide)
                                   : bitonic_spirv_tile_pass(tuning->tile_register_log, form, wide),
                               tile_constants, 2, &variant->tile_pipeline);
    }
    case PIPELINE_TILE_SORT:
    case PIPELINE_SHORT_TILE_SORT: {
        /* The short tile: the same kernel, a shorter tile and fewer threads;
         * steps 1: the pipeline of passes that place a tail. */
        bool short_tile = kind == PIPELINE_SHORT_TILE_SORT, tail = steps == 1u;
        VkPipeline *pipeline = short_tile ? (tail ? &variant->short_tile_sort_tail_pipeline
                                                  : &variant->short_tile_sort_pipeline)
                                          : (tail ? &variant->tile_sort_tail_pipeline : &variant->tile_sort_pipeline);
        if (*pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        if ((short_tile && (tuning->short_tile_log == 0 || wide)) || (tail && (tuning->tile_tail_log == 0 || wide)))
            return VK_ERROR_FEATURE_NOT_PRESENT;
        uint32_t tile_log = short_tile ? tuning->short_tile_log : tuning->tile_log;
        uint32_t register_log = short_tile ? tuning->short_tile_register_log : tuning->tile_sort_register_log;
        /* The merge chunk places the run samples the tile sort leaves. */
        uint32_t tile_constants[4] = {1u << (tile_log - register_log), tile_log, tuning->merge_chunk_log,
                                      tail ? 1u << tuning->tile_tail_log : 0u};
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               tuning->tile_sort_uses_shuffle && !wide
                                   ? bitonic_spirv_tile_sort_lanes_pass(register_log, form)
                                   : bitonic_spirv_tile_sort_pass(register_log, form, wide),
                               tile_constants, 4, pipeline);
    }
    case PIPELINE_GLOBAL: {
        if (steps == 0 || steps > BITONIC_MAX_STEP_GROUP_LOG || wide)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->global_pipelines[steps] != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t global_constants[1] = {tuning->global_workgroup_size};
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_global_pass(steps, form), global_constants, 1,
                               &variant->global_pipelines[steps]);
    }
    case PIPELINE_WINDOW_UNPACK: {
        /* PAIRS32's tuning: pairs_pack_fits saw KEYS64's merge agree. */
        if (!with_values || key64 || wide || tuning->merge_direct)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        VkPipeline *pipeline = &variant->window_unpack_pipeline[steps != 0];
        if (*pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[3] = tuning->merge_fused_split_probes;
        merge_constants[4] = tuning->merge_store_from_registers ? VK_TRUE : VK_FALSE;
        merge_constants[5] = VK_TRUE;  /* WINDOW_MERGE */
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_unpack_pass(tuning->merge_register_log,
                                                               tuning->merge_fused_split_by_subgroup),
                               merge_constants, 7u, pipeline);
    }
    case PIPELINE_MERGE:
    case PIPELINE_MERGE_TAIL:
    case PIPELINE_WINDOW_MERGE: {
        /* The merge's own pipeline (the direct kernel where tuning.merge_direct
         * says, else the shared-memory one), and two more of the shared-memory
         * kernel: the merge that takes in a tail (TAKES_TAIL; the direct merge
         * takes a tail in by itself) and the partition's window merge
         * (WINDOW_MERGE; steps 1: THREE_PIECES). */
        bool tail = kind == PIPELINE_MERGE_TAIL, window = kind == PIPELINE_WINDOW_MERGE;
        if ((tail || window) && (tuning->merge_direct || wide))
            return VK_ERROR_FEATURE_NOT_PRESENT;
        VkPipeline *pipeline = window ? &variant->window_merge_pipeline[steps != 0]
                               : tail ? &variant->merge_tail_pipeline
                                      : &variant->merge_pipeline;
        if (*pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[3] = tuning->merge_fused_split_probes;  /* SPLIT_PROBES: its own searches' */
        /* The three-piece window merge of 32-bit keys from registers (tuning.h). */
        bool from_registers =
            tuning->merge_store_from_registers || (window && steps != 0 && tuning->window_merge_store_from_registers);
        merge_constants[4] = from_registers ? VK_TRUE : VK_FALSE;  /* STORE_FROM_REGISTERS */
        merge_constants[5] = window ? VK_TRUE : VK_FALSE;
        merge_constants[7] = tail ? VK_TRUE : VK_FALSE;
        return create_pipeline(
            sorter, sorter->pipeline_cache, variant->pipeline_layout,
            tuning->merge_direct ? bitonic_spirv_merge_direct(tuning->merge_register_log, form, wide)
            : tuning->merge_fused_split_by_subgroup && !wide
                ? bitonic_spirv_merge_lanes_pass(tuning->merge_register_log, form)
                : bitonic_spirv_merge_pass(tuning->merge_register_log, form, wide),
            merge_constants, tail ? 8u : window ? 7u : 5u, pipeline);
    }
    case PIPELINE_MERGE_DIRECT:
        if (tuning->merge_direct || tuning->merge_direct_max_keys == 0)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->merge_direct_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_direct(tuning->merge_register_log, form, wide),
                               merge_constants, 5, &variant->merge_direct_pipeline);
    case PIPELINE_MERGE_SPLIT:
        if (variant->merge_split_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_split(form, wide), merge_constants, 5,
                               &variant->merge_split_pipeline);
    case PIPELINE_MERGE_SPLIT_BINARY:
        if (variant->merge_split_binary_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        merge_constants[3] = 1u;  /* one probe a round */
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_split(form, wide), merge_constants, 5,
                               &variant->merge_split_binary_pipeline);
    case PIPELINE_MERGE_SPLIT_GUIDED:
        if (variant->merge_split_guided_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        merge_constants[4] = 1u;  /* SPLIT_GUIDED */
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_split(form, wide), merge_constants, 5,
                               &variant->merge_split_guided_pipeline);
    case PIPELINE_PARTITION: {
        /* Both of the partition's pipelines. */
        if (wide || tuning->partition_max_splitters == 0)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        uint32_t partition_constants[4] = {tuning->partition_workgroup_size, tuning->partition_max_splitters,
                                           2u * (tuning->partition_max_splitters + 1u),  /* the lookup table's cells */
                                           tuning->partition_scatter_keys};
        VkResult result = VK_SUCCESS;
        if (variant->partition_pipeline == VK_NULL_HANDLE)
            result = create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                                     bitonic_spirv_partition_pass(form, tuning->partition_scan_by_subgroup),
                                     partition_constants, 4, &variant->partition_pipeline);
        /* Half tiles (scatter_tile_for) with each staged key's place beside it. */
        if (result == VK_SUCCESS && partition_halves_tiles(tuning) &&
            variant->partition_half_scatter_pipeline == VK_NULL_HANDLE) {
            partition_constants[3] = tuning->partition_scatter_keys / 2u;
            result = create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                                     bitonic_spirv_partition_stored_pass(form, tuning->partition_scan_by_subgroup),
                                     partition_constants, 4, &variant->partition_half_scatter_pipeline);
        }
        return result;
    }
    case PIPELINE_WINDOW_SPLIT:
        if (wide)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->window_split_pipeline[steps != 0] != VK_NULL_HANDLE)
            return VK_SUCCESS;
        /* Three pieces: a workgroup a chunk, whose threads search together
         * (merge_pass.comp, window_split_three); else a thread a chunk. */
        merge_constants[0] = steps == 0 || tuning->merge_split_workgroup_size < WINDOW_SPLIT_THREADS
                                 ? tuning->merge_split_workgroup_size
                                 : WINDOW_SPLIT_THREADS;
        merge_constants[5] = VK_TRUE;
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_merge_split(form, false), merge_constants, 7,
                               &variant->window_split_pipeline[steps != 0]);
    case PIPELINE_TRANSPOSE: {
        if (wide)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->transpose_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t transpose_constants[2] = {tuning->transpose_workgroup_size, tuning->transpose_block_log};
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout,
                               bitonic_spirv_transpose_pass(form), transpose_constants, 2,
                               &variant->transpose_pipeline);
    }
    }
    return VK_ERROR_FEATURE_NOT_PRESENT;
}

/* Every pipeline of a variant; the device-address ones are the merge path's. */
static VkResult create_variant_pipelines(bitonic_vulkan_sorter *sorter, sorter_variant *variant)
{
    VkResult result = ensure_pipeline(sorter, variant, PIPELINE_TILE, 0);
    if (result == VK_SUCCESS && variant->tuning.tile_merge_sort)
        result = ensure_pipeline(sorter, variant, PIPELINE_TILE_SORT, 0);
    if (result == VK_SUCCESS && variant->tuning.tile_merge_sort && variant->tuning.short_tile_log != 0 &&
        !variant->wide)
        result = ensure_pipeline(sorter, variant, PIPELINE_SHORT_TILE_SORT, 0);
    /* The same two placing a tail (steps 1). */
    bool tails = variant->tuning.tile_merge_sort && variant->tuning.tile_tail_log != 0 && !variant->wide;
    if (result == VK_SUCCESS && tails)
        result = ensure_pipeline(sorter, variant, PIPELINE_TILE_SORT, 1);
    if (result == VK_SUCCESS && tails && variant->tuning.short_tile_log != 0)
        result = ensure_pipeline(sorter, variant, PIPELINE_SHORT_TILE_SORT, 1);
    for (uint32_t steps = 1; result == VK_SUCCESS && !variant->wide && steps <= variant->tuning.max_global_steps;
         ++steps)
        result = ensure_pipeline(sorter, variant, PIPELINE_GLOBAL, steps);
    if (result == VK_SUCCESS)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE, 0);
    if (result == VK_SUCCESS && !variant->tuning.merge_direct && variant->tuning.merge_direct_max_keys != 0)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE_DIRECT, 0);
    if (result == VK_SUCCESS && !variant->tuning.merge_direct && !variant->wide)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE_TAIL, 0);
    if (result == VK_SUCCESS)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT, 0);
    if (result == VK_SUCCESS)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT_BINARY, 0);
    if (result == VK_SUCCESS && variant->tuning.merge_split_guided_min_chunks != UINT32_MAX)
        result = ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT_GUIDED, 0);
    if (result == VK_SUCCESS && !variant->wide)
        result = ensure_pipeline(sorter, variant, PIPELINE_TRANSPOSE, 0);
    bool partitions = !variant->wide && variant->tuning.partition_min_keys != UINT64_MAX &&
                      variant->tuning.partition_max_splitters != 0 && !variant->tuning.merge_direct;
    if (result == VK_SUCCESS && partitions)
        result = ensure_pipeline(sorter, variant, PIPELINE_PARTITION, 0);
    for (uint32_t three_pieces = 0; three_pieces < 2u; ++three_pieces) {
        if (result == VK_SUCCESS && partitions)
            result = ensure_pipeline(sorter, variant, PIPELINE_WINDOW_MERGE, three_pieces);
        if (result == VK_SUCCESS && partitions)
            result = ensure_pipeline(sorter, variant, PIPELINE_WINDOW_SPLIT, three_pieces);
    }
    return result;
}

static VkResult create_search_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineCache cache)
{
    VkDescriptorSetLayoutBinding bindings[SEARCH_BINDINGS];
    for (uint32_t i = 0; i < SEARCH_BINDINGS; ++i)
        bindings[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                                     .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                     .descriptorCount = 1,
                                                     .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                                .bindingCount = SEARCH_BINDINGS, .pBindings = bindings};
    VkResult result =
        vkCreateDescriptorSetLayout(sorter->device, &set_info, sorter->allocator, &sorter->search_set_layout);
    if (result != VK_SUCCESS)
        return result;
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0,
                                 .size = sizeof(search_push_constants)};
    VkPipelineLayoutCreateInfo layout_info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                              .setLayoutCount = 1, .pSetLayouts = &sorter->search_set_layout,
                                              .pushConstantRangeCount = 1, .pPushConstantRanges = &range};
    result = vkCreatePipelineLayout(sorter->device, &layout_info, sorter->allocator, &sorter->search_pipeline_layout);
    if (result != VK_SUCCESS)
        return result;
    (void)cache;
    return result;
}

/* The search pipeline for 32- or 64-bit keys, built on first use. */
static VkResult ensure_search_pipeline(bitonic_vulkan_sorter *sorter, bool key64)
{
    VkPipeline *pipeline = key64 ? &sorter->search_pipeline64 : &sorter->search_pipeline;
    if (*pipeline != VK_NULL_HANDLE)
        return VK_SUCCESS;
    uint32_t workgroup = SEARCH_WORKGROUP < sorter->limits.max_workgroup_invocations
                             ? SEARCH_WORKGROUP
                             : sorter->limits.max_workgroup_invocations;
    bitonic_spirv spirv = key64 ? SPIRV_MODULE(bitonic_spirv_search_k64) : SPIRV_MODULE(bitonic_spirv_search);
    return create_pipeline(sorter, sorter->pipeline_cache, sorter->search_pipeline_layout, spirv, &workgroup, 1,
                           pipeline);
}

/* The largest count of 32-bit keys that device addresses reach: as many as the
 * largest device-local heap holds with their scratch copy (4 + 4 bytes a key),
 * never fewer than bound buffers take. Addressing itself (64-bit positions)
 * goes much further; memory is what ends a sort first. */
static uint64_t device_address_max_keys(VkPhysicalDevice physical_device, uint64_t bound_max_keys)
{
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical_device, &memory);
    VkDeviceSize largest = 0;
    for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
        if ((memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && memory.memoryHeaps[h].size > largest)
            largest = memory.memoryHeaps[h].size;
    uint64_t keys = largest / (2u * sizeof(uint32_t));
    return keys > bound_max_keys ? keys : bound_max_keys;
}

/* The device-address variants (KEYS32_WIDE ..), with the tuning of their bound
 * counterparts, when the device was made with bufferDeviceAddress and
 * shaderInt64 (the kernels' positions are 64-bit). Without them nothing
 * changes: max_keys stays what one binding covers. */
/* The split pass's workgroup size asked for in the overrides, clamped to the device. */
static uint32_t split_workgroup_size(const bitonic_vulkan_sorter *sorter, const bitonic_tuning_overrides *overrides)
{
    uint32_t size = overrides->merge_split_workgroup_size;
    if (size > sorter->limits.max_workgroup_invocations)
        size = sorter->limits.max_workgroup_invocations;
    if (size > sorter->limits.max_workgroup_size_x)
        size = sorter->limits.max_workgroup_size_x;
    return size;
}

/* The split-pass choices the caller made, over a derived tuning (every
 * bound variant, the small sorts' included, takes them alike). */
static void apply_split_overrides(const bitonic_vulkan_sorter *sorter, const bitonic_tuning_overrides *overrides,
                                  uint32_t bytes_per_key, bitonic_tuning *tuning)
{
    if (overrides->merge_split_pass_min_chunks != 0)
        tuning->merge_split_pass_min_chunks = overrides->merge_split_pass_min_chunks;
    if (overrides->merge_split_probes != 0) {  /* asked for: at every size */
        tuning->merge_split_probes =
            overrides->merge_split_probes < MAX_SPLIT_PROBES ? overrides->merge_split_probes : MAX_SPLIT_PROBES;
        tuning->merge_split_probes_max_chunks = UINT32_MAX;
    }
    if (overrides->merge_split_workgroup_size != 0)
        tuning->merge_split_workgroup_size = split_workgroup_size(sorter, overrides);
    if (overrides->merge_split_guided_min_chunks != 0)
        tuning->merge_split_guided_min_chunks = overrides->merge_split_guided_min_chunks;
    if (overrides->merge_split_no_samples)
        tuning->merge_split_samples = false;
    if (overrides->merge_fused_split_min_chunks != 0)
        tuning->merge_fused_split_min_chunks = overrides->merge_fused_split_min_chunks;
    if (overrides->merge_fused_split_probes != 0)
        tuning->merge_fused_split_probes =
            overrides->merge_fused_split_probes < MAX_SPLIT_PROBES ? overrides->merge_fused_split_probes : MAX_SPLIT_PROBES;
    if (overrides->merge_fused_split_searcher != BITONIC_SPLIT_SEARCHER_DEFAULT)
        tuning->merge_fused_split_by_subgroup =
            overrides->merge_fused_split_searcher == BITONIC_SPLIT_SEARCHER_SUBGROUP && sorter->limits.subgroup_ballot;
    /* The partition sort's, where the variant can take it (record_partition_sort). */
    if (overrides->partition_min_keys != 0)
        tuning->partition_min_keys = overrides->partition_min_keys == UINT32_MAX ? UINT64_MAX : overrides->partition_min_keys;
    if (overrides->partition_levels != 0)
        tuning->partition_levels = overrides->partition_levels == UINT32_MAX ? 0u : overrides->partition_levels;
    if (overrides->partition_samples_per_bucket != 0)
        tuning->partition_samples_per_bucket = overrides->partition_samples_per_bucket;
    if (overrides->partition_buckets_per_window != 0)
        tuning->partition_buckets_per_window = overrides->partition_buckets_per_window < 2u ? 1u : 2u;
    if (overrides->partition_nested_min_levels != 0)
        tuning->partition_nested_min_levels = overrides->partition_nested_min_levels;
    tuning->partition_fallback_in_batches = overrides->partition_fallback_in_batches;
    if (overrides->partition_split_by_thread_min_keys != 0)
        tuning->partition_split_by_thread_min_keys = overrides->partition_split_by_thread_min_keys == UINT32_MAX
                                                         ? UINT64_MAX
                                                         : overrides->partition_split_by_thread_min_keys;
    if (overrides->partition_scatter_workgroups != 0)
        tuning->partition_scatter_workgroups = overrides->partition_scatter_workgroups;
    if (overrides->partition_count_workgroups != 0)
        tuning->partition_workgroups = overrides->partition_count_workgroups;
    /* Fewer threads stage as many keys, more a thread, where shared memory
     * and the registers allow (tuning.c); a tile of its own size is staged
     * by as many threads, more or fewer keys a thread. */
    bool fewer_threads =
        overrides->partition_workgroup_size != 0 && overrides->partition_workgroup_size < tuning->partition_workgroup_size;
    if (fewer_threads || overrides->partition_scatter_tile_keys != 0)
        bitonic_tuning_set_partition_workgroup(
            &sorter->limits, bytes_per_key,
            fewer_threads ? overrides->partition_workgroup_size : tuning->partition_workgroup_size,
            overrides->partition_scatter_tile_keys, tuning);
}

static VkResult create_wide_variants(bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                                     bool eager)
{
    if (!desc->enable_device_addresses || !desc->enable_64bit_keys)
        return VK_SUCCESS;
    sorter->get_buffer_address =
        (PFN_vkGetBufferDeviceAddress)vkGetDeviceProcAddr(desc->device, "vkGetBufferDeviceAddress");
    if (!sorter->get_buffer_address)
        sorter->get_buffer_address =
            (PFN_vkGetBufferDeviceAddress)vkGetDeviceProcAddr(desc->device, "vkGetBufferDeviceAddressKHR");
    if (!sorter->get_buffer_address)
        return VK_SUCCESS;
    VkResult result = VK_SUCCESS;
    for (int bound = KEYS32; bound <= PAIRS64 && result == VK_SUCCESS; ++bound) {
        const sorter_variant *base = &sorter->variants[bound];
        sorter_variant *variant = &sorter->variants[wide_variant_index(base->key64, base->with_values)];
        if (!base->available)
            continue;
        variant->tuning = base->tuning;
        /* The merge without shared memory: the shared-memory merge built with
         * device addresses gave wrong keys on the H100 wherever a merge met a
         * partial last tile, hung there when it searched its own splits, and
         * went wrong on lavapipe with 16-byte loads after a split pass, while
         * the direct merge sorted every case right on both (2026-11-23,
         * docs/API.md, "Sizes"). */
        variant->tuning.merge_direct = true;
        /* Split searches that guess from key values, built with 64-bit
         * positions, gave wrong splits on the H100 at every size (while
         * lavapipe sorted every case right, and the bound build passed on
         * both; docs/perf-log.md, entry 41): the wide path searches by
         * plain rounds, whatever was asked. */
        variant->tuning.merge_split_guided_min_chunks = UINT32_MAX;
        bitonic_kernel_form form = {.with_values = base->with_values, .key64 = base->key64,
                                    .pairs_as_int64 = base->pairs_as_int64};
        result = create_variant(sorter, desc->pipeline_cache, form, true, variant);
        if (result == VK_SUCCESS && eager)
            result = create_variant_pipelines(sorter, variant);
        variant->available = result == VK_SUCCESS;
    }
    if (result == VK_SUCCESS) {
        sorter->device_addresses = true;
        sorter->max_keys = device_address_max_keys(desc->physical_device, sorter->bound_max_keys);
    }
    return result;
}

/* Whether a partition sort of pairs of 32-bit keys may run packed on KEYS64's
 * pipelines: the plan is made with PAIRS32's tuning (the grids, the chunks,
 * the split passes, the windows, the fallback's chunks), so KEYS64's must
 * agree on every field those read. Both come from 8 bytes a key, so they do
 * unless a device or an override tells them apart. */
static bool pairs_pack_fits(const bitonic_vulkan_sorter *sorter)
{
    const sorter_variant *pairs = &sorter->variants[PAIRS32], *keys = &sorter->variants[KEYS64];
    if (!pairs->available || !keys->available)
        return false;
    const bitonic_tuning *a = &pairs->tuning, *b = &keys->tuning;
    return a->tile_log == b->tile_log && a->tile_merge_sort == b->tile_merge_sort &&
           a->tile_sort_register_log == b->tile_sort_register_log &&
           a->tile_sort_workgroup_size == b->tile_sort_workgroup_size && a->tile_register_log == b->tile_register_log &&
           a->tile_workgroup_size == b->tile_workgroup_size && a->merge_chunk_log == b->merge_chunk_log &&
           a->merge_register_log == b->merge_register_log && a->merge_workgroup_size == b->merge_workgroup_size &&
           a->merge_split_pass_min_chunks == b->merge_split_pass_min_chunks &&
           a->merge_split_probes_max_chunks == b->merge_split_probes_max_chunks &&
           a->merge_split_workgroup_size == b->merge_split_workgroup_size &&
           a->merge_split_guided_min_chunks == b->merge_split_guided_min_chunks &&
           a->merge_split_samples == b->merge_split_samples &&
           a->merge_fused_split_min_chunks == b->merge_fused_split_min_chunks && a->merge_direct == b->merge_direct &&
           a->partition_min_keys == b->partition_min_keys && a->partition_levels == b->partition_levels &&
           a->partition_nested_min_levels == b->partition_nested_min_levels &&
           a->partition_fallback_in_batches == b->partition_fallback_in_batches &&
           a->partition_max_splitters == b->partition_max_splitters &&
           a->partition_workgroup_size == b->partition_workgroup_size &&
           a->partition_scatter_keys == b->partition_scatter_keys &&
           a->partition_split_by_thread_min_keys == b->partition_split_by_thread_min_keys;
}

bitonic_status bitonic_vulkan_sorter_create(const bitonic_vulkan_sorter_desc *desc,
                                            bitonic_vulkan_sorter **out_sorter)
{
    if (!out_sorter)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_sorter = NULL;
    if (!desc || desc->physical_device == VK_NULL_HANDLE || desc->device == VK_NULL_HANDLE ||
        (unsigned)desc->strategy > (unsigned)BITONIC_STRATEGY_TRANSPOSE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    const bitonic_tuning_overrides *overrides = bitonic_tuning_overrides_find(desc->next);
    bitonic_vulkan_sorter *sorter = calloc(1, sizeof *sorter);
    if (!sorter)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    sorter->device = desc->device;
    sorter->allocator = desc->allocator;
    sorter->capture_statistics = desc->capture_pipeline_statistics;
    sorter->strategy = desc->strategy;
    sorter->pipeline_cache = desc->pipeline_cache;
    bool eager = !desc->lazy_pipelines || desc->capture_pipeline_statistics;
    sorter->push_descriptor_set =
        (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(desc->device, "vkCmdPushDescriptorSetKHR");
    if (!sorter->push_descriptor_set) {
        free(sorter);
        return BITONIC_ERROR_UNSUPPORTED;
    }

    uint64_t max_storage_range;
    bitonic_vk_read_limits(desc->physical_device, &sorter->limits, &max_storage_range);
    if (overrides->no_subgroup_shuffle)
        sorter->limits.subgroup_shuffle = false;
    if (overrides->no_subgroup_arithmetic)
        sorter->limits.subgroup_arithmetic = false;
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(desc->physical_device, &properties);
    memcpy(sorter->max_group_count, properties.limits.maxComputeWorkGroupCount, sizeof sorter->max_group_count);
    sorter->storage_alignment = properties.limits.minStorageBufferOffsetAlignment;
    if (sorter->storage_alignment == 0)
        sorter->storage_alignment = 1;
    /* One binding covers the keys; group and key indices are 32-bit in the shaders. */
    sorter->bound_max_keys = max_storage_range / sizeof(uint32_t);
    if (sorter->bound_max_keys > ((uint64_t)1 << 31))
        sorter->bound_max_keys = (uint64_t)1 << 31;
    sorter->max_keys = sorter->bound_max_keys;
    sorter->force_device_addresses = overrides->force_device_addresses;

    /* Small sorts get their own shapes (KEYS32_SMALL, and direct merges in the
     * other variants) unless the caller chose shapes or a merge kernel, or no
     * small shapes: then every sort uses what was asked for. */
    bool shapes_chosen = overrides->tile_keys != 0 || overrides->tile_keys_per_thread != 0 ||
                         overrides->max_strides_per_global_pass != 0 || overrides->merge_chunk_keys != 0 ||
                         overrides->merge_keys_per_thread != 0 || overrides->merge_kernel != BITONIC_MERGE_KERNEL_DEFAULT;
    bool small_shapes = !shapes_chosen && overrides->small_sort_max_keys != UINT32_MAX;
    VkResult result = VK_SUCCESS;
    for (int variant = 0; variant < KEYS32_SMALL && result == VK_SUCCESS; ++variant) {
        bool key64 = variant >= KEYS64, with_values = variant == PAIRS32 || variant == PAIRS64;
        if (key64 && !desc->enable_64bit_keys)
            continue;
        uint32_t bytes_per_key = (key64 ? 8u : 4u) + (with_values ? 4u : 0u);
        if (!bitonic_tuning_derive(&sorter->limits, bytes_per_key, overrides->tile_keys, overrides->tile_keys_per_thread,
                                   overrides->max_strides_per_global_pass,
                                   &sorter->variants[variant].tuning) ||
            ((overrides->merge_chunk_keys != 0 || overrides->merge_keys_per_thread != 0) &&
             !bitonic_tuning_set_merge(&sorter->limits, bytes_per_key, overrides->merge_chunk_keys,
                                       overrides->merge_keys_per_thread, &sorter->variants[variant].tuning))) {
            bitonic_vulkan_sorter_destroy(sorter);
            return BITONIC_ERROR_UNSUPPORTED;
        }
        apply_split_overrides(sorter, overrides, bytes_per_key, &sorter->variants[variant].tuning);
        if (overrides->merge_kernel != BITONIC_MERGE_KERNEL_DEFAULT)
            sorter->variants[variant].tuning.merge_direct = overrides->merge_kernel == BITONIC_MERGE_KERNEL_DIRECT;
        if (small_shapes)
            sorter->variants[variant].tuning.merge_direct_max_keys = bitonic_tuning_merge_direct_max_keys(
                key64, with_values, sorter->variants[variant].tuning.tile_log);
        if (overrides->merge_scalar_io)
            sorter->variants[variant].tuning.merge_vector_io = false;
        if (overrides->merge_store_from_registers)
            sorter->variants[variant].tuning.merge_store_from_registers = true;
        if (overrides->partition_whole_samples)
            sorter->variants[variant].tuning.partition_sample_runs = false;
        if (overrides->partition_window_staged_stores)
            sorter->variants[variant].tuning.window_merge_store_from_registers = false;
        if (overrides->tile_scalar_io)
            sorter->variants[variant].tuning.tile_vector_io = false;
        if (overrides->network_tile_sort)
            sorter->variants[variant].tuning.tile_merge_sort = false;
        /* Pairs of 32-bit keys compare as one 64-bit integer where the device has shaderInt64. */
        bitonic_kernel_form form = {.with_values = with_values, .key64 = key64,
                                    .pairs_as_int64 = with_values && !key64 && desc->enable_64bit_keys};
        result = create_variant(sorter, desc->pipeline_cache, form, false, &sorter->variants[variant]);
        if (result == VK_SUCCESS && eager)
            result = create_variant_pipelines(sorter, &sorter->variants[variant]);
        sorter->variants[variant].available = result == VK_SUCCESS;
    }
    if (result == VK_SUCCESS)
        result = create_wide_variants(sorter, desc, eager);
    if (result == VK_SUCCESS && small_shapes &&
        bitonic_tuning_derive_small(&sorter->limits, 4u, overrides->small_sort_tile_keys, overrides->small_sort_max_keys,
                                    &sorter->variants[KEYS32_SMALL].tuning, &sorter->small_sort_max_keys)) {
        apply_split_overrides(sorter, overrides, 4u, &sorter->variants[KEYS32_SMALL].tuning);
        if (overrides->network_tile_sort)
            sorter->variants[KEYS32_SMALL].tuning.tile_merge_sort = false;
        result = create_variant(sorter, desc->pipeline_cache, (bitonic_kernel_form){0}, false,
                                &sorter->variants[KEYS32_SMALL]);
        if (result == VK_SUCCESS && eager)
            result = create_variant_pipelines(sorter, &sorter->variants[KEYS32_SMALL]);
        sorter->variants[KEYS32_SMALL].available = result == VK_SUCCESS;
        if (result != VK_SUCCESS)
            sorter->small_sort_max_keys = 0;
    }
    sorter->pack_pairs = result == VK_SUCCESS && !overrides->partition_split_pairs && pairs_pack_fits(sorter);
    for (uint32_t three_pieces = 0; sorter->pack_pairs && eager && three_pieces < 2u && result == VK_SUCCESS;
         ++three_pieces)
        result = ensure_pipeline(sorter, &sorter->variants[PAIRS32], PIPELINE_WINDOW_UNPACK, three_pieces);
    if (result == VK_SUCCESS)
        result = create_search_pipeline(sorter, desc->pipeline_cache);
    if (result == VK_SUCCESS && eager)
        result = ensure_search_pipeline(sorter, false);
    if (result == VK_SUCCESS && eager && sorter->variants[KEYS64].available)
        result = ensure_search_pipeline(sorter, true);
    if (result != VK_SUCCESS) {
        bitonic_vulkan_sorter_destroy(sorter);
        return bitonic_status_from_vk(result);
    }
    *out_sorter = sorter;
    return BITONIC_SUCCESS;
}

void bitonic_vulkan_sorter_destroy(bitonic_vulkan_sorter *sorter)
{
    if (!sorter)
        return;
    vkDestroyPipeline(sorter->device, sorter->search_pipeline, sorter->allocator);
    vkDestroyPipeline(sorter->device, sorter->search_pipeline64, sorter->allocator);
    vkDestroyPipelineLayout(sorter->device, sorter->search_pipeline_layout, sorter->allocator);
    vkDestroyDescriptorSetLayout(sorter->device, sorter->search_set_layout, sorter->allocator);
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        sorter_variant *variant = &sorter->variants[v];
        for (uint32_t steps = 0; steps <= BITONIC_MAX_STEP_GROUP_LOG; ++steps)
            vkDestroyPipeline(sorter->device, variant->global_pipelines[steps], sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_sort_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->short_tile_sort_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->tile_sort_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->short_tile_sort_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_direct_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_tail_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_binary_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->merge_split_guided_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->transpose_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->partition_pipeline, sorter->allocator);
        vkDestroyPipeline(sorter->device, variant->partition_half_scatter_pipeline, sorter->allocator);
        for (int i = 0; i < 2; ++i) {
            vkDestroyPipeline(sorter->device, variant->window_merge_pipeline[i], sorter->allocator);
            vkDestroyPipeline(sorter->device, variant->window_split_pipeline[i], sorter->allocator);
            vkDestroyPipeline(sorter->device, variant->window_unpack_pipeline[i], sorter->allocator);
        }
        vkDestroyPipelineLayout(sorter->device, variant->pipeline_layout, sorter->allocator);
        vkDestroyDescriptorSetLayout(sorter->device, variant->set_layout, sorter->allocator);
    }
    free(sorter);
}

void bitonic_vulkan_sorter_get_info(const bitonic_vulkan_sorter *sorter, bitonic_vulkan_sorter_info *out_info)
{
    const bitonic_tuning *tuning = &sorter->variants[KEYS32].tuning;
    out_info->subgroup_size = sorter->limits.subgroup_size;
    out_info->workgroup_size = tuning->tile_workgroup_size;
    out_info->keys_per_thread = 1u << tuning->tile_register_log;
    out_info->tile_keys = 1u << tuning->tile_log;
    out_info->max_strides_per_global_pass = tuning->max_global_steps;
    out_info->max_keys = sorter->max_keys;
    out_info->bound_max_keys = sorter->bound_max_keys;
    out_info->device_addresses = sorter->device_addresses;
    out_info->tile_uses_subgroup_shuffle = tuning->tile_uses_shuffle;
    out_info->tile_sort_keys_per_thread = tuning->tile_merge_sort ? 1u << tuning->tile_sort_register_log : 0u;
    out_info->merge_chunk_keys = 1u << tuning->merge_chunk_log;
    bool small = sorter->small_sort_max_keys != 0 && sorter->variants[KEYS32_SMALL].available;
    out_info->small_sort_tile_keys = small ? 1u << sorter->variants[KEYS32_SMALL].tuning.tile_log : 0u;
    out_info->small_sort_max_keys = small ? sorter->small_sort_max_keys : 0u;
}

/* Appends to text what the driver says of one pipeline's executables. */
static void report_pipeline(const bitonic_vulkan_sorter *sorter, VkPipeline pipeline, const char *name, char *text,
                            size_t capacity, size_t *used)
{
    PFN_vkGetPipelineExecutableStatisticsKHR get_statistics = (PFN_vkGetPipelineExecutableStatisticsKHR)
        vkGetDeviceProcAddr(sorter->device, "vkGetPipelineExecutableStatisticsKHR");
    if (!get_statistics || pipeline == VK_NULL_HANDLE || *used >= capacity)
        return;
    VkPipelineExecutableInfoKHR executable = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                              .pipeline = pipeline, .executableIndex = 0};
    VkPipelineExecutableStatisticKHR statistics[32];
    uint32_t count = 32;
    for (uint32_t i = 0; i < count; ++i)
        statistics[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    VkResult result = get_statistics(sorter->device, &executable, &count, statistics);
    if (result != VK_SUCCESS && result != VK_INCOMPLETE)
        return;
    *used += (size_t)snprintf(text + *used, capacity - *used, "%s:", name);
    for (uint32_t i = 0; i < count && *used < capacity; ++i) {
        const VkPipelineExecutableStatisticKHR *st = &statistics[i];
        switch (st->format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
            *used += (size_t)snprintf(text + *used, capacity - *used, " %s=%u", st->name, st->value.b32);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
            *used += (size_t)snprintf(text + *used, capacity - *used, " %s=%lld", st->name, (long long)st->value.i64);
            break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
            *used += (size_t)snprintf(text + *used, capacity - *used, " %s=%llu", st->name,
                                      (unsigned long long)st->value.u64);
            break;
        default:
            *used += (size_t)snprintf(text + *used, capacity - *used, " %s=%g", st->name, st->value.f64);
            break;
        }
    }
    if (*used < capacity)
        *used += (size_t)snprintf(text + *used, capacity - *used, "\n");
}

bitonic_status bitonic_vulkan_sorter_pipeline_report(const bitonic_vulkan_sorter *sorter, char *text, size_t capacity)
{
    if (!sorter || !text || capacity == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    text[0] = '\0';
    if (!sorter->capture_statistics)
        return BITONIC_ERROR_UNSUPPORTED;
    size_t used = 0;
    for (int v = 0; v < VARIANT_COUNT; ++v) {
        const sorter_variant *variant = &sorter->variants[v];
        if (!variant->available)
            continue;
        char name[128];
        const char *kind = v == PAIRS32        ? "+values"
                           : v == KEYS64       ? " 64-bit"
                           : v == PAIRS64      ? " 64-bit+values"
                           : v == KEYS32_SMALL ? " small sorts"
                           : v == KEYS32_WIDE  ? " device addresses"
                           : v == PAIRS32_WIDE ? "+values device addresses"
                           : v == KEYS64_WIDE  ? " 64-bit device addresses"
                           : v == PAIRS64_WIDE ? " 64-bit+values device addresses"
                                               : "";
        snprintf(name, sizeof name, "tile%s%s (%u keys/thread)", variant->tuning.tile_uses_shuffle ? " shuffle" : "",
                 kind, 1u << variant->tuning.tile_register_log);
        report_pipeline(sorter, variant->tile_pipeline, name, text, capacity, &used);
        /* The tile merge sort's four: the tile and the short tile, each
         * without and with a tail. */
        const VkPipeline tile_sorts[4] = {variant->tile_sort_pipeline, variant->short_tile_sort_pipeline,
                                          variant->tile_sort_tail_pipeline, variant->short_tile_sort_tail_pipeline};
        for (uint32_t i = 0; i < 4u; ++i) {
            bool short_tile = i % 2u == 1u, tail = i >= 2u;
            char short_keys[24] = "";
            if (short_tile)
                snprintf(short_keys, sizeof short_keys, "%u keys, ", 1u << variant->tuning.short_tile_log);
            snprintf(name, sizeof name, "tile merge sort%s%s%s (%s%u keys/thread)", tail ? " placing a tail" : "",
                     short_tile ? ", short tile" : "", kind, short_keys,
                     1u << (short_tile ? variant->tuning.short_tile_register_log
                                       : variant->tuning.tile_sort_register_log));
            report_pipeline(sorter, tile_sorts[i], name, text, capacity, &used);
        }
        for (uint32_t steps = 1; steps <= variant->tuning.max_global_steps; ++steps) {
            snprintf(name, sizeof name, "global%s (%u steps)", kind, steps);
            report_pipeline(sorter, variant->global_pipelines[steps], name, text, capacity, &used);
        }
        snprintf(name, sizeof name, "merge%s (%u keys/thread)", kind, 1u << variant->tuning.merge_register_log);
        report_pipeline(sorter, variant->merge_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "merge without shared memory%s, small sorts (%u keys/thread)", kind,
                 1u << variant->tuning.merge_register_log);
        report_pipeline(sorter, variant->merge_direct_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "merge taking in a tail%s (%u keys/thread)", kind,
                 1u << variant->tuning.merge_register_log);
        report_pipeline(sorter, variant->merge_tail_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "merge splits%s", kind);
        report_pipeline(sorter, variant->merge_split_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "merge splits, binary%s", kind);
        report_pipeline(sorter, variant->merge_split_binary_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "merge splits, guided%s", kind);
        report_pipeline(sorter, variant->merge_split_guided_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "transpose%s (%u x %u keys)", kind, 1u << variant->tuning.transpose_block_log,
                 1u << variant->tuning.transpose_block_log);
        report_pipeline(sorter, variant->transpose_pipeline, name, text, capacity, &used);
        snprintf(name, sizeof name, "partition steps%s (up to %u splitters, scatter tiles of %u keys, scans %s)",
                 kind, variant->tuning.partition_max_splitters,
                 variant->tuning.partition_workgroup_size * variant->tuning.partition_scatter_keys,
                 variant->tuning.partition_scan_by_subgroup ? "by subgroups" : "in shared memory");
        report_pipeline(sorter, variant->partition_pipeline, name, text, capacity, &used);
        if (variant->partition_half_scatter_pipeline != VK_NULL_HANDLE) {
            snprintf(name, sizeof name, "partition scatter%s (half tiles of %u keys, places staged)", kind,
                     variant->tuning.partition_workgroup_size * variant->tuning.partition_scatter_keys / 2u);
            report_pipeline(sorter, variant->partition_half_scatter_pipeline, name, text, capacity, &used);
        }
        for (int i = 0; i < 2; ++i) {
            const char *pieces = i ? ", three pieces" : "";
            snprintf(name, sizeof name, "partition window merge%s%s", kind, pieces);
            report_pipeline(sorter, variant->window_merge_pipeline[i], name, text, capacity, &used);
            snprintf(name, sizeof name, "partition window merge splits%s%s", kind, pieces);
            report_pipeline(sorter, variant->window_split_pipeline[i], name, text, capacity, &used);
            if (variant->window_unpack_pipeline[i] != VK_NULL_HANDLE) {
                snprintf(name, sizeof name, "partition window merge of packed pairs%s", pieces);
                report_pipeline(sorter, variant->window_unpack_pipeline[i], name, text, capacity, &used);
            }
        }
    }
    return BITONIC_SUCCESS;
}

/* The passes that sort virtual_count keys, every aligned block of 2^row_log
 * on its own when row_log is not 0. */
static uint32_t build_schedule(const bitonic_vulkan_sorter *sorter, uint64_t virtual_count, int variant,
                               uint32_t row_log, bool merge, bool transpose, bool merge_tail, bool tile_tail,
                               bitonic_pass *passes)
{
    const bitonic_tuning *tuning = &sorter->variants[variant].tuning;
    bitonic_schedule_params params = {tuning->tile_log, tuning->max_global_steps, row_log, merge, transpose,
                                      merge_tail ? tuning->tile_log : 0u, tile_tail ? tuning->tile_tail_log : 0u};
    return bitonic_schedule_build(virtual_count, &params, passes, BITONIC_SCHEDULE_MAX_PASSES);
}

/* Spreads a workgroup count over x and y: x is limited per dimension (65535 on
 * many devices); the shaders linearise the two back. */
static bool split_groups(const bitonic_vulkan_sorter *sorter, uint64_t workgroups, uint32_t *x, uint32_t *y)
{
    uint64_t max_x = sorter->max_group_count[0];
    *x = (uint32_t)(workgroups < max_x ? workgroups : max_x);
    uint64_t rows = (workgroups + *x - 1u) / *x;
    if (rows > sorter->max_group_count[1])
        return false;
    *y = (uint32_t)rows;
    return true;
}

static void record_pass_barrier(VkCommandBuffer command_buffer)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                         1, &barrier, 0, NULL, 0, NULL);
}

/* The dispatches of one recorded sort: the pipeline bound last (bound again
 * only when it changes) and, with profile_passes, a timestamp after each. */
typedef struct dispatch_recorder {
    VkCommandBuffer command_buffer;
    VkPipelineLayout layout;
    const bitonic_vulkan_sort_info *info;
    bool profile;                    /* info->timestamps set and info->profile_passes */
    VkPipeline bound;
    uint32_t count;                  /* dispatches recorded so far */
} dispatch_recorder;

static dispatch_recorder dispatch_recorder_for(VkCommandBuffer command_buffer, const sorter_variant *variant,
                                               const bitonic_vulkan_sort_info *info)
{
    return (dispatch_recorder){command_buffer, variant->pipeline_layout, info,
                               info->timestamps != VK_NULL_HANDLE && info->profile_passes, VK_NULL_HANDLE, 0};
}

/* What every dispatch records before it: its pipeline (when another was
 * bound) and its push constants. */
static void prepare_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                             uint32_t constants_size)
{
    if (pipeline != recorder->bound) {
        vkCmdBindPipeline(recorder->command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        recorder->bound = pipeline;
    }
    vkCmdPushConstants(recorder->command_buffer, recorder->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, constants_size,
                       constants);
}

/* ... and after it: its timestamp when profiling, and the count. */
static void finish_dispatch(dispatch_recorder *recorder)
{
    if (recorder->profile)
        vkCmdWriteTimestamp(recorder->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, recorder->info->timestamps,
                            recorder->info->first_query + 1u + recorder->count);
    ++recorder->count;
}

static void record_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                            uint32_t constants_size, uint32_t groups_x, uint32_t groups_y)
{
    prepare_dispatch(recorder, pipeline, constants, constants_size);
    vkCmdDispatch(recorder->command_buffer, groups_x, groups_y, 1);
    finish_dispatch(recorder);
}

/* What a sort of `info` records: checked once, then used both to record it and
 * to say how many passes (and so timestamps) it records. */
/* How a merge's split pass searches: k-ary rounds of tuning.merge_split_probes,
 * binary rounds, or probes placed by a guess from the keys' values. */
typedef enum split_search { SPLIT_SEARCH_PROBES, SPLIT_SEARCH_BINARY, SPLIT_SEARCH_GUIDED } split_search;

typedef struct sort_plan {
    int variant_number;
    uint32_t key_bytes;
    uint32_t row_log;
    uint64_t count;                  /* keys sorted (info->count) */
    /* Merging above the tile (one array larger than a tile): where its parts of
     * the scratch buffer lie, relative to scratch_offset, and how big it is. */
    bool merge;
    bool split_pass;                 /* each merge finds its splits in a dispatch of its own first */
    split_search split_search;       /* ... and which split pipeline it takes */
    bool run_samples;                /* merges leave run samples after the splits for the next split search */
    /* Merges after the first, with no split pass, find their splits in their
     * own workgroups on the run samples (tuning.merge_fused_split_min_chunks). */
    bool fused_split;
    bool wide;                       /* device addresses, 64-bit positions (record_wide_sort) */
    uint32_t chunk_count;
    VkDeviceSize scratch_values_at, scratch_splits_at, scratch_bytes;
    VkDeviceSize splits_bytes;       /* from scratch_splits_at: splits or cuts (0: none) */
    /* The transpose strategy: the scratch holds the view (keys, then values
     * from scratch_values_at), view_keys keys long. */
    bool transpose;
    uint64_t view_keys;
    uint32_t pass_count;             /* passes of the schedule */
    uint32_t dispatch_count;         /* what is recorded: a split pass adds one per merge */
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    /* The merges are direct (merge_pass.comp, DIRECT_MERGE): the variant's
     * merge, or a small sort's (tuning.merge_direct_max_keys). */
    bool merge_direct;
    /* One tile merge sort of a plain array of up to 2^short_tile_log keys:
     * its pass runs on the short tile (tuning.short_tile_log). */
    bool short_tile;
    /* The partition sort (plan_partition, record_partition_sort): the passes
     * are the tile sort, the merges up to windows of 2^window_log keys and the
     * window merge; the fallback, one indirect dispatch, comes after them. Its
     * words lie at partition_at in the scratch (bytes from scratch_offset),
     * partition_bytes long; in them the
     * samples from byte samples_at, their values from sample_values_at, the
     * scratch of the samples' sort from nested_scratch_at; the window merge's
     * table (its chunks' cursors and the window boundaries' buckets) from
     * windows_at, window_table_bytes long. */
    bool partition;
    uint32_t window_log;
    uint32_t window_chunks;
    /* Buckets of more than half a window on average: the window merge sorts
     * buckets of up to two windows, which may span three runs, where it
     * sorts those of up to a window else (a lighter kernel; the fallback
     * takes longer buckets). */
    bool window_three_pieces;
    /* Those cursors by one thread's selection each (merge_pass.comp,
     * window_split_by_selection), not by a workgroup's search: from
     * partition_split_by_thread_min_keys keys. */
    bool window_split_by_thread;
    uint32_t splitter_count, sample_count;
    /* The samples sorted in 2^this runs by the sample step itself, a
     * workgroup a run (0: whole, by the library's sort recorded after it). */
    uint32_t sample_runs_log;
    uint32_t partition_groups, partition_chunk_keys;
    uint32_t level_merges;
    /* The nested partition (tuning.partition_nested_min_levels): each open
     * bucket of more than the tile partitioned again by up to
     * nested_splitters splitters of its own, nested_groups workgroups a
     * bucket in its count and scatter, its table from byte nested_at of the
     * partition's words; windows of the tile (window_log = tile_log). */
    bool nested;
    uint32_t nested_splitters, nested_groups;
    VkDeviceSize nested_at;
    VkDeviceSize partition_at, partition_bytes;
    VkDeviceSize samples_at, sample_values_at, nested_scratch_at;
    VkDeviceSize windows_at, window_table_bytes;
    /* Pairs of 32-bit keys packed (sorter.pack_pairs): the scatter writes a
     * pair as one 64-bit key (the ordered key above the value) into the
     * scratch's first 8n bytes, KEYS64's tile sort and merges ping-pong
     * between those and the 8n bytes from packed_at, and the unpack step
     * writes the caller's keys and values from there. */
    bool packed_pairs;
    VkDeviceSize packed_at;
} sort_plan;

/* The split pipeline a plan's merges take (plan->split_pass set). */
static VkPipeline split_pipeline(const sorter_variant *variant, const sort_plan *plan)
{
    return plan->split_search == SPLIT_SEARCH_GUIDED   ? variant->merge_split_guided_pipeline
           : plan->split_search == SPLIT_SEARCH_BINARY ? variant->merge_split_binary_pipeline
                                                       : variant->merge_split_pipeline;
}

static VkDeviceSize align_up(VkDeviceSize x, VkDeviceSize alignment)
{
    return (x + alignment - 1u) / alignment * alignment;
}

/* The largest power of two within the scatter's staged tile: the fallback's
 * chunk and the most samples a nested bucket takes (fallback_chunk_keys() in
 * partition_pass.comp). */
static uint64_t staged_power_of_two(const bitonic_tuning *tuning)
{
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    return (uint64_t)1 << (bitonic_ceil_log2(staged_tile + 1u) - 1u);
}

/* The plan of a sort of one array of more than a tile with the transpose
 * strategy: the views in scratch when the caller gives it (and the schedule
 * fits the pass limit and one binding holds the view), else the network. */
static bitonic_status plan_transposed_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                           bool with_scratch, sort_plan *plan)
{
    plan->merge = plan->split_pass = false;
    plan->split_search = SPLIT_SEARCH_PROBES;
    plan->chunk_count = 0;
    plan->scratch_splits_at = plan->scratch_bytes = plan->splits_bytes = 0;
    plan->view_keys = 0;
    plan->pass_count =
        build_schedule(sorter, info->count, plan->variant_number, 0, false, true, false, false, plan->passes);
    for (uint32_t p = 0; p < plan->pass_count && plan->pass_count != UINT32_MAX; ++p)
        if (plan->passes[p].kind == BITONIC_PASS_TRANSPOSE &&
            bitonic_view_keys(&plan->passes[p], info->count) > plan->view_keys)
            plan->view_keys = bitonic_view_keys(&plan->passes[p], info->count);
    uint64_t max_keys = plan->key_bytes == 8u ? sorter->bound_max_keys / 2u : sorter->bound_max_keys;
    plan->transpose = plan->pass_count != UINT32_MAX && plan->view_keys <= max_keys;
    if (plan->transpose) {
        plan->scratch_values_at = align_up((VkDeviceSize)plan->view_keys * plan->key_bytes, sorter->storage_alignment);
        VkDeviceSize values_bytes = info->values != VK_NULL_HANDLE ? (VkDeviceSize)plan->view_keys * 4u : 0;
        plan->scratch_bytes = plan->scratch_values_at + values_bytes;
    }
    if (!with_scratch)
        plan->transpose = false;
    if (plan->transpose && info->scratch_offset % sorter->storage_alignment != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (!plan->transpose)
        plan->pass_count = build_schedule(sorter, info->count, plan->variant_number, 0, false, false, false, false,
                                          plan->passes);
    if (plan->pass_count == UINT32_MAX)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    plan->dispatch_count = plan->pass_count;
    return BITONIC_SUCCESS;
}

/* with_scratch: plan as if the caller gives scratch memory (the size query
 * plans the sort that scratch will allow, before there is any). */
static bitonic_status plan_sort_runs(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool allow_partition, sort_plan *plan);

static bitonic_status plan_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                bool with_scratch, sort_plan *plan)
{
    return plan_sort_runs(sorter, info, with_scratch, 0, true, plan);
}

/* The sort of the partition's samples: keys (and values) in the partition's
 * words, the scratch after them; never partitioned itself. */
static bitonic_vulkan_sort_info samples_sort_info(const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    VkDeviceSize at = info->scratch_offset + plan->partition_at;
    bitonic_vulkan_sort_info nested = {
        .keys = info->scratch, .keys_offset = at + plan->samples_at, .count = plan->sample_count,
        .values = info->values != VK_NULL_HANDLE ? info->scratch : VK_NULL_HANDLE,
        .values_offset = info->values != VK_NULL_HANDLE ? at + plan->sample_values_at : 0,
        .key_type = info->key_type, .order = info->order,
        .scratch = info->scratch, .scratch_offset = at + plan->nested_scratch_at};
    return nested;
}

/* Makes a planned merge sort of one array (plan->merge, bound buffers, no
 * count buffer) a partition sort where the tuning asks for one: the splitter
 * and sample counts, the workgroups, the scratch, the passes and dispatches.
 * Leaves the plan as it was where the sort cannot partition. */
static void plan_partition(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                           sort_plan *plan)
{
    const bitonic_tuning *tuning = &sorter->variants[plan->variant_number].tuning;
    plan->partition = false;
    uint32_t count_log = bitonic_ceil_log2(info->count);
    /* The window merge is a shared-memory merge (merge_pass.comp, not the
     * direct one). */
    if (info->count < tuning->partition_min_keys || tuning->partition_max_splitters == 0 ||
        tuning->partition_buckets_per_window == 0 || tuning->partition_samples_per_bucket == 0 ||
        count_log >= 31u || plan->merge_direct)
        return;
    /* Windows of the tile times 2^levels, more levels where the splitters
     * would not fit; at least four windows, or there is little to win. The
     * buckets are rounded down (at least 8 of them, so the average bucket is
     * under 1/8 longer than the share asked for): 2^k + 1 keys take the
     * buckets and windows of 2^k, where rounding up made them one more merge
     * level (6% slower at 2^24 + 1 on the H100, docs/perf-log.md,
     * entry 56). */
    if (tuning->partition_levels > 30u)
        return;
    uint32_t window_log = tuning->tile_log + tuning->partition_levels;
    uint64_t buckets = 0;
    plan->nested = false;
    for (; window_log + 2u <= count_log; ++window_log) {
        /* The least window that keeps buckets of at most a window on average
         * (the window merge sorts buckets of up to 2W), with as many buckets
         * as fit up to partition_buckets_per_window a window: buckets of
         * half a window span three runs far less often, and at 2^21 keys,
         * where the window is the tile however many buckets there are, the
         * sort took 5.5% longer with buckets of a window (docs/perf-log.md, entry 65). */
        uint64_t window = (uint64_t)1 << window_log, most = (uint64_t)tuning->partition_max_splitters + 1u;
        if (info->count / window <= most) {
            buckets = tuning->partition_buckets_per_window * info->count / window;
            buckets = buckets < most ? buckets : most;
            break;
        }
    }
    if (window_log + 2u > count_log || buckets < 2u)
        return;
    uint64_t samples = buckets * tuning->partition_samples_per_bucket;
    /* The samples in runs of twice as many keys as buckets, a power of two of
     * them (the count rounded up to fill them), so that each splitter has a
     * rank of its own in every run: splitter i is the mean of a key about
     * (i + 1) / (m + 1) of the way through each run (splitter_from_runs in
     * partition_pass.comp), which splits as evenly as the whole sort's
     * quantiles do (the means of R estimates of one quantile; docs/perf-log.md, entry 62).
     * The sample step sorts the runs itself, a workgroup a run in shared
     * memory, where a run fits the scatter's staged tile; else the samples are
     * sorted whole by the library's sort after it. On the H100 that one
     * dispatch made sorts of 64-bit keys 1.4-2.4% faster from 1.5 x 2^20 to
     * 2^22, pairs 1.1% from 1.5 x 2^20 to 2^21 + 1 and u32 1.3% at 2^22, but
     * u32 1.3% slower at 1.5 x 2^20 and 2^21, against the sample step and a
     * tile pass of the runs on a 1024-key tile after it (docs/perf-log.md, entry 69). */
    plan->sample_runs_log = 0;
    uint32_t run_log = bitonic_ceil_log2(2u * buckets);
    if (tuning->partition_sample_runs && samples > ((uint64_t)1 << run_log) &&
        ((uint64_t)1 << run_log) <= (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys) {
        uint32_t runs_log = bitonic_ceil_log2((samples + ((uint64_t)1 << run_log) - 1u) >> run_log);
        if (runs_log <= 8u) {
            samples = (uint64_t)1 << (run_log + runs_log);
            plan->sample_runs_log = runs_log;
        }
    }
    /* splitter_from_runs (partition_pass.comp) multiplies up to m (L + 1) R. */
    uint64_t rank_bound = (samples + ((uint64_t)1 << plan->sample_runs_log)) * buckets;
    if (samples > info->count / 2u || rank_bound >= ((uint64_t)1 << 32))
        return;
    /* The nested partition where the windows would take enough merge levels:
     * each open bucket of more than the tile is partitioned again into
     * buckets of about half a tile (at most partition_max_splitters + 1 of
     * them, fewer where the nested sample, which the scatter's staged tile
     * holds, would have fewer samples than splitters), so that windows of
     * the tile do, with three pieces (buckets of up to two tiles). A second
     * count and scatter instead of the levels: docs/perf-log.md,
     * entries 105 and 106. Pairs go as two arrays through it (their packed
     * scatter is not nested: below, packed_pairs). */
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    uint64_t nested_capacity = staged_power_of_two(tuning);
    uint32_t nested_splitters = tuning->partition_max_splitters;
    if (nested_splitters + 1u > nested_capacity / 2u)
        nested_splitters = (uint32_t)(nested_capacity / 2u) - 1u;
    if (tuning->partition_nested_min_levels <= 30u &&
        window_log - tuning->tile_log >= tuning->partition_nested_min_levels && nested_splitters >= 1u) {
        plan->nested = true;
        window_log = tuning->tile_log;
        plan->nested_splitters = nested_splitters;
        /* A workgroup for about 8 scatter tiles of an average bucket. */
        uint64_t average_tiles = info->count / buckets / staged_tile;
        plan->nested_groups = (uint32_t)(average_tiles / 8u < 1u ? 1u : average_tiles / 8u > 64u ? 64u : average_tiles / 8u);
    }
    plan->window_log = window_log;
    plan->window_three_pieces = plan->nested || buckets * ((uint64_t)1 << window_log) < 2u * info->count;
    plan->window_split_by_thread =
        plan->window_three_pieces && info->count >= tuning->partition_split_by_thread_min_keys;
    plan->splitter_count = (uint32_t)(buckets - 1u);
    plan->sample_count = (uint32_t)samples;
    /* Count workgroups: at least 4 keys a thread, at most partition_workgroups
     * of them (each adds its counts to the totals), and no more than a
     * dispatch's x dimension surely holds (the count is one row). */
    uint32_t threads = tuning->partition_workgroup_size;
    uint64_t groups = (info->count + (uint64_t)threads * 4u - 1u) / ((uint64_t)threads * 4u);
    if (groups > tuning->partition_workgroups)
        groups = tuning->partition_workgroups;
    if (groups > 65535u)
        groups = 65535u;
    uint64_t chunk = (info->count + groups - 1u) / groups;
    chunk = (chunk + threads - 1u) / threads * threads;
    plan->partition_chunk_keys = (uint32_t)chunk;
    plan->partition_groups = (uint32_t)((info->count + chunk - 1u) / chunk);
    /* The words: arguments and verdict (8), the buckets' totals and claims,
     * the splitters as the count found them (3 words each, for the scatter);
     * the window merge's table, bound on its own (merge_pass.comp,
     * BUCKET_WINDOWS): 5 words a chunk, then 2 a window boundary (runs + 1 of
     * them). */
    uint64_t bucket_words = 2u * (uint64_t)plan->splitter_count + 1u;
    VkDeviceSize words_bytes = (8u + 2u * bucket_words + 3u * (uint64_t)plan->splitter_count) * 4u;
    uint64_t chunk_keys = (uint64_t)1 << tuning->merge_chunk_log;
    uint64_t window_chunks = (info->count + chunk_keys - 1u) / chunk_keys;
    uint64_t runs = (info->count + ((uint64_t)1 << window_log) - 1u) >> window_log;
    if (window_log < tuning->merge_chunk_log)
        return;  /* a chunk lies inside one run */
    /* The fallback selects in up to every run at once: for its first target
     * two bounds and a probe a run in the buckets' and cells' shared arrays,
     * for its second three words a run in the scatter's tile of words
     * (partition_pass.comp, fallback_step). Buckets of a window on average
     * make about as many runs as buckets: 513 at 2^22 + 1 keys. */
    uint64_t fallback_runs = 2u * (uint64_t)tuning->partition_max_splitters + 1u;
    uint64_t tile_words = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    /* (A nested partition's fallback spans the segments it touches; where
     * those span more runs, it selects in batches of runs, slower.) */
    if (!plan->nested && (runs > fallback_runs || 3u * runs > tile_words))
        return;
    plan->window_chunks = (uint32_t)window_chunks;
    plan->windows_at = align_up(words_bytes, sorter->storage_alignment);
    plan->window_table_bytes = (5u * window_chunks + 2u * (runs + 1u)) * 4u;
    plan->samples_at = align_up(plan->windows_at + plan->window_table_bytes, sorter->storage_alignment);
    plan->sample_values_at = align_up(plan->samples_at + samples * plan->key_bytes, sorter->storage_alignment);
    plan->nested_scratch_at = align_up(plan->sample_values_at + (info->values != VK_NULL_HANDLE ? samples * 4u : 0u),
                                       sorter->storage_alignment);
    plan->partition_at = align_up(plan->scratch_bytes, sorter->storage_alignment);
    bitonic_vulkan_sort_info nested = samples_sort_info(info, plan);
    nested.keys = info->keys;  /* the scratch is not given yet when its size is asked */
    nested.values = info->values;
    nested.scratch = VK_NULL_HANDLE;
    nested.scratch_offset = 0;
    sort_plan nested_plan;
    if (plan_sort_runs(sorter, &nested, true, 0, false, &nested_plan) != BITONIC_SUCCESS)
        return;
    plan->partition_bytes = plan->nested_scratch_at + nested_plan.scratch_bytes;
    if (plan->nested) {
        /* partition_pass.comp, segment_at: the first buckets' starts, then
         * 7P + 4 words a first bucket. */
        uint64_t first_buckets = 2u * (uint64_t)plan->splitter_count + 1u;
        plan->nested_at = align_up(plan->partition_bytes, 4u);
        plan->partition_bytes =
            plan->nested_at + (first_buckets + first_buckets * (7u * (uint64_t)plan->nested_splitters + 4u)) * 4u;
    }
    /* The passes: the schedule's tile sort and merges to the window, then the
     * window merge, a merge of runs of W that takes no tail (its chunks and
     * pipelines are record_partition_sort's). */
    plan->level_merges = window_log - tuning->tile_log;
    uint32_t pass_count = 1u + plan->level_merges;
    plan->passes[pass_count++] = (bitonic_pass){.kind = BITONIC_PASS_MERGE, .phase = window_log,
                                                .stride_log = window_log - 1u, .last_phase = window_log,
                                                .group_count = (uint32_t)runs};
    plan->pass_count = pass_count;
    /* Sample, the samples' sort (one pass for the profile, whatever it
     * records), count, scatter; the tile sort; each merge level and its split
     * pass; the window merge and its split pass; the fallback. */
    uint32_t level_splits = plan->split_pass ? plan->level_merges : 0u;
    plan->dispatch_count = (plan->sample_runs_log > 0 ? 3u : 4u) + 1u + plan->level_merges + level_splits + 2u + 1u +
                           (plan->nested ? 3u : 0u);
    plan->scratch_bytes = plan->partition_at + plan->partition_bytes;
    /* Packed pairs: 8n bytes more where there are merge levels, which
     * ping-pong with the scatter's packed pairs in the scratch's first 8n
     * (the keys and values sections: the values start at or past 4n). */
    plan->packed_pairs = sorter->pack_pairs && plan->variant_number == PAIRS32 && !plan->nested &&
                         info->count <= sorter->bound_max_keys / 2u;  /* a packed side is one binding */
    plan->packed_at = 0;
    if (plan->packed_pairs && plan->level_merges > 0) {
        VkDeviceSize alignment = sorter->storage_alignment < 16u ? 16u : sorter->storage_alignment;
        plan->packed_at = align_up(plan->scratch_bytes, alignment);
        plan->scratch_bytes = plan->packed_at + (VkDeviceSize)info->count * 8u;
    }
    plan->partition = true;
}

/* run_log (not 0): the keys are sorted in aligned runs of 2^run_log already,
 * and the plan holds only the merges above them, an even number of passes. */
/* Whether a tile pass sorts its tiles from scratch with the merge sort
 * (tile_sort_pass.comp): one that starts at phase 1 outside a transposed view,
 * where the merge sort gives what the network would. */
static bool sorts_tile_by_merging(const sorter_variant *variant, const bitonic_pass *pass)
{
    return variant->tuning.tile_merge_sort && pass->kind == BITONIC_PASS_TILE && pass->phase == 1 &&
           pass->stride_log == 0 && pass->view_column_log == 0;
}

static bitonic_status plan_sort_runs(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool allow_partition, sort_plan *plan)
{
    plan->partition = false;
    plan->packed_pairs = false;
    plan->short_tile = false;
    plan->merge_direct = false;
    if (!sorter || !info || info->keys == VK_NULL_HANDLE ||
        (info->order != BITONIC_ORDER_ASCENDING && info->order != BITONIC_ORDER_DESCENDING) ||
        (unsigned)info->key_type > (unsigned)BITONIC_KEY_F64 ||
        (info->count_buffer != VK_NULL_HANDLE && (info->count_offset % 4u != 0 || info->row_length != 0)))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bool key64 = is_key64(info->key_type);
    plan->key_bytes = key64 ? 8u : 4u;
    plan->count = info->count;
    if (info->count > (key64 ? sorter->max_keys / 2u : sorter->max_keys))
        return BITONIC_ERROR_TOO_LARGE;
    plan->variant_number = variant_index(key64, info->values != VK_NULL_HANDLE);
    if (!sorter->variants[plan->variant_number].available)
        return BITONIC_ERROR_UNSUPPORTED;
    /* Past what one binding covers only the merge with device addresses sorts. */
    bool past_binding = info->count > (key64 ? sorter->bound_max_keys / 2u : sorter->bound_max_keys);
    /* Rows: each is padded to a power of two in the virtual index space. */
    plan->row_log = 0;
    uint64_t virtual_count = info->count;
    bool rows = info->row_length != 0 && info->row_length < info->count;
    /* Small merge sorts have shapes of their own; the network alone (no scratch)
     * keeps the device's tile above one small tile. Up to one small tile there
     * is nothing to merge, so no scratch is needed: the scratch query planned
     * these sorts small and asked for none, and the device's 8192-key tile
     * sorted 4096 keys in 0.0204 ms on the H100 where two 4096-key tiles and a
     * merge sorted 4097 in 0.0168 (docs/perf-log.md, entry 36). */
    if (plan->variant_number == KEYS32 && !rows && sorter->strategy == BITONIC_STRATEGY_MERGE &&
        info->count <= sorter->small_sort_max_keys &&
        (with_scratch || info->count <= ((uint64_t)1 << sorter->variants[KEYS32_SMALL].tuning.tile_log)))
        plan->variant_number = KEYS32_SMALL;
    if (rows) {
        if (info->count % info->row_length != 0)
            return BITONIC_ERROR_INVALID_ARGUMENT;
        plan->row_log = bitonic_ceil_log2(info->row_length);
        virtual_count = (uint64_t)(info->count / info->row_length) << plan->row_log;
        if (past_binding || virtual_count > sorter->bound_max_keys * 2u || virtual_count > ((uint64_t)1 << 31))
            return BITONIC_ERROR_TOO_LARGE;
    }
    /* Device addresses take the merge of one array: where it must (past the
     * binding: a sort that cannot merge, with no scratch or another strategy,
     * is too large) or where the caller forces it (tests). */
    int wide_variant = wide_variant_index(key64, info->values != VK_NULL_HANDLE);
    bool wide_possible = sorter->device_addresses && sorter->variants[wide_variant].available && !rows &&
                         sorter->strategy == BITONIC_STRATEGY_MERGE;
    plan->wide = false;
    if (past_binding && (!wide_possible || !with_scratch))
        return BITONIC_ERROR_TOO_LARGE;
    /* Forced, only where no global pass is needed: the wide kernels are the
     * tile sort and the merge. */
    bool forced = sorter->force_device_addresses &&
                  (with_scratch || info->count <= ((uint64_t)1 << sorter->variants[wide_variant].tuning.tile_log));
    if (wide_possible && (past_binding || forced)) {
        plan->wide = true;
        plan->variant_number = wide_variant;
    }
    /* Merging needs room to merge into; segments and rows keep the network. */
    const bitonic_tuning *tuning = &sorter->variants[plan->variant_number].tuning;
    plan->transpose = false;
    if (sorter->strategy == BITONIC_STRATEGY_TRANSPOSE && !rows && info->count > ((uint64_t)1 << tuning->tile_log))
        return plan_transposed_sort(sorter, info, with_scratch, plan);
    plan->merge = !rows && info->count > ((uint64_t)1 << tuning->tile_log) &&
                  sorter->strategy == BITONIC_STRATEGY_MERGE;
    uint64_t chunk_keys = (uint64_t)1 << tuning->merge_chunk_log;
    uint64_t chunk_count = (info->count + chunk_keys - 1u) / chunk_keys;
    if (chunk_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    plan->chunk_count = (uint32_t)chunk_count;
    /* The device-address kernels read 64-bit splits through pointers that
     * promise their alignment: their scratch sections start at least 16-byte
     * aligned whatever the binding rule. */
    VkDeviceSize section_alignment = plan->wide && sorter->storage_alignment < 16u ? 16u : sorter->storage_alignment;
    plan->scratch_values_at = align_up((VkDeviceSize)info->count * plan->key_bytes, section_alignment);
    VkDeviceSize values_bytes = info->values != VK_NULL_HANDLE ? (VkDeviceSize)info->count * 4u : 0;
    plan->scratch_splits_at = align_up(plan->scratch_values_at + values_bytes, section_alignment);
    plan->split_pass = plan->chunk_count >= tuning->merge_split_pass_min_chunks;
    plan->split_search = plan->chunk_count >= tuning->merge_split_guided_min_chunks ? SPLIT_SEARCH_GUIDED
                         : plan->chunk_count > tuning->merge_split_probes_max_chunks ? SPLIT_SEARCH_BINARY
                                                                                      : SPLIT_SEARCH_PROBES;
    VkDeviceSize split_bytes = plan->wide ? 8u : 4u;  /* the device-address kernels' splits are 64-bit */
    plan->merge_direct = tuning->merge_direct || (!rows && info->count <= tuning->merge_direct_max_keys);
    /* Run samples (merge_pass.comp, RUN_SAMPLES): one key of every 32, with
     * its value where there are values, for merges that search their splits
     * in a split pass or, with none, in their own workgroups (fused: a thread
     * a split, on the samples). Bound buffers only. */
    bool fused_possible = !plan->split_pass && plan->chunk_count >= tuning->merge_fused_split_min_chunks;
    plan->run_samples = plan->merge && (plan->split_pass || fused_possible) && !plan->wide &&
                        plan->variant_number <= PAIRS64 && tuning->merge_split_samples && !plan->merge_direct &&
                        tuning->merge_chunk_log >= RUN_SAMPLE_LOG &&
                        tuning->tile_log >= RUN_SAMPLE_LOG;
    plan->fused_split = plan->run_samples && fused_possible;
    /* The splits (a word a chunk), where the samples start also when no split
     * pass writes them; then two regions of samples, one for the merges of
     * odd phases and one for even, so a fused merge never overwrites a sample
     * that another of its workgroups still reads. */
    VkDeviceSize splits_region =
        plan->split_pass || plan->run_samples ? (VkDeviceSize)plan->chunk_count * split_bytes : 0u;
    if (plan->run_samples) {
        VkDeviceSize sample_bytes = plan->key_bytes + (info->values != VK_NULL_HANDLE ? 4u : 0u);  /* SAMPLE_WORDS */
        splits_region += 2u * ((info->count + RUN_SAMPLE_KEYS - 1u) / RUN_SAMPLE_KEYS) * sample_bytes;
    }
    plan->splits_bytes = splits_region;
    plan->scratch_bytes = !plan->merge        ? 0
                          : splits_region > 0 ? plan->scratch_splits_at + splits_region
                                              : plan->scratch_values_at + values_bytes;
    if (!with_scratch)
        plan->merge = false;
    if (plan->merge && info->scratch_offset % sorter->storage_alignment != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* The last merge takes in a short tail (one pass fewer just past a power
     * of two) where no split pass searches for it and it merges runs of the
     * whole array: the direct merge, every merge of a small sort; past those
     * sizes and below the partition's, the shared-memory merge's tail pipeline
     * (merge_pipeline_kind), where the tail had taken a merge pass of its own
     * (0.006 ms at 2^19 + 1 u32 keys on the H100; docs/perf-log.md,
     * entries 72 and 73). Not where four-run merges would take its pass. */
    bool last_merge_takes_tail = !rows && info->count < tuning->partition_min_keys;
    bool merge_tail = plan->merge && (plan->merge_direct || last_merge_takes_tail) && !plan->wide &&
                      !plan->split_pass && run_log == 0 && tuning->merge_chunk_log <= tuning->tile_log + 1u;
    /* A sort of one tile and a short tail past it places the tail in the tile
     * merge sort's pass: plain arrays through bound buffers. */
    bool tile_tail = sorter->strategy == BITONIC_STRATEGY_MERGE && tuning->tile_merge_sort && !plan->wide && !rows &&
                     run_log == 0;
    plan->pass_count = rows && info->row_length <= 1
                           ? 0
                           : build_schedule(sorter, virtual_count, plan->variant_number, plan->row_log, plan->merge,
                                            false, merge_tail, tile_tail, plan->passes);
    if (plan->pass_count == UINT32_MAX)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    plan->dispatch_count = plan->pass_count;
    if (plan->merge && plan->split_pass)
        plan->dispatch_count += plan->pass_count - 1u;  /* every pass but the tile sort merges */
    if (plan->merge && run_log > 0) {
        /* Only the merges of runs longer than the presorted ones. */
        uint32_t kept = 0;
        for (uint32_t p = 0; p < plan->pass_count; ++p)
            if (plan->passes[p].kind == BITONIC_PASS_MERGE && plan->passes[p].phase > run_log)
                plan->passes[kept++] = plan->passes[p];
        plan->pass_count = kept;
        plan->dispatch_count = plan->pass_count + (plan->split_pass ? plan->pass_count : 0u);
    } else if (plan->merge) {
        if (allow_partition && !plan->wide && plan->variant_number <= PAIRS64 &&
            info->count_buffer == VK_NULL_HANDLE && !rows)
            plan_partition(sorter, info, plan);
    }
    /* One pass stopping at runs no longer than the short tile is a sort of
     * at most that many keys (one tile either way): a workgroup of the short
     * tile's size, no idle threads. */
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    plan->short_tile = plan->pass_count == 1u && !plan->partition && !plan->wide && !rows && run_log == 0 &&
                       sorts_tile_by_merging(variant, &plan->passes[0]) && variant->tuning.short_tile_log != 0 &&
                       plan->passes[0].last_phase <= variant->tuning.short_tile_log;
    return BITONIC_SUCCESS;
}

VkDeviceSize bitonic_vulkan_sort_scratch_bytes(const bitonic_vulkan_sorter *sorter,
                                               const bitonic_vulkan_sort_info *info)
{
    sort_plan plan;
    if (!info)
        return 0;
    /* The size does not depend on a scratch buffer being set yet. */
    bitonic_vulkan_sort_info asked = *info;
    asked.scratch = VK_NULL_HANDLE;
    asked.scratch_offset = 0;
    return plan_sort(sorter, &asked, true, &plan) == BITONIC_SUCCESS ? plan.scratch_bytes : 0;
}

/* The pipeline of a tile pass. */
static VkPipeline tile_pipeline_for(const sorter_variant *variant, const bitonic_pass *pass)
{
    return sorts_tile_by_merging(variant, pass) ? variant->tile_sort_pipeline : variant->tile_pipeline;
}

/* Whether a merge pass takes in the tail (bitonic_pass.last_phase). */
static bool merge_takes_tail(const bitonic_pass *pass)
{
    return pass->kind == BITONIC_PASS_MERGE && pass->last_phase == pass->phase + 1u;
}

/* Which pipeline a plan's two-run merge takes: the variant's merge where that
 * is the direct one (tuning.merge_direct), which takes a tail in by itself;
 * else the direct merge for every merge of a small sort
 * (tuning.merge_direct_max_keys), the shared-memory merge that takes in a
 * tail for the merge that does, and the variant's merge for the rest. */
static pipeline_kind merge_pipeline_kind(const sorter_variant *variant, const sort_plan *plan,
                                         const bitonic_pass *pass)
{
    if (variant->tuning.merge_direct)
        return PIPELINE_MERGE;
    if (plan->merge_direct)
        return PIPELINE_MERGE_DIRECT;
    return merge_takes_tail(pass) ? PIPELINE_MERGE_TAIL : PIPELINE_MERGE;
}

static VkPipeline merge_pipeline_of(const sorter_variant *variant, pipeline_kind kind)
{
    return kind == PIPELINE_MERGE_DIRECT ? variant->merge_direct_pipeline
           : kind == PIPELINE_MERGE_TAIL ? variant->merge_tail_pipeline
                                         : variant->merge_pipeline;
}

/* ... and of a planned sort's tile pass. */
static VkPipeline plan_tile_pipeline(const sorter_variant *variant, const sort_plan *plan, const bitonic_pass *pass)
{
    if (pass->tile_tail)
        return plan->short_tile ? variant->short_tile_sort_tail_pipeline : variant->tile_sort_tail_pipeline;
    return plan->short_tile ? variant->short_tile_sort_pipeline : tile_pipeline_for(variant, pass);
}

/* Builds the pipelines a planned sort binds that are not built yet (a lazy
 * sorter), before anything is recorded. */
static VkResult ensure_plan_pipelines(bitonic_vulkan_sorter *sorter, const sort_plan *plan)
{
    sorter_variant *variant = &sorter->variants[plan->variant_number];
    VkResult result = plan->partition ? ensure_pipeline(sorter, variant, PIPELINE_PARTITION, 0) : VK_SUCCESS;
    /* Packed pairs: the passes are KEYS64's, but for the window merge. */
    if (plan->packed_pairs) {
        if (result == VK_SUCCESS)
            result = ensure_pipeline(sorter, variant, PIPELINE_WINDOW_UNPACK, plan->window_three_pieces ? 1u : 0u);
        variant = &sorter->variants[KEYS64];
    }
    if (result == VK_SUCCESS && plan->partition)
        result = ensure_pipeline(sorter, variant, PIPELINE_WINDOW_MERGE, plan->window_three_pieces ? 1u : 0u);
    if (result == VK_SUCCESS && plan->partition)
        result = ensure_pipeline(sorter, variant, PIPELINE_WINDOW_SPLIT, plan->window_three_pieces ? 1u : 0u);
    for (uint32_t p = 0; p < plan->pass_count && result == VK_SUCCESS; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        if (pass->kind == BITONIC_PASS_TILE) {
            result = ensure_pipeline(sorter, variant,
                                     plan->short_tile                       ? PIPELINE_SHORT_TILE_SORT
                                     : sorts_tile_by_merging(variant, pass) ? PIPELINE_TILE_SORT
                                                                            : PIPELINE_TILE,
                                     pass->tile_tail ? 1u : 0u);
        } else if (pass->kind == BITONIC_PASS_MERGE) {
            result = ensure_pipeline(sorter, variant, merge_pipeline_kind(variant, plan, pass), 0);
            if (result == VK_SUCCESS && plan->split_pass)
                result = ensure_pipeline(sorter, variant,
                                         plan->split_search == SPLIT_SEARCH_GUIDED   ? PIPELINE_MERGE_SPLIT_GUIDED
                                         : plan->split_search == SPLIT_SEARCH_BINARY ? PIPELINE_MERGE_SPLIT_BINARY
                                                                                     : PIPELINE_MERGE_SPLIT,
                                         0);
        } else if (pass->kind == BITONIC_PASS_TRANSPOSE) {
            result = ensure_pipeline(sorter, variant, PIPELINE_TRANSPOSE, 0);
        } else {
            result = ensure_pipeline(sorter, variant, PIPELINE_GLOBAL, pass->step_count);
        }
    }
    return result;
}

uint32_t bitonic_vulkan_sort_pass_count(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info)
{
    sort_plan plan;
    return plan_sort(sorter, info, info && info->scratch != VK_NULL_HANDLE, &plan) == BITONIC_SUCCESS
               ? plan.dispatch_count
               : 0;
}

/* Where a pass reads its keys and values, and where it writes them. */
typedef struct sort_sides {
    VkDescriptorBufferInfo keys_in, values_in, keys_out, values_out;
} sort_sides;

/* Pushes every binding of the sort pipelines (shaders/network.glsl,
 * merge_pass.comp): the sides, their 16-byte views, the GPU-side count and the
 * merge splits; the values bindings only with values. */
static void push_sort_bindings(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                               const sorter_variant *variant, bool with_values, sort_sides sides,
                               VkDescriptorBufferInfo count_binding, VkDescriptorBufferInfo splits)
{
    VkDescriptorBufferInfo buffers[MAX_SORT_BINDINGS] = {
        [KEYS_BINDING] = sides.keys_in,          [VALUES_BINDING] = sides.values_in,
        [COUNT_BINDING] = count_binding,         [KEYS_OUT_BINDING] = sides.keys_out,
        [VALUES_OUT_BINDING] = sides.values_out, [SPLITS_BINDING] = splits,
        [KEYS_VECTOR_BINDING] = sides.keys_in,   [KEYS_OUT_VECTOR_BINDING] = sides.keys_out,
        [VALUES_VECTOR_BINDING] = sides.values_in, [VALUES_OUT_VECTOR_BINDING] = sides.values_out,
    };
    VkWriteDescriptorSet writes[MAX_SORT_BINDINGS];
    uint32_t write_count = 0;
    for (uint32_t b = 0; b < MAX_SORT_BINDINGS; ++b)
        if (with_values || !is_values_binding(b))
            writes[write_count++] = (VkWriteDescriptorSet){
                .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = b, .descriptorCount = 1,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &buffers[b]};
    sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, variant->pipeline_layout, 0,
                                write_count, writes);
}

/* Workgroups of a TRANSPOSE pass: one per block of stored columns x rows. */
static uint64_t transpose_workgroups(const bitonic_tuning *tuning, const bitonic_pass *pass)
{
    uint64_t columns = (uint64_t)1 << pass->view_column_log;
    uint64_t block = (uint64_t)1 << tuning->transpose_block_log;
    uint64_t column_blocks = columns > block ? columns / block : 1u;
    return column_blocks * ((pass->group_count + block - 1u) / block);
}

/* Records a sort planned with the transpose strategy (plan->transpose), with
 * its timestamps, as bitonic_vulkan_record_sort() does for the others. Side 0
 * is the caller's keys and values, side 1 the view in the scratch buffer: a
 * TRANSPOSE pass reads one side and writes the other, a tile pass works in
 * place on the side its view says. Descriptors are pushed only when the sides
 * change. Every dispatch is checked to fit before anything is recorded. */
static bitonic_status record_transposed_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                             const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint64_t workgroups = pass->kind == BITONIC_PASS_TRANSPOSE ? transpose_workgroups(&variant->tuning, pass)
                                                                   : pass->group_count;
        if (!split_groups(sorter, workgroups, &group_x[p], &group_y[p]))
            return BITONIC_ERROR_TOO_LARGE;
    }
    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    bool indirect = info->count_buffer != VK_NULL_HANDLE;
    VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                            .offset = indirect ? 0 : info->keys_offset,
                                            .range = indirect ? VK_WHOLE_SIZE : 4u};
    VkDescriptorBufferInfo side_keys[2] = {
        {info->keys, info->keys_offset, (VkDeviceSize)info->count * plan->key_bytes},
        {info->scratch, info->scratch_offset, (VkDeviceSize)plan->view_keys * plan->key_bytes},
    };
    VkDescriptorBufferInfo side_values[2] = {
        {info->values, info->values_offset, (VkDeviceSize)info->count * 4u},
        {info->scratch, info->scratch_offset + plan->scratch_values_at, (VkDeviceSize)plan->view_keys * 4u},
    };
    uint32_t pushed_read = UINT32_MAX, pushed_write = UINT32_MAX;
    dispatch_recorder recorder = dispatch_recorder_for(command_buffer, variant, info);
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint32_t read_side = pass->kind == BITONIC_PASS_TRANSPOSE ? (pass->to_view ? 0u : 1u)
                                                                  : (pass->view_column_log != 0 ? 1u : 0u);
        uint32_t write_side = pass->kind == BITONIC_PASS_TRANSPOSE ? 1u - read_side : read_side;
        if (read_side != pushed_read || write_side != pushed_write) {
            push_sort_bindings(sorter, command_buffer, variant, with_values,
                               (sort_sides){side_keys[read_side], side_values[read_side], side_keys[write_side],
                                            side_values[write_side]},
                               count_binding, count_binding);
            pushed_read = read_side;
            pushed_write = write_side;
        }
        uint64_t columns_mask = ((uint64_t)1 << pass->view_column_log) - 1u;
        pass_push_constants constants = {
            .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
            .last_phase = pass->last_phase, .group_count = pass->group_count,
            .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
            .key_type = (uint32_t)info->key_type,
            .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
            .view_column_log = pass->view_column_log, .view_row_log = pass->view_row_log,
            .view_rows_used = (uint32_t)((info->count + columns_mask) >> pass->view_column_log),
            .view_mirror_phase = pass->view_mirror_phase, .view_forward = pass->to_view ? 1u : 0u,
        };
        record_dispatch(&recorder,
                        pass->kind == BITONIC_PASS_TRANSPOSE ? variant->transpose_pipeline
                                                             : tile_pipeline_for(variant, pass),
                        &constants, sizeof constants, group_x[p], group_y[p]);
        if (p + 1 < plan->pass_count)
            record_pass_barrier(command_buffer);
    }
    /* The plan has passes (more keys than a tile), so with profile_passes the
     * last pass's timestamp is the end. */
    if (timed && !info->profile_passes)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}

/* A merge's workgroups: a chunk of output keys each; where it takes in the
 * tail, the chunks of its two runs, then a thread a tail key (merge_pass.comp,
 * place_tail_key). */
static uint64_t merge_workgroups(const bitonic_tuning *tuning, const sort_plan *plan, const bitonic_pass *pass)
{
    if (!merge_takes_tail(pass))
        return plan->chunk_count;
    uint64_t tail_first = (uint64_t)1 << pass->phase;
    uint64_t tail_groups = (plan->count - tail_first + tuning->merge_workgroup_size - 1u) / tuning->merge_workgroup_size;
    return (tail_first >> tuning->merge_chunk_log) + tail_groups;
}

/* The workgroup grid of every dispatch of a tile-and-merge or network plan
 * (and of the split passes); false when one does not fit the device. */
static bool plan_grids(const bitonic_vulkan_sorter *sorter, const sort_plan *plan, uint32_t *group_x,
                       uint32_t *group_y, uint32_t *split_x, uint32_t *split_y)
{
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t split_threads = variant->tuning.merge_split_workgroup_size;
    if (plan->merge && plan->split_pass &&
        !split_groups(sorter, (plan->chunk_count + split_threads - 1u) / split_threads, split_x, split_y))
        return false;
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        uint64_t groups = pass->group_count;
        uint64_t workgroups = pass->kind == BITONIC_PASS_TILE    ? groups
                              : pass->kind == BITONIC_PASS_MERGE ? merge_workgroups(&variant->tuning, plan, pass)
                                                                 : (groups + variant->tuning.global_workgroup_size - 1u) /
                                                                       variant->tuning.global_workgroup_size;
        if (!split_groups(sorter, workgroups, &group_x[p], &group_y[p]))
            return false;
    }
    return true;
}

static VkDeviceAddress buffer_address(const bitonic_vulkan_sorter *sorter, VkBuffer buffer, VkDeviceSize offset)
{
    if (buffer == VK_NULL_HANDLE)
        return 0;
    VkBufferDeviceAddressInfo address_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                              .buffer = buffer};
    return sorter->get_buffer_address(sorter->device, &address_info) + offset;
}

/* Records a sort planned with device addresses (plan->wide): the tile sort and
 * the merges of bitonic_vulkan_record_sort(), with the same sides (0: the
 * caller's keys and values, 1: their copies in scratch) and timestamps, but
 * each pass is told where its sides lie in its push constants, so no binding
 * limits the sizes. Only the GPU-side count is bound. */
static bitonic_status record_wide_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                       const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!plan_grids(sorter, plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;
    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    if (plan->pass_count > 0) {
        bool indirect = info->count_buffer != VK_NULL_HANDLE;
        VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                                .offset = indirect ? 0 : info->keys_offset,
                                                .range = indirect ? VK_WHOLE_SIZE : 4u};
        VkWriteDescriptorSet count_write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstBinding = COUNT_BINDING, .descriptorCount = 1,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .pBufferInfo = &count_binding};
        sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, variant->pipeline_layout, 0, 1,
                                    &count_write);
        VkDeviceAddress side_keys[2], side_values[2], splits = 0;
        side_keys[0] = side_keys[1] = buffer_address(sorter, info->keys, info->keys_offset);
        side_values[0] = side_values[1] = buffer_address(sorter, info->values, info->values_offset);
        if (plan->merge) {
            side_keys[1] = buffer_address(sorter, info->scratch, info->scratch_offset);
            if (info->values != VK_NULL_HANDLE)
                side_values[1] = side_keys[1] + plan->scratch_values_at;
            if (plan->split_pass)
                splits = side_keys[1] + plan->scratch_splits_at;
        }
        uint32_t merge_count = plan->merge ? plan->pass_count - 1u : 0u;
        uint32_t read_side = 0, write_side = merge_count % 2u;
        dispatch_recorder recorder = dispatch_recorder_for(command_buffer, variant, info);
        for (uint32_t p = 0; p < plan->pass_count; ++p) {
            const bitonic_pass *pass = &plan->passes[p];
            if (pass->kind == BITONIC_PASS_MERGE) {
                read_side = write_side;
                write_side = 1u - read_side;
            }
            wide_push_constants constants = {
                .pass = {.count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
                         .last_phase = pass->last_phase, .group_count = pass->group_count,
                         .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                         .key_type = (uint32_t)info->key_type,
                         .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
                         .output_buffer = pass->kind == BITONIC_PASS_TILE && write_side != 0u ? 1u : 0u},
                .count_high = (uint32_t)(info->count >> 32),
                .keys_address = side_keys[read_side], .values_address = side_values[read_side],
                .keys_out_address = side_keys[write_side], .values_out_address = side_values[write_side],
                .splits_address = splits,
            };
            if (pass->kind == BITONIC_PASS_MERGE) {
                constants.pass.group_count = plan->chunk_count;
                if (plan->split_pass) {
                    record_dispatch(&recorder,
                                    split_pipeline(variant, plan),
                                    &constants, sizeof constants, split_x, split_y);
                    record_pass_barrier(command_buffer);
                    constants.pass.splits_given = 1u;
                }
            }
            VkPipeline pipeline =
                pass->kind == BITONIC_PASS_TILE ? tile_pipeline_for(variant, pass) : variant->merge_pipeline;
            record_dispatch(&recorder, pipeline, &constants, sizeof constants, group_x[p], group_y[p]);
            if (p + 1 < plan->pass_count)
                record_pass_barrier(command_buffer);
        }
    }
    if (timed && !(info->profile_passes && plan->pass_count > 0))
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}

/* Whether a sort's plan merges runs above its tile with the bound kernels
 * (not the transpose, not device addresses), so that merging presorted runs
 * (bitonic_vk_record_merge_of_runs) can finish it; the tile's log2 when so. */
static bool plan_merges_runs(const bitonic_vulkan_sorter *sorter, const sort_plan *plan, uint32_t *out_tile_log)
{
    if (!plan->merge || plan->transpose || plan->wide || plan->row_log != 0)
        return false;
    *out_tile_log = sorter->variants[plan->variant_number].tuning.tile_log;
    return true;
}

bool bitonic_vk_partition_samples(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                  VkDeviceSize *out_keys_at, VkDeviceSize *out_values_at, uint32_t *out_count,
                                  uint32_t *out_runs_log)
{
    sort_plan plan;
    if (!sorter || !info || plan_sort(sorter, info, true, &plan) != BITONIC_SUCCESS || !plan.partition)
        return false;
    *out_keys_at = plan.partition_at + plan.samples_at;
    *out_values_at = plan.partition_at + plan.sample_values_at;
    *out_count = plan.sample_count;
    *out_runs_log = plan.sample_runs_log;
    return true;
}

bitonic_status bitonic_vk_merge_of_runs_tile_log(const bitonic_vulkan_sorter *sorter,
                                                 const bitonic_vulkan_sort_info *info, uint32_t *out_tile_log)
{
    sort_plan plan;
    if (!info || !out_tile_log || info->count_buffer != VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_status planned = plan_sort(sorter, info, info->scratch != VK_NULL_HANDLE, &plan);
    if (planned != BITONIC_SUCCESS)
        return planned;
    return plan_merges_runs(sorter, &plan, out_tile_log) ? BITONIC_SUCCESS : BITONIC_ERROR_UNSUPPORTED;
}

static bitonic_status record_sort_passes(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                         const bitonic_vulkan_sort_info *info, uint32_t run_log, bool allow_partition);

bitonic_status bitonic_vulkan_record_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                          const bitonic_vulkan_sort_info *info)
{
    return record_sort_passes(sorter, command_buffer, info, 0, true);
}

bitonic_status bitonic_vk_record_merge_of_runs(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                               const bitonic_vulkan_sort_info *info, uint32_t run_log)
{
    uint32_t tile_log;
    bitonic_status status = bitonic_vk_merge_of_runs_tile_log(sorter, info, &tile_log);
    if (status != BITONIC_SUCCESS)
        return status;
    uint32_t merges = run_log < 64 && info->count > ((uint64_t)1 << run_log)
                          ? bitonic_ceil_log2(info->count) - run_log
                          : 0;
    if (run_log < tile_log || merges == 0 || merges % 2u != 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    return record_sort_passes(sorter, command_buffer, info, run_log, false);
}

/* The push constants of partition_pass.comp (PartitionParams), within the
 * pipeline layout's range. */
typedef struct partition_push_constants {
    uint32_t count, step, key_xor, key_type;
    uint32_t sample_count, splitters, chunk_keys, window;
    uint32_t samples_at, sample_values_at;
    uint32_t fallback_groups_x, fallback_groups_y;
    uint32_t straddles_at;
    uint32_t sample_runs_log;
    uint32_t longest;
    uint32_t flags;              /* PARTITION_FLAG_* */
    uint32_t scatter_tile;
    uint32_t nested_at;          /* words into the partition's: the nested table (0: not nested) */
    uint32_t nested_splitters;
} partition_push_constants;
_Static_assert(sizeof(partition_push_constants) <= sizeof(pass_push_constants), "the pipeline layout's range");

enum {
    PARTITION_SAMPLE = 0,
    PARTITION_COUNT = 1,
    PARTITION_SCATTER = 2,
    PARTITION_FALLBACK = 3,
    PARTITION_NESTED_SAMPLE = 4,
    PARTITION_NESTED_COUNT = 5,
    PARTITION_NESTED_SCATTER = 6
};
/* partition_pass.comp's FLAG_*. */
enum { PARTITION_FLAG_PACKED_PAIRS = 1, PARTITION_FLAG_FALLBACK_IN_BATCHES = 2 };

/* The keys a tile of the scatter takes: its staged tile, or, for keys of at
 * most 8 bytes with their values (whose tile is twice as long as before,
 * partition_pass.comp's PLACES_BY_SEARCH), half of it where that takes fewer
 * rounds of its workgroups by more than a tile twice as long costs. A tile's cost is mostly
 * its chain of barriers and claims, whatever its keys: on the H200 a tile of
 * 8192 u32 keys took 1.69x one of 4096, so the scatter of 2^26 keys was 15%
 * faster with the longer tiles, but that of 1.5 x 2^20 keys (192 tiles, two
 * rounds of 132 workgroups, against three of 384 tiles) 9% slower
 * (docs/perf-log.md, entry 93). Costs taken as 17 against 10. Half
 * tiles go to a pipeline of their own (partition_half_scatter_pipeline) that
 * stores each staged key's place, as before the long tiles (entry 94); for
 * pairs and 64-bit keys that is the tile of 2048 they had before entry 95
 * (halved to 1024 keys, their scatter of 1.5 x 2^18 was 15-20% slower). */
static uint64_t scatter_tile_for(uint64_t count, const bitonic_tuning *tuning)
{
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    uint64_t half = staged_tile / 2u, workgroups = tuning->partition_scatter_workgroups;
    if (!partition_halves_tiles(tuning) || workgroups == 0)
        return staged_tile;
    uint64_t tiles = (count + staged_tile - 1u) / staged_tile, half_tiles = (count + half - 1u) / half;
    uint64_t rounds = (tiles + workgroups - 1u) / workgroups, half_rounds = (half_tiles + workgroups - 1u) / workgroups;
    return 10u * half_rounds < 17u * rounds ? half : staged_tile;
}

/* Where partition_pass.comp's scatter leaves the fallback's dispatch size
 * (FALLBACK_ARGS_AT there). */
#define PARTITION_FALLBACK_ARGS_BYTES 0u

/* A dispatch whose size the GPU wrote at buffer + offset (the partition's fallback). */
static void record_dispatch_indirect(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                                     uint32_t constants_size, VkBuffer buffer, VkDeviceSize offset)
{
    prepare_dispatch(recorder, pipeline, constants, constants_size);
    vkCmdDispatchIndirect(recorder->command_buffer, buffer, offset);
    finish_dispatch(recorder);
}

/* Where a dispatch's size comes from: a grid, or words the GPU wrote at
 * indirect + offset (indirect not VK_NULL_HANDLE). */
typedef struct dispatch_size {
    uint32_t x, y;
    VkBuffer indirect;
    VkDeviceSize offset;
} dispatch_size;

static void record_sized_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const pass_push_constants *constants,
                                  dispatch_size size)
{
    if (size.indirect != VK_NULL_HANDLE)
        record_dispatch_indirect(recorder, pipeline, constants, sizeof *constants, size.indirect, size.offset);
    else
        record_dispatch(recorder, pipeline, constants, sizeof *constants, size.x, size.y);
}

/* Records a two-run merge pass, its constants set but for the split and
 * sample fields. First its split pass, one chunk's split a thread (on the
 * samples first where the pass before left them), where the plan has split
 * passes and the merge does not search its own splits on those samples
 * (fused, where the plan says: never a direct merge's plan, which has no
 * samples); then the merge, which leaves samples for the next merge where
 * write_samples. Returns whether it left them. */
static bool record_two_run_merge(dispatch_recorder *recorder, const sorter_variant *variant, const sort_plan *plan,
                                 const bitonic_pass *pass, pass_push_constants constants, bool samples_left,
                                 bool write_samples, dispatch_size split, dispatch_size merge)
{
    bool fused = plan->fused_split && samples_left;
    if (plan->split_pass && !fused) {
        constants.sample_runs = samples_left ? 1u : 0u;
        record_sized_dispatch(recorder, split_pipeline(variant, plan), &constants, split);
        record_pass_barrier(recorder->command_buffer);
        constants.splits_given = 1u;
    }
    uint32_t search = plan->split_search == SPLIT_SEARCH_GUIDED ? MERGE_SAMPLES_GUIDED : 0u;
    constants.sample_runs = (fused ? MERGE_SAMPLES_SEARCH | search : 0u) | (write_samples ? MERGE_SAMPLES_WRITE : 0u);
    record_sized_dispatch(recorder, merge_pipeline_of(variant, merge_pipeline_kind(variant, plan, pass)), &constants,
                          merge);
    return write_samples;
}

/* After the scatter: its workgroup 0's writes are read as dispatch sizes too. */
static void record_indirect_barrier(VkCommandBuffer command_buffer)
{
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                                VK_ACCESS_INDIRECT_COMMAND_READ_BIT};
    vkCmdPipelineBarrier(command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &barrier, 0,
                         NULL, 0, NULL);
}

/* Records a sort planned as a partition sort (plan->partition), with its
 * timestamps, as bitonic_vulkan_record_sort() does for the others:
 * 1. sample the keys and sort the samples (the sort of few keys, recorded
 *    here without timestamps of its own);
 * 2. count the keys by bucket, then scatter them from the caller's side to
 *    the scratch's (each scatter workgroup sums the buckets' totals into
 *    their starts itself);
 * 3. the tile sort and the merges up to windows of W keys;
 * 4. the window merge into the caller's side: its split pass finds each
 *    chunk's cursors in the runs around it from the scatter's window boundaries,
 *    and each chunk merges its pieces of three runs (merge_pass.comp,
 *    BUCKET_WINDOWS);
 * 5. the fallback, an indirect dispatch that the scatter gives workgroups only
 *    where an open bucket is longer than W: they remake the chunks of the
 *    caller's side that such buckets touch from the runs of W. */
static bitonic_status record_partition_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    const bitonic_tuning *tuning = &variant->tuning;
    uint32_t key_bytes = plan->key_bytes;
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!plan_grids(sorter, plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;
    /* The window merge's grid, and its split pass's: a workgroup a chunk
     * where its threads search three pieces together, else a thread a chunk
     * (the three-piece pipeline's workgroups have WINDOW_SPLIT_THREADS); a
     * thread a chunk in three pieces takes two such grids, one for the
     * cursors in place or in two pieces and one for those in three
     * (merge_pass.comp, ROLE_TWO_PIECES and ROLE_THREE_PIECES). */
    uint32_t window_chunks = plan->window_chunks;
    uint32_t window_x, window_y, window_split_x, window_split_y;
    uint32_t split_threads = tuning->merge_split_workgroup_size;
    if (plan->window_three_pieces && split_threads > WINDOW_SPLIT_THREADS)
        split_threads = WINDOW_SPLIT_THREADS;
    uint32_t split_groups_wanted = (window_chunks + split_threads - 1u) / split_threads;
    if (plan->window_three_pieces)
        split_groups_wanted = plan->window_split_by_thread ? 2u * split_groups_wanted : window_chunks;
    if (!split_groups(sorter, window_chunks, &window_x, &window_y) ||
        !split_groups(sorter, split_groups_wanted, &window_split_x, &window_split_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t threads = tuning->partition_workgroup_size;
    /* The scatter's staged tile: SCATTER_KEYS a thread in partition_pass.comp. */
    uint64_t scatter_tile = (uint64_t)threads * tuning->partition_scatter_keys;
    uint64_t scatter_run_tile = scatter_tile_for(info->count, tuning);
    uint64_t scatter_groups = (info->count + scatter_run_tile - 1u) / scatter_run_tile;
    if (scatter_groups > tuning->partition_scatter_workgroups)
        scatter_groups = tuning->partition_scatter_workgroups;
    uint32_t scatter_x, scatter_y;
    if (!split_groups(sorter, scatter_groups, &scatter_x, &scatter_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint64_t fallback_chunk = staged_power_of_two(tuning);
    uint32_t fallback_x, fallback_y;
    if (!split_groups(sorter, (info->count + fallback_chunk - 1u) / fallback_chunk, &fallback_x, &fallback_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t reach = plan->sample_count > 2u * plan->splitter_count + 1u ? plan->sample_count
                                                                          : 2u * plan->splitter_count + 1u;

    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    VkDescriptorBufferInfo count_binding = {info->keys, info->keys_offset, 4u};  /* unread: no count buffer */
    VkDescriptorBufferInfo caller_keys = {info->keys, info->keys_offset, (VkDeviceSize)info->count * key_bytes};
    VkDescriptorBufferInfo caller_values = {info->values, info->values_offset, (VkDeviceSize)info->count * 4u};
    VkDescriptorBufferInfo side_keys[2], side_values[2];
    side_keys[0] = caller_keys;
    side_values[0] = caller_values;
    side_keys[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset, side_keys[0].range};
    side_values[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_values_at,
                                              side_values[0].range};
    /* Packed pairs (plan->packed_pairs): the tile sort, the merges and the
     * window split pass are KEYS64's, without values, on the scratch's two
     * sides of 8n bytes (side 1 where the scatter writes, side 0 at
     * packed_at); the window merge and the fallback read packed pairs and
     * write the caller's keys and values. */
    bool packed = plan->packed_pairs;
    const sorter_variant *runs_variant = packed ? &sorter->variants[KEYS64] : variant;
    bool runs_values = with_values && !packed;
    uint32_t runs_key_type = packed ? (uint32_t)BITONIC_KEY_U64 : (uint32_t)info->key_type;
    uint32_t runs_key_xor = packed || info->order != BITONIC_ORDER_DESCENDING ? 0u : UINT32_MAX;
    if (packed) {
        side_keys[1].range = (VkDeviceSize)info->count * 8u;
        side_keys[0] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->packed_at,
                                                side_keys[1].range};
        side_values[0] = side_keys[0];
        side_values[1] = side_keys[1];
    }
    VkDescriptorBufferInfo splits = count_binding;
    if (plan->splits_bytes > 0)
        splits = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_splits_at,
                                          plan->splits_bytes};
    VkDeviceSize partition_offset = info->scratch_offset + plan->partition_at;
    VkDescriptorBufferInfo partition = {info->scratch, partition_offset, plan->partition_bytes};
    VkDescriptorBufferInfo window_table = {info->scratch, partition_offset + plan->windows_at,
                                           plan->window_table_bytes};
    dispatch_recorder recorder = dispatch_recorder_for(command_buffer, variant, info);

    /* 1. The samples, and their sort. */
    partition_push_constants steps = {
        .count = (uint32_t)info->count, .step = PARTITION_SAMPLE,
        .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u, .key_type = (uint32_t)info->key_type,
        .sample_count = plan->sample_count, .splitters = plan->splitter_count,
        .chunk_keys = plan->partition_chunk_keys, .window = 1u << plan->window_log,
        .samples_at = (uint32_t)(plan->samples_at / 4u), .sample_values_at = (uint32_t)(plan->sample_values_at / 4u),
        .fallback_groups_x = fallback_x, .fallback_groups_y = fallback_y,
        .straddles_at = (uint32_t)((plan->windows_at / 4u) + 5u * (VkDeviceSize)window_chunks),
        .sample_runs_log = plan->sample_runs_log,
        .longest = plan->window_three_pieces ? 2u << plan->window_log : 1u << plan->window_log,
        .flags = (packed ? PARTITION_FLAG_PACKED_PAIRS : 0u) |
                 (tuning->partition_fallback_in_batches ? PARTITION_FLAG_FALLBACK_IN_BATCHES : 0u),
        .scatter_tile = (uint32_t)scatter_run_tile,
        .nested_at = plan->nested ? (uint32_t)(plan->nested_at / 4u) : 0u,
        .nested_splitters = plan->nested ? plan->nested_splitters : 0u};
    sort_sides caller_to_scratch = {caller_keys, caller_values, side_keys[1], side_values[1]};
    push_sort_bindings(sorter, command_buffer, variant, with_values, caller_to_scratch, count_binding, partition);
    /* With runs, a workgroup a run (the step sorts them); else a thread a sample. */
    uint32_t sample_groups = plan->sample_runs_log > 0 ? 1u << plan->sample_runs_log : (reach + threads - 1u) / threads;
    record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, sample_groups, 1u);
    record_pass_barrier(command_buffer);
    if (plan->sample_runs_log == 0) {
        bitonic_vulkan_sort_info samples = samples_sort_info(info, plan);
        bitonic_status sorted = record_sort_passes(sorter, command_buffer, &samples, 0, false);
        if (sorted != BITONIC_SUCCESS)
            return sorted;
        finish_dispatch(&recorder);  /* the samples' sort as one pass of the profile */
        record_pass_barrier(command_buffer);
        recorder.bound = VK_NULL_HANDLE;  /* the samples' sort bound its own */
    }

    /* 2. Count, scatter. */
    push_sort_bindings(sorter, command_buffer, variant, with_values, caller_to_scratch, count_binding, partition);
    steps.step = PARTITION_COUNT;
    record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->partition_groups, 1u);
    record_pass_barrier(command_buffer);
    steps.step = PARTITION_SCATTER;
    VkPipeline scatter_pipeline = scatter_run_tile < scatter_tile ? variant->partition_half_scatter_pipeline
                                                                  : variant->partition_pipeline;
    record_dispatch(&recorder, scatter_pipeline, &steps, sizeof steps, scatter_x, scatter_y);
    record_indirect_barrier(command_buffer);  /* its workgroup 0 wrote the fallback's dispatch size */

    /* 2b. The nested partition: a row of workgroups a bucket of the first;
     * its sample step, then its count and scatter from side 1 (the first
     * scatter's) into side 0 on the staged tile's whole pipeline. */
    if (plan->nested) {
        uint32_t first_buckets = 2u * plan->splitter_count + 1u;
        push_sort_bindings(sorter, command_buffer, variant, with_values,
                           (sort_sides){side_keys[1], side_values[1], side_keys[0], side_values[0]}, count_binding,
                           partition);
        steps.sample_count = tuning->partition_samples_per_bucket;
        steps.scatter_tile = (uint32_t)scatter_tile;
        steps.step = PARTITION_NESTED_SAMPLE;
        record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, 1u, first_buckets);
        record_pass_barrier(command_buffer);
        steps.step = PARTITION_NESTED_COUNT;
        record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->nested_groups,
                        first_buckets);
        record_pass_barrier(command_buffer);
        steps.step = PARTITION_NESTED_SCATTER;
        record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->nested_groups,
                        first_buckets);
        record_indirect_barrier(command_buffer);  /* the fallback's dispatch size again */
    }

    /* 3-5. The tile sort reads the scattered keys (side 1, or side 0 after
     * the nested scatter) and writes the side that leaves the window merge
     * writing side 0. */
    uint32_t scattered_side = plan->nested ? 0u : 1u;
    uint32_t merge_count = plan->pass_count - 1u;
    uint32_t write_side = merge_count % 2u, read_side = 1u;
    bool aligned = packed ? info->scratch_offset % 16u == 0
                          : info->keys_offset % 16u == 0 && (!with_values || info->values_offset % 16u == 0) &&
                                info->scratch_offset % 16u == 0 &&
                                (info->scratch_offset + plan->scratch_values_at) % 16u == 0;
    recorder.layout = runs_variant->pipeline_layout;
    bool merge_vector_io = aligned && tuning->merge_vector_io;
    bool samples_left = false;
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        bool window = p + 1u == plan->pass_count;
        if (pass->kind == BITONIC_PASS_MERGE) {
            read_side = write_side;
            write_side = 1u - read_side;
        }
        sort_sides sides = {side_keys[read_side], side_values[read_side], side_keys[write_side],
                            side_values[write_side]};
        if (p == 0)  /* the tile sort: the scattered side in place, or into the other */
            sides = (sort_sides){side_keys[scattered_side], side_values[scattered_side], side_keys[write_side],
                                 side_values[write_side]};
        push_sort_bindings(sorter, command_buffer, runs_variant, runs_values, sides, count_binding,
                           window ? window_table : splits);
        pass_push_constants constants = {
            .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
            .last_phase = pass->last_phase, .group_count = pass->group_count,
            .key_xor = runs_key_xor,
            .key_type = runs_key_type,
            .count_offset = NO_COUNT_BUFFER,
            .output_buffer = p == 0 && write_side != scattered_side ? 1u : 0u,
            .vector_io = (p == 0 ? aligned && tuning->tile_vector_io : merge_vector_io) ? 1u : 0u,
        };
        if (p == 0) {
            if (plan->run_samples && sorts_tile_by_merging(runs_variant, pass) && pass->last_phase == tuning->tile_log) {
                constants.sample_runs = MERGE_SAMPLES_WRITE;
                samples_left = true;
            }
            record_dispatch(&recorder, tile_pipeline_for(runs_variant, pass), &constants, sizeof constants, group_x[0],
                            group_y[0]);
            record_pass_barrier(command_buffer);
            continue;
        }
        if (window) {
            /* Runs of W (phase: log2 W), a cursor of five runs a chunk,
             * found by a split pass whatever the plan. Packed pairs' window
             * merge is PAIRS32's pipeline: it writes the caller's keys and
             * values apart, the keys back to their type and order. */
            constants.phase = plan->window_log;
            constants.group_count = window_chunks;
            /* Its two pieces' searches guided by the keys' values where the
             * plan's merges' are: at 2^22 keys a guided window split pass took
             * 0.0142 ms on the H100, a plain one 0.0090 (docs/perf-log.md, entry 57). */
            constants.sample_runs = plan->split_search == SPLIT_SEARCH_GUIDED ? MERGE_SAMPLES_GUIDED : 0u;
            if (plan->window_split_by_thread)
                constants.sample_runs |= MERGE_SPLIT_BY_THREAD;
            record_dispatch(&recorder, runs_variant->window_split_pipeline[plan->window_three_pieces], &constants,
                            sizeof constants, window_split_x, window_split_y);
            record_pass_barrier(command_buffer);
            constants.sample_runs = 0u;
            VkPipeline window_merge = runs_variant->window_merge_pipeline[plan->window_three_pieces];
            if (packed) {
                window_merge = variant->window_unpack_pipeline[plan->window_three_pieces];
                recorder.layout = variant->pipeline_layout;
                push_sort_bindings(sorter, command_buffer, variant, true,
                                   (sort_sides){side_keys[1], side_values[1], caller_keys, caller_values},
                                   count_binding, window_table);
                constants.key_type = (uint32_t)info->key_type;
                constants.key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u;
            }
            record_dispatch(&recorder, window_merge, &constants, sizeof constants, window_x, window_y);
            continue;
        }
        constants.group_count = plan->chunk_count;
        dispatch_size split = {split_x, split_y, VK_NULL_HANDLE, 0};
        dispatch_size merge = {group_x[p], group_y[p], VK_NULL_HANDLE, 0};
        samples_left = record_two_run_merge(&recorder, runs_variant, plan, pass, constants, samples_left,
                                            plan->run_samples && p + 2u < plan->pass_count, split, merge);
        record_pass_barrier(command_buffer);
    }
    /* 5. The fallback: from the runs of W (side 1) into the caller's side,
     * where the window merge has written (packed pairs: the runs' pairs
     * through PackedIn, the 16-byte view's binding). */
    record_pass_barrier(command_buffer);
    recorder.layout = variant->pipeline_layout;
    push_sort_bindings(sorter, command_buffer, variant, with_values,
                       (sort_sides){side_keys[1], side_values[1], caller_keys, caller_values}, count_binding,
                       partition);
    steps.step = PARTITION_FALLBACK;
    record_dispatch_indirect(&recorder, variant->partition_pipeline, &steps, sizeof steps, info->scratch,
                             partition_offset + PARTITION_FALLBACK_ARGS_BYTES);
    if (timed && !info->profile_passes)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}

/* The sort's passes; with run_log (not 0: the keys are sorted in aligned runs
 * of 2^run_log already) only the merges above those runs, the first reading
 * the caller's buffers. allow_partition: a partition sort where the plan asks
 * for one (not for the partition's own sort of its samples). */
static bitonic_status record_sort_passes(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                         const bitonic_vulkan_sort_info *info, uint32_t run_log, bool allow_partition)
{
    if (command_buffer == VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    sort_plan plan;
    bitonic_status planned =
        plan_sort_runs(sorter, info, info && info->scratch != VK_NULL_HANDLE, run_log, allow_partition, &plan);
    if (planned != BITONIC_SUCCESS)
        return planned;
    VkResult built = ensure_plan_pipelines(sorter, &plan);
    if (built != VK_SUCCESS)
        return bitonic_status_from_vk(built);
    if (plan.transpose)
        return record_transposed_sort(sorter, command_buffer, info, &plan);
    if (plan.wide)
        return record_wide_sort(sorter, command_buffer, info, &plan);
    if (plan.partition)
        return record_partition_sort(sorter, command_buffer, info, &plan);
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan.variant_number];
    const bitonic_pass *passes = plan.passes;
    uint32_t pass_count = plan.pass_count, row_log = plan.row_log, key_bytes = plan.key_bytes;

    /* Check every dispatch fits before recording anything. */
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!plan_grids(sorter, &plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;

    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    if (pass_count > 0) {
        /* Without a count buffer the keys stand in for it: the shader does not read it. */
        bool indirect = info->count_buffer != VK_NULL_HANDLE;
        VkDescriptorBufferInfo count_binding = {.buffer = indirect ? info->count_buffer : info->keys,
                                                .offset = indirect ? 0 : info->keys_offset,
                                                .range = indirect ? VK_WHOLE_SIZE : 4u};
        /* Side 0 is the caller's keys and values, side 1 their scratch copies. A
         * merge reads one side and writes the other; the tile sort writes the side
         * that leaves the last merge writing the caller's buffers. */
        VkDescriptorBufferInfo side_keys[2], side_values[2];
        VkDescriptorBufferInfo splits = count_binding;
        side_keys[0] = (VkDescriptorBufferInfo){info->keys, info->keys_offset, (VkDeviceSize)info->count * key_bytes};
        side_values[0] = (VkDescriptorBufferInfo){info->values, info->values_offset, (VkDeviceSize)info->count * 4u};
        side_keys[1] = side_keys[0];
        side_values[1] = side_values[0];
        if (plan.merge) {
            side_keys[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset, side_keys[0].range};
            side_values[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan.scratch_values_at,
                                                      side_values[0].range};
            if (plan.splits_bytes > 0)  /* the split pass's splits or the cut pass's cuts */
                splits = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan.scratch_splits_at,
                                                  plan.splits_bytes};
        }
        /* 16-byte views of keys and values need both sides to start 16-byte aligned. */
        bool aligned = info->keys_offset % 16u == 0 && (!with_values || info->values_offset % 16u == 0) &&
                       (!plan.merge || (info->scratch_offset % 16u == 0 &&
                                        (info->scratch_offset + plan.scratch_values_at) % 16u == 0));
        bool merge_vector_io = aligned && variant->tuning.merge_vector_io;
        bool tile_vector_io = aligned && variant->tuning.tile_vector_io;
        /* Without a tile pass (run_log) the first merge reads side 0: the caller
         * made the merge count even, so the last one writes side 0. */
        uint32_t merge_count = !plan.merge ? 0u : run_log > 0 ? pass_count : pass_count - 1u;
        uint32_t read_side = 0, write_side = run_log > 0 ? 0u : merge_count % 2u;
        dispatch_recorder recorder = dispatch_recorder_for(command_buffer, variant, info);
        bool pushed = false;
        bool samples_left = false;  /* the last merge recorded left run samples */
        for (uint32_t p = 0; p < pass_count; ++p) {
            const bitonic_pass *pass = &passes[p];
            /* The tile sort reads side 0 and writes write_side; each merge then
             * reads what the previous pass wrote and writes the other side. */
            if (pass->kind == BITONIC_PASS_MERGE) {
                read_side = write_side;
                write_side = 1u - read_side;
            }
            if (!pushed || pass->kind == BITONIC_PASS_MERGE) {
                push_sort_bindings(sorter, command_buffer, variant, with_values,
                                   (sort_sides){side_keys[read_side], side_values[read_side], side_keys[write_side],
                                                side_values[write_side]},
                                   count_binding, splits);
                pushed = true;
            }
            pass_push_constants constants = {
                .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
                .last_phase = pass->last_phase, .group_count = pass->group_count,
                .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                .key_type = (uint32_t)info->key_type,
                .row_log = row_log,
                .row_length = info->row_length,
                .count_offset = indirect ? (uint32_t)(info->count_offset / 4u) : NO_COUNT_BUFFER,
                .output_buffer = pass->kind == BITONIC_PASS_TILE && write_side != 0u ? 1u : 0u,
                .vector_io = (pass->kind == BITONIC_PASS_TILE ? tile_vector_io : merge_vector_io) ? 1u : 0u,
            };
            if (pass->kind == BITONIC_PASS_TILE && plan.run_samples && sorts_tile_by_merging(variant, pass) &&
                pass->last_phase == variant->tuning.tile_log && p + 1 < pass_count &&
                passes[p + 1].kind == BITONIC_PASS_MERGE) {
                /* The tile merge sort leaves samples for the first merge. */
                constants.sample_runs = MERGE_SAMPLES_WRITE;
                samples_left = true;
            } else if (pass->kind == BITONIC_PASS_MERGE) {
                /* Every pass after a merge merges: samples for the next one. */
                constants.group_count = (uint32_t)merge_workgroups(&variant->tuning, &plan, pass);
                samples_left = record_two_run_merge(&recorder, variant, &plan, pass, constants, samples_left,
                                                    plan.run_samples && p + 1 < pass_count,
                                                    (dispatch_size){split_x, split_y, VK_NULL_HANDLE, 0},
                                                    (dispatch_size){group_x[p], group_y[p], VK_NULL_HANDLE, 0});
                if (p + 1 < pass_count)
                    record_pass_barrier(command_buffer);
                continue;
            }
            VkPipeline pipeline = pass->kind == BITONIC_PASS_TILE ? plan_tile_pipeline(variant, &plan, pass)
                                                                  : variant->global_pipelines[pass->step_count];
            record_dispatch(&recorder, pipeline, &constants, sizeof constants, group_x[p], group_y[p]);
            if (p + 1 < pass_count)
                record_pass_barrier(command_buffer);
        }
    }
    if (timed && !(info->profile_passes && pass_count > 0))
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}

bitonic_status bitonic_vulkan_record_search(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_search_info *info)
{
    if (!sorter || command_buffer == VK_NULL_HANDLE || !info ||
        (info->order != BITONIC_ORDER_ASCENDING && info->order != BITONIC_ORDER_DESCENDING) ||
        (unsigned)info->key_type > (unsigned)BITONIC_KEY_F64)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bool key64 = is_key64(info->key_type);
    if (key64 && !sorter->variants[KEYS64].available)
        return BITONIC_ERROR_UNSUPPORTED;
    if (info->query_count == 0)
        return BITONIC_SUCCESS;
    if (info->keys == VK_NULL_HANDLE || info->lows == VK_NULL_HANDLE || info->highs == VK_NULL_HANDLE ||
        info->first == VK_NULL_HANDLE || info->end == VK_NULL_HANDLE)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* The search binds its buffers: what one binding covers. */
    if (info->count > sorter->bound_max_keys || info->query_count > sorter->bound_max_keys)
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t workgroup = SEARCH_WORKGROUP < sorter->limits.max_workgroup_invocations
                             ? SEARCH_WORKGROUP
                             : sorter->limits.max_workgroup_invocations;
    uint32_t groups_x, groups_y;
    if (!split_groups(sorter, (info->query_count + (uint64_t)workgroup - 1u) / workgroup, &groups_x, &groups_y))
        return BITONIC_ERROR_TOO_LARGE;
    VkResult built = ensure_search_pipeline(sorter, key64);
    if (built != VK_SUCCESS)
        return bitonic_status_from_vk(built);
    /* An empty key array still needs a non-empty binding: its whole buffer. */
    VkDeviceSize key_bytes = key64 ? 8u : 4u;
    VkDeviceSize key_range = info->count ? (VkDeviceSize)info->count * key_bytes : VK_WHOLE_SIZE;
    VkDeviceSize bound_range = (VkDeviceSize)info->query_count * key_bytes;
    VkDeviceSize result_range = (VkDeviceSize)info->query_count * 4u;
    VkDescriptorBufferInfo buffers[SEARCH_BINDINGS] = {
        {info->keys, info->keys_offset, key_range},   {info->lows, info->lows_offset, bound_range},
        {info->highs, info->highs_offset, bound_range}, {info->first, info->first_offset, result_range},
        {info->end, info->end_offset, result_range},
    };
    VkWriteDescriptorSet writes[SEARCH_BINDINGS];
    for (uint32_t i = 0; i < SEARCH_BINDINGS; ++i)
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &buffers[i]};
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE,
                      key64 ? sorter->search_pipeline64 : sorter->search_pipeline);
    sorter->push_descriptor_set(command_buffer, VK_PIPELINE_BIND_POINT_COMPUTE, sorter->search_pipeline_layout, 0,
                                SEARCH_BINDINGS, writes);
    search_push_constants constants = {info->count, info->query_count,
                                       info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u,
                                       (uint32_t)info->key_type};
    vkCmdPushConstants(command_buffer, sorter->search_pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       sizeof constants, &constants);
    vkCmdDispatch(command_buffer, groups_x, groups_y, 1);
    return BITONIC_SUCCESS;
}
