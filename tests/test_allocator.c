/* test_allocator.c: the allocation callbacks of bitonic.h (bitonic_allocator)
 * and every allocation through them failing in turn, SQLite's way, on the CPU
 * path and on the Vulkan device of BITONIC_TEST_DEVICE (lavapipe without a
 * GPU, validation on). The callbacks tag each block, so the test knows what
 * they made: a scenario (a context; sorts of keys, pairs, argsort, rank map,
 * records, rows, segments; a resident buffer; a host block; destroy) runs once
 * to count the allocations, then once per allocation with that one failing.
 * Each call must succeed with a sorted result or say
 * BITONIC_ERROR_OUT_OF_HOST_MEMORY, every block must be freed through the
 * callbacks by the time the context is destroyed, nothing freed may be a block
 * they did not make, and the validation layer must stay silent. On the Vulkan
 * device the VkAllocationCallbacks of the same entry count in the same
 * sequence (the loader's, the layer's and the driver's allocations for the
 * context's objects); a driver has many, so the replays step through them
 * with a stride that keeps the test to about VULKAN_REPLAYS runs, printed
 * (BITONIC_TEST_ALLOCATOR_ALL=1: every one, a few minutes on lavapipe).
 * Which Vulkan allocations may fail, and why not the others, is said at
 * vulkan_allocate and command_callbacks below.
 * No interposition of malloc, so it runs under AddressSanitizer too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitonic.h"
#include "bitonic_vulkan.h"
#include "test_util.h"
#include "vulkan_test_device.h"

enum { KEYS = 3000, ROWS = 3, ROW_LENGTH = 700, VULKAN_REPLAYS = 32 };

/* What the callbacks saw. One sequence for host and Vulkan allocations. */
typedef struct ledger {
    atomic_long allocations;         /* attempted since reset, failed ones included */
    atomic_long fail_at;             /* the allocation (0-based) that fails; -1 none */
    atomic_bool failed_one;
    atomic_long live_host, live_vulkan;
    atomic_long misaligned, foreign_frees;
    atomic_long by_scope[5];         /* the Vulkan allocations by VkSystemAllocationScope */
} ledger;

static ledger books;

#define TAG_MAGIC 0x5a17a110c0ffee00ull
#define HEADER 32u

static void reset(long fail_at)
{
    atomic_store(&books.allocations, 0);
    atomic_store(&books.fail_at, fail_at);
    atomic_store(&books.failed_one, false);
    atomic_store(&books.live_host, 0);
    atomic_store(&books.live_vulkan, 0);
    atomic_store(&books.misaligned, 0);
    atomic_store(&books.foreign_frees, 0);
    for (int scope = 0; scope < 5; ++scope)
        atomic_store(&books.by_scope[scope], 0);
}

static bool should_fail(void)
{
    long index = atomic_fetch_add(&books.allocations, 1);
    if (index != atomic_load(&books.fail_at))
        return false;
    atomic_store(&books.failed_one, true);
    return true;
}

/* A block of size bytes at alignment, tagged before its start: the magic,
 * where the underlying block starts, the size, and which side made it. */
static void *tagged_block(size_t size, size_t alignment, bool vulkan)
{
    if (alignment < 16)
        alignment = 16;
    if (size > SIZE_MAX - HEADER - alignment)
        return NULL;
    unsigned char *raw = malloc(size + HEADER + alignment);
    if (!raw)
        return NULL;
    uintptr_t start = ((uintptr_t)raw + HEADER + alignment - 1) & ~(uintptr_t)(alignment - 1);
    uint64_t *header = (uint64_t *)start;
    header[-1] = TAG_MAGIC;
    header[-2] = (uint64_t)(uintptr_t)raw;
    header[-3] = size;
    header[-4] = vulkan;
    atomic_fetch_add(vulkan ? &books.live_vulkan : &books.live_host, 1);
    return (void *)start;
}

static bool is_tagged(const void *pointer)
{
    return pointer && ((const uint64_t *)pointer)[-1] == TAG_MAGIC;
}

static void release_block(void *pointer)
{
    uint64_t *header = pointer;
    header[-1] = 0;
    atomic_fetch_sub(header[-4] ? &books.live_vulkan : &books.live_host, 1);
    free((void *)(uintptr_t)header[-2]);
}

static void *host_allocate(void *user_data, size_t size, size_t alignment)
{
    (void)user_data;
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment < 16)
        atomic_fetch_add(&books.misaligned, 1);
    return should_fail() ? NULL : tagged_block(size, alignment, false);
}

static void host_free(void *user_data, void *memory)
{
    (void)user_data;
    if (!is_tagged(memory) || ((uint64_t *)memory)[-4] != 0) {
        atomic_fetch_add(&books.foreign_frees, 1);
        return;
    }
    release_block(memory);
}

/* Set while the driver runs an entry point that does not survive a failed
 * allocation (below, at the entry points the test stands in front of). */
static _Thread_local bool inside_unfailable_call;

/* Only allocations of an object's or a cache's scope may fail: those of the
 * objects the context makes (buffers, memory, pools, fences, pipelines). The
 * instance's, the device's and a command's are counted for leaks but never
 * failed: the loader makes them while the instance and the device are
 * created, and answers a failure there by reading its manifests as broken or
 * by dropping the validation layer from the device, which then crashes in
 * the layer and the driver; that is the loader's to fix, not the library's. */
static VKAPI_ATTR void *VKAPI_CALL vulkan_allocate(void *user_data, size_t size, size_t alignment,
                                                   VkSystemAllocationScope scope)
{
    (void)user_data;
    atomic_fetch_add(&books.by_scope[scope <= VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE ? scope : 0], 1);
    bool may_fail = (scope == VK_SYSTEM_ALLOCATION_SCOPE_OBJECT || scope == VK_SYSTEM_ALLOCATION_SCOPE_CACHE) &&
                    !inside_unfailable_call;
    return may_fail && should_fail() ? NULL : tagged_block(size, alignment, true);
}

static VKAPI_ATTR void VKAPI_CALL vulkan_free(void *user_data, void *memory)
{
    (void)user_data;
    if (!memory)
        return;
    if (!is_tagged(memory) || ((uint64_t *)memory)[-4] != 1) {
        atomic_fetch_add(&books.foreign_frees, 1);
        return;
    }
    release_block(memory);
}

static VKAPI_ATTR void *VKAPI_CALL vulkan_reallocate(void *user_data, void *original, size_t size, size_t alignment,
                                                     VkSystemAllocationScope scope)
{
    if (!original)
        return vulkan_allocate(user_data, size, alignment, scope);
    if (size == 0) {
        vulkan_free(user_data, original);
        return NULL;
    }
    void *moved = vulkan_allocate(user_data, size, alignment, scope);
    if (!moved)
        return NULL;  /* the original stays as it was */
    size_t old_size = (size_t)((uint64_t *)original)[-3];
    memcpy(moved, original, old_size < size ? old_size : size);
    vulkan_free(user_data, original);
    return moved;
}

static const VkAllocationCallbacks vulkan_callbacks = {
    .pfnAllocation = vulkan_allocate, .pfnReallocation = vulkan_reallocate, .pfnFree = vulkan_free};

/* The command pool's callbacks: the same blocks and counts, never failed.
 * A driver records commands in its pool's memory, and a vkCmd* call cannot
 * report a failure; lavapipe crashes inside vkCmdPipelineBarrier when that
 * memory fails, which no caller can prevent. The test binary stands in
 * front of the loader's vkCreateCommandPool and vkDestroyCommandPool (the
 * library is linked into it statically) and gives the pool these instead of
 * the context's, so every other object still takes the failing ones. */
static VKAPI_ATTR void *VKAPI_CALL command_allocate(void *user_data, size_t size, size_t alignment,
                                                    VkSystemAllocationScope scope)
{
    (void)user_data;
    (void)scope;
    return tagged_block(size, alignment, true);
}

static VKAPI_ATTR void *VKAPI_CALL command_reallocate(void *user_data, void *original, size_t size,
                                                      size_t alignment, VkSystemAllocationScope scope)
{
    if (!original)
        return command_allocate(user_data, size, alignment, scope);
    if (size == 0) {
        vulkan_free(user_data, original);
        return NULL;
    }
    void *moved = command_allocate(user_data, size, alignment, scope);
    if (!moved)
        return NULL;
    size_t old_size = (size_t)((uint64_t *)original)[-3];
    memcpy(moved, original, old_size < size ? old_size : size);
    vulkan_free(user_data, original);
    return moved;
}

static const VkAllocationCallbacks command_callbacks = {
    .pfnAllocation = command_allocate, .pfnReallocation = command_reallocate, .pfnFree = vulkan_free};

static const VkAllocationCallbacks *pool_callbacks(const VkAllocationCallbacks *given)
{
    return given && given->pfnAllocation == vulkan_allocate ? &command_callbacks : given;
}

/* lavapipe dereferences the block it failed to get in vkCreatePipelineLayout
 * (a SIGSEGV right after the allocation returns NULL): its allocations there
 * are counted, never failed. */
VKAPI_ATTR VkResult VKAPI_CALL vkCreatePipelineLayout(VkDevice device, const VkPipelineLayoutCreateInfo *info,
                                                      const VkAllocationCallbacks *allocator,
                                                      VkPipelineLayout *out_layout)
{
    PFN_vkCreatePipelineLayout loader = (PFN_vkCreatePipelineLayout)dlsym(RTLD_NEXT, "vkCreatePipelineLayout");
    inside_unfailable_call = true;
    VkResult result = loader(device, info, allocator, out_layout);
    inside_unfailable_call = false;
    return result;
}

VKAPI_ATTR VkResult VKAPI_CALL vkCreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                                                   const VkAllocationCallbacks *allocator, VkCommandPool *out_pool)
{
    PFN_vkCreateCommandPool loader = (PFN_vkCreateCommandPool)dlsym(RTLD_NEXT, "vkCreateCommandPool");
    return loader(device, info, pool_callbacks(allocator), out_pool);
}

VKAPI_ATTR void VKAPI_CALL vkDestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                const VkAllocationCallbacks *allocator)
{
    PFN_vkDestroyCommandPool loader = (PFN_vkDestroyCommandPool)dlsym(RTLD_NEXT, "vkDestroyCommandPool");
    loader(device, pool, pool_callbacks(allocator));
}

/* ---- The scenario ---- */

typedef struct outcome {
    unsigned calls, succeeded, out_of_memory, wrong;  /* wrong: another status, or a success unsorted */
    bitonic_status first_wrong;
} outcome;

static void note(outcome *o, bitonic_status status, bool sorted)
{
    ++o->calls;
    if (status == BITONIC_SUCCESS && sorted) {
        ++o->succeeded;
    } else if (status == BITONIC_ERROR_OUT_OF_HOST_MEMORY) {
        ++o->out_of_memory;
    } else {
        if (o->wrong++ == 0)
            o->first_wrong = status;
    }
}

static bool u32_sorted(const uint32_t *keys, size_t count)
{
    for (size_t i = 1; i < count; ++i)
        if (keys[i - 1] > keys[i])
            return false;
    return true;
}

typedef struct arrays {
    uint32_t keys[KEYS], values[KEYS], indices[KEYS], rows[ROWS * ROW_LENGTH];
    uint64_t wide[KEYS];
    struct { uint32_t key; uint32_t payload; } records[KEYS];
} arrays;

static void fill(arrays *a)
{
    uint64_t state = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < KEYS; ++i) {
        a->keys[i] = (uint32_t)test_random_u64(&state) % 5000u;
        a->values[i] = (uint32_t)i;
        a->wide[i] = test_random_u64(&state) >> 40;  /* within 2^32: the pair words the context keeps */
        a->records[i].key = (uint32_t)test_random_u64(&state);
    }
    for (size_t i = 0; i < ROWS * ROW_LENGTH; ++i)
        a->rows[i] = (uint32_t)test_random_u64(&state);
}

static unsigned validation_messages, failure_reports;

/* The validation messenger also carries what the driver says of a failure
 * the test injected (Mesa reports each VK_ERROR_OUT_OF_HOST_MEMORY it returns
 * as a message of its own, that text alone): counted apart and printed. Any
 * other message fails the test. */
static void on_message(void *user_data, const char *message)
{
    if (strcmp(message, "VK_ERROR_OUT_OF_HOST_MEMORY") == 0) {
        ++failure_reports;
        return;
    }
    test_print_validation_message(user_data, message);
}

static bitonic_allocator allocator_entry(void)
{
    return (bitonic_allocator){.type = BITONIC_STRUCTURE_TYPE_ALLOCATOR, .allocate = host_allocate,
                               .free = host_free};
}

/* The device's pipeline cache, warmed before counting, so that a replay
 * does not compile every kernel again (and the cache file's read is failed in
 * turn too). */
static char cache_directory[64];

static bitonic_context_desc desc_for(const bitonic_allocator *allocator, bool vulkan)
{
    return (bitonic_context_desc){.next = allocator, .device = vulkan ? test_device_selector() : "cpu",
                                  .cpu_threads = 1, .no_disk_cache = !vulkan,
                                  .cache_directory = vulkan ? cache_directory : NULL,
                                  .validation = vulkan && test_validation(),
                                  .on_validation_message = vulkan ? on_message : NULL,
                                  .message_user_data = &validation_messages};
}

/* Every kind of call on one context. host_block_tagged: whether the block of
 * bitonic_host_alloc came from the callbacks (on the CPU path it must). */
static void run_scenario(arrays *a, bool vulkan, outcome *o, bool *host_block_tagged)
{
    fill(a);
    VkAllocationCallbacks callbacks = vulkan_callbacks;
    bitonic_allocator allocator = allocator_entry();
    allocator.vulkan = vulkan ? &callbacks : NULL;
    bitonic_context_desc desc = desc_for(&allocator, vulkan);
    bitonic_context *context = NULL;
    bitonic_status status = bitonic_context_create(&desc, &context);
    /* The entry and the callbacks it names need not outlive the call. */
    memset(&allocator, 0xa5, sizeof allocator);
    memset(&callbacks, 0xa5, sizeof callbacks);
    note(o, status, context != NULL);
    if (status != BITONIC_SUCCESS)
        return;
    const bitonic_sort_options u32 = {.key_type = BITONIC_KEY_U32}, u64 = {.key_type = BITONIC_KEY_U64},
                               stable = {.key_type = BITONIC_KEY_U32, .stable = true};
    status = bitonic_sort_u32(context, a->keys, KEYS, NULL);
    note(o, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_sort_pairs(context, a->keys, a->values, KEYS, &u32);
    note(o, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_sort_pairs(context, a->keys, a->values, KEYS, &stable);
    note(o, status, u32_sorted(a->keys, KEYS));
    fill(a);
    status = bitonic_sort_pairs(context, a->wide, a->values, KEYS, &u64);
    bool wide_sorted = true;
    for (size_t i = 1; i < KEYS; ++i)
        wide_sorted = wide_sorted && a->wide[i - 1] <= a->wide[i];
    note(o, status, wide_sorted);
    fill(a);
    status = bitonic_argsort(context, a->keys, KEYS, a->indices, &u32);
    bool ordered = true;
    for (size_t i = 1; i < KEYS && status == BITONIC_SUCCESS; ++i)
        ordered = ordered && a->indices[i] < KEYS && a->keys[a->indices[i - 1]] <= a->keys[a->indices[i]];
    note(o, status, ordered);
    status = bitonic_rank_map(context, a->keys, KEYS, a->indices, &u32);
    note(o, status, true);
    status = bitonic_sort_records(context, a->records, KEYS, sizeof a->records[0], 0, &u32);
    bool records_sorted = true;
    for (size_t i = 1; i < KEYS; ++i)
        records_sorted = records_sorted && a->records[i - 1].key <= a->records[i].key;
    note(o, status, records_sorted);
    status = bitonic_sort_rows(context, a->rows, ROWS, ROW_LENGTH, &u32);
    bool rows_sorted = true;
    for (size_t r = 0; r < ROWS; ++r)
        rows_sorted = rows_sorted && u32_sorted(a->rows + r * ROW_LENGTH, ROW_LENGTH);
    note(o, status, rows_sorted);
    const size_t offsets[] = {0, 900, 900, 2000, KEYS};
    status = bitonic_sort_segments(context, a->keys, offsets, 4, &u32);
    note(o, status, u32_sorted(a->keys + 2000, KEYS - 2000));

    fill(a);
    bitonic_buffer *buffer = NULL;
    status = bitonic_buffer_create(context, KEYS, &buffer);
    note(o, status, buffer != NULL);
    if (buffer) {
        status = bitonic_buffer_upload(buffer, a->keys, KEYS);
        if (status == BITONIC_SUCCESS)
            status = bitonic_buffer_upload_values(buffer, a->values, KEYS);
        if (status == BITONIC_SUCCESS)
            status = bitonic_buffer_sort_pairs(buffer, KEYS, &u32, NULL);
        if (status == BITONIC_SUCCESS)
            status = bitonic_buffer_download(buffer, a->keys, KEYS);
        note(o, status, u32_sorted(a->keys, KEYS));
        bitonic_buffer_destroy(buffer);
    }

    void *block = NULL;
    status = bitonic_host_alloc(context, KEYS * sizeof(uint32_t), &block);
    note(o, status, block != NULL && (uintptr_t)block % 64 == 0);
    if (block) {
        if (!vulkan)  /* on a device it is mapped device memory: nothing to read before it */
            *host_block_tagged = is_tagged(block);
        uint32_t *pinned = block;
        for (size_t i = 0; i < KEYS; ++i)
            pinned[i] = KEYS - (uint32_t)i;
        status = bitonic_sort_u32(context, pinned, KEYS, NULL);
        note(o, status, u32_sorted(pinned, KEYS));
        bitonic_host_free(context, block);
    }
    bitonic_context_destroy(context);
}

/* The clean run, then the replays: every allocation on the CPU path, every
 * stride-th on the device. */
static void fail_each_in_turn(test_counter *t, arrays *a, bool vulkan, const char *name)
{
    outcome clean = {0};
    bool tagged = false;
    if (vulkan) {
        reset(-1);
        run_scenario(a, vulkan, &clean, &tagged);
        clean = (outcome){0};
    }
    reset(-1);
    run_scenario(a, vulkan, &clean, &tagged);
    long total = atomic_load(&books.allocations);
    if (vulkan)
        printf("%s: Vulkan allocations by scope: %ld command, %ld object, %ld cache, %ld device, %ld instance\n", name,
               atomic_load(&books.by_scope[0]), atomic_load(&books.by_scope[1]), atomic_load(&books.by_scope[2]),
               atomic_load(&books.by_scope[3]), atomic_load(&books.by_scope[4]));
    TEST_CHECK(t, clean.wrong == 0 && clean.succeeded == clean.calls,
               "%s: without failures every call succeeds (%u of %u, first wrong status %d)", name, clean.succeeded,
               clean.calls, (int)clean.first_wrong);
    TEST_CHECK(t, atomic_load(&books.live_host) == 0 && atomic_load(&books.live_vulkan) == 0,
               "%s: without failures every block is freed (%ld host, %ld Vulkan left)", name,
               atomic_load(&books.live_host), atomic_load(&books.live_vulkan));
    TEST_CHECK(t, total > 0, "%s: the callbacks are called (%ld allocations)", name, total);
    if (!vulkan)
        TEST_CHECK(t, tagged, "%s: bitonic_host_alloc's block comes from the callbacks", name);
    const char *all = getenv("BITONIC_TEST_ALLOCATOR_ALL");
    bool every_one = all && strcmp(all, "1") == 0;
    long stride = vulkan && !every_one && total > VULKAN_REPLAYS ? (total + VULKAN_REPLAYS - 1) / VULKAN_REPLAYS : 1;
    unsigned long wrong = 0, leaking = 0, foreign = 0, misaligned = 0, replays = 0, unused = 0;
    for (long k = 0; k < total; k += stride) {
        outcome o = {0};
        bool ignored = false;
        reset(k);
        run_scenario(a, vulkan, &o, &ignored);
        ++replays;
        long host_left = atomic_load(&books.live_host), vulkan_left = atomic_load(&books.live_vulkan);
        if (o.wrong != 0 && wrong++ < 10)
            printf("%s: allocation %ld failing: %u calls answered wrong (first: %s)\n", name, k, o.wrong,
                   bitonic_status_string(o.first_wrong));
        if ((host_left != 0 || vulkan_left != 0) && leaking++ < 10)
            printf("%s: allocation %ld failing: %ld host and %ld Vulkan blocks left after destroy\n", name, k,
                   host_left, vulkan_left);
        foreign += (unsigned long)atomic_load(&books.foreign_frees);
        misaligned += (unsigned long)atomic_load(&books.misaligned);
        unused += !atomic_load(&books.failed_one);
    }
    reset(-1);
    TEST_CHECK(t, wrong == 0, "%s: each failing allocation: every call succeeds sorted or says out of host memory "
                              "(%lu replays wrong)", name, wrong);
    TEST_CHECK(t, leaking == 0, "%s: each failing allocation: nothing left after destroy (%lu replays leaking)", name,
               leaking);
    TEST_CHECK(t, foreign == 0, "%s: nothing freed through the callbacks that they did not allocate (%lu)", name,
               foreign);
    TEST_CHECK(t, misaligned == 0, "%s: every host request has a power-of-two alignment of at least 16 (%lu)", name,
               misaligned);
    printf("%s: %ld allocations, %lu replays (every %ld%s), %lu allocated less than the failing index\n", name, total,
           replays, stride, stride > 1 ? ", a stride through the driver's many" : "", unused);
}

/* One of allocate and free without the other is refused on every backend;
 * the Vulkan callbacks alone are taken, and every block they gave is back
 * after destroy. */
static void check_entry_forms(test_counter *t, bool have_device)
{
    bitonic_allocator half = {.type = BITONIC_STRUCTURE_TYPE_ALLOCATOR, .allocate = host_allocate};
    const char *devices[] = {"cpu", test_device_selector()};
    for (size_t d = 0; d < (have_device ? 2u : 1u); ++d) {
        bitonic_context *context = (bitonic_context *)&half;
        bitonic_status status =
            bitonic_context_create(&(bitonic_context_desc){.next = &half, .device = devices[d]}, &context);
        TEST_CHECK(t, status == BITONIC_ERROR_INVALID_ARGUMENT && context == NULL,
                   "%s: allocate without free is an invalid argument (%s)", devices[d], bitonic_status_string(status));
    }
    if (!have_device)
        return;
    bitonic_allocator vulkan_only = {.type = BITONIC_STRUCTURE_TYPE_ALLOCATOR, .vulkan = &vulkan_callbacks};
    reset(-1);
    bitonic_context *context = NULL;
    bitonic_status status = bitonic_context_create(
        &(bitonic_context_desc){.next = &vulkan_only, .device = devices[1], .no_disk_cache = true}, &context);
    uint32_t keys[1000];
    for (uint32_t i = 0; i < 1000; ++i)
        keys[i] = 1000 - i;
    if (status == BITONIC_SUCCESS)
        status = bitonic_sort_u32(context, keys, 1000, NULL);
    long made = atomic_load(&books.live_vulkan);
    bitonic_context_destroy(context);
    TEST_CHECK(t, status == BITONIC_SUCCESS && u32_sorted(keys, 1000) && made > 0,
               "the Vulkan callbacks alone: the sort succeeds through them (%s, %ld blocks live)",
               bitonic_status_string(status), made);
    TEST_CHECK(t, atomic_load(&books.live_vulkan) == 0 && atomic_load(&books.live_host) == 0,
               "the Vulkan callbacks alone: every block is back after destroy (%ld left)",
               atomic_load(&books.live_vulkan));
}

int main(void)
{
    test_counter t = {0};
    static arrays a;
    /* Is there a device? Without one (no Vulkan at all) only the CPU path is tested. */
    bitonic_context *probe = NULL;
    bitonic_status probed =
        bitonic_context_create(&(bitonic_context_desc){.device = test_device_selector(), .no_disk_cache = true},
                               &probe);
    bitonic_context_destroy(probe);
    bool have_device = probed == BITONIC_SUCCESS;
    check_entry_forms(&t, have_device);
    fail_each_in_turn(&t, &a, false, "cpu");
    snprintf(cache_directory, sizeof cache_directory, "/tmp/bitonic-test-allocator-XXXXXX");
    if (have_device && mkdtemp(cache_directory)) {
        fail_each_in_turn(&t, &a, true, "vulkan");
        char command[128];
        snprintf(command, sizeof command, "rm -rf '%s'", cache_directory);
        TEST_CHECK(&t, system(command) == 0, "the cache directory %s is removed", cache_directory);
    } else {
        printf("no Vulkan device (%s): the device part is not run\n", bitonic_status_string(probed));
    }
    TEST_CHECK(&t, validation_messages == 0, "%u validation messages", validation_messages);
    printf("%u reports of an injected failure from the driver\n", failure_reports);
    return test_finish(&t);
}
