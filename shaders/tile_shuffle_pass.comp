#version 450
// tile_shuffle_pass.comp: the tile kernel for devices with subgroup shuffles.
// Same job as tile_pass.comp (sort a tile, or run one phase's steps below the
// tile) with far fewer barriers: a thread holds REGISTERS consecutive keys
// ("blocked"), so strides below REGISTERS run in registers and strides below
// REGISTERS x subgroup size run as shuffles between the lanes of a subgroup;
// only the strides above that span go through shared memory, as step groups
// (see network.glsl), two barriers per phase. The subgroup size is read at run
// time (gl_SubgroupSize); the tuning picks this kernel only when the workgroup
// is a whole number of subgroups and 2 * REGISTER_LOG + log2(subgroup) <= TILE_LOG,
// so every shared-memory step group fits in the tile.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TILE_LOG = 12u;
const uint REGISTERS = 1u << REGISTER_LOG;
const uint TILE_KEYS = 1u << TILE_LOG;

#include "network.glsl"

shared key_t tile_keys[TILE_KEYS + (TILE_KEYS >> 5)];
#ifdef WITH_VALUES
shared uint tile_values[TILE_KEYS + (TILE_KEYS >> 5)];
#endif

uint padded(uint i)
{
    return i + (i >> 5);
}

// Where the keys of a thread are: its blocked run, or a step group.
const uint HELD_BLOCKED = 0u;
const uint HELD_GROUP = 1u;

uint held_kind;
uint held_phase, held_top, held_steps;

// The tile-local key index of register r of this thread in the current layout.
uint held_index(uint thread, uint r)
{
    if (held_kind == HELD_BLOCKED)
        return thread * REGISTERS + r;
    return group_key_index(thread, r, held_phase, held_top, held_steps);
}

void registers_to_shared(uint thread)
{
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint i = padded(held_index(thread, r));
        tile_keys[i] = reg_keys[r];
#ifdef WITH_VALUES
        tile_values[i] = reg_values[r];
#endif
    }
}

void shared_to_registers(uint thread)
{
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint i = padded(held_index(thread, r));
        reg_keys[r] = tile_keys[i];
#ifdef WITH_VALUES
        reg_values[r] = tile_values[i];
#endif
    }
}

#include "lane_network.glsl"

void main()
{
    live_count = key_count();
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool active_tile = tile < params.group_count;
    index_t tile_base = tile_first_key(tile, TILE_LOG);
    // Threads are numbered by subgroup and lane, so lanes of one subgroup own
    // neighbouring runs of keys whatever the driver's invocation order.
    uint lane = gl_SubgroupInvocationID;
    uint thread = gl_SubgroupID * gl_SubgroupSize + lane;
    uint threads = gl_WorkGroupSize.x;
    uint lane_span_log = REGISTER_LOG + findLSB(gl_SubgroupSize);  // strides below 2^this: no shared memory

    // The first keys come straight from memory when the first step group has a
    // smallest stride of 8 or more (a tile merge): neighbouring threads then read
    // whole 32-byte sectors. Otherwise the tile comes in coalesced through shared memory.
    uint first_top = params.stride_log;
    bool first_in_shared = first_top >= lane_span_log;
    uint first_steps = min(REGISTER_LOG, first_top - lane_span_log + 1u);
    bool load_direct = first_in_shared && first_top + 1u - first_steps >= 3u;
    if (load_direct) {
        held_kind = HELD_GROUP;
        held_phase = params.phase;
        held_top = first_top;
        held_steps = first_steps;
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            index_t index;
            bool inside = physical_index(tile_base + held_index(thread, r), index) && active_tile;
            reg_keys[r] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
            reg_values[r] = inside ? read_value(index) : PAD_VALUE;
#endif
        }
    } else {
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            uint local_index = r * threads + gl_LocalInvocationID.x;
            index_t index;
            bool inside = physical_index(tile_base + local_index, index) && active_tile;
            tile_keys[padded(local_index)] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
            tile_values[padded(local_index)] = inside ? read_value(index) : PAD_VALUE;
#endif
        }
        barrier();
        held_kind = HELD_BLOCKED;
        shared_to_registers(thread);
    }

    for (uint phase = params.phase; phase <= params.last_phase; ++phase) {
        uint top = phase == params.phase ? params.stride_log : phase - 1u;
        // Strides at or above the lane span: step groups through shared memory.
        while (top >= lane_span_log) {
            uint steps = min(REGISTER_LOG, top - lane_span_log + 1u);
            bool already_held = held_kind == HELD_GROUP && held_phase == phase && held_top == top;
            if (!already_held) {
                registers_to_shared(thread);
                barrier();
                held_kind = HELD_GROUP;
                held_phase = phase;
                held_top = top;
                held_steps = steps;
                shared_to_registers(thread);
            }
            register_network(top + 1u == phase, steps);
            top -= steps;  // top >= steps: the lane span is at least 2^REGISTER_LOG
            if (top < lane_span_log) {
                registers_to_shared(thread);
                barrier();
                held_kind = HELD_BLOCKED;
                shared_to_registers(thread);
            }
        }
        // Strides from REGISTERS up to the lane span: shuffles between lanes.
        if (top >= REGISTER_LOG) {
            uint lane_top = top - REGISTER_LOG;  // log2 of the lane distance of the first step
            if (top + 1u == phase)
                lane_flip(lane, 2u << lane_top);
            else
                lane_disperse(lane, 1u << lane_top);
            for (uint distance_log = lane_top; distance_log > 0u; --distance_log)
                lane_disperse(lane, 1u << (distance_log - 1u));
            register_network(false, REGISTER_LOG);
        } else {
            // Strides below REGISTERS: in registers, a flip when the phase starts here.
            register_network(top + 1u == phase, top + 1u);
        }
    }

    // Out through shared memory, so the stores are coalesced.
    registers_to_shared(thread);
    barrier();
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint local_index = r * threads + gl_LocalInvocationID.x;
        index_t index;
        if (physical_index(tile_base + local_index, index) && active_tile) {
#ifdef WITH_VALUES
            store_result(index, tile_keys[padded(local_index)], tile_values[padded(local_index)]);
#else
            store_result(index, tile_keys[padded(local_index)], 0u);
#endif
        }
    }
}
