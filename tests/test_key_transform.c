/* test_key_transform.c: the key maps of src/core/key_transform.h. Every one of
 * the 2^32 float bit patterns maps back to itself, the documented order holds
 * on the special values, and the array forms equal the single-key forms. */
#include <math.h>
#include <string.h>

#include "key_transform.h"
#include "test_util.h"

static uint32_t bits_of(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

int main(void)
{
    test_counter t = {0};
    uint64_t wrong = 0;
    for (uint64_t i = 0; i <= UINT32_MAX; ++i)
        wrong += bitonic_float_bits_from_ordered(bitonic_ordered_from_float_bits((uint32_t)i)) != (uint32_t)i;
    TEST_CHECK(&t, wrong == 0, "every float bit pattern maps back to itself (%llu do not)", (unsigned long long)wrong);

    const uint32_t ascending[] = {
        bits_of(-INFINITY), bits_of(-3.0e38f), bits_of(-1.0f), 0x80000001u /* -subnormal */, 0x80000000u /* -0 */,
        0x00000000u /* +0 */, 0x00000001u /* +subnormal */, bits_of(1.0f), bits_of(3.0e38f), bits_of(INFINITY),
        0x7f800001u, 0x7fc00000u, 0x7fffffffu /* +NaNs by payload */, 0xffffffffu, 0xffc00000u, 0xff800001u /* -NaNs */};
    size_t count = sizeof ascending / sizeof ascending[0];
    for (size_t i = 0; i + 1 < count; ++i)
        TEST_CHECK(&t, bitonic_ordered_from_float_bits(ascending[i]) < bitonic_ordered_from_float_bits(ascending[i + 1]),
                   "float order at %zu: %08x before %08x", i, ascending[i], ascending[i + 1]);
    TEST_CHECK(&t, bitonic_ordered_from_key(0x80000000u, BITONIC_KEY_I32, 0) < bitonic_ordered_from_key(0x7fffffffu, BITONIC_KEY_I32, 0),
               "INT32_MIN before INT32_MAX");

    uint64_t seed = 3;
    for (int type = BITONIC_KEY_U32; type <= BITONIC_KEY_F32; ++type)
        for (uint32_t flip = 0; flip <= 1; ++flip) {
            uint32_t keys[1000], expected[1000], order_xor = flip ? UINT32_MAX : 0u;
            for (int i = 0; i < 1000; ++i) {
                keys[i] = (uint32_t)test_random_u64(&seed);
                expected[i] = bitonic_ordered_from_key(keys[i], (bitonic_key_type)type, order_xor);
            }
            uint32_t original[1000];
            memcpy(original, keys, sizeof keys);
            bitonic_keys_to_ordered(keys, 1000, (bitonic_key_type)type, order_xor);
            bool same = memcmp(keys, expected, sizeof keys) == 0;
            bitonic_keys_from_ordered(keys, 1000, (bitonic_key_type)type, order_xor);
            TEST_CHECK(&t, same && memcmp(keys, original, sizeof keys) == 0, "array maps, type %d, order %u", type,
                       flip);
        }
    /* 64-bit: round trips of random and special patterns, and the double order. */
    uint64_t wrong64 = 0;
    for (int i = 0; i < 2000000; ++i) {
        uint64_t x = test_random_u64(&seed);
        if (i % 4 == 1)
            x |= 0x7ff0000000000000ull;  /* NaN and infinity exponents, both signs */
        wrong64 += bitonic_double_bits_from_ordered(bitonic_ordered_from_double_bits(x)) != x;
    }
    TEST_CHECK(&t, wrong64 == 0, "double bit patterns map back to themselves");
    const double numbers[] = {-INFINITY, -1e300, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1e300, INFINITY};
    uint64_t order[14];
    for (int i = 0; i < 10; ++i)
        memcpy(&order[i], &numbers[i], 8);
    order[10] = 0x7ff0000000000001ull;  /* +NaNs by payload, then -NaNs */
    order[11] = 0x7fffffffffffffffull;
    order[12] = 0xffffffffffffffffull;
    order[13] = 0xfff0000000000001ull;
    for (int i = 0; i + 1 < 14; ++i)
        TEST_CHECK(&t, bitonic_ordered_from_double_bits(order[i]) < bitonic_ordered_from_double_bits(order[i + 1]),
                   "double order at %d", i);
    TEST_CHECK(&t, bitonic_ordered_from_key64(0x8000000000000000ull, BITONIC_KEY_I64, 0) <
                       bitonic_ordered_from_key64(0x7fffffffffffffffull, BITONIC_KEY_I64, 0),
               "INT64_MIN before INT64_MAX");
    return test_finish(&t);
}
