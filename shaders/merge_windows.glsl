// merge_windows.glsl: the partition sort's window merge's table (the bucket
// around each run boundary, which the partition's scan wrote) and its runs,
// for the split pass and the shared-memory merge (BUCKET_WINDOWS).
// Included by merge_pass.comp, merge_split.comp and merge_direct.comp, in
// the order merge_common.glsl, merge_search.glsl, merge_windows.glsl,
// merge_tail.glsl: the order of the functions is kept as it was in one file,
// because it fixes the order of the compiled modules' functions and so their
// bytes. SPLITS_ONLY (merge_split.comp) and DIRECT_MERGE (merge_direct.comp)
// say which kernel includes it; neither is the shared-memory merge.

#if !defined(WIDE_ADDRESSING) && !defined(DIRECT_MERGE)
// The partition sort's window merge (sorter/partition.c, sorter_record_partition_sort).
// Runs of W = 2^phase keys are sorted, and every open bucket (at most 2W keys,
// or the sort fell back) crosses one or two run boundaries at most, as [s_k,
// e_k) with s_k < kW < e_k; the partition's scan noted each boundary's bucket
// (s_k = e_k = kW where none crosses it) after the chunks' cursors in the
// Splits binding: 5 words a chunk, then 2 a boundary from word 5 x group_count
// on, boundaries 0 .. runs (the last: the count twice). Output position q of
// run r takes its key from one of runs r - 2 .. r + 2: keys of the runs
// before r lie in the bucket around rW, of those after it in the bucket
// around (r + 1)W. The cursor at q is, in each of those five runs, the first
// key not yet output. The split pass writes each chunk's first cursor; the
// merge reads its chunk's two. In the merges' own pipelines this code was
// there but not taken, and merges of 2^20 and 2^21 keys took 2.5-3.5% longer
// on the H100 (docs/perf-log.md, entry 57): the window merge has pipelines of its own.
#define BUCKET_WINDOWS
layout(constant_id = 5) const bool WINDOW_MERGE = false;
// Open buckets of up to 2W, which may span three runs (true), or of up to W
// (false: buckets of half a window on average; the pieces of runs r - 2 and
// r + 2 are always empty, and the kernels are lighter).
layout(constant_id = 6) const bool THREE_PIECES = true;
// params.sample_runs of the window split pass: three pieces' cursors by a
// thread each (window_split_by_selection), not by the workgroup's search
// (sorter/partition.c, MERGE_SPLIT_BY_THREAD).
const uint SPLIT_BY_THREAD = 8u;

uint straddle_word(uint boundary, uint end)
{
    return splits[5u * params.group_count + 2u * boundary + end];
}

// The first key of run j (none before run 0) and where its keys end.
uint run_first_key(int j)
{
    return j < 0 ? 0u : min(uint(j) << params.phase, live_count);
}

uint run_end_key(int j)
{
    return run_first_key(j + 1);
}
#endif
