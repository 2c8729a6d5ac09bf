#version 450
// station_keys.comp: the seed's sort key. Each boid's distance to one fixed
// station, as the bits of a non-negative float (which order like the floats
// themselves when compared as u32), paired with the boid's index.
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };

void main()
{
    uint id = flat_invocation_index();
    if (id >= params.count)
        return;
    precise vec3 from_station = state_in[id].position.xyz - params.station;
    precise float distance_to_station = sqrt(dot(from_station, from_station));
    keys[id] = floatBitsToUint(distance_to_station);
    values[id] = id;
}
