/* host_buffer.c: resident buffers in host memory (see host_buffer.h). The
 * public API has checked every count against the capacity already. */
#include "host_buffer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bitonic_status bitonic_host_buffer_create(void *backend_state, size_t capacity, void **out_buffer)
{
    (void)backend_state;
    return bitonic_host_buffer_create_in(NULL, capacity, out_buffer);
}

bitonic_status bitonic_host_buffer_create_in(const bitonic_host_memory *memory, size_t capacity, void **out_buffer)
{
    if (capacity > SIZE_MAX / sizeof(uint32_t))
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_host_buffer *buffer = bitonic_host_memory_calloc(memory, 1, sizeof *buffer);
    if (!buffer)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    buffer->memory = memory;
    buffer->capacity = capacity;
    if (!(buffer->keys = bitonic_host_memory_alloc(memory, capacity * sizeof(uint32_t)))) {
        bitonic_host_memory_free(memory, buffer);
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out_buffer = buffer;
    return BITONIC_SUCCESS;
}

void bitonic_host_buffer_destroy(void *backend_state, void *opaque)
{
    (void)backend_state;
    bitonic_host_buffer *buffer = opaque;
    const bitonic_host_memory *memory = buffer->memory;
    bitonic_host_memory_free(memory, buffer->keys);
    bitonic_host_memory_free(memory, buffer->values);
    bitonic_host_memory_free(memory, buffer);
}

bitonic_status bitonic_host_buffer_values(bitonic_host_buffer *buffer)
{
    if (!buffer->values)
        buffer->values = bitonic_host_memory_alloc(buffer->memory, buffer->capacity * sizeof(uint32_t));
    return buffer->values ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
}

bitonic_status bitonic_host_buffer_upload(void *backend_state, void *opaque, const uint32_t *keys, size_t count)
{
    (void)backend_state;
    bitonic_host_buffer *buffer = opaque;
    memcpy(buffer->keys, keys, count * sizeof(uint32_t));
    return BITONIC_SUCCESS;
}

bitonic_status bitonic_host_buffer_download(void *backend_state, void *opaque, uint32_t *keys, size_t count)
{
    (void)backend_state;
    bitonic_host_buffer *buffer = opaque;
    memcpy(keys, buffer->keys, count * sizeof(uint32_t));
    return BITONIC_SUCCESS;
}

bitonic_status bitonic_host_buffer_upload_values(void *backend_state, void *opaque, const uint32_t *values,
                                                 size_t count)
{
    (void)backend_state;
    bitonic_host_buffer *buffer = opaque;
    bitonic_status status = bitonic_host_buffer_values(buffer);
    if (status == BITONIC_SUCCESS)
        memcpy(buffer->values, values, count * sizeof(uint32_t));
    return status;
}

bitonic_status bitonic_host_buffer_download_values(void *backend_state, void *opaque, uint32_t *values, size_t count)
{
    (void)backend_state;
    bitonic_host_buffer *buffer = opaque;
    bitonic_status status = bitonic_host_buffer_values(buffer);
    if (status == BITONIC_SUCCESS)
        memcpy(values, buffer->values, count * sizeof(uint32_t));
    return status;
}
