/* context_internal.h: the context and buffer objects behind bitonic.h, shared by
 * the backend-neutral layer (src/core/context.c) and the backends, which reach
 * them through the table of operations in backend.h. */
#ifndef BITONIC_CONTEXT_INTERNAL_H
#define BITONIC_CONTEXT_INTERNAL_H

#include <pthread.h>

#include "bitonic.h"
#include "device_choice.h"

typedef struct bitonic_backend_ops bitonic_backend_ops;

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

struct bitonic_context {
    /* Held by every public call on the context (recursive: calls built on
     * other public calls take it again), so one context may be shared by
     * threads: their calls run one after another on its queue, command
     * buffers, staging memory and caches. */
    pthread_mutex_t lock;
    bitonic_backend backend;
    bitonic_context_desc desc;
    const bitonic_backend_ops *ops;  /* the backend this context runs on */
    void *state;                     /* that backend's own object (its create's output) */
    /* Host sorts of a Vulkan context may run on the CPU path instead, where they
     * finish first (device_choice.c): through the CPU backend's table, with a
     * state of its own made on first use. */
    void *cpu_state;
    bitonic_device_choice choice;    /* host sorts on the CPU path or the device (device_choice.c) */
    bitonic_host_timing last_host_timing;  /* count 0: no host sort yet */
    char cache_directory[BITONIC_CACHE_PATH_MAX];  /* resolved at creation; "" when off */
};

struct bitonic_buffer {
    bitonic_context *context;
    size_t capacity;                 /* 32-bit words */
    void *state;                     /* the backend's buffer object */
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

/* The context's lock, for public calls outside context.c (bitonic_gles.h). */
void bitonic_context_lock(const bitonic_context *context);
void bitonic_context_unlock(const bitonic_context *context);

#endif /* BITONIC_CONTEXT_INTERNAL_H */
