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

/* The f64 order maps of key_transform.h with their one compare (is the word
 * above the last -NaN's bits?) written as the borrow of a subtraction, so the
 * loops vectorise on any x86-64 (SSE2 has no 64-bit compare: with it the maps
 * stayed scalar, ~9 ms a pass over 2^22 keys where the plain XOR of i64 keys
 * takes 3). Bit for bit the same maps; test_cpu_passes compares them. */
static inline uint64_t above_mask(uint64_t x, uint64_t bound)
{
    uint64_t difference = bound - x;
    return 0u - (((~bound & x) | (~(bound ^ x) & difference)) >> 63);
}

static void f64_to_ordered(uint64_t *keys, size_t count, uint64_t order_xor)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t x = keys[i];
        uint64_t sign_mask = 0u - (x >> 63);
        uint64_t twiddled = x ^ (sign_mask | 0x8000000000000000ull);
        uint64_t negative_nan_mask = above_mask(x, 0xfff0000000000000ull);
        keys[i] = (((~x + 0xfff0000000000001ull) & negative_nan_mask) |
                   ((twiddled - 0x000fffffffffffffull) & ~negative_nan_mask)) ^ order_xor;
    }
}

static void f64_from_ordered(uint64_t *keys, size_t count, uint64_t order_xor)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t y = keys[i] ^ order_xor;
        uint64_t negative_nan_mask = above_mask(y, 0xfff0000000000000ull);
        uint64_t twiddled = y + 0x000fffffffffffffull;
        uint64_t positive_mask = 0u - (twiddled >> 63);
        uint64_t number = (twiddled & 0x7fffffffffffffffull & positive_mask) | (~twiddled & ~positive_mask);
        keys[i] = (~(y - 0xfff0000000000001ull) & negative_nan_mask) | (number & ~negative_nan_mask);
    }
}

typedef struct map_pass {
    void *keys;
    bitonic_key_type type;
    uint64_t order_xor;
} map_pass;

static void to_ordered_slice(void *context, size_t begin, size_t end)
{
    const map_pass *pass = context;
    if (pass->type == BITONIC_KEY_F64)
        f64_to_ordered((uint64_t *)pass->keys + begin, end - begin, pass->order_xor);
    else if (pass->type >= BITONIC_KEY_U64)
        bitonic_keys64_to_ordered((uint64_t *)pass->keys + begin, end - begin, pass->type, pass->order_xor);
    else
        bitonic_keys_to_ordered((uint32_t *)pass->keys + begin, end - begin, pass->type, (uint32_t)pass->order_xor);
}

static void from_ordered_slice(void *context, size_t begin, size_t end)
{
    const map_pass *pass = context;
    if (pass->type == BITONIC_KEY_F64)
        f64_from_ordered((uint64_t *)pass->keys + begin, end - begin, pass->order_xor);
    else if (pass->type >= BITONIC_KEY_U64)
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
