#version 450
// move_grid.comp: the uniform-grid search. Invocation i handles the i-th boid
// in cell order (so a workgroup's boids sit in the same few cells and read the
// same candidates), visits the 27 cells around its own, and applies the same
// exact distance test as the brute-force search. Along x, three neighbouring
// cells have consecutive keys, so their boids form one contiguous run of the
// sorted order: 9 runs per boid instead of 27.
#include "flock_common.glsl"

layout(std430, binding = 0) writeonly buffer StateOut { Boid state_out[]; };
layout(std430, binding = 1) writeonly buffer DebugOut { uvec4 debug_out[]; };
layout(std430, binding = 2) readonly buffer SortedKeys { uint sorted_keys[]; };
layout(std430, binding = 3) readonly buffer SortedValues { uint sorted_ids[]; };
layout(std430, binding = 4) readonly buffer CellRuns { uvec2 cell_runs[]; };
layout(std430, binding = 5) readonly buffer SortedState { Boid sorted_state[]; };

void main()
{
    uint index = flat_invocation_index();
    if (index >= params.count)
        return;
    Boid self = sorted_state[index];
    uint self_id = sorted_ids[index];
    uint key = sorted_keys[index];
    uvec3 dims = params.grid_dims;
    uvec3 cell = uvec3(key % dims.x, (key / dims.x) % dims.y, key / (dims.x * dims.y));
    uint x_first = cell.x > 0u ? cell.x - 1u : 0u;
    uint x_last = min(cell.x + 1u, dims.x - 1u);

    Accumulator acc = accumulator_start();
    for (uint z = max(cell.z, 1u) - 1u; z <= min(cell.z + 1u, dims.z - 1u); ++z) {
        for (uint y = max(cell.y, 1u) - 1u; y <= min(cell.y + 1u, dims.y - 1u); ++y) {
            uint row_key = dims.x * (y + dims.y * z);
            // Occupied runs of consecutive keys are adjacent in sorted order;
            // empty cells are (0, 0) and are skipped.
            uint run_start = 0xffffffffu, run_end = 0u;
            for (uint x = x_first; x <= x_last; ++x) {
                uvec2 run = cell_runs[row_key + x];
                if (run.y > run.x) {
                    run_start = min(run_start, run.x);
                    run_end = max(run_end, run.y);
                }
            }
            for (uint other = run_start; other < run_end; ++other) {
                if (other == index)
                    continue;
                Boid candidate = sorted_state[other];
                if (is_neighbour(self.position.xyz, candidate.position.xyz))
                    accumulate(acc, self.position.xyz, candidate, sorted_ids[other]);
            }
        }
    }
    state_out[self_id] = steer(self, acc);
    if (params.debug != 0u)
        debug_out[self_id] = neighbour_fingerprint(acc);
}
