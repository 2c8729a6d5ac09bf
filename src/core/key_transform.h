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

static inline uint32_t bitonic_ordered_from_float_bits(uint32_t x)
{
    uint32_t twiddled = (x & 0x80000000u) ? ~x : x | 0x80000000u;
    return x > 0xff800000u ? ~x + 0xff800001u : twiddled - 0x007fffffu;
}

static inline uint32_t bitonic_float_bits_from_ordered(uint32_t y)
{
    if (y >= 0xff800001u)
        return ~(y - 0xff800001u);
    uint32_t twiddled = y + 0x007fffffu;
    return (twiddled & 0x80000000u) ? twiddled & 0x7fffffffu : ~twiddled;
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

#endif /* BITONIC_KEY_TRANSFORM_H */
