/* mpi_splitters.c: regular samples of a locally sorted array, the choice of
 * splitters from every rank's samples, and the partition of a rank's keys by
 * the splitters. Everything compares probes (mpi_internal.h): (ordered key,
 * value for unstable pairs, rank, position), a total order on the elements. */
#include <stdlib.h>

#include "mpi_internal.h"

static uint32_t value_at(const mpi_sort_shape *shape, const uint32_t *values, size_t i)
{
    return shape->value_ties ? values[i] : 0u;
}

void mpi_take_samples(const mpi_sort_shape *shape, const void *keys, const uint32_t *values, size_t count,
                      uint32_t rank, size_t sample_count, mpi_probe *out_samples)
{
    for (size_t i = 0; i < sample_count; ++i) {
        /* i * count fits in 64 bits: count < 2^48 and sample_count <= 4096 in practice, and the
         * division by sample_count keeps positions within [0, count). */
        size_t position = (size_t)((uint64_t)i * count / sample_count);
        size_t next = (size_t)((uint64_t)(i + 1) * count / sample_count);
        out_samples[i] = (mpi_probe){mpi_ordered_key(shape, keys, position), value_at(shape, values, position), rank,
                                     position, next - position};
    }
}

static int compare_probes(const mpi_probe *a, const mpi_probe *b)
{
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->value != b->value)
        return a->value < b->value ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return 0;
}

static int compare_probes_qsort(const void *a, const void *b)
{
    return compare_probes(a, b);
}

void mpi_choose_splitters(mpi_probe *samples, size_t sample_count, uint64_t total, uint32_t ranks,
                          mpi_probe *out_splitters)
{
    qsort(samples, sample_count, sizeof *samples, compare_probes_qsort);
    uint64_t before = 0;                     /* elements estimated to precede samples[next] */
    size_t next = 0;
    for (uint32_t j = 1; j < ranks; ++j) {
        /* The first position of bucket j, rounded up: ceil(j * total / ranks). */
        uint64_t target = ((uint64_t)j * total + ranks - 1) / ranks;
        while (next < sample_count && before < target)
            before += samples[next++].weight;
        out_splitters[j - 1] = next < sample_count ? samples[next] : mpi_probe_infinity();
    }
}

/* The first position in [low, high) whose (key, value) is not below (key, value) of the
 * probe, or (strictly_above) is above it. */
static size_t search(const mpi_sort_shape *shape, const void *keys, const uint32_t *values, size_t low, size_t high,
                     const mpi_probe *probe, bool strictly_above)
{
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        uint64_t key = mpi_ordered_key(shape, keys, middle);
        uint32_t value = value_at(shape, values, middle);
        bool below = key < probe->key || (key == probe->key && value < probe->value);
        bool equal = key == probe->key && value == probe->value;
        if (below || (strictly_above && equal))
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

void mpi_partition(const mpi_sort_shape *shape, const void *keys, const uint32_t *values, size_t count,
                   uint32_t rank, const mpi_probe *splitters, uint32_t ranks, uint64_t *out_send_counts)
{
    size_t previous_cut = 0;
    for (uint32_t j = 0; j + 1 < ranks; ++j) {
        const mpi_probe *splitter = &splitters[j];
        size_t cut;
        if (splitter->rank == UINT32_MAX) {
            cut = count;                     /* infinity */
        } else {
            /* Elements with the splitter's (key, value) lie in [first, end); which of them
             * precede it depends on the rank, then the position. */
            size_t first = search(shape, keys, values, previous_cut, count, splitter, false);
            size_t end = search(shape, keys, values, first, count, splitter, true);
            if (rank < splitter->rank)
                cut = end;
            else if (rank > splitter->rank)
                cut = first;
            else
                cut = splitter->index < first ? first : splitter->index > end ? end : (size_t)splitter->index;
        }
        out_send_counts[j] = cut - previous_cut;
        previous_cut = cut;
    }
    out_send_counts[ranks - 1] = count - previous_cut;
}
