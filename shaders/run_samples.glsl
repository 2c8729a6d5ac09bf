// run_samples.glsl: where the run samples lie, for the kernels that write them
// (the tile merge sort, merge_pass.comp) and read them (the split pass, merges
// that search their own splits). A pass whose output another merge takes
// leaves one key of every aligned group of 2^SAMPLE_LOG it writes: the group's
// first in a run the next merge takes as A (an even run), its last in one it
// takes as B. A split on a diagonal that is a multiple of the group compares
// A[32k] with B[d - 1 - 32k], the last of a group: both samples, so a split
// search narrows to one group on the samples (1/32 of the keys, dense, in the
// L2 cache) before it reads any key (docs/perf-log.md, entries 43, 44).
// A sample is the key with its value where there are values (the merge orders
// pairs by both), in 32-bit words (a 64-bit key's low word first): SAMPLE_WORDS
// a sample. Bound buffers
// only (the includer checks); the includer declares the Splits binding
// (`splits`, read-write, or write-only with SAMPLES_WRITE_ONLY) before it
// includes this file.
const uint SAMPLE_LOG = 5u;
#if defined(KEY64) && defined(WITH_VALUES)
const uint SAMPLE_WORDS = 3u;
#elif defined(KEY64) || defined(WITH_VALUES)
const uint SAMPLE_WORDS = 2u;
#else
const uint SAMPLE_WORDS = 1u;
#endif

// params.sample_runs, bit by bit. A pass that writes: SAMPLES_WRITE leaves
// samples for the next merge. A merge: SAMPLES_SEARCH finds the chunk's splits
// on the samples the pass before left, in the workgroup, a thread a split
// (SAMPLES_GUIDED: by guided searches). The split pass: any bit reads them.
const uint SAMPLES_WRITE = 1u;
const uint SAMPLES_SEARCH = 2u;
const uint SAMPLES_GUIDED = 4u;

// The samples lie in the Splits binding after the merge splits (a word each of
// chunk_count), in two regions of a sample a group: the pass whose output runs
// are 2^run_log long writes region run_log & 1, and the merge that takes them
// (phase run_log + 1) reads it while it writes the other, so no merge
// overwrites a sample that another of its workgroups may still read.
uint sample_region_start(uint chunk_count, uint run_log)
{
    return chunk_count + (run_log & 1u) * ((params.count + ((1u << SAMPLE_LOG) - 1u)) >> SAMPLE_LOG) * SAMPLE_WORDS;
}

// The merge chunks of the sort (chunks of 2^chunk_log keys), where the samples
// start: every pass that writes or reads them counts them the same way, from
// the keys (a merge that takes in the tail has more workgroups than chunks).
uint sort_chunks(uint chunk_log)
{
    return (params.count + ((1u << chunk_log) - 1u)) >> chunk_log;
}

// Which key of each group of a run this pass leaves: the first in an even run
// of 2^run_log keys starting at run_base, the last in an odd one.
uint sample_offset(index_t run_base, uint run_log)
{
    return ((run_base >> run_log) & 1u) != 0u ? (1u << SAMPLE_LOG) - 1u : 0u;
}

// The sample of `group` (counted from the first key) in the region that starts
// at word `region`: its key's ordered bits (low word first), then its value.
void store_sample(uint region, index_t group, key_t key, uint value)
{
    uint word = region + group * SAMPLE_WORDS;
#ifdef KEY64
    uvec2 halves = unpackUint2x32(key);
    splits[word] = halves.x;
    splits[word + 1u] = halves.y;
#else
    splits[word] = key;
#endif
#ifdef WITH_VALUES
    splits[word + SAMPLE_WORDS - 1u] = value;
#endif
}

#ifndef SAMPLES_WRITE_ONLY
key_t sample_key(uint region, index_t group)
{
    uint word = region + group * SAMPLE_WORDS;
#ifdef KEY64
    return packUint2x32(uvec2(splits[word], splits[word + 1u]));
#else
    return splits[word];
#endif
}

uint sample_value(uint region, index_t group)
{
#ifdef WITH_VALUES
    return splits[region + group * SAMPLE_WORDS + SAMPLE_WORDS - 1u];
#else
    return 0u;
#endif
}
#endif
