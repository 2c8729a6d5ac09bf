#version 450
// merge4_pass.comp: one pass that merges four sorted runs of 2^(phase-2) keys
// into one of 2^phase, so a sort needs half the passes over memory of the
// two-run merge (merge_pass.comp). src/cpu/reference_executor.c
// (bitonic_reference_merge_four_runs) does the same on the CPU and its tests
// check the scheme; keep the two in step. Built two ways:
// - CUTS_ONLY, the cut pass: one thread a pivot. Pivots are the first key of
//   each run and every PIVOT_STEP-th key from an offset of run x PIVOT_STEP / 4
//   (staggered, so the four runs' pivots interleave). A pivot's cut is how many
//   keys of each run go before it in the order (key, run, index): three binary
//   searches, independent of each other, stepped together.
// - the merge: one workgroup a pivot. Its segment runs from its cut to the cut
//   of the next pivot in the order, which is the first pivot of some run at or
//   past the cut: the one whose cut sums to the smallest rank. No run holds
//   PIVOT_STEP keys of a segment, so it fits 4 x PIVOT_STEP slots of shared
//   memory. The four slices are merged there in two rounds of the slot merge
//   (runs 0 and 1, runs 2 and 3, then the two results) and written at the
//   pivot's rank.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint PIVOT_STEP_LOG = 10u;
const uint REGISTERS = 1u << REGISTER_LOG;
const uint PIVOT_STEP = 1u << PIVOT_STEP_LOG;
const uint SEGMENT_KEYS = 4u * PIVOT_STEP;

#define KEYS_READONLY  // merges read one side and write the other (KeysOut)
#include "network.glsl"

#ifdef WIDE_ADDRESSING
#error "the four-run merge is built with bound buffers only"
#endif

// key x (with value) before key y in the sort order: by key, then by value.
#ifdef WITH_VALUES
#define KEY_BEFORE(kx, vx, ky, vy) pair_less(kx, vx, ky, vy)
#else
#define KEY_BEFORE(kx, vx, ky, vy) ((kx) < (ky))
#endif

// Where the pivots of run r sit: slot 0 is its first key, slot k > 0 the key
// at k x PIVOT_STEP - offset(r). Two neighbouring pivots of a run are at most
// PIVOT_STEP apart.
uint pivot_offset(uint run)
{
    return run * (PIVOT_STEP >> 2);
}

uint pivot_position(uint slot, uint offset)
{
    return slot == 0u ? 0u : (slot << PIVOT_STEP_LOG) - offset;
}

// The slot of the first pivot of a run at index c or after it.
uint pivot_slot_at_or_after(uint c, uint offset)
{
    return c == 0u ? 0u : (c + offset + PIVOT_STEP - 1u) >> PIVOT_STEP_LOG;
}

// The four runs a pivot slot belongs to. Slots are numbered group by group,
// run by run: per_run slots a run (what its most staggered run needs).
struct four_runs {
    uint run_keys;   // 2^(phase-2)
    uint per_run;    // pivot slots a run
    uint group;
    uint base;       // first key of run 0
    uvec4 lengths;   // keys of each run (the last group's may be short or empty)
};

four_runs runs_of_slot(uint slot)
{
    four_runs runs;
    runs.run_keys = 1u << (params.phase - 2u);
    runs.per_run = ((runs.run_keys - 1u + pivot_offset(3u)) >> PIVOT_STEP_LOG) + 1u;
    runs.group = slot / (4u * runs.per_run);
    runs.base = runs.group * 4u * runs.run_keys;
    [[unroll]] for (uint r = 0u; r < 4u; ++r) {
        uint start = runs.base + r * runs.run_keys;
        runs.lengths[r] = start < live_count ? min(live_count - start, runs.run_keys) : 0u;
    }
    return runs;
}

#ifdef CUTS_ONLY
layout(std430, binding = 5) writeonly buffer Cuts { uvec4 cuts[]; };

// Thread t of workgroup w: the cut of pivot slot w x threads + t.
void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint slot = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (slot >= params.group_count)
        return;  // no barrier in this kernel: an idle thread may leave
    four_runs runs = runs_of_slot(slot);
    uint in_group = slot - runs.group * 4u * runs.per_run;
    uint run = in_group / runs.per_run;
    uint position = pivot_position(in_group - run * runs.per_run, pivot_offset(run));
    if (position >= runs.lengths[run]) {
        cuts[slot] = uvec4(0u);  // no such pivot: the merge skips the slot
        return;
    }
    uint pivot_index = runs.base + run * runs.run_keys + position;
    key_t pivot = load_key(read_key(pivot_index));
#ifdef WITH_VALUES
    uint pivot_value = read_value(pivot_index);
#else
    uint pivot_value = 0u;
#endif
    // found[q]: keys of run q known to go before the pivot, grown by halving
    // steps (the runs are at most run_keys long), the three searches' loads
    // issued together each step. Keys of an earlier run go before the pivot
    // when at or below it, of a later run when below it.
    uvec4 found = uvec4(0u);
    for (uint step = runs.run_keys; step > 0u; step >>= 1) {
        [[unroll]] for (uint q = 0u; q < 4u; ++q) {
            uint probe = found[q] + step;
            if (q != run && probe <= runs.lengths[q]) {
                uint index = runs.base + q * runs.run_keys + probe - 1u;
                key_t key = load_key(read_key(index));
#ifdef WITH_VALUES
                uint value = read_value(index);
#else
                uint value = 0u;
#endif
                bool before = q < run ? !KEY_BEFORE(pivot, pivot_value, key, value)
                                      : KEY_BEFORE(key, value, pivot, pivot_value);
                if (before)
                    found[q] = probe;
            }
        }
    }
    found[run] = position;
    cuts[slot] = found;
}
#else
layout(std430, binding = 5) readonly buffer Cuts { uvec4 cuts[]; };

// Two halves of SEGMENT_KEYS slots, padded one word in 32 so a thread's
// REGISTERS consecutive slots fall in distinct banks: the slices come into
// half 0, round one merges them into half 1, round two back into half 0.
const uint PADDED_SEGMENT = SEGMENT_KEYS + (SEGMENT_KEYS >> 5);
shared key_t segment_keys[2u * PADDED_SEGMENT];
#ifdef WITH_VALUES
shared uint segment_values[2u * PADDED_SEGMENT];
#endif
uint read_half;  // 0 or PADDED_SEGMENT: the half the slot merge reads

uint padded(uint i)
{
    return i + (i >> 5);
}

// Slot i of the half being read, clamped into it: a run's head is read one
// past its end when the run is used up, and that key is never taken.
key_t slot_key(uint i)
{
    return segment_keys[read_half + padded(min(i, SEGMENT_KEYS - 1u))];
}

uint slot_value(uint i)
{
#ifdef WITH_VALUES
    return segment_values[read_half + padded(min(i, SEGMENT_KEYS - 1u))];
#else
    return 0u;
#endif
}

#include "slot_merge.glsl"

void put_slot(uint half_base, uint slot, key_t key, uint value)
{
    segment_keys[half_base + padded(slot)] = key;
#ifdef WITH_VALUES
    segment_values[half_base + padded(slot)] = value;
#endif
}

// Keys 16 bytes a load and store where the host says the buffers allow it
// (params.vector_io), as in merge_pass.comp: four 32-bit keys or values, two
// 64-bit keys a load.
layout(std430, binding = 6) readonly restrict buffer Keys4 { uvec4 keys4[]; };
layout(std430, binding = 7) writeonly buffer KeysOut4 { uvec4 keys_out4[]; };
#ifdef WITH_VALUES
layout(std430, binding = 8) readonly restrict buffer Values4 { uvec4 values4[]; };
layout(std430, binding = 9) writeonly buffer ValuesOut4 { uvec4 values_out4[]; };
#endif
#ifdef KEY64
const uint KEYS_PER_VECTOR = 2u;
key_t vector_key(uvec4 four, uint e)
{
    return packUint2x32(e == 0u ? four.xy : four.zw);
}
#else
const uint KEYS_PER_VECTOR = 4u;
key_t vector_key(uvec4 four, uint e)
{
    return four[e];
}
#endif

// Keys (and values) [start, start + count) into slots slot_base + (k - start)
// of half 0: the aligned 16-byte groups that cover them, a group a thread at a
// time; the buffer's last group may be partial, and is read key by key.
void load_slice(uint start, uint count, uint slot_base)
{
    if (count == 0u)
        return;
    uint end = start + count;
    if (params.vector_io == 0u) {
        for (uint k = start + gl_LocalInvocationID.x; k < end; k += gl_WorkGroupSize.x) {
            segment_keys[padded(slot_base + (k - start))] = load_key(read_key(k));
#ifdef WITH_VALUES
            segment_values[padded(slot_base + (k - start))] = read_value(k);
#endif
        }
        return;
    }
    uint whole_groups = recorded_count() / KEYS_PER_VECTOR;
    for (uint g = start / KEYS_PER_VECTOR + gl_LocalInvocationID.x; g <= (end - 1u) / KEYS_PER_VECTOR;
         g += gl_WorkGroupSize.x) {
        uvec4 four = g < whole_groups ? keys4[g] : uvec4(0u);
        [[unroll]] for (uint e = 0u; e < KEYS_PER_VECTOR; ++e) {
            uint k = g * KEYS_PER_VECTOR + e;
            if (k >= start && k < end)
                segment_keys[padded(slot_base + (k - start))] =
                    load_key(g < whole_groups ? vector_key(four, e) : read_key(k));
        }
    }
#ifdef WITH_VALUES
    uint whole_value_groups = recorded_count() >> 2;
    for (uint g = (start >> 2) + gl_LocalInvocationID.x; g <= (end - 1u) >> 2; g += gl_WorkGroupSize.x) {
        uvec4 four = g < whole_value_groups ? values4[g] : uvec4(0u);
        [[unroll]] for (uint e = 0u; e < 4u; ++e) {
            uint k = g * 4u + e;
            if (k >= start && k < end)
                segment_values[padded(slot_base + (k - start))] = g < whole_value_groups ? four[e] : read_value(k);
        }
    }
#endif
}

// Slots [0, count) of half 0 to KeysOut (and ValuesOut) from `start` on, any
// alignment: the keys before the first whole 16-byte group and after the last
// one a key at a time, the groups between 16 bytes a store.
void store_segment(uint start, uint count)
{
    uint end = start + count;
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    uint first_group = (start + KEYS_PER_VECTOR - 1u) / KEYS_PER_VECTOR;  // the first whole group
    uint end_group = end / KEYS_PER_VECTOR;                                // past the last whole one
    if (params.vector_io == 0u || first_group >= end_group) {
        for (uint slot = thread; slot < count; slot += threads)
            write_key_out(start + slot, store_key(segment_keys[padded(slot)]));
    } else {
        for (uint g = first_group + thread; g < end_group; g += threads) {
            uint slot = g * KEYS_PER_VECTOR - start;
#ifdef KEY64
            keys_out4[g] = uvec4(unpackUint2x32(store_key(segment_keys[padded(slot)])),
                                 unpackUint2x32(store_key(segment_keys[padded(slot + 1u)])));
#else
            keys_out4[g] = uvec4(store_key(segment_keys[padded(slot)]), store_key(segment_keys[padded(slot + 1u)]),
                                 store_key(segment_keys[padded(slot + 2u)]), store_key(segment_keys[padded(slot + 3u)]));
#endif
        }
        // The ragged ends: fewer than KEYS_PER_VECTOR keys each.
        uint head = first_group * KEYS_PER_VECTOR - start, tail_from = end_group * KEYS_PER_VECTOR - start;
        for (uint slot = thread; slot < head; slot += threads)
            write_key_out(start + slot, store_key(segment_keys[padded(slot)]));
        for (uint slot = tail_from + thread; slot < count; slot += threads)
            write_key_out(start + slot, store_key(segment_keys[padded(slot)]));
    }
#ifdef WITH_VALUES
    uint first_value_group = (start + 3u) >> 2, end_value_group = end >> 2;
    if (params.vector_io == 0u || first_value_group >= end_value_group) {
        for (uint slot = thread; slot < count; slot += threads)
            write_value_out(start + slot, segment_values[padded(slot)]);
    } else {
        for (uint g = first_value_group + thread; g < end_value_group; g += threads) {
            uint slot = g * 4u - start;
            values_out4[g] = uvec4(segment_values[padded(slot)], segment_values[padded(slot + 1u)],
                                   segment_values[padded(slot + 2u)], segment_values[padded(slot + 3u)]);
        }
        uint head = first_value_group * 4u - start, tail_from = end_value_group * 4u - start;
        for (uint slot = thread; slot < head; slot += threads)
            write_value_out(start + slot, segment_values[padded(slot)]);
        for (uint slot = tail_from + thread; slot < count; slot += threads)
            write_value_out(start + slot, segment_values[padded(slot)]);
    }
#endif
}

// The registers of slot_merge_to_registers() into the half not being read:
// outputs diagonal .. of a merge whose output starts at slot out_base and
// holds out_count keys.
void put_registers(uint out_base, uint out_count, uint diagonal)
{
    uint write_half = PADDED_SEGMENT - read_half;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        if (diagonal + r < out_count) {
#ifdef WITH_VALUES
            put_slot(write_half, out_base + diagonal + r, reg_keys[r], reg_values[r]);
#else
            put_slot(write_half, out_base + diagonal + r, reg_keys[r], 0u);
#endif
        }
    }
}

void main()
{
    live_count = key_count();
    uint slot = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool in_grid = slot < params.group_count;
    uint my_slot = in_grid ? slot : 0u;
    four_runs runs = runs_of_slot(my_slot);
    uint group_first_slot = runs.group * 4u * runs.per_run;
    uint run = (my_slot - group_first_slot) / runs.per_run;
    uint position = pivot_position(my_slot - group_first_slot - run * runs.per_run, pivot_offset(run));
    bool live = in_grid && position < runs.lengths[run];
    // The segment: from this pivot's cut to the next pivot's (or the runs' ends).
    uvec4 from = uvec4(0u), to = uvec4(0u);
    uint rank = 0u;
    if (live) {
        from = cuts[slot];
        rank = from.x + from.y + from.z + from.w;
        to = runs.lengths;
        uint next_rank = 0xffffffffu;
        [[unroll]] for (uint q = 0u; q < 4u; ++q) {
            uint offset = pivot_offset(q);
            uint k = pivot_slot_at_or_after(q == run ? position + 1u : from[q], offset);
            if (pivot_position(k, offset) < runs.lengths[q]) {
                uvec4 candidate = cuts[group_first_slot + q * runs.per_run + k];
                uint candidate_rank = candidate.x + candidate.y + candidate.z + candidate.w;
                if (candidate_rank < next_rank) {
                    next_rank = candidate_rank;
                    to = candidate;
                }
            }
        }
    }
    uvec4 counts = to - from;
    uint n01 = counts.x + counts.y, n23 = counts.z + counts.w, total = n01 + n23;
    uint run_start = runs.base;
    load_slice(run_start + from.x, counts.x, 0u);
    load_slice(run_start + runs.run_keys + from.y, counts.y, counts.x);
    load_slice(run_start + 2u * runs.run_keys + from.z, counts.z, n01);
    load_slice(run_start + 3u * runs.run_keys + from.w, counts.w, n01 + counts.z);
    barrier();

    // Round one: runs 0 and 1 into slots [0, n01) of half 1, runs 2 and 3 into
    // [n01, total); REGISTERS outputs a unit, the units of both merges shared
    // out over the threads. Ties take the earlier run, so the merge is stable.
    read_half = 0u;
    uint units01 = (n01 + REGISTERS - 1u) / REGISTERS, units = units01 + (n23 + REGISTERS - 1u) / REGISTERS;
    for (uint unit = thread; unit < units; unit += threads) {
        bool first_pair = unit < units01;
        uint diagonal = (first_pair ? unit : unit - units01) * REGISTERS;
        if (first_pair) {
            slot_merge_to_registers(0u, counts.x, counts.x, counts.y, diagonal);
            put_registers(0u, n01, diagonal);
        } else {
            slot_merge_to_registers(n01, counts.z, n01 + counts.z, counts.w, diagonal);
            put_registers(n01, n23, diagonal);
        }
    }
    barrier();

    // Round two: the two merged pairs into half 0.
    read_half = PADDED_SEGMENT;
    for (uint diagonal = thread * REGISTERS; diagonal < total; diagonal += threads * REGISTERS) {
        slot_merge_to_registers(0u, n01, n01, n23, diagonal);
        put_registers(0u, total, diagonal);
    }
    barrier();
    store_segment(run_start + rank, total);
}
#endif
