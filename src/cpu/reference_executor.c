/* reference_executor.c: the plain C executor of a bitonic schedule. It walks
 * the same step groups as the shaders (gather a group's keys into "registers",
 * run the in-register network, scatter), so a schedule or addressing bug shows up
 * here, on the CPU, where the 0-1 principle can check every binary input.
 * TRANSPOSE passes copy the keys to and from a scratch array in the view's
 * layout (bitonic_view_index), as the GPU copies them to its scratch buffer. */
#include "reference_executor.h"

#include <stdlib.h>
#include <string.h>

#define MAX_REGISTERS (1u << BITONIC_MAX_STEP_GROUP_LOG)

static void compare_exchange(uint64_t *lower, uint64_t *upper, bitonic_reference_mode mode)
{
    uint64_t a = *lower, b = *upper;
    if (mode == BITONIC_REFERENCE_BITSLICED) {
        *lower = a & b;
        *upper = a | b;
    } else if (b < a) {
        *lower = b;
        *upper = a;
    }
}

/* The in-register network of one step group, over all 2^register_log registers
 * (blocks of 2^step_count registers side by side). */
static void register_network(const bitonic_step_group *group, uint64_t *regs, bitonic_reference_mode mode)
{
    uint32_t register_count = 1u << group->register_log;
    uint32_t block = 1u << group->step_count;
    uint32_t stride = block >> 1;
    if (group->stride_log + 1u == group->phase) {
        for (uint32_t i = 0; i < register_count; ++i)
            if ((i & stride) == 0)
                compare_exchange(&regs[i], &regs[i ^ (block - 1u)], mode);
        stride >>= 1;
    }
    for (; stride > 0; stride >>= 1)
        for (uint32_t i = 0; i < register_count; ++i)
            if ((i & stride) == 0)
                compare_exchange(&regs[i], &regs[i | stride], mode);
}

/* Where virtual index v of a pass lies in memory: itself in the keys, or its
 * place in the view's scratch layout. False: past the end (+infinity). */
static bool memory_index(const bitonic_pass *view_pass, uint64_t count, uint64_t v, uint64_t *memory)
{
    uint64_t original;
    if (!view_pass || view_pass->view_column_log == 0) {
        *memory = v;
        return v < count;
    }
    return bitonic_view_index(view_pass, count, v, memory, &original);
}

/* A step group over keys (count real keys), addressed through view_pass's view
 * when it has one. */
static void run_step_group_in(const bitonic_pass *view_pass, const bitonic_step_group *group, uint64_t group_count,
                              uint64_t first_key, bitonic_reference_mode mode, uint64_t *keys, uint64_t count)
{
    uint64_t regs[MAX_REGISTERS];
    uint32_t register_count = 1u << group->register_log;
    for (uint64_t g = 0; g < group_count; ++g) {
        for (uint32_t r = 0; r < register_count; ++r) {
            uint64_t index;
            bool inside = memory_index(view_pass, count, first_key + bitonic_group_key_index(group, g, r), &index);
            regs[r] = inside ? keys[index] : UINT64_MAX;  /* past the end: +infinity */
        }
        register_network(group, regs, mode);
        for (uint32_t r = 0; r < register_count; ++r) {
            uint64_t index;
            if (memory_index(view_pass, count, first_key + bitonic_group_key_index(group, g, r), &index))
                keys[index] = regs[r];
        }
    }
}

void bitonic_reference_run_step_group(const bitonic_step_group *group, uint64_t group_count, uint64_t first_key,
                                      bitonic_reference_mode mode, uint64_t *keys, uint64_t count)
{
    run_step_group_in(NULL, group, group_count, first_key, mode, keys, count);
}

/* How many keys of a sorted run go before key v: those below it, or those at
 * or below it when the run comes before v's run (ties go to the earlier run). */
static uint64_t keys_before(const uint64_t *run, uint64_t length, uint64_t v, bool or_equal)
{
    uint64_t low = 0, high = length;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2u;
        if (run[mid] < v || (or_equal && run[mid] == v))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

/* The network's steps of a tile pass, every tile of it. */
static void run_tile_network(const bitonic_pass *pass, const bitonic_reference_config *config, uint64_t *keys,
                             uint64_t count)
{
    uint64_t tile_keys = (uint64_t)1 << config->tile_log;
    uint64_t groups_per_tile = tile_keys >> config->tile_register_log;
    for (uint32_t phase = pass->phase; phase <= pass->last_phase; ++phase) {
        uint32_t first_stride_log = phase == pass->phase ? pass->stride_log : phase - 1u;
        bitonic_step_group group;
        for (uint32_t index = 0;
             bitonic_phase_step_group(phase, first_stride_log, 0, config->tile_register_log, index, &group); ++index)
            for (uint64_t tile = 0; tile < pass->group_count; ++tile)
                run_step_group_in(pass, &group, groups_per_tile,
                                  bitonic_view_tile_first_key(pass, count, config->tile_log, tile), config->mode, keys,
                                  count);
    }
}

/* A tile pass; with a tail (pass->tile_tail) as the tile sort kernel runs it:
 * the first 2^last_phase keys by the network, the tail sorted by counting
 * (a key's rank is the tail keys below it, and the equal ones before it),
 * then every key placed as a merge that takes in a tail places it. */
static bool run_tile_pass(const bitonic_pass *pass, const bitonic_reference_config *config, uint64_t *keys,
                          uint64_t count)
{
    if (!pass->tile_tail) {
        run_tile_network(pass, config, keys, count);
        return true;
    }
    uint64_t head = (uint64_t)1 << pass->last_phase;
    if (pass->group_count != 1u || pass->last_phase > config->tile_log || config->mode != BITONIC_REFERENCE_NUMERIC)
        return false;  /* one tile, and the placing compares keys */
    run_tile_network(pass, config, keys, count < head ? count : head);
    if (count <= head)
        return true;
    uint64_t tail_count = count - head;
    uint64_t *placed = malloc(count * sizeof *placed), *tail = malloc(tail_count * sizeof *tail);
    if (!placed || !tail) {
        free(placed);
        free(tail);
        return false;
    }
    for (uint64_t t = 0; t < tail_count; ++t) {
        uint64_t key = keys[head + t], rank = 0;
        for (uint64_t i = 0; i < tail_count; ++i)
            rank += keys[head + i] < key || (keys[head + i] == key && i < t);
        tail[rank] = key;
    }
    for (uint64_t p = 0; p < head; ++p)
        placed[p + keys_before(tail, tail_count, keys[p], false)] = keys[p];
    for (uint64_t t = 0; t < tail_count; ++t)
        placed[t + keys_before(keys, head, tail[t], true)] = tail[t];
    memcpy(keys, placed, count * sizeof *placed);
    free(placed);
    free(tail);
    return true;
}

/* Copies every real key between the keys and the view's layout in scratch. */
static void run_transpose_pass(const bitonic_pass *pass, uint64_t *keys, uint64_t *scratch, uint64_t count)
{
    uint64_t view_count = (uint64_t)1 << (pass->view_column_log + pass->view_row_log);
    for (uint64_t v = 0; v < view_count; ++v) {
        uint64_t memory, original;
        if (!bitonic_view_index(pass, count, v, &memory, &original))
            continue;
        if (pass->to_view)
            scratch[memory] = keys[original];
        else
            keys[original] = scratch[memory];
    }
}

/* The number of keys of run a that go before diagonal d of the merge of a and b:
 * the merge-path split, found the way the GPU's partition kernel finds it (the
 * earlier run wins ties, so the merge is stable). */
static uint64_t merge_path_split(const uint64_t *a, uint64_t a_count, const uint64_t *b, uint64_t b_count,
                                 uint64_t d)
{
    uint64_t low = d > b_count ? d - b_count : 0;
    uint64_t high = d < a_count ? d : a_count;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2u;
        if (!(b[d - 1u - mid] < a[mid]))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

/* Merges every pair of neighbouring sorted runs of 2^(phase-1) keys, in chunks
 * of chunk_keys output keys, each chunk from its own two splits, as the GPU does.
 * A merge that takes in the tail (last_phase = phase + 1: one run of 2^phase,
 * then the tail's sorted run) places every key as the direct merge kernel
 * does: a key of the two runs at its merged position plus the tail keys before
 * it, a tail key at its index in the tail plus the keys of both runs at or
 * before it. */
static bool run_merge_pass(const bitonic_pass *pass, uint64_t chunk_keys, uint64_t *keys, uint64_t count)
{
    uint64_t run = (uint64_t)1 << (pass->phase - 1u);
    bool takes_tail = pass->last_phase == pass->phase + 1u && count > 2u * run;
    if (pass->last_phase != pass->phase && (!takes_tail || count - 2u * run > run))
        return false;  /* a tail longer than a run is not one sorted run */
    uint64_t merged_count = takes_tail ? 2u * run : count;
    uint64_t *merged = malloc(count * sizeof *merged);
    uint64_t *placed = takes_tail ? malloc(count * sizeof *placed) : NULL;
    if (!merged || (takes_tail && !placed)) {
        free(merged);
        return false;
    }
    for (uint64_t start = 0; start < merged_count; start += chunk_keys) {
        uint64_t pair_base = start & ~(2u * run - 1u);
        uint64_t a_count = merged_count - pair_base < run ? merged_count - pair_base : run;
        uint64_t b_count = merged_count - pair_base - a_count < run ? merged_count - pair_base - a_count : run;
        const uint64_t *a = keys + pair_base, *b = a + a_count;
        uint64_t d0 = start - pair_base;
        uint64_t d1 = d0 + chunk_keys < a_count + b_count ? d0 + chunk_keys : a_count + b_count;
        uint64_t i = merge_path_split(a, a_count, b, b_count, d0);
        uint64_t i_end = merge_path_split(a, a_count, b, b_count, d1);
        uint64_t j = d0 - i, j_end = d1 - i_end;
        for (uint64_t out = pair_base + d0; out < pair_base + d1; ++out) {
            bool take_a = i < i_end && (j >= j_end || !(b[j] < a[i]));
            merged[out] = take_a ? a[i++] : b[j++];
        }
    }
    if (takes_tail) {
        const uint64_t *tail = keys + merged_count;
        uint64_t tail_count = count - merged_count;
        for (uint64_t p = 0; p < merged_count; ++p)
            placed[p + keys_before(tail, tail_count, merged[p], false)] = merged[p];
        for (uint64_t t = 0; t < tail_count; ++t)
            placed[t + keys_before(keys, run, tail[t], true) + keys_before(keys + run, run, tail[t], true)] = tail[t];
        memcpy(keys, placed, count * sizeof *placed);
    } else {
        memcpy(keys, merged, count * sizeof *merged);
    }
    free(merged);
    free(placed);
    return true;
}

/* Scratch the views of the passes take (0 when none has a view). */
static uint64_t view_scratch_keys(const bitonic_pass *passes, uint32_t pass_count, uint64_t count)
{
    uint64_t most = 0;
    for (uint32_t p = 0; p < pass_count; ++p)
        if (passes[p].kind == BITONIC_PASS_TRANSPOSE && bitonic_view_keys(&passes[p], count) > most)
            most = bitonic_view_keys(&passes[p], count);
    return most;
}

bool bitonic_reference_run(const bitonic_pass *passes, uint32_t pass_count, const bitonic_reference_config *config,
                           uint64_t *keys, uint64_t count)
{
    if (config->tile_register_log > config->tile_log || config->tile_register_log > BITONIC_MAX_STEP_GROUP_LOG)
        return false;
    uint64_t scratch_keys = view_scratch_keys(passes, pass_count, count);
    uint64_t *scratch = scratch_keys ? malloc(scratch_keys * sizeof *scratch) : NULL;
    if (scratch_keys && !scratch)
        return false;
    bool ok = true;
    for (uint32_t p = 0; p < pass_count && ok; ++p) {
        const bitonic_pass *pass = &passes[p];
        if (pass->kind == BITONIC_PASS_TILE) {
            if (config->tile_log == 0 || config->tile_register_log == 0 || (pass->view_column_log != 0 && !scratch))
                ok = false;
            else if (pass->view_column_log != 0)
                ok = run_tile_pass(pass, config, scratch, count);  /* the view lives in scratch */
            else
                ok = run_tile_pass(pass, config, keys, count);
        } else if (pass->kind == BITONIC_PASS_TRANSPOSE) {
            ok = pass->view_column_log != 0;
            if (ok)
                run_transpose_pass(pass, keys, scratch, count);
        } else if (pass->kind == BITONIC_PASS_MERGE) {
            /* A merge compares keys, so it cannot run 64 bit-sliced inputs at once. */
            if (config->mode != BITONIC_REFERENCE_NUMERIC || config->merge_chunk_log == 0 ||
                config->merge_chunk_log > config->tile_log + 1u || !run_merge_pass(pass, (uint64_t)1 << config->merge_chunk_log, keys, count))
                ok = false;
        } else {
            bitonic_step_group group = {pass->phase, pass->stride_log, pass->step_count, pass->step_count};
            bitonic_reference_run_step_group(&group, pass->group_count, 0, config->mode, keys, count);
        }
    }
    free(scratch);
    return ok;
}
