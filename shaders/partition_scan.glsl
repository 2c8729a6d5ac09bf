// partition_scan.glsl: the sample step (STEP_SAMPLE with the samples sorted
// whole), the shared memory the scatter stages its tiles in (which the scan
// and the fallback borrow), and the scan that turns the buckets' totals into
// their starts: with it, workgroup 0 judges the partition and writes the
// window table, the boundaries' buckets that the window merge reads.
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

// The keys of this workgroup's chunk: [first, end). In the nested count, the
// segment's keys in gl_NumWorkGroups.x equal chunks (whole threads' worth).
void chunk_of(out uint first, out uint end)
{
    uint group = gl_WorkGroupID.x;
    uint chunk = params.chunk_keys;
    if (params.step == STEP_NESTED_COUNT) {
        uint threads = gl_WorkGroupSize.x;
        chunk = (keys_count + gl_NumWorkGroups.x - 1u) / gl_NumWorkGroups.x;
        chunk = (chunk + threads - 1u) / threads * threads;
    }
    first = keys_base + min(group * chunk, keys_count);
    end = keys_base + min(group * chunk + chunk, keys_count);
}

// Where sample i comes from: one key from each of sample_count equal
// stretches, at a place in it that a hash of the stretch picks (the last
// count % sample_count keys are never sampled).
uint sample_position(uint i)
{
    uint stretch = params.count / params.sample_count;
    uint hashed = (i + 1u) * 0x9e3779b9u;
    hashed ^= hashed >> 16;
    return i * stretch + hashed % stretch;
}

void sample_step()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < params.sample_count) {
        uint position = sample_position(i);
        store_words_key(params.samples_at + KEY_WORDS * i, keys[position]);
#ifdef WITH_VALUES
        words[params.sample_values_at + i] = values[position];
#endif
    }
    if (i < bucket_count()) {
        words[TOTALS_AT + i] = 0u;
        words[claims_at() + i] = 0u;
    }
}

// Keys a thread of the scatter stages: tuning.c's partition_scatter_keys.
layout(constant_id = 3) const uint SCATTER_KEYS = 4u;
// The scatter's staged tile (see scatter_step), declared here because it
// lends its words to the workgroup's words below. 64-bit keys are staged as
// two words, low and high, in two arrays: the low words serve as the
// workgroup's words, and the high ones hold the fallback's (see
// FALLBACK_WORDS); read through staged_key.
#ifdef KEY64
shared uint stage_low[gl_WorkGroupSize.x * SCATTER_KEYS];
shared uint stage_high[gl_WorkGroupSize.x * SCATTER_KEYS];
#else
shared key_t stage_keys[gl_WorkGroupSize.x * SCATTER_KEYS];
#endif
#ifdef WITH_VALUES
shared uint stage_values[gl_WorkGroupSize.x * SCATTER_KEYS];
#endif
// Words of the workgroup: in the scan, the running sums (one a thread); in
// the fallback's selection, three a run. Where a key and its value take at
// most 8 bytes (PLACES_BY_SEARCH: 32-bit keys alone or with values, 64-bit
// keys alone), these are the staged keys' (low) words: neither use overlaps
// a staging (the scan comes after the tile's barrier that frees the stage and
// ends before the one after which the tile is staged; the fallback stages its
// chunk past a barrier after its last read of them), and the scatter finds a
// staged key's place from its bucket, so a tile of twice as many keys fits
// (docs/perf-log.md, entry 93; pairs and 64-bit keys since entry
// 95, a tile of 4096 of them in the 32 KiB where 2048 took their places'
// words beside). Else (and in the STORED_PLACES build) the scatter stores
// each staged key's place in them (SCATTER_KEYS a thread), only after its
// scan, past a barrier, so the two share the memory.
#if !(defined(KEY64) && defined(WITH_VALUES)) && !defined(STORED_PLACES)
#define PLACES_BY_SEARCH
#ifdef KEY64
#define workgroup_words stage_low
#else
#define workgroup_words stage_keys
#endif
#else
shared uint workgroup_words[gl_WorkGroupSize.x * SCATTER_KEYS];
#endif
shared uint too_long;

// The sum of the spans of the threads before this one, each thread giving its
// own span's sum. Every thread of the workgroup calls it.
#ifdef SUBGROUP_SCAN
// Built with SUBGROUP_SCAN (partition_lanes_pass, where the device has
// subgroup arithmetic): sums within each subgroup, the subgroups' totals
// summed by subgroup 0 a subgroup's worth a round, and the two added: two
// barriers where the doubling below takes two a round (20 for 1024 threads).
uint sum_before(uint sum)
{
    uint inclusive = subgroupInclusiveAdd(sum);
    uint total = subgroupAdd(sum);
    if (subgroupElect())
        workgroup_words[gl_SubgroupID] = total;
    barrier();
    if (gl_SubgroupID == 0u) {
        uint carried = 0u;
        for (uint first = 0u; first < gl_NumSubgroups; first += gl_SubgroupSize) {
            uint s = first + gl_SubgroupInvocationID;
            uint subgroup_total = s < gl_NumSubgroups ? workgroup_words[s] : 0u;
            uint before = carried + subgroupExclusiveAdd(subgroup_total);
            carried += subgroupAdd(subgroup_total);
            if (s < gl_NumSubgroups)
                workgroup_words[s] = before;
        }
    }
    barrier();
    return workgroup_words[gl_SubgroupID] + inclusive - sum;
}
#else
// Inclusive sums in shared memory, doubling the reach each round.
uint sum_before(uint sum)
{
    uint t = gl_LocalInvocationID.x;
    workgroup_words[t] = sum;
    barrier();
    for (uint reach = 1u; reach < gl_WorkGroupSize.x; reach <<= 1) {
        uint add = t >= reach ? workgroup_words[t - reach] : 0u;
        barrier();
        workgroup_words[t] += add;
        barrier();
    }
    return workgroup_words[t] - sum;
}
#endif

// This thread's span of the buckets: [first, end).
void bucket_span(out uint first, out uint end)
{
    uint buckets = bucket_count(), threads = gl_WorkGroupSize.x;
    uint span = (buckets + threads - 1u) / threads;
    first = min(gl_LocalInvocationID.x * span, buckets);
    end = min(first + span, buckets);
}

// The window table's boundaries inside one bucket of `total` keys from key
// `start`: each lies in exactly one bucket, so each pair of words is written
// once. An open bucket of at most `longest` keys (W, or 2W) holds one or two
// (then it spans a run whole); an equality bucket's keys are all alike and in
// place already, wherever the boundaries cut it. A longer open bucket is the
// fallback's: none of its boundaries is noted, so the window merge leaves its
// runs' pieces of it where they are.
void write_bucket_straddles(uint start, uint total, bool open)
{
    uint bucket_end = start + total;
    for (uint k = (start + params.window - 1u) / params.window; k * params.window < bucket_end; ++k) {
        bool straddles = open && total <= params.longest && start < k * params.window;
        words[params.straddles_at + 2u * k] = straddles ? start : k * params.window;
        words[params.straddles_at + 2u * k + 1u] = straddles ? bucket_end : k * params.window;
    }
}

// The same for buckets [first, end), the first of which starts at key `start`.
void write_straddles(uint first, uint end, uint start)
{
    for (uint b = first; b < end; ++b) {
        uint total = words[totals_at + b];
        write_bucket_straddles(start, total, (b & 1u) == 0u);
        start += total;
    }
}

// The nested partition's table (from word nested_at): the first
// partition's buckets' starts (2m + 1 words, the first scatter's), then a
// segment's words for each of its buckets: the splitters of its own m' (at
// most P = nested_splitters, 0 where it is not split), whether it falls back,
// its 2m' + 1 buckets' totals and claims, and its splitters (3 words each,
// as stored_splitter_at reads them).
uint segment_at(uint b)
{
    uint first_buckets = 2u * params.splitters + 1u;
    return params.nested_at + first_buckets + b * (7u * params.nested_splitters + 4u);
}

// Segment b has an open bucket too long for the window merge: the fallback
// remakes the chunks the segment touches (from the runs it spans whole).
void mark_segment_for_fallback(uint b)
{
    words[segment_at(b) + 1u] = 1u;
    atomicMax(words[FALLBACK_ARGS_AT], params.fallback_groups_x);
    atomicMax(words[FALLBACK_ARGS_AT + 1u], params.fallback_groups_y);
    atomicMax(words[VERDICT_AT], 1u);
}

// Where the buckets of this thread's span start in the output: the sum of the
// totals of the buckets before it. Workgroup 0 also writes what a scan step
// did before: the verdict, the fallback's dispatch size and the window table.
uint span_start()
{
    uint first, end;
    bucket_span(first, end);
    uint sum = 0u;
    bool long_bucket = false;
    for (uint b = first; b < end; ++b) {
        uint total = words[totals_at + b];
        sum += total;
        long_bucket = long_bucket || ((b & 1u) == 0u && total > params.longest);
    }
    if (gl_LocalInvocationID.x == 0u)
        too_long = 0u;
    barrier();
    if (long_bucket)
        atomicOr(too_long, 1u);
    uint start = sum_before(sum);  // its barriers put every atomicOr before the reads of too_long
    uint span_first_start = start;
    bool nested_step = params.step == STEP_NESTED_SCATTER;
    // The first scatter's workgroup 0, or each segment's first workgroup.
    if (gl_WorkGroupID.x != 0u || (gl_WorkGroupID.y != 0u && !nested_step))
        return span_first_start;
    if (nested_step) {
        if (too_long != 0u && gl_LocalInvocationID.x == 0u)
            mark_segment_for_fallback(gl_WorkGroupID.y);
        write_straddles(first, end, keys_base + start);
        return span_first_start;
    }
    // The first scatter of a nested partition notes the buckets' starts for
    // the nested steps, which judge the partition and write the window table
    // (the boundary past the keys' end below excepted).
    bool nested = params.nested_at != 0u;
    bool fall_back = too_long != 0u && !nested;
    if (nested) {
        for (uint b = first; b < end; ++b) {
            words[params.nested_at + b] = start;
            start += words[totals_at + b];
        }
    } else {
        write_straddles(first, end, start);
    }
    if (gl_LocalInvocationID.x == 0u) {
        // The boundary at or past the keys' end (k = runs): the count twice.
        uint runs = (params.count + params.window - 1u) / params.window;
        words[params.straddles_at + 2u * runs] = params.count;
        words[params.straddles_at + 2u * runs + 1u] = params.count;
        words[FALLBACK_ARGS_AT] = fall_back ? params.fallback_groups_x : 0u;
        words[FALLBACK_ARGS_AT + 1u] = fall_back ? params.fallback_groups_y : 1u;
        words[FALLBACK_ARGS_AT + 2u] = 1u;
        words[VERDICT_AT] = fall_back ? 1u : 0u;
    }
    return span_first_start;
}
