#version 450
// tile_pass.comp: a workgroup sorts (phases 1 .. last_phase) or merges (the
// steps of one phase below the tile) a tile of 2^TILE_LOG consecutive keys on
// chip. The tile sits in shared memory; each step group moves a thread's
// 2^REGISTER_LOG keys into registers, runs up to REGISTER_LOG steps there and
// writes them back, so a barrier is paid once per REGISTER_LOG steps instead of
// once per step. Groups whose smallest stride is 1 hold the same keys (a
// thread's consecutive run), so runs of them skip shared memory altogether.
// The tile is padded one word in 32, which keeps the strided register loads
// free of bank conflicts.
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

void registers_to_shared(uint phase, uint top, uint steps)
{
    uint thread = gl_LocalInvocationID.x;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint i = padded(group_key_index(thread, r, phase, top, steps));
        tile_keys[i] = reg_keys[r];
#ifdef WITH_VALUES
        tile_values[i] = reg_values[r];
#endif
    }
}

void shared_to_registers(uint phase, uint top, uint steps)
{
    uint thread = gl_LocalInvocationID.x;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint i = padded(group_key_index(thread, r, phase, top, steps));
        reg_keys[r] = tile_keys[i];
#ifdef WITH_VALUES
        reg_values[r] = tile_values[i];
#endif
    }
}

void main()
{
    live_count = key_count();
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool active_tile = tile < params.group_count;
    index_t tile_base = tile_first_key(tile, TILE_LOG);
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;

    // The first step group loads its keys straight from memory when its
    // smallest stride is at least 8 (neighbouring threads then read whole 32-byte
    // sectors: a tile merge); otherwise (a tile sort starts at stride 1) the tile
    // comes in through shared memory in coalesced order.
    uint first_steps = min(REGISTER_LOG, params.stride_log + 1u);
    bool load_direct = params.stride_log + 1u - first_steps >= 3u;
    if (!load_direct) {
        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            uint local_index = r * threads + thread;
            index_t index;
            bool inside = physical_index(tile_base + local_index, index) && active_tile;
            tile_keys[padded(local_index)] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
            tile_values[padded(local_index)] = inside ? read_value(index) : PAD_VALUE;
#endif
        }
        barrier();
    }

    // Which step group the registers hold: none yet.
    bool holding = false;
    uint held_phase = 0u, held_top = 0u, held_steps = 0u;
    for (uint phase = params.phase; phase <= params.last_phase; ++phase) {
        uint top = phase == params.phase ? params.stride_log : phase - 1u;
        for (;;) {
            uint steps = min(REGISTER_LOG, top + 1u);
            bool same_keys = holding && held_top + 1u == held_steps && top + 1u == steps;
            if (!same_keys) {
                if (holding) {
                    registers_to_shared(held_phase, held_top, held_steps);
                    barrier();
                    shared_to_registers(phase, top, steps);
                } else if (load_direct) {
                    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
                        index_t index;
                        bool inside = physical_index(tile_base + group_key_index(thread, r, phase, top, steps), index) && active_tile;
                        reg_keys[r] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
                        reg_values[r] = inside ? read_value(index) : PAD_VALUE;
#endif
                    }
                } else {
                    shared_to_registers(phase, top, steps);
                }
            }
            register_network(top + 1u == phase, steps);
            holding = true;
            held_phase = phase;
            held_top = top;
            held_steps = steps;
            if (top < steps)
                break;
            top -= steps;
        }
    }
    registers_to_shared(held_phase, held_top, held_steps);
    barrier();

    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint local_index = r * threads + thread;
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
