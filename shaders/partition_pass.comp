#version 450
// partition_pass.comp: the steps of the partition sort that are not a tile
// sort or a merge (src/cpu/reference_partition.c is the same on the CPU, and
// its proof; sorter/partition.c, sorter_record_partition_sort, records them):
// - STEP_SAMPLE: sample_count keys from spread positions into the Partition
//   binding, for the sort of the samples recorded after it; zeroes the totals
//   and the claims. Where the samples are sorted in runs (sample_runs_log,
//   runs that fit the scatter's staged tile), workgroup r gathers run r and
//   sorts it in shared memory itself, and no sort is recorded after it.
// - STEP_COUNT: workgroup w counts the keys of its chunk by bucket (2m + 1
//   buckets: open bucket 2i between splitters i - 1 and i, equality bucket
//   2i + 1 for keys equal to splitter i), and adds its counts to the buckets'
//   totals.
// - STEP_SCATTER: each workgroup sums the buckets' totals into their starts
//   (each alike: a dispatch of one workgroup for it, the scan, cost about 5
//   us on the H100, docs/perf-log.md, entry 59), then, tile after tile, ranks a small tile
//   of keys by bucket, claims room in each bucket for them, and moves them
//   there. Workgroup 0 also judges the partition (where an open bucket is
//   longer than `longest` (two windows, or one where the buckets average
//   half a window), the window merge cannot sort it: the fallback's
//   indirect dispatch gets its workgroups), and notes for the window merge,
//   at each window boundary kW, the open bucket around it (its start and end
//   where it starts before kW and is at most `longest`; else kW twice).
// - STEP_FALLBACK, after the window merge, where an open bucket is longer
//   than that: workgroup c remakes output chunk c (the scatter's tile of keys)
//   where the chunk touches such a bucket, and leaves the others to the
//   window merge, which put every key outside those buckets in place. The
//   chunk's keys are those ranked [cC, (c + 1)C) among the runs of W that its
//   buckets span (every key of an earlier run ranks below them, every key of
//   a later one above): a selection in each of those runs, bit by bit of the
//   ordered key (and value), finds the cuts, and the pieces between them are
//   sorted in shared memory. One dispatch where the merge levels used to run
//   on to the whole array: 8 dispatches at 2^21 keys, which cost 0.011 ms
//   when empty on the H100 (docs/perf-log.md, entry 60).
// - STEP_NESTED_SAMPLE, STEP_NESTED_COUNT, STEP_NESTED_SCATTER, after the
//   scatter where the partition is nested: each open bucket of more than a
//   window partitioned again by splitters of its own (see "The nested
//   partition" in partition_nested.glsl), and the fallback taking whole the segments whose
//   nested buckets are too long, selecting in batches of runs where they span
//   more than its shared words hold (fallback_stage_unbounded).
// - Pairs of 32-bit keys may go packed (FLAG_PACKED_PAIRS): the scatter
//   writes each pair as one 64-bit word, the ordered key above the value,
//   whose order is the pairs' (key, then value), so the tile sort and the
//   merges between the scatter and the window merge are those of 64-bit keys, each
//   pair one 8-byte access where it was two of 4 bytes in two arrays; the
//   window merge (merge_pass.comp with UNPACK_OUT) and the fallback, which
//   reads the runs from PackedIn, write the caller's keys and values apart.
// Built with STORED_PLACES (partition_stored_pass, keys of at most 8 bytes
// with their values), for the scatter on half tiles: each staged key's place
// is stored beside it, as for 64-bit keys with values, instead of found
// again from its bucket, which cost more on a half tile than the staged
// tile's length saves (docs/perf-log.md, entries 93, 94 and 95).
// Keys are compared as the sort orders them: ordered bits (key_order.glsl),
// and with values by key, then value. The splitters are every
// (sample_count / (m + 1))-th sorted sample, or where the samples are sorted
// in runs the means of the runs' keys at those places (splitter_from_runs);
// equal ones leave empty buckets between them, so no pass needs to drop
// repeats.
#extension GL_EXT_control_flow_attributes : require
#ifdef SUBGROUP_SCAN
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#if defined(KEY64) || defined(PAIRS_AS_INT64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#ifdef KEY64
#define key_t uint64_t
#else
#define key_t uint
#endif
layout(local_size_x_id = 0) in;
// The most splitters a sort may ask for: the shared arrays hold them, and a
// count for each of their 2m + 1 buckets (the host sizes it to the device,
// 2^d - 1 for some d).
layout(constant_id = 1) const uint MAX_SPLITTERS = 1023u;
const uint MAX_BUCKETS = 2u * MAX_SPLITTERS + 1u;
// Cells of the splitters' lookup table (see load_splitters): 2 (MAX_SPLITTERS
// + 1), which the host makes a power of two.
layout(constant_id = 2) const uint MAX_CELLS = 2048u;
// Keys a thread of the count loads at once (see count_step), the next batch's
// while it searches this one's. Loading a batch only once the last was
// counted, 4 was best on the H100 (docs/perf-log.md, entry 67: 8 and 16
// slower, 2 slower from 2^24); with the next batch's loads ahead, 2 made the
// count of 2^24 u32 keys take 0.0564 ms against 0.0604, pairs 0.0783 against
// 0.0880, and 4 0.0548 and 0.0924 (entry 74). With the cells' first
// splitters staged (entry 100), 4 took the u32 count of 2^26 keys from 0.1436
// to 0.1376 ms on the H200 but pairs' from 0.1915 to 0.2032 and every count
// of 2^20 longer; 8 for 32-bit keys alone was slower below 2^24.
const uint KEYS_AT_ONCE = 2u;

const uint STEP_SAMPLE = 0u;
const uint STEP_COUNT = 1u;
const uint STEP_SCATTER = 2u;
const uint STEP_FALLBACK = 3u;
const uint STEP_NESTED_SAMPLE = 4u;
const uint STEP_NESTED_COUNT = 5u;
const uint STEP_NESTED_SCATTER = 6u;

// The scatter writes pairs packed (PackedOut), the fallback reads them (PackedIn).
const uint FLAG_PACKED_PAIRS = 1u;
// The fallback selects in batches of runs however few (fallback_stage_unbounded):
// for tests, which could not sort enough keys for a segment to span more runs
// than the shared words hold.
const uint FLAG_FALLBACK_IN_BATCHES = 2u;

// partition_push_constants in src/vulkan/sorter/partition.c.
layout(push_constant) uniform PartitionParams {
    uint count;          // keys
    uint step;           // STEP_*
    uint key_xor;        // 0 ascending, all ones descending
    uint key_type;       // KEY_* of key_order.glsl
    uint sample_count;   // keys sampled, at least splitters + 1
    uint splitters;      // m, at most MAX_SPLITTERS
    uint chunk_keys;     // keys a count workgroup takes
    uint window;         // W: the runs' keys
    uint samples_at;     // words into Partition: the sample keys (sorted from STEP_COUNT on)
    uint sample_values_at;  // ... and their values
    uint fallback_groups_x; // the fallback's workgroups, a chunk each
    uint fallback_groups_y;
    uint straddles_at;   // words into Partition: a pair of words a window boundary (merge_pass.comp)
    uint sample_runs_log;  // the samples are sorted in 2^this runs (0: whole)
    uint longest;        // the longest open bucket the window merge sorts: W, or 2W (three pieces)
    uint flags;          // FLAG_*
    uint scatter_tile;   // keys a tile of the scatter: the staged tile, or half of it (src/vulkan/sorter/partition.c)
    uint nested_at;      // words into Partition: the nested partition's table (0: not nested)
    uint nested_splitters;  // the most splitters a bucket's nested partition takes (P)
} params;

layout(std430, binding = 0) readonly buffer Keys { key_t keys[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { key_t keys_out[]; };
#ifdef WITH_VALUES
layout(std430, binding = 1) readonly buffer Values { uint values[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#ifndef KEY64
// Packed pairs, (value, ordered key) as the low and high word of one 64-bit
// key: the same buffers as Keys and KeysOut (the sorts' 16-byte views' bindings).
layout(std430, binding = 6) readonly buffer PackedIn { uvec2 packed_in[]; };
layout(std430, binding = 7) writeonly buffer PackedOut { uvec2 packed_out[]; };
#define PACKED_PAIRS
#endif
#endif
// The partition's words: the fallback's indirect dispatch arguments, the
// verdict, the buckets' totals and their claims (keys placed so far), the
// samples.
layout(std430, binding = 5) buffer Partition { uint words[]; };
const uint FALLBACK_ARGS_AT = 0u;
const uint VERDICT_AT = 6u;
const uint TOTALS_AT = 8u;

#include "key_order.glsl"

// What this workgroup partitions: the whole keys, or in the nested steps one
// bucket of the first partition (a segment: enter_segment), which has
// splitters, totals and claims of its own. Set once in main, the same in
// every thread.
uint splitter_count;  // m: the first partition's splitters, or the segment's
uint totals_at;       // words into Partition: the buckets' totals, then their claims
uint keys_base;       // the keys partitioned: [keys_base, keys_base + keys_count)
uint keys_count;

uint bucket_count()
{
    return 2u * splitter_count + 1u;
}

uint claims_at()
{
    return totals_at + bucket_count();
}

// The steps, each in the file its comment names; one module for all of them,
// because the host records every step with the one pipeline and picks the
// step by push constant (params.step).
#include "partition_buckets.glsl"
#include "partition_scan.glsl"
#include "partition_count_scatter.glsl"
#include "partition_staged_sort.glsl"
#include "partition_nested.glsl"
#include "partition_fallback.glsl"

void main()
{
    splitter_count = params.splitters;
    totals_at = TOTALS_AT;
    keys_base = 0u;
    keys_count = params.count;
    if (params.step == STEP_NESTED_SAMPLE) {
        nested_sample_step();
        return;
    }
    if (params.step == STEP_NESTED_COUNT || params.step == STEP_NESTED_SCATTER) {
        splitter_count = words[enter_segment(gl_WorkGroupID.y)];
        if (splitter_count == 0u) {  // uniform: the same words in every thread
            if (params.step == STEP_NESTED_SCATTER)
                nested_copy_step();
        } else if (params.step == STEP_NESTED_COUNT) {
            count_step();
        } else {
            scatter_step();
        }
        return;
    }
    if (params.step == STEP_SAMPLE && params.sample_runs_log != 0u)
        sample_runs_step();
    else if (params.step == STEP_SAMPLE)
        sample_step();
    else if (params.step == STEP_COUNT)
        count_step();
    else if (params.step == STEP_SCATTER)
        scatter_step();
    else
        fallback_step();
}
