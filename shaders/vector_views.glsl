// vector_views.glsl: the keys and values seen 16 bytes at a time (bindings 6
// to 9: the same buffers as Keys, KeysOut, Values and ValuesOut), used where
// the host says the buffers allow it (params.vector_io): four 32-bit keys or
// values, or two 64-bit keys, a load or store. A 4-byte access is a quarter of
// what a memory transaction carries (docs/perf-log.md, entry 20).
// Kernels that read one side and write the other (the merges) define
// VECTOR_INPUT_RESTRICT as restrict; the tile sort may sort in place, where
// the input and output views are one buffer, and leaves it empty.
#ifndef VECTOR_INPUT_RESTRICT
#define VECTOR_INPUT_RESTRICT
#endif
layout(std430, binding = 6) readonly VECTOR_INPUT_RESTRICT buffer Keys4 { uvec4 keys4[]; };
#ifdef UNPACK_OUT
// Two packed pairs a group: their keys and values, 8 bytes each.
layout(std430, binding = 7) writeonly buffer KeysOut2 { uvec2 keys_out2[]; };
layout(std430, binding = 9) writeonly buffer ValuesOut2 { uvec2 values_out2[]; };
#else
layout(std430, binding = 7) writeonly buffer KeysOut4 { uvec4 keys_out4[]; };
#endif
#ifdef WITH_VALUES
layout(std430, binding = 8) readonly VECTOR_INPUT_RESTRICT buffer Values4 { uvec4 values4[]; };
layout(std430, binding = 9) writeonly buffer ValuesOut4 { uvec4 values_out4[]; };
#endif

#ifdef KEY64
const uint KEYS_PER_VECTOR = 2u;
key_t vector_key(uvec4 four, uint e)
{
    return packUint2x32(e == 0u ? four.xy : four.zw);
}
uvec4 key_vector(key_t first, key_t second)
{
    return uvec4(unpackUint2x32(first), unpackUint2x32(second));
}
#else
const uint KEYS_PER_VECTOR = 4u;
key_t vector_key(uvec4 four, uint e)
{
    return four[e];
}
#endif
