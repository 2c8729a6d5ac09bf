/* render.c: the offscreen renderer (see render.h): images and render pass,
 * four graphics pipelines sharing one layout (the state buffer is pushed as
 * a descriptor, the frame's camera and light as push constants), and the
 * camera that orbits slowly around the point the flock is chasing. */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids_shaders.h"

#define COLOUR_FORMAT VK_FORMAT_R8G8B8A8_UNORM

/* Mirrors FrameParams in shaders/render_common.glsl. */
typedef struct render_push {
    float view_projection[16];
    float camera_position[3];
    float fog_density;
    float light_direction[3];
    float boid_length;
    float floor_centre[3];
    float floor_extent;
    float fog_colour[3];
    float grid_spacing;
} render_push;
_Static_assert(sizeof(render_push) == 128, "render_push must match FrameParams in render_common.glsl");

/* --- small matrix helpers (column-major, Vulkan clip space) ------------- */

static void normalize3(float v[3])
{
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length > 0.0f)
        for (int i = 0; i < 3; ++i)
            v[i] /= length;
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void look_at(const float eye[3], const float centre[3], float out[16])
{
    float forward[3] = {centre[0] - eye[0], centre[1] - eye[1], centre[2] - eye[2]};
    normalize3(forward);
    float up[3] = {0.0f, 1.0f, 0.0f}, side[3], true_up[3];
    cross3(forward, up, side);
    normalize3(side);
    cross3(side, forward, true_up);
    float m[16] = {side[0], true_up[0], -forward[0], 0.0f, side[1], true_up[1], -forward[1], 0.0f,
                   side[2], true_up[2], -forward[2], 0.0f, -dot3(side, eye), -dot3(true_up, eye), dot3(forward, eye), 1.0f};
    memcpy(out, m, sizeof m);
}

/* Depth 0 at near, 1 at far; y flipped because Vulkan's clip y points down. */
static void perspective(float vertical_fov, float aspect, float near_plane, float far_plane, float out[16])
{
    float f = 1.0f / tanf(0.5f * vertical_fov);
    memset(out, 0, 16 * sizeof *out);
    out[0] = f / aspect;
    out[5] = -f;
    out[10] = far_plane / (near_plane - far_plane);
    out[11] = -1.0f;
    out[14] = near_plane * far_plane / (near_plane - far_plane);
}

static void multiply(const float a[16], const float b[16], float out[16])
{
    for (int column = 0; column < 4; ++column)
        for (int row = 0; row < 4; ++row) {
            float sum = 0.0f;
            for (int k = 0; k < 4; ++k)
                sum += a[k * 4 + row] * b[column * 4 + k];
            out[column * 4 + row] = sum;
        }
}

/* --- images, render pass, pipelines -------------------------------------- */

static bool create_image(gpu *g, uint32_t width, uint32_t height, VkFormat format, VkSampleCountFlagBits samples,
                         VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage *image, VkDeviceMemory *memory,
                         VkImageView *view)
{
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                              .format = format, .extent = {width, height, 1}, .mipLevels = 1, .arrayLayers = 1,
                              .samples = samples, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage,
                              .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    if (!gpu_check(vkCreateImage(g->device, &info, NULL, image), "vkCreateImage"))
        return false;
    VkMemoryRequirements requirements;
    vkGetImageMemoryRequirements(g->device, *image, &requirements);
    uint32_t type = gpu_memory_type(g, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
        type = gpu_memory_type(g, requirements.memoryTypeBits, 0);
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = requirements.size, .memoryTypeIndex = type};
    if (!gpu_check(vkAllocateMemory(g->device, &allocate, NULL, memory), "vkAllocateMemory (image)") ||
        !gpu_check(vkBindImageMemory(g->device, *image, *memory, 0), "vkBindImageMemory"))
        return false;
    VkImageViewCreateInfo view_info = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = *image,
                                       .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = format,
                                       .subresourceRange = {aspect, 0, 1, 0, 1}};
    return gpu_check(vkCreateImageView(g->device, &view_info, NULL, view), "vkCreateImageView");
}

static VkFormat choose_depth_format(const gpu *g)
{
    VkFormat candidates[] = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D16_UNORM};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i) {
        VkFormatProperties properties;
        vkGetPhysicalDeviceFormatProperties(g->physical_device, candidates[i], &properties);
        if (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
            return candidates[i];
    }
    return VK_FORMAT_UNDEFINED;
}

/* 4x multisampling when colour and depth both allow it: thin darts shimmer
 * badly without it. */
static VkSampleCountFlagBits choose_samples(const gpu *g)
{
    VkSampleCountFlags allowed = g->properties.limits.framebufferColorSampleCounts &
                                 g->properties.limits.framebufferDepthSampleCounts;
    return (allowed & VK_SAMPLE_COUNT_4_BIT) ? VK_SAMPLE_COUNT_4_BIT : VK_SAMPLE_COUNT_1_BIT;
}

static bool create_targets(renderer *r)
{
    gpu *g = r->g;
    bool multisampled = r->samples != VK_SAMPLE_COUNT_1_BIT;
    VkImageUsageFlags picture_usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    if (!create_image(g, r->width, r->height, COLOUR_FORMAT, VK_SAMPLE_COUNT_1_BIT, picture_usage,
                      VK_IMAGE_ASPECT_COLOR_BIT, &r->picture, &r->picture_memory, &r->picture_view))
        return false;
    if (multisampled &&
        !create_image(g, r->width, r->height, COLOUR_FORMAT, r->samples, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                      VK_IMAGE_ASPECT_COLOR_BIT, &r->multisampled_colour, &r->multisampled_memory,
                      &r->multisampled_view))
        return false;
    return create_image(g, r->width, r->height, r->depth_format, r->samples,
                        VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, &r->depth,
                        &r->depth_memory, &r->depth_view);
}

static bool create_render_pass(renderer *r)
{
    bool multisampled = r->samples != VK_SAMPLE_COUNT_1_BIT;
    VkAttachmentDescription picture = {
        .format = COLOUR_FORMAT, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = multisampled ? VK_ATTACHMENT_LOAD_OP_DONT_CARE : VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
    VkAttachmentDescription depth = {
        .format = r->depth_format, .samples = r->samples, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkAttachmentDescription multisampled_colour = {
        .format = COLOUR_FORMAT, .samples = r->samples, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentDescription attachments[3] = {picture, depth, multisampled_colour};
    VkAttachmentReference picture_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkAttachmentReference multisampled_ref = {2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
                                    .pColorAttachments = multisampled ? &multisampled_ref : &picture_ref,
                                    .pResolveAttachments = multisampled ? &picture_ref : NULL,
                                    .pDepthStencilAttachment = &depth_ref};
    /* In: the previous frame's copy out of the picture and its depth tests are
     * done before this frame writes them. Out: the picture is written before it
     * is copied or blitted. */
    VkSubpassDependency dependencies[2] = {
        {.srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                         VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
         .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT},
        {.srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT},
    };
    VkRenderPassCreateInfo info = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                   .attachmentCount = multisampled ? 3u : 2u, .pAttachments = attachments,
                                   .subpassCount = 1, .pSubpasses = &subpass, .dependencyCount = 2,
                                   .pDependencies = dependencies};
    if (!gpu_check(vkCreateRenderPass(r->g->device, &info, NULL, &r->render_pass), "vkCreateRenderPass"))
        return false;
    VkImageView views[3] = {r->picture_view, r->depth_view, r->multisampled_view};
    VkFramebufferCreateInfo framebuffer = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                           .renderPass = r->render_pass, .attachmentCount = info.attachmentCount,
                                           .pAttachments = views, .width = r->width, .height = r->height,
                                           .layers = 1};
    return gpu_check(vkCreateFramebuffer(r->g->device, &framebuffer, NULL, &r->framebuffer), "vkCreateFramebuffer");
}

static bool create_layout(renderer *r)
{
    VkDescriptorSetLayoutBinding state = {.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_VERTEX_BIT};
    VkDescriptorSetLayoutCreateInfo set_info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                                .bindingCount = 1, .pBindings = &state};
    if (!gpu_check(vkCreateDescriptorSetLayout(r->g->device, &set_info, NULL, &r->set_layout), "set layout"))
        return false;
    VkPushConstantRange range = {.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                                 .size = sizeof(render_push)};
    VkPipelineLayoutCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                       .pSetLayouts = &r->set_layout, .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &range};
    return gpu_check(vkCreatePipelineLayout(r->g->device, &info, NULL, &r->layout), "pipeline layout");
}

typedef struct pipeline_kind {
    const uint32_t *vertex_code;
    size_t vertex_size;
    const uint32_t *fragment_code;
    size_t fragment_size;
    bool depth_test, depth_write, blend, shadow;
} pipeline_kind;

static bool create_pipeline(renderer *r, const pipeline_kind *kind, VkPipeline *out)
{
    VkDevice device = r->g->device;
    VkShaderModule modules[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    const uint32_t *codes[2] = {kind->vertex_code, kind->fragment_code};
    size_t sizes[2] = {kind->vertex_size, kind->fragment_size};
    for (int i = 0; i < 2; ++i) {
        VkShaderModuleCreateInfo info = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizes[i],
                                         .pCode = codes[i]};
        if (!gpu_check(vkCreateShaderModule(device, &info, NULL, &modules[i]), "vkCreateShaderModule")) {
            if (i == 1)
                vkDestroyShaderModule(device, modules[0], NULL);
            return false;
        }
    }
    VkBool32 shadow = kind->shadow ? VK_TRUE : VK_FALSE;
    VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = sizeof shadow};
    VkSpecializationInfo specialization = {.mapEntryCount = 1, .pMapEntries = &entry, .dataSize = sizeof shadow,
                                           .pData = &shadow};
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = modules[0], .pName = "main", .pSpecializationInfo = &specialization},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = modules[1], .pName = "main", .pSpecializationInfo = &specialization},
    };
    VkPipelineVertexInputStateCreateInfo vertex_input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkViewport viewport = {0.0f, 0.0f, (float)r->width, (float)r->height, 0.0f, 1.0f};
    VkRect2D scissor = {{0, 0}, {r->width, r->height}};
    VkPipelineViewportStateCreateInfo viewport_state = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                                        .viewportCount = 1, .pViewports = &viewport,
                                                        .scissorCount = 1, .pScissors = &scissor};
    VkPipelineRasterizationStateCreateInfo raster = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, .polygonMode = VK_POLYGON_MODE_FILL,
        .cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo multisample = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO, .rasterizationSamples = r->samples};
    VkPipelineDepthStencilStateCreateInfo depth = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO, .depthTestEnable = kind->depth_test,
        .depthWriteEnable = kind->depth_write, .depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL};
    VkPipelineColorBlendAttachmentState blend = {
        .blendEnable = kind->blend, .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
        .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, .colorBlendOp = VK_BLEND_OP_ADD,
        .srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO, .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
        .alphaBlendOp = VK_BLEND_OP_ADD,
        .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                          VK_COLOR_COMPONENT_A_BIT};
    VkPipelineColorBlendStateCreateInfo blend_state = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                       .attachmentCount = 1, .pAttachments = &blend};
    VkGraphicsPipelineCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, .stageCount = 2, .pStages = stages,
        .pVertexInputState = &vertex_input, .pInputAssemblyState = &assembly, .pViewportState = &viewport_state,
        .pRasterizationState = &raster, .pMultisampleState = &multisample, .pDepthStencilState = &depth,
        .pColorBlendState = &blend_state, .layout = r->layout, .renderPass = r->render_pass, .subpass = 0};
    bool ok = gpu_check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, NULL, out),
                        "vkCreateGraphicsPipelines");
    vkDestroyShaderModule(device, modules[0], NULL);
    vkDestroyShaderModule(device, modules[1], NULL);
    return ok;
}

static bool create_pipelines(renderer *r)
{
#define CODE(name) boids_spirv_##name, boids_spirv_##name##_size
    pipeline_kind sky = {CODE(sky_vert), CODE(sky_frag), .depth_test = false, .depth_write = false};
    pipeline_kind floor_kind = {CODE(floor_vert), CODE(floor_frag), .depth_test = true, .depth_write = true};
    pipeline_kind shadows = {CODE(boid_vert), CODE(boid_frag), .depth_test = true, .depth_write = false,
                             .blend = true, .shadow = true};
    pipeline_kind boids = {CODE(boid_vert), CODE(boid_frag), .depth_test = true, .depth_write = true};
#undef CODE
    return create_pipeline(r, &sky, &r->sky) && create_pipeline(r, &floor_kind, &r->floor) &&
           create_pipeline(r, &shadows, &r->shadows) && create_pipeline(r, &boids, &r->boids);
}

bool renderer_create(gpu *g, uint32_t width, uint32_t height, renderer *out)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->width = width;
    out->height = height;
    out->samples = choose_samples(g);
    out->depth_format = choose_depth_format(g);
    if (out->depth_format == VK_FORMAT_UNDEFINED) {
        fprintf(stderr, "bitonic-boids: the device offers no depth format to render with\n");
        return false;
    }
    return create_targets(out) && create_render_pass(out) && create_layout(out) && create_pipelines(out) &&
           gpu_buffer_create(g, (VkDeviceSize)width * height * 4u, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true,
                             &out->readback);
}

void renderer_destroy(renderer *r)
{
    if (!r->g)
        return;
    VkDevice device = r->g->device;
    vkDeviceWaitIdle(device);
    VkPipeline pipelines[] = {r->sky, r->floor, r->shadows, r->boids};
    for (size_t i = 0; i < sizeof pipelines / sizeof pipelines[0]; ++i)
        if (pipelines[i])
            vkDestroyPipeline(device, pipelines[i], NULL);
    if (r->layout)
        vkDestroyPipelineLayout(device, r->layout, NULL);
    if (r->set_layout)
        vkDestroyDescriptorSetLayout(device, r->set_layout, NULL);
    if (r->framebuffer)
        vkDestroyFramebuffer(device, r->framebuffer, NULL);
    if (r->render_pass)
        vkDestroyRenderPass(device, r->render_pass, NULL);
    VkImageView views[] = {r->picture_view, r->multisampled_view, r->depth_view};
    VkImage images[] = {r->picture, r->multisampled_colour, r->depth};
    VkDeviceMemory memories[] = {r->picture_memory, r->multisampled_memory, r->depth_memory};
    for (int i = 0; i < 3; ++i) {
        if (views[i])
            vkDestroyImageView(device, views[i], NULL);
        if (images[i])
            vkDestroyImage(device, images[i], NULL);
        if (memories[i])
            vkFreeMemory(device, memories[i], NULL);
    }
    gpu_buffer_destroy(r->g, &r->readback);
    memset(r, 0, sizeof *r);
}

/* The camera circles the point it follows (which trails the flock's target)
 * once every two minutes, a little above it, far enough to see the whole flock. */
static render_push frame_constants(renderer *r, const flock *f, float seconds_per_frame)
{
    float target[3];
    flock_target_at(f, f->step, target);
    if (!r->focus_started) {
        memset(r->camera_focus, 0, sizeof r->camera_focus);
        r->focus_started = true;
    }
    float follow = 1.0f - expf(-0.6f * seconds_per_frame);
    for (int k = 0; k < 3; ++k)
        r->camera_focus[k] += (target[k] - r->camera_focus[k]) * follow;

    float scale = f->world_half_extent / 2.5f;  /* about the spawn radius */
    float time = (float)f->step * f->params.dt;
    float angle = 0.6f + 0.05f * time;
    float distance = 2.4f * scale + 6.0f;
    float eye[3] = {r->camera_focus[0] + distance * cosf(angle), r->camera_focus[1] + 0.45f * distance,
                    r->camera_focus[2] + distance * sinf(angle)};
    float view[16], projection[16];
    /* Aim a little below the flock so its shadow on the floor is in view too. */
    float aim[3] = {r->camera_focus[0], r->camera_focus[1] - 0.45f * scale, r->camera_focus[2]};
    look_at(eye, aim, view);
    perspective(0.85f, (float)r->width / (float)r->height, 0.05f * scale, 20.0f * distance, projection);
    render_push push = {
        .camera_position = {eye[0], eye[1], eye[2]}, .fog_density = 0.45f / distance,
        .light_direction = {0.35f, -1.0f, 0.25f}, .boid_length = 0.45f * f->params.radius * (scale > 40.0f ? scale / 40.0f : 1.0f),
        .floor_centre = {r->camera_focus[0], -1.1f * scale - 2.0f * f->params.radius, r->camera_focus[2]},
        .floor_extent = 12.0f * distance, .fog_colour = {0.74f, 0.80f, 0.86f}, .grid_spacing = 2.0f * f->params.radius,
    };
    normalize3(push.light_direction);
    multiply(projection, view, push.view_projection);
    return push;
}

void renderer_record_frame(renderer *r, VkCommandBuffer commands, const flock *f, float seconds_per_frame)
{
    gpu *g = r->g;
    VkMemoryBarrier to_vertex = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, 0, 1, &to_vertex, 0, NULL, 0, NULL);

    render_push push = frame_constants(r, f, seconds_per_frame);
    VkClearValue clears[3] = {{.color = {{0.74f, 0.80f, 0.86f, 1.0f}}}, {.depthStencil = {1.0f, 0}},
                              {.color = {{0.74f, 0.80f, 0.86f, 1.0f}}}};
    VkRenderPassBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = r->render_pass,
                                   .framebuffer = r->framebuffer, .renderArea = {{0, 0}, {r->width, r->height}},
                                   .clearValueCount = 3, .pClearValues = clears};
    vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
    VkDescriptorBufferInfo state = {.buffer = f->state[f->current].buffer, .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = 0,
                                  .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  .pBufferInfo = &state};
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, r->sky);
    g->push_descriptor_set(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, r->layout, 0, 1, &write);
    vkCmdPushConstants(commands, r->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof push,
                       &push);
    vkCmdDraw(commands, 3, 1, 0, 0);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, r->floor);
    vkCmdDraw(commands, 6, 1, 0, 0);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, r->shadows);
    vkCmdDraw(commands, 18, f->params.count, 0, 0);
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, r->boids);
    vkCmdDraw(commands, 18, f->params.count, 0, 0);
    vkCmdEndRenderPass(commands);

    /* Later steps overwrite state buffers the vertex shader read (write after
     * read): an execution dependency is all that needs. */
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 0,
                         NULL);
}

void renderer_record_readback(renderer *r, VkCommandBuffer commands)
{
    VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {r->width, r->height, 1}};
    vkCmdCopyImageToBuffer(commands, r->picture, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback.buffer, 1, &region);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL,
                         0, NULL);
}
