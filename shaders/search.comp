#version 450
// search.comp: range search on sorted keys. For query q, first[q] is the first
// index whose key is not below lows[q] (lower bound) and end[q] the first index
// whose key is above highs[q] (upper bound), in the sort's order and key type, so
// [first, end) holds exactly the keys within [low, high]: no fix-ups afterwards.
// One invocation per query, a plain binary search over the ordered bits.
layout(local_size_x_id = 0) in;

layout(push_constant) uniform SearchParams {
    uint count;         // sorted keys
    uint query_count;
    uint key_xor;       // 0 ascending, all ones descending
    uint key_type;
} params;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) readonly buffer Lows { uint lows[]; };
layout(std430, binding = 2) readonly buffer Highs { uint highs[]; };
layout(std430, binding = 3) writeonly buffer First { uint first[]; };
layout(std430, binding = 4) writeonly buffer End { uint end[]; };

#include "key_order.glsl"

// The first index in [0, count) whose ordered key is >= bound (or > bound
// when strictly_above), count if none.
uint partition_point(uint bound, bool strictly_above)
{
    uint low = 0u, high = params.count;
    while (low < high) {
        uint middle = low + (high - low) / 2u;
        uint key = ordered_key(keys[middle], params.key_type, params.key_xor);
        bool before = strictly_above ? key <= bound : key < bound;
        if (before)
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

void main()
{
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint query = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (query >= params.query_count)
        return;  // no barrier in this kernel
    first[query] = partition_point(ordered_key(lows[query], params.key_type, params.key_xor), false);
    end[query] = partition_point(ordered_key(highs[query], params.key_type, params.key_xor), true);
}
