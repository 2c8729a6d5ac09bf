#version 450
// floor.frag: a soft checkerboard with grid lines, filtered by its screen-space
// footprint so it does not shimmer in the distance, faded into the fog.
#include "render_common.glsl"

layout(location = 0) in vec3 world_position;
layout(location = 0) out vec4 colour;

void main()
{
    vec2 cell = world_position.xz / frame.grid_spacing;
    vec2 footprint = max(fwidth(cell), vec2(1e-4));
    vec2 to_line = abs(fract(cell - 0.5) - 0.5) / footprint;
    float line = 1.0 - clamp(min(to_line.x, to_line.y), 0.0, 1.0);
    vec2 square = floor(cell);
    float checker = mod(square.x + square.y, 2.0);
    float fade = clamp(1.0 - 0.5 * max(footprint.x, footprint.y), 0.0, 1.0);
    vec3 base = mix(vec3(0.52, 0.55, 0.52), vec3(0.47, 0.50, 0.47), checker * fade);
    base = mix(base, vec3(0.36, 0.39, 0.36), line * fade);
    colour = vec4(apply_fog(base, world_position), 1.0);
}
