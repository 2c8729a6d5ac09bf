// network.glsl: what the tile and global kernels share: the push constants,
// the key buffers, and one step group of the bitonic network in registers.
// REGISTER_LOG (keys per thread, log2) is a build-time constant: each kernel
// is compiled once per value (shaders/CMakeLists.txt) and the tuning picks one.
// Addressing mirrors bitonic_group_key_index() in src/core/schedule.h; keep the
// two in step (the C reference executor proves that formula on every input).
//
// WIDE_ADDRESSING builds the variant for sorts whose buffers pass the largest
// storage-buffer binding (maxStorageBufferRange, 4 GiB - 1 on NVIDIA): keys,
// values, scratch and splits are reached through buffer device addresses in
// the push constants instead of bound buffers, and positions and counts are
// 64-bit (index_t), since 2^32 keys are past any 32-bit position. Only the
// kernels of the merge path (tile sort, split pass, merge) are built this way;
// rows and the transposed view stay with bound buffers.
//
// UNPACK_OUT (with KEY64, bound buffers) builds the partition sort's window
// merge of packed pairs (sorter/partition.c, sort_plan.packed_pairs): its 64-bit keys
// are pairs of 32-bit keys, the ordered key above the value, already in the
// order they sort in, and it writes them to the caller's keys and values
// apart, the key back to its stored bits (params.key_type, params.key_xor).
#extension GL_EXT_control_flow_attributes : require
#if defined(KEY64) || defined(WIDE_ADDRESSING) || defined(PAIRS_AS_INT64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#ifdef KEY64
// 64-bit keys (u64, i64, f64): the same network over uint64_t.
#define key_t uint64_t
#define PAD_KEY 0xffffffffffffffffUL
#define KEY_BYTES 8
#else
#define key_t uint
#define PAD_KEY 0xffffffffu
#define KEY_BYTES 4
#endif
#ifdef WIDE_ADDRESSING
#extension GL_EXT_buffer_reference : require
#define index_t uint64_t
#define index2_t u64vec2
#else
#define index_t uint
#define index2_t uvec2
#endif

layout(push_constant) uniform PassParams {
    uint count;        // keys in the buffer; indices at or past it are +infinity
    uint phase;        // log2 of the merge block of the first step
    uint stride_log;   // log2 of the first step's stride (phase - 1: the flip)
    uint last_phase;   // tile kernel: run through the end of this phase
    uint group_count;  // global: register groups to run; tile: tiles
    uint key_xor;      // 0 ascending, all ones descending: applied after the key transform
    uint key_type;     // KEY_U32, KEY_I32 or KEY_F32: how the stored bits map to ordered bits
    uint row_log;      // 0: one array; else rows of 2^row_log virtual keys, sorted independently
    uint row_length;   // keys a row holds in memory; its virtual keys past that are +infinity
    uint count_offset; // ~0u: count is the key count; else the count is read at execution
                       // time from word count_offset of the Count buffer, capped at count
    uint output_buffer; // tile kernels: 0 stores in place, 1 stores to KeysOut (and ValuesOut)
    uint splits_given;  // merge: 1 reads the splits of a split pass, 0 finds them itself
    uint vector_io;     // merge, tile sort: 1 when both sides start 16-byte aligned (uvec4 views usable)
    // The transposed view (transpose strategy, src/core/schedule.h): 0 for every
    // pass but a transpose and a tile pass run in the view, which read the keys
    // as 2^view_row_log rows of 2^view_column_log columns stored column by
    // column, view_rows_used rows a column.
    uint view_column_log;
    uint view_row_log;
    uint view_rows_used;
    uint view_mirror_phase; // not 0: rows in the upper half of a block of this phase have mirrored columns
    uint view_forward;      // transpose: 1 from the keys into the view, 0 back
    uint sample_runs;       // merge: 1 leaves run samples after the splits; split pass: 1 reads them
#ifdef WIDE_ADDRESSING
    // Bits 32..63 of count, and where each side lies in device memory (the
    // pass's input keys and values, its output ones, the merge splits).
    uint count_high;
    uint64_t keys_address;
    uint64_t values_address;
    uint64_t keys_out_address;
    uint64_t values_out_address;
    uint64_t splits_address;
#endif
} params;

// A kernel that only reads the keys (the merges, the split pass) defines
// KEYS_READONLY: readonly restrict lets the compiler serve the loads from the
// first-level cache, where every split search's first probes and a merge's
// neighbouring slices meet.
#ifdef WIDE_ADDRESSING
// One key or value at an address; an address is the side's address plus the
// index times the element size, computed in 64 bits.
#ifdef KEYS_READONLY
layout(buffer_reference, std430, buffer_reference_align = KEY_BYTES) readonly restrict buffer KeyIn { key_t key; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly restrict buffer ValueIn { uint value; };
#else
layout(buffer_reference, std430, buffer_reference_align = KEY_BYTES) buffer KeyIn { key_t key; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer ValueIn { uint value; };
#endif
layout(buffer_reference, std430, buffer_reference_align = KEY_BYTES) writeonly buffer KeyOut { key_t key; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer ValueOut { uint value; };

key_t read_key(index_t i)
{
    return KeyIn(params.keys_address + i * uint64_t(KEY_BYTES)).key;
}
#ifdef WITH_VALUES
uint read_value(index_t i)
{
    return ValueIn(params.values_address + i * 4ul).value;
}
#endif
#ifndef KEYS_READONLY
void write_key(index_t i, key_t stored)
{
    KeyIn(params.keys_address + i * uint64_t(KEY_BYTES)).key = stored;
}
void write_value(index_t i, uint value)
{
    ValueIn(params.values_address + i * 4ul).value = value;
}
#endif
void write_key_out(index_t i, key_t stored)
{
    KeyOut(params.keys_out_address + i * uint64_t(KEY_BYTES)).key = stored;
}
void write_value_out(index_t i, uint value)
{
    ValueOut(params.values_out_address + i * 4ul).value = value;
}
#else
#ifdef KEYS_READONLY
layout(std430, binding = 0) readonly restrict buffer Keys { key_t keys[]; };
#ifdef WITH_VALUES
layout(std430, binding = 1) readonly restrict buffer Values { uint values[]; };
#endif
#else
layout(std430, binding = 0) buffer Keys { key_t keys[]; };
#ifdef WITH_VALUES
layout(std430, binding = 1) buffer Values { uint values[]; };
#endif
#endif
// Where a pass that does not work in place writes: the tile sort before an odd
// number of merges, and every merge (they ping-pong between the keys and scratch).
#ifdef UNPACK_OUT
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#else
layout(std430, binding = 3) writeonly buffer KeysOut { key_t keys_out[]; };
#ifdef WITH_VALUES
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#endif
#endif

// The same accesses through the bound buffers, so the kernels read one way.
key_t read_key(index_t i)
{
    return keys[i];
}
#ifdef WITH_VALUES
uint read_value(index_t i)
{
    return values[i];
}
#endif
#ifndef KEYS_READONLY
void write_key(index_t i, key_t stored)
{
    keys[i] = stored;
}
#ifdef WITH_VALUES
void write_value(index_t i, uint value)
{
    values[i] = value;
}
#endif
#endif
#ifdef UNPACK_OUT
#include "key_order.glsl"
// A packed pair (an ordered key above its value) to the caller's two arrays.
void write_key_out(index_t i, key_t packed)
{
    uvec2 halves = unpackUint2x32(packed);
    keys_out[i] = stored_key(halves.y, params.key_type, params.key_xor);
    values_out[i] = halves.x;
}
#else
void write_key_out(index_t i, key_t stored)
{
    keys_out[i] = stored;
}
#endif
#ifdef WITH_VALUES
void write_value_out(index_t i, uint value)
{
    values_out[i] = value;
}
#endif
#endif
// A count the GPU wrote (a particle system's live count): read when the pass
// starts, so nothing has to come back to the host. Bound to the keys when unused.
layout(std430, binding = 2) readonly buffer Count { uint counts[]; };

// The number of real keys this pass sorts (see count_offset): read once, at
// the start of main(), into live_count.
// A 32-bit value (a specialisation constant such as the workgroup size) as an
// index: through a call, so the widening is an instruction at run time, not a
// specialisation-constant UConvert, which SPIR-V before 1.4 does not allow.
index_t as_index(uint x)
{
    return index_t(x);
}

// The count the host recorded (64-bit in the wide variant).
index_t recorded_count()
{
#ifdef WIDE_ADDRESSING
    return (uint64_t(params.count_high) << 32) | uint64_t(params.count);
#else
    return params.count;
#endif
}

index_t key_count()
{
    return params.count_offset == 0xffffffffu ? recorded_count()
                                              : min(index_t(counts[params.count_offset]), recorded_count());
}

index_t live_count;

#ifdef WITH_VALUES
// Pads sort after every real (key, value): real values are below 2^32 - 1.
const uint PAD_VALUE = 0xffffffffu;
#endif

#include "key_order.glsl"

// Where (row, stored column) of the transposed view lies: its index in the
// keys' order and in the view's storage. Whether it holds a real key: when not
// (past the rows or columns, or past the count), neither index may be read.
// Mirrors bitonic_view_index() in src/core/schedule.h.
#ifndef WIDE_ADDRESSING
bool view_place(uint row, uint column, out uint original, out uint stored)
{
    uint columns = 1u << params.view_column_log;
    original = 0u;
    stored = 0u;
    if (row >= params.view_rows_used || column >= columns)
        return false;
    bool mirrored = params.view_mirror_phase != 0u &&
                    ((row >> (params.view_mirror_phase - 1u - params.view_column_log)) & 1u) != 0u;
    original = (row << params.view_column_log) + (mirrored ? columns - 1u - column : column);
    stored = column * params.view_rows_used + row;
    return original < live_count;
}
#endif

// The memory index of virtual key v, and whether it holds a real key (not a
// +infinity pad past the end of the keys or past the end of its row). In a
// view, v counts rows within columns and the memory is the view's storage.
bool physical_index(index_t v, out index_t physical)
{
#ifdef WIDE_ADDRESSING
    // One array: neither views nor rows take this variant (src/vulkan/sorter/plan.c).
    physical = v;
    return v < live_count;
#else
    if (params.view_column_log != 0u) {
        uint original;
        return view_place(v & ((1u << params.view_row_log) - 1u), v >> params.view_row_log, original, physical);
    }
    if (params.row_log == 0u) {
        physical = v;
        return v < live_count;
    }
    uint column = v & ((1u << params.row_log) - 1u);
    physical = (v >> params.row_log) * params.row_length + column;
    return column < params.row_length && physical < live_count;
#endif
}

// The first virtual key of tile number `tile` of a tile kernel: tile << tile_log,
// except in a view whose columns are longer than a tile, where only the tiles
// holding used rows are numbered, column by column (bitonic_view_tile_first_key()
// in src/core/schedule.h).
index_t tile_first_key(uint tile, uint tile_log)
{
#ifdef WIDE_ADDRESSING
    return index_t(tile) << tile_log;
#else
    if (params.view_column_log == 0u || params.view_row_log <= tile_log)
        return tile << tile_log;
    uint used_tiles = (params.view_rows_used + (1u << tile_log) - 1u) >> tile_log;
    return ((tile / used_tiles) << params.view_row_log) + ((tile % used_tiles) << tile_log);
#endif
}

key_t load_key(key_t stored)
{
#ifdef UNPACK_OUT
    return stored;  // packed pairs are ordered already
#elif defined(KEY64)
    return ordered_key64(stored, params.key_type, params.key_xor);
#else
    return ordered_key(stored, params.key_type, params.key_xor);
#endif
}

key_t store_key(key_t ordered)
{
#ifdef UNPACK_OUT
    return ordered;  // write_key_out unpacks
#elif defined(KEY64)
    return stored_key64(ordered, params.key_type, params.key_xor);
#else
    return stored_key(ordered, params.key_type, params.key_xor);
#endif
}

// Writes an ordered key (and its value) at memory index `index` of the pass's
// output: in place, or to KeysOut when params.output_buffer says so (a uniform
// branch rather than one binding aliased to the other).
#ifndef KEYS_READONLY
void store_result(index_t index, key_t ordered, uint value)
{
    if (params.output_buffer == 0u) {
        write_key(index, store_key(ordered));
#ifdef WITH_VALUES
        write_value(index, value);
#endif
    } else {
        write_key_out(index, store_key(ordered));
#ifdef WITH_VALUES
        write_value_out(index, value);
#endif
    }
}
#endif

key_t reg_keys[REGISTERS];
#ifdef WITH_VALUES
uint reg_values[REGISTERS];
#endif

// With values, (key, value) pairs are ordered by key, then by value: equal keys
// come out in value order, so a sort is deterministic, and with the original
// indices as values it is stable. The test is key_order.glsl's (one 64-bit
// compare in the PAIRS_AS_INT64 and WIDE_ADDRESSING builds).
#ifdef WITH_VALUES
bool pair_less(key_t key_x, uint value_x, key_t key_y, uint value_y)
{
    return ordered_pair_before(key_x, value_x, key_y, value_y);
}
#endif

// The smaller key to register a, the larger to b. Swap only when b is strictly
// smaller, so a +infinity pad (above every real key) never moves down.
void compare_exchange(uint a, uint b)
{
#ifdef WITH_VALUES
    bool swap = pair_less(reg_keys[b], reg_values[b], reg_keys[a], reg_values[a]);
    key_t key_a = reg_keys[a], key_b = reg_keys[b];
    uint value_a = reg_values[a], value_b = reg_values[b];
    reg_keys[a] = swap ? key_b : key_a;
    reg_keys[b] = swap ? key_a : key_b;
    reg_values[a] = swap ? value_b : value_a;
    reg_values[b] = swap ? value_a : value_b;
#else
    key_t low = min(reg_keys[a], reg_keys[b]);
    reg_keys[b] = max(reg_keys[a], reg_keys[b]);
    reg_keys[a] = low;
#endif
}

// The key index that register reg of group number group_index holds, for a
// step group of step_count steps from stride 2^top_stride_log (see schedule.h).
uint group_key_index(uint group_index, uint reg, uint phase, uint top_stride_log, uint step_count)
{
    uint low_log = top_stride_log + 1u - step_count;
    uint low_mask = (1u << low_log) - 1u;
    uint low = group_index & low_mask;
    uint base = (group_index >> low_log) << (low_log + REGISTER_LOG);
    bool flip = top_stride_log + 1u == phase;
    bool upper_half = ((reg >> (step_count - 1u)) & 1u) != 0u;
    if (flip && upper_half)
        low = low_mask - low;
    return base + (reg << low_log) + low;
}

// One step over all registers: the flip of blocks of BLOCK registers, or the
// half-cleaner at register stride STRIDE. Each is a literal at every use, so
// the one-level loops unroll at build time and every register index is a
// constant: the keys stay in registers instead of spilling to local memory.
#define FLIP_STEP(BLOCK)                                                   \
    [[unroll]] for (uint i = 0u; i < REGISTERS; ++i)                       \
        if ((i & ((BLOCK) >> 1)) == 0u)                                     \
            compare_exchange(i, i ^ ((BLOCK) - 1u));
#define DISPERSE_STEP(STRIDE)                                              \
    [[unroll]] for (uint i = 0u; i < REGISTERS; ++i)                       \
        if ((i & (STRIDE)) == 0u)                                           \
            compare_exchange(i, i | (STRIDE));

// The steps of one step group: the flip when the group starts its phase, then
// the half-cleaners of the remaining strides, over all registers.
void register_network(bool flip, uint step_count)
{
#if REGISTER_LOG >= 5
    if (flip && step_count == 5u) { FLIP_STEP(32u) }
#endif
#if REGISTER_LOG >= 4
    if (flip && step_count == 4u) { FLIP_STEP(16u) }
#endif
#if REGISTER_LOG >= 3
    if (flip && step_count == 3u) { FLIP_STEP(8u) }
#endif
#if REGISTER_LOG >= 2
    if (flip && step_count == 2u) { FLIP_STEP(4u) }
#endif
    if (flip && step_count == 1u) { FLIP_STEP(2u) }
    uint disperse_steps = flip ? step_count - 1u : step_count;
#if REGISTER_LOG >= 5
    if (disperse_steps >= 5u) { DISPERSE_STEP(16u) }
#endif
#if REGISTER_LOG >= 4
    if (disperse_steps >= 4u) { DISPERSE_STEP(8u) }
#endif
#if REGISTER_LOG >= 3
    if (disperse_steps >= 3u) { DISPERSE_STEP(4u) }
#endif
#if REGISTER_LOG >= 2
    if (disperse_steps >= 2u) { DISPERSE_STEP(2u) }
#endif
    if (disperse_steps >= 1u) { DISPERSE_STEP(1u) }
}
