// render_common.glsl: push constants shared by the draws of one frame
// (mirrored by render_push in render.c) and the fog every surface fades into.

layout(push_constant) uniform FrameParams {
    mat4 view_projection;
    vec3 camera_position;  float fog_density;
    vec3 light_direction;  float boid_length;   // light_direction: where light travels, unit
    vec3 floor_centre;     float floor_extent;  // floor_centre.y: the floor's height
    vec3 fog_colour;       float grid_spacing;
} frame;

vec3 apply_fog(vec3 colour, vec3 world_position)
{
    float distance_to_camera = length(world_position - frame.camera_position);
    float visibility = exp(-frame.fog_density * distance_to_camera);
    return mix(frame.fog_colour, colour, clamp(visibility, 0.0, 1.0));
}
