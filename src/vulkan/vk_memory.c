/* vk_memory.c: the Vulkan host layer's memory: buffers bound to the memory
 * type that suits them, device arrays with host-visible staging twins, blocks
 * of bitonic_host_alloc that the GPU's copies reach directly, resident buffers
 * with their uploads and downloads, and the scratch that merge passes use. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "vk_host_internal.h"

/* The memory type for a buffer: it must have every wanted flag. Among those,
 * prefer types without flags that were not asked for (a DEVICE_LOCAL type that
 * is also HOST_VISIBLE sits in a small BAR window on many GPUs) and then the
 * largest heap, so keys live in plain device memory. */
static bool find_memory_type(const bitonic_vk_context *vk, uint32_t type_bits, VkMemoryPropertyFlags wanted,
                             uint32_t *out_type)
{
    const VkMemoryPropertyFlags extra_flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    bool found = false;
    uint32_t best_extra = 0;
    VkDeviceSize best_heap = 0;
    for (uint32_t i = 0; i < vk->memory.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags flags = vk->memory.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (flags & wanted) != wanted)
            continue;
        uint32_t extra = (uint32_t)__builtin_popcount(flags & extra_flags & ~wanted);
        VkDeviceSize heap = vk->memory.memoryHeaps[vk->memory.memoryTypes[i].heapIndex].size;
        if (!found || extra < best_extra || (extra == best_extra && heap > best_heap)) {
            found = true;
            best_extra = extra;
            best_heap = heap;
            *out_type = i;
        }
    }
    return found;
}

bitonic_status bitonic_vk_allocate_buffer(bitonic_vk_context *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                                          VkMemoryPropertyFlags wanted, VkMemoryPropertyFlags fallback,
                                          VkBuffer *out_buffer, VkDeviceMemory *out_memory)
{
    /* Storage buffers can be reached by device address where the device has
     * them: a sort past one binding needs it of keys, values and scratch. */
    bool addressed = vk->device_addresses && (usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (addressed)
        usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
                                      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VK_TRY_MAKE(vk, vkCreateBuffer(vk->device, &buffer_info, vk->allocator, out_buffer), *out_buffer);
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(vk->device, *out_buffer, &requirements);
    uint32_t type;
    if (!find_memory_type(vk, requirements.memoryTypeBits, wanted, &type) &&
        !find_memory_type(vk, requirements.memoryTypeBits, fallback, &type))
        return BITONIC_ERROR_UNSUPPORTED;
    VkMemoryAllocateFlagsInfo flags_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                            .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                          .pNext = addressed ? &flags_info : NULL,
                                          .allocationSize = requirements.size, .memoryTypeIndex = type};
    VK_TRY_MAKE(vk, vkAllocateMemory(vk->device, &allocate_info, vk->allocator, out_memory), *out_memory);
    VK_TRY(vk, vkBindBufferMemory(vk->device, *out_buffer, *out_memory, 0));
    return BITONIC_SUCCESS;
}

void bitonic_vk_destroy_array(bitonic_vk_context *vk, device_array *array)
{
    vkDestroyBuffer(vk->device, array->device_buffer, vk->allocator);
    vkFreeMemory(vk->device, array->device_memory, vk->allocator);
    vkDestroyBuffer(vk->device, array->staging_buffer, vk->allocator);
    vkFreeMemory(vk->device, array->staging_memory, vk->allocator);  /* unmaps too */
    *array = (device_array){0};
}

bitonic_status bitonic_vk_create_array(bitonic_vk_context *vk, size_t capacity, device_array *array)
{
    VkDeviceSize size = (VkDeviceSize)capacity * sizeof(uint32_t);
    bitonic_status status = bitonic_vk_allocate_buffer(
        vk, size,
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &array->device_buffer, &array->device_memory);
    if (status != BITONIC_SUCCESS)
        bitonic_vk_destroy_array(vk, array);
    return status;
}

/* The staging buffer, made or grown to at least bytes (every submit waits, so
 * no pending work uses the one it replaces). */
bitonic_status bitonic_vk_ensure_staging(bitonic_vk_context *vk, device_array *array, VkDeviceSize bytes)
{
    if (bytes <= array->staging_bytes)
        return BITONIC_SUCCESS;
    vkDestroyBuffer(vk->device, array->staging_buffer, vk->allocator);
    vkFreeMemory(vk->device, array->staging_memory, vk->allocator);
    array->staging_buffer = VK_NULL_HANDLE;
    array->staging_memory = VK_NULL_HANDLE;
    array->staging = NULL;
    array->staging_bytes = 0;
    bitonic_status status =
        bitonic_vk_allocate_buffer(vk, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                       VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                   &array->staging_buffer, &array->staging_memory);
    if (status == BITONIC_SUCCESS) {
        VkResult result = vkMapMemory(vk->device, array->staging_memory, 0, VK_WHOLE_SIZE, 0, (void **)&array->staging);
        if (result != VK_SUCCESS)
            status = fail(vk, result);
    }
    if (status != BITONIC_SUCCESS) {
        vkDestroyBuffer(vk->device, array->staging_buffer, vk->allocator);
        vkFreeMemory(vk->device, array->staging_memory, vk->allocator);
        array->staging_buffer = VK_NULL_HANDLE;
        array->staging_memory = VK_NULL_HANDLE;
        array->staging = NULL;
        return status;
    }
    array->staging_bytes = bytes;
    return BITONIC_SUCCESS;
}

/* A block the GPU's copies reach directly; ordinary memory where the device
 * cannot give one (or there is no device), which bitonic_vk_host_free knows
 * by its absence from the list. */
bitonic_status bitonic_vk_host_alloc(bitonic_vk_context *vk, size_t bytes, void **out_memory)
{
    size_t rounded = bytes > SIZE_MAX - 63u ? 0 : (bytes + 63u) & ~(size_t)63u;
    if (rounded == 0)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    if (bitonic_vk_ensure_device(vk) == BITONIC_SUCCESS &&
        (vk->pinned_count < vk->pinned_capacity || vk->pinned_capacity < SIZE_MAX / 2 / sizeof *vk->pinned)) {
        if (vk->pinned_count == vk->pinned_capacity) {
            size_t capacity = vk->pinned_capacity ? 2 * vk->pinned_capacity : 8;
            /* Moved by hand: the caller's allocator has no reallocate. */
            pinned_block *grown = bitonic_host_memory_alloc(&vk->host_memory, capacity * sizeof *grown);
            if (grown) {
                if (vk->pinned_count)
                    memcpy(grown, vk->pinned, vk->pinned_count * sizeof *grown);
                bitonic_host_memory_free(&vk->host_memory, vk->pinned);
                vk->pinned = grown;
                vk->pinned_capacity = capacity;
            }
        }
        pinned_block block = {.bytes = rounded};
        if (vk->pinned_count < vk->pinned_capacity &&
            bitonic_vk_allocate_buffer(vk, rounded, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                           VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                       &block.buffer, &block.memory) == BITONIC_SUCCESS &&
            vkMapMemory(vk->device, block.memory, 0, VK_WHOLE_SIZE, 0, (void **)&block.mapped) == VK_SUCCESS) {
            vk->pinned[vk->pinned_count++] = block;
            *out_memory = block.mapped;
            return BITONIC_SUCCESS;
        }
        vkDestroyBuffer(vk->device, block.buffer, vk->allocator);
        vkFreeMemory(vk->device, block.memory, vk->allocator);
    }
    void *memory = bitonic_host_memory_alloc_aligned(&vk->host_memory, rounded, 64);
    if (!memory)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    *out_memory = memory;
    return BITONIC_SUCCESS;
}

void bitonic_vk_host_free(bitonic_vk_context *vk, void *memory)
{
    for (size_t b = 0; b < vk->pinned_count; ++b) {
        if (vk->pinned[b].mapped == memory) {
            vkDestroyBuffer(vk->device, vk->pinned[b].buffer, vk->allocator);
            vkFreeMemory(vk->device, vk->pinned[b].memory, vk->allocator);  /* unmaps too */
            vk->pinned[b] = vk->pinned[--vk->pinned_count];
            return;
        }
    }
    bitonic_host_memory_free(&vk->host_memory, memory);
}

/* The span of an array inside a block of bitonic_host_alloc, borrowing the
 * block's buffer; false when the array is not inside one. */
bool bitonic_vk_pinned_span(const bitonic_vk_context *vk, const void *pointer, size_t bytes,
                            bitonic_vk_host_span *out)
{
    const unsigned char *p = pointer;
    for (size_t b = 0; b < vk->pinned_count; ++b) {
        const pinned_block *block = &vk->pinned[b];
        if (p >= block->mapped && bytes <= block->bytes && (size_t)(p - block->mapped) <= block->bytes - bytes) {
            *out = (bitonic_vk_host_span){.imported = block->buffer, .interior_bytes = bytes, .total_bytes = bytes,
                                          .imported_offset = (VkDeviceSize)(p - block->mapped), .borrowed = true};
            return true;
        }
    }
    return false;
}

void bitonic_vk_buffer_destroy(bitonic_vk_context *vk, bitonic_vk_buffer *buffer)
{
    if (!buffer)
        return;
    bitonic_vk_destroy_array(vk, &buffer->keys);
    bitonic_vk_destroy_array(vk, &buffer->values);
    bitonic_host_memory_free(&vk->host_memory, buffer);
}

bitonic_status bitonic_vk_buffer_create(bitonic_vk_context *vk, size_t capacity, bitonic_vk_buffer **out)
{
    *out = NULL;
    bitonic_status made = bitonic_vk_ensure_device(vk);
    if (made != BITONIC_SUCCESS)
        return made;
    bitonic_vulkan_sorter_info info;
    bitonic_vulkan_sorter_get_info(vk->sorter, &info);
    if (capacity > info.max_keys)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_vk_buffer *buffer = bitonic_host_memory_calloc(&vk->host_memory, 1, sizeof *buffer);
    if (!buffer)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    buffer->capacity = capacity;
    bitonic_status status = bitonic_vk_create_array(vk, capacity, &buffer->keys);
    if (status != BITONIC_SUCCESS) {
        bitonic_vk_buffer_destroy(vk, buffer);
        return status;
    }
    *out = buffer;
    return BITONIC_SUCCESS;
}

void bitonic_vk_record_upload(bitonic_vk_context *vk, const device_array *array, size_t count)
{
    VkBufferCopy region = {.size = (VkDeviceSize)count * sizeof(uint32_t)};
    vkCmdCopyBuffer(vk->command_buffer, array->staging_buffer, array->device_buffer, 1, &region);
}

void bitonic_vk_record_download(bitonic_vk_context *vk, const device_array *array, size_t count)
{
    VkBufferCopy region = {.size = (VkDeviceSize)count * sizeof(uint32_t)};
    vkCmdCopyBuffer(vk->command_buffer, array->device_buffer, array->staging_buffer, 1, &region);
}

void bitonic_vk_record_download_barrier(bitonic_vk_context *vk)
{
    record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

static bitonic_status upload_array(bitonic_vk_context *vk, device_array *array, const uint32_t *words, size_t count)
{
    bitonic_status status = bitonic_vk_ensure_staging(vk, array, (VkDeviceSize)count * sizeof(uint32_t));
    if (status != BITONIC_SUCCESS)
        return status;
    memcpy(array->staging, words, count * sizeof(uint32_t));
    status = bitonic_vk_begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    bitonic_vk_record_upload(vk, array, count);
    return bitonic_vk_submit_and_wait(vk);
}

static bitonic_status download_array(bitonic_vk_context *vk, device_array *array, uint32_t *words, size_t count)
{
    bitonic_status status = bitonic_vk_ensure_staging(vk, array, (VkDeviceSize)count * sizeof(uint32_t));
    if (status != BITONIC_SUCCESS)
        return status;
    status = bitonic_vk_begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    bitonic_vk_record_download(vk, array, count);
    bitonic_vk_record_download_barrier(vk);
    status = bitonic_vk_submit_and_wait(vk);
    if (status == BITONIC_SUCCESS)
        memcpy(words, array->staging, count * sizeof(uint32_t));
    return status;
}

bitonic_status bitonic_vk_ensure_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer)
{
    return buffer->values.device_buffer ? BITONIC_SUCCESS
                                        : bitonic_vk_create_array(vk, buffer->capacity, &buffer->values);
}

bitonic_status bitonic_vk_buffer_upload(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, const uint32_t *keys,
                                        size_t count)
{
    return upload_array(vk, &buffer->keys, keys, count);
}

bitonic_status bitonic_vk_buffer_download(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *keys,
                                          size_t count)
{
    return download_array(vk, &buffer->keys, keys, count);
}

bitonic_status bitonic_vk_buffer_upload_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer,
                                               const uint32_t *values, size_t count)
{
    bitonic_status status = bitonic_vk_ensure_values(vk, buffer);
    return status == BITONIC_SUCCESS ? upload_array(vk, &buffer->values, values, count) : status;
}

bitonic_status bitonic_vk_buffer_download_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *values,
                                                 size_t count)
{
    bitonic_status status = bitonic_vk_ensure_values(vk, buffer);
    return status == BITONIC_SUCCESS ? download_array(vk, &buffer->values, values, count) : status;
}

/* The merge scratch (bitonic_vk_attach_scratch below), if any. */
void bitonic_vk_release_scratch(bitonic_vk_context *vk)
{
    vkDestroyBuffer(vk->device, vk->scratch, vk->allocator);
    vkFreeMemory(vk->device, vk->scratch_memory, vk->allocator);
    vk->scratch = VK_NULL_HANDLE;
    vk->scratch_memory = VK_NULL_HANDLE;
    vk->scratch_bytes = 0;
}

/* Gives the sort the scratch it can use to merge, unless the context sorts
 * with the network alone. Scratch that cannot be had (device memory is short)
 * is not an error: the network sorts in place instead. Called before recording:
 * a grown scratch buffer replaces one no pending work uses (every submit waits). */
void bitonic_vk_attach_scratch(bitonic_vk_context *vk, bitonic_vulkan_sort_info *info)
{
    VkDeviceSize wanted = bitonic_vulkan_sort_scratch_bytes(vk->sorter, info);
    if (wanted == 0)
        return;
    if (wanted > vk->scratch_bytes) {
        bitonic_vk_release_scratch(vk);
        if (bitonic_vk_allocate_buffer(vk, wanted,
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                       &vk->scratch, &vk->scratch_memory) != BITONIC_SUCCESS) {
            bitonic_vk_release_scratch(vk);  /* a half-made buffer too */
            return;
        }
        vk->scratch_bytes = wanted;
    }
    info->scratch = vk->scratch;
}
