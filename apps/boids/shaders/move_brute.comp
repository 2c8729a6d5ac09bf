#version 450
// move_brute.comp: the reference neighbour search. Every boid tests every
// other boid, O(N^2). The workgroup stages tiles of the old state in shared
// memory (tile length = workgroup size, which the host picked to fit the
// device's shared memory), so each boid is read from device memory once per
// workgroup rather than once per invocation.
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) writeonly buffer StateOut { Boid state_out[]; };
layout(std430, binding = 2) writeonly buffer DebugOut { uvec4 debug_out[]; };

shared Boid tile[gl_WorkGroupSize.x];

void main()
{
    uint self_id = flat_invocation_index();
    // Invocations past the end still take part in the tile loads and barriers
    // (a return before barrier() would be undefined), but never write.
    bool in_range = self_id < params.count;
    Boid self = state_in[min(self_id, params.count - 1u)];
    Accumulator acc = accumulator_start();
    for (uint base = 0u; base < params.count; base += gl_WorkGroupSize.x) {
        uint load_id = base + gl_LocalInvocationID.x;
        if (load_id < params.count)
            tile[gl_LocalInvocationID.x] = state_in[load_id];
        barrier();
        uint tile_length = min(gl_WorkGroupSize.x, params.count - base);
        for (uint t = 0u; t < tile_length; ++t) {
            uint other_id = base + t;
            if (other_id != self_id && is_neighbour(self.position.xyz, tile[t].position.xyz))
                accumulate(acc, self.position.xyz, tile[t], other_id);
        }
        barrier();
    }
    if (!in_range)
        return;
    state_out[self_id] = steer(self, acc);
    if (params.debug != 0u)
        debug_out[self_id] = neighbour_fingerprint(acc);
}
