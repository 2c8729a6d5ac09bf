// partition_nested.glsl: the nested partition's steps (STEP_NESTED_SAMPLE,
// and the copy of the segments that STEP_NESTED_SCATTER leaves whole): each
// open bucket of more than a window partitioned again by splitters of its own.
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

// The nested partition (params.nested_at not 0; sorter/partition.c plans it where
// the first partition's buckets would take merge levels): after the first
// scatter, each open bucket of more than W keys (a segment) is partitioned
// again by splitters of its own, into about 2L / W buckets for L keys (at
// most P + 1), so that the window merge, on runs of W = the tile sort's
// tile, takes the place of the merge levels (reference_partition.c,
// refine_open_buckets, is the same on the CPU). A dispatch row a bucket of
// the first partition:
// - STEP_NESTED_SAMPLE: workgroup (0, b) samples its segment (sample_count
//   keys a splitter, as many as the staged tile holds at most), sorts the
//   samples in shared memory, stores every s-th as a splitter, and zeroes
//   the segment's totals and claims; a bucket it does not split is one
//   bucket of its own.
// - STEP_NESTED_COUNT and STEP_NESTED_SCATTER: count_step and scatter_step
//   on the segment's keys, gl_NumWorkGroups.x workgroups a segment, from the
//   first scatter's side into the other; a bucket not split is copied. Each
//   segment's first scatter workgroup writes the window table's boundaries
//   inside it and, where an open bucket of it is longer than `longest`, marks
//   the segment for the fallback, which remakes the chunks it touches from
//   the runs the whole segment spans.

// Segment b (a bucket of the first partition) as the workgroup's context:
// its keys, its totals and claims (its splitter count is the caller's to
// set: the nested sample step finds it, the others read it). Returns its
// words (segment_at).
uint enter_segment(uint b)
{
    uint at = segment_at(b);
    keys_base = words[params.nested_at + b];
    keys_count = words[TOTALS_AT + b];
    totals_at = at + 2u;
    return at;
}

// The splitters the nested partition gives a segment of `length` keys of
// bucket b of the first partition: 2L / W buckets of an open bucket longer
// than W (at most P + 1), none else.
uint nested_splitters_for(uint b, uint length)
{
    uint window = params.window;
    if ((b & 1u) != 0u || length <= window)
        return 0u;
    uint parts = length / window * 2u + ((length % window) * 2u + window - 1u) / window;  // 2L / W rounded up
    return min(parts, params.nested_splitters + 1u) - 1u;
}

void nested_sample_step()
{
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    uint b = gl_WorkGroupID.y, at = enter_segment(b);
    uint first = keys_base, length = keys_count;
    uint m = nested_splitters_for(b, length);
    splitter_count = m;
    // m + 1 quantiles from (m + 1) s - 1 samples: every s-th (the last
    // would add one near the top), fewer where the staged tile holds fewer.
    uint samples = min(min((m + 1u) * params.sample_count - 1u, fallback_chunk_keys()), length);
    uint padded = m == 0u ? 0u : 2u << findMSB((max(samples, 1u) - 1u) | 1u);  // a power of two, at least 2
    uint stretch = samples == 0u ? 1u : length / samples;
    uint seed = (b + 1u) * 0x85ebca6bu;
    for (uint slot = thread; slot < padded; slot += threads) {
        key_t key = ~key_t(0u);  // pads after every sample
        uint value = 0xffffffffu;
        if (slot < samples) {
            uint hashed = (slot + 1u) * 0x9e3779b9u ^ seed;
            hashed ^= hashed >> 16;
            uint position = first + slot * stretch + hashed % stretch;
            key = ordered(keys[position]);
            value = value_at(position);
        }
        store_staged(slot, key, value);
    }
    if (m != 0u)  // uniform: the same words in every thread
        sort_staged(padded);
    for (uint i = thread; i < m; i += threads) {
        uint slot = (i + 1u) * (samples + 1u) / (m + 1u) - 1u;
        uint stored = stored_splitter_at(i);
        store_words_key(stored, staged_key(slot));
        words[stored + 2u] = staged_value(slot);
    }
    for (uint i = thread; i < bucket_count(); i += threads) {
        words[totals_at + i] = m == 0u ? length : 0u;
        words[claims_at() + i] = 0u;
    }
    if (thread == 0u) {
        words[at] = m;
        words[at + 1u] = 0u;
    }
}

// A segment the nested partition leaves whole: its keys copied to the
// other side, its first workgroup writing the window table inside it (and
// marking it for the fallback where it is an open bucket longer than
// `longest`, as where the nested splitters run out).
void nested_copy_step()
{
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    for (uint i = gl_WorkGroupID.x * threads + thread; i < keys_count; i += gl_NumWorkGroups.x * threads) {
        keys_out[keys_base + i] = keys[keys_base + i];
#ifdef WITH_VALUES
        values_out[keys_base + i] = values[keys_base + i];
#endif
    }
    if (gl_WorkGroupID.x != 0u || thread != 0u)
        return;
    bool open = (gl_WorkGroupID.y & 1u) == 0u;  // the first partition's bucket b is open for even b
    if (open && keys_count > params.longest)
        mark_segment_for_fallback(gl_WorkGroupID.y);
    write_bucket_straddles(keys_base, keys_count, open);
}
