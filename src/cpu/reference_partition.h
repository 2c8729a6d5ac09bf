/* reference_partition.h: the partition sort of the GPU path (shaders/partition_pass.comp,
 * sorter_record_partition_sort in src/vulkan/sorter/partition.c; docs/ALGORITHM.md, "The
 * partition sort") on the CPU, step by step as its kernels run: the model it
 * was designed on, and the proof (tests/test_partition.c) that its last step
 * leaves every input sorted. The GPU's scatter places a bucket's keys in any
 * order (the windows are sorted after it, so the proof does not need the
 * stable order used here), and the GPU keeps equal splitters (they leave
 * empty buckets) where this drops them; where its samples fill more than one
 * tile, it takes each splitter as the mean of the quantiles of runs sorted
 * alone. Any ascending splitters sort exactly: only the buckets' balance, and
 * so how often the fallback runs, depends on them.
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
 * 2b. (The nested partition only.) Step 2 again inside each open bucket of
 *    more than W keys, with splitters of its own drawn from its keys as step
 *    1 draws them (2L / W buckets of about W / 2 for L keys, at most
 *    inner_max_splitters + 1), its keys partitioned by them in place; its
 *    2m' + 1 buckets take its place in the list, which stays open and
 *    equality buckets in turn from an open one, so steps 3-5 run on it as
 *    they are. A sort whose first splitters leave buckets of many windows
 *    (the GPU's scatter holds at most 511 splitters) so gets buckets of
 *    about half a window, and needs no merge level at all: the window can
 *    be the tile (docs/perf-log.md, entry 105).
 * 3. Sort aligned runs of W keys (the tile sort and the merge levels).
 * 4. The window merge. An open bucket of at most 2W keys crosses one or two
 *    run boundaries, and its pieces (the end of run k - 1, the start of run
 *    k, and where it spans run k whole the start of run k + 1) are sorted:
 *    the scan notes, for each boundary, the open bucket around it ([s_k,
 *    e_k) with s_k < kW < e_k; else s_k = e_k = kW), and this merge merges
 *    each such bucket's pieces; every other bucket lies inside one run and is
 *    in place. It runs in output chunks of C keys (C divides W), as its
 *    workgroups do: the keys of a chunk in run r come from pieces of runs r -
 *    2 .. r + 2, those of runs before r from the bucket around rW, of runs
 *    after r from the bucket around (r + 1)W. Where those are two buckets,
 *    the pieces of runs r - 1 and r + 1 make one sorted run A (one bucket's
 *    keys before the other's) and those of runs r - 2 and r + 2 another, B
 *    (keys only where a bucket spans three runs); where one bucket spans run
 *    r, A is its piece of run r - 1 and B of run r + 1. The chunk is A merged
 *    with B, merged with run r's piece. Where each piece starts is a cursor
 *    the split pass finds for each chunk's first position q: in the bucket
 *    around rW where q < e_r, in the one around (r + 1)W where q > s_{r+1},
 *    by one merge-path search in two pieces or bitonic_reference_three_piece_split in three,
 *    and nowhere else (the keys between lie in place).
 *    An open bucket longer than 2W is noted at none of its boundaries, so
 *    step 4 leaves its pieces in the runs where they are; every other key it
 *    puts in place all the same.
 *    (Where the buckets average half a window, the GPU builds its window
 *    merge without the three-piece code and takes W as the limit: the same
 *    merge wherever no bucket is longer than W, which the proof covers.)
 * 5. The fallback, where an open bucket is longer than 2W (W in that build) (on the GPU one
 *    indirect dispatch, which gets no workgroups when every bucket is short):
 *    each chunk that such a bucket touches takes the keys ranked [q0, q1)
 *    among the runs that the chunk's buckets span. A key of an earlier run
 *    lies in an earlier bucket and ranks below them, a key of a later run
 *    above, so those runs alone hold the chunk; the GPU cuts each of them by
 *    a selection on the keys' bits, this model sorts the span whole. */
#ifndef BITONIC_REFERENCE_PARTITION_H
#define BITONIC_REFERENCE_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

typedef struct bitonic_partition_plan {
    uint64_t window_keys;           /* W: even, at least 2 */
    uint64_t chunk_keys;            /* C, the window merge's chunk: divides W (0: W) */
    uint64_t sample_count;          /* at least 1 */
    uint64_t samples_per_splitter;  /* at least 1 */
    uint64_t seed;                  /* where in its stretch each sample is taken */
} bitonic_partition_plan;

typedef struct bitonic_partition_report {
    uint64_t splitters;             /* distinct splitters: 2 x splitters + 1 buckets */
    uint64_t inner_splitters;       /* the nested partition's, over every bucket it split */
    uint64_t longest_open_bucket;   /* keys */
    uint64_t longest_equal_bucket;  /* keys */
    bool fell_back;                 /* an open bucket was longer than 2W */
} bitonic_partition_report;

/* The bucket of `key` among m distinct ascending splitters: 2i + 1 if it equals
 * splitter i, else 2i where i splitters are below it. */
uint64_t bitonic_partition_bucket(uint64_t key, const uint64_t *splitters, uint64_t m);

/* Step 1 into splitters (room for sample_count keys); returns m. */
uint64_t bitonic_reference_partition_splitters(const uint64_t *keys, uint64_t count,
                                               const bitonic_partition_plan *plan, uint64_t *splitters);

/* Steps 2-5 on keys in place, with m distinct ascending
 * splitters given and the window merge in chunks of chunk_keys. Returns false
 * when memory runs out, the window is not even and at least 2, the chunk does
 * not divide it, or a chunk's cursors do not add up to the chunk. report may
 * be NULL. */
bool bitonic_reference_partition_sort_with(uint64_t *keys, uint64_t count, uint64_t window_keys, uint64_t chunk_keys,
                                           const uint64_t *splitters, uint64_t m, bitonic_partition_report *report);

/* The first `diagonal` outputs of the stable merge of three sorted pieces
 * keys[s .. b1 - 1], keys[b1 .. b2 - 1] and keys[b2 .. e - 1] (ties in that
 * order): how many of each, into taken, by a selection that discards (the
 * GPU's window split pass finds the same counts by another search,
 * merge_window_split.glsl, window_split_three). */
void bitonic_reference_three_piece_split(const uint64_t *keys, uint64_t s, uint64_t b1, uint64_t b2, uint64_t e,
                                         uint64_t diagonal, uint64_t taken[3]);

/* Steps 1-5 on keys in place. Returns false when memory runs
 * out or the plan is not one the steps can run. report may be NULL. */
bool bitonic_reference_partition_sort(uint64_t *keys, uint64_t count, const bitonic_partition_plan *plan,
                                      bitonic_partition_report *report);

/* Steps 1, 2, 2b and 3-5 on keys in place: the nested partition, with at
 * most inner_max_splitters splitters a bucket in step 2b (0: none, the plain
 * partition sort). Returns false when memory runs out or the plan is not one
 * the steps can run. The report's longest buckets are those of the finer
 * list. report may be NULL. */
bool bitonic_reference_nested_partition_sort(uint64_t *keys, uint64_t count, const bitonic_partition_plan *plan,
                                             uint64_t inner_max_splitters, bitonic_partition_report *report);

#endif /* BITONIC_REFERENCE_PARTITION_H */
