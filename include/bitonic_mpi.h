/* bitonic_mpi.h: sorting keys spread over the ranks of an MPI communicator.
 *
 * Each rank holds some keys (and optionally one 32-bit value per key) and its
 * own bitonic_context (GPU or CPU path, as that rank chose). One call, made by
 * every rank of the communicator, sorts them all together:
 *
 *     bitonic_context *ctx;
 *     bitonic_context_create(NULL, &ctx);                  // this rank's device
 *     bitonic_status s = bitonic_mpi_sort(ctx, MPI_COMM_WORLD, keys, NULL, count,
 *                                         &(bitonic_mpi_sort_options){.key_type = BITONIC_KEY_F32}, NULL);
 *     // s is the same on every rank. On success rank r holds count sorted keys,
 *     // and every key on rank r precedes every key on rank r + 1.
 *
 * The algorithm is a sample sort: a local sort through the context, regular
 * samples gathered on rank 0, which picks P - 1 splitters and broadcasts them,
 * one all-to-all exchange of counts and one of data, then a merge of the sorted
 * runs each rank received (docs/DISTRIBUTED.md). Ties are broken by (key, rank,
 * position), or (key, value, rank, position) for unstable pairs, so many equal
 * keys still split evenly. The result is exactly what one bitonic_sort() (or
 * bitonic_sort_pairs()) of the ranks' arrays concatenated in rank order gives.
 *
 * Failure: every rank returns the same status. A bad argument or a failed
 * allocation on any rank is agreed on (MPI_Allreduce) before the next
 * collective that could otherwise wait for it, so no rank is left hanging. The
 * library works on a duplicate of the caller's communicator with
 * MPI_ERRORS_RETURN, so its messages never mix with the caller's; a failing MPI
 * call gives BITONIC_ERROR_COMMUNICATION (MPI errors are usually not
 * recoverable: after one, the communicator may not be usable). MPI must be
 * initialised; the ranks must be homogeneous (same byte order and type sizes).
 */
#ifndef BITONIC_MPI_H
#define BITONIC_MPI_H

#include <mpi.h>

#include "bitonic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the merge of the received sorted runs runs. */
typedef enum bitonic_mpi_merge {
    BITONIC_MPI_MERGE_AUTO = 0,      /* a Vulkan context: CONTEXT; the CPU path: CONTEXT for 32-bit keys
                                      * alone (its radix sort is faster), else HOST (measured) */
    BITONIC_MPI_MERGE_HOST = 1,      /* a k-way merge on the CPU (a tree of two-way merges), one thread */
    BITONIC_MPI_MERGE_CONTEXT = 2,   /* a sort of the received runs through the context (on its GPU) */
} bitonic_mpi_merge;

typedef struct bitonic_mpi_sort_options {
    bitonic_order order;
    bitonic_key_type key_type;       /* every type of bitonic.h; u32 by default */
    /* Pairs: equal keys keep their global input order (rank, then position).
     * Without it equal keys come out ordered by value, as bitonic_sort_pairs()
     * orders them. Keys alone: equal keys are identical, so it changes nothing. */
    bool stable;
    bitonic_mpi_merge merge;
    /* Samples each rank sends for the splitters, 0 = 16 per rank in the
     * communicator, at least 256, at most 4096 (never more than its keys). More
     * samples give buckets closer to count / ranks. */
    uint32_t samples_per_rank;
    /* The most elements one MPI message carries, 0 = INT_MAX (MPI's count is an
     * int). Larger exchanges go in chunks, point to point. Tests set a small
     * value to exercise the chunked path on small inputs. */
    size_t max_message_elements;
} bitonic_mpi_sort_options;

/* This rank's time in each phase, wall clock (MPI_Wtime). A phase that ends
 * in a collective includes waiting for the slowest rank; take the maximum
 * over the ranks for the time of the whole sort. */
typedef struct bitonic_mpi_timing {
    double local_sort_ms;            /* the sort of this rank's own keys, through the context */
    double splitters_ms;             /* samples, gathering, choosing and broadcasting the splitters */
    double exchange_ms;              /* the partition, the counts and the data all-to-all */
    double merge_ms;                 /* merging the received runs */
    double balance_ms;               /* the second exchange that restores each rank's count (0 for ranges) */
    double total_ms;
    size_t received_count;           /* keys this rank held after the main exchange, before balancing */
    bool chunked_exchange;           /* the exchange went point to point in chunks */
} bitonic_mpi_timing;

/* Sorts the keys (and values, when values is not NULL) of every rank of comm
 * together, in place: on success each rank holds as many keys as it gave, and
 * the concatenation of the ranks' arrays in rank order is sorted. Every rank
 * of comm must call it, with the same options (order, key type, stable, values
 * or none); a rank may give 0 keys (and NULL pointers). options may be NULL
 * (ascending u32). out_timing may be NULL. On failure the arrays hold the
 * rank's keys in an unspecified order (values still with their keys). */
BITONIC_API bitonic_status bitonic_mpi_sort(bitonic_context *context, MPI_Comm comm, void *keys, uint32_t *values,
                                size_t count, const bitonic_mpi_sort_options *options,
                                bitonic_mpi_timing *out_timing);

/* A rank's result when ranks keep the splitter ranges. keys and values (NULL
 * for keys alone) are allocated by the library; release them with
 * bitonic_mpi_result_free(). */
typedef struct bitonic_mpi_result {
    void *keys;
    uint32_t *values;
    size_t count;
} bitonic_mpi_result;

/* The same sort without the balancing exchange: rank r ends with the keys
 * between splitters r - 1 and r (about count / ranks each, not exactly), in
 * out_result. keys and values are this rank's input; on return they hold it
 * sorted locally. On failure out_result is zeroed. */
BITONIC_API bitonic_status bitonic_mpi_sort_ranges(bitonic_context *context, MPI_Comm comm, void *keys, uint32_t *values,
                                       size_t count, const bitonic_mpi_sort_options *options,
                                       bitonic_mpi_result *out_result, bitonic_mpi_timing *out_timing);

/* Releases what bitonic_mpi_sort_ranges() allocated and zeroes the result;
 * NULL or a zeroed result is fine. */
BITONIC_API void bitonic_mpi_result_free(bitonic_mpi_result *result);

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_MPI_H */
