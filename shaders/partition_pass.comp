#version 450
// partition_pass.comp: the steps of the partition sort that are not a tile
// sort or a merge (src/cpu/reference_partition.c is the same on the CPU, and
// its proof; vk_sorter.c, record_partition_sort, records them):
// - STEP_SAMPLE: sample_count keys from spread positions into the Partition
//   binding, for the sort of the samples recorded after it; zeroes the totals
//   and the claims. Where the samples are sorted in runs (sample_runs_log,
//   runs that fit the scatter's staged tile), workgroup r gathers run r and
//   sorts it in shared memory itself, and no sort is recorded after it.
// - STEP_COUNT: workgroup w counts the keys of its chunk by bucket (2m + 1
//   buckets: open bucket 2i between splitters i - 1 and i, equality bucket
//   2i + 1 for keys equal to splitter i), and adds its counts to the buckets'
//   totals.
// - STEP_SCATTER: each workgroup sums the buckets' totals into their starts
//   (each alike: a dispatch of one workgroup for it, the scan, cost about 5
//   us on the H100, docs/perf-log.md, entry 59), then, tile after tile, ranks a small tile
//   of keys by bucket, claims room in each bucket for them, and moves them
//   there. Workgroup 0 also judges the partition (where an open bucket is
//   longer than `longest` (two windows, or one where the buckets average
//   half a window), the window merge cannot sort it: the fallback's
//   indirect dispatch gets its workgroups), and notes for the window merge,
//   at each window boundary kW, the open bucket around it (its start and end
//   where it starts before kW and is at most `longest`; else kW twice).
// - STEP_FALLBACK, after the window merge, where an open bucket is longer
//   than that: workgroup c remakes output chunk c (the scatter's tile of keys)
//   where the chunk touches such a bucket, and leaves the others to the
//   window merge, which put every key outside those buckets in place. The
//   chunk's keys are those ranked [cC, (c + 1)C) among the runs of W that its
//   buckets span (every key of an earlier run ranks below them, every key of
//   a later one above): a selection in each of those runs, bit by bit of the
//   ordered key (and value), finds the cuts, and the pieces between them are
//   sorted in shared memory. One dispatch where the merge levels used to run
//   on to the whole array: 8 dispatches at 2^21 keys, which cost 0.011 ms
//   when empty on the H100 (docs/perf-log.md, entry 60).
// - STEP_NESTED_SAMPLE, STEP_NESTED_COUNT, STEP_NESTED_SCATTER, after the
//   scatter where the partition is nested: each open bucket of more than a
//   window partitioned again by splitters of its own (see "The nested
//   partition" below), and the fallback taking whole the segments whose
//   nested buckets are too long, selecting in batches of runs where they span
//   more than its shared words hold (fallback_stage_unbounded).
// - Pairs of 32-bit keys may go packed (FLAG_PACKED_PAIRS): the scatter
//   writes each pair as one 64-bit word, the ordered key above the value,
//   whose order is the pairs' (key, then value), so the tile sort and the
//   merges between the scatter and the window merge are those of 64-bit keys, each
//   pair one 8-byte access where it was two of 4 bytes in two arrays; the
//   window merge (merge_pass.comp with UNPACK_OUT) and the fallback, which
//   reads the runs from PackedIn, write the caller's keys and values apart.
// Built with STORED_PLACES (partition_stored_pass, keys of at most 8 bytes
// with their values), for the scatter on half tiles: each staged key's place
// is stored beside it, as for 64-bit keys with values, instead of found
// again from its bucket, which cost more on a half tile than the staged
// tile's length saves (docs/perf-log.md, entries 93, 94 and 95).
// Keys are compared as the sort orders them: ordered bits (key_order.glsl),
// and with values by key, then value. The splitters are every
// (sample_count / (m + 1))-th sorted sample, or where the samples are sorted
// in runs the means of the runs' keys at those places (splitter_from_runs);
// equal ones leave empty buckets between them, so no pass needs to drop
// repeats.
#extension GL_EXT_control_flow_attributes : require
#ifdef SUBGROUP_SCAN
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#if defined(KEY64) || defined(PAIRS_AS_INT64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#ifdef KEY64
#define key_t uint64_t
#else
#define key_t uint
#endif
layout(local_size_x_id = 0) in;
// The most splitters a sort may ask for: the shared arrays hold them, and a
// count for each of their 2m + 1 buckets (the host sizes it to the device,
// 2^d - 1 for some d).
layout(constant_id = 1) const uint MAX_SPLITTERS = 1023u;
const uint MAX_BUCKETS = 2u * MAX_SPLITTERS + 1u;
// Cells of the splitters' lookup table (see load_splitters): 2 (MAX_SPLITTERS
// + 1), which the host makes a power of two.
layout(constant_id = 2) const uint MAX_CELLS = 2048u;
// Keys a thread of the count loads at once (see count_step), the next batch's
// while it searches this one's. Loading a batch only once the last was
// counted, 4 was best on the H100 (docs/perf-log.md, entry 67: 8 and 16
// slower, 2 slower from 2^24); with the next batch's loads ahead, 2 made the
// count of 2^24 u32 keys take 0.0564 ms against 0.0604, pairs 0.0783 against
// 0.0880, and 4 0.0548 and 0.0924 (entry 74). With the cells' first
// splitters staged (entry 100), 4 took the u32 count of 2^26 keys from 0.1436
// to 0.1376 ms on the H200 but pairs' from 0.1915 to 0.2032 and every count
// of 2^20 longer; 8 for 32-bit keys alone was slower below 2^24.
const uint KEYS_AT_ONCE = 2u;

const uint STEP_SAMPLE = 0u;
const uint STEP_COUNT = 1u;
const uint STEP_SCATTER = 2u;
const uint STEP_FALLBACK = 3u;
const uint STEP_NESTED_SAMPLE = 4u;
const uint STEP_NESTED_COUNT = 5u;
const uint STEP_NESTED_SCATTER = 6u;

// The scatter writes pairs packed (PackedOut), the fallback reads them (PackedIn).
const uint FLAG_PACKED_PAIRS = 1u;
// The fallback selects in batches of runs however few (fallback_stage_unbounded):
// for tests, which could not sort enough keys for a segment to span more runs
// than the shared words hold.
const uint FLAG_FALLBACK_IN_BATCHES = 2u;

// partition_push_constants in vk_sorter.c.
layout(push_constant) uniform PartitionParams {
    uint count;          // keys
    uint step;           // STEP_*
    uint key_xor;        // 0 ascending, all ones descending
    uint key_type;       // KEY_* of key_order.glsl
    uint sample_count;   // keys sampled, at least splitters + 1
    uint splitters;      // m, at most MAX_SPLITTERS
    uint chunk_keys;     // keys a count workgroup takes
    uint window;         // W: the runs' keys
    uint samples_at;     // words into Partition: the sample keys (sorted from STEP_COUNT on)
    uint sample_values_at;  // ... and their values
    uint fallback_groups_x; // the fallback's workgroups, a chunk each
    uint fallback_groups_y;
    uint straddles_at;   // words into Partition: a pair of words a window boundary (merge_pass.comp)
    uint sample_runs_log;  // the samples are sorted in 2^this runs (0: whole)
    uint longest;        // the longest open bucket the window merge sorts: W, or 2W (three pieces)
    uint flags;          // FLAG_*
    uint scatter_tile;   // keys a tile of the scatter: the staged tile, or half of it (vk_sorter.c)
    uint nested_at;      // words into Partition: the nested partition's table (0: not nested)
    uint nested_splitters;  // the most splitters a bucket's nested partition takes (P)
} params;

layout(std430, binding = 0) readonly buffer Keys { key_t keys[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { key_t keys_out[]; };
#ifdef WITH_VALUES
layout(std430, binding = 1) readonly buffer Values { uint values[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
#ifndef KEY64
// Packed pairs, (value, ordered key) as the low and high word of one 64-bit
// key: the same buffers as Keys and KeysOut (the sorts' 16-byte views' bindings).
layout(std430, binding = 6) readonly buffer PackedIn { uvec2 packed_in[]; };
layout(std430, binding = 7) writeonly buffer PackedOut { uvec2 packed_out[]; };
#define PACKED_PAIRS
#endif
#endif
// The partition's words: the fallback's indirect dispatch arguments, the
// verdict, the buckets' totals and their claims (keys placed so far), the
// samples.
layout(std430, binding = 5) buffer Partition { uint words[]; };
const uint FALLBACK_ARGS_AT = 0u;
const uint VERDICT_AT = 6u;
const uint TOTALS_AT = 8u;

#include "key_order.glsl"

// What this workgroup partitions: the whole keys, or in the nested steps one
// bucket of the first partition (a segment: enter_segment), which has
// splitters, totals and claims of its own. Set once in main, the same in
// every thread.
uint splitter_count;  // m: the first partition's splitters, or the segment's
uint totals_at;       // words into Partition: the buckets' totals, then their claims
uint keys_base;       // the keys partitioned: [keys_base, keys_base + keys_count)
uint keys_count;

uint bucket_count()
{
    return 2u * splitter_count + 1u;
}

uint claims_at()
{
    return totals_at + bucket_count();
}

key_t ordered(key_t stored)
{
#ifdef KEY64
    return ordered_key64(stored, params.key_type, params.key_xor);
#else
    return ordered_key(stored, params.key_type, params.key_xor);
#endif
}

shared key_t splitter_keys[MAX_SPLITTERS];
#ifdef WITH_VALUES
shared uint splitter_values[MAX_SPLITTERS];
#endif
// A key's bucket is found in two steps: its cell, a range of key values, then
// a binary search among the few splitters in that cell. The cells split the
// splitters' span [first splitter, last splitter] into equal ranges of
// 2^cell_shift values (a subtraction and a shift: keys are bits), twice as
// many cells as buckets; cell_words[c] holds the splitters before cell c and,
// from bit 16, those in it. Random keys leave at most a few splitters a cell,
// so the search takes 2 or 3 steps where the binary search over all of them
// (as a breadth-first tree before) took 9, each a load from shared memory at
// a place that differs from lane to lane (docs/perf-log.md, entry 59). Where the splitters
// crowd into few cells (keys far from uniform, many equal keys) the steps
// grow back to what the whole search took: the steps are those the fullest
// cell needs, the same for every thread.
shared uint cell_words[MAX_CELLS];
shared uint cell_shift;
shared uint search_steps;
shared uint fullest_cell;
shared uint bucket_words[MAX_BUCKETS];
// What cell_of needs besides the key, the same in every thread: copied from
// shared memory once the table is built, so a key's cell costs no load.
key_t first_splitter;
uint key_cell_shift;
uint last_cell;

// A key in the partition's words from word `at` (two words, low first, for
// 64-bit keys): the samples and the stored splitters.
#ifdef KEY64
const uint KEY_WORDS = 2u;
#else
const uint KEY_WORDS = 1u;
#endif

key_t words_key(uint at)
{
#ifdef KEY64
    return packUint2x32(uvec2(words[at], words[at + 1u]));
#else
    return words[at];
#endif
}

void store_words_key(uint at, key_t key)
{
#ifdef KEY64
    uvec2 halves = unpackUint2x32(key);
    words[at] = halves.x;
    words[at + 1u] = halves.y;
#else
    words[at] = key;
#endif
}

// Sorted sample s, as stored bits.
key_t sample_key(uint s)
{
    return words_key(params.samples_at + KEY_WORDS * s);
}

// Cells of the table: twice the least power of two above the splitters.
uint cell_count()
{
    return 2u << (findMSB(splitter_count) + 1u);
}

// Bits of x up to its highest set one (0 for 0).
uint bit_length(key_t x)
{
#ifdef KEY64
    uvec2 halves = unpackUint2x32(x);
    return halves.y != 0u ? 33u + uint(findMSB(halves.y)) : uint(findMSB(halves.x) + 1);
#else
    return uint(findMSB(x) + 1);
#endif
}

// The key's cell: keys below the first splitter in cell 0, above the last in
// the last cell.
uint cell_of(key_t key)
{
    if (key <= first_splitter)
        return 0u;
    key_t offset = (key - first_splitter) >> key_cell_shift;
    return offset < key_t(last_cell) ? uint(offset) : last_cell;
}

// Whether (key x, value vx) comes before (y, vy): ordered keys, then values.
bool composite_before(key_t x, uint vx, key_t y, uint vy)
{
#ifdef WITH_VALUES
    return ordered_pair_before(x, vx, y, vy);  // key_order.glsl: as network.glsl's pair_less
#else
    return x < y;
#endif
}

// Whether splitter i comes before the key (and value).
bool splitter_before(uint i, key_t key, uint value)
{
#ifdef WITH_VALUES
    return composite_before(splitter_keys[i], splitter_values[i], key, value);
#else
    return composite_before(splitter_keys[i], 0u, key, value);
#endif
}

// The splitters whose cell comes before cell c, from their cells, which
// load_splitters leaves in bucket_words meanwhile.
uint splitters_before_cell(uint c)
{
    uint low = 0u, high = splitter_count;
    while (low < high) {
        uint middle = (low + high) / 2u;
        if (bucket_words[middle] < c)
            low = middle + 1u;
        else
            high = middle;
    }
    return low;
}

// Splitter i, from the samples sorted in R = 2^sample_runs_log runs of L keys:
// the mean of one key of each run, as numbers of the order (the ordered key,
// then the value, as one integer), so the splitters ascend as each run's keys
// do; with one run, the key (i + 1) * L / (m + 1) from 0. The mean of R
// estimates of a quantile splits the keys as evenly as the quantile of the
// whole sorted sample does, and sorting the runs alone took one pass where the
// whole sort took three (docs/perf-log.md, entry 62). A run's key of
// rank k (from 1) lies on average k / (L + 1) of the way through the keys, so
// the rank wanted is x = (i + 1)(L + 1) / (m + 1), seldom a whole number: run r
// takes rank floor((Rx + r) / R), and the R ranks average x. Runs of twice as
// many keys as buckets (the host's choice, docs/perf-log.md, entry 67) with the rank
// (i + 1) L / (m + 1) from 0 left the first bucket half as long again as the
// others in a simulation; with x rounded, every splitter's quantile was off
// by up to a quarter of a bucket. The host keeps (i + 1)(L + 1) R below 2^32.
const uint RUN_KEYS_AT_ONCE = 8u;  // keys of the runs loaded at once: their loads overlap

void splitter_from_runs(uint i, out key_t key, out uint value)
{
    uint runs_log = params.sample_runs_log;
    uint run_keys = params.sample_count >> runs_log;
    uint m = params.splitters;
    // With runs, R times the rank wanted: run r takes rank (ranks + r) / R.
    uint ranks = (i + 1u) * ((run_keys + 1u) << runs_log) / (m + 1u);
    // The sum of the runs' keys, in 32-bit limbs from the lowest: the value,
    // the key's low word, its high word, the carries.
    uint limbs[4] = uint[4](0u, 0u, 0u, 0u);
    uint runs = 1u << runs_log;
    for (uint first_run = 0u; first_run < runs; first_run += RUN_KEYS_AT_ONCE) {
        key_t run_keys_here[RUN_KEYS_AT_ONCE];
        uint run_values_here[RUN_KEYS_AT_ONCE];
        [[unroll]] for (uint j = 0u; j < RUN_KEYS_AT_ONCE; ++j) {
            uint run = min(first_run + j, runs - 1u);
            // (Within the run wherever L > m, as the host's runs are; clamped all the same.)
            uint at = runs_log == 0u ? (i + 1u) * run_keys / (m + 1u)
                                     : clamp((ranks + run) >> runs_log, 1u, run_keys) - 1u;
            uint s = run * run_keys + at;
            run_keys_here[j] = sample_key(s);
#ifdef WITH_VALUES
            run_values_here[j] = words[params.sample_values_at + s];
#else
            run_values_here[j] = 0u;
#endif
        }
        [[unroll]] for (uint j = 0u; j < RUN_KEYS_AT_ONCE; ++j) {
            if (first_run + j >= runs)
                break;
            key_t run_key = ordered(run_keys_here[j]);
            uint addend[3] = uint[3](run_values_here[j], 0u, 0u);
#ifdef KEY64
            uvec2 halves = unpackUint2x32(run_key);
            addend[1] = halves.x;
            addend[2] = halves.y;
#else
            addend[1] = run_key;
#endif
            uint carry = 0u;
            [[unroll]] for (uint l = 0u; l < 3u; ++l) {
                uint low_carry, high_carry;
                uint sum = uaddCarry(limbs[l], addend[l], low_carry);
                limbs[l] = uaddCarry(sum, carry, high_carry);
                carry = low_carry + high_carry;
            }
            limbs[3] += carry;
        }
    }
    if (runs_log > 0u) {
        [[unroll]] for (uint l = 0u; l < 3u; ++l)
            limbs[l] = (limbs[l] >> runs_log) | (limbs[l + 1u] << (32u - runs_log));
    }
    value = limbs[0];
#ifdef KEY64
    key = packUint2x32(uvec2(limbs[1], limbs[2]));
#else
    key = limbs[1];
#endif
}

// The splitters (splitter_from_runs). Then the cells: the shift that puts the splitters'
// span in cell_count() cells, each splitter's cell, each cell's first
// splitter and count (binary searches over the splitters' cells), and the
// steps that the fullest cell's search takes. A workgroup of the count and of
// the scatter does this once; at 2^21 keys each counts 8192 keys, so it must
// be cheap: with a 64-bit cell computed in every step of a cell's searches
// and an atomic a cell on one word, the count of 64-bit keys took 8% longer
// there than with the search tree before, and 5% as now (docs/perf-log.md, entry 59).
// The count's workgroup 0 leaves the splitters in the partition's words (3
// words each, after the claims) and the scatter reads them there: one load a
// splitter where the runs' keys took R (R = 16 from 2^20 32-bit keys, log
// entry 67).
uint stored_splitter_at(uint i)
{
    return claims_at() + bucket_count() + 3u * i;
}

void load_splitters()
{
    uint m = splitter_count;
    // The first scatter and the nested steps read the splitters stored by the
    // first count (the nested ones by the nested sample step).
    bool stored = params.step == STEP_SCATTER || params.step == STEP_NESTED_COUNT || params.step == STEP_NESTED_SCATTER;
    bool store = params.step == STEP_COUNT && gl_WorkGroupID.x == 0u && gl_WorkGroupID.y == 0u;
    for (uint i = gl_LocalInvocationID.x; i < m; i += gl_WorkGroupSize.x) {
        key_t key;
        uint value;
        uint at = stored_splitter_at(i);
        if (stored) {
            key = words_key(at);
            value = words[at + 2u];
        } else {
            splitter_from_runs(i, key, value);
        }
        if (store) {
            store_words_key(at, key);
            words[at + 2u] = value;
        }
        splitter_keys[i] = key;
#ifdef WITH_VALUES
        splitter_values[i] = value;
#endif
    }
    if (gl_LocalInvocationID.x == 0u)
        fullest_cell = 0u;
    barrier();
    uint cells = cell_count(), cells_log = findMSB(cells);
    if (gl_LocalInvocationID.x == 0u) {
        uint span_bits = bit_length(splitter_keys[m - 1u] - splitter_keys[0]);
        cell_shift = span_bits > cells_log ? span_bits - cells_log : 0u;
    }
    barrier();
    first_splitter = splitter_keys[0];
    key_cell_shift = cell_shift;
    last_cell = cells - 1u;
    for (uint i = gl_LocalInvocationID.x; i < m; i += gl_WorkGroupSize.x)
        bucket_words[i] = cell_of(splitter_keys[i]);
    barrier();
    uint fullest_here = 0u;
    for (uint c = gl_LocalInvocationID.x; c < cells; c += gl_WorkGroupSize.x) {
        uint first = splitters_before_cell(c), in_cell = splitters_before_cell(c + 1u) - first;
        cell_words[c] = first | (in_cell << 16);
        fullest_here = max(fullest_here, in_cell);
    }
#ifdef SUBGROUP_SCAN
    fullest_here = subgroupMax(fullest_here);  // an atomic a subgroup, not a thread
    if (subgroupElect())
        atomicMax(fullest_cell, fullest_here);
#else
    atomicMax(fullest_cell, fullest_here);
#endif
    barrier();
    if (gl_LocalInvocationID.x == 0u)
        search_steps = uint(findMSB(fullest_cell) + 1);
}

// The key's bucket (bitonic_partition_bucket() in reference_partition.c): 2i + 1
// when it equals splitter i, else 2i where i splitters come before it. Every
// splitter of an earlier cell comes before the key and none of a later one
// does; within the key's cell, steps of 2^(search_steps - 1), ..., 1 splitters
// move past those before it (a cell holds fewer than 2^search_steps).
// bucket_among searches the cell's splitters [low, end).
uint bucket_among(key_t key, uint value, uint low, uint end)
{
    for (uint step = search_steps; step > 0u; --step) {
        uint probe = low + (1u << (step - 1u));
        bool inside = probe <= end;
        if (splitter_before(inside ? probe - 1u : 0u, key, value) && inside)
            low = probe;
    }
#ifdef WITH_VALUES
    bool equal = low < splitter_count && splitter_keys[low] == key && splitter_values[low] == value;
#else
    bool equal = low < splitter_count && splitter_keys[low] == key;
#endif
    return equal ? 2u * low + 1u : 2u * low;
}

uint bucket_of(key_t key, uint value)
{
    uint cell_word = cell_words[cell_of(key)];
    uint low = cell_word & 0xffffu;
    return bucket_among(key, value, low, low + (cell_word >> 16));
}

#ifndef KEY64
// The scatter's lookup for 32-bit keys (docs/perf-log.md, entry 101).
// The scatter's staged tile leaves no room for the count's table of first
// splitters (count_step), so each cell's word is repacked in place to hold
// what that table gives: from bit 22 the splitters before the cell (at most
// 1023: tuning.c keeps the splitters at most 511), at bits 20-21 whether the
// cell holds none, one or more of them, and below, the top 20 bits of its
// first splitter's offset in the cell (a cell spans 2^cell_shift values, up
// to 2^22 for 511 splitters). A key whose offset's top bits differ from those
// takes one load from shared memory and no search where bucket_of takes a
// load a step and one for equality; the others (equal top bits, or past the
// first of two or more) search as bucket_of does, the cell's count being
// the next cell's splitters before it less its own.
#define PACKED_CELLS
const uint PACKED_OFFSET_BITS = 20u;
uint packed_offset_drop;  // offset bits dropped: the same in every thread

void pack_cells()
{
    packed_offset_drop = key_cell_shift > PACKED_OFFSET_BITS ? key_cell_shift - PACKED_OFFSET_BITS : 0u;
    for (uint c = gl_LocalInvocationID.x; c < cell_count(); c += gl_WorkGroupSize.x) {
        uint word = cell_words[c], first = word & 0xffffu, in_cell = word >> 16;
        uint offset_top = 0u;
        if (in_cell != 0u)
            offset_top = ((splitter_keys[first] - first_splitter) - (c << key_cell_shift)) >> packed_offset_drop;
        cell_words[c] = (first << 22) | (min(in_cell, 2u) << PACKED_OFFSET_BITS) | offset_top;
    }
    barrier();
}

uint bucket_in_packed_cell(uint cell, key_t key, uint value)
{
    uint first = cell_words[cell] >> 22;
    uint end = cell < last_cell ? cell_words[cell + 1u] >> 22 : splitter_count;
    return bucket_among(key, value, first, end);
}

uint bucket_by_packed_cell(key_t key, uint value)
{
    if (key <= first_splitter)
        return key < first_splitter ? 0u : bucket_in_packed_cell(0u, key, value);
    key_t offset = key - first_splitter;
    uint cell = min(offset >> key_cell_shift, last_cell);
    uint word = cell_words[cell];
    uint first = word >> 22, kind = (word >> PACKED_OFFSET_BITS) & 3u;
    if (kind == 0u)
        return 2u * first;
    // The last cell's keys past its span: top bits past any splitter's.
    uint top = (offset - (cell << key_cell_shift)) >> packed_offset_drop;
    uint splitter_top = word & ((1u << PACKED_OFFSET_BITS) - 1u);
    if (top < splitter_top)
        return 2u * first;
    if (top > splitter_top && kind == 1u)
        return 2u * first + 2u;
    return bucket_in_packed_cell(cell, key, value);
}
#endif

uint value_at(uint i)
{
#ifdef WITH_VALUES
    return values[i];
#else
    return 0u;
#endif
}

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

// The scatter, in tiles of SCATTER_KEYS keys a thread: each tile's keys ranked
// by bucket in shared memory, room claimed in each bucket for the tile's keys
// of it (a global atomic on the bucket's claims, keys placed in it so far,
// from its start), the keys staged in shared memory in bucket order with their
// places in the output beside them, and written from there, neighbouring
// threads to neighbouring places: each bucket's keys of the tile in whole
// sectors. Written in the order the threads held them, every store went to its
// own sector, and the scatter of 2^24 keys into 4095 buckets took 0.48-0.51
// ms, ten times a copy (docs/perf-log.md, entry 55); staging needs few
// enough buckets that a tile gives each several keys, which the splitters'
// limit (tuning.c) sees to. A workgroup takes tiles group, group + groups, ...
// (the host may launch fewer workgroups than tiles, so that each builds the
// splitters' cells and sums the totals once for several), loading its next
// tile's keys before it writes the current one's, so that the loads are in
// flight meanwhile. With PLACES_BY_SEARCH the staged keys' places are not
// kept: tile_starts holds each bucket's place less its first slot, and the
// writing thread finds a staged key's bucket again (2 or 3 steps of a search
// in shared memory where the places took a load, but a tile twice as long:
// each tile costs a chain of barriers and a claim a bucket whatever its size).
// A staged slot's key and value (0 without values), and a key and value
// staged at a slot: the scatter, the sample step and the fallback stage this
// way, and sort_staged sorts what they staged.
key_t staged_key(uint slot)
{
#ifdef KEY64
    return packUint2x32(uvec2(stage_low[slot], stage_high[slot]));
#else
    return stage_keys[slot];
#endif
}

uint staged_value(uint slot)
{
#ifdef WITH_VALUES
    return stage_values[slot];
#else
    return 0u;
#endif
}

void store_staged(uint slot, key_t key, uint value)
{
#ifdef KEY64
    uvec2 halves = unpackUint2x32(key);
    stage_low[slot] = halves.x;
    stage_high[slot] = halves.y;
#else
    stage_keys[slot] = key;
#endif
#ifdef WITH_VALUES
    stage_values[slot] = value;
#endif
}

// The count's lookup (docs/perf-log.md, entry 100). The count
// stages no keys, so its staged tile's first cell_count() slots hold each
// cell's first splitter (key and value), for which the scatter's table has
// no room. A key whose cell holds no splitter is in the cell's open bucket,
// and one comparison with the cell's first splitter places most others: two
// loads from shared memory and the count's atomic, where bucket_of's search
// takes a load a step and one more for equality. Only a key equal to that
// splitter (with values) or past it in a cell of two or more searches.
void stage_cell_splitters()
{
    for (uint c = gl_LocalInvocationID.x; c < cell_count(); c += gl_WorkGroupSize.x) {
        uint word = cell_words[c], first = word & 0xffffu;
        if ((word >> 16) != 0u) {
#ifdef WITH_VALUES
            store_staged(c, splitter_keys[first], splitter_values[first]);
#else
            store_staged(c, splitter_keys[first], 0u);
#endif
        }
    }
}

// bucket_of's bucket, through the staged cells' first splitters.
uint bucket_by_cell_splitter(key_t key, uint value)
{
    uint cell = cell_of(key);
    uint word = cell_words[cell];
    uint first = word & 0xffffu, in_cell = word >> 16;
    if (in_cell == 0u)
        return 2u * first;
    key_t splitter = staged_key(cell);
    if (key < splitter)
        return 2u * first;
    if (key > splitter && in_cell == 1u)
        return 2u * first + 2u;
#ifndef WITH_VALUES
    if (key == splitter)
        return 2u * first + 1u;
#endif
    return bucket_among(key, value, first, first + in_cell);  // the cell's word is at hand
}

// The count, placed here because it borrows the scatter's staged tile.
void count_step()
{
    load_splitters();
    for (uint b = gl_LocalInvocationID.x; b < bucket_count(); b += gl_WorkGroupSize.x)
        bucket_words[b] = 0u;
    bool cell_splitters_staged = cell_count() <= gl_WorkGroupSize.x * SCATTER_KEYS;
    if (cell_splitters_staged)
        stage_cell_splitters();
    barrier();
    uint first, end;
    chunk_of(first, end);
    // KEYS_AT_ONCE keys a thread are loaded before any is searched, so the
    // loads are in flight together, and the next batch's loads go out before
    // this batch's searches, so the searches do not leave the memory idle.
    uint stride = gl_WorkGroupSize.x * KEYS_AT_ONCE;
    key_t next[KEYS_AT_ONCE];
    uint next_values[KEYS_AT_ONCE];
    [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
        uint i = first + gl_LocalInvocationID.x + j * gl_WorkGroupSize.x;
        next[j] = i < end ? keys[i] : key_t(0);
        next_values[j] = i < end ? value_at(i) : 0u;
    }
    for (uint base = first + gl_LocalInvocationID.x; base < end; base += stride) {
        key_t batch[KEYS_AT_ONCE] = next;
        uint batch_values[KEYS_AT_ONCE] = next_values;
        [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
            uint i = base + stride + j * gl_WorkGroupSize.x;  // past end: not read
            next[j] = i < end ? keys[i] : key_t(0);
            next_values[j] = i < end ? value_at(i) : 0u;
        }
        [[unroll]] for (uint j = 0u; j < KEYS_AT_ONCE; ++j)
            if (base + j * gl_WorkGroupSize.x < end) {
                key_t key = ordered(batch[j]);
                uint bucket = cell_splitters_staged ? bucket_by_cell_splitter(key, batch_values[j])
                                                    : bucket_of(key, batch_values[j]);
                atomicAdd(bucket_words[bucket], 1u);
            }
    }
    barrier();
    // The buckets' totals; where each scatter workgroup's keys go is claimed
    // by the scatter itself.
    for (uint b = gl_LocalInvocationID.x; b < bucket_count(); b += gl_WorkGroupSize.x) {
        uint keys_here = bucket_words[b];
        if (keys_here != 0u)
            atomicAdd(words[totals_at + b], keys_here);
    }
}

shared uint tile_starts[MAX_BUCKETS];

// Tile `tile`'s keys of this thread (a key of 0 past the end; none past the
// last of `tiles`).
void load_tile(uint tile, uint tiles, out key_t batch[SCATTER_KEYS], out uint batch_values[SCATTER_KEYS])
{
    uint tile_keys = params.scatter_tile;
    uint first = tile * tile_keys;
    uint in_tile = tile < tiles ? min(tile_keys, keys_count - first) : 0u;
    [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
        uint k = j * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        batch[j] = k < in_tile ? keys[keys_base + first + k] : key_t(0);
        batch_values[j] = k < in_tile ? value_at(keys_base + first + k) : 0u;
    }
}

// The scatter's lookup: bucket_of's bucket.
#ifdef PACKED_CELLS
#define scatter_bucket_of bucket_by_packed_cell
#else
#define scatter_bucket_of bucket_of
#endif

// Where the scatter's staged slot `slot` of this tile goes in the output.
uint staged_place(uint slot)
{
#ifdef PLACES_BY_SEARCH
    return tile_starts[scatter_bucket_of(ordered(staged_key(slot)), staged_value(slot))] + slot;
#else
    return workgroup_words[slot];
#endif
}

void scatter_step()
{
    load_splitters();
#ifdef PACKED_CELLS
    pack_cells();
#endif
    uint buckets = bucket_count();
    uint span_first, span_end;
    bucket_span(span_first, span_end);
    uint first_start = keys_base + span_start();
    // At most the staged tile: a thread's keys past it are masked as past the
    // end (load_tile).
    uint tile_keys = params.scatter_tile;
    uint tiles = (keys_count + tile_keys - 1u) / tile_keys;
    // The grid may be 2D (many tiles); the nested scatter's rows are segments.
    bool nested_step = params.step == STEP_NESTED_SCATTER;
    uint groups = nested_step ? gl_NumWorkGroups.x : gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uint tile = nested_step ? gl_WorkGroupID.x : gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    key_t batch[SCATTER_KEYS];
    uint batch_values[SCATTER_KEYS];
    load_tile(tile, tiles, batch, batch_values);
    for (; tile < tiles; tile += groups) {
        for (uint b = gl_LocalInvocationID.x; b < buckets; b += gl_WorkGroupSize.x)
            bucket_words[b] = 0u;
        barrier();  // also: the last tile's keys are written, its stage free
        uint in_tile = min(tile_keys, keys_count - tile * tile_keys);
        uint placed[SCATTER_KEYS];  // bucket << 16 | rank among the tile's keys of the bucket
        [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
            uint k = j * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
            // Every pipeline's tile is its staged tile: half tiles take the
            // STORED_PLACES build, staged at half the keys a thread.
            uint b = scatter_bucket_of(ordered(batch[j]), batch_values[j]);
            placed[j] = k < in_tile ? (b << 16) | atomicAdd(bucket_words[b], 1u) : 0xffffffffu;
        }
        barrier();
        // Where each bucket's keys start in the tile, and where in the output.
        uint sum = 0u;
        for (uint b = span_first; b < span_end; ++b)
            sum += bucket_words[b];
        uint start = sum_before(sum);
        uint bucket_start = first_start;
        for (uint b = span_first; b < span_end; ++b) {
            uint keys_here = bucket_words[b];
#ifdef PLACES_BY_SEARCH
            // The other way round: the bucket's first slot in bucket_words,
            // and in tile_starts where slot s of its keys goes, less s. The
            // write reads tile_starts, which the next tile sets only past two
            // barriers, where it zeroes bucket_words before its first.
            bucket_words[b] = start;
            if (keys_here != 0u)
                tile_starts[b] = bucket_start + atomicAdd(words[claims_at() + b], keys_here) - start;
#else
            tile_starts[b] = start;
            if (keys_here != 0u)
                bucket_words[b] = bucket_start + atomicAdd(words[claims_at() + b], keys_here);
#endif
            start += keys_here;
            if (b + 1u < span_end)
                bucket_start += words[totals_at + b];
        }
        barrier();
        [[unroll]] for (uint j = 0u; j < SCATTER_KEYS; ++j) {
            if (placed[j] != 0xffffffffu) {
                uint bucket = placed[j] >> 16, rank = placed[j] & 0xffffu;
#ifdef PLACES_BY_SEARCH
                store_staged(bucket_words[bucket] + rank, batch[j], batch_values[j]);
#else
                uint slot = tile_starts[bucket] + rank;
                store_staged(slot, batch[j], batch_values[j]);
                workgroup_words[slot] = bucket_words[bucket] + rank;
#endif
            }
        }
        barrier();
        load_tile(tile + groups, tiles, batch, batch_values);
#ifdef PACKED_PAIRS
        if ((params.flags & FLAG_PACKED_PAIRS) != 0u) {
            for (uint slot = gl_LocalInvocationID.x; slot < in_tile; slot += gl_WorkGroupSize.x)
                packed_out[staged_place(slot)] = uvec2(stage_values[slot], ordered(staged_key(slot)));
            continue;
        }
#endif
        for (uint slot = gl_LocalInvocationID.x; slot < in_tile; slot += gl_WorkGroupSize.x) {
            uint place = staged_place(slot);
            keys_out[place] = staged_key(slot);
#ifdef WITH_VALUES
            values_out[place] = stage_values[slot];
#endif
        }
    }
}

// The fallback (STEP_FALLBACK). Its chunk is the largest power of two within
// the scatter's tile, staged in the same shared memory; the selection keeps,
// for each run, a pair of bounds and a probe: target 0's in bucket_words,
// tile_starts and cell_words, target 1's three in a row in workgroup_words
// (free once the span's scan is done); then the pieces' places in
// cell_words. The host keeps the runs at most MAX_BUCKETS and a third of
// the scatter's tile (fallback_run_limit in vk_sorter.c): buckets of a
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

// The nested partition (params.nested_at not 0; vk_sorter.c plans it where
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
// (vk_sorter.c); a nested partition's segment may span more.
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

void main()
{
    splitter_count = params.splitters;
    totals_at = TOTALS_AT;
    keys_base = 0u;
    keys_count = params.count;
    if (params.step == STEP_NESTED_SAMPLE) {
        nested_sample_step();
        return;
    }
    if (params.step == STEP_NESTED_COUNT || params.step == STEP_NESTED_SCATTER) {
        splitter_count = words[enter_segment(gl_WorkGroupID.y)];
        if (splitter_count == 0u) {  // uniform: the same words in every thread
            if (params.step == STEP_NESTED_SCATTER)
                nested_copy_step();
        } else if (params.step == STEP_NESTED_COUNT) {
            count_step();
        } else {
            scatter_step();
        }
        return;
    }
    if (params.step == STEP_SAMPLE && params.sample_runs_log != 0u)
        sample_runs_step();
    else if (params.step == STEP_SAMPLE)
        sample_step();
    else if (params.step == STEP_COUNT)
        count_step();
    else if (params.step == STEP_SCATTER)
        scatter_step();
    else
        fallback_step();
}
