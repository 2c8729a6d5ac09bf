/* pipelines.c: the sorter's shader modules and pipelines: which SPIR-V build
 * each kernel takes (bitonic_kernel_module_name), the variants' layouts, every pipeline
 * with its specialisation constants from the variant's tuning, built at
 * creation or on first use (a lazy sorter), the pipelines a plan binds, the
 * search pipelines, and the report of what the driver says of them. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "shader_modules.h"
#include "sorter_internal.h"

void bitonic_kernel_module_name(char name[BITONIC_MODULE_NAME_CAPACITY], const char *kernel, bitonic_kernel_form form,
                                bool wide, uint32_t register_log)
{
    /* The wide builds have one build of pairs, which compares them as 64-bit integers. */
    const char *form_suffix = form.key64         ? (form.with_values ? "_k64_values" : "_k64")
                              : form.with_values ? (form.pairs_as_int64 && !wide ? "_values_i64" : "_values")
                                                 : "";
    snprintf(name, BITONIC_MODULE_NAME_CAPACITY, "%s%s%s_r%u", kernel, wide ? "_wide" : "", form_suffix,
             (unsigned)register_log);
}

/* A pipeline of the embedded module of that name, inflated for as long as
 * the driver reads it. */
static VkResult create_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineCache cache, VkPipelineLayout layout,
                                const char *module_name, const uint32_t *constants, uint32_t constant_count,
                                VkPipeline *out_pipeline)
{
    const bitonic_shader_module *embedded = bitonic_shader_module_find(module_name);
    if (!embedded)
        return VK_ERROR_FEATURE_NOT_PRESENT;  /* a build the tuning never takes */
    if (constant_count > 8u)
        return VK_ERROR_INITIALIZATION_FAILED;  /* more than entries[] below holds */
    uint32_t *code = malloc(embedded->size);
    if (!code)
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (!bitonic_shader_module_inflate(embedded, code)) {
        free(code);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkShaderModuleCreateInfo module_info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            .codeSize = embedded->size, .pCode = code};
    VkShaderModule module;
    VkResult result = vkCreateShaderModule(sorter->device, &module_info, sorter->allocator, &module);
    free(code);
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

/* A pipeline of a kernel's build for a form and keys a thread (log2). */
static VkResult create_kernel_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineLayout layout, const char *kernel,
                                       bitonic_kernel_form form, bool wide, uint32_t register_log,
                                       const uint32_t *constants, uint32_t constant_count, VkPipeline *out_pipeline)
{
    char name[BITONIC_MODULE_NAME_CAPACITY];
    bitonic_kernel_module_name(name, kernel, form, wide, register_log);
    return create_pipeline(sorter, sorter->pipeline_cache, layout, name, constants, constant_count, out_pipeline);
}

VkResult sorter_create_variant(bitonic_vulkan_sorter *sorter, VkPipelineCache cache, bitonic_kernel_form form,
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

VkResult sorter_ensure_pipeline(bitonic_vulkan_sorter *sorter, sorter_variant *variant, pipeline_kind kind,
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
        if (wide)  /* the wide path sorts its tiles by the merge sort alone */
            return VK_ERROR_FEATURE_NOT_PRESENT;
        uint32_t tile_constants[2] = {tuning->tile_workgroup_size, tuning->tile_log};
        return create_kernel_pipeline(sorter, variant->pipeline_layout,
                                      tuning->tile_uses_shuffle ? "tile_shuffle_pass" : "tile_pass", form, false,
                                      tuning->tile_register_log, tile_constants, 2, &variant->tile_pipeline);
    }
    case PIPELINE_TILE_SORT:
    case PIPELINE_SHORT_TILE_SORT:
    case PIPELINE_NESTED_TILE_SORT: {
        /* The short tile: the same kernel, a shorter tile and fewer threads;
         * the nested partition's windows: the same kernel and keys a thread on
         * the window (steps: its log2 above the nested tile); for the others
         * steps 1: the pipeline of passes that place a tail. */
        bool short_tile = kind == PIPELINE_SHORT_TILE_SORT, nested = kind == PIPELINE_NESTED_TILE_SORT;
        bool tail = !nested && steps == 1u;
        uint32_t nested_log = tuning->partition_nested_tile_log + steps;
        if ((short_tile && (tuning->short_tile_log == 0 || wide)) || (tail && (tuning->tile_tail_log == 0 || wide)) ||
            (nested && (steps >= NESTED_WINDOW_LOGS || wide || nested_log >= tuning->tile_log)))
            return VK_ERROR_FEATURE_NOT_PRESENT;
        VkPipeline *pipeline = nested       ? &variant->nested_tile_sort_pipelines[steps]
                               : short_tile ? (tail ? &variant->short_tile_sort_tail_pipeline
                                                    : &variant->short_tile_sort_pipeline)
                                            : (tail ? &variant->tile_sort_tail_pipeline : &variant->tile_sort_pipeline);
        if (*pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t tile_log = short_tile ? tuning->short_tile_log : nested ? nested_log : tuning->tile_log;
        uint32_t register_log = short_tile ? tuning->short_tile_register_log : tuning->tile_sort_register_log;
        /* The merge chunk places the run samples the tile sort leaves. */
        uint32_t tile_constants[4] = {1u << (tile_log - register_log), tile_log, tuning->merge_chunk_log,
                                      tail ? 1u << tuning->tile_tail_log : 0u};
        return create_kernel_pipeline(sorter, variant->pipeline_layout,
                                      tuning->tile_sort_uses_shuffle && !wide ? "tile_sort_lanes_pass" : "tile_sort_pass",
                                      form, wide, register_log, tile_constants, 4, pipeline);
    }
    case PIPELINE_GLOBAL: {
        if (steps == 0 || steps > BITONIC_MAX_STEP_GROUP_LOG || wide)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->global_pipelines[steps] != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t global_constants[1] = {tuning->global_workgroup_size};
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "global_pass", form, false, steps,
                                      global_constants, 1, &variant->global_pipelines[steps]);
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
        char name[BITONIC_MODULE_NAME_CAPACITY];
        snprintf(name, sizeof name, "%s_k64_unpack_r%u",
                 tuning->merge_fused_split_by_subgroup ? "merge_lanes_pass" : "merge_pass",
                 (unsigned)tuning->merge_register_log);
        return create_pipeline(sorter, sorter->pipeline_cache, variant->pipeline_layout, name, merge_constants, 7u,
                               pipeline);
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
        return create_kernel_pipeline(sorter, variant->pipeline_layout,
                                      tuning->merge_direct                                ? "merge_direct"
                                      : tuning->merge_fused_split_by_subgroup && !wide ? "merge_lanes_pass"
                                                                                         : "merge_pass",
                                      form, wide, tuning->merge_register_log, merge_constants,
                                      tail ? 8u : window ? 7u : 5u, pipeline);
    }
    case PIPELINE_MERGE_DIRECT:
        if (tuning->merge_direct || tuning->merge_direct_max_keys == 0)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->merge_direct_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "merge_direct", form, wide,
                                      tuning->merge_register_log, merge_constants, 5, &variant->merge_direct_pipeline);
    case PIPELINE_MERGE_SPLIT:
        if (variant->merge_split_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "merge_split", form, wide, 1, merge_constants,
                                      5, &variant->merge_split_pipeline);
    case PIPELINE_MERGE_SPLIT_BINARY:
        if (variant->merge_split_binary_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        merge_constants[3] = 1u;  /* one probe a round */
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "merge_split", form, wide, 1, merge_constants,
                                      5, &variant->merge_split_binary_pipeline);
    case PIPELINE_MERGE_SPLIT_GUIDED:
        if (variant->merge_split_guided_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        merge_constants[0] = tuning->merge_split_workgroup_size;
        merge_constants[4] = 1u;  /* SPLIT_GUIDED */
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "merge_split", form, wide, 1, merge_constants,
                                      5, &variant->merge_split_guided_pipeline);
    case PIPELINE_PARTITION: {
        /* Both of the partition's pipelines. */
        if (wide || tuning->partition_max_splitters == 0)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        uint32_t partition_constants[4] = {tuning->partition_workgroup_size, tuning->partition_max_splitters,
                                           2u * (tuning->partition_max_splitters + 1u),  /* the lookup table's cells */
                                           tuning->partition_scatter_keys};
        VkResult result = VK_SUCCESS;
        if (variant->partition_pipeline == VK_NULL_HANDLE)
            result = create_kernel_pipeline(sorter, variant->pipeline_layout,
                                            tuning->partition_scan_by_subgroup ? "partition_lanes_pass" : "partition_pass",
                                            form, false, 1, partition_constants, 4, &variant->partition_pipeline);
        /* Half tiles (scatter_tile_for) with each staged key's place beside it. */
        if (result == VK_SUCCESS && partition_halves_tiles(tuning) &&
            variant->partition_half_scatter_pipeline == VK_NULL_HANDLE) {
            partition_constants[3] = tuning->partition_scatter_keys / 2u;
            /* Built for the keys that stage no places on whole tiles alone. */
            result = create_kernel_pipeline(
                sorter, variant->pipeline_layout,
                tuning->partition_scan_by_subgroup ? "partition_lanes_stored_pass" : "partition_stored_pass", form, false,
                1, partition_constants, 4, &variant->partition_half_scatter_pipeline);
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
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "merge_split", form, false, 1,
                                      merge_constants, 7, &variant->window_split_pipeline[steps != 0]);
    case PIPELINE_TRANSPOSE: {
        if (wide)
            return VK_ERROR_FEATURE_NOT_PRESENT;
        if (variant->transpose_pipeline != VK_NULL_HANDLE)
            return VK_SUCCESS;
        uint32_t transpose_constants[2] = {tuning->transpose_workgroup_size, tuning->transpose_block_log};
        return create_kernel_pipeline(sorter, variant->pipeline_layout, "transpose_pass", form, false, 1,
                                      transpose_constants, 2, &variant->transpose_pipeline);
    }
    }
    return VK_ERROR_FEATURE_NOT_PRESENT;
}

/* Every pipeline of a variant; the device-address ones are the merge path's. */
VkResult sorter_create_variant_pipelines(bitonic_vulkan_sorter *sorter, sorter_variant *variant)
{
    /* The network's tile kernel: on the wide path no tile pass takes it. */
    VkResult result = variant->wide ? VK_SUCCESS : sorter_ensure_pipeline(sorter, variant, PIPELINE_TILE, 0);
    if (result == VK_SUCCESS && variant->tuning.tile_merge_sort)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_TILE_SORT, 0);
    if (result == VK_SUCCESS && variant->tuning.tile_merge_sort && variant->tuning.short_tile_log != 0 &&
        !variant->wide)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_SHORT_TILE_SORT, 0);
    /* The same two placing a tail (steps 1). */
    bool tails = variant->tuning.tile_merge_sort && variant->tuning.tile_tail_log != 0 && !variant->wide;
    if (result == VK_SUCCESS && tails)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_TILE_SORT, 1);
    if (result == VK_SUCCESS && tails && variant->tuning.short_tile_log != 0)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_SHORT_TILE_SORT, 1);
    for (uint32_t steps = 1; result == VK_SUCCESS && !variant->wide && steps <= variant->tuning.max_global_steps;
         ++steps)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_GLOBAL, steps);
    if (result == VK_SUCCESS)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE, 0);
    if (result == VK_SUCCESS && !variant->tuning.merge_direct && variant->tuning.merge_direct_max_keys != 0)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE_DIRECT, 0);
    if (result == VK_SUCCESS && !variant->tuning.merge_direct && !variant->wide)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE_TAIL, 0);
    if (result == VK_SUCCESS)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT, 0);
    if (result == VK_SUCCESS)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT_BINARY, 0);
    if (result == VK_SUCCESS && variant->tuning.merge_split_guided_min_chunks != UINT32_MAX)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_MERGE_SPLIT_GUIDED, 0);
    if (result == VK_SUCCESS && !variant->wide)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_TRANSPOSE, 0);
    bool partitions = !variant->wide && variant->tuning.partition_min_keys != UINT64_MAX &&
                      variant->tuning.partition_max_splitters != 0 && !variant->tuning.merge_direct;
    if (result == VK_SUCCESS && partitions)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_PARTITION, 0);
    for (uint32_t w = 0; w < NESTED_WINDOW_LOGS; ++w)
        if (result == VK_SUCCESS && partitions && variant->tuning.tile_merge_sort &&
            variant->tuning.partition_nested_tile_log + w < variant->tuning.tile_log)
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_NESTED_TILE_SORT, w);
    for (uint32_t three_pieces = 0; three_pieces < 2u; ++three_pieces) {
        if (result == VK_SUCCESS && partitions)
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_WINDOW_MERGE, three_pieces);
        if (result == VK_SUCCESS && partitions)
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_WINDOW_SPLIT, three_pieces);
    }
    return result;
}

VkResult sorter_create_search_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineCache cache)
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
VkResult sorter_ensure_search_pipeline(bitonic_vulkan_sorter *sorter, bool key64)
{
    VkPipeline *pipeline = key64 ? &sorter->search_pipeline64 : &sorter->search_pipeline;
    if (*pipeline != VK_NULL_HANDLE)
        return VK_SUCCESS;
    uint32_t workgroup = SEARCH_WORKGROUP < sorter->limits.max_workgroup_invocations
                             ? SEARCH_WORKGROUP
                             : sorter->limits.max_workgroup_invocations;
    return create_pipeline(sorter, sorter->pipeline_cache, sorter->search_pipeline_layout,
                           key64 ? "search_k64" : "search", &workgroup, 1, pipeline);
}

/* Builds the pipelines a planned sort binds that are not built yet (a lazy
 * sorter), before anything is recorded. */
VkResult sorter_ensure_plan_pipelines(bitonic_vulkan_sorter *sorter, const sort_plan *plan)
{
    sorter_variant *variant = &sorter->variants[plan->variant_number];
    VkResult result = plan->partition ? sorter_ensure_pipeline(sorter, variant, PIPELINE_PARTITION, 0) : VK_SUCCESS;
    /* Packed pairs: the passes are KEYS64's, but for the window merge. */
    if (plan->packed_pairs) {
        if (result == VK_SUCCESS)
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_WINDOW_UNPACK,
                                            plan->window_three_pieces ? 1u : 0u);
        variant = &sorter->variants[KEYS64];
    }
    if (result == VK_SUCCESS && plan->partition)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_WINDOW_MERGE, plan->window_three_pieces ? 1u : 0u);
    if (result == VK_SUCCESS && plan->partition)
        result = sorter_ensure_pipeline(sorter, variant, PIPELINE_WINDOW_SPLIT, plan->window_three_pieces ? 1u : 0u);
    for (uint32_t p = 0; p < plan->pass_count && result == VK_SUCCESS; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        if (pass->kind == BITONIC_PASS_TILE) {
            result = sorter_ensure_pipeline(sorter, variant,
                                            plan->nested_tile                             ? PIPELINE_NESTED_TILE_SORT
                                            : plan->short_tile                            ? PIPELINE_SHORT_TILE_SORT
                                            : sorter_sorts_tile_by_merging(variant, pass) ? PIPELINE_TILE_SORT
                                                                                          : PIPELINE_TILE,
                                            plan->nested_tile ? NESTED_WINDOW_STEP(plan, &variant->tuning)
                                            : pass->tile_tail ? 1u
                                                              : 0u);
        } else if (pass->kind == BITONIC_PASS_MERGE) {
            result = sorter_ensure_pipeline(sorter, variant, sorter_merge_pipeline_kind(variant, plan, pass), 0);
            if (result == VK_SUCCESS && plan->split_pass)
                result = sorter_ensure_pipeline(sorter, variant,
                                                plan->split_search == SPLIT_SEARCH_GUIDED ? PIPELINE_MERGE_SPLIT_GUIDED
                                                : plan->split_search == SPLIT_SEARCH_BINARY
                                                    ? PIPELINE_MERGE_SPLIT_BINARY
                                                    : PIPELINE_MERGE_SPLIT,
                                                0);
        } else if (pass->kind == BITONIC_PASS_TRANSPOSE) {
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_TRANSPOSE, 0);
        } else {
            result = sorter_ensure_pipeline(sorter, variant, PIPELINE_GLOBAL, pass->step_count);
        }
    }
    return result;
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
        for (uint32_t w = 0; w < NESTED_WINDOW_LOGS; ++w) {
            snprintf(name, sizeof name, "tile merge sort, nested partition's %s%s (%u keys, %u keys/thread)",
                     w == 0 ? "tile" : "window", kind, 1u << (variant->tuning.partition_nested_tile_log + w),
                     1u << variant->tuning.tile_sort_register_log);
            report_pipeline(sorter, variant->nested_tile_sort_pipelines[w], name, text, capacity, &used);
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
