/* pair_pack.c: the passes around the fast CPU sort (pair_pack.h), each a slice
 * function run on the sort's threads. Each loop handles one key type, decided
 * outside it, so the compiler vectorises it; the loops (pair_pack_loops.inc)
 * are built for the baseline, AVX2 and AVX-512, and each pass takes the copy of
 * the sort's target: the f64 maps, bound by arithmetic while the keys are in
 * the caches, ran 3-4x faster on 4 or 8 words a step than on SSE2's 2 (packing,
 * bound by memory, the same; perf-log entry 115). Why threads: on 16 cores the sort
 * of packed pairs ran 12x faster than on one, but the pack and unpack passes on
 * one thread left the whole call only 2.7x faster (perf-log entry 109). The
 * stable sorts' passes (positions, the gather of values) run the same way. */
#include "pair_pack.h"

#include <string.h>

#include "fast_sort.h"
#include "key_transform.h"

/* The loops' contexts (pair_pack.h), by shorter names. */
typedef bitonic_cpu_pair_pass pair_pass;
typedef bitonic_cpu_map_pass map_pass;

/* One copy of the loops per instruction set (pair_pack_loops.inc). */
#define LOOPS(name) name##_baseline
#include "pair_pack_loops.inc"
#undef LOOPS

#if defined(BITONIC_CPU_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))
#define PAIR_PACK_X86_LOOPS 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define LOOPS(name) name##_avx2
#include "pair_pack_loops.inc"
#undef LOOPS
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif
#define LOOPS(name) name##_avx512
#include "pair_pack_loops.inc"
#undef LOOPS
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

typedef struct pass_loops {
    bitonic_cpu_slice_fn pack, unpack, to_ordered, from_ordered;
} pass_loops;

#define PASS_LOOPS(suffix) {pack_slice_##suffix, unpack_slice_##suffix, to_ordered_slice_##suffix, \
                            from_ordered_slice_##suffix}
static const pass_loops loops_baseline = PASS_LOOPS(baseline);
#if defined(PAIR_PACK_X86_LOOPS)
static const pass_loops loops_avx2 = PASS_LOOPS(avx2);
static const pass_loops loops_avx512 = PASS_LOOPS(avx512);
#endif

/* The loops for target (AUTO: the best this CPU runs); a target the CPU lacks
 * gets the baseline's. The portable target takes the baseline too. */
static const pass_loops *loops_for(bitonic_cpu_target target)
{
    if (target == BITONIC_CPU_TARGET_AUTO)
        target = bitonic_cpu_best_target();
    if (!bitonic_cpu_target_supported(target))
        return &loops_baseline;
#if defined(PAIR_PACK_X86_LOOPS)
    if (target == BITONIC_CPU_TARGET_AVX512)
        return &loops_avx512;
    if (target == BITONIC_CPU_TARGET_AVX2)
        return &loops_avx2;
#endif
    return &loops_baseline;
}

void bitonic_cpu_pack_pairs(uint64_t *words, const uint32_t *keys, const uint32_t *values, size_t count,
                            bitonic_key_type type, uint32_t order_xor, uint32_t threads, bitonic_cpu_target target)
{
    /* The pass only reads keys and values; the struct is shared with unpacking. */
    pair_pass pass = {words, (uint32_t *)keys, (uint32_t *)values, NULL, type, order_xor};
    bitonic_cpu_run_slices(loops_for(target)->pack, &pass, count, threads);
}

void bitonic_cpu_unpack_pairs(const uint64_t *words, uint32_t *keys, uint32_t *values, size_t count,
                              bitonic_key_type type, uint32_t order_xor, uint32_t threads, bitonic_cpu_target target)
{
    pair_pass pass = {(uint64_t *)words, keys, values, NULL, type, order_xor};
    bitonic_cpu_run_slices(loops_for(target)->unpack, &pass, count, threads);
}

void bitonic_cpu_unpack_gathered(const uint64_t *words, uint32_t *keys, uint32_t *values,
                                 const uint32_t *gather_from, size_t count, bitonic_key_type type,
                                 uint32_t order_xor, uint32_t threads, bitonic_cpu_target target)
{
    pair_pass pass = {(uint64_t *)words, keys, values, gather_from, type, order_xor};
    bitonic_cpu_run_slices(loops_for(target)->unpack, &pass, count, threads);
}

void bitonic_cpu_keys_to_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                 uint32_t threads, bitonic_cpu_target target)
{
    map_pass pass = {keys, type, order_xor};
    bitonic_cpu_run_slices(loops_for(target)->to_ordered, &pass, count, threads);
}

void bitonic_cpu_keys_from_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                   uint32_t threads, bitonic_cpu_target target)
{
    map_pass pass = {keys, type, order_xor};
    bitonic_cpu_run_slices(loops_for(target)->from_ordered, &pass, count, threads);
}

bitonic_cpu_finish bitonic_cpu_unpack_finish(bitonic_cpu_pair_pass *pass, const uint64_t *words, uint32_t *keys,
                                             uint32_t *values, bitonic_key_type type, uint32_t order_xor,
                                             bitonic_cpu_target target)
{
    *pass = (pair_pass){(uint64_t *)words, keys, values, NULL, type, order_xor};
    return (bitonic_cpu_finish){loops_for(target)->unpack, pass};
}

bitonic_cpu_finish bitonic_cpu_from_ordered_finish(bitonic_cpu_map_pass *pass, void *keys, bitonic_key_type type,
                                                   uint64_t order_xor, bitonic_cpu_target target)
{
    *pass = (map_pass){keys, type, order_xor};
    return (bitonic_cpu_finish){loops_for(target)->from_ordered, pass};
}

/* One pair's word, for the pivot's samples. */
static uint64_t packed_word(void *context, size_t index)
{
    const pair_pass *pass = context;
    uint32_t key = bitonic_ordered_from_key(pass->keys[index], pass->type, pass->order_xor);
    return (uint64_t)key << 32 | (pass->values ? pass->values[index] : (uint32_t)index);
}

#if defined(PAIR_PACK_X86_LOOPS)
static size_t pack_partition_avx512(void *context, void *keys, size_t begin, size_t count, uint64_t pivot)
{
    return bitonic_cpu_pack_partition_avx512(context, keys, begin, count, pivot);
}
#endif

bitonic_cpu_source bitonic_cpu_pack_source(bitonic_cpu_pair_pass *pass, uint64_t *words, const uint32_t *keys,
                                           const uint32_t *values, bitonic_key_type type, uint32_t order_xor,
                                           bitonic_cpu_target target)
{
    *pass = (pair_pass){words, (uint32_t *)keys, (uint32_t *)values, NULL, type, order_xor};
    const pass_loops *loops = loops_for(target);
    bitonic_cpu_source source = {NULL, loops->pack, packed_word, pass};
#if defined(PAIR_PACK_X86_LOOPS)
    if (loops == &loops_avx512)
        source.partition = pack_partition_avx512;
#endif
    return source;
}

/* One key's ordered bits, for the pivot's samples. */
static uint64_t ordered_word(void *context, size_t index)
{
    const map_pass *pass = context;
    return bitonic_ordered_from_key64(((const uint64_t *)pass->keys)[index], pass->type, pass->order_xor);
}

#if defined(PAIR_PACK_X86_LOOPS)
static size_t partition_to_ordered_avx512(void *context, void *keys, size_t begin, size_t count, uint64_t pivot)
{
    const map_pass *pass = context;
    (void)begin; /* in place: keys is the pass's own keys + begin */
    return bitonic_cpu_partition_to_ordered_avx512_64(keys, count, pivot, pass->type, pass->order_xor);
}
#endif

bitonic_cpu_source bitonic_cpu_to_ordered_source(bitonic_cpu_map_pass *pass, uint64_t *keys, bitonic_key_type type,
                                                 uint64_t order_xor, bitonic_cpu_target target)
{
    *pass = (map_pass){keys, type, order_xor};
    const pass_loops *loops = loops_for(target);
    bitonic_cpu_source source = {NULL, loops->to_ordered, ordered_word, pass};
#if defined(PAIR_PACK_X86_LOOPS)
    if (loops == &loops_avx512)
        source.partition = partition_to_ordered_avx512;
#endif
    return source;
}

/* The passes of the stable sorts whose pairs carry positions (the positions of
 * 64-bit keys, their gather, the copy back of gathered values): plain loops,
 * bound by memory (the gather by its misses). Each thread takes at least
 * POSITION_PASS_MIN_SLICE items: these passes take a few microseconds per
 * 2^15 items, less than starting a thread, and with the pack passes' 2^15 the
 * stable sort of 2^17 pairs with 64-bit keys on two threads took 9% longer
 * than with the old gather on one (docs/perf-log.md, entry 122). */
#define POSITION_PASS_MIN_SLICE ((size_t)1 << 18)

static uint32_t position_pass_threads(size_t count, uint32_t threads)
{
    size_t most = count / POSITION_PASS_MIN_SLICE;
    return threads > most ? (uint32_t)(most > 0 ? most : 1) : threads;
}

typedef struct position_pass {
    uint32_t *out;
    const uint32_t *in;
} position_pass;

static void fill_positions_slice(void *context, size_t begin, size_t end)
{
    const position_pass *pass = context;
    for (size_t i = begin; i < end; i++)
        pass->out[i] = (uint32_t)i;
}

/* out holds positions into in, and is overwritten by what they point at. */
static void gather_slice(void *context, size_t begin, size_t end)
{
    const position_pass *pass = context;
    for (size_t i = begin; i < end; i++)
        pass->out[i] = pass->in[pass->out[i]];
}

static void copy_slice(void *context, size_t begin, size_t end)
{
    const position_pass *pass = context;
    memcpy(pass->out + begin, pass->in + begin, (end - begin) * sizeof *pass->out);
}

void bitonic_cpu_fill_positions(uint32_t *positions, size_t count, uint32_t threads)
{
    position_pass pass = {positions, NULL};
    bitonic_cpu_run_slices(fill_positions_slice, &pass, count, position_pass_threads(count, threads));
}

void bitonic_cpu_gather_values(uint32_t *positions, const uint32_t *values, size_t count, uint32_t threads)
{
    position_pass pass = {positions, values};
    bitonic_cpu_run_slices(gather_slice, &pass, count, position_pass_threads(count, threads));
}

void bitonic_cpu_copy_values(uint32_t *to, const uint32_t *from, size_t count, uint32_t threads)
{
    position_pass pass = {to, from};
    bitonic_cpu_run_slices(copy_slice, &pass, count, position_pass_threads(count, threads));
}
