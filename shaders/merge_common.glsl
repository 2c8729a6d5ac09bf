// merge_common.glsl: where the two sorted runs of a merge lie, and the order
// the merge compares in (merge_pass.comp). A merge pass
// merges neighbouring runs of 2^(phase-1) keys (A, then B) of the Keys buffer
// into runs of 2^phase in KeysOut; output position d of a merged run takes its
// key from A[i] or B[d - i], and "the first d outputs hold i keys of A" is the
// merge path's split at diagonal d (see src/cpu/reference_executor.c, which
// does the same on the CPU).

struct merge_runs {
    uint base;      // first key of A; B starts at base + a_count
    uint a_count;
    uint b_count;
};

// The two runs that output key index `position` is merged from (live_count set).
merge_runs runs_of(uint position, uint phase)
{
    merge_runs runs;
    runs.base = (position >> phase) << phase;
    uint run = 1u << (phase - 1u);
    uint left = live_count > runs.base ? live_count - runs.base : 0u;
    runs.a_count = min(left, run);
    runs.b_count = min(left - runs.a_count, run);
    return runs;
}

// key x (with value) before key y in the sort order: by key, then by value.
#ifdef WITH_VALUES
#define KEY_BEFORE(kx, vx, ky, vy) pair_less(kx, vx, ky, vy)
#else
#define KEY_BEFORE(kx, vx, ky, vy) ((kx) < (ky))
#endif
