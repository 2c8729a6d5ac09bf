/* reference_partition.h: the partition sort of the GPU path (shaders/partition_pass.comp,
 * record_partition_sort in src/vulkan/vk_sorter.c; docs/ALGORITHM.md, "The
 * partition sort") on the CPU, step by step as its kernels run: the model it
 * was designed on, and the proof (tests/test_partition.c) that its last step
 * leaves every input sorted. The GPU's scatter places a bucket's keys in any
 * order (the windows are sorted after it, so the proof does not need the
 * stable order used here), and the GPU keeps equal splitters (they leave
 * empty buckets) where this drops them.
 *
 * The steps, for keys[0 .. count-1] and a window of W keys (the tile's keys
 * times 2^levels, even):
 * 1. Splitters: sample_count keys at spread positions, sorted; every
 *    samples_per_splitter-th of them, repeats dropped (m distinct splitters).
 * 2. Partition into 2m + 1 buckets in the order of their values: open bucket 2i
 *    holds the keys between splitters i - 1 and i, equality bucket 2i + 1 the
 *    keys equal to splitter i (a key heavy enough to be sampled twice gets one,
 *    and its bucket needs no sorting however long). Stable, as a count, a scan
 *    and a scatter would place them.
 * 3. Sort aligned runs of W keys (the tile sort and the merge levels).
 * 4. Merge the two halves of every window of W keys that starts W / 2 past an
 *    aligned run: an open bucket of at most W / 2 keys that straddles a run's
 *    end lies inside the window around it, and the merge sorts it; every other
 *    bucket is already in place.
 * Where an open bucket is longer than W / 2 the sort falls back: the merge
 *    levels go on from W until one run holds every key (on the GPU: the same
 *    passes, recorded as indirect dispatches that get no workgroups when every
 *    bucket is short), and step 4 then finds nothing to move. */
#ifndef BITONIC_REFERENCE_PARTITION_H
#define BITONIC_REFERENCE_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bitonic_partition_plan {
    uint64_t window_keys;           /* W: even, at least 2 */
    uint64_t sample_count;          /* at least 1 */
    uint64_t samples_per_splitter;  /* at least 1 */
    uint64_t seed;                  /* where in its stretch each sample is taken */
} bitonic_partition_plan;

typedef struct bitonic_partition_report {
    uint64_t splitters;             /* distinct splitters: 2 x splitters + 1 buckets */
    uint64_t longest_open_bucket;   /* keys */
    uint64_t longest_equal_bucket;  /* keys */
    bool fell_back;                 /* an open bucket was longer than W / 2 */
} bitonic_partition_report;

/* The bucket of `key` among m distinct ascending splitters: 2i + 1 if it equals
 * splitter i, else 2i where i splitters are below it. */
uint64_t bitonic_partition_bucket(uint64_t key, const uint64_t *splitters, uint64_t m);

/* Step 1 into splitters (room for sample_count keys); returns m. */
uint64_t bitonic_reference_partition_splitters(const uint64_t *keys, uint64_t count,
                                               const bitonic_partition_plan *plan, uint64_t *splitters);

/* Steps 2-4 (or the fallback) on keys in place, with m distinct ascending
 * splitters given. Returns false when memory runs out or the window is not
 * even and at least 2. report may be NULL. */
bool bitonic_reference_partition_sort_with(uint64_t *keys, uint64_t count, uint64_t window_keys,
                                           const uint64_t *splitters, uint64_t m, bitonic_partition_report *report);

/* Steps 1-4 (or the fallback) on keys in place. Returns false when memory runs
 * out or the plan is not one the steps can run. report may be NULL. */
bool bitonic_reference_partition_sort(uint64_t *keys, uint64_t count, const bitonic_partition_plan *plan,
                                      bitonic_partition_report *report);

#endif /* BITONIC_REFERENCE_PARTITION_H */
