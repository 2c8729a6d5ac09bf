#version 450
// boid.vert: one instance per boid, drawn as a small dart (a four-sided cone,
// wider than tall, like a bird seen from above) pointing along its heading.
// Flat normals come from each triangle's corners. With SHADOW set the same
// dart is flattened onto the floor along the light, as a soft shadow.
#include "render_common.glsl"

layout(constant_id = 0) const bool SHADOW = false;

struct Boid {
    vec4 position;
    vec4 velocity;
};
layout(std430, binding = 0) readonly buffer State { Boid boids[]; };

layout(location = 0) out vec3 out_world_position;
layout(location = 1) out vec3 out_normal;
layout(location = 2) out vec3 out_albedo;

// Local frame: x forward, y up, z right. Tip, then the four corners of the base.
const vec3 corners[5] = vec3[5](vec3(1.0, 0.0, 0.0), vec3(-0.35, 0.14, 0.0), vec3(-0.35, 0.0, 0.42),
                                vec3(-0.35, -0.14, 0.0), vec3(-0.35, 0.0, -0.42));
// Four side faces and a base of two triangles, counter-clockwise from outside.
const uint triangles[18] = uint[18](0, 2, 1, 0, 3, 2, 0, 4, 3, 0, 1, 4, 1, 2, 3, 1, 3, 4);

uint hash_u32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

void main()
{
    Boid boid = boids[gl_InstanceIndex];
    vec3 forward = boid.velocity.xyz;
    vec3 side = cross(forward, vec3(0.0, 1.0, 0.0));
    side = dot(side, side) > 1e-6 ? normalize(side) : vec3(0.0, 0.0, 1.0);
    vec3 up = cross(side, forward);
    mat3 to_world = mat3(forward, up, side) * frame.boid_length;

    uint triangle = uint(gl_VertexIndex) / 3u;
    vec3 a = corners[triangles[triangle * 3u]];
    vec3 b = corners[triangles[triangle * 3u + 1u]];
    vec3 c = corners[triangles[triangle * 3u + 2u]];
    vec3 local = corners[triangles[gl_VertexIndex]];
    vec3 world = boid.position.xyz + to_world * local;
    out_normal = normalize(mat3(forward, up, side) * cross(b - a, c - a));

    if (SHADOW) {
        float height = world.y - frame.floor_centre.y;
        world -= frame.light_direction * (height / frame.light_direction.y);
        world.y = frame.floor_centre.y + 0.002 * frame.floor_extent;
    }
    // Two palettes mixed per boid, a little brighter when it flies fast.
    float pick = float(hash_u32(uint(gl_InstanceIndex)) >> 8) / 16777215.0;
    vec3 albedo = mix(vec3(0.95, 0.55, 0.20), vec3(0.25, 0.60, 0.85), pick * pick);
    out_albedo = albedo * (0.85 + 0.15 * clamp(boid.velocity.w / 8.0, 0.0, 1.0));
    out_world_position = world;
    gl_Position = frame.view_projection * vec4(world, 1.0);
}
