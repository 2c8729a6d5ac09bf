#version 450
// sky.frag: fog colour at and below the horizon (where the fogged floor fades
// to), deepening to blue toward the zenith.
#include "render_common.glsl"

layout(location = 0) in vec4 far_point;
layout(location = 0) out vec4 colour;

void main()
{
    vec3 direction = normalize(far_point.xyz / far_point.w - frame.camera_position);
    float up = smoothstep(0.0, 0.6, direction.y);
    colour = vec4(mix(frame.fog_colour, vec3(0.30, 0.48, 0.78), up), 1.0);
}
