// partition_staged_sort.glsl: the fallback's shared words and its searches
// in the sorted runs, and the bitonic sort of staged keys in shared memory
// that the fallback, the nested sample step and the sample step by runs
// (sample_runs_step, here) share.
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

// The fallback (STEP_FALLBACK). Its chunk is the largest power of two within
// the scatter's tile, staged in the same shared memory; the selection keeps,
// for each run, a pair of bounds and a probe: target 0's in bucket_words,
// tile_starts and cell_words, target 1's three in a row in workgroup_words
// (free once the span's scan is done); then the pieces' places in
// cell_words. The host keeps the runs at most MAX_BUCKETS and a third of
// the scatter's tile (the fallback runs in src/vulkan/sorter/partition.c): buckets of a
// window on average make about as many runs as buckets.
// The fallback's own words: fallback_span(0..2), the start of the chunk's
// first bucket, the end of its last, a long one; fallback_less(0..5), the
// keys before a target's candidate, a pair a round, three rounds in turn.
// They lie in words the fallback has no use for meanwhile: where keys are
// 32 bits, in splitter_keys, which it never loads (the host keeps
// MAX_SPLITTERS at least 9); where keys are 64 bits, in the staged keys' high
// words, which it stages only past a barrier after its last read of them
// (and its selection keeps its words in the low ones, or in words of their
// own). Those 36 bytes are what a staged tile of 4096 pairs or 64-bit keys
// beside 511 splitters lacked of 48 KiB.
#ifdef KEY64
#define FALLBACK_WORDS stage_high
#else
#define FALLBACK_WORDS splitter_keys
#endif
#define fallback_span(i) FALLBACK_WORDS[i]
#define fallback_less(i) FALLBACK_WORDS[3u + (i)]

uint fallback_chunk_keys()
{
    return 1u << findMSB(gl_WorkGroupSize.x * SCATTER_KEYS);
}

// The selection's words of pair j (of 2 x runs): its bounds and its probe.
const uint FALLBACK_LOW = 0u;
const uint FALLBACK_HIGH = 1u;
const uint FALLBACK_PROBE = 2u;

uint fallback_word(uint j, uint runs, uint kind)
{
    if (j >= runs)
        return workgroup_words[3u * (j - runs) + kind];
    return kind == FALLBACK_LOW ? bucket_words[j] : kind == FALLBACK_HIGH ? tile_starts[j] : cell_words[j];
}

void set_fallback_word(uint j, uint runs, uint kind, uint word)
{
    if (j >= runs)
        workgroup_words[3u * (j - runs) + kind] = word;
    else if (kind == FALLBACK_LOW)
        bucket_words[j] = word;
    else if (kind == FALLBACK_HIGH)
        tile_starts[j] = word;
    else
        cell_words[j] = word;
}

// Key i of the runs the fallback reads, ordered, and its value: from Keys and
// Values, or from PackedIn where the runs are packed pairs.
key_t run_key(uint i)
{
#ifdef PACKED_PAIRS
    if ((params.flags & FLAG_PACKED_PAIRS) != 0u)
        return packed_in[i].y;
#endif
    return ordered(keys[i]);
}

uint run_value(uint i)
{
#ifdef PACKED_PAIRS
    if ((params.flags & FLAG_PACKED_PAIRS) != 0u)
        return packed_in[i].x;
#endif
    return value_at(i);
}

// The first index in [low, high) of sorted keys whose key (and value) comes
// after (key, value) (after) or does not come before it (!after).
uint search_run(uint low, uint high, key_t key, uint value, bool after)
{
    while (low < high) {
        uint middle = (low + high) / 2u;
        key_t here = run_key(middle);
        uint here_value = run_value(middle);
        bool below = after ? !composite_before(key, value, here, here_value)
                           : composite_before(here, here_value, key, value);
        if (below)
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

#ifdef KEY64
const uint KEY_BITS = 64u;
#else
const uint KEY_BITS = 32u;
#endif
#ifdef WITH_VALUES
const uint ORDER_BITS = KEY_BITS + 32u;
#else
const uint ORDER_BITS = KEY_BITS;
#endif

// Round `round` of the selection tries the prefix found so far with its next
// bit set: the key's bits from the top, then the value's.
void candidate_of(uint round, key_t prefix_key, uint prefix_value, out key_t key, out uint value)
{
    key = prefix_key;
    value = prefix_value;
    if (round < KEY_BITS)
        key |= key_t(1u) << (KEY_BITS - 1u - round);
    else
        value |= 1u << (ORDER_BITS - 1u - round);
}

// Two keys (and values) put in order, ascending or not.
void order_keys(inout key_t key_a, inout uint value_a, inout key_t key_b, inout uint value_b, bool ascending)
{
    if (ascending ? composite_before(key_b, value_b, key_a, value_a)
                  : composite_before(key_a, value_a, key_b, value_b)) {
        key_t key = key_a;
        key_a = key_b;
        key_b = key;
        uint value = value_a;
        value_a = value_b;
        value_b = value;
    }
}

// The first `count` staged keys (a power of two) sorted by the bitonic
// network in shared memory. Two steps of a phase at once where it has two
// left (strides s and s / 2): a thread takes the four slots a, a + s / 2,
// a + s, a + s + s / 2, which the two steps compare only among themselves,
// so one barrier serves both; 30 barriers for 1024 keys where a step each
// took 55 (the sample step, docs/perf-log.md, entry 78). A barrier
// before each group of steps and after the last.
void sort_staged(uint count)
{
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    for (uint size = 2u; size <= count; size <<= 1) {
        uint stride = size >> 1;
        for (; stride >= 2u; stride >>= 2) {
            uint half_stride = stride >> 1;
            barrier();
            for (uint i = thread; i < count / 4u; i += threads) {
                uint a = ((i & ~(half_stride - 1u)) << 2) | (i & (half_stride - 1u));
                bool ascending = (a & size) == 0u;
                uint slots[4] = uint[4](a, a + half_stride, a + stride, a + stride + half_stride);
                key_t k[4];
                uint v[4];
                [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                    k[j] = staged_key(slots[j]);
                    v[j] = staged_value(slots[j]);
                }
                order_keys(k[0], v[0], k[2], v[2], ascending);
                order_keys(k[1], v[1], k[3], v[3], ascending);
                order_keys(k[0], v[0], k[1], v[1], ascending);
                order_keys(k[2], v[2], k[3], v[3], ascending);
                [[unroll]] for (uint j = 0u; j < 4u; ++j)
                    store_staged(slots[j], k[j], v[j]);
            }
        }
        if (stride == 1u) {  // an odd step left
            barrier();
            for (uint i = thread; i < count / 2u; i += threads) {
                uint a = i << 1;
                key_t key_a = staged_key(a), key_b = staged_key(a + 1u);
                uint value_a = staged_value(a), value_b = staged_value(a + 1u);
                order_keys(key_a, value_a, key_b, value_b, (a & size) == 0u);
                store_staged(a, key_a, value_a);
                store_staged(a + 1u, key_b, value_b);
            }
        }
    }
    barrier();
}

// STEP_SAMPLE where the samples are sorted in runs (the host keeps a run
// within the staged tile):
// workgroup r gathers run r's samples into shared memory, sorts them there
// and stores them as the sort of the samples would have left them, stored
// keys ascending in the sort's order; every workgroup zeroes its share of the
// totals and the claims. One dispatch where the sample step and the tile
// pass of the samples' sort were two.
void sample_runs_step()
{
    uint thread = gl_LocalInvocationID.x, threads = gl_WorkGroupSize.x;
    for (uint b = gl_GlobalInvocationID.x; b < bucket_count(); b += gl_NumWorkGroups.x * threads) {
        words[TOTALS_AT + b] = 0u;
        words[claims_at() + b] = 0u;
    }
    uint run_keys = params.sample_count >> params.sample_runs_log;
    uint first = gl_WorkGroupID.x * run_keys;
    // Uniform over the workgroup: every thread or none meets the barriers.
    if (gl_WorkGroupID.x < (1u << params.sample_runs_log)) {
        for (uint slot = thread; slot < run_keys; slot += threads) {
            uint position = sample_position(first + slot);
            store_staged(slot, ordered(keys[position]), value_at(position));
        }
        sort_staged(run_keys);
        for (uint slot = thread; slot < run_keys; slot += threads) {
#ifdef KEY64
            key_t key = stored_key64(staged_key(slot), params.key_type, params.key_xor);
#else
            key_t key = stored_key(staged_key(slot), params.key_type, params.key_xor);
#endif
            store_words_key(params.samples_at + KEY_WORDS * (first + slot), key);
#ifdef WITH_VALUES
            words[params.sample_values_at + first + slot] = stage_values[slot];
#endif
        }
    }
}
