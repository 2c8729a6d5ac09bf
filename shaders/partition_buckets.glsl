// partition_buckets.glsl: a key's bucket among the partition's splitters, for
// the count and the scatter steps of partition_pass.comp: the splitters (from
// the sorted samples, or from the words the first count stored), the table of
// cells that narrows each key's search to the few splitters of its cell, and
// the search itself (bucket_of; bucket_by_packed_cell for 32-bit keys).
// Included by partition_pass.comp in a fixed order, after its bindings and
// each file before it: the order of the functions is kept as it was in one
// file, because it fixes the order of the compiled module's functions and so
// its bytes.

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
