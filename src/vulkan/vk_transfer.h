/* vk_transfer.h: moving a host sort's keys between the caller's memory and the
 * device without copying them through a staging buffer on the CPU. Where the
 * driver offers VK_EXT_external_memory_host, the caller's array itself becomes
 * a Vulkan buffer (its aligned interior; the ragged ends, shorter than the
 * import alignment, go through the staging buffer) and the GPU copies from and
 * to it directly. */
#ifndef BITONIC_VK_TRANSFER_H
#define BITONIC_VK_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>

#include <vulkan/vulkan.h>

/* What importing needs of a device; enabled false when the extension is not
 * there (then every import says no and the caller stages). */
typedef struct bitonic_vk_importer {
    bool enabled;
    VkDevice device;
    const VkAllocationCallbacks *allocator;  /* the context's, for the imported buffers and memory */
    VkDeviceSize alignment;          /* minImportedHostPointerAlignment */
    PFN_vkGetMemoryHostPointerPropertiesEXT get_pointer_properties;
    VkPhysicalDeviceMemoryProperties memory;
} bitonic_vk_importer;

/* Whether the physical device can import host memory; fills the alignment. */
bool bitonic_vk_import_supported(VkPhysicalDevice physical_device, VkDeviceSize *out_alignment);

/* Fills importer for a device created with VK_EXT_external_memory_host enabled
 * (enabled is false otherwise). */
void bitonic_vk_importer_init(VkDevice device, const VkAllocationCallbacks *allocator,
                              VkPhysicalDevice physical_device, bool extension_enabled, bitonic_vk_importer *out);

/* One host array seen by the device: bytes [0, head) and [head + interior,
 * total) through the staging buffer, the interior through the imported buffer. */
typedef struct bitonic_vk_host_span {
    VkBuffer imported;               /* VK_NULL_HANDLE: not imported, stage it all */
    VkDeviceMemory memory;
    size_t head_bytes, interior_bytes, total_bytes;
    /* The interior starts this far into imported: not 0 when the array lies
     * inside a block of bitonic_host_alloc, whose buffer the span borrows (and
     * does not release). */
    VkDeviceSize imported_offset;
    bool borrowed;
} bitonic_vk_host_span;

/* Imports the aligned interior of [pointer, pointer + bytes). False (and a
 * zeroed span) when the device cannot, the interior is shorter than
 * min_interior_bytes (small arrays are cheaper to stage), or the driver
 * refuses this memory; the caller then stages the whole array. */
bool bitonic_vk_host_span_import(const bitonic_vk_importer *importer, void *pointer, size_t bytes,
                                 size_t min_interior_bytes, bitonic_vk_host_span *out);

/* Bytes of staging buffer the span needs: its two ends when imported (the
 * head at 0, the tail right after it), else the whole array. */
size_t bitonic_vk_host_span_staging_bytes(const bitonic_vk_host_span *span);

/* Records the copies of a span between the host side (imported interior plus
 * the staging buffer for the ends) and the device buffer; to_device picks the
 * direction. device_offset: where the array starts in the device buffer. */
void bitonic_vk_host_span_record_copy(VkCommandBuffer command_buffer, const bitonic_vk_host_span *span,
                                      VkBuffer staging, VkBuffer device, VkDeviceSize device_offset, bool to_device);

/* The ends, between the caller's array and the staging buffer's mapping. */
void bitonic_vk_host_span_stage_ends(const bitonic_vk_host_span *span, void *host, void *staging_mapped,
                                     bool to_staging);

/* With the importer the span was imported by (its device and callbacks). */
void bitonic_vk_host_span_release(const bitonic_vk_importer *importer, bitonic_vk_host_span *span);

#endif /* BITONIC_VK_TRANSFER_H */
