#version 450
// boid.frag: a directional light with wrap-around ambient, faded into the fog.
// With SHADOW set, a translucent dark patch instead.
#include "render_common.glsl"

layout(constant_id = 0) const bool SHADOW = false;

layout(location = 0) in vec3 world_position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 albedo;
layout(location = 0) out vec4 colour;

void main()
{
    if (SHADOW) {
        float visibility = exp(-frame.fog_density * length(world_position - frame.camera_position));
        colour = vec4(0.0, 0.0, 0.05, 0.22 * visibility);
        return;
    }
    vec3 n = normalize(gl_FrontFacing ? normal : -normal);
    float diffuse = max(dot(n, -frame.light_direction), 0.0);
    float sky = 0.5 + 0.5 * n.y;
    vec3 lit = albedo * (0.25 + 0.25 * sky + 0.8 * diffuse);
    colour = vec4(apply_fog(lit, world_position), 1.0);
}
