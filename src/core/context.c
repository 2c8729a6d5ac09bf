/* context.c: the backend-neutral layer of the public API: status names, device
 * selection from the option or BITONIC_DEVICE, and the host calls, which go to
 * the Vulkan host layer or to the fast CPU sort. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context_internal.h"
#include "fast_sort.h"

const char *bitonic_status_string(bitonic_status status)
{
    switch (status) {
    case BITONIC_SUCCESS: return "success";
    case BITONIC_ERROR_INVALID_ARGUMENT: return "invalid argument (a NULL pointer, an unknown option, or a count above the buffer's capacity)";
    case BITONIC_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
    case BITONIC_ERROR_OUT_OF_DEVICE_MEMORY: return "out of device memory";
    case BITONIC_ERROR_TOO_LARGE: return "too many keys for one buffer on this device";
    case BITONIC_ERROR_DEVICE_NOT_FOUND: return "no device matches the selection (option or BITONIC_DEVICE)";
    case BITONIC_ERROR_UNSUPPORTED: return "the device lacks a feature the sort needs";
    case BITONIC_ERROR_VULKAN_UNAVAILABLE: return "no usable Vulkan loader or driver";
    case BITONIC_ERROR_VALIDATION_LAYER_MISSING: return "validation was requested but VK_LAYER_KHRONOS_validation is not installed";
    case BITONIC_ERROR_DEVICE_LOST: return "the Vulkan device was lost";
    case BITONIC_ERROR_VULKAN: return "a Vulkan call failed";
    }
    return "unknown status";
}

bitonic_selector bitonic_parse_selector(const char *text)
{
    bitonic_selector selector = {BITONIC_SELECT_AUTO, 0, NULL};
    if (!text || !*text || strcmp(text, "auto") == 0)
        return selector;
    if (strcmp(text, "cpu") == 0) {
        selector.kind = BITONIC_SELECT_CPU;
    } else if (strcmp(text, "vulkan") == 0) {
        selector.kind = BITONIC_SELECT_ANY_VULKAN;
    } else {
        const char *c = text;
        while (isdigit((unsigned char)*c))
            ++c;
        if (*c == '\0' && c - text < 9) {
            selector.kind = BITONIC_SELECT_INDEX;
            selector.index = (uint32_t)strtoul(text, NULL, 10);
        } else {
            selector.kind = BITONIC_SELECT_NAME;
            selector.name = text;
        }
    }
    return selector;
}

bitonic_status bitonic_context_create(const bitonic_context_desc *desc, bitonic_context **out_context)
{
    if (!out_context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_context = NULL;
    bitonic_context *context = calloc(1, sizeof *context);
    if (!context)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    if (desc)
        context->desc = *desc;
    const char *device = context->desc.device;
    if (!device || !*device)
        device = getenv("BITONIC_DEVICE");
    bitonic_selector selector = bitonic_parse_selector(device);

    context->backend = BITONIC_BACKEND_CPU;
    if (selector.kind != BITONIC_SELECT_CPU) {
        bitonic_status status = bitonic_vk_context_create(&context->desc, &selector, &context->vk);
        bool fall_back = selector.kind == BITONIC_SELECT_AUTO &&
                         (status == BITONIC_ERROR_DEVICE_NOT_FOUND || status == BITONIC_ERROR_VULKAN_UNAVAILABLE);
        if (status == BITONIC_SUCCESS) {
            context->backend = BITONIC_BACKEND_VULKAN;
        } else if (!fall_back) {
            free(context);
            return status;
        }
    }
    context->desc.device = NULL;  /* the caller's string need not outlive this call */
    *out_context = context;
    return BITONIC_SUCCESS;
}

void bitonic_context_destroy(bitonic_context *context)
{
    if (!context)
        return;
    bitonic_buffer_destroy(context->host_sort_buffer);
    bitonic_vk_context_destroy(context->vk);
    free(context);
}

bitonic_status bitonic_context_get_info(const bitonic_context *context, bitonic_context_info *out_info)
{
    if (!context || !out_info)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    memset(out_info, 0, sizeof *out_info);
    out_info->backend = context->backend;
    if (context->backend == BITONIC_BACKEND_VULKAN) {
        bitonic_vk_context_fill_info(context->vk, out_info);
        return BITONIC_SUCCESS;
    }
    bitonic_cpu_target target = bitonic_cpu_best_target();
    snprintf(out_info->device_name, sizeof out_info->device_name, "CPU (%s)", bitonic_cpu_target_name(target));
    out_info->vulkan_device_index = UINT32_MAX;
    out_info->max_keys = SIZE_MAX / sizeof(uint32_t);
    return BITONIC_SUCCESS;
}

bitonic_status bitonic_context_pipeline_report(const bitonic_context *context, char *text, size_t capacity)
{
    if (!context || !text || capacity == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    text[0] = '\0';
    if (context->backend != BITONIC_BACKEND_VULKAN)
        return BITONIC_ERROR_UNSUPPORTED;
    return bitonic_vk_context_pipeline_report(context->vk, text, capacity);
}

static bool valid_options(const bitonic_sort_options *options)
{
    return !options || options->order == BITONIC_ORDER_ASCENDING || options->order == BITONIC_ORDER_DESCENDING;
}

static bitonic_order order_of(const bitonic_sort_options *options)
{
    return options ? options->order : BITONIC_ORDER_ASCENDING;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static bitonic_status cpu_sort(const bitonic_context *context, uint32_t *keys, size_t count, bitonic_order order,
                               bitonic_timing *timing)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, context->desc.cpu_threads};
    double start = now_ms();
    bitonic_status status = bitonic_cpu_sort_u32(keys, count, order, &config);
    if (timing) {
        timing->sort_ms = now_ms() - start;
        timing->pass_count = 1;
        if (timing->pass_ms && timing->pass_capacity > 0)
            timing->pass_ms[0] = timing->sort_ms;
    }
    return status;
}

bitonic_status bitonic_sort_u32(bitonic_context *context, uint32_t *keys, size_t count,
                                const bitonic_sort_options *options)
{
    if (!context || (!keys && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count <= 1)
        return BITONIC_SUCCESS;
    if (context->backend == BITONIC_BACKEND_CPU)
        return cpu_sort(context, keys, count, order_of(options), NULL);

    bitonic_buffer *buffer = context->host_sort_buffer;
    if (!buffer || buffer->capacity < count) {
        bitonic_buffer_destroy(buffer);
        context->host_sort_buffer = NULL;
        bitonic_status status = bitonic_buffer_create(context, count, &buffer);
        if (status != BITONIC_SUCCESS)
            return status;
        context->host_sort_buffer = buffer;
    }
    return bitonic_vk_sort_host(context->vk, buffer->vk, keys, count, order_of(options), NULL);
}

bitonic_status bitonic_buffer_create(bitonic_context *context, size_t capacity_keys, bitonic_buffer **out_buffer)
{
    if (!out_buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_buffer = NULL;
    if (!context || capacity_keys == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_buffer *buffer = calloc(1, sizeof *buffer);
    if (!buffer)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    buffer->context = context;
    buffer->capacity = capacity_keys;
    bitonic_status status = BITONIC_SUCCESS;
    if (context->backend == BITONIC_BACKEND_CPU) {
        if (capacity_keys > SIZE_MAX / sizeof(uint32_t))
            status = BITONIC_ERROR_TOO_LARGE;
        else if (!(buffer->host_keys = malloc(capacity_keys * sizeof(uint32_t))))
            status = BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    } else {
        status = bitonic_vk_buffer_create(context->vk, capacity_keys, &buffer->vk);
    }
    if (status != BITONIC_SUCCESS) {
        free(buffer);
        return status;
    }
    *out_buffer = buffer;
    return BITONIC_SUCCESS;
}

void bitonic_buffer_destroy(bitonic_buffer *buffer)
{
    if (!buffer)
        return;
    if (buffer->vk)
        bitonic_vk_buffer_destroy(buffer->context->vk, buffer->vk);
    free(buffer->host_keys);
    free(buffer);
}

bitonic_status bitonic_buffer_upload(bitonic_buffer *buffer, const uint32_t *keys, size_t count)
{
    if (!buffer || (!keys && count > 0) || count > buffer->capacity)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    if (buffer->host_keys) {
        memcpy(buffer->host_keys, keys, count * sizeof(uint32_t));
        return BITONIC_SUCCESS;
    }
    return bitonic_vk_buffer_upload(buffer->context->vk, buffer->vk, keys, count);
}

bitonic_status bitonic_buffer_download(bitonic_buffer *buffer, uint32_t *keys, size_t count)
{
    if (!buffer || (!keys && count > 0) || count > buffer->capacity)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    if (buffer->host_keys) {
        memcpy(keys, buffer->host_keys, count * sizeof(uint32_t));
        return BITONIC_SUCCESS;
    }
    return bitonic_vk_buffer_download(buffer->context->vk, buffer->vk, keys, count);
}

bitonic_status bitonic_buffer_sort(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                   bitonic_timing *out_timing)
{
    if (!buffer || count > buffer->capacity || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (buffer->host_keys)
        return cpu_sort(buffer->context, buffer->host_keys, count, order_of(options), out_timing);
    return bitonic_vk_buffer_sort(buffer->context->vk, buffer->vk, count, order_of(options), out_timing);
}
