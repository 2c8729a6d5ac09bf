/* context_internal.h: the context and buffer objects behind bitonic.h, shared by
 * the backend-neutral layer (src/core/context.c) and the Vulkan host layer
 * (src/vulkan/vk_context.c). */
#ifndef BITONIC_CONTEXT_INTERNAL_H
#define BITONIC_CONTEXT_INTERNAL_H

#include "bitonic.h"
#include "device_choice.h"

typedef struct bitonic_vk_context bitonic_vk_context;

/* 32-bit words a key of this type takes: 1, or 2 for the 64-bit types. */
static inline size_t bitonic_key_words(bitonic_key_type type)
{
    return type >= BITONIC_KEY_U64 ? 2u : 1u;
}

/* What one sort is asked to do, as the layers below the public API see it. */
typedef struct bitonic_sort_request {
    bitonic_order order;
    bitonic_key_type key_type;
    uint32_t row_length;             /* 0: one array; else independent rows of this length */
} bitonic_sort_request;
typedef struct bitonic_vk_buffer bitonic_vk_buffer;

struct bitonic_context {
    bitonic_backend backend;
    bitonic_context_desc desc;
    bitonic_vk_context *vk;          /* NULL on the CPU backend */
    bitonic_buffer *host_sort_buffer;/* reused by bitonic_sort_u32, grown on demand */
    bitonic_device_choice choice;    /* host sorts on the CPU path or the device (device_choice.c) */
    bitonic_host_timing last_host_timing;  /* count 0: no host sort yet */
    char cache_directory[BITONIC_CACHE_PATH_MAX];  /* resolved at creation; "" when off */
};

struct bitonic_buffer {
    bitonic_context *context;
    size_t capacity;
    uint32_t *host_keys;             /* CPU backend */
    uint32_t *host_values;           /* CPU backend, made on the first values upload */
    bitonic_vk_buffer *vk;           /* Vulkan backend */
};

/* How a device selector string reads (see bitonic_context_desc.device). */
typedef enum bitonic_selector_kind {
    BITONIC_SELECT_AUTO,       /* discrete, integrated or virtual GPU, else the CPU path */
    BITONIC_SELECT_CPU,
    BITONIC_SELECT_ANY_VULKAN, /* any Vulkan device, CPU drivers included */
    BITONIC_SELECT_INDEX,
    BITONIC_SELECT_NAME,
} bitonic_selector_kind;

typedef struct bitonic_selector {
    bitonic_selector_kind kind;
    uint32_t index;
    const char *name;
} bitonic_selector;

bitonic_selector bitonic_parse_selector(const char *text);

/* Vulkan host layer (src/vulkan/vk_context.c). With BITONIC_SELECT_AUTO it gives
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

/* Range search on the device (bitonic_search_range), with its own scratch buffers. */
bitonic_status bitonic_vk_search_host(bitonic_vk_context *vk, const void *sorted_keys, size_t count,
                                      const void *lows, const void *highs, size_t query_count,
                                      uint32_t *out_first, uint32_t *out_end, const bitonic_sort_request *request);

#endif /* BITONIC_CONTEXT_INTERNAL_H */
