/* gpu.h: the app's own Vulkan instance and device (the sort is recorded onto
 * this device, into the app's command buffers), device selection like the
 * library's, buffers, compute pipelines with pushed descriptors, and the
 * validation-message counter the tests rely on. */
#ifndef BOIDS_GPU_H
#define BOIDS_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

typedef struct gpu_desc {
    /* NULL or "": the first discrete GPU, then integrated, virtual, then any
     * device including CPU drivers (lavapipe). Otherwise a case-insensitive
     * substring of the device name. */
    const char *device_name;
    bool validation;                   /* Khronos layer with synchronisation validation */
    const char *const *instance_extensions;  /* extra ones, e.g. from GLFW */
    uint32_t instance_extension_count;
    bool swapchain;                    /* enable VK_KHR_swapchain on the device */
    /* When set, only queue families for which this returns true are used (presentation). */
    bool (*queue_family_ok)(VkInstance instance, VkPhysicalDevice physical_device, uint32_t family, void *user);
    void *queue_family_user;
} gpu_desc;

typedef struct gpu {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;             /* graphics + compute */
    uint32_t timestamp_valid_bits;
    VkCommandPool command_pool;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t subgroup_size;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
    uint64_t validation_messages;      /* counted by the messenger, printed (the first 20) */
} gpu;

/* Prints what went wrong and returns false on failure (g is then safe to destroy). */
bool gpu_create(const gpu_desc *desc, gpu *g);
void gpu_destroy(gpu *g);

/* Prints "<what>: <VkResult>" and returns false when result is not VK_SUCCESS. */
bool gpu_check(VkResult result, const char *what);

typedef struct gpu_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;                      /* non-NULL for host-visible buffers */
} gpu_buffer;

/* Device-local when host_visible is false; host-visible, coherent (cached when
 * the device offers it, for fast read-back) when true. */
bool gpu_buffer_create(gpu *g, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible, gpu_buffer *out);
void gpu_buffer_destroy(gpu *g, gpu_buffer *b);

/* A memory type index with the wanted properties among allowed_types, or UINT32_MAX. */
uint32_t gpu_memory_type(const gpu *g, uint32_t allowed_types, VkMemoryPropertyFlags wanted);

/* One-off command buffer: begin, let the caller record, submit and wait. */
bool gpu_begin_one_shot(gpu *g, VkCommandBuffer *out);
bool gpu_end_one_shot(gpu *g, VkCommandBuffer commands);

/* Copies size bytes from host memory into a (device-local) buffer through a staging buffer. */
bool gpu_upload(gpu *g, const void *data, VkDeviceSize size, gpu_buffer *destination);
/* Copies size bytes of a buffer to host memory. */
bool gpu_download(gpu *g, gpu_buffer *source, VkDeviceSize size, void *data);

/* A compute kernel: a pipeline whose bindings are all storage buffers (pushed),
 * with the flock push constants and the workgroup size as specialisation constant 0. */
typedef struct gpu_kernel {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    uint32_t binding_count;
    uint32_t workgroup_size;
} gpu_kernel;

bool gpu_kernel_create(gpu *g, const uint32_t *code, size_t code_size, uint32_t binding_count,
                       uint32_t push_constant_size, uint32_t workgroup_size, gpu_kernel *out);
void gpu_kernel_destroy(gpu *g, gpu_kernel *k);

/* Binds the kernel, pushes its buffers (whole buffers, in binding order) and the
 * push constants, and dispatches enough workgroups for `invocations`, split into
 * rows when one dimension's group limit (max_groups_x) is too small. */
void gpu_kernel_dispatch(gpu *g, VkCommandBuffer commands, const gpu_kernel *k, const VkBuffer *buffers,
                         const void *push_constants, uint32_t push_constant_size, uint64_t invocations,
                         uint32_t max_groups_x);

/* The groups a dispatch of `invocations` needs, as x * y with x <= max_groups_x.
 * Returns false when even the y dimension cannot hold them. */
bool gpu_split_groups(const gpu *g, uint64_t invocations, uint32_t workgroup_size, uint32_t max_groups_x,
                      uint32_t *out_x, uint32_t *out_y);

/* A compute-to-compute (and transfer) memory dependency: everything written
 * before is visible to compute shaders and transfers after. */
void gpu_compute_barrier(VkCommandBuffer commands);

#endif /* BOIDS_GPU_H */
