/* host_buffer.h: resident buffers kept in host memory, for the backends that
 * sort where the host can reach the keys (the CPU path) or that upload them
 * for each sort (the GLES backend, whose texel format follows the key type).
 * The functions have the shape of the buffer operations in backend.h, so a
 * backend's table can point at them directly. */
#ifndef BITONIC_HOST_BUFFER_H
#define BITONIC_HOST_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"
#include "host_memory.h"

typedef struct bitonic_host_buffer {
    const bitonic_host_memory *memory;  /* the backend's; NULL: the C library's */
    size_t capacity;                 /* 32-bit words */
    uint32_t *keys;
    uint32_t *values;                /* made on the first values upload or pair sort */
} bitonic_host_buffer;

/* BITONIC_ERROR_TOO_LARGE when capacity words do not fit the address space.
 * _in: in memory, which must outlive the buffer (a backend's own copy of the
 * context's allocator); without: the C library's. */
bitonic_status bitonic_host_buffer_create(void *backend_state, size_t capacity, void **out_buffer);
bitonic_status bitonic_host_buffer_create_in(const bitonic_host_memory *memory, size_t capacity, void **out_buffer);
void bitonic_host_buffer_destroy(void *backend_state, void *buffer);
/* The values array, made on first use. */
bitonic_status bitonic_host_buffer_values(bitonic_host_buffer *buffer);
bitonic_status bitonic_host_buffer_upload(void *backend_state, void *buffer, const uint32_t *keys, size_t count);
bitonic_status bitonic_host_buffer_download(void *backend_state, void *buffer, uint32_t *keys, size_t count);
bitonic_status bitonic_host_buffer_upload_values(void *backend_state, void *buffer, const uint32_t *values,
                                                 size_t count);
bitonic_status bitonic_host_buffer_download_values(void *backend_state, void *buffer, uint32_t *values, size_t count);

#endif /* BITONIC_HOST_BUFFER_H */
