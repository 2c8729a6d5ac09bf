#version 450
// sky.vert: a triangle that covers the screen at the far plane. Each corner
// carries its point on the far plane in world space (homogeneous, unprojected
// through the inverse view-projection), so the fragment shader knows the
// elevation of its view ray.
#include "render_common.glsl"

layout(location = 0) out vec4 out_far_point;

void main()
{
    vec2 position = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)) * 2.0 - 1.0;
    out_far_point = inverse(frame.view_projection) * vec4(position, 1.0, 1.0);
    gl_Position = vec4(position, 1.0, 1.0);
}
