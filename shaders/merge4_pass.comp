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
//   past the cut: the one whose cut sums to the smallest rank. The four slices
//   are merged in shared memory in two rounds of the slot merge (runs 0 and 1,
//   runs 2 and 3, then the two results) and written at the pivot's rank. A
//   segment averages PIVOT_STEP keys on random runs (at most about 1.4 times
//   that) but may hold up to 4 x PIVOT_STEP - 3, and shared memory is what
//   limits how many workgroups a multiprocessor runs (on the H100 a version
//   with room for the longest segment in two buffers ran 8x slower than the
//   two-run merge; docs/PERFORMANCE.md, log entry 32). So the merge keeps room
//   for CAPACITY keys in one buffer (each round's results wait in registers
//   across a barrier) and lists the longer segments;
// - SPILL, the spill pass: workgroups that loop over the listed segments with
//   room for the longest (two buffers of 4 x PIVOT_STEP keys).
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

// The Splits binding holds the cuts of the group_count pivot slots, then the
// spill list: its length in cuts[group_count].x, then one slot number a word
// from cuts[group_count + 1] on.
#ifdef CUTS_ONLY
layout(std430, binding = 5) writeonly buffer Cuts { uvec4 cuts[]; };

// Thread t of workgroup w: the cut of pivot slot w x threads + t.
void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint slot = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (slot == 0u)
        cuts[params.group_count] = uvec4(0u);  // the spill list starts empty
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
layout(std430, binding = 5) buffer Cuts { uvec4 cuts[]; };

#ifdef SPILL
const uint CAPACITY = SEGMENT_KEYS;  // room for any segment
const uint BUFFERS = 2u;             // round one reads one, writes the other
#else
layout(constant_id = 2) const uint CAPACITY = 1536u;  // keys merged at once; more go to the spill list
const uint BUFFERS = 1u;
#endif
// Slots padded one word in 32, so a thread's REGISTERS consecutive slots fall
// in distinct banks.
const uint PADDED_CAPACITY = CAPACITY + (CAPACITY >> 5);
shared key_t segment_keys[BUFFERS * PADDED_CAPACITY];
#ifdef WITH_VALUES
shared uint segment_values[BUFFERS * PADDED_CAPACITY];
#endif
uint read_base;  // the buffer the slot merge reads: 0, or PADDED_CAPACITY (SPILL)

uint padded(uint i)
{
    return i + (i >> 5);
}

// Slot i of the buffer being read, clamped into it: a run's head is read one
// past its end when the run is used up, and that key is never taken.
key_t slot_key(uint i)
{
    return segment_keys[read_base + padded(min(i, CAPACITY - 1u))];
}

uint slot_value(uint i)
{
#ifdef WITH_VALUES
    return segment_values[read_base + padded(min(i, CAPACITY - 1u))];
#else
    return 0u;
#endif
}

#include "slot_merge.glsl"

void put_slot(uint base, uint slot, key_t key, uint value)
{
    segment_keys[base + padded(slot)] = key;
#ifdef WITH_VALUES
    segment_values[base + padded(slot)] = value;
#endif
}

// Keys 16 bytes a load and store where the host says the buffers allow it
// (params.vector_io), as in merge_pass.comp: four 32-bit keys or values, two
// 64-bit keys a load.
#define VECTOR_INPUT_RESTRICT restrict
#include "vector_views.glsl"

// Keys (and values) [start, start + count) into slots slot_base + (k - start)
// of buffer 0: the aligned 16-byte groups that cover them, a group a thread at
// a time; the buffer's last group may be partial, and is read key by key.
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

// Slots [0, count) of buffer 0 to KeysOut (and ValuesOut) from `start` on, any
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

// A pivot's segment: the keys of each run from its cut to the next pivot's.
struct segment {
    bool live;       // the slot holds a pivot
    uint base;       // first key of the four runs
    uint run_keys;
    uvec4 from;      // the segment's first key in each run
    uvec4 counts;    // its keys in each run
    uint rank;       // where it goes in the merged run (from base)
    uint total;
};

segment segment_of(uint slot, bool in_grid)
{
    segment seg;
    uint my_slot = in_grid ? slot : 0u;
    four_runs runs = runs_of_slot(my_slot);
    uint group_first_slot = runs.group * 4u * runs.per_run;
    uint run = (my_slot - group_first_slot) / runs.per_run;
    uint position = pivot_position(my_slot - group_first_slot - run * runs.per_run, pivot_offset(run));
    seg.live = in_grid && position < runs.lengths[run];
    seg.base = runs.base;
    seg.run_keys = runs.run_keys;
    uvec4 from = uvec4(0u), to = uvec4(0u);
    seg.rank = 0u;
    if (seg.live) {
        from = cuts[my_slot];
        seg.rank = from.x + from.y + from.z + from.w;
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
    seg.from = from;
    // At most PIVOT_STEP keys of a run on sorted runs; the clamp keeps every
    // loop short and every slot inside shared memory whatever the buffer holds
    // (runs that are not sorted give cuts that do not nest).
    seg.counts = min(max(to, from) - from, uvec4(PIVOT_STEP));
    seg.total = seg.counts.x + seg.counts.y + seg.counts.z + seg.counts.w;
    return seg;
}

void load_segment(segment seg)
{
    uint n01 = seg.counts.x + seg.counts.y;
    load_slice(seg.base + seg.from.x, seg.counts.x, 0u);
    load_slice(seg.base + seg.run_keys + seg.from.y, seg.counts.y, seg.counts.x);
    load_slice(seg.base + 2u * seg.run_keys + seg.from.z, seg.counts.z, n01);
    load_slice(seg.base + 3u * seg.run_keys + seg.from.w, seg.counts.w, n01 + seg.counts.z);
}

// Round one's unit `unit`: REGISTERS outputs of the merge of runs 0 and 1
// (slots [0, n01) of the result) or of runs 2 and 3 (slots [n01, total)),
// the units of both merges shared out over the threads. Ties take the earlier
// run, so the merge is stable. Its first output slot and how many are real.
uint merge_pair_unit(segment seg, uint unit, out uint outputs)
{
    uint n01 = seg.counts.x + seg.counts.y;
    uint units01 = (n01 + REGISTERS - 1u) / REGISTERS;
    bool first_pair = unit < units01;
    uint diagonal = (first_pair ? unit : unit - units01) * REGISTERS;
    uint a_first = first_pair ? 0u : n01, a_count = first_pair ? seg.counts.x : seg.counts.z;
    uint b_count = first_pair ? seg.counts.y : seg.counts.w;
    slot_merge_to_registers(a_first, a_count, a_first + a_count, b_count, diagonal);
    uint pair_total = a_count + b_count;
    outputs = diagonal < pair_total ? min(REGISTERS, pair_total - diagonal) : 0u;
    return a_first + diagonal;
}

uint pair_units(segment seg)
{
    uint n01 = seg.counts.x + seg.counts.y, n23 = seg.counts.z + seg.counts.w;
    return (n01 + REGISTERS - 1u) / REGISTERS + (n23 + REGISTERS - 1u) / REGISTERS;
}

void put_registers(uint buffer_base, uint first_slot, uint outputs)
{
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        if (r < outputs) {
#ifdef WITH_VALUES
            put_slot(buffer_base, first_slot + r, reg_keys[r], reg_values[r]);
#else
            put_slot(buffer_base, first_slot + r, reg_keys[r], 0u);
#endif
        }
    }
}

#ifdef SPILL
// The spill pass: workgroup w merges listed segments w, w + workgroups, ...
// with two buffers: round one from buffer 0 into buffer 1, round two back.
void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint workgroups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    uint listed = min(cuts[params.group_count].x, params.group_count);  // the same for every thread
    for (uint i = workgroup; i < listed; i += workgroups) {
        uint slot = cuts[params.group_count + 1u + (i >> 2)][i & 3u];
        segment seg = segment_of(slot, slot < params.group_count);
        load_segment(seg);
        barrier();
        read_base = 0u;
        uint units = pair_units(seg);
        for (uint unit = thread; unit < units; unit += threads) {
            uint outputs;
            uint first_slot = merge_pair_unit(seg, unit, outputs);
            put_registers(PADDED_CAPACITY, first_slot, outputs);
        }
        barrier();
        read_base = PADDED_CAPACITY;
        uint n01 = seg.counts.x + seg.counts.y;
        for (uint diagonal = thread * REGISTERS; diagonal < seg.total; diagonal += threads * REGISTERS) {
            slot_merge_to_registers(0u, n01, n01, seg.total - n01, diagonal);
            put_registers(0u, diagonal, min(REGISTERS, seg.total - diagonal));
        }
        barrier();
        store_segment(seg.base + seg.rank, seg.total);
        barrier();  // the next segment's loads reuse buffer 0
    }
}
#else
// Each round's results wait in registers across a barrier, HELD units of
// REGISTERS a thread (the tuning makes HELD x threads x REGISTERS cover
// CAPACITY and round one's ragged units).
const uint HELD = 2u;
key_t held_keys[HELD][REGISTERS];
#ifdef WITH_VALUES
uint held_values[HELD][REGISTERS];
#endif
uint held_slot[HELD], held_outputs[HELD];

void hold_registers(uint h, uint first_slot, uint outputs)
{
    held_slot[h] = first_slot;
    held_outputs[h] = outputs;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        held_keys[h][r] = reg_keys[r];
#ifdef WITH_VALUES
        held_values[h][r] = reg_values[r];
#endif
    }
}

void put_held()
{
    [[unroll]] for (uint h = 0u; h < HELD; ++h)
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r)
            if (r < held_outputs[h]) {
#ifdef WITH_VALUES
                put_slot(0u, held_slot[h] + r, held_keys[h][r], held_values[h][r]);
#else
                put_slot(0u, held_slot[h] + r, held_keys[h][r], 0u);
#endif
            }
}

void main()
{
    live_count = key_count();
    uint slot = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    segment seg = segment_of(slot, slot < params.group_count);
    if (seg.total > CAPACITY) {
        if (thread == 0u) {
            uint at = atomicAdd(cuts[params.group_count].x, 1u);
            cuts[params.group_count + 1u + (at >> 2)][at & 3u] = slot;
        }
        return;  // the whole workgroup: the spill pass merges this segment
    }
    load_segment(seg);
    barrier();
    read_base = 0u;
    uint units = pair_units(seg);
    [[unroll]] for (uint h = 0u; h < HELD; ++h) {
        uint unit = thread + h * threads, outputs = 0u, first_slot = 0u;
        if (unit < units)
            first_slot = merge_pair_unit(seg, unit, outputs);
        hold_registers(h, first_slot, outputs);
    }
    barrier();  // every thread is done reading the slices
    put_held();
    barrier();
    uint n01 = seg.counts.x + seg.counts.y;
    [[unroll]] for (uint h = 0u; h < HELD; ++h) {
        uint diagonal = (thread + h * threads) * REGISTERS, outputs = 0u;
        if (diagonal < seg.total) {
            slot_merge_to_registers(0u, n01, n01, seg.total - n01, diagonal);
            outputs = min(REGISTERS, seg.total - diagonal);
        }
        hold_registers(h, diagonal, outputs);
    }
    barrier();
    put_held();
    barrier();
    store_segment(seg.base + seg.rank, seg.total);
}
#endif
#endif
