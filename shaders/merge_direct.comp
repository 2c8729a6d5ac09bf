#version 450
// merge_direct.comp: the merge without shared memory, for small sorts: each
// thread finds its own merge-path split in device memory and merges its keys
// through the cache, one read and one write of every key.
#define DIRECT_MERGE  // picks the includes' code for the merge without shared memory
#include "merge_common.glsl"
#include "merge_search.glsl"
#include "merge_windows.glsl"
#include "merge_tail.glsl"

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
