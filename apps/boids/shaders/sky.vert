#version 450
// sky.vert: a triangle that covers the screen, drawn first without depth.
layout(location = 0) out float out_height;

void main()
{
    vec2 position = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)) * 2.0 - 1.0;
    out_height = position.y;
    gl_Position = vec4(position, 1.0, 1.0);
}
