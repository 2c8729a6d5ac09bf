/* vk_host.h: the Vulkan host layer (vk_context.c, vk_devices.c, vk_memory.c,
 * vk_host_sort.c) as the Vulkan backend's table (vk_backend.c) calls it: device
 * selection, resident buffers, the host sort and the range search. */
#ifndef BITONIC_VK_HOST_H
#define BITONIC_VK_HOST_H

#include "backend.h"

typedef struct bitonic_vk_context bitonic_vk_context;
typedef struct bitonic_vk_buffer bitonic_vk_buffer;

/* The context (vk_context.c). With BITONIC_SELECT_AUTO it gives
 * BITONIC_ERROR_DEVICE_NOT_FOUND when no GPU is there, and the caller falls back. */
bitonic_status bitonic_vk_context_create(const bitonic_context_desc *desc, const bitonic_selector *selector,
                                         bitonic_vk_context **out);
void bitonic_vk_context_destroy(bitonic_vk_context *vk);
bitonic_status bitonic_vk_context_pipeline_report(const bitonic_vk_context *vk, char *text, size_t capacity);
void bitonic_vk_context_fill_info(const bitonic_vk_context *vk, bitonic_context_info *info);
/* Whether the logical device exists yet (it is deferred with the default
 * selection), and how long making it took (0 before). */
bool bitonic_vk_context_device_ready(const bitonic_vk_context *vk);
double bitonic_vk_context_device_create_ms(const bitonic_vk_context *vk);
/* Makes the deferred instance and device now; what making them gave. */
bitonic_status bitonic_vk_context_make_device(bitonic_vk_context *vk);
/* "vendor-device-driver" of the context's device, for cache file names. */
void bitonic_vk_context_device_key(const bitonic_vk_context *vk, char *out, size_t capacity);
bitonic_status bitonic_vk_buffer_create(bitonic_vk_context *vk, size_t capacity, bitonic_vk_buffer **out);
void bitonic_vk_buffer_destroy(bitonic_vk_context *vk, bitonic_vk_buffer *buffer);
bitonic_status bitonic_vk_buffer_upload(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, const uint32_t *keys,
                                        size_t count);
bitonic_status bitonic_vk_buffer_download(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *keys,
                                          size_t count);
bitonic_status bitonic_vk_buffer_upload_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer,
                                               const uint32_t *values, size_t count);
bitonic_status bitonic_vk_buffer_download_values(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, uint32_t *values,
                                                 size_t count);
bitonic_status bitonic_vk_buffer_sort(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, size_t count,
                                      bool with_values, const bitonic_sort_request *request, bitonic_timing *timing);
/* Upload, sort and download in one submission: the host convenience path.
 * values may be NULL (keys alone). keys hold count keys of the request's type.
 * stages, when given, receives the time of each stage (vk_transfer.c imports
 * the arrays where the driver can). */
bitonic_status bitonic_vk_sort_host(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, void *keys,
                                    uint32_t *values, size_t count, const bitonic_sort_request *request,
                                    bitonic_timing *timing, bitonic_host_timing *stages);

/* bitonic_host_alloc and bitonic_host_free on the Vulkan backend. */
bitonic_status bitonic_vk_host_alloc(bitonic_vk_context *vk, size_t bytes, void **out_memory);
void bitonic_vk_host_free(bitonic_vk_context *vk, void *memory);

/* Range search on the device (bitonic_search_range), with its own scratch buffers. */
bitonic_status bitonic_vk_search_host(bitonic_vk_context *vk, const void *sorted_keys, size_t count,
                                      const void *lows, const void *highs, size_t query_count,
                                      uint32_t *out_first, uint32_t *out_end, const bitonic_sort_request *request);

#endif /* BITONIC_VK_HOST_H */
