/* fast_sort.h: the fast CPU sort, the executor the library runs when a context
 * has no GPU. Bitonic networks in vector registers (AVX-512, AVX2, or portable C
 * chosen at run time from the CPU's features) combined as the best SIMD sorts do,
 * on all cores for large inputs. Internal to the library: the public API reaches it
 * through bitonic_sort_u32() and friends on a CPU context. */
#ifndef BITONIC_CPU_FAST_SORT_H
#define BITONIC_CPU_FAST_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "bitonic.h"

typedef enum bitonic_cpu_target {
    BITONIC_CPU_TARGET_AUTO = 0,   /* the best the running CPU supports */
    BITONIC_CPU_TARGET_PORTABLE,   /* plain C, any CPU */
    BITONIC_CPU_TARGET_AVX2,
    BITONIC_CPU_TARGET_AVX512,
} bitonic_cpu_target;

typedef struct bitonic_cpu_sort_config {
    bitonic_cpu_target target;     /* forcing a target the CPU lacks gives BITONIC_ERROR_UNSUPPORTED */
    uint32_t threads;              /* 0 = all cores */
} bitonic_cpu_sort_config;

/* The target AUTO resolves to on this CPU. */
bitonic_cpu_target bitonic_cpu_best_target(void);
/* Whether this CPU can run the target. */
int bitonic_cpu_target_supported(bitonic_cpu_target target);
const char *bitonic_cpu_target_name(bitonic_cpu_target target);

/* Sorts count keys in place. config may be NULL (AUTO, all cores).
 * Returns BITONIC_SUCCESS, BITONIC_ERROR_INVALID_ARGUMENT (keys NULL with count > 0),
 * BITONIC_ERROR_UNSUPPORTED or BITONIC_ERROR_OUT_OF_HOST_MEMORY. */
bitonic_status bitonic_cpu_sort_u32(uint32_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config);
/* The same for 64-bit words: u64 keys, ordered bits of i64 and f64 keys, and
 * pairs packed as (ordered 32-bit key << 32 | value), which sorts equal keys by
 * value. In place: no buffer beyond the stack. */
bitonic_status bitonic_cpu_sort_u64(uint64_t *keys, size_t count, bitonic_order order,
                                    const bitonic_cpu_sort_config *config);

/* What the caller does to each stretch of the sorted keys once it is final:
 * run(context, begin, end) over [begin, end), offsets into the keys, called
 * from the sort's threads on disjoint stretches (a block of up to 2^15 keys
 * just sorted, keys equal to a pivot), each while it is still in the caches:
 * the order map's inverse or the unpacking of pairs, which as a pass of its
 * own after the sort read and wrote every key again from memory. Every key is
 * in exactly one stretch. */
typedef void (*bitonic_cpu_slice_fn)(void *context, size_t begin, size_t end);
typedef struct bitonic_cpu_finish {
    bitonic_cpu_slice_fn run;
    void *context;
} bitonic_cpu_finish;

/* Where the words come from when they are not yet in the sort's array: pairs
 * in the caller's arrays, packed into words as the sort's first partition
 * reads them, so that packing is not a pass of its own (pair_pack.h). */
typedef struct bitonic_cpu_source {
    /* Writes the words of items [begin, begin + count) to keys[0, count),
     * those below pivot first; returns how many are below. NULL: the source
     * has no such loop for the sort's target, and write runs as a pass. */
    size_t (*partition)(void *context, void *keys, size_t begin, size_t count, uint64_t pivot);
    /* Writes the words of items [begin, end) to the sort's array, in order. */
    bitonic_cpu_slice_fn write;
    /* The word of one item (the pivot's samples). */
    uint64_t (*word)(void *context, size_t index);
    void *context;
} bitonic_cpu_source;

/* The ascending sorts with a finish (not NULL) run on every key, in place of a
 * pass after the sort. */
bitonic_status bitonic_cpu_sort_u32_finished(uint32_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                             const bitonic_cpu_finish *finish);
bitonic_status bitonic_cpu_sort_u64_finished(uint64_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                             const bitonic_cpu_finish *finish);
/* The same for count words that source makes into keys: its partition is the
 * first split (on all threads where the sort partitions on all threads), or,
 * for short inputs and inputs whose first words are in order, its write runs
 * as a pass before the sort (which then answers presorted input in one pass). */
bitonic_status bitonic_cpu_sort_u64_from(uint64_t *keys, size_t count, const bitonic_cpu_sort_config *config,
                                         const bitonic_cpu_source *source, const bitonic_cpu_finish *finish);

/* Loop-unrolling hints for the kernels, whose register arrays must unroll to stay
 * in registers. Left out without optimisation, where gcc with sanitizers warns
 * that it ignores them (an error under -Werror). */
#if defined(__OPTIMIZE__) && (defined(__GNUC__) || defined(__clang__))
#define BITONIC_CPU_PRAGMA(text) _Pragma(#text)
#define BITONIC_CPU_UNROLL(count) BITONIC_CPU_PRAGMA(GCC unroll count)
#else
#define BITONIC_CPU_UNROLL(count)
#endif

/* Internal to the fast sort's own files: one instruction set's building blocks.
 * The driver (fast_sort_driver.inc) does the quicksort recursion, pivot choice,
 * depth guard and threading once; each instruction set supplies only the two
 * loops that are worth vectorising. */
typedef struct bitonic_cpu_kernels {
    /* base_sort sorts up to base_keys keys ascending (a network in registers). */
    size_t base_keys;
    void (*base_sort)(uint32_t *keys, size_t count);
    /* Reorders keys so that those below pivot come first; returns their count.
     * Any count is allowed. */
    size_t (*partition)(uint32_t *keys, size_t count, uint32_t pivot);
} bitonic_cpu_kernels;

extern const bitonic_cpu_kernels bitonic_cpu_kernels_portable;
#if defined(__x86_64__) || defined(__i386__)
#define BITONIC_CPU_HAVE_X86 1
extern const bitonic_cpu_kernels bitonic_cpu_kernels_avx2;
extern const bitonic_cpu_kernels bitonic_cpu_kernels_avx512;
#endif

/* Scalar helpers the vector kernels share for their odd ends. */
size_t bitonic_cpu_partition_scalar(uint32_t *keys, size_t count, uint32_t pivot);
void bitonic_cpu_insertion_sort(uint32_t *keys, size_t count);

/* The same two loops for 64-bit words (8 lanes to a zmm register). */
typedef struct bitonic_cpu_kernels64 {
    size_t base_keys;
    void (*base_sort)(uint64_t *keys, size_t count);
    size_t (*partition)(uint64_t *keys, size_t count, uint64_t pivot);
} bitonic_cpu_kernels64;

extern const bitonic_cpu_kernels64 bitonic_cpu_kernels64_portable;
#if defined(BITONIC_CPU_HAVE_X86)
extern const bitonic_cpu_kernels64 bitonic_cpu_kernels64_avx512;
/* The AVX-512 partition of 64-bit keys of type (u64, i64, f64) mapping each
 * to its ordered bits (key_transform.h, then order_xor) as it reads it. */
size_t bitonic_cpu_partition_to_ordered_avx512_64(uint64_t *keys, size_t count, uint64_t pivot,
                                                  bitonic_key_type type, uint64_t order_xor);
#endif

size_t bitonic_cpu_partition_scalar64(uint64_t *keys, size_t count, uint64_t pivot);
void bitonic_cpu_insertion_sort64(uint64_t *keys, size_t count);

/* Largest pivot sample and thread count the driver uses (bounds its stack arrays). */
#define BITONIC_CPU_MAX_PIVOT_SAMPLE 1024
#define BITONIC_CPU_MAX_THREADS 64
/* Below this many keys per thread, starting threads costs more than it saves. */
#define BITONIC_CPU_PARALLEL_MIN_KEYS_PER_THREAD ((size_t)1 << 16)

/* The sort's threads (fast_sort_jobs.c). run_jobs runs run(jobs + i * job_size)
 * for i < job_count (at most BITONIC_CPU_MAX_THREADS), job 0 on the calling
 * thread and the others on threads started for the call; a job whose thread
 * cannot be started runs on the calling thread, so nothing fails for lack of
 * threads. run_slices splits [0, count) into up to `threads` contiguous slices
 * of at least BITONIC_CPU_PARALLEL_MIN_SLICE items and runs run(context, begin,
 * end) on each, for the passes over the data around a sort. */
typedef void (*bitonic_cpu_job_fn)(void *job);
#define BITONIC_CPU_PARALLEL_MIN_SLICE ((size_t)1 << 15)
void bitonic_cpu_run_jobs(bitonic_cpu_job_fn run, void *jobs, size_t job_size, uint32_t job_count);
void bitonic_cpu_run_slices(bitonic_cpu_slice_fn run, void *context, size_t count, uint32_t threads);
/* The threads a sort of count keys under config runs on: config's count, or
 * (config NULL or threads 0) every core this thread may use when the input is
 * large enough, else 1. The passes around a sort use the same number. */
uint32_t bitonic_cpu_sort_threads(size_t count, const bitonic_cpu_sort_config *config);

/* The driver (fast_sort_driver.inc), once per key width; fast_sort_dispatch.c
 * calls it, and it calls only the kernels, so the files form no cycle.
 * sort_sequential: one thread. sort_with_depth_budget: the same with a given
 * partition depth before the heapsort guard takes over (lets the test reach the
 * guard). sort_parallel: on `threads` threads (1 runs sort_sequential), each
 * final stretch handed to finish (NULL: none). */
void bitonic_cpu_sort_sequential_u32(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count);
void bitonic_cpu_sort_with_depth_budget_u32(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count,
                                            size_t depth_budget);
void bitonic_cpu_sort_parallel_u32(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count,
                                   uint32_t threads, const bitonic_cpu_finish *finish);
void bitonic_cpu_sort_sequential_u64(const bitonic_cpu_kernels64 *kernels, uint64_t *keys, size_t count);
void bitonic_cpu_sort_with_depth_budget_u64(const bitonic_cpu_kernels64 *kernels, uint64_t *keys, size_t count,
                                            size_t depth_budget);
void bitonic_cpu_sort_parallel_u64(const bitonic_cpu_kernels64 *kernels, uint64_t *keys, size_t count,
                                   uint32_t threads, const bitonic_cpu_finish *finish);
/* sort_parallel_from: the same with the first split from a source (NULL: as
 * sort_parallel), whose partition must not be NULL. */
void bitonic_cpu_sort_parallel_from_u32(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count,
                                        uint32_t threads, const bitonic_cpu_finish *finish,
                                        const bitonic_cpu_source *source);
void bitonic_cpu_sort_parallel_from_u64(const bitonic_cpu_kernels64 *kernels, uint64_t *keys, size_t count,
                                        uint32_t threads, const bitonic_cpu_finish *finish,
                                        const bitonic_cpu_source *source);

#endif /* BITONIC_CPU_FAST_SORT_H */
