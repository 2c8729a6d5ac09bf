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
#include "key_transform.h"
#include "pair_sort.h"

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
    if (context->backend == BITONIC_BACKEND_VULKAN) {
        char device_key[64];
        bitonic_vk_context_device_key(context->vk, device_key, sizeof device_key);
        bitonic_device_choice_init(&context->choice, &context->desc, selector.kind == BITONIC_SELECT_AUTO, device_key);
    }
    bitonic_cache_directory(&context->desc, context->cache_directory, sizeof context->cache_directory);
    context->desc.device = NULL;  /* the caller's strings need not outlive this call */
    context->desc.cache_directory = NULL;
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
    snprintf(out_info->cache_directory, sizeof out_info->cache_directory, "%s", context->cache_directory);
    if (context->backend == BITONIC_BACKEND_VULKAN) {
        bitonic_vk_context_fill_info(context->vk, out_info);
        out_info->crossover_keys = bitonic_device_choice_known(&context->choice);
        return BITONIC_SUCCESS;
    }
    out_info->crossover_keys = UINT64_MAX;
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
    return !options || ((options->order == BITONIC_ORDER_ASCENDING || options->order == BITONIC_ORDER_DESCENDING) &&
                        (unsigned)options->key_type <= (unsigned)BITONIC_KEY_F64);
}

static bool is_key64(const bitonic_sort_options *options)
{
    return options && options->key_type >= BITONIC_KEY_U64;
}

static size_t key_bytes(bitonic_key_type type)
{
    return bitonic_key_words(type) * sizeof(uint32_t);
}

static uint32_t bitonic_ceil_log2_size(size_t n)
{
    uint32_t log = 0;
    while (log < 8 * sizeof(size_t) - 1 && ((size_t)1 << log) < n)
        ++log;
    return log;
}

static bitonic_sort_request request_of(const bitonic_sort_options *options)
{
    bitonic_sort_request request = {BITONIC_ORDER_ASCENDING, BITONIC_KEY_U32, 0};
    if (options) {
        request.order = options->order;
        request.key_type = options->key_type;
    }
    return request;
}

static uint32_t order_xor(const bitonic_sort_request *request)
{
    return request->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Keys on the CPU path: u32 goes straight to the fast sort; other types are
 * mapped to ordered bits, sorted ascending and mapped back. */
static bitonic_status cpu_sort(const bitonic_context *context, uint32_t *keys, size_t count,
                               const bitonic_sort_request *request, bitonic_timing *timing)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, context->desc.cpu_threads};
    double start = now_ms();
    bitonic_status status;
    if (request->key_type == BITONIC_KEY_U32) {
        status = bitonic_cpu_sort_u32(keys, count, request->order, &config);
    } else {
        uint32_t flip = order_xor(request);
        bitonic_keys_to_ordered(keys, count, request->key_type, flip);
        status = bitonic_cpu_sort_u32(keys, count, BITONIC_ORDER_ASCENDING, &config);
        bitonic_keys_from_ordered(keys, count, request->key_type, flip);
    }
    if (timing) {
        timing->sort_ms = now_ms() - start;
        timing->pass_count = 1;
        if (timing->pass_ms && timing->pass_capacity > 0)
            timing->pass_ms[0] = timing->sort_ms;
    }
    return status;
}

/* 64-bit keys on the CPU path: ordered bits, a radix sort, and back. */
static bitonic_status cpu_sort64(uint64_t *keys, size_t count, const bitonic_sort_request *request)
{
    uint64_t *scratch = malloc(count * sizeof *scratch);
    if (!scratch)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint64_t flip = request->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
    bitonic_keys64_to_ordered(keys, count, request->key_type, flip);
    bitonic_cpu_sort_u64(keys, scratch, count);
    bitonic_keys64_from_ordered(keys, count, request->key_type, flip);
    free(scratch);
    return BITONIC_SUCCESS;
}

/* The host sort buffer, grown to at least count 32-bit words. */
static bitonic_status host_sort_buffer(bitonic_context *context, size_t count, bitonic_buffer **out)
{
    bitonic_buffer *buffer = context->host_sort_buffer;
    if (!buffer || buffer->capacity < count) {
        bitonic_buffer_destroy(buffer);
        context->host_sort_buffer = NULL;
        bitonic_status status = bitonic_buffer_create(context, count, &buffer);
        if (status != BITONIC_SUCCESS)
            return status;
        context->host_sort_buffer = buffer;
    }
    *out = buffer;
    return BITONIC_SUCCESS;
}

static bitonic_status host_sort_on_cpu(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                       const bitonic_sort_request *request);

/* Host sorts of a Vulkan context go to the CPU path where it finishes first
 * (device_choice.c). */
static bool host_sort_runs_on_cpu(bitonic_context *context, size_t count)
{
    return context->backend == BITONIC_BACKEND_CPU || bitonic_device_choice_on_cpu(context, count);
}

bitonic_status bitonic_sort(bitonic_context *context, void *keys, size_t count, const bitonic_sort_options *options)
{
    if (!context || (!keys && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count <= 1)
        return BITONIC_SUCCESS;
    bitonic_sort_request request = request_of(options);
    if (host_sort_runs_on_cpu(context, count))
        return host_sort_on_cpu(context, keys, NULL, count, &request);
    bitonic_buffer *buffer;
    bitonic_status status = host_sort_buffer(context, count * bitonic_key_words(request.key_type), &buffer);
    if (status != BITONIC_SUCCESS)
        return status;
    return bitonic_vk_sort_host(context->vk, buffer->vk, keys, NULL, count, &request, NULL,
                                &context->last_host_timing);
}

bitonic_status bitonic_sort_rows(bitonic_context *context, void *keys, size_t row_count, size_t row_length,
                                 const bitonic_sort_options *options)
{
    if (!context || (!keys && row_count > 0 && row_length > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (row_length > 0 && row_count > SIZE_MAX / row_length)
        return BITONIC_ERROR_TOO_LARGE;
    size_t count = row_count * row_length;
    if (row_length <= 1 || count <= 1)
        return BITONIC_SUCCESS;
    bitonic_sort_request request = request_of(options);
    if (context->backend == BITONIC_BACKEND_CPU) {
        bitonic_status status = BITONIC_SUCCESS;
        for (size_t row = 0; row < row_count && status == BITONIC_SUCCESS; ++row)
            status = is_key64(options) ? cpu_sort64((uint64_t *)keys + row * row_length, row_length, &request)
                                       : cpu_sort(context, (uint32_t *)keys + row * row_length, row_length, &request,
                                                  NULL);
        return status;
    }
    if (row_length >= UINT32_MAX || count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    request.row_length = (uint32_t)row_length;
    bitonic_buffer *buffer;
    bitonic_status status = host_sort_buffer(context, count * bitonic_key_words(request.key_type), &buffer);
    if (status != BITONIC_SUCCESS)
        return status;
    return bitonic_vk_sort_host(context->vk, buffer->vk, keys, NULL, count, &request, NULL, NULL);
}

/* Segments of one size class: those whose length rounds up to 2^size_log. They
 * are copied into rows of that length, padded with the key that sorts last, sorted
 * as batched rows, and copied back: each costs at most twice its length. */
/* The stored bits of the key that sorts last for this request. */
static void last_key_bits(const bitonic_sort_request *request, unsigned char *out)
{
    if (request->key_type >= BITONIC_KEY_U64) {
        uint64_t flip = request->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
        uint64_t key = bitonic_key64_from_ordered(UINT64_MAX, request->key_type, flip);
        memcpy(out, &key, sizeof key);
    } else {
        uint32_t key = bitonic_key_from_ordered(UINT32_MAX, request->key_type, order_xor(request));
        memcpy(out, &key, sizeof key);
    }
}

/* Segments of one size class: those whose length rounds up to 2^size_log. They
 * are copied into rows of that length, padded with the key that sorts last, sorted
 * as batched rows, and copied back: each costs at most twice its length. */
static bitonic_status sort_segment_class(bitonic_context *context, unsigned char *keys, const size_t *offsets,
                                         size_t segment_count, uint32_t size_log, const bitonic_sort_request *request)
{
    size_t row_length = (size_t)1 << size_log, rows = 0, bytes = key_bytes(request->key_type);
    for (size_t s = 0; s < segment_count; ++s) {
        size_t length = offsets[s + 1] - offsets[s];
        rows += length > 1 && bitonic_ceil_log2_size(length) == size_log;
    }
    if (rows == 0)
        return BITONIC_SUCCESS;
    if (rows > SIZE_MAX / row_length / bytes)
        return BITONIC_ERROR_TOO_LARGE;
    unsigned char *packed = malloc(rows * row_length * bytes);
    if (!packed)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    unsigned char last_key[8];
    last_key_bits(request, last_key);
    size_t row = 0;
    for (size_t s = 0; s < segment_count; ++s) {
        size_t length = offsets[s + 1] - offsets[s];
        if (length <= 1 || bitonic_ceil_log2_size(length) != size_log)
            continue;
        unsigned char *destination = packed + row * row_length * bytes;
        memcpy(destination, keys + offsets[s] * bytes, length * bytes);
        for (size_t i = length; i < row_length; ++i)
            memcpy(destination + i * bytes, last_key, bytes);
        ++row;
    }
    bitonic_sort_options options = {.order = request->order, .key_type = request->key_type};
    bitonic_status status = bitonic_sort_rows(context, packed, rows, row_length, &options);
    row = 0;
    for (size_t s = 0; status == BITONIC_SUCCESS && s < segment_count; ++s) {
        size_t length = offsets[s + 1] - offsets[s];
        if (length <= 1 || bitonic_ceil_log2_size(length) != size_log)
            continue;
        /* The pads sort last; a real key equal to the pad has the same bits. */
        memcpy(keys + offsets[s] * bytes, packed + row * row_length * bytes, length * bytes);
        ++row;
    }
    free(packed);
    return status;
}

bitonic_status bitonic_sort_segments(bitonic_context *context, void *keys, const size_t *offsets,
                                     size_t segment_count, const bitonic_sort_options *options)
{
    if (!context || (segment_count > 0 && (!offsets || !keys)) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    for (size_t s = 0; s < segment_count; ++s)
        if (offsets[s + 1] < offsets[s])
            return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    if (context->backend == BITONIC_BACKEND_CPU) {
        bitonic_status status = BITONIC_SUCCESS;
        for (size_t s = 0; s < segment_count && status == BITONIC_SUCCESS; ++s)
            status = bitonic_sort_rows(context, (unsigned char *)keys + offsets[s] * key_bytes(request.key_type), 1,
                                       offsets[s + 1] - offsets[s], options);
        return status;
    }
    bitonic_status status = BITONIC_SUCCESS;
    for (uint32_t size_log = 1; size_log < 8 * sizeof(size_t) && status == BITONIC_SUCCESS; ++size_log)
        status = sort_segment_class(context, keys, offsets, segment_count, size_log, &request);
    return status;
}

bitonic_status bitonic_sort_u32(bitonic_context *context, uint32_t *keys, size_t count,
                                const bitonic_sort_options *options)
{
    bitonic_sort_options typed = options ? *options : (bitonic_sort_options){0};
    typed.key_type = BITONIC_KEY_U32;
    return bitonic_sort(context, keys, count, options ? &typed : NULL);
}

/* Pairs on the CPU path: packed as (ordered key << 32 | value) and sorted as
 * 64-bit words, the order of the GPU's pair comparator. */
static bitonic_status cpu_sort_pairs(void *keys, uint32_t *values, size_t count, const bitonic_sort_request *request)
{
    if (request->key_type >= BITONIC_KEY_U64) {
        uint64_t *keys64 = keys, *scratch_keys = malloc(count * sizeof *scratch_keys);
        uint32_t *scratch_values = malloc(count * sizeof *scratch_values);
        bitonic_status status = scratch_keys && scratch_values ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
        if (status == BITONIC_SUCCESS) {
            uint64_t flip = request->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
            bitonic_keys64_to_ordered(keys64, count, request->key_type, flip);
            bitonic_cpu_sort_pairs_u64(keys64, values, scratch_keys, scratch_values, count);
            bitonic_keys64_from_ordered(keys64, count, request->key_type, flip);
        }
        free(scratch_keys);
        free(scratch_values);
        return status;
    }
    uint32_t *keys32 = keys;
    uint64_t *words = malloc(2 * count * sizeof *words);
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t flip = order_xor(request);
    for (size_t i = 0; i < count; ++i)
        words[i] = (uint64_t)bitonic_ordered_from_key(keys32[i], request->key_type, flip) << 32 | values[i];
    bitonic_cpu_sort_u64(words, words + count, count);
    for (size_t i = 0; i < count; ++i) {
        keys32[i] = bitonic_key_from_ordered((uint32_t)(words[i] >> 32), request->key_type, flip);
        values[i] = (uint32_t)words[i];
    }
    free(words);
    return BITONIC_SUCCESS;
}

/* Pairs ordered by (key, value), on whichever backend the context has. */
static bitonic_status sort_pairs_by_value(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                          const bitonic_sort_request *request)
{
    if (host_sort_runs_on_cpu(context, count))
        return host_sort_on_cpu(context, keys, values, count, request);
    bitonic_buffer *buffer;
    bitonic_status status = host_sort_buffer(context, count * bitonic_key_words(request->key_type), &buffer);
    if (status != BITONIC_SUCCESS)
        return status;
    return bitonic_vk_sort_host(context->vk, buffer->vk, keys, values, count, request, NULL,
                                &context->last_host_timing);
}

/* A host sort on the CPU path, timed for bitonic_context_last_host_timing. */
static bitonic_status host_sort_on_cpu(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                       const bitonic_sort_request *request)
{
    double start = now_ms();
    bitonic_status status = values                                  ? cpu_sort_pairs(keys, values, count, request)
                            : request->key_type >= BITONIC_KEY_U64 ? cpu_sort64(keys, count, request)
                                                                    : cpu_sort(context, keys, count, request, NULL);
    double elapsed = now_ms() - start;
    if (status == BITONIC_SUCCESS)
        context->last_host_timing = (bitonic_host_timing){
            .ran_on = BITONIC_BACKEND_CPU, .count = count, .total_ms = elapsed, .sort_ms = elapsed};
    return status;
}

bitonic_status bitonic_context_last_host_timing(const bitonic_context *context, bitonic_host_timing *out_timing)
{
    if (!context || !out_timing || context->last_host_timing.count == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_timing = context->last_host_timing;
    return BITONIC_SUCCESS;
}

/* Indices 0 .. count-1 sorted by their keys; keys end sorted. Ties keep index
 * order, because pairs with equal keys are ordered by value. */
static bitonic_status sort_indices(bitonic_context *context, void *keys, uint32_t *indices, size_t count,
                                   const bitonic_sort_request *request)
{
    for (size_t i = 0; i < count; ++i)
        indices[i] = (uint32_t)i;
    return sort_pairs_by_value(context, keys, indices, count, request);
}

bitonic_status bitonic_sort_pairs(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                  const bitonic_sort_options *options)
{
    if (!context || ((!keys || !values) && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    if (count <= 1)
        return BITONIC_SUCCESS;
    bitonic_sort_request request = request_of(options);
    if (!(options && options->stable))
        return sort_pairs_by_value(context, keys, values, count, &request);
    /* Stable: sort (key, index), then carry the values along the permutation. */
    uint32_t *indices = malloc(count * sizeof *indices), *moved = malloc(count * sizeof *moved);
    bitonic_status status = indices && moved ? sort_indices(context, keys, indices, count, &request)
                                             : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    if (status == BITONIC_SUCCESS) {
        for (size_t i = 0; i < count; ++i)
            moved[i] = values[indices[i]];
        memcpy(values, moved, count * sizeof *values);
    }
    free(indices);
    free(moved);
    return status;
}

static bitonic_status argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                              const bitonic_sort_options *options)
{
    if (!context || ((!keys || !out_indices) && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    if (count == 0)
        return BITONIC_SUCCESS;
    bitonic_sort_request request = request_of(options);
    void *scratch_keys = malloc(count * key_bytes(request.key_type));
    if (!scratch_keys)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(scratch_keys, keys, count * key_bytes(request.key_type));
    bitonic_status status = sort_indices(context, scratch_keys, out_indices, count, &request);
    free(scratch_keys);
    return status;
}

bitonic_status bitonic_argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                               const bitonic_sort_options *options)
{
    return argsort(context, keys, count, out_indices, options);
}

bitonic_status bitonic_sort_records(bitonic_context *context, void *records, size_t count, size_t stride,
                                    size_t key_offset, const bitonic_sort_options *options)
{
    if (!context || (!records && count > 0) || stride == 0 || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    size_t field_bytes = key_bytes(request_of(options).key_type);
    if (key_offset > stride || stride - key_offset < field_bytes)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX || (count > 0 && stride > SIZE_MAX / count))
        return BITONIC_ERROR_TOO_LARGE;
    if (count <= 1)
        return BITONIC_SUCCESS;
    unsigned char *keys = malloc(count * field_bytes);
    uint32_t *indices = malloc(count * sizeof *indices);
    unsigned char *gathered = malloc(count * stride);
    bitonic_status status = keys && indices && gathered ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    unsigned char *bytes = records;
    for (size_t i = 0; status == BITONIC_SUCCESS && i < count; ++i)
        memcpy(keys + i * field_bytes, bytes + i * stride + key_offset, field_bytes);
    if (status == BITONIC_SUCCESS) {
        bitonic_sort_request request = request_of(options);
        status = sort_indices(context, keys, indices, count, &request);
    }
    if (status == BITONIC_SUCCESS) {
        for (size_t rank = 0; rank < count; ++rank)
            memcpy(gathered + rank * stride, bytes + (size_t)indices[rank] * stride, stride);
        memcpy(records, gathered, count * stride);
    }
    free(keys);
    free(indices);
    free(gathered);
    return status;
}

bitonic_status bitonic_rank_map(bitonic_context *context, const void *keys, size_t count, uint32_t *out_ranks,
                                const bitonic_sort_options *options)
{
    if (!out_ranks && count > 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    uint32_t *indices = count ? malloc(count * sizeof *indices) : NULL;
    if (count && !indices)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_status status = argsort(context, keys, count, indices, options);
    for (size_t rank = 0; status == BITONIC_SUCCESS && rank < count; ++rank)
        out_ranks[indices[rank]] = (uint32_t)rank;
    free(indices);
    return status;
}

/* The first position in [0, count) whose ordered key is at least bound (or
 * above it when strictly_above): the CPU twin of shaders/search.comp. */
static size_t partition_point(const uint32_t *keys, size_t count, uint32_t bound, bool strictly_above,
                              const bitonic_sort_request *request)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        uint32_t key = bitonic_ordered_from_key(keys[middle], request->key_type, order_xor(request));
        if (strictly_above ? key <= bound : key < bound)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

static size_t partition_point64(const uint64_t *keys, size_t count, uint64_t bound, bool strictly_above,
                                const bitonic_sort_request *request)
{
    uint64_t flip = request->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        uint64_t key = bitonic_ordered_from_key64(keys[middle], request->key_type, flip);
        if (strictly_above ? key <= bound : key < bound)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

bitonic_status bitonic_search_range(bitonic_context *context, const void *sorted_keys, size_t count,
                                    const void *lows, const void *highs, size_t query_count, uint32_t *out_first,
                                    uint32_t *out_end, const bitonic_sort_options *options)
{
    if (!context || (!sorted_keys && count > 0) ||
        ((!lows || !highs || !out_first || !out_end) && query_count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX || query_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    if (query_count == 0)
        return BITONIC_SUCCESS;
    bitonic_sort_request request = request_of(options);
    if (context->backend == BITONIC_BACKEND_VULKAN)
        return bitonic_vk_search_host(context->vk, sorted_keys, count, lows, highs, query_count, out_first, out_end,
                                      &request);
    if (is_key64(options)) {
        const uint64_t *keys = sorted_keys, *low_keys = lows, *high_keys = highs;
        uint64_t flip = request.order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
        for (size_t q = 0; q < query_count; ++q) {
            out_first[q] = (uint32_t)partition_point64(
                keys, count, bitonic_ordered_from_key64(low_keys[q], request.key_type, flip), false, &request);
            out_end[q] = (uint32_t)partition_point64(
                keys, count, bitonic_ordered_from_key64(high_keys[q], request.key_type, flip), true, &request);
        }
        return BITONIC_SUCCESS;
    }
    const uint32_t *keys = sorted_keys, *low_keys = lows, *high_keys = highs;
    uint32_t flip = order_xor(&request);
    for (size_t q = 0; q < query_count; ++q) {
        out_first[q] = (uint32_t)partition_point(
            keys, count, bitonic_ordered_from_key(low_keys[q], request.key_type, flip), false, &request);
        out_end[q] = (uint32_t)partition_point(
            keys, count, bitonic_ordered_from_key(high_keys[q], request.key_type, flip), true, &request);
    }
    return BITONIC_SUCCESS;
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
    free(buffer->host_values);
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
    bitonic_sort_request request = request_of(options);
    if (count > buffer->capacity / bitonic_key_words(request.key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;  /* a 64-bit key takes two words of the buffer */
    if (buffer->host_keys && is_key64(options)) {
        double start = now_ms();
        bitonic_status status = cpu_sort64((uint64_t *)(void *)buffer->host_keys, count, &request);
        if (out_timing)
            *out_timing = (bitonic_timing){.sort_ms = now_ms() - start, .pass_count = 1};
        return status;
    }
    if (buffer->host_keys)
        return cpu_sort(buffer->context, buffer->host_keys, count, &request, out_timing);
    return bitonic_vk_buffer_sort(buffer->context->vk, buffer->vk, count, false, &request, out_timing);
}

bitonic_status bitonic_buffer_sort_rows(bitonic_buffer *buffer, size_t row_count, size_t row_length,
                                        const bitonic_sort_options *options, bitonic_timing *out_timing)
{
    if (!buffer || !valid_options(options) || (row_length > 0 && row_count > SIZE_MAX / row_length))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    size_t count = row_count * row_length;
    if (count > buffer->capacity / bitonic_key_words(request.key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (buffer->host_keys) {
        double start = now_ms();
        bitonic_status status = bitonic_sort_rows(buffer->context, buffer->host_keys, row_count, row_length, options);
        if (out_timing)
            *out_timing = (bitonic_timing){.sort_ms = now_ms() - start, .pass_count = 1};
        return status;
    }
    if (row_length <= 1 || count <= 1) {
        if (out_timing)
            *out_timing = (bitonic_timing){0};
        return BITONIC_SUCCESS;
    }
    if (row_length >= UINT32_MAX || count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    request.row_length = (uint32_t)row_length;
    return bitonic_vk_buffer_sort(buffer->context->vk, buffer->vk, count, false, &request, out_timing);
}

static bitonic_status ensure_host_values(bitonic_buffer *buffer)
{
    if (!buffer->host_values)
        buffer->host_values = malloc(buffer->capacity * sizeof(uint32_t));
    return buffer->host_values ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
}

bitonic_status bitonic_buffer_upload_values(bitonic_buffer *buffer, const uint32_t *values, size_t count)
{
    if (!buffer || (!values && count > 0) || count > buffer->capacity)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    if (!buffer->host_keys)
        return bitonic_vk_buffer_upload_values(buffer->context->vk, buffer->vk, values, count);
    bitonic_status status = ensure_host_values(buffer);
    if (status == BITONIC_SUCCESS)
        memcpy(buffer->host_values, values, count * sizeof(uint32_t));
    return status;
}

bitonic_status bitonic_buffer_download_values(bitonic_buffer *buffer, uint32_t *values, size_t count)
{
    if (!buffer || (!values && count > 0) || count > buffer->capacity)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    if (!buffer->host_keys)
        return bitonic_vk_buffer_download_values(buffer->context->vk, buffer->vk, values, count);
    bitonic_status status = ensure_host_values(buffer);
    if (status == BITONIC_SUCCESS)
        memcpy(values, buffer->host_values, count * sizeof(uint32_t));
    return status;
}

bitonic_status bitonic_buffer_sort_pairs(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                         bitonic_timing *out_timing)
{
    if (!buffer || count > buffer->capacity || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (is_key64(options))
        return BITONIC_ERROR_UNSUPPORTED;  /* resident buffers hold 32-bit keys */
    bitonic_sort_request request = request_of(options);
    if (!buffer->host_keys)
        return bitonic_vk_buffer_sort(buffer->context->vk, buffer->vk, count, true, &request, out_timing);
    bitonic_status status = ensure_host_values(buffer);
    double start = now_ms();
    if (status == BITONIC_SUCCESS && count > 1)
        status = cpu_sort_pairs(buffer->host_keys, buffer->host_values, count, &request);
    if (out_timing) {
        *out_timing = (bitonic_timing){.sort_ms = now_ms() - start, .pass_count = 1,
                                       .pass_ms = out_timing->pass_ms, .pass_capacity = out_timing->pass_capacity};
        if (out_timing->pass_ms && out_timing->pass_capacity > 0)
            out_timing->pass_ms[0] = out_timing->sort_ms;
    }
    return status;
}
