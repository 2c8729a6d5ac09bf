#version 450
// merge_pass.comp: one merge pass (merge path), built three ways.
// - The merge (the default): workgroup c writes output keys [c << CHUNK_LOG,
//   (c + 1) << CHUNK_LOG) of a merged run. It needs the merge-path splits of its
//   first and last key (which slices of runs A and B hold them): read from a
//   split pass, or for small merges found here by a k-ary search (SEARCH_LANES
//   threads a split, one position each a round). The slices come into shared
//   memory 16 bytes a load where the buffers allow it; each thread finds its
//   own split inside them, merges REGISTERS keys into registers, and the chunk
//   goes out through shared memory again, 16 bytes a store.
// - SPLITS_ONLY, the split pass of big merges: one thread a chunk, a binary
//   search in device memory.
// - DIRECT_MERGE, the merge without shared memory (small sorts): each thread
//   finds its own split in device memory and merges through the cache.
// One read and one write of every key: a whole merge phase in one pass over
// memory, where the network spends one pass per few strides.
// - The partition sort's window merge (WINDOW_MERGE, a specialisation constant
//   of the merge and of the split pass, bound buffers): runs of W = 2^phase
//   sorted, each chunk of the output merges pieces of up to five runs as
//   three (window_cursor_at below; src/cpu/reference_partition.h, step 4). Every
//   other merge's pipeline has it false, so its code is the same as without.
// Built with LANE_SEARCH (devices with subgroup ballots), the merge's own
// split searches on run samples take a subgroup a split: every lane tests one
// position a round and a ballot counts the answers, a (lanes + 1)-ary search
// with no barrier, where one thread's 3-probe rounds take about twice the
// rounds (lane_merge_path_search below).
#ifdef LANE_SEARCH
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
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
// Built with device addresses it went wrong on the H100 (vk_sorter.c,
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

// Probes a thread tests at once in merge_path_search(). The direct merge's
// threads wait on their own searches, so 3 probes a round (independent loads in
// flight together: 5 rounds for a 1024-key chunk instead of 10). The split
// pass takes its count from the host (tuning.merge_split_probes, tuning.c):
// 3 probes a round where its 4096 to 16384 searches wait on their chains of
// loads (2^22 to 2^24 keys, up to 4.9% faster sorts on the H100), one above,
// where more searches read more sectors than the rounds they save.
// The shared-memory merge's own searches on run samples (SAMPLES_SEARCH), two
// threads waiting on them while the workgroup waits at a barrier, take theirs
// from the host too (tuning.merge_fused_split_probes).
#if defined(SPLITS_ONLY) || defined(SHARED_MERGE)
// The split pass's probes come from the host (tuning.merge_split_probes).
layout(constant_id = 3) const uint SPLIT_PROBES = 1u;
const uint SEARCH_PROBES = SPLIT_PROBES == 0u ? 1u : SPLIT_PROBES;
#else
const uint SEARCH_PROBES = 3u;
#endif

// Whether A[m] goes before B[d - 1 - m] on a merge path (true below the split):
// a_index and b_index are the memory indices of the two keys.
bool a_first_at(index_t a_index, index_t b_index)
{
#ifdef WITH_VALUES
    return !pair_less(load_key(read_key(b_index)), read_value(b_index), load_key(read_key(a_index)),
                      read_value(a_index));
#else
    return !(load_key(read_key(b_index)) < load_key(read_key(a_index)));
#endif
}

// The merge-path split of one diagonal found by one thread in device memory:
// the split lies in [low, high); A[m] sits at a_base + m and its partner
// B[d - 1 - m] at b_top - m. Each round tests SEARCH_PROBES positions cutting
// the range into equal parts (sample_position) and keeps the part between the
// last true and the first false answer.
// With in_samples (RUN_SAMPLES) the positions count groups of 2^SAMPLE_LOG
// keys, a_base and b_top are groups, and the keys compared are the samples.
index_t merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    while (low < high) {
        uint found = 0u;
        [[unroll]] for (uint probe = 0u; probe < SEARCH_PROBES; ++probe) {
            index_t m = sample_position(low, high, SEARCH_PROBES, probe);
#ifdef RUN_SAMPLES
            if (in_samples)
                found += a_first_at_samples(a_base + m, b_top - m) ? 1u : 0u;
            else
#endif
                found += a_first_at(a_base + m, b_top - m) ? 1u : 0u;
        }
        index_t new_high = found == SEARCH_PROBES ? high : sample_position(low, high, SEARCH_PROBES, found);
        if (found > 0u)
            low = sample_position(low, high, SEARCH_PROBES, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

#if defined(SPLITS_ONLY) || defined(SHARED_MERGE)
// How far A[m] lies above B[d - 1 - m], as a float: negative below the split,
// positive from it on (zero either side where keys are equal). A guess only:
// the answer comes from a_first_at(), exact for every key type.
float key_gap(key_t a_key, key_t b_key)
{
    return float(a_key) - float(b_key);
}

// merge_path_search() with its probes placed by a guess. Once both ends of the
// bracket [low, high] have been probed (low - 1 true, high false), the split is
// guessed where the key gap crosses zero, interpolated linearly between them,
// and a round probes the guess minus and plus g (half the square root of the
// bracket's width: about two standard deviations of the guess's error on
// random keys) and the bracket's middle, so a round at least halves it. Keys
// spread evenly narrow the bracket to about sqrt(width) a round: in a
// simulation of random 32-bit keys, 5.3 rounds for a run of 2^23 keys where
// 3-probe rounds take 11.1, and 4.1 against 6.0 for 2^13 (docs/perf-log.md,
// entry 41). Where the split falls outside a guessed window (keys that are
// not spread evenly: many equal keys, clusters) the search goes on with plain
// 3-probe rounds, which cost at most one round more than plain rounds from the
// start in that simulation. Three probes a round, whatever SPLIT_PROBES says.
index_t guided_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    bool low_probed = false, high_probed = false, guessing = true, guessed = false;
    float gap_low = 0.0, gap_high = 0.0;  // the key gap at low - 1 and at high
    index_t window_low = low, window_high = high;
    while (low < high) {
        if (guessed && (low < window_low || high > window_high + 1u))
            guessing = false;  // the split lay outside the guessed window
        index_t width = high - low;
        guessed = guessing && low_probed && high_probed && gap_high > gap_low && width > 16u;
        index_t probes[3];
        if (guessed) {
            float fraction = clamp(-gap_low / (gap_high - gap_low), 0.0, 1.0);
            index_t guess = low - 1u + min(index_t(float(width + 1u) * fraction), width + 1u);
            index_t g = max(index_t(sqrt(float(width)) * 0.5), index_t(1u));
            window_low = min(guess > low + g ? guess - g : low, high - 1u);
            window_high = max(min(guess + g, high - 1u), window_low);
            index_t middle = low + width / 2u;
            probes[0] = min(window_low, middle);
            probes[1] = clamp(middle, window_low, window_high);
            probes[2] = max(window_high, middle);
        } else {
            [[unroll]] for (uint p = 0u; p < 3u; ++p)
                probes[p] = sample_position(low, high, 3u, p);
        }
        uint found = 0u;
        float gaps[3];
        [[unroll]] for (uint p = 0u; p < 3u; ++p) {
            index_t a_index = a_base + probes[p], b_index = b_top - probes[p];
            key_t a_key, b_key;
            uint a_value = 0u, b_value = 0u;
#ifdef RUN_SAMPLES
            if (in_samples) {
                a_key = sample_at(a_index);
                b_key = sample_at(b_index);
#ifdef WITH_VALUES
                a_value = sample_value_at(a_index);
                b_value = sample_value_at(b_index);
#endif
            } else
#endif
            {
                a_key = load_key(read_key(a_index));
                b_key = load_key(read_key(b_index));
#ifdef WITH_VALUES
                a_value = read_value(a_index);
                b_value = read_value(b_index);
#endif
            }
            bool a_first = !KEY_BEFORE(b_key, b_value, a_key, a_value);
            found += a_first ? 1u : 0u;
            gaps[p] = key_gap(a_key, b_key);
        }
        // The probes are in order, so are their answers: true, then false.
        if (found < 3u) {
            gap_high = gaps[found];
            high_probed = true;
        }
        index_t new_high = found < 3u ? probes[found] : high;
        if (found > 0u) {
            low = probes[found - 1u] + 1u;
            gap_low = gaps[found - 1u];
            low_probed = true;
        }
        high = new_high;
    }
    return low;
}

#ifdef LANE_SEARCH
// merge_path_search() by the lanes of a subgroup that are active together
// (whatever their count): each round every lane tests one position of the
// range cut into lanes + 1 parts, and a ballot counts the true answers, which
// come first (the positions are in lane order, the answers monotone). Every
// lane gets the same ranges, so the loop is uniform over the subgroup.
index_t lane_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    uvec4 active_lanes = subgroupBallot(true);
    uint lanes = subgroupBallotBitCount(active_lanes);
    uint lane = subgroupBallotExclusiveBitCount(active_lanes);
    while (low < high) {
        index_t m = sample_position(low, high, lanes, lane);
        bool a_first = in_samples ? a_first_at_samples(a_base + m, b_top - m) : a_first_at(a_base + m, b_top - m);
        uint found = subgroupBallotBitCount(subgroupBallot(a_first));
        index_t new_high = found == lanes ? high : sample_position(low, high, lanes, found);
        if (found > 0u)
            low = sample_position(low, high, lanes, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

#endif

// merge_path_search(), by the thread or (LANE_SEARCH, by_lanes) by its subgroup.
index_t plain_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples, bool by_lanes)
{
#ifdef LANE_SEARCH
    if (by_lanes)
        return lane_merge_path_search(low, high, a_base, b_top, in_samples);
#endif
    return merge_path_search(low, high, a_base, b_top, in_samples);
}

// The split of diagonal `diagonal` of `runs` (how many keys of A its first
// outputs hold), searched by one thread (by_lanes: by the whole subgroup, in
// plain rounds; guided is then ignored): on the run samples first where the
// merge before left them (positions 32k inside [low, high), as groups:
// runs.base and the diagonal are multiples of the group, so A[32k] is sample
// base / 32 + k and B[d - 1 - 32k] sample b_top / 32 - k; the split then lies
// above the last of them found true and at or below the first found false,
// one group's keys), then in the keys, by guided or plain rounds.
index_t search_split(merge_runs runs, index_t diagonal, bool on_samples, bool guided, bool by_lanes)
{
    guided = guided && !by_lanes;
    index_t low = diagonal > runs.b_count ? diagonal - runs.b_count : index_t(0u);
    index_t high = min(diagonal, runs.a_count);
    index_t b_top = runs.base + runs.a_count + diagonal - 1u;
#ifdef RUN_SAMPLES
    if (on_samples && low < high) {
        index_t group_low = (low + ((1u << SAMPLE_LOG) - 1u)) >> SAMPLE_LOG;
        index_t group_high = ((high - 1u) >> SAMPLE_LOG) + 1u;  // past the last position 32k in range
        if (group_low < group_high) {
            index_t a_group = runs.base >> SAMPLE_LOG, b_group = b_top >> SAMPLE_LOG;
            index_t first_false = guided ? guided_merge_path_search(group_low, group_high, a_group, b_group, true)
                                         : plain_merge_path_search(group_low, group_high, a_group, b_group, true, by_lanes);
            if (first_false > group_low)
                low = ((first_false - 1u) << SAMPLE_LOG) + 1u;
            if (first_false < group_high)
                high = first_false << SAMPLE_LOG;
        }
        guided = false;  // at most a group wide: no guess pays there
    }
#endif
    return guided ? guided_merge_path_search(low, high, runs.base, b_top, false)
                  : plain_merge_path_search(low, high, runs.base, b_top, false, by_lanes);
}
#endif

#if !defined(WIDE_ADDRESSING) && !defined(DIRECT_MERGE)
// The partition sort's window merge (vk_sorter.c, record_partition_sort).
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
// (vk_sorter.c, MERGE_SPLIT_BY_THREAD).
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

// The value of key i, or 0 without values (KEY_BEFORE then compares keys alone).
uint value_or_zero(index_t i)
{
#ifdef WITH_VALUES
    return read_value(i);
#else
    return 0u;
#endif
}

#if !defined(SPLITS_ONLY)
// The merge that takes in the tail (last_phase = phase + 1; src/core/schedule.h,
// merge_tail_log): the keys from 2^phase on, one sorted run of at most
// 2^(phase-1), join the merge of the two runs below them, so a count just past
// a power of two needs no merge pass of its own. A merged key goes up by the
// tail keys before it; the workgroups past the runs' chunks place the tail, a
// thread a key, at its index in the tail plus the keys of A and B at or before
// it (ties to the earlier runs, as in every merge). The direct merge and the
// shared-memory merge's TAKES_TAIL pipeline both do this.

// The first index in [low, high) of a tail key (tail_first on) that is not
// before key x: every tail key below low is. Galloping from low first (probes
// 1, 2, 4, ... keys on) where the last answer is near, then a binary search.
index_t tail_keys_before(key_t x, uint x_value, index_t tail_first, index_t low, index_t high, bool gallop)
{
    index_t step = 1u;
    while (gallop && low < high) {
        index_t probe = min(low + step - 1u, high - 1u);
        if (!KEY_BEFORE(load_key(read_key(tail_first + probe)), value_or_zero(tail_first + probe), x, x_value)) {
            high = probe;
            break;
        }
        low = probe + 1u;
        step <<= 1u;
    }
    while (low < high) {
        index_t middle = low + ((high - low) >> 1u);
        if (KEY_BEFORE(load_key(read_key(tail_first + middle)), value_or_zero(tail_first + middle), x, x_value))
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

// Tail key t (of tail_count) to its place: the keys of A = [0, run) and of
// B = [run, 2 run) at or before it, found by two searches in step (run is a
// power of two: log2(run) + 1 probes each). Every probe's load is made
// whatever the answers so far, so the two searches' loads go out together.
// (A loop from a step of run with a bound test before each load: in one round
// on the H100, 2^k + 1 keys then took about 0.0015 ms more than 2^k, where
// with this loop they take as long; docs/perf-log.md, entry 70.)
void place_tail_key(index_t t, index_t tail_first, index_t tail_count)
{
    if (t >= tail_count)
        return;
    index_t run = tail_first >> 1u;
    key_t key = load_key(read_key(tail_first + t));
    uint value = value_or_zero(tail_first + t);
    index_t in_a = 0u, in_b = 0u;  // keys at or before it found so far
    for (index_t step = run >> 1u; step > 0u; step >>= 1u) {
        index_t a_probe = in_a + step - 1u, b_probe = run + in_b + step - 1u;
        key_t a_key = load_key(read_key(a_probe)), b_key = load_key(read_key(b_probe));
        uint a_value = value_or_zero(a_probe), b_value = value_or_zero(b_probe);
        in_a += KEY_BEFORE(key, value, a_key, a_value) ? 0u : step;
        in_b += KEY_BEFORE(key, value, b_key, b_value) ? 0u : step;
    }
    // The last probe: the key at in_a (at most run - 1) itself.
    key_t a_key = load_key(read_key(in_a)), b_key = load_key(read_key(run + in_b));
    uint a_value = value_or_zero(in_a), b_value = value_or_zero(run + in_b);
    in_a += KEY_BEFORE(key, value, a_key, a_value) ? 0u : 1u;
    in_b += KEY_BEFORE(key, value, b_key, b_value) ? 0u : 1u;
    index_t out_index = t + in_a + in_b;
    write_key_out(out_index, store_key(key));
#ifdef WITH_VALUES
    write_value_out(out_index, value);
#endif
}
#endif

#if defined(BUCKET_WINDOWS) && defined(SPLITS_ONLY)

// The first index in [low, high) of sorted keys whose key does not go before
// (key, value), or with or_equal whose key goes after it (a run whose equal
// keys go first): three probes a round, cutting the range in four, their
// loads in flight together (half the rounds of a binary search, each a trip
// to memory).
uint first_not_before(uint low, uint high, key_t key, uint value, bool or_equal)
{
    while (low < high) {
        uint found = 0u;
        [[unroll]] for (uint probe = 0u; probe < 3u; ++probe) {
            uint m = sample_position(low, high, 3u, probe);
            key_t here = load_key(read_key(m));
            uint here_value = value_or_zero(m);
            bool before = or_equal ? !KEY_BEFORE(key, value, here, here_value) : KEY_BEFORE(here, here_value, key, value);
            found += before ? 1u : 0u;
        }
        uint new_high = found == 3u ? high : sample_position(low, high, 3u, found);
        if (found > 0u)
            low = sample_position(low, high, 3u, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

// The window split pass takes a workgroup a chunk. In a bucket of three
// pieces its threads search together: each tests one position a round, and
// the count of those found true narrows the range, a (threads + 1)-ary
// search. One thread a chunk, a binary search in three pieces made the pass 6
// times longer at 2^21 keys on the H100 (0.036 ms against 0.006; docs/perf-log.md, entry
// 65): every step of the middle piece's search waits on two searches of the
// others. Two pieces take one thread's search all the same: the workgroup's
// k-ary searches made the pass twice as long at 2^24 keys (0.040 ms against
// 0.020), reading 32 scattered keys a round where one thread reads one. window_votes
// holds the counts, three rounds deep (a round adds to its own while the
// one two rounds ahead is cleared, so one barrier a round keeps them apart);
// window_lane_words the probes' counts in the other two pieces.
shared uint window_votes[3];
shared uint window_lane_words[2u * gl_WorkGroupSize.x];
uint window_round = 0u;

// How many threads vote true. Every thread calls it (a barrier).
uint votes_for(bool vote)
{
    uint slot = window_round % 3u;
    if (vote)
        atomicAdd(window_votes[slot], 1u);
    barrier();
    uint count = window_votes[slot];
    if (gl_LocalInvocationID.x == 0u)
        window_votes[(window_round + 2u) % 3u] = 0u;  // read a round ago, added to a round ahead
    ++window_round;
    return count;
}

// The merge-path split of `diagonal` between sorted A = [a, a + a_count) and
// B = [b, b + b_count), ties to A: how many keys of A the first diagonal
// outputs hold. Uniform: every thread keeps the same range.
uint window_split_two(uint a, uint a_count, uint b, uint b_count, uint diagonal)
{
    uint lanes = gl_WorkGroupSize.x;
    uint low = diagonal > b_count ? diagonal - b_count : 0u, high = min(diagonal, a_count);
    while (low < high) {
        uint m = sample_position(low, high, lanes, gl_LocalInvocationID.x);
        uint found = votes_for(a_first_at(a + m, b + diagonal - 1u - m));
        // The split lies after the last position found true and at or
        // before the first found false (the positions are in order, and so
        // are their answers).
        uint new_high = found == lanes ? high : sample_position(low, high, lanes, found);
        if (found > 0u)
            low = sample_position(low, high, lanes, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

// The first `diagonal` outputs of the merge of three sorted pieces P = [s,
// b1), Q = [b1, b2) and R = [b2, e) of one bucket (a run whole in the
// middle), ties in that order: how many of each. Q's key i goes out at rank i
// + (keys of P not after it) + (keys of R before it), which grows with i, so
// Q's count is the first i whose rank reaches the diagonal: each thread
// ranks one of Q's keys a round by two searches, in ranges that the rounds
// before narrow (the counts grow with i). The rest of the diagonal is P's
// and R's merge-path split. (src/cpu/reference_partition.c, three_piece_split.)
uvec3 window_split_three(uint s, uint b1, uint b2, uint e, uint diagonal)
{
    uint lanes = gl_WorkGroupSize.x, t = gl_LocalInvocationID.x;
    uint others = (b1 - s) + (e - b2);
    uint low = diagonal > others ? diagonal - others : 0u, high = min(diagonal, b2 - b1);
    uint p_low = s, p_high = b1, z_low = b2, z_high = e;
    while (low < high) {
        uint m = sample_position(low, high, lanes, t);
        key_t key = load_key(read_key(b1 + m));
        uint value = value_or_zero(b1 + m);
        uint p = first_not_before(p_low, p_high, key, value, true);
        uint z = first_not_before(z_low, z_high, key, value, false);
        window_lane_words[2u * t] = p;
        window_lane_words[2u * t + 1u] = z;
        uint found = votes_for(m + (p - s) + (z - b2) < diagonal);  // its barrier puts the words above first
        if (found < lanes) {
            uint new_high = sample_position(low, high, lanes, found);
            p_high = window_lane_words[2u * found];
            z_high = window_lane_words[2u * found + 1u];
            if (found > 0u) {
                low = sample_position(low, high, lanes, found - 1u) + 1u;
                p_low = window_lane_words[2u * found - 2u];
                z_low = window_lane_words[2u * found - 1u];
            }
            high = new_high;
        } else {
            low = sample_position(low, high, lanes, found - 1u) + 1u;
            p_low = window_lane_words[2u * found - 2u];
            z_low = window_lane_words[2u * found - 1u];
        }
        barrier();  // every thread has read the words before the next round writes them
    }
    uint rest = diagonal - low;
    uint taken_p = window_split_two(s, b1 - s, b2, e - b2, rest);
    return uvec3(taken_p, low, rest - taken_p);
}

// The first `diagonal` outputs of the merge of three sorted pieces P = [s,
// b1), Q = [b1, b2) and R = [b2, e) of one bucket (a run whole in the
// middle), ties in that order: how many of each. A selection that discards,
// in one thread: with `rest` outputs still to place and `open` pieces not
// used up, each step reads the key step = ceil(rest / open) into each open
// piece and takes those keys of the piece whose key goes first. At most step
// - 1 keys of each other piece go before that key, so every key taken is
// among the rest; the rest shrinks by a third a step (about log_1.5 of the
// diagonal steps), and a step's three reads are in flight together. From
// partition_split_by_thread_min_keys keys (SPLIT_BY_THREAD), where its chain
// is shorter than window_split_three's rounds of searches once the keys no
// longer sit in the L2 cache (0.031 ms against 0.037 at 2^24 keys on the
// H100, 0.059 against 0.126 at 2^26; 0.015 against 0.013 at 2^22, docs/perf-log.md, entry
// 66). Three reads a piece a step took fewer steps but 50 registers and was
// slower at every size. The same steps as src/cpu/reference_partition.c,
// bitonic_reference_three_piece_split.
uvec3 window_split_by_selection(uint s, uint b1, uint b2, uint e, uint diagonal)
{
    uvec3 at = uvec3(s, b1, b2);
    const uvec3 end = uvec3(b1, b2, e);
    uint rest = diagonal;
    while (rest > 0u) {
        bvec3 open = lessThan(at, end);
        uint opens = (open.x ? 1u : 0u) + (open.y ? 1u : 0u) + (open.z ? 1u : 0u);
        uint step = (rest + opens - 1u) / opens;
        uvec3 count = min(uvec3(step), end - at);
        // A used-up piece reads its last key (every piece has one), unused.
        uvec3 probe = at + max(count, uvec3(1u)) - 1u;
        key_t p_key = load_key(read_key(probe.x)), q_key = load_key(read_key(probe.y)),
              r_key = load_key(read_key(probe.z));
        uint p_value = value_or_zero(probe.x), q_value = value_or_zero(probe.y), r_value = value_or_zero(probe.z);
        bool take_p = open.x && (!open.y || !KEY_BEFORE(q_key, q_value, p_key, p_value)) &&
                      (!open.z || !KEY_BEFORE(r_key, r_value, p_key, p_value));
        bool take_q = !take_p && open.y && (!open.z || !KEY_BEFORE(r_key, r_value, q_key, q_value));
        uint taken = take_p ? count.x : take_q ? count.y : count.z;
        at += uvec3(take_p ? taken : 0u, take_q ? taken : 0u, take_p || take_q ? 0u : taken);
        rest -= taken;
    }
    return at - uvec3(s, b1, b2);
}

// The cursor at output position q of run r (q inside it; q = (r + 1)W, the
// run's end, as run r's): the first key not yet output of each of runs r - 2
// .. r + 2. Where q lies in the bucket around rW (q < e_r) or past the start
// of the one around (r + 1)W (q > s_{r+1}; the same bucket where it spans run
// r), the bucket's two pieces (one merge-path search by thread 0) or three
// (window_split_three, by every thread) give its runs' cursors, the runs
// before it are used up and those after it untouched; between the two
// buckets the keys are in place. Every thread of the workgroup calls it, for
// the same q; thread 0's cursor is the answer. With by_thread (or without
// THREE_PIECES) each thread calls it for its own q, and three pieces are
// window_split_by_selection's. `role` picks the cursors this call finds:
// ROLE_EVERY all of them; ROLE_TWO_PIECES those in place or in two pieces,
// ROLE_THREE_PIECES those in three; false where the cursor is another role's.
const uint ROLE_EVERY = 0u, ROLE_TWO_PIECES = 1u, ROLE_THREE_PIECES = 2u;
bool window_cursor_at(uint q, uint r, bool guided, bool by_thread, uint role, out uint cursor[5])
{
    bool at_start = q < straddle_word(r, 1u);
    bool at_end = !at_start && q > straddle_word(r + 1u, 0u);
    uint k = at_start ? r : r + 1u;
    uint s = straddle_word(k, 0u), e = straddle_word(k, 1u);
    int j0 = int(r), j1 = int(r);  // the runs the bucket spans (one: q in place)
    uvec3 taken = uvec3(0u);
    if (at_start || at_end) {
        j0 = int(s >> params.phase);
        j1 = int((e - 1u) >> params.phase);
    }
    bool three = THREE_PIECES && j1 - j0 >= 2;
    if (role != ROLE_EVERY && three != (role == ROLE_THREE_PIECES))
        return false;  // the other role's cursor (uniform in workgroup mode, where role is ROLE_EVERY)
    if (at_start || at_end) {
        uint b1 = uint(j0 + 1) << params.phase, d = q - s;
        if (!three) {
            // Two pieces: one thread, a merge-path search as the merges'
            // split passes search (the other threads' results are not used;
            // without THREE_PIECES or by_thread each thread has a chunk of
            // its own).
            if (!THREE_PIECES || by_thread || gl_LocalInvocationID.x == 0u) {
                merge_runs runs;
                runs.base = s;
                runs.a_count = b1 - s;
                runs.b_count = e - b1;
                taken.x = search_split(runs, d, false, guided, false);
                taken.y = d - taken.x;
            }
        } else if (by_thread) {
            taken = window_split_by_selection(s, b1, b1 + (1u << params.phase), e, d);
        } else {
            taken = window_split_three(s, b1, b1 + (1u << params.phase), e, d);
        }
    }
    [[unroll]] for (int i = 0; i < 5; ++i) {
        int j = int(r) - 2 + i;
        cursor[i] = j < j0   ? run_end_key(j)
                    : j > j1 ? run_first_key(j)
                    : j0 == j1 ? q
                               : (j == j0 ? s : run_first_key(j)) + taken[j - j0];
    }
    return true;
}
#endif

#ifdef SPLITS_ONLY
// The split pass guesses where a split lies from the keys' values (1, the
// default where the host asks: tuning.merge_split_guided), or searches by
// SPLIT_PROBES-ary rounds alone (0).
layout(constant_id = 4) const uint SPLIT_GUIDED = 0u;

// The split pass: thread t of workgroup w finds the split of the first key of
// chunk w * threads + t by itself (merge_path_search). One thread a split reads
// a few keys a round, the first rounds' shared by every thread of a subgroup
// (neighbouring chunks probe neighbouring positions) and so served by the
// cache; the k-ary search of find_splits() read 32 lanes x 5 rounds of
// scattered keys a split, more bytes than the merge itself moved
// (docs/perf-log.md, entries 13 and 14).
void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
#ifdef BUCKET_WINDOWS
    // Uniform: the host's choice for the whole pass.
    bool by_thread = (params.sample_runs & SPLIT_BY_THREAD) != 0u;
    if (WINDOW_MERGE && (!THREE_PIECES || by_thread)) {
        // Buckets of up to a window, or three pieces by one thread's
        // selection: a thread a chunk, as the merges' split passes take
        // them (no barrier: an idle thread may leave). With three pieces
        // the grid is two grids of a thread a chunk: the first's
        // workgroups find the cursors in place or in two pieces (a guided
        // search), the second's those in three (the selection). Each
        // workgroup keeps to one kind of search, so no subgroup runs both
        // one after the other: the cursors in three pieces lie a few to a
        // bucket that spans three runs, and with a thread a chunk the
        // subgroups that held both kinds took the two searches' time
        // together (docs/perf-log.md, entry 81).
        uint role = ROLE_EVERY;
        if (THREE_PIECES) {
            uint grid = (params.group_count + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
            bool second_grid = workgroup >= grid;
            role = second_grid ? ROLE_THREE_PIECES : ROLE_TWO_PIECES;
            if (second_grid)
                workgroup -= grid;
        }
        uint chunk = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        if (chunk >= params.group_count)
            return;
        bool guided = (params.sample_runs & SAMPLES_GUIDED) != 0u;
        uint position = chunk << CHUNK_LOG, cursor[5];
        if (window_cursor_at(position, position >> params.phase, guided, true, role, cursor)) {
            [[unroll]] for (uint i = 0u; i < 5u; ++i)
                splits[5u * chunk + i] = cursor[i];
        }
        return;
    }
    if (WINDOW_MERGE) {
        // A workgroup a chunk, its threads searching together.
        if (workgroup >= params.group_count)
            return;  // uniform: the whole workgroup, past the chunks
        if (gl_LocalInvocationID.x < 3u)
            window_votes[gl_LocalInvocationID.x] = 0u;
        barrier();
        // Two pieces' searches guided where the host says (SAMPLES_GUIDED:
        // the plan's merges' split passes guide theirs).
        bool guided = (params.sample_runs & SAMPLES_GUIDED) != 0u;
        uint position = workgroup << CHUNK_LOG, cursor[5];
        window_cursor_at(position, position >> params.phase, guided, false, ROLE_EVERY, cursor);
        if (gl_LocalInvocationID.x == 0u) {
            [[unroll]] for (uint i = 0u; i < 5u; ++i)
                splits[5u * workgroup + i] = cursor[i];
        }
        return;
    }
#endif
    uint chunk = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (chunk >= params.group_count)
        return;  // no barrier in the other split pass: an idle thread may leave
    index_t position = index_t(chunk) << CHUNK_LOG;
    merge_runs runs = runs_of(position, params.phase);
    index_t diagonal = min(position - runs.base, runs.a_count + runs.b_count);
    write_split(chunk, search_split(runs, diagonal, params.sample_runs != 0u, SPLIT_GUIDED != 0u, false));
}
#elif defined(DIRECT_MERGE)
// Memory index of B[j] clamped into B, or of A's first key when B is empty
// (the value read is then never used).
index_t b_index_of(index_t j, merge_runs runs, index_t b_base)
{
    return runs.b_count > 0u ? b_base + min(j, runs.b_count - 1u) : runs.base;
}

// One output of a thread's merge: the head of A or of B (ties to A), then
// that head refilled from inside its run (a read past a run's end is clamped
// and never used). Without values the values are zeros the compiler drops.
void take_output(merge_runs runs, index_t a_base, index_t b_base, inout index_t i, inout index_t j,
                 inout key_t key_a, inout key_t key_b, inout uint value_a, inout uint value_b, out key_t out_key,
                 out uint out_value)
{
    bool take_a = i < runs.a_count && (j >= runs.b_count || !KEY_BEFORE(key_b, value_b, key_a, value_a));
    out_key = take_a ? key_a : key_b;
    out_value = take_a ? value_a : value_b;
    i += take_a ? 1u : 0u;
    j += take_a ? 0u : 1u;
    index_t next = take_a ? a_base + min(i, runs.a_count - 1u) : b_index_of(j, runs, b_base);
    key_t next_key = load_key(read_key(next));
    key_a = take_a ? next_key : key_a;
    key_b = take_a ? key_b : next_key;
#ifdef WITH_VALUES
    uint next_value = read_value(next);
    value_a = take_a ? next_value : value_a;
    value_b = take_a ? value_b : next_value;
#endif
}

void write_output(index_t out_index, key_t out_key, uint out_value)
{
    write_key_out(out_index, store_key(out_key));
#ifdef WITH_VALUES
    write_value_out(out_index, out_value);
#endif
}

// The merge without shared memory: each thread finds the split of its own
// first output in device memory (inside its chunk's slices when a split pass
// gave them, else in the whole runs), then merges REGISTERS keys reading the
// two runs through the cache and writes them out. No barrier and no shared
// memory, so as many workgroups fit a multiprocessor as registers allow; the
// keys a thread reads were mostly brought into the cache by its neighbours.
void main()
{
    live_count = key_count();
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (chunk >= params.group_count)
        return;  // no barrier in this kernel: an idle thread may leave
    index_t position = index_t(chunk) << CHUNK_LOG;
    bool takes_tail = params.last_phase == params.phase + 1u;
    index_t tail_first = index_t(1u) << params.phase;
    index_t tail_count = takes_tail && live_count > tail_first ? live_count - tail_first : index_t(0u);
    if (takes_tail && position >= tail_first) {
        // The tail is at most a tile: its thread indices fit 32 bits.
        uint group = uint(index_t(chunk) - (tail_first >> CHUNK_LOG));
        place_tail_key(index_t(group * gl_WorkGroupSize.x + gl_LocalInvocationID.x), tail_first, tail_count);
        return;
    }
    if (position >= live_count)
        return;  // a GPU-side count below the recorded one: nothing to merge here
    merge_runs runs = runs_of(position, params.phase);
    index_t total = runs.a_count + runs.b_count;
    index_t chunk_first = min(position - runs.base, total);
    index_t diagonal = min(chunk_first + gl_LocalInvocationID.x * REGISTERS, total);
    if (diagonal >= total)
        return;
    index_t low = diagonal > runs.b_count ? diagonal - runs.b_count : index_t(0u);
    index_t high = min(diagonal, runs.a_count);
    if (params.splits_given != 0u) {
        // The chunk's splits bound this thread's: its diagonal lies between the
        // chunk's first and last, and splits grow with the diagonal.
        index_t chunk_last = min(chunk_first + as_index(CHUNK_KEYS), total);
        index_t first_split = read_split(chunk);
        low = max(low, first_split);
        high = min(high, first_split + (diagonal - chunk_first));
        if (chunk_last < total)
            high = min(high, read_split(chunk + 1u));
        high = max(high, low);
    }
    index_t a_base = runs.base, b_base = runs.base + runs.a_count;
    index_t i = merge_path_search(low, high, a_base, b_base + diagonal - 1u, false);
    index_t j = diagonal - i;
    uint outputs = uint(min(index_t(REGISTERS), total - diagonal));
    // Memory indices of A[i] and B[j] clamped into their runs (B may be empty:
    // the last run of an odd count has no partner), so no read leaves the keys.
    key_t key_a = load_key(read_key(a_base + min(i, runs.a_count - 1u)));
    key_t key_b = load_key(read_key(b_index_of(j, runs, b_base)));
#ifdef WITH_VALUES
    uint value_a = read_value(a_base + min(i, runs.a_count - 1u));
    uint value_b = read_value(b_index_of(j, runs, b_base));
#endif
#ifndef WITH_VALUES
    uint value_a = 0u, value_b = 0u;  // unused: KEY_BEFORE compares keys alone
#endif
    if (tail_count == 0u) {
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            if (r < outputs) {
                key_t out_key;
                uint out_value;
                take_output(runs, a_base, b_base, i, j, key_a, key_b, value_a, value_b, out_key, out_value);
                write_output(runs.base + diagonal + r, out_key, out_value);
            }
        }
        return;
    }
    // Taking in the tail: the tail keys before the last output, and the first
    // of the rest, which the next outputs are tested against. A loop of its
    // own, not unrolled: one pass a sort runs it, and eight copies of the
    // searches made every merge's code longer (docs/perf-log.md, entry 70).
    index_t tail_before = 0u;
    key_t tail_head = load_key(read_key(tail_first));
    uint tail_head_value = value_or_zero(tail_first);
    [[dont_unroll]] for (uint r = 0u; r < outputs; ++r) {
        key_t out_key;
        uint out_value;
        take_output(runs, a_base, b_base, i, j, key_a, key_b, value_a, value_b, out_key, out_value);
        if (tail_before < tail_count && KEY_BEFORE(tail_head, tail_head_value, out_key, out_value)) {
            // The first output searches the whole tail; the next ones gallop on.
            tail_before = tail_keys_before(out_key, out_value, tail_first, tail_before + 1u, tail_count, r > 0u);
            index_t head = tail_first + min(tail_before, tail_count - 1u);
            tail_head = load_key(read_key(head));
            tail_head_value = value_or_zero(head);
        }
        write_output(runs.base + diagonal + r + tail_before, out_key, out_value);
    }
}
#else
#ifdef VECTOR_IO
#if !defined(KEY64) && !defined(WITH_VALUES)
// 32-bit keys alone: each slice in a loop of its own, the aligned 16-byte
// groups that cover it a thread at a time (the buffer's last group may be
// partial, and is read key by key). Loading both slices' groups before using
// any (below) made these merges 1-2% faster from 2^23 keys up but 3-6% slower
// from 2^19 to 2^22 on the H100 (docs/perf-log.md, entry 35).
void load_slice_vector(index_t start, uint count, uint slot_base)
{
    if (count == 0u)
        return;
    index_t end = start + count;
    index_t whole_groups = recorded_count() / KEYS_PER_VECTOR;  // groups lying wholly inside the keys
    for (index_t g = start / KEYS_PER_VECTOR + gl_LocalInvocationID.x; g <= (end - 1u) / KEYS_PER_VECTOR;
         g += as_index(gl_WorkGroupSize.x)) {
        uvec4 four = g < whole_groups ? read_keys4(g) : uvec4(0u);
        [[unroll]] for (uint e = 0u; e < KEYS_PER_VECTOR; ++e) {
            index_t k = g * KEYS_PER_VECTOR + e;
            if (k >= start && k < end)
                chunk_keys[padded(slot_base + uint(k - start))] =
                    load_key(g < whole_groups ? vector_key(four, e) : read_key(k));
        }
    }
}

// A's slice, then B's.
void load_slices_vector(index_t a_start, uint a_count, index_t b_start, uint b_count)
{
    load_slice_vector(a_start, a_count, 0u);
    load_slice_vector(b_start, b_count, a_count);
}

#ifdef BUCKET_WINDOWS
// The window merge's five pieces, one after another in the slots.
void load_pieces_vector(uint starts[5], uint counts[5])
{
    uint slot = 0u;
    [[unroll]] for (uint p = 0u; p < 5u; ++p) {
        load_slice_vector(starts[p], counts[p], slot);
        slot += counts[p];
    }
}
#endif
#else
// Vectors a thread loads for its chunk's two slices at most: the chunk's keys
// are threads x REGISTERS and the slices' ragged ends add up to three groups,
// which two more a thread cover (a merge workgroup has at least two threads,
// or one of two keys, whose slices span at most two groups).
const uint SLICE_KEY_VECTORS = (REGISTERS + KEYS_PER_VECTOR - 1u) / KEYS_PER_VECTOR + 2u;
const uint SLICE_VALUE_VECTORS = (REGISTERS + 3u) / 4u + 2u;

// Slot of key k of the buffers when the slices are A = [a_start, a_start +
// a_count) and B = [b_start, b_start + b_count) (A in slots a_slot .., B in
// b_slot ..), or ~0u where k lies in neither (the ragged ends' other keys).
uint slice_slot(index_t k, bool in_a, index_t a_start, uint a_count, index_t b_start, uint b_count, uint a_slot,
                uint b_slot)
{
    index_t start = in_a ? a_start : b_start;
    uint count = in_a ? a_count : b_count;
    return k >= start && k < start + count ? (in_a ? a_slot : b_slot) + uint(k - start) : ~0u;
}

// The chunk's slices of A and B into shared memory: the aligned 16-byte groups
// that cover them, numbered A's then B's, a group a thread in turn; every load
// of a thread is issued before the first is used: the keys of each slice, then
// the values of each, one after the other were four trips to memory a
// workgroup, each waited on, and merges of pairs and 64-bit keys took 14-17%
// longer at 2^22-2^24 keys on the H100 (docs/perf-log.md, entry 35). The buffer's last group
// may be partial, and is read key by key. A goes to slots a_slot .., B to
// b_slot ...
void load_two_slices_vector(index_t a_start, uint a_count, index_t b_start, uint b_count, uint a_slot, uint b_slot)
{
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    index_t whole_groups = recorded_count() / KEYS_PER_VECTOR;  // groups lying wholly inside the keys
    index_t a_group = a_start / KEYS_PER_VECTOR, b_group = b_start / KEYS_PER_VECTOR;
    uint a_groups = a_count == 0u ? 0u : uint((a_start + a_count - 1u) / KEYS_PER_VECTOR - a_group) + 1u;
    uint b_groups = b_count == 0u ? 0u : uint((b_start + b_count - 1u) / KEYS_PER_VECTOR - b_group) + 1u;
    uvec4 fetched[SLICE_KEY_VECTORS];
    [[unroll]] for (uint i = 0u; i < SLICE_KEY_VECTORS; ++i) {
        uint v = thread + i * threads;
        index_t g = v < a_groups ? a_group + v : b_group + (v - a_groups);
        fetched[i] = v < a_groups + b_groups && g < whole_groups ? read_keys4(g) : uvec4(0u);
    }
#ifdef WITH_VALUES
    index_t whole_value_groups = recorded_count() >> 2;
    index_t a_value_group = a_start >> 2, b_value_group = b_start >> 2;
    uint a_value_groups = a_count == 0u ? 0u : uint(((a_start + a_count - 1u) >> 2) - a_value_group) + 1u;
    uint b_value_groups = b_count == 0u ? 0u : uint(((b_start + b_count - 1u) >> 2) - b_value_group) + 1u;
    uvec4 fetched_values[SLICE_VALUE_VECTORS];
    [[unroll]] for (uint i = 0u; i < SLICE_VALUE_VECTORS; ++i) {
        uint v = thread + i * threads;
        index_t g = v < a_value_groups ? a_value_group + v : b_value_group + (v - a_value_groups);
        fetched_values[i] = v < a_value_groups + b_value_groups && g < whole_value_groups ? read_values4(g) : uvec4(0u);
    }
#endif
    [[unroll]] for (uint i = 0u; i < SLICE_KEY_VECTORS; ++i) {
        uint v = thread + i * threads;
        if (v < a_groups + b_groups) {
            bool in_a = v < a_groups;
            index_t g = in_a ? a_group + v : b_group + (v - a_groups);
            [[unroll]] for (uint e = 0u; e < KEYS_PER_VECTOR; ++e) {
                index_t k = g * KEYS_PER_VECTOR + e;
                uint slot = slice_slot(k, in_a, a_start, a_count, b_start, b_count, a_slot, b_slot);
                if (slot != ~0u)
                    chunk_keys[padded(slot)] = load_key(g < whole_groups ? vector_key(fetched[i], e) : read_key(k));
            }
        }
    }
#ifdef WITH_VALUES
    [[unroll]] for (uint i = 0u; i < SLICE_VALUE_VECTORS; ++i) {
        uint v = thread + i * threads;
        if (v < a_value_groups + b_value_groups) {
            bool in_a = v < a_value_groups;
            index_t g = in_a ? a_value_group + v : b_value_group + (v - a_value_groups);
            [[unroll]] for (uint e = 0u; e < 4u; ++e) {
                index_t k = g * 4u + e;
                uint slot = slice_slot(k, in_a, a_start, a_count, b_start, b_count, a_slot, b_slot);
                if (slot != ~0u)
                    chunk_values[padded(slot)] = g < whole_value_groups ? fetched_values[i][e] : read_value(k);
            }
        }
    }
#endif
}

// A's slice, then B's, in one round of loads.
void load_slices_vector(index_t a_start, uint a_count, index_t b_start, uint b_count)
{
    load_two_slices_vector(a_start, a_count, b_start, b_count, 0u, a_count);
}

#ifdef BUCKET_WINDOWS
// The window merge's five pieces, one after another in the slots, two in each
// round of loads: most chunks have run r's piece and one or two others.
void load_pieces_vector(uint starts[5], uint counts[5])
{
    uint first_two = counts[0] + counts[1], next_two = counts[2] + counts[3];
    if (counts[1] == 0u && next_two == 0u) {
        load_two_slices_vector(starts[0], counts[0], starts[4], counts[4], 0u, counts[0]);
        return;
    }
    load_two_slices_vector(starts[0], counts[0], starts[1], counts[1], 0u, counts[0]);
    if (next_two != 0u)
        load_two_slices_vector(starts[2], counts[2], starts[3], counts[3], first_two, first_two + counts[2]);
    load_two_slices_vector(starts[4], counts[4], starts[4], 0u, first_two + next_two, first_two + next_two);
}
#endif
#endif

// Slots [0, slot_count) to KeysOut (and ValuesOut) from out_base on (a
// multiple of four: a chunk's first key), 16 bytes a store where whole.
void store_chunk_vector(index_t out_base, uint slot_count)
{
    index_t whole_groups = recorded_count() / KEYS_PER_VECTOR;
    for (uint slot = gl_LocalInvocationID.x * KEYS_PER_VECTOR; slot < slot_count;
         slot += gl_WorkGroupSize.x * KEYS_PER_VECTOR) {
        index_t group = (out_base + slot) / KEYS_PER_VECTOR;
        if (slot + KEYS_PER_VECTOR <= slot_count && group < whole_groups) {
#ifdef KEY64
            write_keys_out4(group, key_vector(store_key(chunk_keys[padded(slot)]),
                                              store_key(chunk_keys[padded(slot + 1u)])));
#else
            write_keys_out4(group, uvec4(store_key(chunk_keys[padded(slot)]), store_key(chunk_keys[padded(slot + 1u)]),
                                         store_key(chunk_keys[padded(slot + 2u)]),
                                         store_key(chunk_keys[padded(slot + 3u)])));
#endif
        } else {
            for (uint e = slot; e < min(slot + KEYS_PER_VECTOR, slot_count); ++e)
                write_key_out(out_base + e, store_key(chunk_keys[padded(e)]));
        }
    }
#ifdef WITH_VALUES
    index_t whole_value_groups = recorded_count() >> 2;
    for (uint slot = gl_LocalInvocationID.x * 4u; slot < slot_count; slot += gl_WorkGroupSize.x * 4u) {
        index_t group = (out_base + slot) >> 2;
        if (slot + 4u <= slot_count && group < whole_value_groups) {
            write_values_out4(group, uvec4(chunk_values[padded(slot)], chunk_values[padded(slot + 1u)],
                                           chunk_values[padded(slot + 2u)], chunk_values[padded(slot + 3u)]));
        } else {
            for (uint e = slot; e < min(slot + 4u, slot_count); ++e)
                write_value_out(out_base + e, chunk_values[padded(e)]);
        }
    }
#endif
}
#endif

// The merged chunk (slots [0, slot_count), output index out_base on) out in
// the merge that takes in the tail: each key goes up by the tail keys before
// it, so the stores lose the 16-byte alignment and go a key a thread, the
// neighbouring threads' keys side by side. A thread's keys ascend, so after
// its first search it gallops on from the last answer, and most keys need
// one comparison with the next tail key (as the direct merge does).
void store_chunk_past_tail(index_t out_base, uint slot_count, index_t tail_first, index_t tail_count)
{
    index_t tail_before = 0u;
    key_t tail_head = load_key(read_key(tail_first));
    uint tail_head_value = value_or_zero(tail_first);
    bool searched = false;
    [[dont_unroll]] for (uint slot = gl_LocalInvocationID.x; slot < slot_count; slot += gl_WorkGroupSize.x) {
        key_t key = chunk_keys[padded(slot)];
#ifdef WITH_VALUES
        uint value = chunk_values[padded(slot)];
#else
        uint value = 0u;
#endif
        if (tail_before < tail_count && KEY_BEFORE(tail_head, tail_head_value, key, value)) {
            tail_before = tail_keys_before(key, value, tail_first, tail_before + 1u, tail_count, searched);
            searched = true;
            index_t head = tail_first + min(tail_before, tail_count - 1u);
            tail_head = load_key(read_key(head));
            tail_head_value = value_or_zero(head);
        }
        index_t index = out_base + slot + tail_before;
        write_key_out(index, store_key(key));
#ifdef WITH_VALUES
        write_value_out(index, value);
#endif
    }
}

#ifdef RUN_SAMPLES
// The splits of this chunk's first and last key when the workgroup searches
// them itself on samples (SAMPLES_SEARCH).
shared index_t chunk_splits[2];

#endif

#ifdef VECTOR_IO
// This thread's merged keys (slots thread * REGISTERS on of the chunk, which
// starts at output index out_base, a multiple of four) straight from
// its registers to KeysOut: 16 bytes a store where the thread's keys fill a
// whole group of the buffer, key by key elsewhere; and the samples among them
// (STORE_FROM_REGISTERS). It saves two barriers and a shared write and read of
// every key, but each warp's stores then spread over twice the lines (four
// times for 64-bit keys), and on the H100 it was no faster (docs/perf-log.md, entry 44).
// out_base: the output index of the chunk's first key.
void store_registers_vector(merge_runs runs, index_t out_base, uint slot_count)
{
    uint first_slot = gl_LocalInvocationID.x * REGISTERS;
    index_t whole_groups = recorded_count() / KEYS_PER_VECTOR;
    const bool key_vectors = REGISTERS % KEYS_PER_VECTOR == 0u;  // a thread's keys start a group
    [[unroll]] for (uint r = 0u; r < REGISTERS; r += KEYS_PER_VECTOR) {
        uint slot = first_slot + r;
        index_t group = (out_base + slot) / KEYS_PER_VECTOR;
        if (key_vectors && slot + KEYS_PER_VECTOR <= slot_count && group < whole_groups) {
            uint last_key = min(r + KEYS_PER_VECTOR - 1u, REGISTERS - 1u);  // r + 3 (r + 1 for 64-bit keys)
#ifdef KEY64
            write_keys_out4(group, key_vector(store_key(reg_keys[r]), store_key(reg_keys[last_key])));
#else
            write_keys_out4(group, uvec4(store_key(reg_keys[r]), store_key(reg_keys[min(r + 1u, last_key)]),
                                         store_key(reg_keys[min(r + 2u, last_key)]), store_key(reg_keys[last_key])));
#endif
        } else {
            [[unroll]] for (uint e = 0u; e < KEYS_PER_VECTOR; ++e)
                if (r + e < REGISTERS && slot + e < slot_count)
                    write_key_out(out_base + slot + e, store_key(reg_keys[min(r + e, REGISTERS - 1u)]));
        }
    }
#ifdef WITH_VALUES
    index_t whole_value_groups = recorded_count() >> 2;
    const bool value_vectors = REGISTERS % 4u == 0u;
    [[unroll]] for (uint r = 0u; r < REGISTERS; r += 4u) {
        uint slot = first_slot + r;
        index_t group = (out_base + slot) >> 2;
        if (value_vectors && slot + 4u <= slot_count && group < whole_value_groups) {
            uint last_value = min(r + 3u, REGISTERS - 1u);
            write_values_out4(group, uvec4(reg_values[r], reg_values[min(r + 1u, last_value)],
                                           reg_values[min(r + 2u, last_value)], reg_values[last_value]));
        } else {
            [[unroll]] for (uint e = 0u; e < 4u; ++e)
                if (r + e < REGISTERS && slot + e < slot_count)
                    write_value_out(out_base + slot + e, reg_values[min(r + e, REGISTERS - 1u)]);
        }
    }
#endif
#ifdef RUN_SAMPLES
    if ((params.sample_runs & SAMPLES_WRITE) != 0u) {
        uint offset = sample_offset(runs.base, params.phase);
        uint region = sample_region_start(sort_chunks(CHUNK_LOG), params.phase);
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            uint slot = first_slot + r;
            if (slot < slot_count && (slot & ((1u << SAMPLE_LOG) - 1u)) == offset) {
#ifdef WITH_VALUES
                store_sample(region, (out_base + slot) >> SAMPLE_LOG, reg_keys[r], reg_values[r]);
#else
                store_sample(region, (out_base + slot) >> SAMPLE_LOG, reg_keys[r], 0u);
#endif
            }
        }
    }
#endif
}
#endif

void main()
{
    live_count = key_count();
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;
    index_t position = index_t(chunk) << CHUNK_LOG;
    // The merge that takes in the tail: the workgroups past the two runs'
    // chunks place the tail's keys, and merge nothing.
    index_t tail_first = index_t(1u) << params.phase;
    index_t tail_count = TAKES_TAIL && live_count > tail_first ? live_count - tail_first : index_t(0u);
    bool tail_group = TAKES_TAIL && position >= tail_first;
    if (tail_group && chunk < params.group_count) {
        uint group = uint(index_t(chunk) - (tail_first >> CHUNK_LOG));
        place_tail_key(index_t(group * threads + thread), tail_first, tail_count);
    }
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool active_chunk = chunk < params.group_count && !tail_group;
    merge_runs runs = runs_of(active_chunk ? position : index_t(0u), params.phase);
    index_t total = active_chunk ? runs.a_count + runs.b_count : index_t(0u);
    index_t first = min(position - runs.base, total);
    index_t last = min(first + as_index(CHUNK_KEYS), total);
    // The splits of the chunk's first and last key: from the split pass when
    // there was one (the last chunk of a merged run uses all of A), else found here.
    index_t a_first, a_last;
    bool window_merge = false;
#ifdef BUCKET_WINDOWS
    window_merge = WINDOW_MERGE;
#endif
    if (window_merge) {
        a_first = a_last = index_t(0u);  // the cursors, below
    } else if (params.splits_given != 0u) {
        a_first = !active_chunk ? index_t(0u) : first < total ? read_split(chunk) : runs.a_count;
        a_last = !active_chunk ? index_t(0u) : last < total ? read_split(chunk + 1u) : runs.a_count;
#ifdef RUN_SAMPLES
    } else if ((params.sample_runs & SAMPLES_SEARCH) != 0u) {
        // Two threads search the chunk's two splits as a split pass would, on
        // the samples the pass before left: a short chain in the L2 cache where
        // find_splits() reads 32 scattered keys a round for 5 rounds. The whole
        // workgroup in k-ary rounds on the samples was 10-16% slower (a barrier
        // a round), and in place of a split pass, in merges of 4096 chunks and
        // more, these chains made every level slower (docs/perf-log.md, entry 44).
#ifdef LANE_SEARCH
        // Subgroup 0 searches the first split, subgroup 1 the last (one
        // subgroup both, where the workgroup is one); uniform over each.
        for (uint side = gl_SubgroupID; side < 2u; side += gl_NumSubgroups) {
            index_t diagonal = side == 0u ? first : last;
            index_t split = !active_chunk       ? index_t(0u)
                            : diagonal >= total ? runs.a_count
                                                : search_split(runs, diagonal, true, false, true);
            if (subgroupElect())
                chunk_splits[side] = split;
        }
#else
        if (thread < 2u) {
            index_t diagonal = thread == 0u ? first : last;
            chunk_splits[thread] = !active_chunk       ? index_t(0u)
                                   : diagonal >= total ? runs.a_count
                                                       : search_split(runs, diagonal, true,
                                                                      (params.sample_runs & SAMPLES_GUIDED) != 0u, false);
        }
#endif
        barrier();
        a_first = chunk_splits[0];
        a_last = chunk_splits[1];
#endif
    } else {
        index2_t found = find_splits(index2_t(first, last), index2_t(runs.base), index2_t(runs.a_count),
                                     index2_t(runs.b_count));
        a_first = found.x;
        a_last = found.y;
    }
    uint a_count = uint(a_last - a_first);        // keys of A in this chunk
    uint slot_count = uint(last - first);         // keys of the chunk
    index_t a_start = runs.base + a_first;
    index_t b_start = runs.base + runs.a_count + (first - a_first);
    uint b_count = slot_count - a_count;
    index_t out_base = runs.base + first;         // the chunk's first output
#ifdef BUCKET_WINDOWS
    // The window merge's pieces in slot order (window_pieces), and the keys of
    // the first two (A's first part; B's, after it, are merged with them
    // first where there are any).
    uint piece_starts[5] = uint[5](0u, 0u, 0u, 0u, 0u), piece_counts[5] = uint[5](0u, 0u, 0u, 0u, 0u);
    uint first_part = 0u;
    if (window_merge) {
        // The chunk's cursors: its own, from the split pass; where it ends,
        // the next chunk's, which where that chunk starts run r + 1 are in
        // that run's terms (shifted by a run, and run r - 2 is used up), or
        // at the end of the keys every run used up. Keys of runs before r
        // lie in the bucket around rW, of runs after r in the one around (r
        // + 1)W: where those are two buckets, A's first part is run r - 1's
        // piece and run r + 1's (one bucket's keys before the other's), its
        // second part runs r - 2's and r + 2's (keys only where a bucket
        // spans three runs); where one bucket spans run r, the first part is
        // run r - 1's piece and the second run r + 1's. B is run r's piece.
        uint q0 = chunk << CHUNK_LOG, r = q0 >> params.phase;
        uint q1 = min(q0 + CHUNK_KEYS, live_count);
        uint next_run = (r + 1u) << params.phase;
        uint from[5] = uint[5](0u, 0u, 0u, 0u, 0u), to[5] = uint[5](0u, 0u, 0u, 0u, 0u);
        if (active_chunk && q0 < live_count) {
            [[unroll]] for (uint i = 0u; i < 5u; ++i) {
                int j = int(r) - 2 + int(i);
                from[i] = splits[5u * chunk + i];
                to[i] = q1 == live_count ? run_end_key(j)
                        : q1 < next_run  ? splits[5u * chunk + 5u + i]
                        : i == 0u        ? run_end_key(j)
                                         : splits[5u * chunk + 5u + i - 1u];
            }
        }
        uint s_r = straddle_word(r, 0u);
        bool spans_run = THREE_PIECES && s_r == straddle_word(r + 1u, 0u) && s_r < (r << params.phase);
        // In slot order: runs r - 1, r + 1 (none where one bucket spans run
        // r), r - 2 (r + 1 there), r + 2 and r. Constant indices all: an
        // array indexed at run time would live in local memory.
        piece_starts = uint[5](from[1], spans_run ? from[0] : from[3], spans_run ? from[3] : from[0], from[4], from[2]);
        piece_counts = uint[5](to[1] - from[1], spans_run ? to[0] - from[0] : to[3] - from[3],
                               !THREE_PIECES ? 0u : spans_run ? to[3] - from[3] : to[0] - from[0],
                               THREE_PIECES ? to[4] - from[4] : 0u, to[2] - from[2]);
        first_part = piece_counts[0] + piece_counts[1];
        a_start = piece_starts[0];
        a_count = first_part + piece_counts[2] + piece_counts[3];  // A: both parts
        b_start = piece_starts[4];
        b_count = piece_counts[4];
        slot_count = a_count + b_count;  // q1 - q0
        out_base = q0;
    }
#endif

#ifdef VECTOR_IO
    if (params.vector_io != 0u) {
#ifdef BUCKET_WINDOWS
        if (window_merge)
            load_pieces_vector(piece_starts, piece_counts);
        else
#endif
            load_slices_vector(a_start, a_count, b_start, b_count);
    } else
#endif
    {
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            uint i = r * threads + thread;
            if (i < slot_count) {
                index_t index = i < a_count ? a_start + i : b_start + (i - a_count);
#ifdef BUCKET_WINDOWS
                if (window_merge) {
                    uint piece_first = 0u;
                    [[unroll]] for (uint p = 0u; p < 5u; ++p) {
                        if (i >= piece_first && i < piece_first + piece_counts[p])
                            index = piece_starts[p] + (i - piece_first);
                        piece_first += piece_counts[p];
                    }
                }
#endif
                chunk_keys[padded(i)] = load_key(read_key(index));
#ifdef WITH_VALUES
                chunk_values[padded(i)] = read_value(index);
#endif
            }
        }
    }
    // This thread's outputs: diagonal thread * REGISTERS of the two slices
    // (A in slots 0 .., B right after).
    // Where the window merge's A has two parts, they are merged first, by the
    // same code (uniform: a merge round more for the whole workgroup), so
    // that the merge is not written out twice.
    uint merges = 1u;
#ifdef BUCKET_WINDOWS
    merges = window_merge && THREE_PIECES && first_part < a_count ? 2u : 1u;
#endif
    for (uint merge = 0u; merge < merges; ++merge) {
        bool parts = merge + 1u < merges;
        uint first_count = parts ? first_part : a_count;
        uint merged = parts ? a_count : slot_count;
        barrier();  // the slices are in place (and, after A's parts, every thread is done reading them)
        slot_merge_to_registers(0u, first_count, first_count, merged - first_count, min(thread * REGISTERS, merged));
        if (parts) {
            barrier();  // every thread is done reading A's parts
            [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
                uint slot = thread * REGISTERS + r;
                if (slot < merged) {
                    chunk_keys[padded(slot)] = reg_keys[r];
#ifdef WITH_VALUES
                    chunk_values[padded(slot)] = reg_values[r];
#endif
                }
            }
        }
    }
#ifdef VECTOR_IO
    if (STORE_FROM_REGISTERS && !TAKES_TAIL && params.vector_io != 0u) {
        // Uniform: no thread meets another barrier, so none waits on this one.
        store_registers_vector(runs, out_base, slot_count);
        return;
    }
#endif
    barrier();  // every thread is done reading the slices

    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint slot = thread * REGISTERS + r;
        if (slot < slot_count) {
            chunk_keys[padded(slot)] = reg_keys[r];
#ifdef WITH_VALUES
            chunk_values[padded(slot)] = reg_values[r];
#endif
        }
    }
    barrier();
    if (tail_count != 0u) {
        // Uniform; the last merge: it leaves no samples.
        store_chunk_past_tail(out_base, slot_count, tail_first, tail_count);
        return;  // the last barrier is behind every thread
    }
#ifdef RUN_SAMPLES
    if ((params.sample_runs & SAMPLES_WRITE) != 0u) {
        uint offset = sample_offset(runs.base, params.phase);
        uint region = sample_region_start(sort_chunks(CHUNK_LOG), params.phase);
        index_t first_group = out_base >> SAMPLE_LOG;
        for (uint g = thread; (g << SAMPLE_LOG) + offset < slot_count; g += threads) {
            uint slot = padded((g << SAMPLE_LOG) + offset);
#ifdef WITH_VALUES
            store_sample(region, first_group + g, chunk_keys[slot], chunk_values[slot]);
#else
            store_sample(region, first_group + g, chunk_keys[slot], 0u);
#endif
        }
    }
#endif
#ifdef VECTOR_IO
    if (params.vector_io != 0u) {
        store_chunk_vector(out_base, slot_count);
        return;  // the last barrier is behind every thread
    }
#endif
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint slot = r * threads + thread;
        if (slot < slot_count) {
            index_t index = out_base + slot;
            write_key_out(index, store_key(chunk_keys[padded(slot)]));
#ifdef WITH_VALUES
            write_value_out(index, chunk_values[padded(slot)]);
#endif
        }
    }
}
#endif
