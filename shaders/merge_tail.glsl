// merge_tail.glsl: the merge that takes in the tail (the sorted keys past the
// two runs join their merge, so a count just past a power of two needs no
// merge pass of its own), for the direct merge and the shared-memory merge.
// Included by merge_pass.comp, merge_split.comp and merge_direct.comp, in
// the order merge_common.glsl, merge_search.glsl, merge_windows.glsl,
// merge_tail.glsl: the order of the functions is kept as it was in one file,
// because it fixes the order of the compiled modules' functions and so their
// bytes. SPLITS_ONLY (merge_split.comp) and DIRECT_MERGE (merge_direct.comp)
// say which kernel includes it; neither is the shared-memory merge.

// The value of key i, or 0 without values (KEY_BEFORE then compares keys alone).
uint value_or_zero(index_t i)
{
#ifdef WITH_VALUES
    return read_value(i);
#else
    return 0u;
#endif
}

#if !defined(SPLITS_ONLY)
// The merge that takes in the tail (last_phase = phase + 1; src/core/schedule.h,
// merge_tail_log): the keys from 2^phase on, one sorted run of at most
// 2^(phase-1), join the merge of the two runs below them, so a count just past
// a power of two needs no merge pass of its own. A merged key goes up by the
// tail keys before it; the workgroups past the runs' chunks place the tail, a
// thread a key, at its index in the tail plus the keys of A and B at or before
// it (ties to the earlier runs, as in every merge). The direct merge and the
// shared-memory merge's TAKES_TAIL pipeline both do this.

// The first index in [low, high) of a tail key (tail_first on) that is not
// before key x: every tail key below low is. Galloping from low first (probes
// 1, 2, 4, ... keys on) where the last answer is near, then a binary search.
index_t tail_keys_before(key_t x, uint x_value, index_t tail_first, index_t low, index_t high, bool gallop)
{
    index_t step = 1u;
    while (gallop && low < high) {
        index_t probe = min(low + step - 1u, high - 1u);
        if (!KEY_BEFORE(load_key(read_key(tail_first + probe)), value_or_zero(tail_first + probe), x, x_value)) {
            high = probe;
            break;
        }
        low = probe + 1u;
        step <<= 1u;
    }
    while (low < high) {
        index_t middle = low + ((high - low) >> 1u);
        if (KEY_BEFORE(load_key(read_key(tail_first + middle)), value_or_zero(tail_first + middle), x, x_value))
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

// Tail key t (of tail_count) to its place: the keys of A = [0, run) and of
// B = [run, 2 run) at or before it, found by two searches in step (run is a
// power of two: log2(run) + 1 probes each). Every probe's load is made
// whatever the answers so far, so the two searches' loads go out together.
// (A loop from a step of run with a bound test before each load: in one round
// on the H100, 2^k + 1 keys then took about 0.0015 ms more than 2^k, where
// with this loop they take as long; docs/perf-log.md, entry 70.)
void place_tail_key(index_t t, index_t tail_first, index_t tail_count)
{
    if (t >= tail_count)
        return;
    index_t run = tail_first >> 1u;
    key_t key = load_key(read_key(tail_first + t));
    uint value = value_or_zero(tail_first + t);
    index_t in_a = 0u, in_b = 0u;  // keys at or before it found so far
    for (index_t step = run >> 1u; step > 0u; step >>= 1u) {
        index_t a_probe = in_a + step - 1u, b_probe = run + in_b + step - 1u;
        key_t a_key = load_key(read_key(a_probe)), b_key = load_key(read_key(b_probe));
        uint a_value = value_or_zero(a_probe), b_value = value_or_zero(b_probe);
        in_a += KEY_BEFORE(key, value, a_key, a_value) ? 0u : step;
        in_b += KEY_BEFORE(key, value, b_key, b_value) ? 0u : step;
    }
    // The last probe: the key at in_a (at most run - 1) itself.
    key_t a_key = load_key(read_key(in_a)), b_key = load_key(read_key(run + in_b));
    uint a_value = value_or_zero(in_a), b_value = value_or_zero(run + in_b);
    in_a += KEY_BEFORE(key, value, a_key, a_value) ? 0u : 1u;
    in_b += KEY_BEFORE(key, value, b_key, b_value) ? 0u : 1u;
    index_t out_index = t + in_a + in_b;
    write_key_out(out_index, store_key(key));
#ifdef WITH_VALUES
    write_value_out(out_index, value);
#endif
}
#endif
