#version 450
// merge_partition.comp: the merge-path splits of one merge pass. Invocation c
// finds, for the first output key of merge chunk c (c << chunk_log), how many of
// its keys come from run A: a binary search along that diagonal, on A against B,
// the earlier run winning ties so the merge is stable. merge_pass.comp reads the
// splits of its chunk and the next. All chunks search at once: a dispatch costs
// one search's latency, not one per workgroup.
layout(local_size_x_id = 0) in;
const uint REGISTERS = 1u << REGISTER_LOG;

#include "network.glsl"
#include "merge_common.glsl"

layout(std430, binding = 5) writeonly buffer Splits { uint splits[]; };

key_t key_at(uint index)
{
    return load_key(keys[index]);
}

void main()
{
    live_count = key_count();
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint chunk = workgroup * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (chunk >= params.group_count)
        return;  // safe: this kernel has no barrier
    uint position = chunk << params.chunk_log;
    merge_runs runs = runs_of(position, params.phase);
    uint a = runs.base, b = runs.base + runs.a_count;
    uint diagonal = min(position - runs.base, runs.a_count + runs.b_count);
    uint low = diagonal > runs.b_count ? diagonal - runs.b_count : 0u;
    uint high = min(diagonal, runs.a_count);
    while (low < high) {
        uint mid = (low + high) >> 1;
        uint b_index = b + diagonal - 1u - mid;
#ifdef WITH_VALUES
        bool a_first = !pair_less(key_at(b_index), values[b_index], key_at(a + mid), values[a + mid]);
#else
        bool a_first = !(key_at(b_index) < key_at(a + mid));
#endif
        if (a_first)
            low = mid + 1u;
        else
            high = mid;
    }
    splits[chunk] = low;
}
