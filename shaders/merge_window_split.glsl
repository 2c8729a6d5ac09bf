// merge_window_split.glsl: the window split pass's cursors (window_cursor_at):
// where each chunk of the window merge's output starts in each of the up to
// five runs it takes keys from, by a search in two pieces or a selection in
// three. Included by merge_split.comp alone, after the merge includes.

#ifdef BUCKET_WINDOWS

// The first index in [low, high) of sorted keys whose key does not go before
// (key, value), or with or_equal whose key goes after it (a run whose equal
// keys go first): three probes a round, cutting the range in four, their
// loads in flight together (half the rounds of a binary search, each a trip
// to memory).
uint first_not_before(uint low, uint high, key_t key, uint value, bool or_equal)
{
    while (low < high) {
        uint found = 0u;
        [[unroll]] for (uint probe = 0u; probe < 3u; ++probe) {
            uint m = sample_position(low, high, 3u, probe);
            key_t here = load_key(read_key(m));
            uint here_value = value_or_zero(m);
            bool before = or_equal ? !KEY_BEFORE(key, value, here, here_value) : KEY_BEFORE(here, here_value, key, value);
            found += before ? 1u : 0u;
        }
        uint new_high = found == 3u ? high : sample_position(low, high, 3u, found);
        if (found > 0u)
            low = sample_position(low, high, 3u, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

// The window split pass takes a workgroup a chunk. In a bucket of three
// pieces its threads search together: each tests one position a round, and
// the count of those found true narrows the range, a (threads + 1)-ary
// search. One thread a chunk, a binary search in three pieces made the pass 6
// times longer at 2^21 keys on the H100 (0.036 ms against 0.006; docs/perf-log.md, entry
// 65): every step of the middle piece's search waits on two searches of the
// others. Two pieces take one thread's search all the same: the workgroup's
// k-ary searches made the pass twice as long at 2^24 keys (0.040 ms against
// 0.020), reading 32 scattered keys a round where one thread reads one. window_votes
// holds the counts, three rounds deep (a round adds to its own while the
// one two rounds ahead is cleared, so one barrier a round keeps them apart);
// window_lane_words the probes' counts in the other two pieces.
shared uint window_votes[3];
shared uint window_lane_words[2u * gl_WorkGroupSize.x];
uint window_round = 0u;

// How many threads vote true. Every thread calls it (a barrier).
uint votes_for(bool vote)
{
    uint slot = window_round % 3u;
    if (vote)
        atomicAdd(window_votes[slot], 1u);
    barrier();
    uint count = window_votes[slot];
    if (gl_LocalInvocationID.x == 0u)
        window_votes[(window_round + 2u) % 3u] = 0u;  // read a round ago, added to a round ahead
    ++window_round;
    return count;
}

// The merge-path split of `diagonal` between sorted A = [a, a + a_count) and
// B = [b, b + b_count), ties to A: how many keys of A the first diagonal
// outputs hold. Uniform: every thread keeps the same range.
uint window_split_two(uint a, uint a_count, uint b, uint b_count, uint diagonal)
{
    uint lanes = gl_WorkGroupSize.x;
    uint low = diagonal > b_count ? diagonal - b_count : 0u, high = min(diagonal, a_count);
    while (low < high) {
        uint m = sample_position(low, high, lanes, gl_LocalInvocationID.x);
        uint found = votes_for(a_first_at(a + m, b + diagonal - 1u - m));
        // The split lies after the last position found true and at or
        // before the first found false (the positions are in order, and so
        // are their answers).
        uint new_high = found == lanes ? high : sample_position(low, high, lanes, found);
        if (found > 0u)
            low = sample_position(low, high, lanes, found - 1u) + 1u;
        high = new_high;
    }
    return low;
}

// The first `diagonal` outputs of the merge of three sorted pieces P = [s,
// b1), Q = [b1, b2) and R = [b2, e) of one bucket (a run whole in the
// middle), ties in that order: how many of each. Q's key i goes out at rank i
// + (keys of P not after it) + (keys of R before it), which grows with i, so
// Q's count is the first i whose rank reaches the diagonal: each thread
// ranks one of Q's keys a round by two searches, in ranges that the rounds
// before narrow (the counts grow with i). The rest of the diagonal is P's
// and R's merge-path split. (src/cpu/reference_partition.c, three_piece_split.)
uvec3 window_split_three(uint s, uint b1, uint b2, uint e, uint diagonal)
{
    uint lanes = gl_WorkGroupSize.x, t = gl_LocalInvocationID.x;
    uint others = (b1 - s) + (e - b2);
    uint low = diagonal > others ? diagonal - others : 0u, high = min(diagonal, b2 - b1);
    uint p_low = s, p_high = b1, z_low = b2, z_high = e;
    while (low < high) {
        uint m = sample_position(low, high, lanes, t);
        key_t key = load_key(read_key(b1 + m));
        uint value = value_or_zero(b1 + m);
        uint p = first_not_before(p_low, p_high, key, value, true);
        uint z = first_not_before(z_low, z_high, key, value, false);
        window_lane_words[2u * t] = p;
        window_lane_words[2u * t + 1u] = z;
        uint found = votes_for(m + (p - s) + (z - b2) < diagonal);  // its barrier puts the words above first
        if (found < lanes) {
            uint new_high = sample_position(low, high, lanes, found);
            p_high = window_lane_words[2u * found];
            z_high = window_lane_words[2u * found + 1u];
            if (found > 0u) {
                low = sample_position(low, high, lanes, found - 1u) + 1u;
                p_low = window_lane_words[2u * found - 2u];
                z_low = window_lane_words[2u * found - 1u];
            }
            high = new_high;
        } else {
            low = sample_position(low, high, lanes, found - 1u) + 1u;
            p_low = window_lane_words[2u * found - 2u];
            z_low = window_lane_words[2u * found - 1u];
        }
        barrier();  // every thread has read the words before the next round writes them
    }
    uint rest = diagonal - low;
    uint taken_p = window_split_two(s, b1 - s, b2, e - b2, rest);
    return uvec3(taken_p, low, rest - taken_p);
}

// The first `diagonal` outputs of the merge of three sorted pieces P = [s,
// b1), Q = [b1, b2) and R = [b2, e) of one bucket (a run whole in the
// middle), ties in that order: how many of each. A selection that discards,
// in one thread: with `rest` outputs still to place and `open` pieces not
// used up, each step reads the key step = ceil(rest / open) into each open
// piece and takes those keys of the piece whose key goes first. At most step
// - 1 keys of each other piece go before that key, so every key taken is
// among the rest; the rest shrinks by a third a step (about log_1.5 of the
// diagonal steps), and a step's three reads are in flight together. From
// partition_split_by_thread_min_keys keys (SPLIT_BY_THREAD), where its chain
// is shorter than window_split_three's rounds of searches once the keys no
// longer sit in the L2 cache (0.031 ms against 0.037 at 2^24 keys on the
// H100, 0.059 against 0.126 at 2^26; 0.015 against 0.013 at 2^22, docs/perf-log.md, entry
// 66). Three reads a piece a step took fewer steps but 50 registers and was
// slower at every size. The same steps as src/cpu/reference_partition.c,
// bitonic_reference_three_piece_split.
uvec3 window_split_by_selection(uint s, uint b1, uint b2, uint e, uint diagonal)
{
    uvec3 at = uvec3(s, b1, b2);
    const uvec3 end = uvec3(b1, b2, e);
    uint rest = diagonal;
    while (rest > 0u) {
        bvec3 open = lessThan(at, end);
        uint opens = (open.x ? 1u : 0u) + (open.y ? 1u : 0u) + (open.z ? 1u : 0u);
        uint step = (rest + opens - 1u) / opens;
        uvec3 count = min(uvec3(step), end - at);
        // A used-up piece reads its last key (every piece has one), unused.
        uvec3 probe = at + max(count, uvec3(1u)) - 1u;
        key_t p_key = load_key(read_key(probe.x)), q_key = load_key(read_key(probe.y)),
              r_key = load_key(read_key(probe.z));
        uint p_value = value_or_zero(probe.x), q_value = value_or_zero(probe.y), r_value = value_or_zero(probe.z);
        bool take_p = open.x && (!open.y || !KEY_BEFORE(q_key, q_value, p_key, p_value)) &&
                      (!open.z || !KEY_BEFORE(r_key, r_value, p_key, p_value));
        bool take_q = !take_p && open.y && (!open.z || !KEY_BEFORE(r_key, r_value, q_key, q_value));
        uint taken = take_p ? count.x : take_q ? count.y : count.z;
        at += uvec3(take_p ? taken : 0u, take_q ? taken : 0u, take_p || take_q ? 0u : taken);
        rest -= taken;
    }
    return at - uvec3(s, b1, b2);
}

// The cursor at output position q of run r (q inside it; q = (r + 1)W, the
// run's end, as run r's): the first key not yet output of each of runs r - 2
// .. r + 2. Where q lies in the bucket around rW (q < e_r) or past the start
// of the one around (r + 1)W (q > s_{r+1}; the same bucket where it spans run
// r), the bucket's two pieces (one merge-path search by thread 0) or three
// (window_split_three, by every thread) give its runs' cursors, the runs
// before it are used up and those after it untouched; between the two
// buckets the keys are in place. Every thread of the workgroup calls it, for
// the same q; thread 0's cursor is the answer. With by_thread (or without
// THREE_PIECES) each thread calls it for its own q, and three pieces are
// window_split_by_selection's. `role` picks the cursors this call finds:
// ROLE_EVERY all of them; ROLE_TWO_PIECES those in place or in two pieces,
// ROLE_THREE_PIECES those in three; false where the cursor is another role's.
const uint ROLE_EVERY = 0u, ROLE_TWO_PIECES = 1u, ROLE_THREE_PIECES = 2u;
bool window_cursor_at(uint q, uint r, bool guided, bool by_thread, uint role, out uint cursor[5])
{
    bool at_start = q < straddle_word(r, 1u);
    bool at_end = !at_start && q > straddle_word(r + 1u, 0u);
    uint k = at_start ? r : r + 1u;
    uint s = straddle_word(k, 0u), e = straddle_word(k, 1u);
    int j0 = int(r), j1 = int(r);  // the runs the bucket spans (one: q in place)
    uvec3 taken = uvec3(0u);
    if (at_start || at_end) {
        j0 = int(s >> params.phase);
        j1 = int((e - 1u) >> params.phase);
    }
    bool three = THREE_PIECES && j1 - j0 >= 2;
    if (role != ROLE_EVERY && three != (role == ROLE_THREE_PIECES))
        return false;  // the other role's cursor (uniform in workgroup mode, where role is ROLE_EVERY)
    if (at_start || at_end) {
        uint b1 = uint(j0 + 1) << params.phase, d = q - s;
        if (!three) {
            // Two pieces: one thread, a merge-path search as the merges'
            // split passes search (the other threads' results are not used;
            // without THREE_PIECES or by_thread each thread has a chunk of
            // its own).
            if (!THREE_PIECES || by_thread || gl_LocalInvocationID.x == 0u) {
                merge_runs runs;
                runs.base = s;
                runs.a_count = b1 - s;
                runs.b_count = e - b1;
                taken.x = search_split(runs, d, false, guided, false);
                taken.y = d - taken.x;
            }
        } else if (by_thread) {
            taken = window_split_by_selection(s, b1, b1 + (1u << params.phase), e, d);
        } else {
            taken = window_split_three(s, b1, b1 + (1u << params.phase), e, d);
        }
    }
    [[unroll]] for (int i = 0; i < 5; ++i) {
        int j = int(r) - 2 + i;
        cursor[i] = j < j0   ? run_end_key(j)
                    : j > j1 ? run_first_key(j)
                    : j0 == j1 ? q
                               : (j == j0 ? s : run_first_key(j)) + taken[j - j0];
    }
    return true;
}
#endif
