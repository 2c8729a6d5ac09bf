/* pack_partition_avx512.c: the first partition of a sort of packed pairs, on
 * AVX-512. It reads the caller's 32-bit keys and values (or takes each pair's
 * position as its value), packs each pair into the word the sort orders
 * (ordered key << 32 | value, pair_pack.h) and writes the words below the
 * pivot from the front of the output and the others from its back: the
 * packing pass and the first partition pass in one read of the pairs.
 * Out of place, so no element can be overwritten before it is read and the
 * loop needs none of the in-place partition's saved vectors
 * (avx512_partition.inc). Compiled for AVX-512 through a target pragma; only
 * the source of bitonic_cpu_pack_source (pair_pack.c) calls it, and only when
 * the sort's target is AVX-512. */
#include "pair_pack.h"

#include "key_transform.h"

#if defined(BITONIC_CPU_HAVE_X86) && (defined(__GNUC__) || defined(__clang__))

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2"))), \
                             apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* The order map of key_transform.h on 16 keys at once: f32 keys by the float
 * map, the others by an XOR (the sign bit for i32); then order_xor. The float
 * map's two arms agree on the negative NaNs (~x + 0xff800001 is ~x - 0x7fffff
 * modulo 2^32, and their twiddled bits are ~x), so one arm serves every key. */
ALWAYS_INLINE __m512i ordered_keys(__m512i x, int floats, __m512i key_xor)
{
    if (!floats)
        return _mm512_xor_si512(x, key_xor);
    __m512i sign_mask = _mm512_srai_epi32(x, 31);
    __m512i twiddled = _mm512_xor_si512(x, _mm512_or_si512(sign_mask, _mm512_set1_epi32((int)0x80000000u)));
    return _mm512_xor_si512(_mm512_sub_epi32(twiddled, _mm512_set1_epi32(0x007fffff)), key_xor);
}

/* Writes one register of words: the lanes below the pivot at the front
 * cursor, the others just below the back one. */
ALWAYS_INLINE void store_split(uint64_t *out, size_t *front, size_t *back, __m512i words, __m512i pivot)
{
    __mmask8 below = _mm512_cmplt_epu64_mask(words, pivot);
    __mmask8 above = (__mmask8)~below;
    unsigned below_count = (unsigned)_mm_popcnt_u32(below), above_count = 8u - below_count;
    _mm512_mask_storeu_epi64(out + *front, (__mmask8)_bzhi_u32(0xFF, below_count),
                             _mm512_maskz_compress_epi64(below, words));
    *front += below_count;
    *back -= above_count;
    _mm512_mask_storeu_epi64(out + *back, (__mmask8)_bzhi_u32(0xFF, above_count),
                             _mm512_maskz_compress_epi64(above, words));
}

/* The pairs begin .. begin + count of pass (keys, values or positions) as
 * words in out[0, count), those below pivot first; returns how many. Which
 * pairs share a register does not matter: a partition only has to put each
 * word on its side, so the words are made by interleaving keys and values
 * within each 128-bit lane, two instructions for 16 pairs. */
static size_t pack_partition(const bitonic_cpu_pair_pass *pass, uint64_t *out, size_t begin, size_t count,
                             uint64_t pivot_word, int floats)
{
    const uint32_t *keys = pass->keys + begin, *values = pass->values ? pass->values + begin : NULL;
    uint32_t key_xor_bits = pass->order_xor ^ (pass->type == BITONIC_KEY_I32 ? 0x80000000u : 0u);
    const __m512i key_xor = _mm512_set1_epi32((int)(floats ? pass->order_xor : key_xor_bits));
    const __m512i pivot = _mm512_set1_epi64((long long)pivot_word);
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i position = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)begin), lane);
    const __m512i sixteen = _mm512_set1_epi32(16);
    size_t front = 0, back = count, i = 0;
    for (; i + 16 <= count; i += 16) {
        __m512i k = ordered_keys(_mm512_loadu_si512(keys + i), floats, key_xor);
        __m512i v = values ? _mm512_loadu_si512(values + i) : position;
        position = _mm512_add_epi32(position, sixteen);
        store_split(out, &front, &back, _mm512_unpacklo_epi32(v, k), pivot);
        store_split(out, &front, &back, _mm512_unpackhi_epi32(v, k), pivot);
    }
    for (; i < count; i++) {
        uint32_t key = floats ? bitonic_ordered_from_float_bits(keys[i]) ^ pass->order_xor : keys[i] ^ key_xor_bits;
        uint64_t word = (uint64_t)key << 32 | (values ? values[i] : (uint32_t)(begin + i));
        if (word < pivot_word)
            out[front++] = word;
        else
            out[--back] = word;
    }
    return front;
}

size_t bitonic_cpu_pack_partition_avx512(const bitonic_cpu_pair_pass *pass, uint64_t *out, size_t begin,
                                         size_t count, uint64_t pivot)
{
    /* Two copies of the loop, so the float map's test is not in it. */
    if (pass->type == BITONIC_KEY_F32)
        return pack_partition(pass, out, begin, count, pivot, 1);
    return pack_partition(pass, out, begin, count, pivot, 0);
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* x86 */
