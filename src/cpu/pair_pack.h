/* pair_pack.h: the passes over the data around the fast CPU sort, on the sort's
 * threads: packing pairs of a 32-bit key and a value into the 64-bit words the
 * sort orders (ordered key << 32 | value) and unpacking them, and the order maps
 * of key_transform.h over arrays of keys. Each pass is split into contiguous
 * slices, one per thread (fast_sort_jobs.c), as many threads as the sort of the
 * same data uses (bitonic_cpu_sort_threads), with the loops built for the
 * sort's target (AUTO: the best this CPU runs; one it lacks: the baseline's). */
#ifndef BITONIC_CPU_PAIR_PACK_H
#define BITONIC_CPU_PAIR_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"
#include "fast_sort.h"

/* What one pass reads and writes: the context of its loop. */
typedef struct bitonic_cpu_pair_pass {
    uint64_t *words;
    uint32_t *keys, *values;
    const uint32_t *gather_from; /* unpacking: values[i] = gather_from[low half], when set */
    bitonic_key_type type;
    uint32_t order_xor;
} bitonic_cpu_pair_pass;

typedef struct bitonic_cpu_map_pass {
    void *keys;
    bitonic_key_type type;
    uint64_t order_xor;
} bitonic_cpu_map_pass;

/* words[i] = ordered(keys[i]) << 32 | values[i], or | i where values is NULL
 * (the position: stable pairs and the argsort); order_xor is all ones for a
 * descending sort. type is a 32-bit key type. */
void bitonic_cpu_pack_pairs(uint64_t *words, const uint32_t *keys, const uint32_t *values, size_t count,
                            bitonic_key_type type, uint32_t order_xor, uint32_t threads,
                            bitonic_cpu_target target);
/* The inverse: keys[i] and values[i] from words[i]; either may be NULL to
 * leave it out. */
void bitonic_cpu_unpack_pairs(const uint64_t *words, uint32_t *keys, uint32_t *values, size_t count,
                              bitonic_key_type type, uint32_t order_xor, uint32_t threads,
                              bitonic_cpu_target target);
/* The same where the low halves are positions: values[i] =
 * gather_from[low half of words[i]] (values must not be gather_from). */
void bitonic_cpu_unpack_gathered(const uint64_t *words, uint32_t *keys, uint32_t *values,
                                 const uint32_t *gather_from, size_t count, bitonic_key_type type,
                                 uint32_t order_xor, uint32_t threads, bitonic_cpu_target target);

/* The stable sorts' passes: positions[i] = i; positions[i] =
 * values[positions[i]] in place; a copy. */
void bitonic_cpu_fill_positions(uint32_t *positions, size_t count, uint32_t threads);
void bitonic_cpu_gather_values(uint32_t *positions, const uint32_t *values, size_t count, uint32_t threads);
void bitonic_cpu_copy_values(uint32_t *to, const uint32_t *from, size_t count, uint32_t threads);

/* The order maps in place over count keys of type (32 or 64 bits by the type);
 * order_xor all ones for descending. */
void bitonic_cpu_keys_to_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                 uint32_t threads, bitonic_cpu_target target);
void bitonic_cpu_keys_from_ordered(void *keys, size_t count, bitonic_key_type type, uint64_t order_xor,
                                   uint32_t threads, bitonic_cpu_target target);

/* The unpacking (as bitonic_cpu_unpack_pairs) and the inverse order map as a
 * finish of the sort (bitonic_cpu_sort_u64_finished, fast_sort.h): run on
 * each stretch as the sort makes it final, in the caches, instead of as a
 * pass after the sort. pass holds the arguments and must outlive the sort.
 * (The gather by positions stays a pass: as a finish it lost, perf-log
 * entry 127.) */
bitonic_cpu_finish bitonic_cpu_unpack_finish(bitonic_cpu_pair_pass *pass, const uint64_t *words, uint32_t *keys,
                                             uint32_t *values, bitonic_key_type type, uint32_t order_xor,
                                             bitonic_cpu_target target);
bitonic_cpu_finish bitonic_cpu_from_ordered_finish(bitonic_cpu_map_pass *pass, void *keys, bitonic_key_type type,
                                                   uint64_t order_xor, bitonic_cpu_target target);

/* The packing (as bitonic_cpu_pack_pairs, values NULL for positions) as the
 * source of the sort (bitonic_cpu_sort_u64_from, fast_sort.h): on AVX-512 the
 * sort's first partition reads the keys and values and writes the words, in
 * place of a pass that wrote them and a partition that read them again; on
 * other targets the pass. pass holds the arguments and must outlive the sort. */
bitonic_cpu_source bitonic_cpu_pack_source(bitonic_cpu_pair_pass *pass, uint64_t *words, const uint32_t *keys,
                                           const uint32_t *values, bitonic_key_type type, uint32_t order_xor,
                                           bitonic_cpu_target target);
/* The order map of 64-bit keys (as bitonic_cpu_keys_to_ordered) as the
 * source of their sort, in place: on AVX-512 the sort's first partition maps
 * each key as it reads it; on other targets the pass. */
bitonic_cpu_source bitonic_cpu_to_ordered_source(bitonic_cpu_map_pass *pass, uint64_t *keys, bitonic_key_type type,
                                                 uint64_t order_xor, bitonic_cpu_target target);
/* That first partition (pack_partition_avx512.c): the pairs begin .. begin +
 * count of pass as words in out[0, count), those below pivot first; returns
 * how many are below. Only on CPUs with AVX-512. */
size_t bitonic_cpu_pack_partition_avx512(const bitonic_cpu_pair_pass *pass, uint64_t *out, size_t begin,
                                         size_t count, uint64_t pivot);

#endif /* BITONIC_CPU_PAIR_PACK_H */
