#version 450
// global_pass.comp: one pass of REGISTER_LOG steps of one merge phase whose
// strides are at or above the tile, straight from device memory. Each
// invocation loads one step group of 2^REGISTER_LOG keys (spaced by the smallest
// stride, so neighbouring invocations read neighbouring addresses), runs the
// steps in registers and writes the keys back. No shared memory, no barrier.
layout(local_size_x_id = 0) in;
const uint REGISTERS = 1u << REGISTER_LOG;

#include "network.glsl"

void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint group_index = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (group_index >= params.group_count)
        return;  // safe: this kernel has no barrier
    uint top = params.stride_log;
    bool flip = top + 1u == params.phase;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint index;
        bool inside = physical_index(group_key_index(group_index, r, params.phase, top, REGISTER_LOG), index);
        reg_keys[r] = inside ? load_key(keys[index]) : PAD_KEY;
#ifdef WITH_VALUES
        reg_values[r] = inside ? values[index] : PAD_VALUE;
#endif
    }
    register_network(flip, REGISTER_LOG);
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint index;
        if (physical_index(group_key_index(group_index, r, params.phase, top, REGISTER_LOG), index)) {
            keys[index] = store_key(reg_keys[r]);
#ifdef WITH_VALUES
            values[index] = reg_values[r];
#endif
        }
    }
}
