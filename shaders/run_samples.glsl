// run_samples.glsl: where the run samples lie, for the kernels that write them
// (the tile merge sort, merge_pass.comp) and read them (the split pass, merges
// that search their own splits). A pass whose output another merge takes
// leaves one key of every aligned group of 2^SAMPLE_LOG it writes: the group's
// first in a run the next merge takes as A (an even run), its last in one it
// takes as B. A split on a diagonal that is a multiple of the group compares
// A[32k] with B[d - 1 - 32k], the last of a group: both samples, so a split
// search narrows to one group on the samples (1/32 of the keys, dense, in the
// L2 cache) before it reads any key (docs/PERFORMANCE.md, log entries 43, 44).
// 32-bit keys without values, bound buffers only (the includer checks).
const uint SAMPLE_LOG = 5u;

// params.sample_runs, bit by bit. A pass that writes: SAMPLES_WRITE leaves
// samples for the next merge. A merge: SAMPLES_SEARCH finds the chunk's splits
// on the samples the pass before left, in the workgroup, a thread a split
// (SAMPLES_GUIDED: by guided searches). The split pass: any bit reads them.
const uint SAMPLES_WRITE = 1u;
const uint SAMPLES_SEARCH = 2u;
const uint SAMPLES_GUIDED = 4u;

// The samples lie in the Splits binding after the merge splits (a word each of
// chunk_count), in two regions of one word a group: the pass whose output runs
// are 2^run_log long writes region run_log & 1, and the merge that takes them
// (phase run_log + 1) reads it while it writes the other, so no merge
// overwrites a sample that another of its workgroups may still read.
uint sample_region_start(uint chunk_count, uint run_log)
{
    return chunk_count + (run_log & 1u) * ((params.count + ((1u << SAMPLE_LOG) - 1u)) >> SAMPLE_LOG);
}

// Which key of each group of a run this pass leaves: the first in an even run
// of 2^run_log keys starting at run_base, the last in an odd one.
uint sample_offset(index_t run_base, uint run_log)
{
    return ((run_base >> run_log) & 1u) != 0u ? (1u << SAMPLE_LOG) - 1u : 0u;
}
