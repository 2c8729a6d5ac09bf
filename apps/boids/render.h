/* render.h: draws the flock with a Vulkan graphics pipeline into an offscreen
 * image (sky, a fogged floor, soft shadows, then lit darts pointing along each
 * boid's heading, depth-tested, multisampled where the device allows), which
 * is then read back for PNG/video or blitted to a window's swapchain. */
#ifndef BOIDS_RENDER_H
#define BOIDS_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "flock.h"
#include "gpu.h"

typedef struct renderer {
    gpu *g;
    uint32_t width, height;
    VkSampleCountFlagBits samples;
    VkFormat depth_format;
    /* The picture (single-sampled, readable); with MSAA also the multisampled
     * colour it is resolved from. */
    VkImage picture, multisampled_colour, depth;
    VkDeviceMemory picture_memory, multisampled_memory, depth_memory;
    VkImageView picture_view, multisampled_view, depth_view;
    VkRenderPass render_pass;
    VkFramebuffer framebuffer;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline sky, floor, shadows, boids;
    gpu_buffer readback;             /* width * height RGBA8, host-visible */
    float camera_focus[3];           /* follows the flock's target smoothly */
    bool focus_started;
} renderer;

bool renderer_create(gpu *g, uint32_t width, uint32_t height, renderer *out);
void renderer_destroy(renderer *r);

/* Records the frame of the flock's current state: a barrier from the step's
 * compute writes to the vertex shader, the render pass, and a barrier that keeps
 * the next steps' writes from overtaking the vertex shader's reads. Leaves the
 * picture in TRANSFER_SRC_OPTIMAL. seconds_per_frame paces the camera. */
void renderer_record_frame(renderer *r, VkCommandBuffer commands, const flock *f, float seconds_per_frame);

/* Records a copy of the picture into the readback buffer, visible to the host
 * once the submission has finished. */
void renderer_record_readback(renderer *r, VkCommandBuffer commands);

#endif /* BOIDS_RENDER_H */
