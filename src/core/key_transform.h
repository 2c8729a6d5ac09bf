/* key_transform.h: keys are bits. Each key type maps to an unsigned integer
 * whose unsigned order is the wanted order, and back; the shaders apply the same
 * maps on load and store (shaders/network.glsl), so the CPU and the GPU order
 * keys identically, bit for bit.
 *
 * Floats follow one total order: -inf < ... < -0.0 < +0.0 < ... < +inf, then
 * every NaN: the positive ones by payload, then the negative ones (payloads
 * descending, as their bits invert).
 * Descending order is the same map XORed with all ones: exactly the reverse. */
#ifndef BITONIC_KEY_TRANSFORM_H
#define BITONIC_KEY_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

/* Written without branches on the key (masks and selects), so loops over
 * arrays of random keys vectorise instead of mispredicting half the time. */
static inline uint32_t bitonic_ordered_from_float_bits(uint32_t x)
{
    uint32_t sign_mask = 0u - (x >> 31);                    /* all ones for a negative sign */
    uint32_t twiddled = x ^ (sign_mask | 0x80000000u);      /* negative: ~x; positive: x | sign bit */
    uint32_t negative_nan_mask = 0u - (uint32_t)(x > 0xff800000u);
    return ((~x + 0xff800001u) & negative_nan_mask) | ((twiddled - 0x007fffffu) & ~negative_nan_mask);
}

static inline uint32_t bitonic_float_bits_from_ordered(uint32_t y)
{
    uint32_t negative_nan_mask = 0u - (uint32_t)(y >= 0xff800001u);
    uint32_t twiddled = y + 0x007fffffu;
    uint32_t positive_mask = 0u - (twiddled >> 31);         /* all ones when the float was positive */
    uint32_t number = (twiddled & 0x7fffffffu & positive_mask) | (~twiddled & ~positive_mask);
    return (~(y - 0xff800001u) & negative_nan_mask) | (number & ~negative_nan_mask);
}

static inline uint32_t bitonic_ordered_from_key(uint32_t stored, bitonic_key_type type, uint32_t order_xor)
{
    uint32_t ordered = type == BITONIC_KEY_F32   ? bitonic_ordered_from_float_bits(stored)
                       : type == BITONIC_KEY_I32 ? stored ^ 0x80000000u
                                                 : stored;
    return ordered ^ order_xor;
}

static inline uint32_t bitonic_key_from_ordered(uint32_t ordered, bitonic_key_type type, uint32_t order_xor)
{
    uint32_t bits = ordered ^ order_xor;
    return type == BITONIC_KEY_F32   ? bitonic_float_bits_from_ordered(bits)
           : type == BITONIC_KEY_I32 ? bits ^ 0x80000000u
                                     : bits;
}

/* The same maps over arrays, with the type decided once outside the loop. */
static inline void bitonic_keys_to_ordered(uint32_t *keys, size_t count, bitonic_key_type type, uint32_t order_xor)
{
    if (type == BITONIC_KEY_F32)
        for (size_t i = 0; i < count; ++i)
            keys[i] = bitonic_ordered_from_float_bits(keys[i]) ^ order_xor;
    else
        for (size_t i = 0; i < count; ++i)
            keys[i] ^= (type == BITONIC_KEY_I32 ? 0x80000000u : 0u) ^ order_xor;
}

static inline void bitonic_keys_from_ordered(uint32_t *keys, size_t count, bitonic_key_type type, uint32_t order_xor)
{
    if (type == BITONIC_KEY_F32)
        for (size_t i = 0; i < count; ++i)
            keys[i] = bitonic_float_bits_from_ordered(keys[i] ^ order_xor);
    else
        for (size_t i = 0; i < count; ++i)
            keys[i] ^= (type == BITONIC_KEY_I32 ? 0x80000000u : 0u) ^ order_xor;
}

/* 64-bit keys: the same maps with 11 exponent and 52 mantissa bits for f64. */
static inline uint64_t bitonic_ordered_from_double_bits(uint64_t x)
{
    uint64_t sign_mask = 0u - (x >> 63);
    uint64_t twiddled = x ^ (sign_mask | 0x8000000000000000ull);
    uint64_t negative_nan_mask = 0u - (uint64_t)(x > 0xfff0000000000000ull);
    return ((~x + 0xfff0000000000001ull) & negative_nan_mask) |
           ((twiddled - 0x000fffffffffffffull) & ~negative_nan_mask);
}

static inline uint64_t bitonic_double_bits_from_ordered(uint64_t y)
{
    uint64_t negative_nan_mask = 0u - (uint64_t)(y >= 0xfff0000000000001ull);
    uint64_t twiddled = y + 0x000fffffffffffffull;
    uint64_t positive_mask = 0u - (twiddled >> 63);
    uint64_t number = (twiddled & 0x7fffffffffffffffull & positive_mask) | (~twiddled & ~positive_mask);
    return (~(y - 0xfff0000000000001ull) & negative_nan_mask) | (number & ~negative_nan_mask);
}

static inline uint64_t bitonic_ordered_from_key64(uint64_t stored, bitonic_key_type type, uint64_t order_xor)
{
    uint64_t ordered = type == BITONIC_KEY_F64   ? bitonic_ordered_from_double_bits(stored)
                       : type == BITONIC_KEY_I64 ? stored ^ 0x8000000000000000ull
                                                 : stored;
    return ordered ^ order_xor;
}

static inline uint64_t bitonic_key64_from_ordered(uint64_t ordered, bitonic_key_type type, uint64_t order_xor)
{
    uint64_t bits = ordered ^ order_xor;
    return type == BITONIC_KEY_F64   ? bitonic_double_bits_from_ordered(bits)
           : type == BITONIC_KEY_I64 ? bits ^ 0x8000000000000000ull
                                     : bits;
}

static inline void bitonic_keys64_to_ordered(uint64_t *keys, size_t count, bitonic_key_type type, uint64_t order_xor)
{
    if (type == BITONIC_KEY_F64)
        for (size_t i = 0; i < count; ++i)
            keys[i] = bitonic_ordered_from_double_bits(keys[i]) ^ order_xor;
    else
        for (size_t i = 0; i < count; ++i)
            keys[i] ^= (type == BITONIC_KEY_I64 ? 0x8000000000000000ull : 0u) ^ order_xor;
}

static inline void bitonic_keys64_from_ordered(uint64_t *keys, size_t count, bitonic_key_type type, uint64_t order_xor)
{
    if (type == BITONIC_KEY_F64)
        for (size_t i = 0; i < count; ++i)
            keys[i] = bitonic_double_bits_from_ordered(keys[i] ^ order_xor);
    else
        for (size_t i = 0; i < count; ++i)
            keys[i] ^= (type == BITONIC_KEY_I64 ? 0x8000000000000000ull : 0u) ^ order_xor;
}

#endif /* BITONIC_KEY_TRANSFORM_H */
