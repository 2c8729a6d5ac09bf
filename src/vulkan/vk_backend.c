/* vk_backend.c: the Vulkan backend's table of operations (backend.h), a thin
 * layer over the host layer (vk_host.h). It owns the one thing the host
 * calls share: a staging buffer for host sorts, kept between calls and grown on
 * demand, so that sorting host arrays does not allocate device memory each time. */
#include <stdlib.h>

#include "backend.h"
#include "host_memory.h"
#include "vk_host.h"

typedef struct vk_backend_state {
    bitonic_host_memory memory;      /* the context's allocator, for this state */
    bitonic_vk_context *vk;
    bitonic_vk_buffer *host_buffer;  /* reused by the host sorts, grown on demand */
    size_t host_capacity;            /* 32-bit words */
} vk_backend_state;

static bool vk_accepts(const bitonic_selector *selector)
{
    return selector->kind != BITONIC_SELECT_CPU;
}

static bitonic_status vk_create(const bitonic_context_desc *desc, const bitonic_selector *selector, void **out_state)
{
    bitonic_host_memory memory;
    if (!bitonic_host_memory_from_chain(desc->next, &memory))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    vk_backend_state *state = bitonic_host_memory_calloc(&memory, 1, sizeof *state);
    if (!state)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    state->memory = memory;
    bitonic_status status = bitonic_vk_context_create(desc, selector, &state->vk);
    if (status != BITONIC_SUCCESS) {
        bitonic_host_memory_free(&memory, state);
        return status;
    }
    *out_state = state;
    return BITONIC_SUCCESS;
}

static void vk_destroy(void *opaque)
{
    vk_backend_state *state = opaque;
    if (state->host_buffer)
        bitonic_vk_buffer_destroy(state->vk, state->host_buffer);
    bitonic_vk_context_destroy(state->vk);
    bitonic_host_memory memory = state->memory;
    bitonic_host_memory_free(&memory, state);
}

static void vk_fill_info(const void *opaque, bitonic_context_info *info)
{
    const vk_backend_state *state = opaque;
    bitonic_vk_context_fill_info(state->vk, info);
}

static bitonic_status vk_pipeline_report(const void *opaque, char *text, size_t capacity)
{
    const vk_backend_state *state = opaque;
    return bitonic_vk_context_pipeline_report(state->vk, text, capacity);
}

/* The host staging buffer, grown to at least words 32-bit words. */
static bitonic_status host_buffer(vk_backend_state *state, size_t words)
{
    if (state->host_buffer && state->host_capacity >= words)
        return BITONIC_SUCCESS;
    if (state->host_buffer)
        bitonic_vk_buffer_destroy(state->vk, state->host_buffer);
    state->host_buffer = NULL;
    state->host_capacity = 0;
    bitonic_status status = bitonic_vk_buffer_create(state->vk, words, &state->host_buffer);
    if (status == BITONIC_SUCCESS)
        state->host_capacity = words;
    return status;
}

static bitonic_status vk_sort_host(void *opaque, void *keys, uint32_t *values, size_t count,
                                   const bitonic_sort_request *request, bitonic_timing *timing,
                                   bitonic_host_timing *stages)
{
    vk_backend_state *state = opaque;
    bitonic_status status = host_buffer(state, count * bitonic_key_words(request->key_type));
    if (status != BITONIC_SUCCESS)
        return status;
    return bitonic_vk_sort_host(state->vk, state->host_buffer, keys, values, count, request, timing, stages);
}

static void vk_device_key(const void *opaque, char *out, size_t capacity)
{
    const vk_backend_state *state = opaque;
    bitonic_vk_context_device_key(state->vk, out, capacity);
}

static bool vk_device_ready(const void *opaque)
{
    const vk_backend_state *state = opaque;
    return bitonic_vk_context_device_ready(state->vk);
}

static bitonic_status vk_device_make(void *opaque)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_context_make_device(state->vk);
}

static double vk_device_create_ms(const void *opaque)
{
    const vk_backend_state *state = opaque;
    return bitonic_vk_context_device_create_ms(state->vk);
}

static bitonic_status vk_search_host(void *opaque, const void *sorted_keys, size_t count, const void *lows,
                                     const void *highs, size_t query_count, uint32_t *out_first, uint32_t *out_end,
                                     const bitonic_sort_request *request)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_search_host(state->vk, sorted_keys, count, lows, highs, query_count, out_first, out_end,
                                  request);
}

static bitonic_status vk_buffer_create(void *opaque, size_t capacity, void **out_buffer)
{
    vk_backend_state *state = opaque;
    bitonic_vk_buffer *buffer;
    bitonic_status status = bitonic_vk_buffer_create(state->vk, capacity, &buffer);
    if (status == BITONIC_SUCCESS)
        *out_buffer = buffer;
    return status;
}

static void vk_buffer_destroy(void *opaque, void *buffer)
{
    vk_backend_state *state = opaque;
    bitonic_vk_buffer_destroy(state->vk, buffer);
}

static bitonic_status vk_buffer_upload(void *opaque, void *buffer, const uint32_t *keys, size_t count)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_buffer_upload(state->vk, buffer, keys, count);
}

static bitonic_status vk_buffer_download(void *opaque, void *buffer, uint32_t *keys, size_t count)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_buffer_download(state->vk, buffer, keys, count);
}

static bitonic_status vk_buffer_upload_values(void *opaque, void *buffer, const uint32_t *values, size_t count)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_buffer_upload_values(state->vk, buffer, values, count);
}

static bitonic_status vk_buffer_download_values(void *opaque, void *buffer, uint32_t *values, size_t count)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_buffer_download_values(state->vk, buffer, values, count);
}

static bitonic_status vk_buffer_sort(void *opaque, void *buffer, size_t count, bool with_values,
                                     const bitonic_sort_request *request, bitonic_timing *timing)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_buffer_sort(state->vk, buffer, count, with_values, request, timing);
}

static bitonic_status vk_host_alloc(void *opaque, size_t bytes, void **out_memory)
{
    vk_backend_state *state = opaque;
    return bitonic_vk_host_alloc(state->vk, bytes, out_memory);
}

static void vk_host_free(void *opaque, void *memory)
{
    vk_backend_state *state = opaque;
    bitonic_vk_host_free(state->vk, memory);
}

const bitonic_backend_ops bitonic_vulkan_backend = {
    .host_alloc = vk_host_alloc,
    .host_free = vk_host_free,
    .kind = BITONIC_BACKEND_VULKAN,
    .accepts = vk_accepts,
    .create = vk_create,
    .destroy = vk_destroy,
    .fill_info = vk_fill_info,
    .pipeline_report = vk_pipeline_report,
    .sort_host = vk_sort_host,
    .device_key = vk_device_key,
    .device_ready = vk_device_ready,
    .device_create_ms = vk_device_create_ms,
    .device_make = vk_device_make,
    .batched_rows = true,
    .search_host = vk_search_host,
    .buffer_create = vk_buffer_create,
    .buffer_destroy = vk_buffer_destroy,
    .buffer_upload = vk_buffer_upload,
    .buffer_download = vk_buffer_download,
    .buffer_upload_values = vk_buffer_upload_values,
    .buffer_download_values = vk_buffer_download_values,
    .buffer_sort = vk_buffer_sort,
};
