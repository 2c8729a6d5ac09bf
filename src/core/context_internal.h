/* context_internal.h: the context and buffer objects behind bitonic.h, as the
 * backend-neutral layer (src/core/context.c, sort_calls.c) keeps them, and the tests read
 * them. The backends are reached through the table of operations in backend.h,
 * which stands below this header; a backend reads these objects only in a
 * public call of its own header that takes a context (bitonic_gles_sort_records). */
#ifndef BITONIC_CONTEXT_INTERNAL_H
#define BITONIC_CONTEXT_INTERNAL_H

#include <pthread.h>

#include "backend.h"
#include "bitonic.h"
#include "device_choice.h"
#include "host_memory.h"

struct bitonic_context {
    /* Held by every public call on the context (recursive: calls built on
     * other public calls take it again), so one context may be shared by
     * threads: their calls run one after another on its queue, command
     * buffers, staging memory and caches. */
    pthread_mutex_t lock;
    bitonic_backend backend;
    /* The caller's description, its strings dropped after creation and its
     * chain replaced by allocator_entry alone, so a backend made later (the
     * CPU path of a Vulkan context) allocates through the same callbacks. */
    bitonic_context_desc desc;
    bitonic_allocator allocator_entry;
    bitonic_host_memory memory;      /* the caller's allocator, or the C library's */
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

/* A device selector string (bitonic_context_desc.device, BITONIC_DEVICE), read. */
bitonic_selector bitonic_parse_selector(const char *text);

/* A monotonic clock in milliseconds (context.c), for the device choice's timings. */
double bitonic_now_ms(void);

/* The context's lock, for public calls outside context.c (sort_calls.c, bitonic_gles.h). */
void bitonic_context_lock(const bitonic_context *context);
void bitonic_context_unlock(const bitonic_context *context);

#endif /* BITONIC_CONTEXT_INTERNAL_H */
