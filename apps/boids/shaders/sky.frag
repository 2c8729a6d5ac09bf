#version 450
// sky.frag: a vertical gradient from the fog colour at the horizon to a deeper
// blue at the top (Vulkan's y points down the screen).
#include "render_common.glsl"

layout(location = 0) in float height;
layout(location = 0) out vec4 colour;

void main()
{
    float up = clamp(-height * 0.5 + 0.5, 0.0, 1.0);
    colour = vec4(mix(frame.fog_colour, vec3(0.32, 0.50, 0.78), up * up), 1.0);
}
