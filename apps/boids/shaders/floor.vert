#version 450
// floor.vert: one large quad (two triangles) under the flock.
#include "render_common.glsl"

layout(location = 0) out vec3 out_world_position;

void main()
{
    const vec2 quad[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    vec2 corner = quad[gl_VertexIndex] * frame.floor_extent;
    vec3 world = vec3(frame.floor_centre.x + corner.x, frame.floor_centre.y, frame.floor_centre.z + corner.y);
    out_world_position = world;
    gl_Position = frame.view_projection * vec4(world, 1.0);
}
