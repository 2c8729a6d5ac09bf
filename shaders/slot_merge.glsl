// slot_merge.glsl: a thread's share of merging two sorted runs that sit in
// shared memory, into its registers; merge_pass.comp (a chunk's two slices)
// and tile_sort_pass.comp (each merge round of a tile) both merge this way.
// The includer defines slot_key(i) and slot_value(i) (slot i of its shared
// arrays, clamped into them: a run's head is read one past its end when the
// run is used up, and that key is never taken) and KEY_BEFORE. Run A holds
// a_count keys from slot a_first, run B b_count keys from slot b_first.

// How many keys of A the first `diagonal` outputs of the merge hold (the merge
// path's split): A[m] goes first unless B[diagonal - 1 - m] is strictly before
// it, so ties take A and the merge is stable.
uint slot_merge_split(uint a_first, uint a_count, uint b_first, uint b_count, uint diagonal)
{
    uint low = diagonal > b_count ? diagonal - b_count : 0u;
    uint high = min(diagonal, a_count);
    while (low < high) {
        uint mid = (low + high) >> 1;
        uint b_slot = b_first + diagonal - 1u - mid;
        if (!KEY_BEFORE(slot_key(b_slot), slot_value(b_slot), slot_key(a_first + mid), slot_value(a_first + mid)))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

// Outputs diagonal .. diagonal + REGISTERS - 1 of the merge into reg_keys (and
// reg_values). Past the end of both runs the registers hold what the clamped
// reads gave; the caller does not store those. The heads are kept as slot
// numbers with the runs' ends beside them (four registers, where indices into
// each run plus its first slot and count were six): the tile merge sort's
// 1024-thread workgroups took 31 registers a thread on the H100 this way, 33
// the other (two workgroups a multiprocessor need 32 or fewer; the time did
// not change, docs/perf-log.md, entry 25).
void slot_merge_to_registers(uint a_first, uint a_count, uint b_first, uint b_count, uint diagonal)
{
    uint i = slot_merge_split(a_first, a_count, b_first, b_count, diagonal);
    uint a_slot = a_first + i, a_end = a_first + a_count;           // next of A, and where A ends
    uint b_slot = b_first + (diagonal - i), b_end = b_first + b_count;  // next of B, and where B ends
    key_t key_a = slot_key(a_slot), key_b = slot_key(b_slot);
    uint value_a = slot_value(a_slot), value_b = slot_value(b_slot);
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        bool take_a = a_slot < a_end && (b_slot >= b_end || !KEY_BEFORE(key_b, value_b, key_a, value_a));
        reg_keys[r] = take_a ? key_a : key_b;
#ifdef WITH_VALUES
        reg_values[r] = take_a ? value_a : value_b;
#endif
        // One shared read a key: the head that was taken is refilled.
        uint next = (take_a ? a_slot : b_slot) + 1u;
        key_t next_key = slot_key(next);
        uint next_value = slot_value(next);
        key_a = take_a ? next_key : key_a;
        value_a = take_a ? next_value : value_a;
        key_b = take_a ? key_b : next_key;
        value_b = take_a ? value_b : next_value;
        a_slot += take_a ? 1u : 0u;
        b_slot += take_a ? 0u : 1u;
    }
#ifdef SLOT_MERGE_NEXT_HEAD
    // Output diagonal + REGISTERS, the next thread's first (what the clamped
    // reads gave, past the end of both runs), where the includer's condition
    // SLOT_MERGE_NEXT_HEAD holds: it declares next_head_key and next_head_value.
    if (SLOT_MERGE_NEXT_HEAD) {
        bool next_a = a_slot < a_end && (b_slot >= b_end || !KEY_BEFORE(key_b, value_b, key_a, value_a));
        next_head_key = next_a ? key_a : key_b;
        next_head_value = next_a ? value_a : value_b;
    }
#endif
}
