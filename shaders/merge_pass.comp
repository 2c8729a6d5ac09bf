#version 450
// merge_pass.comp: one merge pass (merge path). Workgroup c writes output keys
// [c << CHUNK_LOG, (c + 1) << CHUNK_LOG) of a merged run. First the whole
// workgroup finds the merge-path splits of its first and last key (which slices
// of runs A and B hold them) by a k-ary search in device memory: each round,
// SEARCH_LANES threads per split test one position each, so a run of 2^23 keys
// takes 5 rounds of loads that run at once, not 23 dependent ones (the first
// version searched in a separate dispatch, one thread per split: ~10 µs a pass
// of pure latency on the H100). Every sample reads its own cache lines, so more
// lanes (all 256 threads was tried) cost more traffic than the rounds they save. The slices come into shared memory with
// coalesced loads; each thread finds its own split inside them (a short binary
// search), merges REGISTERS keys into registers, and the chunk goes out through
// shared memory again so the stores are coalesced. One read and one write of
// every key: a whole merge phase in one pass over memory, where the network
// spends one pass per few strides.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint CHUNK_LOG = 12u;
layout(constant_id = 2) const uint SEARCH_LANES = 32u;  // threads a split search uses (see below)
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
    // The splits of diagonals first and last: how many keys of A the first
    // `first` (`last`) outputs of the merged run hold. "A[m] goes before
    // B[d - 1 - m]" is true below the split and false from it on, so each round
    // counts the positions, spread evenly over the remaining range, where it is
    // true, and the split lies between the last true and the first false one.
    uint a_base = runs.base, b_base = runs.base + runs.a_count;
    uvec2 diagonal_of = uvec2(first, last);
    uvec2 range_low = uvec2(first > runs.b_count ? first - runs.b_count : 0u, last > runs.b_count ? last - runs.b_count : 0u);
    uvec2 range_high = uvec2(min(first, runs.a_count), min(last, runs.a_count));
    uint lanes = clamp(threads / 2u, 1u, SEARCH_LANES);
    for (uint i = thread; i < 6u; i += threads)
        search_counts[i >> 1][i & 1u] = 0u;
    barrier();
    for (uint round = 0u; range_low.x < range_high.x || range_low.y < range_high.y; ++round) {  // uniform: every thread has the same ranges
        uvec2 step = (range_high - range_low + lanes - 1u) / lanes;
        for (uint side = 0u; side < 2u; ++side) {
            // One thread searches both splits when the workgroup has one thread.
            bool searching = threads == 1u || thread / lanes == side;
            uint m = range_low[side] + (thread % lanes) * step[side];
            if (searching && m < range_high[side]) {
                uint b_index = b_base + diagonal_of[side] - 1u - m;
#ifdef WITH_VALUES
                bool a_first_here = !pair_less(load_key(keys[b_index]), values[b_index], load_key(keys[a_base + m]),
                                               values[a_base + m]);
#else
                bool a_first_here = !(load_key(keys[b_index]) < load_key(keys[a_base + m]));
#endif
                if (a_first_here)
                    atomicAdd(search_counts[round % 3u][side], 1u);
            }
        }
        barrier();
        uvec2 found = uvec2(search_counts[round % 3u][0], search_counts[round % 3u][1]);
        for (uint i = thread; i < 2u; i += threads)
            search_counts[(round + 2u) % 3u][i] = 0u;
        for (uint side = 0u; side < 2u; ++side) {
            if (range_low[side] < range_high[side]) {
                uint c = found[side];
                uint new_high = min(range_low[side] + c * step[side], range_high[side]);
                range_low[side] = c == 0u ? range_low[side] : range_low[side] + (c - 1u) * step[side] + 1u;
                range_high[side] = new_high;
            }
        }
    }
    uint a_first = range_low.x;
    uint a_last = range_low.y;
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
