/* pair_pack.c: the passes around the fast CPU sort (pair_pack.h), each a slice
 * function run on the sort's threads. Each loop handles one key type, decided
 * outside it, so the compiler vectorises it. Why threads: on 16 cores the sort
 * of packed pairs ran 12x faster than on one, but the pack and unpack passes on
 * one thread left the whole call only 2.7x faster (perf-log entry 109). */
#include "pair_pack.h"

#include "fast_sort.h"
#include "key_transform.h"

typedef struct pair_pass {
    uint64_t *words;
    uint32_t *keys, *values;
    bitonic_key_type type;
    uint32_t order_xor;
} pair_pass;

static void pack_slice(void *context, size_t begin, size_t end)
{
    const pair_pass *pass = context;
    uint64_t *words = pass->words;
    const uint32_t *keys = pass->keys, *values = pass->values;
    uint32_t order_xor = pass->order_xor;
    if (pass->type == BITONIC_KEY_F32) {
        for (size_t i = begin; i < end; i++)
            words[i] = (uint64_t)(bitonic_ordered_from_float_bits(keys[i]) ^ order_xor) << 32 | values[i];
        return;
    }
    uint32_t key_xor = order_xor ^ (pass->type == BITONIC_KEY_I32 ? 0x80000000u : 0u);
    for (size_t i = begin; i < end; i++)
        words[i] = (uint64_t)(keys[i] ^ key_xor) << 32 | values[i];
}

static void unpack_slice(void *context, size_t begin, size_t end)
{
    const pair_pass *pass = context;
    const uint64_t *words = pass->words;
    uint32_t *keys = pass->keys, *values = pass->values;
    uint32_t order_xor = pass->order_xor;
    if (pass->type == BITONIC_KEY_F32) {
        for (size_t i = begin; i < end; i++) {
            keys[i] = bitonic_float_bits_from_ordered((uint32_t)(words[i] >> 32) ^ order_xor);
            values[i] = (uint32_t)words[i];
        }
        return;
    }
    uint32_t key_xor = order_xor ^ (pass->type == BITONIC_KEY_I32 ? 0x80000000u : 0u);
    for (size_t i = begin; i < end; i++) {
        keys[i] = (uint32_t)(words[i] >> 32) ^ key_xor;
        values[i] = (uint32_t)words[i];
    }
}

void bitonic_cpu_pack_pairs(uint64_t *words, const uint32_t *keys, const uint32_t *values, size_t count,
                            bitonic_key_type type, uint32_t order_xor, uint32_t threads)
{
    /* The pass only reads keys and values; the struct is shared with unpacking. */
    pair_pass pass = {words, (uint32_t *)keys, (uint32_t *)values, type, order_xor};
    bitonic_cpu_run_slices(pack_slice, &pass, count, threads);
}

void bitonic_cpu_unpack_pairs(const uint64_t *words, uint32_t *keys, uint32_t *values, size_t count,
                              bitonic_key_type type, uint32_t order_xor, uint32_t threads)
{
    pair_pass pass = {(uint64_t *)words, keys, values, type, order_xor};
    bitonic_cpu_run_slices(unpack_slice, &pass, count, threads);
}

typedef struct map_pass {
    void *keys;
    bitonic_key_type type;
    uint64_t order_xor;
} map_pass;

static void to_ordered_slice(void *context, size_t begin, size_t end)
{
    const map_pass *pass = context;
    if (pass->type >= BITONIC_KEY_U64)
        bitonic_keys64_to_ordered((uint64_t *)pass->keys + begin, end - begin, pass->type, pass->order_xor);
    else
        bitonic_keys_to_ordered((uint32_t *)pass->keys + begin, end - begin, pass->type, (uint32_t)pass->order_xor);
}

static void from_ordered_slice(void *context, size_t begin, size_t end)
{
    const map_pass *pass = context;
    if (pass->type >= BITONIC_KEY_U64)
        bitonic_keys64_from_ordered((uint64_t *)pass->keys + begin, end - begin, pass->type, pass->order_xor);
    else
        bitonic_keys_from_ordered((uint32_t *)pass->keys + begin, end - begin, pass->type,
                                  (uint32_t)pass->order_xor);
}

void bitonic_cpu_keys_to_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                 uint32_t threads)
{
    map_pass pass = {keys, type, order_xor};
    bitonic_cpu_run_slices(to_ordered_slice, &pass, count, threads);
}

void bitonic_cpu_keys_from_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                   uint32_t threads)
{
    map_pass pass = {keys, type, order_xor};
    bitonic_cpu_run_slices(from_ordered_slice, &pass, count, threads);
}
