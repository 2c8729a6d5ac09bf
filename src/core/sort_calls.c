/* sort_calls.c: the public sort calls on host arrays (keys, rows, segments,
 * pairs, argsort, records, rank map, search) and on resident buffers, with
 * their argument checks and the routing of host sorts to the CPU path where
 * that finishes first. Each public call holds the context's lock while it runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "context_internal.h"
#include "key_transform.h"

static bool valid_options(const bitonic_sort_options *options)
{
    return !options || ((options->order == BITONIC_ORDER_ASCENDING || options->order == BITONIC_ORDER_DESCENDING) &&
                        (unsigned)options->key_type <= (unsigned)BITONIC_KEY_F64);
}

static size_t key_bytes(bitonic_key_type type)
{
    return bitonic_key_words(type) * sizeof(uint32_t);
}

/* Counts whose bytes would not fit a size_t are refused before any memory is
 * touched: no such array exists, and the products below would wrap. */
static bool bytes_fit(size_t count, size_t element_bytes)
{
    return count <= SIZE_MAX / element_bytes;
}

/* Arrays must have their element's natural alignment (bitonic.h). */
static bool aligned(const void *pointer, size_t alignment)
{
    return ((uintptr_t)pointer & (alignment - 1u)) == 0;
}

static bool ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t a_start = (uintptr_t)a, b_start = (uintptr_t)b;
    return a_bytes > 0 && b_bytes > 0 && a_start < b_start + b_bytes && b_start < a_start + a_bytes;
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

/* The host sort that calibrating the choice times (device_choice.c): the
 * public call for the kind, on the side the choice has forced meanwhile. */
static bitonic_status measure_host_sort(void *user_data, bitonic_sort_kind kind, uint32_t *keys, uint32_t *values,
                                        size_t count)
{
    bitonic_context *context = user_data;
    return kind == BITONIC_SORT_PAIRS    ? bitonic_sort_pairs(context, keys, values, count, NULL)
           : kind == BITONIC_SORT_KEYS64 ? bitonic_sort(context, keys, count,
                                                        &(bitonic_sort_options){.key_type = BITONIC_KEY_U64})
                                         : bitonic_sort_u32(context, keys, count, NULL);
}

/* Host sorts of a device context go to the CPU path where that finishes first
 * (device_choice.c); a CPU context's always run there. */
static bool host_sort_runs_on_cpu(bitonic_context *context, size_t count, bitonic_sort_kind kind)
{
    if (context->backend == BITONIC_BACKEND_CPU)
        return true;
    bitonic_choice_target target = {.ops = context->ops, .state = context->state,
                                    .measure = measure_host_sort, .measure_user_data = context};
    return context->ops->device_key && bitonic_device_choice_on_cpu(&context->choice, &target, count, kind);
}

/* The CPU backend's state for host calls that a device context runs on the
 * CPU path, made on first use (a CPU context's own state otherwise). */
static bitonic_status cpu_state_of(bitonic_context *context, void **out_state)
{
    if (context->backend == BITONIC_BACKEND_CPU) {
        *out_state = context->state;
        return BITONIC_SUCCESS;
    }
    if (!context->cpu_state) {
        bitonic_selector cpu = {BITONIC_SELECT_CPU, 0, NULL};
        bitonic_status created = bitonic_cpu_backend.create(&context->desc, &cpu, &context->cpu_state);
        if (created != BITONIC_SUCCESS)
            return created;
    }
    *out_state = context->cpu_state;
    return BITONIC_SUCCESS;
}

/* What a host call runs on the CPU path: its sort (keys, or pairs by value),
 * its stable pairs, or its argsort (values: the output indices; the keys are
 * only read). */
typedef enum cpu_call { CPU_SORT, CPU_STABLE_PAIRS, CPU_ARGSORT } cpu_call;

/* A host call on the CPU path, through the CPU backend's table, timed for
 * bitonic_context_last_host_timing. The stable pairs and the argsort are the
 * CPU path's own, which move the values with their keys or gather them on
 * the sort's threads, and need no copy of 32-bit keys (cpu_backend.c). */
static bitonic_status host_call_on_cpu(bitonic_context *context, cpu_call call, void *keys, uint32_t *values,
                                       size_t count, const bitonic_sort_request *request)
{
    void *cpu_state;
    bitonic_status made = cpu_state_of(context, &cpu_state);
    if (made != BITONIC_SUCCESS)
        return made;
    const bitonic_backend_ops *cpu = &bitonic_cpu_backend;
    double start = bitonic_now_ms();
    bitonic_status status;
    if (call == CPU_STABLE_PAIRS)
        status = cpu->sort_pairs_stable_host(cpu_state, keys, values, count, request);
    else if (call == CPU_ARGSORT)
        status = cpu->argsort_host(cpu_state, keys, count, values, request);
    else
        status = cpu->sort_host(cpu_state, keys, values, count, request, NULL, NULL);
    double elapsed = bitonic_now_ms() - start;
    if (status == BITONIC_SUCCESS)
        context->last_host_timing = (bitonic_host_timing){
            .ran_on = BITONIC_BACKEND_CPU, .count = count, .total_ms = elapsed, .sort_ms = elapsed};
    return status;
}

static bitonic_status locked_sort(bitonic_context *context, void *keys, size_t count,
                                  const bitonic_sort_options *options)
{
    if (!context || (!keys && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    if (!bytes_fit(count, key_bytes(request.key_type)))
        return BITONIC_ERROR_TOO_LARGE;
    if (!aligned(keys, key_bytes(request.key_type)))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count <= 1)
        return BITONIC_SUCCESS;
    if (host_sort_runs_on_cpu(context, count,
                              bitonic_key_words(request.key_type) > 1 ? BITONIC_SORT_KEYS64 : BITONIC_SORT_KEYS32))
        return host_call_on_cpu(context, CPU_SORT, keys, NULL, count, &request);
    return context->ops->sort_host(context->state, keys, NULL, count, &request, NULL, &context->last_host_timing);
}

static bitonic_status locked_sort_rows(bitonic_context *context, void *keys, size_t row_count, size_t row_length,
                                       const bitonic_sort_options *options)
{
    if (!context || (!keys && row_count > 0 && row_length > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (row_length > 0 && row_count > SIZE_MAX / row_length)
        return BITONIC_ERROR_TOO_LARGE;
    size_t count = row_count * row_length;
    bitonic_sort_request request = request_of(options);
    if (!bytes_fit(count, key_bytes(request.key_type)))
        return BITONIC_ERROR_TOO_LARGE;
    if (!aligned(keys, key_bytes(request.key_type)))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (row_length <= 1 || count <= 1)
        return BITONIC_SUCCESS;
    if (!context->ops->batched_rows) {
        size_t row_bytes = row_length * key_bytes(request.key_type);
        bitonic_status status = BITONIC_SUCCESS;
        for (size_t row = 0; row < row_count && status == BITONIC_SUCCESS; ++row)
            status = context->ops->sort_host(context->state, (unsigned char *)keys + row * row_bytes, NULL,
                                             row_length, &request, NULL, NULL);
        return status;
    }
    if (row_length >= UINT32_MAX || count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    request.row_length = (uint32_t)row_length;
    return context->ops->sort_host(context->state, keys, NULL, count, &request, NULL, NULL);
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
    unsigned char *packed = bitonic_host_memory_alloc(&context->memory, rows * row_length * bytes);
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
    bitonic_host_memory_free(&context->memory, packed);
    return status;
}

static bitonic_status locked_sort_segments(bitonic_context *context, void *keys, const size_t *offsets,
                                           size_t segment_count, const bitonic_sort_options *options)
{
    if (!context || (segment_count > 0 && (!offsets || !keys)) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    for (size_t s = 0; s < segment_count; ++s)
        if (offsets[s + 1] < offsets[s])
            return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    if (segment_count > 0 && !bytes_fit(offsets[segment_count], key_bytes(request.key_type)))
        return BITONIC_ERROR_TOO_LARGE;
    if (!aligned(keys, key_bytes(request.key_type)))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (!context->ops->batched_rows) {
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

/* Pairs ordered by (key, value), on whichever backend the context has. */
static bitonic_status sort_pairs_by_value(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                          const bitonic_sort_request *request)
{
    if (host_sort_runs_on_cpu(context, count, BITONIC_SORT_PAIRS))
        return host_call_on_cpu(context, CPU_SORT, keys, values, count, request);
    return context->ops->sort_host(context->state, keys, values, count, request, NULL, &context->last_host_timing);
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

static bitonic_status locked_sort_pairs(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                        const bitonic_sort_options *options)
{
    if (!context || ((!keys || !values) && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_sort_request request = request_of(options);
    size_t bytes = key_bytes(request.key_type);
    if (!aligned(keys, bytes) || !aligned(values, sizeof *values) ||
        ranges_overlap(keys, count * bytes, values, count * sizeof *values))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count <= 1)
        return BITONIC_SUCCESS;
    if (!(options && options->stable))
        return sort_pairs_by_value(context, keys, values, count, &request);
    if (host_sort_runs_on_cpu(context, count, BITONIC_SORT_PAIRS))
        return host_call_on_cpu(context, CPU_STABLE_PAIRS, keys, values, count, &request);
    /* Stable: sort (key, index), then carry the values along the permutation. */
    uint32_t *indices = bitonic_host_memory_alloc(&context->memory, count * sizeof *indices);
    uint32_t *moved = bitonic_host_memory_alloc(&context->memory, count * sizeof *moved);
    bitonic_status status = indices && moved ? sort_indices(context, keys, indices, count, &request)
                                             : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    if (status == BITONIC_SUCCESS) {
        for (size_t i = 0; i < count; ++i)
            moved[i] = values[indices[i]];
        memcpy(values, moved, count * sizeof *values);
    }
    bitonic_host_memory_free(&context->memory, indices);
    bitonic_host_memory_free(&context->memory, moved);
    return status;
}

/* The keys' positions in sorted order. On the CPU path its argsort, which
 * writes the positions alone and leaves the keys as they are; elsewhere a sort
 * of (key, position) pairs, which sorts the keys too: on a copy of them
 * unless keys_may_move. */
static bitonic_status sort_positions(bitonic_context *context, void *keys, bool keys_may_move, uint32_t *indices,
                                     size_t count, const bitonic_sort_request *request)
{
    if (host_sort_runs_on_cpu(context, count, BITONIC_SORT_PAIRS))
        return host_call_on_cpu(context, CPU_ARGSORT, keys, indices, count, request);
    if (keys_may_move)
        return sort_indices(context, keys, indices, count, request);
    void *scratch_keys = bitonic_host_memory_alloc(&context->memory, count * key_bytes(request->key_type));
    if (!scratch_keys)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(scratch_keys, keys, count * key_bytes(request->key_type));
    bitonic_status status = sort_indices(context, scratch_keys, indices, count, request);
    bitonic_host_memory_free(&context->memory, scratch_keys);
    return status;
}

static bitonic_status argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                              const bitonic_sort_options *options)
{
    if (!context || ((!keys || !out_indices) && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_sort_request request = request_of(options);
    if (!aligned(keys, key_bytes(request.key_type)) || !aligned(out_indices, sizeof *out_indices) ||
        ranges_overlap(keys, count * key_bytes(request.key_type), out_indices, count * sizeof *out_indices))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    return sort_positions(context, (void *)keys, false, out_indices, count, &request);
}

static bitonic_status locked_argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                                     const bitonic_sort_options *options)
{
    return argsort(context, keys, count, out_indices, options);
}

/* The records' passes around the sort of their keys, with copies of a size
 * the compiler knows: the keys read with copies of 4 or 8 bytes, and the
 * gather with a loop of its own for each common stride, whose copies become a
 * few moves. A memcpy call a record, of a size known only at run time, made
 * these passes a third of the sort of 2^22 records of 16 bytes (4-byte keys;
 * 178-191 ms on one thread of the 2-core machine, 9.5x the sort of their keys
 * alone; docs/perf-log.md, entry 128). Prefetching the record a few ranks
 * ahead measured no faster. */
static void read_record_keys(unsigned char *keys, const unsigned char *records, size_t count, size_t stride,
                             size_t key_offset, size_t field_bytes)
{
    records += key_offset;
    if (field_bytes == 8u) {
        for (size_t i = 0; i < count; ++i)
            memcpy(keys + i * 8u, records + i * stride, 8u);
    } else {
        for (size_t i = 0; i < count; ++i)
            memcpy(keys + i * 4u, records + i * stride, 4u);
    }
}

#define GATHER_RECORDS(size)                                                     \
    for (size_t rank = 0; rank < count; ++rank)                                  \
        memcpy(to + rank * (size), from + (size_t)indices[rank] * (size), (size));

/* to[rank] = from[indices[rank]], records of stride bytes. */
static void gather_records(unsigned char *to, const unsigned char *from, const uint32_t *indices, size_t count,
                           size_t stride)
{
    switch (stride) {
    case 4: GATHER_RECORDS(4u) break;
    case 8: GATHER_RECORDS(8u) break;
    case 12: GATHER_RECORDS(12u) break;
    case 16: GATHER_RECORDS(16u) break;
    case 24: GATHER_RECORDS(24u) break;
    case 32: GATHER_RECORDS(32u) break;
    case 64: GATHER_RECORDS(64u) break;
    default: GATHER_RECORDS(stride) break;
    }
}
#undef GATHER_RECORDS

static bitonic_status locked_sort_records(bitonic_context *context, void *records, size_t count, size_t stride,
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
    unsigned char *keys = bitonic_host_memory_alloc(&context->memory, count * field_bytes);
    uint32_t *indices = bitonic_host_memory_alloc(&context->memory, count * sizeof *indices);
    unsigned char *gathered = bitonic_host_memory_alloc(&context->memory, count * stride);
    bitonic_status status = keys && indices && gathered ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    unsigned char *bytes = records;
    if (status == BITONIC_SUCCESS) {
        read_record_keys(keys, bytes, count, stride, key_offset, field_bytes);
        bitonic_sort_request request = request_of(options);
        /* The keys are a copy already: they may move. */
        status = sort_positions(context, keys, true, indices, count, &request);
    }
    if (status == BITONIC_SUCCESS) {
        gather_records(gathered, bytes, indices, count, stride);
        memcpy(records, gathered, count * stride);
    }
    bitonic_host_memory_free(&context->memory, keys);
    bitonic_host_memory_free(&context->memory, indices);
    bitonic_host_memory_free(&context->memory, gathered);
    return status;
}

static bitonic_status locked_rank_map(bitonic_context *context, const void *keys, size_t count, uint32_t *out_ranks,
                                      const bitonic_sort_options *options)
{
    if (!context || (!out_ranks && count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    if (!aligned(out_ranks, sizeof *out_ranks) ||
        ranges_overlap(keys, count * key_bytes(request_of(options).key_type), out_ranks, count * sizeof *out_ranks))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    uint32_t *indices = count ? bitonic_host_memory_alloc(&context->memory, count * sizeof *indices) : NULL;
    if (count && !indices)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_status status = argsort(context, keys, count, indices, options);
    for (size_t rank = 0; status == BITONIC_SUCCESS && rank < count; ++rank)
        out_ranks[indices[rank]] = (uint32_t)rank;
    bitonic_host_memory_free(&context->memory, indices);
    return status;
}

static bitonic_status locked_search_range(bitonic_context *context, const void *sorted_keys, size_t count,
                                          const void *lows, const void *highs, size_t query_count, uint32_t *out_first,
                                          uint32_t *out_end, const bitonic_sort_options *options)
{
    if (!context || (!sorted_keys && count > 0) ||
        ((!lows || !highs || !out_first || !out_end) && query_count > 0) || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count >= UINT32_MAX || query_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_sort_request request = request_of(options);
    size_t bytes = key_bytes(request.key_type);
    if (!aligned(sorted_keys, bytes) || !aligned(lows, bytes) || !aligned(highs, bytes) ||
        !aligned(out_first, sizeof *out_first) || !aligned(out_end, sizeof *out_end))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (query_count == 0)
        return BITONIC_SUCCESS;
    if (!context->ops->search_host) {
        /* A backend without a search of its own (GLES: the keys are in host
         * memory anyway) searches on the CPU path: the same bounds bit for bit. */
        void *cpu_state;
        bitonic_status made = cpu_state_of(context, &cpu_state);
        if (made != BITONIC_SUCCESS)
            return made;
        return bitonic_cpu_backend.search_host(cpu_state, sorted_keys, count, lows, highs, query_count, out_first,
                                               out_end, &request);
    }
    return context->ops->search_host(context->state, sorted_keys, count, lows, highs, query_count, out_first,
                                     out_end, &request);
}


static bitonic_status locked_buffer_create(bitonic_context *context, size_t capacity_keys, bitonic_buffer **out_buffer)
{
    if (!out_buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_buffer = NULL;
    if (!context || capacity_keys == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (!bytes_fit(capacity_keys, sizeof(uint32_t)))
        return BITONIC_ERROR_TOO_LARGE;
    bitonic_buffer *buffer = bitonic_host_memory_calloc(&context->memory, 1, sizeof *buffer);
    if (!buffer)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    buffer->context = context;
    buffer->capacity = capacity_keys;
    bitonic_status status = context->ops->buffer_create(context->state, capacity_keys, &buffer->state);
    if (status != BITONIC_SUCCESS) {
        bitonic_host_memory_free(&context->memory, buffer);
        return status;
    }
    *out_buffer = buffer;
    return BITONIC_SUCCESS;
}

static void locked_buffer_destroy(bitonic_buffer *buffer)
{
    if (!buffer)
        return;
    buffer->context->ops->buffer_destroy(buffer->context->state, buffer->state);
    bitonic_host_memory_free(&buffer->context->memory, buffer);
}

static bitonic_status locked_buffer_upload(bitonic_buffer *buffer, const uint32_t *keys, size_t count)
{
    if (!buffer || (!keys && count > 0) || count > buffer->capacity || !aligned(keys, sizeof *keys))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    return buffer->context->ops->buffer_upload(buffer->context->state, buffer->state, keys, count);
}

static bitonic_status locked_buffer_download(bitonic_buffer *buffer, uint32_t *keys, size_t count)
{
    if (!buffer || (!keys && count > 0) || count > buffer->capacity || !aligned(keys, sizeof *keys))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    return buffer->context->ops->buffer_download(buffer->context->state, buffer->state, keys, count);
}

static bitonic_status locked_buffer_sort(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                         bitonic_timing *out_timing)
{
    if (!buffer || count > buffer->capacity || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    if (count > buffer->capacity / bitonic_key_words(request.key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;  /* a 64-bit key takes two words of the buffer */
    return buffer->context->ops->buffer_sort(buffer->context->state, buffer->state, count, false, &request,
                                             out_timing);
}

static bitonic_status locked_buffer_sort_rows(bitonic_buffer *buffer, size_t row_count, size_t row_length,
                                              const bitonic_sort_options *options, bitonic_timing *out_timing)
{
    if (!buffer || !valid_options(options) || (row_length > 0 && row_count > SIZE_MAX / row_length))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_sort_request request = request_of(options);
    size_t count = row_count * row_length;
    if (count > buffer->capacity / bitonic_key_words(request.key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    const bitonic_backend_ops *ops = buffer->context->ops;
    if (ops->batched_rows && (row_length <= 1 || count <= 1)) {
        if (out_timing)
            bitonic_timing_reset(out_timing, 0);
        return BITONIC_SUCCESS;
    }
    if (row_length >= UINT32_MAX || (ops->batched_rows && count >= UINT32_MAX))
        return BITONIC_ERROR_TOO_LARGE;
    request.row_length = (uint32_t)row_length;
    return ops->buffer_sort(buffer->context->state, buffer->state, count, false, &request, out_timing);
}

static bitonic_status locked_buffer_upload_values(bitonic_buffer *buffer, const uint32_t *values, size_t count)
{
    if (!buffer || (!values && count > 0) || count > buffer->capacity || !aligned(values, sizeof *values))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    return buffer->context->ops->buffer_upload_values(buffer->context->state, buffer->state, values, count);
}

static bitonic_status locked_buffer_download_values(bitonic_buffer *buffer, uint32_t *values, size_t count)
{
    if (!buffer || (!values && count > 0) || count > buffer->capacity || !aligned(values, sizeof *values))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (count == 0)
        return BITONIC_SUCCESS;
    return buffer->context->ops->buffer_download_values(buffer->context->state, buffer->state, values, count);
}

static bitonic_status locked_buffer_sort_pairs(bitonic_buffer *buffer, size_t count,
                                               const bitonic_sort_options *options, bitonic_timing *out_timing)
{
    if (!buffer || count > buffer->capacity || !valid_options(options))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (options && options->key_type >= BITONIC_KEY_U64)
        return BITONIC_ERROR_UNSUPPORTED;  /* resident buffers hold 32-bit keys */
    bitonic_sort_request request = request_of(options);
    return buffer->context->ops->buffer_sort(buffer->context->state, buffer->state, count, true, &request,
                                             out_timing);
}

/* ---- The public calls: each holds the context's lock while it runs ---- */

bitonic_status bitonic_sort(bitonic_context *context, void *keys, size_t count, const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_sort(context, keys, count, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_sort_rows(bitonic_context *context, void *keys, size_t row_count, size_t row_length,
                                 const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_sort_rows(context, keys, row_count, row_length, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_sort_segments(bitonic_context *context, void *keys, const size_t *offsets,
                                     size_t segment_count, const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_sort_segments(context, keys, offsets, segment_count, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_sort_pairs(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                  const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_sort_pairs(context, keys, values, count, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                               const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_argsort(context, keys, count, out_indices, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_sort_records(bitonic_context *context, void *records, size_t count, size_t stride,
                                    size_t key_offset, const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_sort_records(context, records, count, stride, key_offset, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_rank_map(bitonic_context *context, const void *keys, size_t count, uint32_t *out_ranks,
                                const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_rank_map(context, keys, count, out_ranks, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_search_range(bitonic_context *context, const void *sorted_keys, size_t count,
                                    const void *lows, const void *highs, size_t query_count, uint32_t *out_first,
                                    uint32_t *out_end, const bitonic_sort_options *options)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_search_range(context, sorted_keys, count, lows, highs, query_count, out_first,
                                                out_end, options);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_buffer_create(bitonic_context *context, size_t capacity_keys, bitonic_buffer **out_buffer)
{
    if (!context)
        return locked_buffer_create(context, capacity_keys, out_buffer);  /* its checks, without a lock */
    bitonic_context_lock(context);
    bitonic_status status = locked_buffer_create(context, capacity_keys, out_buffer);
    bitonic_context_unlock(context);
    return status;
}

void bitonic_buffer_destroy(bitonic_buffer *buffer)
{
    if (!buffer)
        return;
    bitonic_context *context = buffer->context;
    bitonic_context_lock(context);
    locked_buffer_destroy(buffer);
    bitonic_context_unlock(context);
}

bitonic_status bitonic_buffer_upload(bitonic_buffer *buffer, const uint32_t *keys, size_t count)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_upload(buffer, keys, count);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_download(bitonic_buffer *buffer, uint32_t *keys, size_t count)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_download(buffer, keys, count);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_sort(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                   bitonic_timing *out_timing)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_sort(buffer, count, options, out_timing);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_sort_rows(bitonic_buffer *buffer, size_t row_count, size_t row_length,
                                        const bitonic_sort_options *options, bitonic_timing *out_timing)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_sort_rows(buffer, row_count, row_length, options, out_timing);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_upload_values(bitonic_buffer *buffer, const uint32_t *values, size_t count)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_upload_values(buffer, values, count);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_download_values(bitonic_buffer *buffer, uint32_t *values, size_t count)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_download_values(buffer, values, count);
    bitonic_context_unlock(buffer->context);
    return status;
}

bitonic_status bitonic_buffer_sort_pairs(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                         bitonic_timing *out_timing)
{
    if (!buffer)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(buffer->context);
    bitonic_status status = locked_buffer_sort_pairs(buffer, count, options, out_timing);
    bitonic_context_unlock(buffer->context);
    return status;
}
