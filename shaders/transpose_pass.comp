#version 450
// transpose_pass.comp: one TRANSPOSE pass of the transpose strategy
// (src/core/schedule.h): copies every real key (and its value) between the
// keys' own order and the transposed view in the scratch buffer, where the keys
// of one column of the matrix lie together, so the network's large strides are
// small ones there. A workgroup moves one square block of BLOCK stored columns x
// BLOCK rows through shared memory: it reads the block along the layout it
// comes from and writes it along the layout it goes to, so both the reads and
// the writes cover runs of BLOCK neighbouring keys (a mirrored row, whose
// columns run backwards, is still one run). Keys are copied as stored: the tile
// pass that runs in the view maps them to ordered bits as it always does.
// Rows of the block are padded by one key, so walking a column of it in shared
// memory touches BLOCK different banks.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint BLOCK_LOG = 5u;
const uint BLOCK = 1u << BLOCK_LOG;
const uint REGISTERS = 1u << REGISTER_LOG;  // network.glsl's registers; this kernel holds none

#include "network.glsl"

shared key_t block_keys[BLOCK * (BLOCK + 1u)];
#ifdef WITH_VALUES
shared uint block_values[BLOCK * (BLOCK + 1u)];
#endif

void main()
{
    live_count = key_count();
    uint column_blocks = max((1u << params.view_column_log) >> BLOCK_LOG, 1u);
    uint workgroup = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint first_column = (workgroup % column_blocks) << BLOCK_LOG;
    uint first_row = (workgroup / column_blocks) << BLOCK_LOG;
    // Whole workgroups past the last row leave before any barrier.
    if (first_row >= params.view_rows_used)
        return;
    bool forward = params.view_forward != 0u;
    // A thread takes the key at `lane` along a line of the block, and lines
    // first_line, first_line + line_step, ...
    uint lane = gl_LocalInvocationID.x & (BLOCK - 1u);
    uint first_line = gl_LocalInvocationID.x >> BLOCK_LOG;
    uint line_step = gl_WorkGroupSize.x >> BLOCK_LOG;

    // In: going into the view the lines are rows of the keys' order (lanes walk
    // the columns); coming back they are stored columns (lanes walk the rows).
    for (uint line = first_line; line < BLOCK; line += line_step) {
        uint block_row = forward ? line : lane, block_column = forward ? lane : line;
        uint original, stored;
        if (view_place(first_row + block_row, first_column + block_column, original, stored)) {
            uint slot = block_row * (BLOCK + 1u) + block_column;
            uint source = forward ? original : stored;
            block_keys[slot] = keys[source];
#ifdef WITH_VALUES
            block_values[slot] = values[source];
#endif
        }
    }
    barrier();
    // Out along the other layout.
    for (uint line = first_line; line < BLOCK; line += line_step) {
        uint block_row = forward ? lane : line, block_column = forward ? line : lane;
        uint original, stored;
        if (view_place(first_row + block_row, first_column + block_column, original, stored)) {
            uint slot = block_row * (BLOCK + 1u) + block_column;
            uint target = forward ? stored : original;
            keys_out[target] = block_keys[slot];
#ifdef WITH_VALUES
            values_out[target] = block_values[slot];
#endif
        }
    }
}
