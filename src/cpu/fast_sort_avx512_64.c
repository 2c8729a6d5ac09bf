/* fast_sort_avx512_64.c: the AVX-512 kernels of the fast CPU sort for 64-bit
 * words (u64, i64 and f64 keys as ordered bits, and packed 32-bit pairs), built
 * as the 32-bit ones in fast_sort_avx512.c are, on 8 lanes to a register:
 * base_sort: up to 128 words (16 zmm registers) sorted by the bitonic network
 * of avx512_network64.h, which never leaves the registers.
 * partition: the one of avx512_partition.inc, on 8 words: compare them with the
 * pivot, compress each side into a register and write it with a masked store
 * at the left or right write cursor.
 * Compiled for AVX-512 through a target pragma; the dispatcher calls it only
 * when the CPU reports AVX-512. */
#include "fast_sort.h"

#if defined(__x86_64__) || defined(__i386__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2"))), \
                             apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi,bmi2")
#endif

#include <immintrin.h>

#include "avx512_network64.h"
#include "key_transform.h"

#define LANES NETWORK64_LANES
#define MAX_REGS NETWORK64_MAX_REGS
#define BASE_KEYS (LANES * MAX_REGS)
/* Vectors read per step of the partition loop, as for 32-bit keys. */
#define UNROLL 4

typedef __m512i vec;

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Loads count words into reg_count registers, padding with the largest word so
 * the padding sorts to the end and is never stored. The network's values are
 * left at zero: the network is built without them. */
ALWAYS_INLINE void sort_block(uint64_t *keys, size_t count, const int reg_count)
{
    kv64 r[MAX_REGS];
    const vec pad = _mm512_set1_epi64(-1);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++) {
        __mmask8 mask = network64_lane_mask(count, i);
        r[i].k = _mm512_mask_loadu_epi64(pad, mask, keys + network64_block_offset(count, i));
        r[i].v = _mm512_setzero_si512();
    }
    kv64_sort_registers(r, reg_count, false);
BITONIC_CPU_UNROLL(16)
    for (int i = 0; i < reg_count; i++)
        _mm512_mask_storeu_epi64(keys + network64_block_offset(count, i), network64_lane_mask(count, i), r[i].k);
}

static void avx512_base_sort64(uint64_t *keys, size_t count)
{
    if (count <= 1)
        return;
    if (count <= 8)
        sort_block(keys, count, 1);
    else if (count <= 16)
        sort_block(keys, count, 2);
    else if (count <= 32)
        sort_block(keys, count, 4);
    else if (count <= 64)
        sort_block(keys, count, 8);
    else
        sort_block(keys, count, 16);
}

/* The partition (avx512_partition.inc) on 8 lanes of 64-bit words. Words
 * ahead of the read cursors to prefetch: the same 4 KiB as for 32-bit keys. */
#define PARTITION_FUNCTION avx512_partition64
#define PARTITION_KEY uint64_t
#define PARTITION_MASK __mmask8
#define PARTITION_ALL_LANES 0xFF
#define PARTITION_SET1(key) _mm512_set1_epi64((long long)(key))
#define PARTITION_CMPLT _mm512_mask_cmplt_epu64_mask
#define PARTITION_COMPRESS _mm512_maskz_compress_epi64
#define PARTITION_STORE _mm512_mask_storeu_epi64
#define PARTITION_LOAD _mm512_maskz_loadu_epi64
#define PARTITION_LANE_MASK network64_lane_mask
#define PARTITION_SCALAR bitonic_cpu_partition_scalar64
#define PARTITION_PREFETCH_KEYS 512
#include "avx512_partition.inc"

/* The same partition mapping each key to its ordered bits as it reads it
 * (key_transform.h's maps, then map_xor): the first split of a sort of f64 or
 * i64 keys, in place of a pass of the map before it (docs/perf-log.md, entry
 * 132). The f64 map's two arms agree on the negative NaNs (~x + 0xfff0000000000001
 * is ~x - 0x000fffffffffffff modulo 2^64, and their twiddled bits are ~x), so
 * one arm serves every key. */
ALWAYS_INLINE __m512i ordered_doubles(__m512i x, uint64_t order_xor)
{
    __m512i twiddled = _mm512_xor_si512(x, _mm512_or_si512(_mm512_srai_epi64(x, 63),
                                                           _mm512_set1_epi64((long long)0x8000000000000000ull)));
    return _mm512_xor_si512(_mm512_sub_epi64(twiddled, _mm512_set1_epi64(0x000fffffffffffffll)),
                            _mm512_set1_epi64((long long)order_xor));
}

static void doubles_to_ordered(uint64_t *keys, size_t count, uint64_t order_xor)
{
    bitonic_keys64_to_ordered(keys, count, BITONIC_KEY_F64, order_xor);
}

static void xor_keys(uint64_t *keys, size_t count, uint64_t map_xor)
{
    for (size_t i = 0; i < count; i++)
        keys[i] ^= map_xor;
}

#undef PARTITION_FUNCTION
#define PARTITION_FUNCTION partition_doubles_to_ordered
#define PARTITION_MAP(v) ordered_doubles((v), map_xor)
#define PARTITION_MAP_SCALAR doubles_to_ordered
#include "avx512_partition.inc"
#undef PARTITION_FUNCTION
#undef PARTITION_MAP
#undef PARTITION_MAP_SCALAR
#define PARTITION_FUNCTION partition_xor_keys
#define PARTITION_MAP(v) _mm512_xor_si512((v), _mm512_set1_epi64((long long)map_xor))
#define PARTITION_MAP_SCALAR xor_keys
#include "avx512_partition.inc"

size_t bitonic_cpu_partition_to_ordered_avx512_64(uint64_t *keys, size_t count, uint64_t pivot,
                                                  bitonic_key_type type, uint64_t order_xor)
{
    if (type == BITONIC_KEY_F64)
        return partition_doubles_to_ordered(keys, count, pivot, order_xor);
    return partition_xor_keys(keys, count, pivot, order_xor ^ (type == BITONIC_KEY_I64 ? 0x8000000000000000ull : 0u));
}

const bitonic_cpu_kernels64 bitonic_cpu_kernels64_avx512 = {
    .base_keys = BASE_KEYS,
    .base_sort = avx512_base_sort64,
    .partition = avx512_partition64,
};

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* x86 */
