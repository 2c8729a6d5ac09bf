// lane_network.glsl: steps of the bitonic network between the lanes of a
// subgroup, for kernels whose threads hold REGISTERS consecutive keys each
// ("blocked") and whose subgroups are runs of consecutive threads: a stride of
// s keys (s >= REGISTERS) is lane distance s / REGISTERS. Used by
// tile_shuffle_pass.comp (the network tile kernel) and tile_sort_pass.comp
// built with LANE_MERGES (the first merge rounds of the tile merge sort). The
// includer enables GL_KHR_shader_subgroup_shuffle and includes network.glsl.

// Register r meets other_key (other_value) held by the partner lane. This
// lane's key sits below the partner's when lower; the pair is exchanged when
// the upper key is strictly smaller, the rule of compare_exchange(). 32-bit
// keys alone take the lesser or the greater: one instruction where the two
// comparisons and the select below took several (the tile merge sort's lane
// phases on the H100, docs/perf-log.md, entry 76); 64-bit keys, whose
// min and max are each a comparison and two selects, and pairs compare once:
// this lane takes the partner's key exactly when the partner's goes first
// and this lane is the lower (or not first and the upper: equal keys or pairs
// are the same bits either way, so swapping them changes nothing).
void lane_combine(uint r, key_t other_key, uint other_value, bool lower)
{
#if !defined(WITH_VALUES) && !defined(KEY64)
    reg_keys[r] = lower ? min(reg_keys[r], other_key) : max(reg_keys[r], other_key);
#else
#ifdef WITH_VALUES
    bool other_first = pair_less(other_key, other_value, reg_keys[r], reg_values[r]);
#else
    bool other_first = other_key < reg_keys[r];
#endif
    bool take_other = other_first == lower;
    reg_keys[r] = take_other ? other_key : reg_keys[r];
#ifdef WITH_VALUES
    reg_values[r] = take_other ? other_value : reg_values[r];
#endif
#endif
}

// A key from the lane at lane ^ mask (64-bit keys as two 32-bit shuffles, so
// no extended subgroup types are needed).
key_t shuffle_key(key_t key, uint mask)
{
#ifdef KEY64
    uvec2 halves = unpackUint2x32(key);
    return packUint2x32(uvec2(subgroupShuffleXor(halves.x, mask), subgroupShuffleXor(halves.y, mask)));
#else
    return subgroupShuffleXor(key, mask);
#endif
}

uint shuffle_value(uint r, uint mask)
{
#ifdef WITH_VALUES
    return subgroupShuffleXor(reg_values[r], mask);
#else
    return 0u;
#endif
}

// Half-cleaner at lane distance lane_stride: register r meets register r of
// lane ^ lane_stride.
void lane_disperse(uint lane, uint lane_stride)
{
    bool lower = (lane & lane_stride) == 0u;
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        key_t other_key = shuffle_key(reg_keys[r], lane_stride);
        uint other_value = shuffle_value(r, lane_stride);
        lane_combine(r, other_key, other_value, lower);
    }
}

// Flip of blocks of block_lanes lanes: key (lane, r) meets key
// (lane ^ (block_lanes - 1), REGISTERS - 1 - r), its mirror in the block.
void lane_flip(uint lane, uint block_lanes)
{
    uint mask = block_lanes - 1u;
    bool lower = (lane & (block_lanes >> 1)) == 0u;
    [[unroll]] for (uint r = 0u; r < REGISTERS / 2u; ++r) {
        uint mirror = REGISTERS - 1u - r;
        key_t key_for_r = shuffle_key(reg_keys[mirror], mask);
        uint value_for_r = shuffle_value(mirror, mask);
        key_t key_for_mirror = shuffle_key(reg_keys[r], mask);
        uint value_for_mirror = shuffle_value(r, mask);
        lane_combine(r, key_for_r, value_for_r, lower);
        lane_combine(mirror, key_for_mirror, value_for_mirror, lower);
    }
}
