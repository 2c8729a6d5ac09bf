#version 450
// grid_cells.comp: after the sort, records where each occupied cell's run of
// boids starts and ends (the host cleared the table to empty (0, 0) runs), and
// copies each boid's state into cell order so that neighbours are read from
// neighbouring memory.
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) readonly buffer SortedKeys { uint sorted_keys[]; };
layout(std430, binding = 2) readonly buffer SortedValues { uint sorted_ids[]; };
layout(std430, binding = 3) buffer CellRuns { uvec2 cell_runs[]; };
layout(std430, binding = 4) writeonly buffer SortedState { Boid sorted_state[]; };

void main()
{
    uint index = flat_invocation_index();
    if (index >= params.count)
        return;
    uint cell = sorted_keys[index];
    if (index == 0u || sorted_keys[index - 1u] != cell)
        cell_runs[cell].x = index;
    if (index + 1u == params.count || sorted_keys[index + 1u] != cell)
        cell_runs[cell].y = index + 1u;
    sorted_state[index] = state_in[sorted_ids[index]];
}
