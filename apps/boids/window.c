/* window.c: the flock in a GLFW window. The same offscreen renderer draws each
 * frame; the picture is blitted (scaled to the window) into the swapchain image
 * and presented. One frame in flight keeps it simple: the simulation, not the
 * presentation, is what this app measures. Built only when GLFW is found. */
#include "modes.h"

#include <stdio.h>

#ifndef BOIDS_HAVE_GLFW

int boids_run_window(const boids_options *options)
{
    (void)options;
    fprintf(stderr, "bitonic-boids: this build has no window support (GLFW was not found when it was built);\n"
                    "  install libglfw3-dev and rebuild, or use --frames DIR / --video FILE.mp4\n");
    return 1;
}

#else

#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include "boids_params.h"
#include "render.h"

#define MAX_SWAPCHAIN_IMAGES 8u

typedef struct window_state {
    GLFWwindow *window;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkFormat format;
    VkExtent2D extent;
    uint32_t image_count;
    VkImage images[MAX_SWAPCHAIN_IMAGES];
    VkSemaphore image_ready;
    VkSemaphore frame_done[MAX_SWAPCHAIN_IMAGES];
    VkFence frame_fence;
    VkCommandBuffer commands;
} window_state;

static bool presentation_ok(VkInstance instance, VkPhysicalDevice physical_device, uint32_t family, void *user)
{
    (void)user;
    return glfwGetPhysicalDevicePresentationSupport(instance, physical_device, family) == GLFW_TRUE;
}

static void destroy_swapchain(gpu *g, window_state *w)
{
    for (uint32_t i = 0; i < MAX_SWAPCHAIN_IMAGES; ++i)
        if (w->frame_done[i]) {
            vkDestroySemaphore(g->device, w->frame_done[i], NULL);
            w->frame_done[i] = VK_NULL_HANDLE;
        }
    if (w->swapchain)
        vkDestroySwapchainKHR(g->device, w->swapchain, NULL);
    w->swapchain = VK_NULL_HANDLE;
}

static bool create_swapchain(gpu *g, window_state *w)
{
    VkSurfaceCapabilitiesKHR capabilities;
    if (!gpu_check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(g->physical_device, w->surface, &capabilities),
                   "surface capabilities"))
        return false;
    if (!(capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
        fprintf(stderr, "bitonic-boids: the window surface cannot be a blit destination\n");
        return false;
    }
    VkSurfaceFormatKHR formats[64];
    uint32_t format_count = 64;
    vkGetPhysicalDeviceSurfaceFormatsKHR(g->physical_device, w->surface, &format_count, formats);
    if (format_count == 0)
        return false;
    w->format = formats[0].format;
    VkColorSpaceKHR colour_space = formats[0].colorSpace;
    for (uint32_t i = 0; i < format_count; ++i)
        if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM || formats[i].format == VK_FORMAT_R8G8B8A8_UNORM) {
            w->format = formats[i].format;
            colour_space = formats[i].colorSpace;
            break;
        }
    int width, height;
    glfwGetFramebufferSize(w->window, &width, &height);
    w->extent = capabilities.currentExtent.width != UINT32_MAX
                    ? capabilities.currentExtent
                    : (VkExtent2D){(uint32_t)width, (uint32_t)height};
    uint32_t images = capabilities.minImageCount + 1u;
    if (capabilities.maxImageCount && images > capabilities.maxImageCount)
        images = capabilities.maxImageCount;
    VkSwapchainCreateInfoKHR info = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = w->surface, .minImageCount = images,
        .imageFormat = w->format, .imageColorSpace = colour_space, .imageExtent = w->extent, .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT, .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = capabilities.currentTransform, .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
        .presentMode = VK_PRESENT_MODE_FIFO_KHR, .clipped = VK_TRUE};
    if (!gpu_check(vkCreateSwapchainKHR(g->device, &info, NULL, &w->swapchain), "vkCreateSwapchainKHR"))
        return false;
    w->image_count = MAX_SWAPCHAIN_IMAGES;
    if (!gpu_check(vkGetSwapchainImagesKHR(g->device, w->swapchain, &w->image_count, w->images), "swapchain images"))
        return false;
    VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < w->image_count; ++i)
        if (!gpu_check(vkCreateSemaphore(g->device, &semaphore, NULL, &w->frame_done[i]), "vkCreateSemaphore"))
            return false;
    return true;
}

static void image_barrier(VkCommandBuffer commands, VkImage image, VkImageLayout from, VkImageLayout to,
                          VkAccessFlags src_access, VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                          VkPipelineStageFlags dst_stage)
{
    VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
                                    .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
                                    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = image,
                                    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &barrier);
}

/* Steps, draws, blits into swapchain image `index`; returns false on a Vulkan failure. */
static bool record_frame(gpu *g, window_state *w, flock *f, renderer *r, uint32_t index, uint32_t steps)
{
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (!gpu_check(vkResetCommandBuffer(w->commands, 0), "vkResetCommandBuffer") ||
        !gpu_check(vkBeginCommandBuffer(w->commands, &begin), "vkBeginCommandBuffer"))
        return false;
    bool recorded = true;
    for (uint32_t s = 0; s < steps && recorded; ++s)
        recorded = flock_record_step(f, w->commands, VK_NULL_HANDLE, 0);
    renderer_record_frame(r, w->commands, f, f->params.dt * (float)steps);
    VkImage target = w->images[index];
    image_barrier(w->commands, target, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                  VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkImageBlit blit = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .srcOffsets = {{0, 0, 0}, {(int32_t)r->width, (int32_t)r->height, 1}},
                        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                        .dstOffsets = {{0, 0, 0}, {(int32_t)w->extent.width, (int32_t)w->extent.height, 1}}};
    vkCmdBlitImage(w->commands, r->picture, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
    image_barrier(w->commands, target, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                  VK_ACCESS_TRANSFER_WRITE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    return gpu_check(vkEndCommandBuffer(w->commands), "vkEndCommandBuffer") && recorded;
}

/* One frame: acquire, record, submit, present. *resize is set when the
 * swapchain no longer matches the window. */
static bool show_frame(gpu *g, window_state *w, flock *f, renderer *r, uint32_t steps, bool *resize)
{
    uint32_t index;
    VkResult acquired = vkAcquireNextImageKHR(g->device, w->swapchain, UINT64_MAX, w->image_ready, VK_NULL_HANDLE,
                                              &index);
    if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {
        *resize = true;
        return true;
    }
    if (acquired != VK_SUCCESS && acquired != VK_SUBOPTIMAL_KHR)
        return gpu_check(acquired, "vkAcquireNextImageKHR");
    if (!record_frame(g, w, f, r, index, steps))
        return false;
    VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &w->image_ready, .pWaitDstStageMask = &wait_stage,
                           .commandBufferCount = 1, .pCommandBuffers = &w->commands, .signalSemaphoreCount = 1,
                           .pSignalSemaphores = &w->frame_done[index]};
    if (!gpu_check(vkResetFences(g->device, 1, &w->frame_fence), "vkResetFences") ||
        !gpu_check(vkQueueSubmit(g->queue, 1, &submit, w->frame_fence), "vkQueueSubmit"))
        return false;
    VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
                                .pWaitSemaphores = &w->frame_done[index], .swapchainCount = 1,
                                .pSwapchains = &w->swapchain, .pImageIndices = &index};
    VkResult presented = vkQueuePresentKHR(g->queue, &present);
    if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR || acquired == VK_SUBOPTIMAL_KHR)
        *resize = true;
    else if (!gpu_check(presented, "vkQueuePresentKHR"))
        return false;
    return gpu_check(vkWaitForFences(g->device, 1, &w->frame_fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    if ((key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) && action == GLFW_PRESS)
        glfwSetWindowShouldClose(window, GLFW_TRUE);
}

static bool create_window_objects(gpu *g, window_state *w)
{
    VkSemaphoreCreateInfo semaphore = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkCommandBufferAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = g->command_pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    return gpu_check(glfwCreateWindowSurface(g->instance, w->window, NULL, &w->surface), "glfwCreateWindowSurface") &&
           gpu_check(vkCreateSemaphore(g->device, &semaphore, NULL, &w->image_ready), "vkCreateSemaphore") &&
           gpu_check(vkCreateFence(g->device, &fence, NULL, &w->frame_fence), "vkCreateFence") &&
           gpu_check(vkAllocateCommandBuffers(g->device, &allocate, &w->commands), "vkAllocateCommandBuffers") &&
           create_swapchain(g, w);
}

int boids_run_window(const boids_options *o)
{
    if (!glfwInit()) {
        fprintf(stderr, "bitonic-boids: no display for a window (GLFW could not start); use --frames or --video\n");
        return 1;
    }
    if (!glfwVulkanSupported()) {
        fprintf(stderr, "bitonic-boids: GLFW found no Vulkan loader for windows\n");
        glfwTerminate();
        return 1;
    }
    uint32_t extension_count = 0;
    const char **extensions = glfwGetRequiredInstanceExtensions(&extension_count);
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    window_state w = {0};
    w.window = glfwCreateWindow((int)o->width, (int)o->height, "bitonic-boids", NULL, NULL);
    gpu g;
    memset(&g, 0, sizeof g);
    gpu_desc desc = {.device_name = o->device, .validation = o->validation, .instance_extensions = extensions,
                     .instance_extension_count = extension_count, .swapchain = true,
                     .queue_family_ok = presentation_ok};
    bool ok = w.window && extensions && gpu_create(&desc, &g);
    if (!w.window)
        fprintf(stderr, "bitonic-boids: could not open a window\n");
    flock f;
    renderer r;
    memset(&f, 0, sizeof f);
    memset(&r, 0, sizeof r);
    if (ok) {
        glfwSetKeyCallback(w.window, on_key);
        printf("device: %s (window; Esc or Q closes it)\n", g.properties.deviceName);
        flock_params params = boids_params_for(o);
        flock_tuning tuning = boids_tuning_for(&g, o);
        ok = create_window_objects(&g, &w) && flock_create(&g, &params, o->search, &tuning, false, &f) &&
             renderer_create(&g, o->width, o->height, &r);
    }
    uint32_t steps_done = 0;
    double start = glfwGetTime(), last_title = start;
    while (ok && !glfwWindowShouldClose(w.window) && (!o->steps_given || steps_done < o->steps)) {
        glfwPollEvents();
        bool resize = false;
        ok = show_frame(&g, &w, &f, &r, o->frame_every, &resize);
        steps_done += o->frame_every;
        if (ok && resize) {
            vkDeviceWaitIdle(g.device);
            destroy_swapchain(&g, &w);
            int width = 0, height = 0;
            while (ok && (width == 0 || height == 0) && !glfwWindowShouldClose(w.window)) {
                glfwGetFramebufferSize(w.window, &width, &height);
                glfwWaitEventsTimeout(0.1);
            }
            ok = create_swapchain(&g, &w);
        }
        double now = glfwGetTime();
        if (now - last_title > 0.5) {
            char title[256];
            snprintf(title, sizeof title, "bitonic-boids: %u boids, %s search, %.1f steps/s", f.params.count,
                     flock_search_name(o->search), steps_done / (now - start));
            glfwSetWindowTitle(w.window, title);
            last_title = now;
        }
    }
    if (ok)
        printf("window: %u steps in %.1f s\n", steps_done, glfwGetTime() - start);
    if (g.device) {
        vkDeviceWaitIdle(g.device);
        renderer_destroy(&r);
        flock_destroy(&f);
        destroy_swapchain(&g, &w);
        if (w.image_ready)
            vkDestroySemaphore(g.device, w.image_ready, NULL);
        if (w.frame_fence)
            vkDestroyFence(g.device, w.frame_fence, NULL);
    }
    if (w.surface)
        vkDestroySurfaceKHR(g.instance, w.surface, NULL);
    uint64_t messages = g.validation_messages;
    gpu_destroy(&g);
    if (w.window)
        glfwDestroyWindow(w.window);
    glfwTerminate();
    if (o->validation) {
        printf("validation: %llu messages\n", (unsigned long long)messages);
        if (messages > 0)
            return 1;
    }
    return ok ? 0 : 1;
}

#endif /* BOIDS_HAVE_GLFW */
