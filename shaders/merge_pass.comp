#version 450
// merge_pass.comp: one merge pass (merge path) through shared memory:
// workgroup c writes output keys [c << CHUNK_LOG, (c + 1) << CHUNK_LOG) of a
// merged run. It needs the merge-path splits of its first and last key (which
// slices of runs A and B hold them): read from a split pass (merge_split.comp),
// or for small merges found here by a k-ary search (SEARCH_LANES threads a
// split, one position each a round). The slices come into shared memory 16
// bytes a load where the buffers allow it; each thread finds its own split
// inside them, merges REGISTERS keys into registers, and the chunk goes out
// through shared memory again, 16 bytes a store. One read and one write of
// every key: a whole merge phase in one pass over memory, where the network
// spends one pass per few strides. merge_direct.comp is the merge without
// shared memory.
// - The partition sort's window merge (WINDOW_MERGE, a specialisation constant
//   of the merge and of the split pass, bound buffers): runs of W = 2^phase
//   sorted, each chunk of the output merges pieces of up to five runs as
//   three (window_cursor_at in merge_window_split.glsl;
//   src/cpu/reference_partition.h, step 4). Every other merge's pipeline
//   has it false, so its code is the same as without.
// Built with LANE_SEARCH (devices with subgroup ballots), the merge's own
// split searches on run samples take a subgroup a split: every lane tests one
// position a round and a ballot counts the answers, a (lanes + 1)-ary search
// with no barrier, where one thread's 3-probe rounds take about twice the
// rounds (lane_merge_path_search in merge_search.glsl).
#ifdef LANE_SEARCH
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "merge_common.glsl"
#include "merge_search.glsl"
#include "merge_windows.glsl"
#include "merge_tail.glsl"

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
