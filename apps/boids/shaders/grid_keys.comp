#version 450
// grid_keys.comp: each boid's cell in a uniform grid as its sort key, paired
// with its index. Cells are at least R wide (with a margin for rounding, see
// flock.c), so two neighbours' cells differ by at most one along each axis.
// Positions outside the grid are clamped to its border cells: clamping never
// moves two coordinates further apart, so that property survives, and the
// search stays exact (only slower for boids that stray outside).
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };

void main()
{
    uint id = flat_invocation_index();
    if (id >= params.count)
        return;
    vec3 scaled = (state_in[id].position.xyz - params.grid_origin) / params.cell_size;
    uvec3 cell = uvec3(clamp(scaled, vec3(0.0), vec3(params.grid_dims) - 0.5));
    keys[id] = cell.x + params.grid_dims.x * (cell.y + params.grid_dims.y * cell.z);
    values[id] = id;
}
