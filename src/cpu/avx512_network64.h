/* avx512_network64.h: the bitonic network of 64-bit keys in AVX-512 registers
 * (8 lanes to a register), for the keys-only sort of 64-bit words
 * (fast_sort_avx512_64.c). It was written for a second sort too, of (64-bit
 * key, 32-bit value) pairs that moved each value with its key, which the
 * radix sort replaced (docs/perf-log.md, entry 134).
 * The network works on kv64, a register of keys beside a register of values
 * in 64-bit lanes, so every permute of the keys applies to the values
 * unchanged. The keys-only sort passes values = false, and every operation on
 * values sits behind that constant, so its network is the plain min/max one.
 * With values, each compare-exchange compares the keys once and moves keys
 * and values by that mask; equal keys never swap. (Leaving the values
 * unloaded and unstored was not enough: gcc 12 kept about a third of their
 * operations. Keys by min/max beside values by a mask was 3-7% slower for
 * pairs than one mask for both: docs/perf-log.md, entry 121.)
 * Up to 128 keys (16 registers) are sorted without leaving the registers:
 * columns of 8 registers sorted by Batcher's network on whole registers and
 * transposed, then registers merged pairwise, 4-wise, ...
 * Include it after <immintrin.h>, under the AVX-512 target pragma of the
 * including file, which its functions (all inlined) take on. */
#ifndef BITONIC_CPU_AVX512_NETWORK64_H
#define BITONIC_CPU_AVX512_NETWORK64_H

#include <stdbool.h>
#include <stddef.h>

#include "fast_sort.h"

#define NETWORK64_LANES 8
#define NETWORK64_MAX_REGS 16

#define NETWORK64_INLINE static inline __attribute__((always_inline))

typedef struct kv64 {
    __m512i k, v;
} kv64;

NETWORK64_INLINE kv64 kv64_permute(__m512i index, kv64 a, const bool values)
{
    return (kv64){_mm512_permutexvar_epi64(index, a.k), values ? _mm512_permutexvar_epi64(index, a.v) : a.v};
}

/* Lane-wise compare-exchange inside one register: partner holds each lane's
 * partner; lanes in take_max keep the larger key. A lane's value moves when
 * its key did. */
NETWORK64_INLINE kv64 kv64_coex_select(kv64 a, kv64 partner, __mmask8 take_max, const bool values)
{
    if (!values)
        return (kv64){_mm512_mask_blend_epi64(take_max, _mm512_min_epu64(a.k, partner.k),
                                              _mm512_max_epu64(a.k, partner.k)),
                      a.v};
    __mmask8 swap = (__mmask8)(_mm512_mask_cmplt_epu64_mask(take_max, a.k, partner.k) |
                               _mm512_mask_cmpgt_epu64_mask((__mmask8)~take_max, a.k, partner.k));
    return (kv64){_mm512_mask_blend_epi64(swap, a.k, partner.k), _mm512_mask_blend_epi64(swap, a.v, partner.v)};
}

/* Compare-exchange of whole registers: a keeps the smaller key of each lane. */
NETWORK64_INLINE void kv64_coex(kv64 *a, kv64 *b, const bool values)
{
    if (!values) {
        __m512i low = _mm512_min_epu64(a->k, b->k);
        b->k = _mm512_max_epu64(a->k, b->k);
        a->k = low;
        return;
    }
    __mmask8 swap = _mm512_cmpgt_epu64_mask(a->k, b->k);
    kv64 low = {_mm512_mask_blend_epi64(swap, a->k, b->k), _mm512_mask_blend_epi64(swap, a->v, b->v)};
    b->k = _mm512_mask_blend_epi64(swap, b->k, a->k);
    b->v = _mm512_mask_blend_epi64(swap, b->v, a->v);
    *a = low;
}

NETWORK64_INLINE kv64 kv64_reverse8(kv64 a, const bool values)
{
    return kv64_permute(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), a, values);
}

/* Compare-exchange of lanes i and i^stride inside one register; the lane with
 * the stride bit set keeps the maximum. */
NETWORK64_INLINE kv64 kv64_stride1(kv64 a, const bool values)
{
    kv64 partner = {_mm512_shuffle_epi32(a.k, _MM_PERM_BADC), values ? _mm512_shuffle_epi32(a.v, _MM_PERM_BADC) : a.v};
    return kv64_coex_select(a, partner, 0xAA, values);
}
NETWORK64_INLINE kv64 kv64_stride2(kv64 a, const bool values)
{
    kv64 partner = {_mm512_shuffle_i64x2(a.k, a.k, _MM_PERM_CDAB),
                    values ? _mm512_shuffle_i64x2(a.v, a.v, _MM_PERM_CDAB) : a.v};
    return kv64_coex_select(a, partner, 0xCC, values);
}
NETWORK64_INLINE kv64 kv64_stride4(kv64 a, const bool values)
{
    kv64 partner = {_mm512_shuffle_i64x2(a.k, a.k, _MM_PERM_BADC),
                    values ? _mm512_shuffle_i64x2(a.v, a.v, _MM_PERM_BADC) : a.v};
    return kv64_coex_select(a, partner, 0xF0, values);
}

/* Mirror compare-exchanges (lane i against block_end-1-i), the first step of a
 * bitonic merge written so that every step sorts ascending. */
NETWORK64_INLINE kv64 kv64_mirror4(kv64 a, const bool values)
{
    kv64 partner = {_mm512_permutex_epi64(a.k, 0x1B), values ? _mm512_permutex_epi64(a.v, 0x1B) : a.v};
    return kv64_coex_select(a, partner, 0xCC, values);
}
NETWORK64_INLINE kv64 kv64_mirror8(kv64 a, const bool values)
{
    return kv64_coex_select(a, kv64_reverse8(a, values), 0xF0, values);
}

NETWORK64_INLINE kv64 kv64_sort_register(kv64 a, const bool values)
{
    a = kv64_stride1(a, values);
    a = kv64_mirror4(a, values);
    a = kv64_stride1(a, values);
    a = kv64_mirror8(a, values);
    a = kv64_stride2(a, values);
    return kv64_stride1(a, values);
}

/* The in-register tail of a merge: three half-cleaners. */
NETWORK64_INLINE kv64 kv64_merge_register(kv64 a, const bool values)
{
    return kv64_stride1(kv64_stride2(kv64_stride4(a, values), values), values);
}

/* Sorts the 8 columns of an 8x8 block at once: Batcher's odd-even merge sort
 * (19 compare-exchanges) applied to whole registers. */
NETWORK64_INLINE void kv64_sort_columns8(kv64 *r, const bool values)
{
#define NETWORK64_COEX(a, b) kv64_coex(&r[a], &r[b], values)
    NETWORK64_COEX(0, 1); NETWORK64_COEX(2, 3); NETWORK64_COEX(4, 5); NETWORK64_COEX(6, 7);
    NETWORK64_COEX(0, 2); NETWORK64_COEX(1, 3); NETWORK64_COEX(4, 6); NETWORK64_COEX(5, 7);
    NETWORK64_COEX(1, 2); NETWORK64_COEX(5, 6); NETWORK64_COEX(0, 4); NETWORK64_COEX(1, 5);
    NETWORK64_COEX(2, 6); NETWORK64_COEX(3, 7); NETWORK64_COEX(2, 4); NETWORK64_COEX(3, 5);
    NETWORK64_COEX(1, 2); NETWORK64_COEX(3, 4); NETWORK64_COEX(5, 6);
#undef NETWORK64_COEX
}

/* Transposes an 8x8 block of 64-bit words: unpack 64-bit, then two rounds of
 * 128-bit lane moves. */
NETWORK64_INLINE void network64_transpose8_words(__m512i *r)
{
    __m512i t[8], u[8];
BITONIC_CPU_UNROLL(4)
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
    }
    /* u[g]: rows 0-3 (g < 4) or 4-7 of the columns of t, two 128-bit lanes each. */
    u[0] = _mm512_shuffle_i64x2(t[0], t[2], 0x88);
    u[1] = _mm512_shuffle_i64x2(t[0], t[2], 0xDD);
    u[2] = _mm512_shuffle_i64x2(t[1], t[3], 0x88);
    u[3] = _mm512_shuffle_i64x2(t[1], t[3], 0xDD);
    u[4] = _mm512_shuffle_i64x2(t[4], t[6], 0x88);
    u[5] = _mm512_shuffle_i64x2(t[4], t[6], 0xDD);
    u[6] = _mm512_shuffle_i64x2(t[5], t[7], 0x88);
    u[7] = _mm512_shuffle_i64x2(t[5], t[7], 0xDD);
BITONIC_CPU_UNROLL(4)
    for (int c = 0; c < 4; c++) {
        r[2 * c] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0x88);
        r[2 * c + 1] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0xDD);
    }
}

/* Sorted columns become sorted registers; which register receives which
 * column does not matter to the merges after it. */
NETWORK64_INLINE void kv64_transpose8(kv64 *r, const bool values)
{
    __m512i k[8], v[8];
BITONIC_CPU_UNROLL(8)
    for (int i = 0; i < 8; i++) {
        k[i] = r[i].k;
        v[i] = r[i].v;
    }
    network64_transpose8_words(k);
    if (values)
        network64_transpose8_words(v);
BITONIC_CPU_UNROLL(8)
    for (int i = 0; i < 8; i++)
        r[i] = (kv64){k[i], v[i]};
}

/* Sorts reg_count registers (a power of two, at most NETWORK64_MAX_REGS) as
 * one sequence of reg_count*8 keys, moving the values with them when values
 * is true; when it is false, the values are left as they are and no operation
 * on them is emitted. Called with constants so the loops unroll, the branches
 * on values fold and r[] stays in registers. */
NETWORK64_INLINE void kv64_sort_registers(kv64 *r, const int reg_count, const bool values)
{
    if (reg_count >= 8) {
BITONIC_CPU_UNROLL(2)
        for (int group = 0; group < reg_count; group += 8) {
            kv64_sort_columns8(r + group, values);
            kv64_transpose8(r + group, values);
        }
    } else {
BITONIC_CPU_UNROLL(4)
        for (int i = 0; i < reg_count; i++)
            r[i] = kv64_sort_register(r[i], values);
    }
BITONIC_CPU_UNROLL(4)
    for (int block = 2; block <= reg_count; block *= 2) {
BITONIC_CPU_UNROLL(16)
        for (int base = 0; base < reg_count; base += block) {
BITONIC_CPU_UNROLL(8)
            for (int i = 0; i < block / 2; i++) {
                kv64 a = r[base + i];
                kv64 b = kv64_reverse8(r[base + block - 1 - i], values);
                kv64_coex(&a, &b, values);
                r[base + i] = a;
                r[base + block - 1 - i] = kv64_reverse8(b, values);
            }
        }
BITONIC_CPU_UNROLL(4)
        for (int stride = block / 4; stride > 0; stride /= 2) {
BITONIC_CPU_UNROLL(16)
            for (int i = 0; i < reg_count; i++) {
                if ((i & stride) == 0 && i + stride < reg_count)
                    kv64_coex(&r[i], &r[i + stride], values);
            }
        }
BITONIC_CPU_UNROLL(16)
        for (int i = 0; i < reg_count; i++)
            r[i] = kv64_merge_register(r[i], values);
    }
}

/* The lanes of register reg that hold one of count words, and where its
 * words start: registers past the end get an empty mask and an address
 * clamped to one past the end, which a masked access with no lanes never
 * touches. */
NETWORK64_INLINE __mmask8 network64_lane_mask(size_t count, int reg)
{
    size_t first = (size_t)reg * NETWORK64_LANES;
    if (count <= first)
        return 0;
    size_t left = count - first;
    return left >= NETWORK64_LANES ? (__mmask8)0xFF : (__mmask8)((1u << left) - 1u);
}

NETWORK64_INLINE size_t network64_block_offset(size_t count, int reg)
{
    size_t first = (size_t)reg * NETWORK64_LANES;
    return first < count ? first : count;
}

#endif /* BITONIC_CPU_AVX512_NETWORK64_H */
