/* context.c: the backend-neutral layer of the public API, the context's side:
 * status names, device selection from the option or BITONIC_DEVICE, the
 * description's checks, the context's lifetime (in the caller's allocator
 * when the chain names one), lock and info, and host memory. The sort calls are in sort_calls.c. It reaches the backends only
 * through their tables (backend.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "bitonic_gles.h"
#include "bitonic_tuning_overrides.h"
#include "context_internal.h"
#include "key_transform.h"
#include "settings.h"

/* The backends in the order device selection tries them: the first whose
 * accepts() takes the selector and whose create() succeeds wins; with the
 * automatic selector a backend that finds no device passes to the next one. */
static const bitonic_backend_ops *const backends[] = {
    &bitonic_gles_backend,  /* only for the device "gles", so it goes before the Vulkan name match */
    &bitonic_vulkan_backend,
    &bitonic_cpu_backend,
};

void bitonic_context_lock(const bitonic_context *context)
{
    /* The lock guards the context's state; it is no part of the context's
     * value, so a call that only reads the context takes it too. */
    pthread_mutex_lock((pthread_mutex_t *)&context->lock);
}

void bitonic_context_unlock(const bitonic_context *context)
{
    pthread_mutex_unlock((pthread_mutex_t *)&context->lock);
}

/* Recursive: a public call built on other public calls (segments on rows,
 * records on pairs) takes the lock again on the same thread. */
static bool init_context_lock(pthread_mutex_t *lock)
{
    pthread_mutexattr_t attributes;
    if (pthread_mutexattr_init(&attributes) != 0)
        return false;
    bool made = pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE) == 0 &&
                pthread_mutex_init(lock, &attributes) == 0;
    pthread_mutexattr_destroy(&attributes);
    return made;
}

/* What every backend refuses alike, before any of them sees the description:
 * an enum value past its last (the description's and its tuning overrides'),
 * and a malformed BITONIC_* environment value (settings.c). */
static bitonic_status check_desc(const bitonic_context_desc *desc)
{
    const bitonic_tuning_overrides *overrides = bitonic_tuning_overrides_find(desc->next);
    bitonic_host_memory memory;
    if (!bitonic_host_memory_from_chain(desc->next, &memory) ||
        (unsigned)desc->strategy > (unsigned)BITONIC_STRATEGY_TRANSPOSE ||
        (unsigned)overrides->merge_kernel > (unsigned)BITONIC_MERGE_KERNEL_DIRECT ||
        (unsigned)overrides->merge_fused_split_searcher > (unsigned)BITONIC_SPLIT_SEARCHER_SUBGROUP ||
        desc->gles_layout > (uint32_t)BITONIC_GLES_LAYOUT_2D || bitonic_check_environment(NULL, 0) != BITONIC_SUCCESS)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    return BITONIC_SUCCESS;
}

const char *bitonic_status_string(bitonic_status status)
{
    switch (status) {
    case BITONIC_SUCCESS: return "success";
    case BITONIC_ERROR_INVALID_ARGUMENT: return "invalid argument (a NULL pointer, an unknown option, a misaligned or overlapping array, a count above the buffer's capacity, or a malformed BITONIC_* environment value)";
    case BITONIC_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
    case BITONIC_ERROR_OUT_OF_DEVICE_MEMORY: return "out of device memory";
    case BITONIC_ERROR_TOO_LARGE: return "too many keys for one buffer on this device";
    case BITONIC_ERROR_DEVICE_NOT_FOUND: return "no device matches the selection (option or BITONIC_DEVICE)";
    case BITONIC_ERROR_UNSUPPORTED: return "the device lacks a feature the sort needs";
    case BITONIC_ERROR_VULKAN_UNAVAILABLE: return "no usable Vulkan loader or driver";
    case BITONIC_ERROR_VALIDATION_LAYER_MISSING: return "validation was requested but VK_LAYER_KHRONOS_validation is not installed";
    case BITONIC_ERROR_DEVICE_LOST: return "the Vulkan device was lost";
    case BITONIC_ERROR_VULKAN: return "a Vulkan call failed";
    case BITONIC_ERROR_GLES_UNAVAILABLE: return "OpenGL ES 3 through EGL is unavailable (not built in, no EGL or GLES library, no ES 3 context, or none current)";
    case BITONIC_ERROR_GL: return "an OpenGL ES call failed";
    case BITONIC_ERROR_COMMUNICATION: return "an MPI call failed";
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
    const bitonic_context_desc defaults = {0};
    if (!desc)
        desc = &defaults;
    bitonic_status checked = check_desc(desc);
    if (checked != BITONIC_SUCCESS)
        return checked;
    bitonic_host_memory memory;
    bitonic_host_memory_from_chain(desc->next, &memory);  /* well formed: check_desc said so */
    bitonic_context *context = bitonic_host_memory_calloc(&memory, 1, sizeof *context);
    if (!context)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    context->desc = *desc;
    context->memory = memory;
    if (!init_context_lock(&context->lock)) {
        bitonic_host_memory_free(&memory, context);
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    }
    const char *device = context->desc.device;
    bitonic_setting_value device_setting;
    if ((!device || !*device) && bitonic_setting_read(BITONIC_SETTING_DEVICE, &device_setting))
        device = device_setting.text;
    bitonic_selector selector = bitonic_parse_selector(device);

    bitonic_status status = BITONIC_ERROR_DEVICE_NOT_FOUND;
    for (size_t b = 0; b < sizeof backends / sizeof backends[0]; ++b) {
        if (!backends[b]->accepts(&selector))
            continue;
        status = backends[b]->create(&context->desc, &selector, &context->state);
        if (status == BITONIC_SUCCESS) {
            context->ops = backends[b];
            context->backend = backends[b]->kind;
            break;
        }
        bool fall_back = selector.kind == BITONIC_SELECT_AUTO &&
                         (status == BITONIC_ERROR_DEVICE_NOT_FOUND || status == BITONIC_ERROR_VULKAN_UNAVAILABLE);
        if (!fall_back)
            break;
    }
    if (status != BITONIC_SUCCESS) {
        pthread_mutex_destroy(&context->lock);
        bitonic_host_memory_free(&memory, context);
        return status;
    }
    if (context->ops->device_key) {
        char device_key[64];
        context->ops->device_key(context->state, device_key, sizeof device_key);
        bitonic_device_choice_init(&context->choice, &context->desc, selector.kind == BITONIC_SELECT_AUTO, device_key);
        context->choice.memory = &context->memory;
    }
    bitonic_cache_directory(&context->desc, context->cache_directory, sizeof context->cache_directory);
    context->desc.device = NULL;  /* the caller's strings need not outlive this call */
    context->desc.cache_directory = NULL;
    /* Nor the chain: the backends took what they need, and one made later
     * finds the allocator in the context's own copy. */
    context->allocator_entry = (bitonic_allocator){.type = BITONIC_STRUCTURE_TYPE_ALLOCATOR,
                                                   .allocate = memory.allocate, .free = memory.free,
                                                   .user_data = memory.user_data, .vulkan = memory.vulkan};
    context->desc.next = &context->allocator_entry;
    *out_context = context;
    return BITONIC_SUCCESS;
}

/* A monotonic clock in milliseconds, for the device choice's timings (here and
 * in sort_calls.c). */
double bitonic_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void bitonic_context_destroy(bitonic_context *context)
{
    if (!context)
        return;
    /* A made device's release is timed for the device choice: a one-shot
     * process pays it beside the device's creation. */
    bool device_made = context->ops->device_key && context->ops->device_ready(context->state);
    double start = device_made ? bitonic_now_ms() : 0.0;
    context->ops->destroy(context->state);
    if (device_made)
        bitonic_device_choice_note_release(&context->choice, bitonic_now_ms() - start);
    if (context->cpu_state)
        bitonic_cpu_backend.destroy(context->cpu_state);
    pthread_mutex_destroy(&context->lock);
    bitonic_host_memory memory = context->memory;
    bitonic_host_memory_free(&memory, context);
}

static bitonic_status locked_context_get_info(const bitonic_context *context, bitonic_context_info *out_info)
{
    if (!context || !out_info)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    memset(out_info, 0, sizeof *out_info);
    out_info->backend = context->backend;
    snprintf(out_info->cache_directory, sizeof out_info->cache_directory, "%s", context->cache_directory);
    context->ops->fill_info(context->state, out_info);
    /* Host sorts of fewer keys run on the CPU path, as host_sort_runs_on_cpu()
     * decides: all of them on the CPU backend, below the device choice's
     * crossover on a device that has one, none (1) on a backend that keeps them. */
    out_info->crossover_keys = context->backend == BITONIC_BACKEND_CPU ? UINT64_MAX
                               : context->ops->device_key           ? bitonic_device_choice_known(&context->choice)
                                                                    : 1u;
    return BITONIC_SUCCESS;
}

static bitonic_status locked_context_pipeline_report(const bitonic_context *context, char *text, size_t capacity)
{
    if (!context || !text || capacity == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    text[0] = '\0';
    if (!context->ops->pipeline_report)
        return BITONIC_ERROR_UNSUPPORTED;
    return context->ops->pipeline_report(context->state, text, capacity);
}

static bitonic_status locked_context_last_host_timing(const bitonic_context *context, bitonic_host_timing *out_timing)
{
    if (!context || !out_timing || context->last_host_timing.count == 0)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_timing = context->last_host_timing;
    return BITONIC_SUCCESS;
}

static bitonic_status locked_host_alloc(bitonic_context *context, size_t bytes, void **out_memory)
{
    if (!context || bytes == 0 || !out_memory)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    *out_memory = NULL;
    if (context->ops->host_alloc)
        return context->ops->host_alloc(context->state, bytes, out_memory);
    /* Whole cache lines, so that no other data shares the block's last line. */
    if (bytes > SIZE_MAX - 63u)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    *out_memory = bitonic_host_memory_alloc_aligned(&context->memory, (bytes + 63u) & ~(size_t)63u, 64);
    return *out_memory ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY;
}

static void locked_host_free(bitonic_context *context, void *memory)
{
    if (!context || !memory)
        return;
    if (context->ops->host_free)
        context->ops->host_free(context->state, memory);
    else
        bitonic_host_memory_free(&context->memory, memory);
}

/* ---- The public calls: each holds the context's lock while it runs ---- */

bitonic_status bitonic_context_get_info(const bitonic_context *context, bitonic_context_info *out_info)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_context_get_info(context, out_info);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_context_pipeline_report(const bitonic_context *context, char *text, size_t capacity)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_context_pipeline_report(context, text, capacity);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_context_last_host_timing(const bitonic_context *context, bitonic_host_timing *out_timing)
{
    if (!context)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    bitonic_context_lock(context);
    bitonic_status status = locked_context_last_host_timing(context, out_timing);
    bitonic_context_unlock(context);
    return status;
}

bitonic_status bitonic_host_alloc(bitonic_context *context, size_t bytes, void **out_memory)
{
    if (!context)
        return locked_host_alloc(context, bytes, out_memory);  /* its checks, without a lock to take */
    bitonic_context_lock(context);
    bitonic_status status = locked_host_alloc(context, bytes, out_memory);
    bitonic_context_unlock(context);
    return status;
}

void bitonic_host_free(bitonic_context *context, void *memory)
{
    if (!context)
        return;
    bitonic_context_lock(context);
    locked_host_free(context, memory);
    bitonic_context_unlock(context);
}

