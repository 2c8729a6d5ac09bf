#version 450
// move_station.comp: the seed's search, made exact. A boid at distance d from
// the station can only have neighbours whose distance lies in [d - w, d + w]
// (triangle inequality), w = R plus a bound on the float error of computing
// distances. Two binary searches of the sorted keys find that window: the first
// rank whose key is >= bits(d - w) and the first whose key is > bits(d + w);
// both are half-open, so no rank is added or dropped by hand. Every boid in the
// window then gets the same exact distance test as in the brute-force search.
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) writeonly buffer StateOut { Boid state_out[]; };
layout(std430, binding = 2) writeonly buffer DebugOut { uvec4 debug_out[]; };
layout(std430, binding = 3) readonly buffer SortedKeys { uint sorted_keys[]; };
layout(std430, binding = 4) readonly buffer SortedValues { uint sorted_ids[]; };
layout(std430, binding = 5) readonly buffer RankOf { uint rank_of[]; };
layout(std430, binding = 6) readonly buffer RankedState { Boid ranked_state[]; };

// First rank in [low, high) whose key is >= wanted; high if none.
uint first_key_at_least(uint low, uint high, uint wanted)
{
    while (low < high) {
        uint middle = low + (high - low) / 2u;
        if (sorted_keys[middle] < wanted)
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

// First rank in [low, high) whose key is > wanted; high if none.
uint first_key_above(uint low, uint high, uint wanted)
{
    while (low < high) {
        uint middle = low + (high - low) / 2u;
        if (sorted_keys[middle] <= wanted)
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

void main()
{
    uint self_id = flat_invocation_index();
    if (self_id >= params.count)
        return;
    Boid self = state_in[self_id];
    uint self_rank = rank_of[self_id];
    float d = uintBitsToFloat(sorted_keys[self_rank]);
    // station_margin is a relative bound, far above the few ulps by which a
    // computed distance can be off, on both boids' distances (each <= d + R).
    float half_width = params.radius + params.station_margin * (d + 2.0 * params.radius);
    uint low_key = floatBitsToUint(max(d - half_width, 0.0));
    uint high_key = floatBitsToUint(d + half_width);
    // The boid's own key lies inside its window, so each search needs only one
    // side of its rank.
    uint first = first_key_at_least(0u, self_rank, low_key);
    uint end = first_key_above(self_rank + 1u, params.count, high_key);

    Accumulator acc = accumulator_start();
    for (uint rank = first; rank < end; ++rank) {
        if (rank == self_rank)
            continue;
        Boid other = ranked_state[rank];
        if (is_neighbour(self.position.xyz, other.position.xyz))
            accumulate(acc, self.position.xyz, other, sorted_ids[rank]);
    }
    state_out[self_id] = steer(self, acc);
    if (params.debug != 0u)
        debug_out[self_id] = neighbour_fingerprint(acc);
}
