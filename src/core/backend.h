/* backend.h: the one interface through which the core (src/core/context.c)
 * reaches an executor. Each backend lives in its own folder (src/cpu,
 * src/vulkan, ...) and exports one table of operations; context.c lists the
 * tables in the order device selection tries them and never names a backend's
 * functions. The public API validates its arguments before it calls a table, so
 * the operations may assume non-NULL pointers and counts within capacity.
 * It stands below the context: it names what a backend is handed (the request,
 * the selector) and nothing of the context's own objects (context_internal.h). */
#ifndef BITONIC_BACKEND_H
#define BITONIC_BACKEND_H

#include "bitonic.h"

/* 32-bit words a key of this type takes: 1, or 2 for the 64-bit types. */
static inline size_t bitonic_key_words(bitonic_key_type type)
{
    return type >= BITONIC_KEY_U64 ? 2u : 1u;
}

/* A timing of no time and pass_count passes, keeping the arrays the caller
 * gave it (pass_ms, pass_details) and their capacity. */
static inline void bitonic_timing_reset(bitonic_timing *timing, uint32_t pass_count)
{
    timing->sort_ms = 0.0;
    timing->pass_count = pass_count;
}

/* What one sort is asked to do, as the layers below the public API see it. */
typedef struct bitonic_sort_request {
    bitonic_order order;
    bitonic_key_type key_type;
    uint32_t row_length;             /* 0: one array; else independent rows of this length */
} bitonic_sort_request;

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

typedef struct bitonic_backend_ops {
    bitonic_backend kind;
    /* Whether this backend takes the selector (a device string, parsed). */
    bool (*accepts)(const bitonic_selector *selector);
    /* Opens the device. With BITONIC_SELECT_AUTO, BITONIC_ERROR_DEVICE_NOT_FOUND
     * or BITONIC_ERROR_VULKAN_UNAVAILABLE let the core try the next backend. */
    bitonic_status (*create)(const bitonic_context_desc *desc, const bitonic_selector *selector, void **out_state);
    void (*destroy)(void *state);
    /* Fills the backend's part of the info (backend is already set, the rest zero). */
    void (*fill_info)(const void *state, bitonic_context_info *info);
    /* NULL: BITONIC_ERROR_UNSUPPORTED. */
    bitonic_status (*pipeline_report)(const void *state, char *text, size_t capacity);

    /* Sorts count keys (and the values, when values is non-NULL) in host memory:
     * one array, or independent rows of request->row_length when it is non-zero.
     * Pairs are ordered by (key, value). timing and stages may be NULL; stages
     * gets the time of each stage where the backend measures them. */
    bitonic_status (*sort_host)(void *state, void *keys, uint32_t *values, size_t count,
                                const bitonic_sort_request *request, bitonic_timing *timing,
                                bitonic_host_timing *stages);
    /* Host memory the device reaches directly (bitonic_host_alloc); host_free
     * gets only what host_alloc gave. NULL: ordinary aligned memory. */
    bitonic_status (*host_alloc)(void *state, size_t bytes, void **out_memory);
    void (*host_free)(void *state, void *memory);
    /* A device whose host sorts may go to the CPU path where that finishes
     * first (device_choice.c): its name for cache files, whether its logical
     * device is made yet, and how long making it took. NULL on backends whose
     * host sorts always stay on them. */
    void (*device_key)(const void *state, char *out, size_t capacity);
    bool (*device_ready)(const void *state);
    double (*device_create_ms)(const void *state);
    /* Makes the deferred device now (the default selection defers it, and on
     * a machine whose census names a GPU the instance too): a failure sends an
     * automatic context's host sorts to the CPU path instead of failing them. */
    bitonic_status (*device_make)(void *state);
    /* true: rows and segments go to sort_host as batched rows (segments padded
     * to a power of two per size class); false: the core sorts each row and each
     * segment on its own as one array. */
    bool batched_rows;
    /* bitonic_search_range on keys already sorted (query_count > 0); NULL:
     * BITONIC_ERROR_UNSUPPORTED. */
    bitonic_status (*search_host)(void *state, const void *sorted_keys, size_t count, const void *lows,
                                  const void *highs, size_t query_count, uint32_t *out_first, uint32_t *out_end,
                                  const bitonic_sort_request *request);

    /* Stable pairs, in (key, input position) order, and the argsort (the
     * positions in that order, keys untouched), of host arrays; count > 1 for
     * the pairs, > 0 for the argsort. NULL: the core sorts (key, position) pairs by sort_host and moves the
     * values or returns the positions itself. */
    bitonic_status (*sort_pairs_stable_host)(void *state, void *keys, uint32_t *values, size_t count,
                                             const bitonic_sort_request *request);
    bitonic_status (*argsort_host)(void *state, const void *keys, size_t count, uint32_t *out_indices,
                                   const bitonic_sort_request *request);

    /* Resident buffers of capacity 32-bit words (keys; values made on demand). */
    bitonic_status (*buffer_create)(void *state, size_t capacity, void **out_buffer);
    void (*buffer_destroy)(void *state, void *buffer);
    bitonic_status (*buffer_upload)(void *state, void *buffer, const uint32_t *keys, size_t count);
    bitonic_status (*buffer_download)(void *state, void *buffer, uint32_t *keys, size_t count);
    bitonic_status (*buffer_upload_values)(void *state, void *buffer, const uint32_t *values, size_t count);
    bitonic_status (*buffer_download_values)(void *state, void *buffer, uint32_t *values, size_t count);
    /* Sorts the first count keys (with the values when with_values), one array or
     * rows as in sort_host. */
    bitonic_status (*buffer_sort)(void *state, void *buffer, size_t count, bool with_values,
                                  const bitonic_sort_request *request, bitonic_timing *timing);
} bitonic_backend_ops;

/* The tables, one per backend folder. */
extern const bitonic_backend_ops bitonic_cpu_backend;
extern const bitonic_backend_ops bitonic_vulkan_backend;
extern const bitonic_backend_ops bitonic_gles_backend;  /* src/gles, or its "not built" table */

#endif /* BITONIC_BACKEND_H */
