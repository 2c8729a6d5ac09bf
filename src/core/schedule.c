/* schedule.c: builds the list of passes of the bitonic network (see schedule.h).
 * Plain C with no device knowledge: the tile size and steps per global pass come
 * in as parameters from the tuning of the executor that will run the list. */
#include "schedule.h"

uint32_t bitonic_ceil_log2(uint64_t count)
{
    uint32_t log = 0;
    while (log < 64u && ((uint64_t)1 << log) < count)
        ++log;
    return log;
}

bool bitonic_phase_step_group(uint32_t phase, uint32_t first_stride_log, uint32_t last_stride_log, uint32_t max_log,
                              uint32_t index, bitonic_step_group *out_group)
{
    if (max_log == 0 || first_stride_log < last_stride_log)
        return false;
    uint32_t steps = first_stride_log - last_stride_log + 1u;
    uint64_t skipped = (uint64_t)index * max_log;
    if (skipped >= steps)
        return false;
    uint32_t top = first_stride_log - (uint32_t)skipped;
    uint32_t remaining = steps - (uint32_t)skipped;
    out_group->phase = phase;
    out_group->stride_log = top;
    out_group->step_count = remaining < max_log ? remaining : max_log;
    out_group->register_log = max_log;
    return true;
}

uint64_t bitonic_active_group_count(const bitonic_step_group *group, uint64_t count)
{
    /* The smallest key index of group q is its register 0 (never mirrored):
     * base + low, which grows with q, so the active groups are a prefix. */
    uint32_t low_log = group->stride_log + 1u - group->step_count;
    uint32_t span_log = low_log + group->register_log;
    uint64_t full_spans = count >> span_log;
    uint64_t rest = count - (full_spans << span_log);
    uint64_t lows = (uint64_t)1 << low_log;
    return (full_spans << low_log) + (rest < lows ? rest : lows);
}

uint64_t bitonic_view_keys(const bitonic_pass *pass, uint64_t count)
{
    uint64_t columns_mask = ((uint64_t)1 << pass->view_column_log) - 1u;
    return ((count + columns_mask) >> pass->view_column_log) << pass->view_column_log;
}

static bool append(bitonic_pass *passes, uint32_t capacity, uint32_t *pass_count, bitonic_pass pass)
{
    if (*pass_count >= capacity)
        return false;
    passes[(*pass_count)++] = pass;
    return true;
}

/* The phases above the tile, as the seeds do them: the strides at or above the
 * tile in the transposed view, at most tile_log of them per view (a view of
 * 2^lo columns brings strides 2^lo .. 2^(lo + tile_log - 1) into one tile), the
 * first view of a phase with its flip; then the strides below the tile in an
 * ordinary tile pass. Returns the new pass count, or UINT32_MAX when capacity
 * is too small. */
static uint32_t append_transposed_phases(uint64_t count, uint32_t tile_log, uint32_t first_phase,
                                         uint32_t virtual_log, uint64_t tiles, bitonic_pass *passes,
                                         uint32_t capacity, uint32_t pass_count)
{
    for (uint32_t phase = first_phase; phase <= virtual_log; ++phase) {
        for (uint32_t top = phase - 1u; top >= tile_log;) {
            uint32_t low = top + 1u >= 2u * tile_log ? top + 1u - tile_log : tile_log;
            bitonic_pass view = {
                .kind = BITONIC_PASS_TRANSPOSE, .phase = phase, .stride_log = top, .last_phase = phase,
                .view_column_log = low, .view_row_log = virtual_log - low,
                .view_mirror_phase = top + 1u == phase ? phase : 0u, .to_view = true,
            };
            uint64_t rows_used = bitonic_view_keys(&view, count) >> low;
            view.group_count = (uint32_t)rows_used;
            /* Tiles of the view: whole columns when a column fits a tile, else
             * only the tiles of each column that hold used rows. */
            uint64_t view_tiles = (uint64_t)1 << (virtual_log - tile_log);
            if (view.view_row_log > tile_log)
                view_tiles = ((rows_used + ((uint64_t)1 << tile_log) - 1u) >> tile_log) << low;
            bitonic_pass view_tile = view;
            view_tile.kind = BITONIC_PASS_TILE;
            view_tile.phase = phase - low;
            view_tile.stride_log = top - low;
            view_tile.last_phase = phase - low;
            view_tile.group_count = (uint32_t)view_tiles;
            view_tile.to_view = false;
            bitonic_pass back = view;
            back.to_view = false;
            if (!append(passes, capacity, &pass_count, view) || !append(passes, capacity, &pass_count, view_tile) ||
                !append(passes, capacity, &pass_count, back))
                return UINT32_MAX;
            top = low - 1u;
        }
        bitonic_pass tile_merge = {.kind = BITONIC_PASS_TILE, .phase = phase, .stride_log = tile_log - 1u,
                                   .last_phase = phase, .step_count = 0, .group_count = (uint32_t)tiles};
        if (!append(passes, capacity, &pass_count, tile_merge))
            return UINT32_MAX;
    }
    return pass_count;
}

/* Whether count = 2^q + m (q = virtual_log - 1) has a tail the schedule can
 * take apart: tail_log not 0 (none), m at most 2^tail_log and at most 2^(q-1),
 * so that after phase q - 1 it is one sorted run. */
static bool short_tail(uint64_t count, uint32_t virtual_log, uint32_t tail_log)
{
    if (tail_log == 0 || virtual_log < 2u)
        return false;
    uint64_t tail = count - ((uint64_t)1 << (virtual_log - 1u));
    return tail <= ((uint64_t)1 << (virtual_log - 2u)) && tail <= ((uint64_t)1 << tail_log);
}

uint32_t bitonic_schedule_build(uint64_t count, const bitonic_schedule_params *params,
                                bitonic_pass *passes, uint32_t capacity)
{
    if (!params || params->max_global_steps == 0 || params->max_global_steps > BITONIC_MAX_STEP_GROUP_LOG ||
        params->tile_log > 31u || params->merge_tail_log > 32u || params->tile_tail_log > 32u)
        return UINT32_MAX;
    if (count <= 1)
        return 0;
    uint32_t virtual_log = bitonic_ceil_log2(count);
    if (params->last_phase != 0 && params->last_phase < virtual_log)
        virtual_log = params->last_phase;
    uint32_t tile_log = params->tile_log;
    uint64_t tiles = (count + ((uint64_t)1 << tile_log) - 1u) >> tile_log;
    uint32_t pass_count = 0;

    /* A short tail past a power of two that fits a tile: one tile pass places it. */
    if (tile_log > 0 && params->last_phase == 0 && virtual_log - 1u <= tile_log &&
        short_tail(count, virtual_log, params->tile_tail_log)) {
        bitonic_pass tile_sort = {.kind = BITONIC_PASS_TILE, .phase = 1, .stride_log = 0,
                                  .last_phase = virtual_log - 1u, .step_count = 0, .group_count = 1,
                                  .tile_tail = true};
        return append(passes, capacity, &pass_count, tile_sort) ? pass_count : UINT32_MAX;
    }
    /* Every phase whose blocks fit in a tile: one pass. */
    uint32_t first_global_phase = 1;
    if (tile_log > 0) {
        uint32_t last_tile_phase = virtual_log < tile_log ? virtual_log : tile_log;
        bitonic_pass tile_sort = {.kind = BITONIC_PASS_TILE, .phase = 1, .stride_log = 0,
                                  .last_phase = last_tile_phase, .step_count = 0, .group_count = (uint32_t)tiles};
        if (!append(passes, capacity, &pass_count, tile_sort))
            return UINT32_MAX;
        first_global_phase = last_tile_phase + 1u;
    }
    if (params->merge_above_tile && tile_log > 0 && params->last_phase == 0) {
        /* The tail: count = 2^q + m, q = virtual_log - 1, merged in at phase q. */
        uint32_t last_merge_phase = virtual_log;
        if (virtual_log - 1u >= first_global_phase && short_tail(count, virtual_log, params->merge_tail_log))
            last_merge_phase = virtual_log - 1u;
        for (uint32_t phase = first_global_phase; phase <= last_merge_phase; ++phase) {
            uint64_t runs = (count + ((uint64_t)1 << phase) - 1u) >> phase;
            bool takes_tail = phase == last_merge_phase && last_merge_phase < virtual_log;
            bitonic_pass merge = {.kind = BITONIC_PASS_MERGE, .phase = phase, .stride_log = phase - 1u,
                                  .last_phase = takes_tail ? phase + 1u : phase, .step_count = 0,
                                  .group_count = takes_tail ? 1u : (uint32_t)runs};
            if (!append(passes, capacity, &pass_count, merge))
                return UINT32_MAX;
        }
        return pass_count;
    }
    if (params->transpose_above_tile && tile_log > 0 && params->last_phase == 0)
        return append_transposed_phases(count, tile_log, first_global_phase, virtual_log, tiles, passes, capacity,
                                        pass_count);
    /* Each larger phase: its strides at or above the tile in global passes,
     * then the strides below the tile in one tile pass. */
    for (uint32_t phase = first_global_phase; phase <= virtual_log; ++phase) {
        bitonic_step_group group;
        for (uint32_t index = 0;
             bitonic_phase_step_group(phase, phase - 1u, tile_log, params->max_global_steps, index, &group); ++index) {
            group.register_log = group.step_count;
            uint64_t groups = bitonic_active_group_count(&group, count);
            bitonic_pass global = {.kind = BITONIC_PASS_GLOBAL, .phase = phase, .stride_log = group.stride_log,
                                   .last_phase = phase, .step_count = group.step_count, .group_count = (uint32_t)groups};
            if (!append(passes, capacity, &pass_count, global))
                return UINT32_MAX;
        }
        if (tile_log > 0) {
            bitonic_pass tile_merge = {.kind = BITONIC_PASS_TILE, .phase = phase, .stride_log = tile_log - 1u,
                                       .last_phase = phase, .step_count = 0, .group_count = (uint32_t)tiles};
            if (!append(passes, capacity, &pass_count, tile_merge))
                return UINT32_MAX;
        }
    }
    return pass_count;
}
