// merge_common.glsl: what every merge kernel shares: the specialisation
// constants, the network's buffers and keys (network.glsl), the two runs an
// output position merges from, the splits' binding (read by the merges,
// written by the split pass) and the run samples; for the shared-memory merge
// also its chunk's shared slices, its 16-byte loads and stores and its own
// k-ary split search (find_splits).
// Included by merge_pass.comp, merge_split.comp and merge_direct.comp, in
// the order merge_common.glsl, merge_search.glsl, merge_windows.glsl,
// merge_tail.glsl: the order of the functions is kept as it was in one file,
// because it fixes the order of the compiled modules' functions and so their
// bytes. SPLITS_ONLY (merge_split.comp) and DIRECT_MERGE (merge_direct.comp)
// say which kernel includes it; neither is the shared-memory merge.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CHUNK_LOG = 12u;
layout(constant_id = 2) const uint SEARCH_LANES = 32u;  // threads a split search uses (see below)
#if !defined(SPLITS_ONLY) && !defined(DIRECT_MERGE)
// The merge stages its merged chunk in shared memory once more and stores it
// from there, 16 bytes a thread in turn (false, the host's default), or writes
// each thread's merged keys straight from its registers (true): no faster on
// the H100 for 32-bit keys, and slower for 64-bit keys and pairs, whose threads'
// stores then spread over more lines (docs/perf-log.md, entry 44).
layout(constant_id = 4) const bool STORE_FROM_REGISTERS = false;
// The merge that takes in the tail (last_phase = phase + 1; see place_tail_key
// below): a pipeline of its own, true in it alone, so every other merge's code
// is what it was without.
layout(constant_id = 7) const bool TAKES_TAIL = false;
#endif
const uint REGISTERS = 1u << REGISTER_LOG;
const uint CHUNK_KEYS = 1u << CHUNK_LOG;

#define KEYS_READONLY  // merges read one side and write the other (KeysOut)
#include "network.glsl"

// A merge pass merges neighbouring runs of 2^(phase-1) keys (A, then B) of the
// Keys buffer into runs of 2^phase in KeysOut; output position d of a merged run
// takes its key from A[i] or B[d - i], and "the first d outputs hold i keys of
// A" is the merge path's split at diagonal d (src/cpu/reference_executor.c does
// the same on the CPU).
struct merge_runs {
    index_t base;      // first key of A; B starts at base + a_count
    index_t a_count;
    index_t b_count;
};

// The two runs that output key index `position` is merged from (live_count set).
merge_runs runs_of(index_t position, uint phase)
{
    merge_runs runs;
    runs.base = (position >> phase) << phase;
    index_t run = index_t(1u) << (phase - 1u);
    index_t left = live_count > runs.base ? live_count - runs.base : index_t(0u);
    runs.a_count = min(left, run);
    runs.b_count = min(left - runs.a_count, run);
    return runs;
}

// key x (with value) before key y in the sort order: by key, then by value.
#ifdef WITH_VALUES
#define KEY_BEFORE(kx, vx, ky, vy) pair_less(kx, vx, ky, vy)
#else
#define KEY_BEFORE(kx, vx, ky, vy) ((kx) < (ky))
#endif

// The kernel that merges through shared memory (neither the split pass nor
// the direct merge, below) stages its chunk's slices there.
#if !defined(SPLITS_ONLY) && !defined(DIRECT_MERGE)
#define SHARED_MERGE
#ifdef WIDE_ADDRESSING
// Built with device addresses it went wrong on the H100 (sorter/device_address.c,
// create_wide_variants): that path merges with DIRECT_MERGE only.
#error "the shared-memory merge is not built with WIDE_ADDRESSING"
#endif
#endif

// Sample t of `lanes` that cut [low, high) into lanes + 1 near-equal parts:
// one lane is a binary search, 32 lanes a 33-ary one. Samples may repeat when
// the range is short; they stay in order and below high. No overflow: the
// range is split before it is multiplied.
index_t sample_position(index_t low, index_t high, uint lanes, uint t)
{
    index_t range = high - low, parts = index_t(lanes + 1u), step = index_t(t + 1u);
    return low + (range / parts) * step + (range % parts) * step / parts;
}

#ifdef SHARED_MERGE
// Padded one word in 32: thread t's REGISTERS consecutive slots then fall in
// distinct banks across a subgroup.
shared key_t chunk_keys[CHUNK_KEYS + (CHUNK_KEYS >> 5)];
#ifdef WITH_VALUES
shared uint chunk_values[CHUNK_KEYS + (CHUNK_KEYS >> 5)];
#endif
#endif

// Run samples (through bindings; run_samples.glsl): without them a split
// search's probes read scattered sectors of the whole keys, and split passes
// took time in proportion to the probes of all their searches
// (docs/perf-log.md, entries 40 and 43).
#if !defined(WIDE_ADDRESSING) && !defined(DIRECT_MERGE)
#define RUN_SAMPLES
#endif

// Splits found by a separate pass (SPLITS_ONLY, below), when the merge is big
// enough that searching inside every merge workgroup costs more than a dispatch.
// The samples lie after the splits, from word sort_chunks(CHUNK_LOG) (the chunks).
#ifdef WIDE_ADDRESSING
// 64-bit splits: a run of 2^32 keys has 2^32 + 1 of them.
#ifdef SPLITS_ONLY
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer SplitRef { uint64_t split; };
void write_split(uint chunk, index_t split)
{
    SplitRef(params.splits_address + uint64_t(chunk) * 8ul).split = split;
}
#else
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer SplitRef { uint64_t split; };
index_t read_split(uint chunk)
{
    return SplitRef(params.splits_address + uint64_t(chunk) * 8ul).split;
}
#endif
#else
#ifdef RUN_SAMPLES
layout(std430, binding = 5) buffer Splits { uint splits[]; };
#include "run_samples.glsl"
// Sample `group` (of 2^SAMPLE_LOG keys, counted from the first key) that the
// pass before this merge left, an ordered key and its value.
key_t sample_at(index_t group)
{
    return sample_key(sample_region_start(sort_chunks(CHUNK_LOG), params.phase - 1u), group);
}

uint sample_value_at(index_t group)
{
    return sample_value(sample_region_start(sort_chunks(CHUNK_LOG), params.phase - 1u), group);
}

// Whether A's sample at group a goes before B's at group b (KEY_BEFORE's
// negation, as a_first_at() below on the keys).
bool a_first_at_samples(index_t a_group, index_t b_group)
{
    return !KEY_BEFORE(sample_at(b_group), sample_value_at(b_group), sample_at(a_group), sample_value_at(a_group));
}
#elif defined(SPLITS_ONLY)
layout(std430, binding = 5) writeonly buffer Splits { uint splits[]; };
#else
layout(std430, binding = 5) readonly buffer Splits { uint splits[]; };
#endif
#ifdef SPLITS_ONLY
void write_split(uint chunk, index_t split)
{
    splits[chunk] = split;
}
#else
index_t read_split(uint chunk)
{
    return splits[chunk];
}
#endif
#endif

#ifdef SHARED_MERGE
// Keys (and values) 16 bytes a load and store where the host says the buffers
// allow it (vector_views.glsl): the merge pass stayed at about 1.4 TB/s
// whatever its shape with 4-byte accesses (docs/perf-log.md, entry 20).
#define VECTOR_IO
#define VECTOR_INPUT_RESTRICT restrict
#include "vector_views.glsl"
uvec4 read_keys4(index_t g)
{
    return keys4[g];
}
void write_keys_out4(index_t g, uvec4 four)
{
#ifdef UNPACK_OUT
    // Two packed pairs (value, ordered key, value, ordered key) apart.
    keys_out2[g] = uvec2(stored_key(four.y, params.key_type, params.key_xor),
                         stored_key(four.w, params.key_type, params.key_xor));
    values_out2[g] = four.xz;
#else
    keys_out4[g] = four;
#endif
}
#ifdef WITH_VALUES
uvec4 read_values4(index_t g)
{
    return values4[g];
}
void write_values_out4(index_t g, uvec4 four)
{
    values_out4[g] = four;
}
#endif

// Found-true counts of the split searches, one pair per round, three rounds
// deep: a round adds to its own pair while the pair of two rounds ahead is
// cleared, so one barrier a round keeps adds, reads and clears apart.
shared uint search_counts[3][2];

uint padded(uint i)
{
    return i + (i >> 5);
}

// Slot i of the slices (A's slice, then B's), clamped into the array: a read
// past a slice's end is never used, but stays inside shared memory.
key_t slot_key(uint i)
{
    return chunk_keys[padded(min(i, CHUNK_KEYS - 1u))];
}

uint slot_value(uint i)
{
#ifdef WITH_VALUES
    return chunk_values[padded(min(i, CHUNK_KEYS - 1u))];
#else
    return 0u;
#endif
}

#include "slot_merge.glsl"

// The merge-path splits of two diagonals (one per side), each in its own pair
// of runs: how many keys of A the first diagonal[side] outputs of the merged run
// hold. "A[m] goes before B[d - 1 - m]" is true below the split and false from
// it on, so each round counts the positions, spread evenly over the remaining
// range, where it is true, and the split lies between the last true and the
// first false one. Every thread gets the same ranges, so the loop is uniform.
// The workgroup has at least 2 threads (the tuning sees to it).
index2_t find_splits(index2_t diagonal, index2_t a_base, index2_t a_count, index2_t b_count)
{
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;
    index2_t range_low = index2_t(diagonal.x > b_count.x ? diagonal.x - b_count.x : index_t(0u),
                                  diagonal.y > b_count.y ? diagonal.y - b_count.y : index_t(0u));
    index2_t range_high = min(diagonal, a_count);
    uint lanes = clamp(threads / 2u, 1u, SEARCH_LANES);
    for (uint i = thread; i < 6u; i += threads)
        search_counts[i >> 1][i & 1u] = 0u;
    barrier();
    for (uint round = 0u; range_low.x < range_high.x || range_low.y < range_high.y; ++round) {
        uint side = thread / lanes;
        if (side < 2u) {
            index_t m = sample_position(range_low[side], range_high[side], lanes, thread % lanes);
            if (range_low[side] < range_high[side]) {
                index_t a_index = a_base[side] + m;
                index_t b_index = a_base[side] + a_count[side] + diagonal[side] - 1u - m;
#ifdef WITH_VALUES
                bool a_first_here = !pair_less(load_key(read_key(b_index)), read_value(b_index),
                                               load_key(read_key(a_index)), read_value(a_index));
#else
                bool a_first_here = !(load_key(read_key(b_index)) < load_key(read_key(a_index)));
#endif
                if (a_first_here)
                    atomicAdd(search_counts[round % 3u][side], 1u);
            }
        }
        barrier();
        uvec2 found = uvec2(search_counts[round % 3u][0], search_counts[round % 3u][1]);
        for (uint i = thread; i < 2u; i += threads)
            search_counts[(round + 2u) % 3u][i] = 0u;
        // The split lies after the last sample found true and at or before the
        // first found false (the samples are in order, and so are their answers).
        for (uint s = 0u; s < 2u; ++s) {
            if (range_low[s] < range_high[s]) {
                uint c = found[s];
                index_t new_high = c == lanes ? range_high[s] : sample_position(range_low[s], range_high[s], lanes, c);
                if (c > 0u)
                    range_low[s] = sample_position(range_low[s], range_high[s], lanes, c - 1u) + 1u;
                range_high[s] = new_high;
            }
        }
    }
    return range_low;
}

#endif
