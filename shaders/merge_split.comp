#version 450
// merge_split.comp: the split pass of big merges: one thread a chunk of the
// merged output finds, by a search in device memory, which slices of runs A
// and B hold the chunk's first key (its merge-path split), and writes it for
// the merge (merge_pass.comp) to read. For the partition sort's window merge
// (WINDOW_MERGE), it writes each chunk's cursors in the up to five runs it
// takes keys from (merge_window_split.glsl).
#define SPLITS_ONLY  // picks the includes' code for the split pass
#include "merge_common.glsl"
#include "merge_search.glsl"
#include "merge_windows.glsl"
#include "merge_tail.glsl"  // value_or_zero, for the window split
#include "merge_window_split.glsl"

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
