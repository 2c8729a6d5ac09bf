#version 450
// tile_sort_pass.comp: a workgroup sorts a tile of 2^TILE_LOG consecutive keys
// from scratch (phases 1 .. last_phase of a tile pass) by merge sort instead of
// the bitonic network: each thread sorts its 2^REGISTER_LOG consecutive keys in
// registers with the network, then rounds of merges in shared memory double the
// sorted runs until they are 2^last_phase long. In each round a thread finds by
// binary search (merge path) where its REGISTERS outputs of a merged pair of
// runs start, and merges them into registers; a barrier, and they go back to
// shared memory where they belong. The network needs phase x (phase + 1) / 2
// steps of every key (91 for 8192 keys), a merge round one read of every key
// and a short search, so the work falls from O(n log^2 n) to O(n log n); on the
// H100 the network tile pass was bound by its instruction latency, not by
// memory (docs/perf-log.md). The result is the network's, key for key: runs
// ascending in the ordered bits, (key, value) pairs by key then value. Built
// with TAIL_KEYS, a sort of one tile and a short tail past it (see below).
// Built with LANE_MERGES (devices with subgroup shuffles, workgroups of whole
// subgroups of consecutive threads), the runs grow from a thread's keys to a
// subgroup's by the network's phases as shuffles between lanes
// (lane_network.glsl), in registers and without a barrier, and the merge
// rounds in shared memory start from there.
// Where the tile lies in one aligned array (params.vector_io, no rows, no
// view), each thread loads its keys 16 bytes at a time straight into its
// registers and stores its last round's outputs the same way: no trip through
// shared memory and no barrier at either end, and two loads in flight a thread
// where the coalesced loop waited on eight in turn. In the last tile of a sort
// the thread whose keys run across the end reads and writes them one by one.
#ifdef LANE_MERGES
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TILE_LOG = 12u;
const uint REGISTERS = 1u << REGISTER_LOG;
const uint TILE_KEYS = 1u << TILE_LOG;
// The most keys of a tail this pipeline places past the tile (0: none; see
// the tail below).
layout(constant_id = 3) const uint TAIL_KEYS = 0u;
const bool PLACES_TAIL = TAIL_KEYS != 0u;

#include "network.glsl"

// Run samples for the first merge's split search (run_samples.glsl), through
// bindings. Where they lie depends on the merge chunks' count, so the merge's
// chunk (log2) is a constant here too.
#if !defined(WIDE_ADDRESSING)
#define RUN_SAMPLES
layout(constant_id = 2) const uint MERGE_CHUNK_LOG = 10u;
layout(std430, binding = 5) writeonly buffer Splits { uint splits[]; };
#define SAMPLES_WRITE_ONLY
#include "run_samples.glsl"

// The sample among this thread's sorted keys (slots first .. first +
// REGISTERS - 1 of the tile, whose runs of 2^last_phase keys the first merge
// takes): a group's first key is a thread's first (REGISTERS divides the
// group), its last a thread's last, so the registers read are fixed ones. A
// loop over every register with the test in it made the tile pass 4% slower
// on the H100 (docs/perf-log.md, entry 44).
void store_samples(index_t tile_base, uint first)
{
    index_t run_base = (tile_base + as_index(first)) & ~((index_t(1u) << params.last_phase) - 1u);
    bool last_of_group = sample_offset(run_base, params.last_phase) != 0u;
    index_t index = tile_base + as_index(first + (last_of_group ? REGISTERS - 1u : 0u));
    uint offset = last_of_group ? (1u << SAMPLE_LOG) - 1u : 0u;
    if (index < live_count && (index & ((1u << SAMPLE_LOG) - 1u)) == offset) {
#ifdef WITH_VALUES
        uint value = last_of_group ? reg_values[REGISTERS - 1u] : reg_values[0];
#else
        uint value = 0u;
#endif
        store_sample(sample_region_start(sort_chunks(MERGE_CHUNK_LOG), params.last_phase), index >> SAMPLE_LOG,
                     last_of_group ? reg_keys[REGISTERS - 1u] : reg_keys[0], value);
    }
}
#endif

// Padded one word in 32: a thread's REGISTERS consecutive slots fall in
// distinct banks across a subgroup, and so do the coalesced loads and stores.
// One slot more than the tile (padded(TILE_KEYS)): a merge round reads the
// head one past a run it has used up, and the last run ends with the tile.
// With a tail, room for it too: the whole sort leaves from the slots.
const uint SLOT_COUNT = TILE_KEYS + TAIL_KEYS + ((TILE_KEYS + TAIL_KEYS) >> 5) + 1u;
shared key_t tile_keys[SLOT_COUNT];
#ifdef WITH_VALUES
shared uint tile_values[SLOT_COUNT];
#endif

uint padded(uint i)
{
    return i + (i >> 5);
}

// Slot i of the tile, i at most TILE_KEYS: a merge round reads the head one
// past the end of a run it has used up (never taken), and the runs of a
// round fill the tile, so no read goes further; no clamp (an instruction of
// every merge step).
key_t slot_key(uint i)
{
    return tile_keys[padded(i)];
}

uint slot_value(uint i)
{
#ifdef WITH_VALUES
    return tile_values[padded(i)];
#else
    return 0u;
#endif
}

#ifdef WITH_VALUES
#define KEY_BEFORE(kx, vx, ky, vy) pair_less(kx, vx, ky, vy)
#else
#define KEY_BEFORE(kx, vx, ky, vy) ((kx) < (ky))
#endif

// The tail (TAIL_KEYS not 0: the pipeline of passes that place one,
// schedule.h's tile_tail; 0 specialises this code away in the others, which
// it made up to 5% slower on the H100, docs/perf-log.md, entry 71): this
// workgroup is the whole sort; its tile holds keys 0 .. 2^last_phase - 1 and
// the keys past them, at most TAIL_KEYS (2^tuning.tile_tail_log, at most the
// workgroup's threads), are the tail. Thread t takes tail key t and ranks it
// among the tail's keys, read from memory (no barrier before the tile's own
// work), into tail_keys. After the tile's rounds each tile key moves up by the
// tail keys below it and each tail key by the tile keys at or below it (ties
// go to the tile, the earlier run): 2^12 + 1 keys take neither a tile of 2^13
// keys nor a merge pass.
shared key_t tail_keys[TAIL_KEYS + 1u];
#ifdef WITH_VALUES
shared uint tail_values[TAIL_KEYS + 1u];
#endif

uint tail_slot_value(uint i)
{
#ifdef WITH_VALUES
    return tail_values[i];
#else
    return 0u;
#endif
}

// Keys of the first `length` tile slots (one sorted run) at or before the key.
uint tile_keys_at_or_before(uint length, key_t key, uint value)
{
    uint low = 0u, high = length;
    while (low < high) {
        uint mid = (low + high) >> 1;
        if (!KEY_BEFORE(key, value, slot_key(mid), slot_value(mid)))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

// Keys of the sorted tail strictly before the key.
uint tail_keys_before(uint tail_count, key_t key, uint value)
{
    uint low = 0u, high = tail_count;
    while (low < high) {
        uint mid = (low + high) >> 1;
        if (KEY_BEFORE(tail_keys[mid], tail_slot_value(mid), key, value))
            low = mid + 1u;
        else
            high = mid;
    }
    return low;
}

// Memory's value at an index (0 without values).
#ifdef WITH_VALUES
#define MEMORY_VALUE(index) read_value(index)
#else
#define MEMORY_VALUE(index) 0u
#endif

// The key after a thread's outputs in the last merge round (the tail's
// placing), in the pipelines that place a tail alone (a specialization
// constant: the others compile as if the code were not there).
#define SLOT_MERGE_NEXT_HEAD PLACES_TAIL
key_t next_head_key;
uint next_head_value;
#include "slot_merge.glsl"
#ifdef LANE_MERGES
#include "lane_network.glsl"
#endif
// 16-byte views need a thread's keys to fill whole vectors (values too: four a
// vector); the device-address build reaches keys through references instead.
#if !defined(WIDE_ADDRESSING) && REGISTER_LOG >= 2
#define VECTOR_TILE
#include "vector_views.glsl"
const uint KEY_VECTORS = REGISTERS / KEYS_PER_VECTOR;  // a thread's keys, in vectors
const uint VALUE_VECTORS = REGISTERS / 4u;

// This thread's REGISTERS keys (and values) from first_key on, 16 bytes a load,
// every load issued before the first is used.
void load_registers_vector(index_t first_key)
{
    uvec4 key_vectors[KEY_VECTORS];
    [[unroll]] for (uint v = 0u; v < KEY_VECTORS; ++v)
        key_vectors[v] = keys4[first_key / KEYS_PER_VECTOR + v];
#ifdef WITH_VALUES
    uvec4 value_vectors[VALUE_VECTORS];
    [[unroll]] for (uint v = 0u; v < VALUE_VECTORS; ++v)
        value_vectors[v] = values4[first_key / 4u + v];
#endif
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        reg_keys[r] = load_key(vector_key(key_vectors[r / KEYS_PER_VECTOR], r % KEYS_PER_VECTOR));
#ifdef WITH_VALUES
        reg_values[r] = value_vectors[r / 4u][r % 4u];
#endif
    }
}

// This thread's REGISTERS keys (and values) from first_key on, one at a time,
// pads past the keys: the thread whose keys run across the end of the sort.
void load_registers_guarded(index_t first_key)
{
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        index_t index = first_key + as_index(r);
        bool inside = index < live_count;
        reg_keys[r] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
        reg_values[r] = inside ? read_value(index) : PAD_VALUE;
#endif
    }
}

// The registers that hold keys back to the output side, one at a time (the
// pads past the end are not stored).
void store_registers_guarded(index_t first_key)
{
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        index_t index = first_key + as_index(r);
        if (index < live_count) {
#ifdef WITH_VALUES
            store_result(index, reg_keys[r], reg_values[r]);
#else
            store_result(index, reg_keys[r], 0u);
#endif
        }
    }
}

// This thread's registers to keys (and values) first_key on of the output side
// (binding 7 is the tile pass's output in place or not), 16 bytes a store.
void store_registers_vector(index_t first_key)
{
    [[unroll]] for (uint v = 0u; v < KEY_VECTORS; ++v) {
#ifdef KEY64
        keys_out4[first_key / KEYS_PER_VECTOR + v] =
            key_vector(store_key(reg_keys[2u * v]), store_key(reg_keys[2u * v + 1u]));
#else
        keys_out4[first_key / KEYS_PER_VECTOR + v] =
            uvec4(store_key(reg_keys[4u * v]), store_key(reg_keys[4u * v + 1u]), store_key(reg_keys[4u * v + 2u]),
                  store_key(reg_keys[4u * v + 3u]));
#endif
    }
#ifdef WITH_VALUES
    [[unroll]] for (uint v = 0u; v < VALUE_VECTORS; ++v)
        values_out4[first_key / 4u + v] =
            uvec4(reg_values[4u * v], reg_values[4u * v + 1u], reg_values[4u * v + 2u], reg_values[4u * v + 3u]);
#endif
}
#endif

// This thread's registers to its REGISTERS consecutive slots. They lie in one
// run of 32 slots (REGISTERS divides 32 and `first` is a multiple of it), so
// padded(first + r) is padded(first) + r: one address for all of them, where
// REGISTERS addresses computed apart were kept live across every merge round.
void registers_to_slots(uint first)
{
    uint slot = padded(first);
    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        tile_keys[slot + r] = reg_keys[r];
#ifdef WITH_VALUES
        tile_values[slot + r] = reg_values[r];
#endif
    }
}

void main()
{
    live_count = key_count();
    // With a tail, the tile's keys end at 2^last_phase (uniform).
    index_t tail_end = live_count;
    if (PLACES_TAIL)
        live_count = min(live_count, as_index(1u << params.last_phase));
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    // Uniform over the workgroup, so every thread reaches every barrier below.
    bool active_tile = tile < params.group_count;
    index_t tile_base = tile_first_key(tile, TILE_LOG);
    uint thread = gl_LocalInvocationID.x;
    uint threads = gl_WorkGroupSize.x;
    uint first = thread * REGISTERS;  // this thread's keys: slots first .. first + REGISTERS - 1
    // Uniform over the workgroup too: the whole tile in one array of keys.
    bool vector_tile = false;
#ifdef VECTOR_TILE
    // The last tile of a sort may be partial: a thread whose keys all lie
    // inside loads them as vectors, the one across the end key by key, and
    // those past it take pads. Through shared memory instead, 1.5 x 2^11 keys
    // (one partial small tile) took 0.0160 ms on the H100 against 0.0132 for
    // 2^12 (docs/perf-log.md, entry 43).
    vector_tile = active_tile && params.vector_io != 0u && params.row_log == 0u && params.view_column_log == 0u;
    index_t thread_first_key = tile_base + as_index(first);
    bool thread_whole = thread_first_key + as_index(REGISTERS) <= live_count;
    if (vector_tile) {
        if (thread_whole)
            load_registers_vector(thread_first_key);
        else
            load_registers_guarded(thread_first_key);
    }
#endif
    // The tail's keys, each at its rank among them in tail_keys, after this
    // thread's own loads are on their way. Nothing of the tail stays in
    // registers through the tile's work.
    if (PLACES_TAIL) {
        index_t head = live_count;
        if (head + as_index(thread) < tail_end) {
            key_t key = load_key(read_key(head + as_index(thread)));
            uint value = MEMORY_VALUE(head + as_index(thread));
            // Its rank: the tail keys before it, and the equal ones at lower indices.
            uint rank = 0u;
            for (uint i = 0u; head + as_index(i) < tail_end; ++i) {
                key_t other = load_key(read_key(head + as_index(i)));
                uint other_value = MEMORY_VALUE(head + as_index(i));
                bool before = KEY_BEFORE(other, other_value, key, value) ||
                              (i < thread && !KEY_BEFORE(key, value, other, other_value));
                rank += before ? 1u : 0u;
            }
            tail_keys[rank] = key;
#ifdef WITH_VALUES
            tail_values[rank] = value;
#endif
        }
    }
    if (!vector_tile) {
        // The tile comes in coalesced through shared memory; past the keys, +infinity.
        // Not unrolled, here and in the store at the end: unrolled, the loads and
        // stores with their addresses set the kernel's register count (55 on the
        // H100, 31 with these loops rolled and slot_merge.glsl's four-register
        // heads), and the tile pass was 2.6% (2^24 keys) to 17% (2^20) slower.
        [[dont_unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            uint local_index = r * threads + thread;
            index_t index;
            bool inside = physical_index(tile_base + as_index(local_index), index) && active_tile;
            tile_keys[padded(local_index)] = inside ? load_key(read_key(index)) : PAD_KEY;
#ifdef WITH_VALUES
            tile_values[padded(local_index)] = inside ? read_value(index) : PAD_VALUE;
#endif
        }
        barrier();

        [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
            reg_keys[r] = tile_keys[padded(first) + r];
#ifdef WITH_VALUES
            reg_values[r] = tile_values[padded(first) + r];
#endif
        }
    }
    // This thread's consecutive keys, sorted in registers by the network's
    // phases up to last_phase (rows shorter than a thread's keys stay apart).
    if (params.last_phase >= 1u) register_network(true, 1u);
#if REGISTER_LOG >= 2
    if (params.last_phase >= 2u) register_network(true, 2u);
#endif
#if REGISTER_LOG >= 3
    if (params.last_phase >= 3u) register_network(true, 3u);
#endif
#if REGISTER_LOG >= 4
    if (params.last_phase >= 4u) register_network(true, 4u);
#endif
#if REGISTER_LOG >= 5
    if (params.last_phase >= 5u) register_network(true, 5u);
#endif

    // Keys in one array in order (no rows, no view): the pads lie past its end.
    bool plain_layout = params.row_log == 0u && params.view_column_log == 0u;
    // Merge rounds: runs of 2^run_log become runs of twice that. A thread's
    // outputs are always slots first .. first + REGISTERS - 1: diagonal
    // `first - base` of the pair of runs at base (A, then B right after it),
    // merged by slot_merge.glsl.
    uint last_log = min(params.last_phase, TILE_LOG);
    uint first_merge_log = REGISTER_LOG;
#ifdef LANE_MERGES
    // Phases up to a subgroup's keys: the flip of blocks of lanes, the
    // half-cleaners down to a lane apart, then those inside the registers.
    uint lane = gl_SubgroupInvocationID;
    uint lane_phases_end = min(last_log, REGISTER_LOG + findMSB(gl_SubgroupSize));
    // Slots wholly past the keys hold pads, all alike, which the lane phases
    // would leave where they are: a subgroup of only pads skips them (uniform
    // over it: its threads' slots are consecutive), and the subgroups that
    // hold keys have the multiprocessor to themselves. A sort of 2^10 keys on a
    // 4096-key tile is three quarters pads: on the H100 it took 15% less time,
    // pairs and 64-bit keys 20-30% less; full tiles 0-2% more (docs/perf-log.md, entry 51).
    // Not with rows or a view, whose pads lie elsewhere.
    bool subgroup_pads_only =
        !active_tile || (plain_layout && tile_base + as_index((thread - lane) * REGISTERS) >= live_count);
    for (uint phase = REGISTER_LOG + 1u; phase <= lane_phases_end && !subgroup_pads_only; ++phase) {
        uint block_lanes = 1u << (phase - REGISTER_LOG);
        lane_flip(lane, block_lanes);
        for (uint lane_stride = block_lanes >> 2; lane_stride > 0u; lane_stride >>= 1)
            lane_disperse(lane, lane_stride);
        register_network(false, REGISTER_LOG);
    }
    first_merge_log = max(first_merge_log, lane_phases_end);
#endif
    // A block of 2^last_log slots wholly past the keys holds only pads, which
    // are never stored: its threads skip the merge rounds, and still meet every
    // barrier. A sort of 1024 keys on a 4096-key tile merges one block of four.
    bool pads_only = plain_layout && tile_base + as_index(first & ~((1u << last_log) - 1u)) >= live_count;
    // A thread whose first slot lies past the keys holds pads in every round:
    // a sorted block's keys fill its front, up to the sort's end, and the pads
    // after them are the greatest. Its merges would leave its registers as they
    // are, so it skips them (its slots still hold what it wrote). On the H200
    // 1.5 x 2^10 keys sorted 2.7-4.6% faster, 1.5 x 2^11 1.8-3.1%, whole tiles
    // level (docs/perf-log.md, entry 98).
    bool thread_pads_only = plain_layout && tile_base + as_index(first) >= live_count;
    for (uint run_log = first_merge_log; run_log < last_log; ++run_log) {
        barrier();  // every thread is done reading the slots of the last round
        if (!pads_only)
            registers_to_slots(first);
        barrier();
        uint run = 1u << run_log;
        uint base = first & ~(2u * run - 1u);
        if (!thread_pads_only)
            slot_merge_to_registers(base, run, base + run, run, first - base);
    }

    if (PLACES_TAIL) {  // uniform
        uint tile_count = uint(live_count);  // 2^last_phase, or fewer and no tail
        uint tail_count = uint(key_count() - live_count);
        if (first_merge_log < last_log) {  // uniform: the tile took merge rounds
            // The whole sort in order in the slots, then out coalesced, with
            // no search on the way out. Each of this thread's keys moves up by
            // the tail keys strictly before it (all its keys searched in step,
            // one step for a tail of one key); the tail keys from there to
            // those before the next thread's first key (the last round's next
            // output) fall after this thread's keys, each after those at or
            // before it. The slots of the tile and the tail keys' searches in
            // it (a search in the whole tile after a loop of searches in the
            // tail) made the step from 2^11 to 2^11 + 1 keys 1.146x on the
            // H200 (docs/perf-log.md, entry 83).
            uint shift[REGISTERS];
            [[unroll]] for (uint r = 0u; r < REGISTERS; ++r)
                shift[r] = 0u;
            uint next_shift = 0u;
            uint top = tail_count == 0u ? 0u : 1u << findMSB(tail_count);
            for (uint step = top; step > 0u; step >>= 1) {
                [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
                    uint probe = shift[r] + step;
                    uint slot = min(probe, tail_count) - 1u;  // a probe past the tail is not taken
#ifdef WITH_VALUES
                    bool before = KEY_BEFORE(tail_keys[slot], tail_values[slot], reg_keys[r], reg_values[r]);
#else
                    bool before = KEY_BEFORE(tail_keys[slot], 0u, reg_keys[r], 0u);
#endif
                    shift[r] = probe <= tail_count && before ? probe : shift[r];
                }
                uint probe = next_shift + step;
                uint slot = min(probe, tail_count) - 1u;
                bool before = KEY_BEFORE(tail_keys[slot], tail_slot_value(slot), next_head_key, next_head_value);
                next_shift = probe <= tail_count && before ? probe : next_shift;
            }
            // The last thread with keys takes the tail keys past every tile key.
            if (first + REGISTERS >= tile_count)
                next_shift = tail_count;
            barrier();  // the last round's reads of the slots are done
            if (!pads_only) {
                [[unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
                    if (first + r < tile_count) {
                        uint slot = padded(first + r + shift[r]);
                        tile_keys[slot] = reg_keys[r];
#ifdef WITH_VALUES
                        tile_values[slot] = reg_values[r];
#endif
                    }
                }
                // Tail key j after this thread's keys at or before it (those
                // with no more than j tail keys before them); thread 0 also
                // places those before every tile key.
                for (uint j = thread == 0u ? 0u : shift[0]; j < next_shift; ++j) {
                    uint at_or_before = 0u;
                    [[unroll]] for (uint r = 0u; r < REGISTERS; ++r)
                        at_or_before += shift[r] <= j && first + r < tile_count ? 1u : 0u;
                    uint slot = padded(first + at_or_before + j);
                    tile_keys[slot] = tail_keys[j];
#ifdef WITH_VALUES
                    tile_values[slot] = tail_values[j];
#endif
                }
            }
            barrier();
            uint total = tile_count + tail_count;
            for (uint i = thread; i < total; i += threads)
                store_result(as_index(i), slot_key(i), slot_value(i));
            return;  // uniform: no thread of this workgroup meets another barrier
        }
        // No merge round (a tile of a subgroup's keys or fewer): every key
        // placed from the slots in one short loop of each kind.
        barrier();  // the tail is in tail_keys
        registers_to_slots(first);
        barrier();
        // Tile key i after the tail keys below it: consecutive threads, consecutive keys.
        for (uint i = thread; i < tile_count; i += threads) {
            key_t key = slot_key(i);
            uint value = slot_value(i);
            store_result(as_index(i + tail_keys_before(tail_count, key, value)), key, value);
        }
        // Tail key `thread` in order, after the tile keys at or below it.
        if (thread < tail_count) {
            key_t key = tail_keys[thread];
            uint value = tail_slot_value(thread);
            store_result(as_index(thread + tile_keys_at_or_before(tile_count, key, value)), key, value);
        }
        return;  // uniform: no thread of this workgroup meets another barrier
    }
#ifdef RUN_SAMPLES
    // Uniform (a push constant, and no rows or view where the host sets it).
    if ((params.sample_runs & SAMPLES_WRITE) != 0u && active_tile)
        store_samples(tile_base, first);
#endif
#ifdef VECTOR_TILE
    if (vector_tile) {
        if (thread_whole)
            store_registers_vector(thread_first_key);
        else
            store_registers_guarded(thread_first_key);
        return;  // uniform: no thread of this workgroup meets another barrier
    }
#endif
    // Out coalesced, through shared memory again.
    barrier();
    registers_to_slots(first);
    barrier();
    [[dont_unroll]] for (uint r = 0u; r < REGISTERS; ++r) {
        uint local_index = r * threads + thread;
        index_t index;
        if (physical_index(tile_base + as_index(local_index), index) && active_tile) {
#ifdef WITH_VALUES
            store_result(index, tile_keys[padded(local_index)], tile_values[padded(local_index)]);
#else
            store_result(index, tile_keys[padded(local_index)], 0u);
#endif
        }
    }
}
