/* vk_transfer.c: host arrays imported as Vulkan buffers (vk_transfer.h).
 *
 * Why: the host sort used to copy the keys into a staging buffer on the CPU,
 * let the GPU copy them to the device, and copy them back the same way. At
 * 2^24 keys those two CPU copies took 27 ms on the H100 machine against 2 ms
 * of sorting. Imported, the array is read and written by the GPU's copy
 * engine over the bus, and the CPU copies only the ends that are not aligned
 * to minImportedHostPointerAlignment (a few KiB at most). */
#define _POSIX_C_SOURCE 200809L
#include "vk_transfer.h"

#include "vk_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* A staged array is copied by several threads: one core moves a few GB/s,
 * which made the staging copies of 2^24 keys cost 27 ms on the H100 machine. */
#define COPY_BYTES_PER_THREAD ((size_t)4 << 20)
#define MAX_COPY_THREADS 16

typedef struct copy_job {
    unsigned char *to;
    const unsigned char *from;
    size_t bytes;
} copy_job;

static void *copy_run(void *argument)
{
    copy_job *job = argument;
    memcpy(job->to, job->from, job->bytes);
    return NULL;
}

static void parallel_copy(void *to, const void *from, size_t bytes)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = bytes / COPY_BYTES_PER_THREAD;
    if (cores > 0 && threads > (size_t)cores)
        threads = (size_t)cores;
    if (threads > MAX_COPY_THREADS)
        threads = MAX_COPY_THREADS;
    if (threads < 2) {
        memcpy(to, from, bytes);
        return;
    }
    copy_job jobs[MAX_COPY_THREADS];
    pthread_t handles[MAX_COPY_THREADS];
    bool started[MAX_COPY_THREADS] = {false};
    size_t slice = (bytes / threads + 63u) & ~(size_t)63u;  /* cache-line slices */
    for (size_t t = 0; t < threads; ++t) {
        size_t begin = t * slice < bytes ? t * slice : bytes;
        size_t end = begin + slice < bytes && t + 1 < threads ? begin + slice : bytes;
        jobs[t] = (copy_job){(unsigned char *)to + begin, (const unsigned char *)from + begin, end - begin};
        if (t > 0)
            started[t] = pthread_create(&handles[t], NULL, copy_run, &jobs[t]) == 0;
    }
    copy_run(&jobs[0]);
    for (size_t t = 1; t < threads; ++t) {
        if (started[t])
            pthread_join(handles[t], NULL);
        else
            copy_run(&jobs[t]);  /* no thread to be had: the copy still happens */
    }
}

bool bitonic_vk_import_supported(VkPhysicalDevice physical_device, VkDeviceSize *out_alignment)
{
    if (!bitonic_vk_has_device_extension(physical_device, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME))
        return false;
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 properties = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &host};
    vkGetPhysicalDeviceProperties2(physical_device, &properties);
    *out_alignment = host.minImportedHostPointerAlignment;
    /* The alignment is a power of two by the spec; anything else is not trusted. */
    return *out_alignment > 0 && (*out_alignment & (*out_alignment - 1u)) == 0;
}

void bitonic_vk_importer_init(VkDevice device, const VkAllocationCallbacks *allocator,
                              VkPhysicalDevice physical_device, bool extension_enabled, bitonic_vk_importer *out)
{
    memset(out, 0, sizeof *out);
    out->device = device;
    out->allocator = allocator;
    if (!extension_enabled || !bitonic_vk_import_supported(physical_device, &out->alignment))
        return;
    out->get_pointer_properties =
        (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(device, "vkGetMemoryHostPointerPropertiesEXT");
    vkGetPhysicalDeviceMemoryProperties(physical_device, &out->memory);
    out->enabled = out->get_pointer_properties != NULL;
}

/* A memory type allowed by both masks that the host sees coherently: the
 * caller reads the result through its own pointer, with no mapping to
 * invalidate. */
static bool pick_memory_type(const bitonic_vk_importer *importer, uint32_t type_bits, uint32_t *out_type)
{
    const VkMemoryPropertyFlags wanted = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < importer->memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (importer->memory.memoryTypes[i].propertyFlags & wanted) == wanted) {
            *out_type = i;
            return true;
        }
    return false;
}

bool bitonic_vk_host_span_import(const bitonic_vk_importer *importer, void *pointer, size_t bytes,
                                 size_t min_interior_bytes, bitonic_vk_host_span *out)
{
    memset(out, 0, sizeof *out);
    out->total_bytes = bytes;
    if (!importer->enabled || !pointer || bytes == 0)
        return false;
    uintptr_t alignment = (uintptr_t)importer->alignment, address = (uintptr_t)pointer;
    uintptr_t first = (address + alignment - 1u) & ~(alignment - 1u);
    uintptr_t last = (address + bytes) & ~(alignment - 1u);
    if (last <= first || last - first < min_interior_bytes)
        return false;
    size_t interior = (size_t)(last - first);
    VkExternalMemoryHandleTypeFlagBits handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkMemoryHostPointerPropertiesEXT pointer_properties = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    if (importer->get_pointer_properties(importer->device, handle_type, (const void *)first, &pointer_properties) !=
        VK_SUCCESS)
        return false;
    VkExternalMemoryBufferCreateInfo external = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                 .handleTypes = (VkExternalMemoryHandleTypeFlags)handle_type};
    VkBufferCreateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &external,
                                      .size = interior,
                                      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (vkCreateBuffer(importer->device, &buffer_info, importer->allocator, &out->imported) != VK_SUCCESS) {
        out->imported = VK_NULL_HANDLE;
        return false;
    }
    VkMemoryRequirements requirements;
    vkGetBufferMemoryRequirements(importer->device, out->imported, &requirements);
    uint32_t type;
    VkImportMemoryHostPointerInfoEXT import = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
                                               .handleType = handle_type, .pHostPointer = (void *)first};
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &import,
                                     .allocationSize = interior};
    bool ok = requirements.size <= interior && first % requirements.alignment == 0 &&
              pick_memory_type(importer, requirements.memoryTypeBits & pointer_properties.memoryTypeBits, &type);
    if (ok) {
        allocate.memoryTypeIndex = type;
        ok = vkAllocateMemory(importer->device, &allocate, importer->allocator, &out->memory) == VK_SUCCESS;
        if (!ok)
            out->memory = VK_NULL_HANDLE;
    }
    if (ok)
        ok = vkBindBufferMemory(importer->device, out->imported, out->memory, 0) == VK_SUCCESS;
    if (!ok) {
        bitonic_vk_host_span_release(importer, out);
        out->total_bytes = bytes;
        return false;
    }
    out->head_bytes = (size_t)(first - address);
    out->interior_bytes = interior;
    return true;
}

size_t bitonic_vk_host_span_staging_bytes(const bitonic_vk_host_span *span)
{
    return span->imported == VK_NULL_HANDLE ? span->total_bytes : span->total_bytes - span->interior_bytes;
}

/* A copy between the staging buffer (at staging_at) and the device buffer (at
 * device_at), the way to_device says. */
static VkBufferCopy end_copy(VkDeviceSize staging_at, VkDeviceSize device_at, VkDeviceSize size, bool to_device)
{
    return to_device ? (VkBufferCopy){staging_at, device_at, size} : (VkBufferCopy){device_at, staging_at, size};
}

void bitonic_vk_host_span_record_copy(VkCommandBuffer command_buffer, const bitonic_vk_host_span *span,
                                      VkBuffer staging, VkBuffer device, VkDeviceSize device_offset, bool to_device)
{
    VkDeviceSize tail_at = span->head_bytes + span->interior_bytes;
    VkBufferCopy ends[2];
    uint32_t end_count = 0;
    if (span->imported == VK_NULL_HANDLE) {
        ends[end_count++] = end_copy(0, device_offset, span->total_bytes, to_device);
    } else {
        if (span->head_bytes > 0)
            ends[end_count++] = end_copy(0, device_offset, span->head_bytes, to_device);
        if (span->total_bytes > tail_at)
            ends[end_count++] =
                end_copy(span->head_bytes, device_offset + tail_at, span->total_bytes - tail_at, to_device);
        VkBufferCopy interior = {to_device ? span->imported_offset : device_offset + span->head_bytes,
                                 to_device ? device_offset + span->head_bytes : span->imported_offset,
                                 span->interior_bytes};
        if (to_device)
            vkCmdCopyBuffer(command_buffer, span->imported, device, 1, &interior);
        else
            vkCmdCopyBuffer(command_buffer, device, span->imported, 1, &interior);
    }
    if (end_count > 0) {
        if (to_device)
            vkCmdCopyBuffer(command_buffer, staging, device, end_count, ends);
        else
            vkCmdCopyBuffer(command_buffer, device, staging, end_count, ends);
    }
}

void bitonic_vk_host_span_stage_ends(const bitonic_vk_host_span *span, void *host, void *staging_mapped,
                                     bool to_staging)
{
    unsigned char *h = host, *s = staging_mapped;
    size_t tail_at = span->head_bytes + span->interior_bytes;
    if (span->imported == VK_NULL_HANDLE) {
        if (to_staging)
            parallel_copy(s, h, span->total_bytes);
        else
            parallel_copy(h, s, span->total_bytes);
        return;
    }
    /* An array whose both ends are aligned has no staging buffer at all. */
    size_t tail = span->total_bytes - tail_at;
    if (span->head_bytes > 0) {
        if (to_staging)
            memcpy(s, h, span->head_bytes);
        else
            memcpy(h, s, span->head_bytes);
    }
    if (tail > 0) {
        if (to_staging)
            memcpy(s + span->head_bytes, h + tail_at, tail);
        else
            memcpy(h + tail_at, s + span->head_bytes, tail);
    }
}

void bitonic_vk_host_span_release(const bitonic_vk_importer *importer, bitonic_vk_host_span *span)
{
    if (span->borrowed) {
        memset(span, 0, sizeof *span);
        return;
    }
    if (span->imported != VK_NULL_HANDLE)
        vkDestroyBuffer(importer->device, span->imported, importer->allocator);
    if (span->memory != VK_NULL_HANDLE)
        vkFreeMemory(importer->device, span->memory, importer->allocator);
    memset(span, 0, sizeof *span);
}
