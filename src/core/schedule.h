/* schedule.h: the bitonic sorting network as a short list of passes.
 *
 * The network is the "flip" form of bitonic sort over a virtual length N, the
 * next power of two at or above the count n. Merge phase p (1..log2 N) works on
 * blocks of B = 2^p keys: its first step compares key x with x ^ (B-1) (the
 * mirror position in the block: the flip), each later step compares x with
 * x ^ s for the strides s = B/4, ..., 1. Every comparator puts the smaller key
 * at the lower index, so positions at or past n behave as +infinity and never
 * move: a comparator whose upper index is >= n is skipped and nothing is padded.
 *
 * A pass is one dispatch. Steps are executed in "step groups": r consecutive
 * steps of one phase whose 2^r keys (spaced by the smallest stride) sit in one
 * thread's registers. A TILE pass sorts or merges a tile of 2^tile_log keys on
 * chip, through every step whose stride is below the tile. A GLOBAL pass runs r
 * steps with strides at or above the tile straight from memory. Every executor
 * (the Vulkan shaders and the C reference executor) runs this same list and
 * addresses keys through bitonic_group_key_index().
 *
 * Above the tile there is a second way to finish, which trades the network's
 * log2(N/tile) * (log2(N/tile) + 3) / 2 passes for log2(N/tile): after the tile
 * sort, each MERGE pass merges neighbouring sorted runs of 2^(phase-1) keys into
 * runs of 2^phase (merge path: every output position finds its source by a
 * binary search on a diagonal, so the work splits evenly whatever the data).
 * A merge cannot run in place, so executors ping-pong between the keys and a
 * scratch copy; stable on ties (the earlier run first).
 *
 * A third way, the transpose of the seeds (the DirectX 11 and C++ AMP samples),
 * keeps the network but brings its large strides on chip: the keys are viewed
 * as a matrix of 2^column_log columns, so stride 2^j (j >= column_log) is a
 * stride of 2^(j - column_log) rows. A TRANSPOSE pass copies the keys into the
 * scratch buffer in column-major order (the "view"), a TILE pass with a view
 * runs those steps there as in-tile strides, and a TRANSPOSE pass copies them
 * back; the strides below the tile then run in an ordinary TILE pass. The flip
 * pairs column c with column 2^column_log - 1 - c, so the view stores the upper
 * half of every block of the phase with its columns mirrored: the flip's two
 * keys then share a column and the view runs exactly the flip-form network
 * (every comparator still puts the smaller key at the lower original index, so
 * positions past n stay +infinity and are never stored: see bitonic_view_index).
 */
#ifndef BITONIC_SCHEDULE_H
#define BITONIC_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

/* Enough for the pure network (one step per pass) of 2^32 keys: 32 * 33 / 2. */
#define BITONIC_SCHEDULE_MAX_PASSES 528u
#define BITONIC_MAX_STEP_GROUP_LOG 5u

typedef enum bitonic_pass_kind {
    BITONIC_PASS_TILE = 0,
    BITONIC_PASS_GLOBAL = 1,
    BITONIC_PASS_MERGE = 2,
    BITONIC_PASS_TRANSPOSE = 3,
} bitonic_pass_kind;

typedef struct bitonic_pass {
    bitonic_pass_kind kind;
    uint32_t phase;        /* log2 of the merge block of this pass's first step; MERGE: of the merged runs */
    uint32_t stride_log;   /* log2 of the first step's stride; phase - 1 means the flip */
    uint32_t last_phase;   /* TILE: runs every step below the tile through the end of this phase;
                            * MERGE: phase, or phase + 1 for a merge that also takes in the tail
                            * (bitonic_schedule_params.merge_tail_log) and so ends the sort */
    uint32_t step_count;   /* GLOBAL: steps in this pass, strides stride_log down to stride_log - step_count + 1 */
    uint32_t group_count;  /* GLOBAL: register groups holding at least one key below n; TILE: tiles;
                            * MERGE: merged runs holding at least one key; TRANSPOSE: rows of the matrix
                            * holding at least one key below n */
    /* The transposed view (TRANSPOSE passes, and TILE passes that run in it;
     * 0 for every other pass): the virtual keys as 2^view_row_log rows of
     * 2^view_column_log columns, stored column by column in the scratch buffer.
     * A TILE pass with a view counts its phase and strides in view indices, in
     * which the stride 2^j of the network is 2^(j - view_column_log). */
    uint32_t view_column_log;
    uint32_t view_row_log;
    uint32_t view_mirror_phase;  /* not 0: the flip of this phase runs in the view (columns mirrored) */
    bool to_view;                /* TRANSPOSE: keys to the view (true) or back (false) */
    /* TILE: the whole sort in one tile (group_count 1; bitonic_schedule_params.
     * tile_tail_log): keys 0 .. 2^last_phase - 1 sorted as by any tile pass, and
     * the keys past them, the tail, sorted apart and placed among them. */
    bool tile_tail;
} bitonic_pass;

typedef struct bitonic_schedule_params {
    uint32_t tile_log;            /* 0: no tile passes (every step is global) */
    uint32_t max_global_steps;    /* steps per GLOBAL pass, 1..BITONIC_MAX_STEP_GROUP_LOG */
    /* 0: sort the whole array. Else stop after this merge phase: every aligned
     * block of 2^last_phase keys ends sorted on its own (batched rows). */
    uint32_t last_phase;
    /* Phases above the tile as MERGE passes instead of the network (needs
     * tile_log > 0; ignored with last_phase, whose rows are not aligned runs). */
    bool merge_above_tile;
    /* Phases above the tile with their large strides in the transposed view
     * (TRANSPOSE, view TILE, TRANSPOSE) instead of GLOBAL passes (needs
     * tile_log > 0; ignored with last_phase or merge_above_tile). */
    bool transpose_above_tile;
    /* 0: none. Else, merging above the tile, a count of 2^q + m keys with m at
     * most 2^merge_tail_log and at most 2^(q-1) skips the merge of phase q + 1:
     * the tail (keys 2^q and up, one sorted run after phase q - 1) is merged in
     * by the merge of phase q, whose last_phase says so. Each key of the tail
     * finds its place by a search in both runs of that merge, and each of their
     * keys moves up by the tail keys before it; ties go to the earlier runs, as
     * in every merge. One pass fewer for counts just past a power of two. */
    uint32_t merge_tail_log;
    /* 0: none. Else a count of 2^q + m keys, 2^q at most a tile, m at most
     * 2^tile_tail_log and at most 2^(q-1), is one TILE pass (tile_tail) that
     * sorts the first 2^q keys and places the tail: the tail's keys sorted
     * among themselves, each key of the 2^q moves up by the tail keys below it
     * and each tail key by the keys of the 2^q at or below it (ties go to the
     * 2^q, the earlier run). No tile of 2^(q+1) keys, no merge: 2^12 + 1 keys
     * sort in the dispatch of 2^12. Not with last_phase (rows). */
    uint32_t tile_tail_log;
} bitonic_schedule_params;

/* Smallest p with 2^p >= count (0 for count <= 1). */
uint32_t bitonic_ceil_log2(uint64_t count);

/* Builds the passes that sort count keys. Returns the number of passes, which
 * is at most capacity (BITONIC_SCHEDULE_MAX_PASSES always suffices), or
 * UINT32_MAX if params are invalid or capacity is too small. count <= 1 gives 0. */
uint32_t bitonic_schedule_build(uint64_t count, const bitonic_schedule_params *params,
                                bitonic_pass *passes, uint32_t capacity);

/* One step group: r steps of phase p from stride 2^stride_log down, its keys held
 * by one thread as registers 0 .. 2^register_log - 1 (register_log >= r; the
 * registers above bit r are independent copies of the group, side by side). */
typedef struct bitonic_step_group {
    uint32_t phase;
    uint32_t stride_log;
    uint32_t step_count;
    uint32_t register_log;
} bitonic_step_group;

/* The index of the key that register reg of group number group holds. Keys of a
 * group in ascending register order have ascending indices, and the step
 * group's comparators are, in register space: the flip (reg vs reg ^ (2^r - 1))
 * when stride_log == phase - 1, then reg vs reg ^ j for the remaining strides j.
 * The shaders implement the same formula (shaders/network.glsl). */
static inline uint64_t bitonic_group_key_index(const bitonic_step_group *group, uint64_t group_index, uint32_t reg)
{
    uint32_t low_log = group->stride_log + 1u - group->step_count;  /* log2 of the smallest stride */
    uint64_t low_mask = ((uint64_t)1 << low_log) - 1u;
    uint64_t low = group_index & low_mask;
    uint64_t base = (group_index >> low_log) << (low_log + group->register_log);
    bool flip = group->stride_log + 1u == group->phase;
    bool upper_half = (reg >> (group->step_count - 1u)) & 1u;
    if (flip && upper_half)
        low = low_mask - low;  /* mirrored, so the flip partner sits in this group */
    return base + ((uint64_t)reg << low_log) + low;
}

/* Groups of the given shape with at least one key below count. */
uint64_t bitonic_active_group_count(const bitonic_step_group *group, uint64_t count);

/* Splits the steps of one phase with strides 2^first_stride_log down to
 * 2^last_stride_log into step groups of at most max_log steps: the first groups
 * full, the last one taking the rest. Writes step group number index (with
 * register_log = max_log) and returns true, or returns false when index is past
 * the last group. */
bool bitonic_phase_step_group(uint32_t phase, uint32_t first_stride_log, uint32_t last_stride_log, uint32_t max_log,
                              uint32_t index, bitonic_step_group *out_group);

/* Where view index v of a pass with a view lies: *memory is its index in the
 * scratch buffer (column by column, each column ceil(count / 2^column_log) rows
 * long, so nothing past the last real row is stored) and *original its index
 * in the keys. Returns whether it holds a real key (original < count); when
 * not, it is +infinity and neither index may be read. The transpose kernel and
 * the view tile passes use this one formula (shaders/network.glsl). */
static inline bool bitonic_view_index(const bitonic_pass *pass, uint64_t count, uint64_t v, uint64_t *memory,
                                      uint64_t *original)
{
    uint64_t columns_mask = ((uint64_t)1 << pass->view_column_log) - 1u;
    uint64_t rows_used = (count + columns_mask) >> pass->view_column_log;
    uint64_t column = v >> pass->view_row_log;              /* the stored column */
    uint64_t row = v & (((uint64_t)1 << pass->view_row_log) - 1u);
    bool mirrored = pass->view_mirror_phase != 0 &&
                    ((row >> (pass->view_mirror_phase - 1u - pass->view_column_log)) & 1u);
    *original = (row << pass->view_column_log) | (mirrored ? columns_mask - column : column);
    *memory = column * rows_used + row;
    return *original < count;
}

/* Keys of scratch the view of a pass takes for count keys: whole columns of
 * ceil(count / 2^view_column_log) rows. */
uint64_t bitonic_view_keys(const bitonic_pass *pass, uint64_t count);

/* The first view index of tile number tile of a TILE pass (tile * 2^tile_log
 * without a view). In a view whose columns are longer than a tile, tiles of
 * rows at or past ceil(count / 2^view_column_log) hold no key, so the pass
 * numbers only the others: column by column, the used row tiles of each (the
 * pass's group_count counts them). The tile kernels use the same formula. */
static inline uint64_t bitonic_view_tile_first_key(const bitonic_pass *pass, uint64_t count, uint32_t tile_log,
                                                   uint64_t tile)
{
    if (pass->view_column_log == 0 || pass->view_row_log <= tile_log)
        return tile << tile_log;
    uint64_t rows_used = (count + ((uint64_t)1 << pass->view_column_log) - 1u) >> pass->view_column_log;
    uint64_t used_tiles = (rows_used + ((uint64_t)1 << tile_log) - 1u) >> tile_log;  /* per column */
    return ((tile / used_tiles) << pass->view_row_log) + ((tile % used_tiles) << tile_log);
}

#endif /* BITONIC_SCHEDULE_H */
