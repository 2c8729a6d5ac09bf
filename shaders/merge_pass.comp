#version 450
// merge_pass.comp: one merge pass (merge path). Workgroup c writes output keys
// [c << CHUNK_LOG, (c + 1) << CHUNK_LOG) of a merged run. First it needs the
// merge-path splits of its first and last key (which slices of runs A and B
// hold them): found here by a k-ary search in device memory (SEARCH_LANES
// threads per split test one position each a round, so a run of 2^23 keys takes
// 5 rounds of loads that run at once, not 23 dependent ones), or, for big
// merges, read from a split pass built from this file with SPLITS_ONLY. Every
// sample reads its own cache lines, so more lanes (all 256 threads was tried)
// cost more traffic than the rounds they save. The slices come into shared
// memory with coalesced loads; each thread finds its own split inside them (a
// short binary search), merges REGISTERS keys into registers, and the chunk goes
// out through shared memory again so the stores are coalesced. One read and one
// write of every key: a whole merge phase in one pass over memory, where the
// network spends one pass per few strides.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CHUNK_LOG = 12u;
layout(constant_id = 2) const uint SEARCH_LANES = 32u;  // threads a split search uses (see find_split)
layout(constant_id = 3) const uint SEARCH_SIDES = 2u;   // searches a workgroup runs at once: 2 in a merge
const uint REGISTERS = 1u << REGISTER_LOG;
const uint CHUNK_KEYS = 1u << CHUNK_LOG;

#include "network.glsl"
#include "merge_common.glsl"

// Padded one word in 32: thread t's REGISTERS consecutive slots then fall in
// distinct banks across a subgroup.
shared key_t chunk_keys[CHUNK_KEYS + (CHUNK_KEYS >> 5)];
#ifdef WITH_VALUES
shared uint chunk_values[CHUNK_KEYS + (CHUNK_KEYS >> 5)];
#endif

// Splits found by a separate pass (SPLITS_ONLY, below), when the merge is big
// enough that searching inside every merge workgroup costs more than a dispatch.
#ifdef SPLITS_ONLY
layout(std430, binding = 5) writeonly buffer Splits { uint splits[]; };
#else
layout(std430, binding = 5) readonly buffer Splits { uint splits[]; };
#endif

// Found-true counts of the split searches, one per search a round, three
// rounds deep: a round adds to its own row while the row of two rounds ahead is
// cleared, so one barrier a round keeps adds, reads and clears apart.
shared uint search_counts[3][SEARCH_SIDES];
shared uint found_splits[2];  // a merge workgroup's two splits, for all its threads

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

// Sample t of `lanes` that cut [low, high) into lanes + 1 near-equal parts:
// one lane is a binary search, 32 lanes a 33-ary one. Samples may repeat when
// the range is short; they stay in order and below high. No overflow: the
// range is split before it is multiplied.
uint sample_position(uint low, uint high, uint lanes, uint t)
{
    uint range = high - low, parts = lanes + 1u;
    return low + (range / parts) * (t + 1u) + (range % parts) * (t + 1u) / parts;
}

// The workgroup runs SEARCH_SIDES merge-path searches side by side, SEARCH_LANES
// threads each (the threads past them only keep the barriers). The search of
// this thread's side finds how many keys of run A (at a_base, a_count long,
// followed by run B, b_count long) the first `diagonal` outputs of their merge
// hold. "A[m] goes before B[d - 1 - m]" is true below that split and false from
// it on, so each round counts the samples where it is true and the split lies
// after the last true one and at or before the first false one. Each round
// divides the range by SEARCH_LANES + 1 at least, so the round count follows
// from the longest run (max_range) and is the same for every thread.
uint find_split(uint diagonal, uint a_base, uint a_count, uint b_count, uint max_range)
{
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;
    uint side = thread / SEARCH_LANES, lane = thread % SEARCH_LANES;
    bool searching = side < SEARCH_SIDES;
    uint low = diagonal > b_count ? diagonal - b_count : 0u;
    uint high = searching ? min(diagonal, a_count) : low;
    uint rounds = 0u;
    for (uint left = max_range; left > 0u; left /= SEARCH_LANES + 1u)
        ++rounds;
    for (uint i = thread; i < 3u * SEARCH_SIDES; i += threads)
        search_counts[i / SEARCH_SIDES][i % SEARCH_SIDES] = 0u;
    barrier();
    for (uint round = 0u; round < rounds; ++round) {
        if (low < high) {
            uint m = sample_position(low, high, SEARCH_LANES, lane);
            uint a_index = a_base + m;
            uint b_index = a_base + a_count + diagonal - 1u - m;
#ifdef WITH_VALUES
            bool a_first_here = !pair_less(load_key(keys[b_index]), values[b_index], load_key(keys[a_index]),
                                           values[a_index]);
#else
            bool a_first_here = !(load_key(keys[b_index]) < load_key(keys[a_index]));
#endif
            if (a_first_here)
                atomicAdd(search_counts[round % 3u][side], 1u);
        }
        barrier();
        uint found = low < high ? search_counts[round % 3u][side] : 0u;
        for (uint i = thread; i < SEARCH_SIDES; i += threads)
            search_counts[(round + 2u) % 3u][i] = 0u;
        if (low < high) {
            uint new_high = found == SEARCH_LANES ? high : sample_position(low, high, SEARCH_LANES, found);
            if (found > 0u)
                low = sample_position(low, high, SEARCH_LANES, found - 1u) + 1u;
            high = new_high;
        }
    }
    return low;
}

#ifdef SPLITS_ONLY
// The split pass: workgroup w finds the split of the first key of chunks
// w * SEARCH_SIDES + side for the merge pass that follows.
void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint side = gl_LocalInvocationID.x / SEARCH_LANES;
    uint chunk = workgroup * SEARCH_SIDES + side;
    bool active_chunk = side < SEARCH_SIDES && chunk < params.group_count;
    uint position = chunk << CHUNK_LOG;
    merge_runs runs = runs_of(active_chunk ? position : 0u, params.phase);
    uint total = active_chunk ? runs.a_count + runs.b_count : 0u;
    uint split = find_split(min(position - runs.base, total), runs.base, active_chunk ? runs.a_count : 0u,
                            active_chunk ? runs.b_count : 0u, 1u << (params.phase - 1u));
    if (active_chunk && gl_LocalInvocationID.x % SEARCH_LANES == 0u)
        splits[chunk] = split;
}
#else
void main()
{
    live_count = key_count();
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool active_chunk = chunk < params.group_count;
    uint position = chunk << CHUNK_LOG;
    merge_runs runs = runs_of(active_chunk ? position : 0u, params.phase);
    uint total = active_chunk ? runs.a_count + runs.b_count : 0u;
    uint first = min(position - runs.base, total);
    uint last = min(first + CHUNK_KEYS, total);
    // The splits of the chunk's first and last key: from the split pass when
    // there was one (the last chunk of a merged run uses all of A), else found here.
    uint a_first, a_last;
    if (params.splits_given != 0u) {
        a_first = !active_chunk ? 0u : first < total ? splits[chunk] : runs.a_count;
        a_last = !active_chunk ? 0u : last < total ? splits[chunk + 1u] : runs.a_count;
    } else {
        // Side 0 searches the first key's diagonal, side 1 the last's.
        uint side = thread / SEARCH_LANES;
        uint split = find_split(side == 0u ? first : last, runs.base, runs.a_count, runs.b_count,
                                1u << (params.phase - 1u));
        if (thread % SEARCH_LANES == 0u && side < 2u)
            found_splits[side] = split;
        barrier();
        a_first = found_splits[0];
        a_last = found_splits[1];
    }
    uint a_count = a_last - a_first;              // keys of A in this chunk
    uint slot_count = last - first;               // keys of the chunk
    uint a_start = runs.base + a_first;
    uint b_start = runs.base + runs.a_count + (first - a_first);

    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint i = r * threads + thread;
        if (i < slot_count) {
            uint index = i < a_count ? a_start + i : b_start + (i - a_count);
            chunk_keys[padded(i)] = load_key(keys[index]);
#ifdef WITH_VALUES
            chunk_values[padded(i)] = values[index];
#endif
        }
    }
    barrier();

    // This thread's outputs: diagonal thread * REGISTERS of the two slices.
    uint b_count = slot_count - a_count;
    uint diagonal = min(thread * REGISTERS, slot_count);
    uint low = diagonal > b_count ? diagonal - b_count : 0u;
    uint high = min(diagonal, a_count);
    while (low < high) {
        uint mid = (low + high) >> 1;
        uint b_slot = a_count + diagonal - 1u - mid;
        if (!KEY_BEFORE(slot_key(b_slot), slot_value(b_slot), slot_key(mid), slot_value(mid)))
            low = mid + 1u;
        else
            high = mid;
    }
    uint i = low;                       // next of A (slot i)
    uint j = diagonal - low;            // next of B (slot a_count + j)
    key_t key_a = slot_key(i), key_b = slot_key(a_count + j);
    uint value_a = slot_value(i), value_b = slot_value(a_count + j);
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        bool take_a = i < a_count && (j >= b_count || !KEY_BEFORE(key_b, value_b, key_a, value_a));
        reg_keys[r] = take_a ? key_a : key_b;
#ifdef WITH_VALUES
        reg_values[r] = take_a ? value_a : value_b;
#endif
        // One shared read a key: the head that was taken is refilled.
        uint next = take_a ? i + 1u : a_count + j + 1u;
        key_t next_key = slot_key(next);
        uint next_value = slot_value(next);
        key_a = take_a ? next_key : key_a;
        value_a = take_a ? next_value : value_a;
        key_b = take_a ? key_b : next_key;
        value_b = take_a ? value_b : next_value;
        i += take_a ? 1u : 0u;
        j += take_a ? 0u : 1u;
    }
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
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint slot = r * threads + thread;
        if (slot < slot_count) {
            uint index = runs.base + first + slot;
            keys_out[index] = store_key(chunk_keys[padded(slot)]);
#ifdef WITH_VALUES
            values_out[index] = chunk_values[padded(slot)];
#endif
        }
    }
}
#endif
