/* mpi_internal.h: the pieces of the distributed sample sort (bitonic_mpi.h),
 * shared by its files: the order every piece compares in, the probes (samples
 * and splitters), the all-to-all exchange and the host merge.
 *
 * Every comparison is on ordered bits (src/core/key_transform.h): each key maps
 * to an unsigned integer whose order is the wanted order, descending included,
 * so one unsigned comparison serves every key type, as on the GPU. */
#ifndef BITONIC_MPI_INTERNAL_H
#define BITONIC_MPI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic_mpi.h"
#include "key_transform.h"

/* How the elements of one sort are laid out and ordered. */
typedef struct mpi_sort_shape {
    bitonic_key_type key_type;
    size_t key_bytes;                /* 4 or 8 */
    bool has_values;
    bool value_ties;                 /* unstable pairs: equal keys ordered by value, as bitonic_sort_pairs() */
    uint64_t flip;                   /* all ones for descending: the ordered bits are inverted */
} mpi_sort_shape;

static inline uint64_t mpi_ordered_key(const mpi_sort_shape *shape, const void *keys, size_t i)
{
    if (shape->key_bytes == 8)
        return bitonic_ordered_from_key64(((const uint64_t *)keys)[i], shape->key_type, shape->flip);
    return bitonic_ordered_from_key(((const uint32_t *)keys)[i], shape->key_type, (uint32_t)shape->flip);
}

/* One element named by its place in the total order the sort uses: (ordered
 * key, value for unstable pairs else 0, rank, position in the rank's locally
 * sorted array). No two elements share a probe, so splitters cut runs of equal
 * keys anywhere, and many equal keys still split evenly. A sample carries the
 * number of its rank's elements it stands for. Sent as bytes: ranks are
 * homogeneous. */
typedef struct mpi_probe {
    uint64_t key;
    uint32_t value;
    uint32_t rank;
    uint64_t index;
    uint64_t weight;
} mpi_probe;

/* Greater than every element (no element has rank UINT32_MAX). */
static inline mpi_probe mpi_probe_infinity(void)
{
    return (mpi_probe){UINT64_MAX, UINT32_MAX, UINT32_MAX, UINT64_MAX, 0};
}

/* Samples a rank with count keys sends, when each sends at most per_rank. */
static inline size_t mpi_sample_count(uint64_t count, uint32_t per_rank)
{
    return count < per_rank ? (size_t)count : per_rank;
}

/* Regular samples of a locally sorted array: sample i at position
 * i * count / sample_count, standing for the elements up to the next one. */
void mpi_take_samples(const mpi_sort_shape *shape, const void *keys, const uint32_t *values, size_t count,
                      uint32_t rank, size_t sample_count, mpi_probe *out_samples);

/* Sorts the samples of all ranks and picks ranks - 1 splitters: splitter j is
 * the first sample with at least j * total / ranks elements estimated before
 * it (or infinity). Bucket j holds the elements from splitter j - 1 up to,
 * not including, splitter j. */
void mpi_choose_splitters(mpi_probe *samples, size_t sample_count, uint64_t total, uint32_t ranks,
                          mpi_probe *out_splitters);

/* How many of this rank's locally sorted elements go to each rank, by binary
 * searches for the splitters. */
void mpi_partition(const mpi_sort_shape *shape, const void *keys, const uint32_t *values, size_t count,
                   uint32_t rank, const mpi_probe *splitters, uint32_t ranks, uint64_t *out_send_counts);

/* An all-to-all of elements of element_bytes (MPI type `type`): the first
 * send_counts[0] elements of send go to rank 0, the next to rank 1, and so on;
 * recv gets recv_counts[s] elements from each rank s, in rank order. Collective
 * over comm. One MPI_Alltoallv when every count and offset fits in an int and
 * no count passes max_message (agreed by all ranks), else point-to-point
 * messages of at most max_message elements. Returns an MPI error code. */
int mpi_exchange(MPI_Comm comm, uint32_t ranks, uint32_t rank, const void *send, const uint64_t *send_counts,
                 void *recv, const uint64_t *recv_counts, size_t element_bytes, MPI_Datatype type,
                 size_t max_message, bool *out_chunked);

/* Merges runs sorted runs that lie back to back in keys (and values), run s
 * spanning [run_starts[s], run_starts[s + 1]) (runs + 1 entries); equal elements keep run order, so runs
 * received in rank order merge into (key, rank, position) order. Uses the
 * scratch arrays (as large as keys and values) as the other half of a ping-pong
 * and returns true when the result ended there. */
bool mpi_merge_runs(const mpi_sort_shape *shape, void *keys, uint32_t *values, void *scratch_keys,
                    uint32_t *scratch_values, const uint64_t *run_starts, uint32_t runs);

#endif /* BITONIC_MPI_INTERNAL_H */
