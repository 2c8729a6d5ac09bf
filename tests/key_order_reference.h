/* key_order_reference.h: the documented ascending order of f32 and f64 keys,
 * written once for the tests that check sorts against qsort, with the f32 keys
 * that exercise it. It follows the documentation, not the bit maps the
 * library sorts with, so a wrong map shows up as a difference: every number
 * by value (infinities at the ends) with -0 before +0, then the +NaNs by
 * payload ascending, then the -NaNs by their bits descending. */
#ifndef BITONIC_KEY_ORDER_REFERENCE_H
#define BITONIC_KEY_ORDER_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* 1 for a number, 2 for a +NaN, 3 for a -NaN: +NaN before -NaN, both after
 * every number. The sign comes from the key's bits, which a NaN's value need
 * not carry through arithmetic or conversion. */
static inline int reference_float_class(bool is_nan, bool negative)
{
    return is_nan ? (negative ? 3 : 2) : 1;
}

/* -1, 0, 1 for two float keys of one width, given their values (an f32 widened
 * to double, which is exact), their bits and their sign bits. */
static inline int reference_compare_float(double a, double b, uint64_t x, uint64_t y, bool x_negative,
                                          bool y_negative)
{
    int ca = reference_float_class(isnan(a), x_negative), cb = reference_float_class(isnan(b), y_negative);
    if (ca != cb)
        return (ca > cb) - (ca < cb);
    if (ca == 2)
        return (x > y) - (x < y);  /* +NaN payloads ascending */
    if (ca == 3)
        return (x < y) - (x > y);  /* -NaN: their bits descending */
    if (a == b && a == 0.0)
        return (int)y_negative - (int)x_negative;  /* -0 before +0 */
    return (a > b) - (a < b);
}

/* -1, 0, 1 for the documented ascending order of two f32 keys' bits. */
static inline int reference_compare_f32_bits(uint32_t x, uint32_t y)
{
    float a, b;
    memcpy(&a, &x, 4);
    memcpy(&b, &y, 4);
    return reference_compare_float(a, b, x, y, x >> 31, y >> 31);
}

/* -1, 0, 1 for the documented ascending order of two f64 keys' bits. */
static inline int reference_compare_f64_bits(uint64_t x, uint64_t y)
{
    double a, b;
    memcpy(&a, &x, 8);
    memcpy(&b, &y, 8);
    return reference_compare_float(a, b, x, y, x >> 63, y >> 63);
}

/* The qsort result of one pair of elements: the key order (reversed when
 * descending), then the tie-break ascending either way, so the expected
 * output is one exact sequence even with many equal keys. */
static inline int reference_order_then_tie(int by_key, bool descending, uint32_t tie_x, uint32_t tie_y)
{
    if (by_key)
        return descending ? -by_key : by_key;
    return (tie_x > tie_y) - (tie_x < tie_y);
}

/* f32 key bits from one random word: a quarter of them the cases the order
 * singles out (NaNs of both signs and several payloads, infinities, both
 * zeros, subnormals, +-1, the largest finite), the rest eighths in [-125, 125)
 * that repeat, of both signs. */
static inline uint32_t reference_random_f32_bits(uint64_t r)
{
    static const uint32_t special[] = {
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu,  /* NaNs */
        0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,  /* inf, zeros, subnormal */
        0x007fffffu, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
    if ((r & 3u) == 0)
        return special[(r >> 8) % (sizeof special / sizeof special[0])];
    float f = (float)((int64_t)(r >> 40) % 2000 - 1000) / 8.0f;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;
}

#endif
