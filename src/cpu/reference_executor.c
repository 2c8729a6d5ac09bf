/* reference_executor.c: the plain C executor of a bitonic schedule. It walks
 * the same step groups as the shaders (gather a group's keys into "registers",
 * run the in-register network, scatter), so a schedule or addressing bug shows up
 * here, on the CPU, where the 0-1 principle can check every binary input. */
#include "reference_executor.h"

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

void bitonic_reference_run_step_group(const bitonic_step_group *group, uint64_t group_count, uint64_t first_key,
                                      bitonic_reference_mode mode, uint64_t *keys, uint64_t count)
{
    uint64_t regs[MAX_REGISTERS];
    uint32_t register_count = 1u << group->register_log;
    for (uint64_t g = 0; g < group_count; ++g) {
        for (uint32_t r = 0; r < register_count; ++r) {
            uint64_t index = first_key + bitonic_group_key_index(group, g, r);
            regs[r] = index < count ? keys[index] : UINT64_MAX;  /* past the end: +infinity */
        }
        register_network(group, regs, mode);
        for (uint32_t r = 0; r < register_count; ++r) {
            uint64_t index = first_key + bitonic_group_key_index(group, g, r);
            if (index < count)
                keys[index] = regs[r];
        }
    }
}

static void run_tile_pass(const bitonic_pass *pass, const bitonic_reference_config *config, uint64_t *keys,
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
                bitonic_reference_run_step_group(&group, groups_per_tile, tile * tile_keys, config->mode, keys, count);
    }
}

bool bitonic_reference_run(const bitonic_pass *passes, uint32_t pass_count, const bitonic_reference_config *config,
                           uint64_t *keys, uint64_t count)
{
    if (config->tile_register_log > config->tile_log || config->tile_register_log > BITONIC_MAX_STEP_GROUP_LOG)
        return false;
    for (uint32_t p = 0; p < pass_count; ++p) {
        const bitonic_pass *pass = &passes[p];
        if (pass->kind == BITONIC_PASS_TILE) {
            if (config->tile_log == 0 || config->tile_register_log == 0)
                return false;
            run_tile_pass(pass, config, keys, count);
        } else {
            bitonic_step_group group = {pass->phase, pass->stride_log, pass->step_count, pass->step_count};
            bitonic_reference_run_step_group(&group, pass->group_count, 0, config->mode, keys, count);
        }
    }
    return true;
}
