#version 450
// search.comp: range search on sorted keys. For query q, first[q] is the first
// index whose key is not below lows[q] (lower bound) and end[q] the first index
// whose key is above highs[q] (upper bound), in the sort's order and key type, so
// [first, end) holds exactly the keys within [low, high]: no fix-ups afterwards.
// One invocation per query, a plain binary search over the ordered bits.
layout(local_size_x_id = 0) in;
#ifdef KEY64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define key_t uint64_t
#else
#define key_t uint
#endif

layout(push_constant) uniform SearchParams {
    uint count;         // sorted keys
    uint query_count;
    uint key_xor;       // 0 ascending, all ones descending
    uint key_type;
} params;

layout(std430, binding = 0) readonly buffer Keys { key_t keys[]; };
layout(std430, binding = 1) readonly buffer Lows { key_t lows[]; };
layout(std430, binding = 2) readonly buffer Highs { key_t highs[]; };
layout(std430, binding = 3) writeonly buffer First { uint first[]; };
layout(std430, binding = 4) writeonly buffer End { uint end[]; };

#include "key_order.glsl"

key_t ordered(key_t stored)
{
#ifdef KEY64
    return ordered_key64(stored, params.key_type, params.key_xor);
#else
    return ordered_key(stored, params.key_type, params.key_xor);
#endif
}

// The first index in [0, count) whose ordered key is >= bound (or > bound
// when strictly_above), count if none.
uint partition_point(key_t bound, bool strictly_above)
{
    uint low = 0u, high = params.count;
    while (low < high) {
        uint middle = low + (high - low) / 2u;
        key_t key = ordered(keys[middle]);
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
    first[query] = partition_point(ordered(lows[query]), false);
    end[query] = partition_point(ordered(highs[query]), true);
}
