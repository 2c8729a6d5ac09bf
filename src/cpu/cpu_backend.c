/* cpu_backend.c: the plain C backend behind bitonic.h. Keys of every type are
 * mapped to ordered bits (key_transform.h) and sorted by the fast CPU sort
 * (fast_sort.h), 32-bit keys as 32-bit words and 64-bit keys as 64-bit words;
 * pairs of a 32-bit key and a value are packed as (ordered key << 32 | value)
 * and sorted as 64-bit words, so that they come out in the GPU's pair order
 * (equal keys by value, which makes the argsort stable); pairs with 64-bit keys,
 * their stable pairs and their argsort take the radix sort of stable_radix.h
 * from 2^8 pairs and pair_sort.h below; resident buffers are host memory.
 * Its own blocks (its state, the kept pair words, resident buffers) come
 * from the context's allocator (host_memory.h).
 * The passes around the sort (order maps, packing) run on the sort's threads
 * (pair_pack.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "host_buffer.h"
#include "fast_sort.h"
#include "key_transform.h"
#include "pair_pack.h"
#include "pair_sort.h"
#include "stable_radix.h"

/* Packed pair buffers up to this size stay with the context between calls:
 * a fresh buffer costs a page fault per 4 KiB on its first touch, which was a
 * tenth of a pair sort's time at 2^22 pairs (and a third at 2^26, where the
 * buffer is fresh every call). A call that needs more takes a buffer of its
 * own, freed after it, so a context does not hold gigabytes after one big
 * sort, and the kept one stays for the calls after it (a larger call used to
 * replace it and free its own, leaving the next call a fresh buffer). The
 * records of 2^25 pairs of 64-bit keys (12 bytes a pair, the radix sort's;
 * its argsort too, entry 142) and the per-thread buffers beside them (a few
 * hundred KiB a thread) are kept, 420 MiB: with the words of 2^25 pairs kept,
 * those pairs and the argsort of 2^24 64-bit keys faulted in a fresh buffer
 * every call (docs/perf-log.md, entry 138).
 * One call uses the buffer at a time: each public call holds the context's
 * lock. */
#define KEPT_PAIR_WORDS (3 * ((size_t)1 << 24) + ((size_t)1 << 21))

typedef struct cpu_state {
    bitonic_host_memory memory;      /* the context's allocator (or the C library's), for all of the below */
    uint32_t threads;                /* bitonic_context_desc.cpu_threads, 0 = all cores */
    uint64_t *pair_words;            /* the packed pairs of the last call, kept for the next */
    size_t pair_words_capacity;
} cpu_state;

/* A buffer of count words for packing pairs (and the scratch of pairs with
 * 64-bit keys, words and values): the kept one when large enough, else a
 * larger kept one, or above KEPT_PAIR_WORDS one of the call's own, so the kept
 * one stays for the calls after it. */
static uint64_t *pair_words_for(cpu_state *cpu, size_t count)
{
    if (cpu->pair_words_capacity >= count)
        return cpu->pair_words;
    if (count > KEPT_PAIR_WORDS)
        return bitonic_host_memory_alloc_large(&cpu->memory, count * sizeof(uint64_t));
    bitonic_host_memory_free(&cpu->memory, cpu->pair_words);
    cpu->pair_words = bitonic_host_memory_alloc_large(&cpu->memory, count * sizeof *cpu->pair_words);
    cpu->pair_words_capacity = cpu->pair_words ? count : 0;
    return cpu->pair_words;
}

/* The end of a call's use of pair_words_for's buffer: one of its own is freed. */
static void done_with_pair_words(cpu_state *cpu, uint64_t *words)
{
    if (words != cpu->pair_words)
        bitonic_host_memory_free(&cpu->memory, words);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint32_t order_xor(const bitonic_sort_request *request)
{
    return request->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u;
}

static uint64_t order_xor64(const bitonic_sort_request *request)
{
    return request->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0u;
}

/* Pairs with 64-bit keys, their stable pairs and the argsort of 64-bit keys
 * take the radix sort (stable_radix64.c) from this many pairs: on the 2-core
 * Zen 5 machine it took 0.56-0.70x the time of pair_sort.c's sorts from 2^17
 * pairs on one thread (docs/perf-log.md, entry 134), and with short inputs
 * sorted as one leaf 0.57-0.96x at 2^8 to 2^14 and 0.37-0.76x on two
 * threads at 2^12 to 2^18; 1.07-1.9x below 2^8 (entry 137). Its values are
 * 32-bit positions, so it takes at most UINT32_MAX pairs. */
#define RADIX64_MIN_PAIRS ((size_t)1 << 8)

static bool radix64_fits(size_t count)
{
    return count >= RADIX64_MIN_PAIRS && count <= UINT32_MAX;
}

/* The radix sort of pairs with 64-bit keys (its three uses), in the kept
 * buffer. */
static bitonic_status sort_by_radix64(cpu_state *cpu, const bitonic_cpu_radix64_pairs *pairs,
                                      const bitonic_cpu_sort_config *config)
{
    uint64_t *scratch =
        pair_words_for(cpu, bitonic_cpu_stable_radix64_scratch_words(pairs->count, pairs->out_keys != NULL, config));
    if (!scratch)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_cpu_stable_radix_sort_pairs64(pairs, scratch, config);
    done_with_pair_words(cpu, scratch);
    return BITONIC_SUCCESS;
}

/* One sort of wall time ms as a timing: one pass. */
static void single_pass_timing(bitonic_timing *timing, double ms)
{
    if (!timing)
        return;
    timing->sort_ms = ms;
    timing->pass_count = 1;
    if (timing->pass_ms && timing->pass_capacity > 0)
        timing->pass_ms[0] = ms;
    if (timing->pass_details && timing->pass_capacity > 0)
        timing->pass_details[0] = (bitonic_pass_detail){"sort", 0};
}

/* Keys mapped to ordered bits are mapped back as the sort finishes each
 * stretch (bitonic_cpu_finish, fast_sort.h) from this many keys, and in a pass
 * of their own below: on one thread of the 2-core machine, f64 keys took
 * 0.89-0.97x at 2^22 and 0.97x at 2^21, but 1.02-1.05x at 2^19 and 2^20, where
 * the pass runs in the caches and the leaves pay for the calls; f32 keys
 * moved by up to 9% either way below 2^22 (docs/perf-log.md, entry 127). */
#define MAP_BACK_IN_SORT_MIN_KEYS ((size_t)1 << 21)

/* 32-bit keys: u32 goes straight to the fast sort; other types are mapped to
 * ordered bits, sorted ascending and mapped back. */
static bitonic_status cpu_sort(const cpu_state *cpu, uint32_t *keys, size_t count,
                               const bitonic_sort_request *request)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, cpu->threads};
    if (request->key_type == BITONIC_KEY_U32)
        return bitonic_cpu_sort_u32(keys, count, request->order, &config);
    uint32_t flip = order_xor(request), threads = bitonic_cpu_sort_threads(count, &config);
    bitonic_cpu_keys_to_ordered(keys, count, request->key_type, flip, threads, config.target);
    if (count >= MAP_BACK_IN_SORT_MIN_KEYS) {
        bitonic_cpu_map_pass back;
        bitonic_cpu_finish finish = bitonic_cpu_from_ordered_finish(&back, keys, request->key_type, flip, config.target);
        return bitonic_cpu_sort_u32_finished(keys, count, &config, &finish);
    }
    bitonic_status status = bitonic_cpu_sort_u32(keys, count, BITONIC_ORDER_ASCENDING, &config);
    bitonic_cpu_keys_from_ordered(keys, count, request->key_type, flip, threads, config.target);
    return status;
}

/* 64-bit keys: the fast sort of 64-bit words, in place; other types than u64
 * are mapped to ordered bits (by the sort's first partition, as it reads them,
 * on AVX-512), sorted ascending and mapped back. */
static bitonic_status cpu_sort64(const cpu_state *cpu, uint64_t *keys, size_t count,
                                 const bitonic_sort_request *request)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, cpu->threads};
    if (request->key_type == BITONIC_KEY_U64)
        return bitonic_cpu_sort_u64(keys, count, request->order, &config);
    uint64_t flip = order_xor64(request);
    uint32_t threads = bitonic_cpu_sort_threads(count, &config);
    bitonic_cpu_map_pass forth, back;
    bitonic_cpu_source source = bitonic_cpu_to_ordered_source(&forth, keys, request->key_type, flip, config.target);
    if (count >= MAP_BACK_IN_SORT_MIN_KEYS) {
        bitonic_cpu_finish finish = bitonic_cpu_from_ordered_finish(&back, keys, request->key_type, flip, config.target);
        return bitonic_cpu_sort_u64_from(keys, count, &config, &source, &finish);
    }
    bitonic_status status = bitonic_cpu_sort_u64_from(keys, count, &config, &source, NULL);
    bitonic_cpu_keys_from_ordered(keys, count, request->key_type, flip, threads, config.target);
    return status;
}

static bitonic_status cpu_sort_any(const cpu_state *cpu, void *keys, size_t count, const bitonic_sort_request *request)
{
    if (request->key_type >= BITONIC_KEY_U64)
        return cpu_sort64(cpu, keys, count, request);
    return cpu_sort(cpu, keys, count, request);
}

/* Pairs with 64-bit keys in (key, value) order; words: the scratch of
 * BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count) words. */
static bitonic_status sort_pairs64(uint64_t *keys, uint32_t *values, size_t count, uint64_t *words,
                                   const bitonic_sort_request *request, const bitonic_cpu_sort_config *config)
{
    uint64_t flip = order_xor64(request);
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
    bitonic_cpu_keys_to_ordered(keys, count, request->key_type, flip, threads, config->target);
    bitonic_status status = bitonic_cpu_sort_pairs_u64(keys, values, count, words, config);
    bitonic_cpu_keys_from_ordered(keys, count, request->key_type, flip, threads, config->target);
    return status;
}

/* Pairs: packed as (ordered key << 32 | value) and sorted as 64-bit words, the
 * order of the GPU's pair comparator. On AVX-512 the sort's first partition
 * packs them as it reads the keys and values (0.93-0.96x the time with a pass
 * of its own from 2^17 pairs, docs/perf-log.md, entry 130), and each block the
 * sort finishes is unpacked while it is in L2 (0.90-0.92x from 2^20 against
 * leaf by leaf, entry 129). */
static bitonic_status cpu_sort_pairs(cpu_state *cpu, void *keys, uint32_t *values, size_t count,
                                     const bitonic_sort_request *request)
{
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, cpu->threads};
    if (request->key_type >= BITONIC_KEY_U64 && radix64_fits(count)) {
        bitonic_cpu_radix64_pairs pairs = {keys, values, keys, values, count, request->key_type,
                                           order_xor64(request), true};
        return sort_by_radix64(cpu, &pairs, &config);
    }
    if (request->key_type >= BITONIC_KEY_U64) {
        uint64_t *words = pair_words_for(cpu, BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count));
        if (!words)
            return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
        bitonic_status status = sort_pairs64(keys, values, count, words, request, &config);
        done_with_pair_words(cpu, words);
        return status;
    }
    /* One buffer of the pairs' size: the packed words. */
    uint32_t *keys32 = keys;
    uint64_t *words = pair_words_for(cpu, count);
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t flip = order_xor(request);
    bitonic_cpu_pair_pass pack, unpack;
    bitonic_cpu_source source =
        bitonic_cpu_pack_source(&pack, words, keys32, values, request->key_type, flip, config.target);
    bitonic_cpu_finish finish =
        bitonic_cpu_unpack_finish(&unpack, words, keys32, values, request->key_type, flip, config.target);
    bitonic_status status = bitonic_cpu_sort_u64_from(words, count, &config, &source, &finish);
    done_with_pair_words(cpu, words);
    return status;
}

/* Stable pairs with 32-bit keys take the radix sort (stable_radix.c), which
 * keeps ties in their input order with no positions to carry, from this many
 * pairs: on the 2-core Zen 5 machine it took 0.80-0.95x the time of the way
 * below from 2^16 to 2^18 pairs and 0.55-0.80x from 2^19 on one thread
 * (0.60-0.89x on two), and 1.01-1.05x at 2^14 and 2^15 (docs/perf-log.md,
 * entry 131). */
#define STABLE_RADIX_MIN_PAIRS ((size_t)1 << 16)

/* Stable pairs with 32-bit keys, in (key, position) order. Below
 * STABLE_RADIX_MIN_PAIRS: each pair packed as (ordered key << 32 |
 * position), a word no other pair shares, the words sorted, and the values
 * gathered by the positions (in the caches at these sizes) while the keys are
 * unpacked, into the tail of the same buffer, then copied back. */
static bitonic_status stable_pairs32(cpu_state *cpu, uint32_t *keys, uint32_t *values, size_t count,
                                     const bitonic_sort_request *request, const bitonic_cpu_sort_config *config)
{
    uint32_t threads = bitonic_cpu_sort_threads(count, config), flip = order_xor(request);
    if (count >= STABLE_RADIX_MIN_PAIRS) {
        uint64_t *scratch = pair_words_for(cpu, bitonic_cpu_stable_radix_scratch_words(count, config));
        if (!scratch)
            return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
        bitonic_cpu_stable_radix_sort_pairs(keys, values, count, request->key_type, flip, scratch, config);
        done_with_pair_words(cpu, scratch);
        return BITONIC_SUCCESS;
    }
    uint64_t *words = pair_words_for(cpu, count + (count + 1) / 2);
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    bitonic_cpu_pack_pairs(words, keys, NULL, count, request->key_type, flip, threads, config->target);
    /* The gather as a finish of the sort took 1.03-1.10x from 2^18 pairs: its
     * misses among the values then stall the sort (docs/perf-log.md, entry 127). */
    uint32_t *moved = (uint32_t *)(words + count);
    bitonic_status status = bitonic_cpu_sort_u64(words, count, BITONIC_ORDER_ASCENDING, config);
    if (status == BITONIC_SUCCESS) {
        bitonic_cpu_unpack_gathered(words, keys, moved, values, count, request->key_type, flip, threads,
                                    config->target);
        bitonic_cpu_copy_values(values, moved, count, threads);
    }
    done_with_pair_words(cpu, words);
    return status;
}

/* Stable pairs with 64-bit keys, in (key, position) order (pair_sort.c), on
 * the keys' ordered bits. */
static bitonic_status stable_pairs64(cpu_state *cpu, uint64_t *keys, uint32_t *values, size_t count,
                                     const bitonic_sort_request *request, const bitonic_cpu_sort_config *config)
{
    if (radix64_fits(count)) {
        bitonic_cpu_radix64_pairs pairs = {keys, values, keys, values, count, request->key_type,
                                           order_xor64(request), false};
        return sort_by_radix64(cpu, &pairs, config);
    }
    uint32_t threads = bitonic_cpu_sort_threads(count, config);
    uint64_t *words = pair_words_for(cpu, BITONIC_CPU_STABLE_PAIRS_U64_SCRATCH_WORDS(count));
    if (!words)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    uint64_t flip = order_xor64(request);
    bitonic_cpu_keys_to_ordered(keys, count, request->key_type, flip, threads, config->target);
    bitonic_status status = bitonic_cpu_sort_stable_pairs_u64(keys, values, count, words, config);
    bitonic_cpu_keys_from_ordered(keys, count, request->key_type, flip, threads, config->target);
    done_with_pair_words(cpu, words);
    return status;
}

static bitonic_status cpu_sort_pairs_stable(void *state, void *keys, uint32_t *values, size_t count,
                                            const bitonic_sort_request *request)
{
    cpu_state *cpu = state;
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, cpu->threads};
    if (count <= 1)
        return BITONIC_SUCCESS;
    if (request->key_type >= BITONIC_KEY_U64)
        return stable_pairs64(cpu, keys, values, count, request, &config);
    return stable_pairs32(cpu, keys, values, count, request, &config);
}

/* The argsort: the positions in (key, position) order, the keys untouched.
 * 32-bit keys: (ordered key << 32 | position) words, sorted, and their low
 * halves written out. 64-bit keys: a copy of the keys in the tail of the
 * pairs' scratch, sorted with the positions. */
static bitonic_status cpu_argsort(void *state, const void *keys, size_t count, uint32_t *out_indices,
                                  const bitonic_sort_request *request)
{
    cpu_state *cpu = state;
    bitonic_cpu_sort_config config = {BITONIC_CPU_TARGET_AUTO, cpu->threads};
    uint32_t threads = bitonic_cpu_sort_threads(count, &config);
    bitonic_status status;
    uint64_t *words = NULL;
    if (request->key_type >= BITONIC_KEY_U64 && radix64_fits(count)) {
        bitonic_cpu_radix64_pairs pairs = {keys, NULL, NULL, out_indices, count, request->key_type,
                                           order_xor64(request), false};
        status = sort_by_radix64(cpu, &pairs, &config);
    } else if (request->key_type >= BITONIC_KEY_U64) {
        size_t scratch_words = BITONIC_CPU_PAIRS_U64_SCRATCH_WORDS(count);
        words = pair_words_for(cpu, scratch_words + count);
        if (!words)
            return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
        uint64_t *sorted_keys = words + scratch_words;
        uint64_t flip = order_xor64(request);
        /* As 32-bit words: the copy on the sort's threads. */
        bitonic_cpu_copy_values((uint32_t *)sorted_keys, keys, 2u * count, threads);
        bitonic_cpu_keys_to_ordered(sorted_keys, count, request->key_type, flip, threads, config.target);
        bitonic_cpu_fill_positions(out_indices, count, threads);
        status = bitonic_cpu_sort_pairs_u64(sorted_keys, out_indices, count, words, &config);
    } else {
        words = pair_words_for(cpu, count);
        if (!words)
            return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
        uint32_t flip = order_xor(request);
        bitonic_cpu_pair_pass pack, unpack;
        bitonic_cpu_source source =
            bitonic_cpu_pack_source(&pack, words, keys, NULL, request->key_type, flip, config.target);
        bitonic_cpu_finish finish =
            bitonic_cpu_unpack_finish(&unpack, words, NULL, out_indices, request->key_type, flip, config.target);
        status = bitonic_cpu_sort_u64_from(words, count, &config, &source, &finish);
    }
    if (words)
        done_with_pair_words(cpu, words);
    return status;
}

/* Independent rows, each sorted on its own. */
static bitonic_status cpu_sort_rows(const cpu_state *cpu, void *keys, size_t count,
                                    const bitonic_sort_request *request)
{
    size_t row_length = request->row_length, row_bytes = row_length * bitonic_key_words(request->key_type) * 4u;
    if (row_length <= 1 || count <= 1)
        return BITONIC_SUCCESS;
    bitonic_status status = BITONIC_SUCCESS;
    for (size_t row = 0; row < count / row_length && status == BITONIC_SUCCESS; ++row)
        status = cpu_sort_any(cpu, (unsigned char *)keys + row * row_bytes, row_length, request);
    return status;
}

static bitonic_status cpu_sort_host(void *state, void *keys, uint32_t *values, size_t count,
                                    const bitonic_sort_request *request, bitonic_timing *timing,
                                    bitonic_host_timing *stages)
{
    (void)stages;  /* one stage: the sort (the core times the whole call) */
    cpu_state *cpu = state;
    double start = now_ms();
    bitonic_status status;
    if (values)
        status = cpu_sort_pairs(cpu, keys, values, count, request);
    else if (request->row_length)
        status = cpu_sort_rows(cpu, keys, count, request);
    else
        status = cpu_sort_any(cpu, keys, count, request);
    single_pass_timing(timing, now_ms() - start);
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
    uint64_t flip = order_xor64(request);
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

static bitonic_status cpu_search_host(void *state, const void *sorted_keys, size_t count, const void *lows,
                                      const void *highs, size_t query_count, uint32_t *out_first, uint32_t *out_end,
                                      const bitonic_sort_request *request)
{
    if (request->key_type >= BITONIC_KEY_U64) {
        const uint64_t *keys = sorted_keys, *low_keys = lows, *high_keys = highs;
        uint64_t flip = order_xor64(request);
        for (size_t q = 0; q < query_count; ++q) {
            out_first[q] = (uint32_t)partition_point64(
                keys, count, bitonic_ordered_from_key64(low_keys[q], request->key_type, flip), false, request);
            out_end[q] = (uint32_t)partition_point64(
                keys, count, bitonic_ordered_from_key64(high_keys[q], request->key_type, flip), true, request);
        }
        return BITONIC_SUCCESS;
    }
    const uint32_t *keys = sorted_keys, *low_keys = lows, *high_keys = highs;
    uint32_t flip = order_xor(request);
    for (size_t q = 0; q < query_count; ++q) {
        out_first[q] = (uint32_t)partition_point(
            keys, count, bitonic_ordered_from_key(low_keys[q], request->key_type, flip), false, request);
        out_end[q] = (uint32_t)partition_point(
            keys, count, bitonic_ordered_from_key(high_keys[q], request->key_type, flip), true, request);
    }
    return BITONIC_SUCCESS;
}

static bool cpu_accepts(const bitonic_selector *selector)
{
    return selector->kind == BITONIC_SELECT_AUTO || selector->kind == BITONIC_SELECT_CPU;
}

static bitonic_status cpu_create(const bitonic_context_desc *desc, const bitonic_selector *selector, void **out_state)
{
    (void)selector;
    bitonic_host_memory memory;
    if (!bitonic_host_memory_from_chain(desc->next, &memory))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    cpu_state *cpu = bitonic_host_memory_calloc(&memory, 1, sizeof *cpu);
    if (!cpu)
        return BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    cpu->memory = memory;
    cpu->threads = desc->cpu_threads;
    *out_state = cpu;
    return BITONIC_SUCCESS;
}

static void cpu_destroy(void *state)
{
    cpu_state *cpu = state;
    if (!cpu)
        return;
    bitonic_host_memory memory = cpu->memory;
    bitonic_host_memory_free(&memory, cpu->pair_words);
    bitonic_host_memory_free(&memory, cpu);
}

static void cpu_fill_info(const void *state, bitonic_context_info *info)
{
    bitonic_cpu_target target = bitonic_cpu_best_target();
    snprintf(info->device_name, sizeof info->device_name, "CPU (%s)", bitonic_cpu_target_name(target));
    info->vulkan_device_index = UINT32_MAX;
    info->max_keys = SIZE_MAX / sizeof(uint32_t);
}

static bitonic_status cpu_buffer_create(void *state, size_t capacity, void **out_buffer)
{
    cpu_state *cpu = state;
    return bitonic_host_buffer_create_in(&cpu->memory, capacity, out_buffer);
}

static bitonic_status cpu_buffer_sort(void *state, void *buffer_state, size_t count, bool with_values,
                                      const bitonic_sort_request *request, bitonic_timing *timing)
{
    bitonic_host_buffer *buffer = buffer_state;
    if (!with_values)
        return cpu_sort_host(state, buffer->keys, NULL, count, request, timing, NULL);
    bitonic_status status = bitonic_host_buffer_values(buffer);
    double start = now_ms();
    if (status == BITONIC_SUCCESS && count > 1)
        status = cpu_sort_pairs(state, buffer->keys, buffer->values, count, request);
    single_pass_timing(timing, now_ms() - start);
    return status;
}

const bitonic_backend_ops bitonic_cpu_backend = {
    .kind = BITONIC_BACKEND_CPU,
    .accepts = cpu_accepts,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .fill_info = cpu_fill_info,
    .pipeline_report = NULL,
    .sort_host = cpu_sort_host,
    .batched_rows = false,
    .search_host = cpu_search_host,
    .sort_pairs_stable_host = cpu_sort_pairs_stable,
    .argsort_host = cpu_argsort,
    .buffer_create = cpu_buffer_create,
    .buffer_destroy = bitonic_host_buffer_destroy,
    .buffer_upload = bitonic_host_buffer_upload,
    .buffer_download = bitonic_host_buffer_download,
    .buffer_upload_values = bitonic_host_buffer_upload_values,
    .buffer_download_values = bitonic_host_buffer_download_values,
    .buffer_sort = cpu_buffer_sort,
};
