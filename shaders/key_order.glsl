// key_order.glsl: keys are bits. Every key type maps to an unsigned integer
// whose order is the wanted order, and back (src/core/key_transform.h holds the
// same maps for the CPU). Shared by the sort kernels and the search kernel.
#ifndef KEY_ORDER_GLSL
#define KEY_ORDER_GLSL  // included once (network.glsl may include it early)
const uint KEY_U32 = 0u;
const uint KEY_I32 = 1u;
const uint KEY_F32 = 2u;
const uint KEY_U64 = 3u;
const uint KEY_I64 = 4u;
const uint KEY_F64 = 5u;

// floats: -inf < ... < -0 < +0 < ... < +inf < +NaN (payload up) < -NaN (payload down)
uint ordered_from_float_bits(uint x)
{
    bool negative_nan = x > 0xff800000u;
    uint twiddled = (x & 0x80000000u) != 0u ? ~x : x | 0x80000000u;
    return negative_nan ? ~x + 0xff800001u : twiddled - 0x007fffffu;
}

uint float_bits_from_ordered(uint y)
{
    if (y >= 0xff800001u)
        return ~(y - 0xff800001u);
    uint twiddled = y + 0x007fffffu;
    return (twiddled & 0x80000000u) != 0u ? twiddled & 0x7fffffffu : ~twiddled;
}

// Stored key bits to ordered bits (XORed with all ones for descending order).
uint ordered_key(uint stored, uint key_type, uint key_xor)
{
    uint ordered = key_type == KEY_F32   ? ordered_from_float_bits(stored)
                   : key_type == KEY_I32 ? stored ^ 0x80000000u
                                         : stored;
    return ordered ^ key_xor;
}

uint stored_key(uint ordered, uint key_type, uint key_xor)
{
    uint bits = ordered ^ key_xor;
    return key_type == KEY_F32   ? float_bits_from_ordered(bits)
           : key_type == KEY_I32 ? bits ^ 0x80000000u
                                 : bits;
}

#ifdef WITH_VALUES
// Whether (ordered key x, value vx) comes before (y, vy): by key, then by
// value. Built with PAIRS_AS_INT64 (the pairs' kernels of a device with
// shaderInt64; src/vulkan/sorter picks them) or WIDE_ADDRESSING (which needs it
// anyway), a pair of 32-bit keys is compared as one 64-bit integer, the key
// above the value: the same order in one comparison, which the driver makes a
// compare and its extension where the two-part test took three compares and
// their logic (pairs of 2^10 to 2^17 keys sorted 4-9% faster on the H200,
// docs/perf-log.md, entry 87). The includer defines key_t and enables
// 64-bit integers for those builds. network.glsl's pair_less and the
// partition's comparisons are this one test.
bool ordered_pair_before(key_t x, uint vx, key_t y, uint vy)
{
#if !defined(KEY64) && (defined(PAIRS_AS_INT64) || defined(WIDE_ADDRESSING))
    return packUint2x32(uvec2(vx, x)) < packUint2x32(uvec2(vy, y));
#else
    return x < y || (x == y && vx < vy);
#endif
}
#endif

#ifdef KEY64
// The same maps for 64-bit keys (u64, i64, f64); f64 in the order of f32.
uint64_t ordered_from_double_bits(uint64_t x)
{
    bool negative_nan = x > 0xfff0000000000000UL;
    uint64_t twiddled = (x & 0x8000000000000000UL) != 0UL ? ~x : x | 0x8000000000000000UL;
    return negative_nan ? ~x + 0xfff0000000000001UL : twiddled - 0x000fffffffffffffUL;
}

uint64_t double_bits_from_ordered(uint64_t y)
{
    if (y >= 0xfff0000000000001UL)
        return ~(y - 0xfff0000000000001UL);
    uint64_t twiddled = y + 0x000fffffffffffffUL;
    return (twiddled & 0x8000000000000000UL) != 0UL ? twiddled & 0x7fffffffffffffffUL : ~twiddled;
}

uint64_t ordered_key64(uint64_t stored, uint key_type, uint key_xor)
{
    uint64_t ordered = key_type == KEY_F64   ? ordered_from_double_bits(stored)
                       : key_type == KEY_I64 ? stored ^ 0x8000000000000000UL
                                             : stored;
    return key_xor != 0u ? ~ordered : ordered;
}

uint64_t stored_key64(uint64_t ordered, uint key_type, uint key_xor)
{
    uint64_t bits = key_xor != 0u ? ~ordered : ordered;
    return key_type == KEY_F64   ? double_bits_from_ordered(bits)
           : key_type == KEY_I64 ? bits ^ 0x8000000000000000UL
                                 : bits;
}
#endif
#endif
