// merge_search.glsl: the merge-path split of one diagonal found by one thread
// in device memory (merge_path_search), for the split pass and the direct
// merge; the split pass and the shared-memory merge also guide the search by
// the keys' values (guided_merge_path_search), search on the run samples first
// and, with LANE_SEARCH, by a subgroup's ballots (search_split).
// Included by merge_pass.comp, merge_split.comp and merge_direct.comp, in
// the order merge_common.glsl, merge_search.glsl, merge_windows.glsl,
// merge_tail.glsl: the order of the functions is kept as it was in one file,
// because it fixes the order of the compiled modules' functions and so their
// bytes. SPLITS_ONLY (merge_split.comp) and DIRECT_MERGE (merge_direct.comp)
// say which kernel includes it; neither is the shared-memory merge.

// Probes a thread tests at once in merge_path_search(). The direct merge's
// threads wait on their own searches, so 3 probes a round (independent loads in
// flight together: 5 rounds for a 1024-key chunk instead of 10). The split
// pass takes its count from the host (tuning.merge_split_probes, tuning.c):
// 3 probes a round where its 4096 to 16384 searches wait on their chains of
// loads (2^22 to 2^24 keys, up to 4.9% faster sorts on the H100), one above,
// where more searches read more sectors than the rounds they save.
// The shared-memory merge's own searches on run samples (SAMPLES_SEARCH), two
// threads waiting on them while the workgroup waits at a barrier, take theirs
// from the host too (tuning.merge_fused_split_probes).
#if defined(SPLITS_ONLY) || defined(SHARED_MERGE)
// The split pass's probes come from the host (tuning.merge_split_probes).
layout(constant_id = 3) const uint SPLIT_PROBES = 1u;
const uint SEARCH_PROBES = SPLIT_PROBES == 0u ? 1u : SPLIT_PROBES;
#else
const uint SEARCH_PROBES = 3u;
#endif

// Whether A[m] goes before B[d - 1 - m] on a merge path (true below the split):
// a_index and b_index are the memory indices of the two keys.
bool a_first_at(index_t a_index, index_t b_index)
{
#ifdef WITH_VALUES
    return !pair_less(load_key(read_key(b_index)), read_value(b_index), load_key(read_key(a_index)),
                      read_value(a_index));
#else
    return !(load_key(read_key(b_index)) < load_key(read_key(a_index)));
#endif
}

// The merge-path split of one diagonal found by one thread in device memory:
// the split lies in [low, high); A[m] sits at a_base + m and its partner
// B[d - 1 - m] at b_top - m. Each round tests SEARCH_PROBES positions cutting
// the range into equal parts (sample_position) and keeps the part between the
// last true and the first false answer.
// With in_samples (RUN_SAMPLES) the positions count groups of 2^SAMPLE_LOG
// keys, a_base and b_top are groups, and the keys compared are the samples.
index_t merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    while (low < high) {
        uint found = 0u;
        [[unroll]] for (uint probe = 0u; probe < SEARCH_PROBES; ++probe) {
            index_t m = sample_position(low, high, SEARCH_PROBES, probe);
#ifdef RUN_SAMPLES
            if (in_samples)
                found += a_first_at_samples(a_base + m, b_top - m) ? 1u : 0u;
            else
#endif
                found += a_first_at(a_base + m, b_top - m) ? 1u : 0u;
        }
        index_t new_high = found == SEARCH_PROBES ? high : sample_position(low, high, SEARCH_PROBES, found);
        if (found > 0u)
            low = sample_position(low, high, SEARCH_PROBES, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

#if defined(SPLITS_ONLY) || defined(SHARED_MERGE)
// How far A[m] lies above B[d - 1 - m], as a float: negative below the split,
// positive from it on (zero either side where keys are equal). A guess only:
// the answer comes from a_first_at(), exact for every key type.
float key_gap(key_t a_key, key_t b_key)
{
    return float(a_key) - float(b_key);
}

// merge_path_search() with its probes placed by a guess. Once both ends of the
// bracket [low, high] have been probed (low - 1 true, high false), the split is
// guessed where the key gap crosses zero, interpolated linearly between them,
// and a round probes the guess minus and plus g (half the square root of the
// bracket's width: about two standard deviations of the guess's error on
// random keys) and the bracket's middle, so a round at least halves it. Keys
// spread evenly narrow the bracket to about sqrt(width) a round: in a
// simulation of random 32-bit keys, 5.3 rounds for a run of 2^23 keys where
// 3-probe rounds take 11.1, and 4.1 against 6.0 for 2^13 (docs/perf-log.md,
// entry 41). Where the split falls outside a guessed window (keys that are
// not spread evenly: many equal keys, clusters) the search goes on with plain
// 3-probe rounds, which cost at most one round more than plain rounds from the
// start in that simulation. Three probes a round, whatever SPLIT_PROBES says.
index_t guided_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    bool low_probed = false, high_probed = false, guessing = true, guessed = false;
    float gap_low = 0.0, gap_high = 0.0;  // the key gap at low - 1 and at high
    index_t window_low = low, window_high = high;
    while (low < high) {
        if (guessed && (low < window_low || high > window_high + 1u))
            guessing = false;  // the split lay outside the guessed window
        index_t width = high - low;
        guessed = guessing && low_probed && high_probed && gap_high > gap_low && width > 16u;
        index_t probes[3];
        if (guessed) {
            float fraction = clamp(-gap_low / (gap_high - gap_low), 0.0, 1.0);
            index_t guess = low - 1u + min(index_t(float(width + 1u) * fraction), width + 1u);
            index_t g = max(index_t(sqrt(float(width)) * 0.5), index_t(1u));
            window_low = min(guess > low + g ? guess - g : low, high - 1u);
            window_high = max(min(guess + g, high - 1u), window_low);
            index_t middle = low + width / 2u;
            probes[0] = min(window_low, middle);
            probes[1] = clamp(middle, window_low, window_high);
            probes[2] = max(window_high, middle);
        } else {
            [[unroll]] for (uint p = 0u; p < 3u; ++p)
                probes[p] = sample_position(low, high, 3u, p);
        }
        uint found = 0u;
        float gaps[3];
        [[unroll]] for (uint p = 0u; p < 3u; ++p) {
            index_t a_index = a_base + probes[p], b_index = b_top - probes[p];
            key_t a_key, b_key;
            uint a_value = 0u, b_value = 0u;
#ifdef RUN_SAMPLES
            if (in_samples) {
                a_key = sample_at(a_index);
                b_key = sample_at(b_index);
#ifdef WITH_VALUES
                a_value = sample_value_at(a_index);
                b_value = sample_value_at(b_index);
#endif
            } else
#endif
            {
                a_key = load_key(read_key(a_index));
                b_key = load_key(read_key(b_index));
#ifdef WITH_VALUES
                a_value = read_value(a_index);
                b_value = read_value(b_index);
#endif
            }
            bool a_first = !KEY_BEFORE(b_key, b_value, a_key, a_value);
            found += a_first ? 1u : 0u;
            gaps[p] = key_gap(a_key, b_key);
        }
        // The probes are in order, so are their answers: true, then false.
        if (found < 3u) {
            gap_high = gaps[found];
            high_probed = true;
        }
        index_t new_high = found < 3u ? probes[found] : high;
        if (found > 0u) {
            low = probes[found - 1u] + 1u;
            gap_low = gaps[found - 1u];
            low_probed = true;
        }
        high = new_high;
    }
    return low;
}

#ifdef LANE_SEARCH
// merge_path_search() by the lanes of a subgroup that are active together
// (whatever their count): each round every lane tests one position of the
// range cut into lanes + 1 parts, and a ballot counts the true answers, which
// come first (the positions are in lane order, the answers monotone). Every
// lane gets the same ranges, so the loop is uniform over the subgroup.
index_t lane_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples)
{
    uvec4 active_lanes = subgroupBallot(true);
    uint lanes = subgroupBallotBitCount(active_lanes);
    uint lane = subgroupBallotExclusiveBitCount(active_lanes);
    while (low < high) {
        index_t m = sample_position(low, high, lanes, lane);
        bool a_first = in_samples ? a_first_at_samples(a_base + m, b_top - m) : a_first_at(a_base + m, b_top - m);
        uint found = subgroupBallotBitCount(subgroupBallot(a_first));
        index_t new_high = found == lanes ? high : sample_position(low, high, lanes, found);
        if (found > 0u)
            low = sample_position(low, high, lanes, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

#endif

// merge_path_search(), by the thread or (LANE_SEARCH, by_lanes) by its subgroup.
index_t plain_merge_path_search(index_t low, index_t high, index_t a_base, index_t b_top, bool in_samples, bool by_lanes)
{
#ifdef LANE_SEARCH
    if (by_lanes)
        return lane_merge_path_search(low, high, a_base, b_top, in_samples);
#endif
    return merge_path_search(low, high, a_base, b_top, in_samples);
}

// The split of diagonal `diagonal` of `runs` (how many keys of A its first
// outputs hold), searched by one thread (by_lanes: by the whole subgroup, in
// plain rounds; guided is then ignored): on the run samples first where the
// merge before left them (positions 32k inside [low, high), as groups:
// runs.base and the diagonal are multiples of the group, so A[32k] is sample
// base / 32 + k and B[d - 1 - 32k] sample b_top / 32 - k; the split then lies
// above the last of them found true and at or below the first found false,
// one group's keys), then in the keys, by guided or plain rounds.
index_t search_split(merge_runs runs, index_t diagonal, bool on_samples, bool guided, bool by_lanes)
{
    guided = guided && !by_lanes;
    index_t low = diagonal > runs.b_count ? diagonal - runs.b_count : index_t(0u);
    index_t high = min(diagonal, runs.a_count);
    index_t b_top = runs.base + runs.a_count + diagonal - 1u;
#ifdef RUN_SAMPLES
    if (on_samples && low < high) {
        index_t group_low = (low + ((1u << SAMPLE_LOG) - 1u)) >> SAMPLE_LOG;
        index_t group_high = ((high - 1u) >> SAMPLE_LOG) + 1u;  // past the last position 32k in range
        if (group_low < group_high) {
            index_t a_group = runs.base >> SAMPLE_LOG, b_group = b_top >> SAMPLE_LOG;
            index_t first_false = guided ? guided_merge_path_search(group_low, group_high, a_group, b_group, true)
                                         : plain_merge_path_search(group_low, group_high, a_group, b_group, true, by_lanes);
            if (first_false > group_low)
                low = ((first_false - 1u) << SAMPLE_LOG) + 1u;
            if (first_false < group_high)
                high = first_false << SAMPLE_LOG;
        }
        guided = false;  // at most a group wide: no guess pays there
    }
#endif
    return guided ? guided_merge_path_search(low, high, runs.base, b_top, false)
                  : plain_merge_path_search(low, high, runs.base, b_top, false, by_lanes);
}
#endif
