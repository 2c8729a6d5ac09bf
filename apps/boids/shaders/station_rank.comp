#version 450
// station_rank.comp: after the sort, a scatter that inverts the permutation
// (rank_of[boid] = its rank) and copies each boid's state to its rank, so the
// window a boid scans reads consecutive memory.
#include "flock_common.glsl"

layout(std430, binding = 0) readonly buffer StateIn { Boid state_in[]; };
layout(std430, binding = 1) readonly buffer SortedValues { uint sorted_ids[]; };
layout(std430, binding = 2) writeonly buffer RankOf { uint rank_of[]; };
layout(std430, binding = 3) writeonly buffer RankedState { Boid ranked_state[]; };

void main()
{
    uint rank = flat_invocation_index();
    if (rank >= params.count)
        return;
    uint id = sorted_ids[rank];
    rank_of[id] = rank;
    ranked_state[rank] = state_in[id];
}
