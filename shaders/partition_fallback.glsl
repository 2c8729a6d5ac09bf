// partition_fallback.glsl: STEP_FALLBACK, after the window merge where an
// open bucket is too long for it: each output chunk that such a bucket
// touches is remade from the runs the bucket spans, by a selection of the
// chunk's cuts in each run and a sort in shared memory.
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

// The fallback's selection and staging where its runs fit the shared words
// (fallback_run_limit): each run's bounds narrowed round by round.
void fallback_stage_bounded(uint first_key, uint end_key, uint first_run, uint runs, uint targets[2])
{
    uint threads = gl_WorkGroupSize.x, thread = gl_LocalInvocationID.x;
    uint chunk_keys = fallback_chunk_keys();
    uint window = params.window;
    uint pairs = 2u * runs;
    for (uint j = thread; j < pairs; j += threads) {
        uint run = first_run + j % runs;
        set_fallback_word(j, runs, FALLBACK_LOW, run * window);  // the keys before the prefix: at least these
        set_fallback_word(j, runs, FALLBACK_HIGH, min((run + 1u) * window, params.count));  // at most these
    }
    // The selection: v_t is the greatest (key, value) with at most targets[t]
    // keys before it, built bit by bit; each round every pair searches the
    // candidate inside its bounds, and the counts narrow the bounds. A pair
    // is always the same thread's, so its words need no barrier. The arrays
    // of two are read at constant indices only (OF_TWO, a select on t):
    // indexed at run time, the driver kept them in local memory (docs/perf-log.md, entry 96).
#define OF_TWO(pair, t) ((t) == 0u ? (pair)[0] : (pair)[1])
    key_t prefix_key[2] = key_t[2](key_t(0u), key_t(0u));
    uint prefix_value[2] = uint[2](0u, 0u);
    for (uint round = 0u; round < ORDER_BITS; ++round) {
        uint counts = 2u * (round % 3u);
        for (uint j = thread; j < pairs; j += threads) {
            uint t = j < runs ? 0u : 1u;
            key_t key;
            uint value;
            candidate_of(round, OF_TWO(prefix_key, t), OF_TWO(prefix_value, t), key, value);
            uint at = search_run(fallback_word(j, runs, FALLBACK_LOW), fallback_word(j, runs, FALLBACK_HIGH), key,
                                 value, false);
            set_fallback_word(j, runs, FALLBACK_PROBE, at);
            atomicAdd(fallback_less(counts + t), at - (first_run + j % runs) * window);
        }
        barrier();
        uint less[2] = uint[2](fallback_less(counts), fallback_less(counts + 1u));
        if (thread < 2u)
            fallback_less(2u * ((round + 2u) % 3u) + thread) = 0u;  // read two rounds ago, added to next round
        for (uint j = thread; j < pairs; j += threads) {
            uint t = j < runs ? 0u : 1u;
            set_fallback_word(j, runs, OF_TWO(less, t) <= OF_TWO(targets, t) ? FALLBACK_LOW : FALLBACK_HIGH,
                              fallback_word(j, runs, FALLBACK_PROBE));
        }
        [[unroll]] for (uint t = 0u; t < 2u; ++t) {
            if (less[t] <= targets[t])
                candidate_of(round, prefix_key[t], prefix_value[t], prefix_key[t], prefix_value[t]);
        }
    }
    // Each run's keys before v_t and up to those equal to it; the ties go to
    // the target in run order, so that the chunk before this one, which
    // ends where this starts, cuts every run where this one does.
    for (uint j = thread; j < pairs; j += threads) {
        uint t = j < runs ? 0u : 1u;
        uint high = fallback_word(j, runs, FALLBACK_HIGH);
        key_t key = OF_TWO(prefix_key, t);
        uint value = OF_TWO(prefix_value, t);
        uint before = search_run(fallback_word(j, runs, FALLBACK_LOW), high, key, value, false);
        set_fallback_word(j, runs, FALLBACK_HIGH, search_run(before, high, key, value, true));
        set_fallback_word(j, runs, FALLBACK_LOW, before);
    }
    barrier();
    if (thread < 2u) {
        uint t = thread, taken = 0u;
        for (uint i = 0u; i < runs; ++i)
            taken += fallback_word(t * runs + i, runs, FALLBACK_LOW) - (first_run + i) * window;
        uint ties = OF_TWO(targets, t) - taken;
        for (uint i = 0u; i < runs; ++i) {
            uint j = t * runs + i, low = fallback_word(j, runs, FALLBACK_LOW);
            uint take = min(ties, fallback_word(j, runs, FALLBACK_HIGH) - low);
            set_fallback_word(j, runs, FALLBACK_LOW, low + take);
            ties -= take;
        }
    }
    barrier();
    // The pieces: run i's keys from its cut for target 0 to its cut for
    // target 1, at slot cell_words[i] of the chunk on.
    if (thread == 0u) {
        uint place = 0u;
        for (uint i = 0u; i < runs; ++i) {
            cell_words[i] = place;
            place += fallback_word(runs + i, runs, FALLBACK_LOW) - bucket_words[i];
        }
        cell_words[runs] = place;
    }
    barrier();
    uint chunk_count = end_key - first_key;
    for (uint slot = thread; slot < chunk_keys; slot += threads) {
        key_t key = ~key_t(0u);  // pads after every key
        uint value = 0xffffffffu;
        if (slot < chunk_count) {
            uint low = 0u, high = runs;  // the last piece that starts at or before the slot
            while (high - low > 1u) {
                uint middle = (low + high) / 2u;
                if (cell_words[middle] <= slot)
                    low = middle;
                else
                    high = middle;
            }
            uint index = bucket_words[low] + (slot - cell_words[low]);
            key = run_key(index);
            value = run_value(index);
        }
        store_staged(slot, key, value);
    }
}

// The most runs fallback_stage_bounded keeps words for: for target 0 a pair
// of bounds and a probe a run in bucket_words, tile_starts and cell_words
// (then a piece's place a run, and one more, in cell_words), for target 1
// three a run in workgroup_words. The first partition's runs are within it
// (src/vulkan/sorter/partition.c); a nested partition's segment may span more.
uint fallback_run_limit()
{
    return min(min(MAX_BUCKETS, MAX_CELLS - 1u), gl_WorkGroupSize.x * SCATTER_KEYS / 3u);
}

// Inclusive sums of bucket_words, tile_starts and cell_words over slots
// [0, batch), batch at most the workgroup; a barrier before and after.
void scan_three(uint batch)
{
    uint t = gl_LocalInvocationID.x;
    for (uint reach = 1u; reach < batch; reach <<= 1) {
        barrier();
        uvec3 add = uvec3(0u);
        if (t < batch && t >= reach)
            add = uvec3(bucket_words[t - reach], tile_starts[t - reach], cell_words[t - reach]);
        barrier();
        if (t < batch) {
            bucket_words[t] += add.x;
            tile_starts[t] += add.y;
            cell_words[t] += add.z;
        }
    }
    barrier();
}

// The fallback's selection and staging where its runs are more than
// fallback_run_limit: each round searches every run whole (no bounds kept),
// and the cuts and pieces go a batch of runs at a time, their running sums
// scanned in shared memory and carried from batch to batch. Slower; only a
// nested partition's segment with a bucket too long for the window merge
// that spans that many runs takes it.
void fallback_stage_unbounded(uint first_key, uint end_key, uint first_run, uint runs, uint targets[2])
{
    uint threads = gl_WorkGroupSize.x, thread = gl_LocalInvocationID.x;
    uint chunk_keys = fallback_chunk_keys(), chunk_count = end_key - first_key;
    uint window = params.window;
    uint pairs = 2u * runs;
    key_t prefix_key[2] = key_t[2](key_t(0u), key_t(0u));
    uint prefix_value[2] = uint[2](0u, 0u);
    for (uint round = 0u; round < ORDER_BITS; ++round) {
        uint counts = 2u * (round % 3u);
        for (uint j = thread; j < pairs; j += threads) {
            uint t = j < runs ? 0u : 1u;
            uint low = (first_run + j % runs) * window, high = min(low + window, params.count);
            key_t key;
            uint value;
            candidate_of(round, OF_TWO(prefix_key, t), OF_TWO(prefix_value, t), key, value);
            atomicAdd(fallback_less(counts + t), search_run(low, high, key, value, false) - low);
        }
        barrier();
        uint less[2] = uint[2](fallback_less(counts), fallback_less(counts + 1u));
        if (thread < 2u)
            fallback_less(2u * ((round + 2u) % 3u) + thread) = 0u;  // as in fallback_stage_bounded
        [[unroll]] for (uint t = 0u; t < 2u; ++t) {
            if (less[t] <= targets[t])
                candidate_of(round, prefix_key[t], prefix_value[t], prefix_key[t], prefix_value[t]);
        }
    }
    // The keys before v_t in every run: the ties are what the target has
    // beyond them, taken in run order (as fallback_stage_bounded takes them).
    barrier();
    if (thread < 2u)
        fallback_less(thread) = 0u;
    barrier();
    for (uint j = thread; j < pairs; j += threads) {
        uint t = j < runs ? 0u : 1u;
        uint low = (first_run + j % runs) * window, high = min(low + window, params.count);
        atomicAdd(fallback_less(t),
                  search_run(low, high, OF_TWO(prefix_key, t), OF_TWO(prefix_value, t), false) - low);
    }
    barrier();
    uint ties_left[2] = uint[2](targets[0] - fallback_less(0u), targets[1] - fallback_less(1u));
    barrier();  // the fallback's words (the staged high words for 64-bit keys) are free from here
    for (uint slot = chunk_count + thread; slot < chunk_keys; slot += threads)
        store_staged(slot, ~key_t(0u), 0xffffffffu);  // pads after every key
    uint batch = 1u << findMSB(min(min(threads, MAX_BUCKETS), MAX_CELLS));
    uint place = 0u;
    for (uint first = 0u; first < runs; first += batch) {
        uint j = first + thread;
        bool mine = thread < batch && j < runs;
        uint low = 0u, high = 0u;
        uint before[2] = uint[2](0u, 0u), upto[2] = uint[2](0u, 0u);
        if (mine) {
            low = (first_run + j) * window;
            high = min(low + window, params.count);
            [[unroll]] for (uint t = 0u; t < 2u; ++t) {
                before[t] = search_run(low, high, prefix_key[t], prefix_value[t], false);
                upto[t] = search_run(before[t], high, prefix_key[t], prefix_value[t], true);
            }
        }
        if (thread < batch) {
            bucket_words[thread] = upto[0] - before[0];
            tile_starts[thread] = upto[1] - before[1];
            cell_words[thread] = 0u;
        }
        scan_three(batch);
        uint cut[2] = uint[2](0u, 0u);
        if (mine) {
            uint inclusive[2] = uint[2](bucket_words[thread], tile_starts[thread]);
            [[unroll]] for (uint t = 0u; t < 2u; ++t) {
                uint equal = upto[t] - before[t], earlier = inclusive[t] - equal;
                cut[t] = before[t] + min(ties_left[t] - min(earlier, ties_left[t]), equal);
            }
        }
        uint batch_equal[2] = uint[2](bucket_words[batch - 1u], tile_starts[batch - 1u]);
        barrier();
        if (thread < batch) {
            bucket_words[thread] = 0u;
            tile_starts[thread] = 0u;
            cell_words[thread] = cut[1] - cut[0];
        }
        scan_three(batch);
        if (mine) {
            uint length = cut[1] - cut[0], at = place + cell_words[thread] - length;
            for (uint k = 0u; k < length; ++k)
                store_staged(at + k, run_key(cut[0] + k), run_value(cut[0] + k));
        }
        place += cell_words[batch - 1u];
        [[unroll]] for (uint t = 0u; t < 2u; ++t)
            ties_left[t] -= min(batch_equal[t], ties_left[t]);
        barrier();
    }
}

void fallback_step()
{
    uint threads = gl_WorkGroupSize.x, thread = gl_LocalInvocationID.x;
    uint chunk_keys = fallback_chunk_keys();
    uint chunk = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (chunk >= (params.count + chunk_keys - 1u) / chunk_keys)
        return;  // uniform: past the keys (the grid may be 2D)
    uint first_key = chunk * chunk_keys, end_key = min(first_key + chunk_keys, params.count);
    uint last_key = end_key - 1u;

    // The buckets of the chunk's first and last keys, and whether an open
    // bucket longer than the window merge sorts holds any of its keys.
    if (thread == 0u)
        fallback_span(2) = 0u;
    uint span_first, span_end;
    bucket_span(span_first, span_end);
    uint sum = 0u;
    for (uint b = span_first; b < span_end; ++b)
        sum += words[TOTALS_AT + b];
    uint start = sum_before(sum);  // its barriers put the write above before the atomicOr below
    bool long_here = false;
    for (uint b = span_first; b < span_end; ++b) {
        uint total = words[TOTALS_AT + b], bucket_end = start + total;
        if (start <= first_key && first_key < bucket_end)
            fallback_span(0) = start;
        if (start <= last_key && last_key < bucket_end)
            fallback_span(1) = bucket_end;
        // Nested: a segment marked by the nested scatter (any of its open
        // buckets too long), whose runs the fallback takes whole.
        bool too_long = params.nested_at != 0u ? words[segment_at(b) + 1u] != 0u : total > params.longest;
        long_here = long_here || ((b & 1u) == 0u && too_long && start <= last_key && first_key < bucket_end);
        start = bucket_end;
    }
    if (long_here)
        atomicOr(fallback_span(2), 1u);
    for (uint i = thread; i < 6u; i += threads)
        fallback_less(i) = 0u;
    barrier();
    if (fallback_span(2) == 0u)
        return;  // uniform: the window merge put this chunk in place

    // The runs those buckets span, and the chunk's first and end ranks among
    // their keys: target 0 and 1. Pair j < runs is run j's for target 0,
    // runs + j its for target 1.
    uint window = params.window;
    uint first_run = fallback_span(0) / window;
    uint runs = (fallback_span(1) - 1u) / window + 1u - first_run;
    uint span_base = first_run * window;
    uint targets[2] = uint[2](first_key - span_base, end_key - span_base);
    if (runs <= fallback_run_limit() && (params.flags & FLAG_FALLBACK_IN_BATCHES) == 0u)  // uniform
        fallback_stage_bounded(first_key, end_key, first_run, runs, targets);
    else
        fallback_stage_unbounded(first_key, end_key, first_run, runs, targets);
    uint chunk_count = end_key - first_key;
    sort_staged(chunk_keys);
    for (uint slot = thread; slot < chunk_count; slot += threads) {
#ifdef KEY64
        keys_out[first_key + slot] = stored_key64(staged_key(slot), params.key_type, params.key_xor);
#else
        keys_out[first_key + slot] = stored_key(staged_key(slot), params.key_type, params.key_xor);
#endif
#ifdef WITH_VALUES
        values_out[first_key + slot] = stage_values[slot];
#endif
    }
}
