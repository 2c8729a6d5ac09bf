/* tuning.c: device limits to sort sizes (see tuning.h): the largest tile the
 * device's shared memory and workgroup hold, and the shapes and thresholds of
 * the merge levels, small sorts and the partition sort. Why each default is
 * what it is, with the measurements behind it: docs/TUNING.md, "Why the
 * defaults are what they are"; the comments below name its section. */
#include "tuning.h"

#include "schedule.h"

/* Keys a thread of the network's tile kernel and of the tile merge sort
 * (docs/TUNING.md, "The tile"); steps and threads of a global pass ("The
 * network's global passes"); the merge's chunk and keys a thread ("The merge
 * levels"). */
#define PREFERRED_TILE_REGISTER_LOG 4u
#define PREFERRED_TILE_SORT_REGISTER_LOG 3u
#define PREFERRED_TILE_SORT_REGISTER_LOG_4_BYTE_KEYS 4u
#define PREFERRED_GLOBAL_WORKGROUP 128u
#define PREFERRED_GLOBAL_STEPS 4u
/* The merges: 8 keys a thread for 32-bit keys alone, pairs and 64-bit keys
 * 4 (256 threads a 1024-key chunk): docs/TUNING.md, "The merge levels"; the
 * only counts their kernels are built for (tuning.h). */
#define PREFERRED_MERGE_CHUNK_LOG 10u
#define PREFERRED_MERGE_SEARCH_LANES 32u
#define MERGE_SPLIT_PASS_MIN_CHUNKS 4096u
/* Split passes from 4096 chunks, 2048 for pairs and 64-bit keys:
 * docs/TUNING.md, "The merge levels". */
#define WIDE_MERGE_SPLIT_PASS_MIN_CHUNKS 2048u
/* 3 probes a split-pass round up to 16384 chunks, binary above:
 * docs/TUNING.md, "The merge levels". */
#define PREFERRED_MERGE_SPLIT_PROBES 3u
#define MERGE_SPLIT_PROBES_MAX_CHUNKS 16384u
/* Guided split searches from 16384 chunks, 8192 for pairs and 64-bit keys:
 * docs/TUNING.md, "The merge levels". */
#define MERGE_SPLIT_GUIDED_MIN_CHUNKS 16384u
#define WIDE_MERGE_SPLIT_GUIDED_MIN_CHUNKS 8192u
/* Merges below the split pass search their splits on the run samples from 16
 * chunks, every key type: docs/TUNING.md, "The merge levels". */
#define MERGE_FUSED_SPLIT_MIN_CHUNKS 16u
/* Keys each of those searches tests a round: docs/TUNING.md, "The merge
 * levels". */
#define MERGE_FUSED_SPLIT_PROBES 3u
/* Those searches by a subgroup for pairs and 64-bit keys (where ballots
 * exist), by one thread for 32-bit keys alone: docs/TUNING.md, "The merge
 * levels". */
#define WIDE_MERGE_FUSED_SPLIT_BY_SUBGROUP true
#define MERGE_FUSED_SPLIT_BY_SUBGROUP false
/* Small sorts: 4096-key tiles of 8 keys a thread, merges without shared
 * memory: docs/TUNING.md, "Small sorts". */
#define SMALL_TILE_KEYS 4096u
#define SMALL_TILE_KEYS_PER_THREAD 8u
/* The short tile (bitonic_tuning.short_tile_log), log2 of its keys, and of
 * the keys a thread sorts on it: docs/TUNING.md, "The tile". */
#define SHORT_TILE_LOG 11u
#define SHORT_TILE_REGISTER_LOG 2u
/* A tail of up to 2^TILE_TAIL_LOG keys past one tile is placed in the tile
 * pass (tile_sort_pass.comp), each tail key ranked against the whole tail:
 * docs/TUNING.md, "The tile". */
#define TILE_TAIL_LOG 5u
/* Small shapes up to 2^18 32-bit keys: docs/TUNING.md, "Small sorts". */
#define SMALL_SORT_MAX_KEYS (1u << 18)
/* Merges without shared memory (bitonic_tuning.merge_direct_max_keys) up to
 * 2^18 32-bit keys, 2^17 pairs and 2^16 64-bit keys, and a tile past that
 * (the tail the last merge takes in); pairs of 64-bit keys follow pairs:
 * docs/TUNING.md, "Small sorts". */
#define DIRECT_MERGE_MAX_LOG_32 18u
#define DIRECT_MERGE_MAX_LOG_PAIRS 17u
#define DIRECT_MERGE_MAX_LOG_64 16u
/* The partition sort (bitonic_tuning, partition_*) from 1.5 x 2^18 keys of 4
 * and 8 bytes, 2^23 for 64-bit keys with values; windows of at least the
 * tile, open buckets of half a window on average where the splitters allow,
 * 32 samples a bucket, at most 511 splitters: docs/TUNING.md, "The partition
 * sort". */
#define PARTITION_MIN_KEYS_32 (3u << 17)
#define PARTITION_MIN_KEYS_64 (3u << 17)
#define PARTITION_MIN_KEYS_WIDE (1u << 23)
#define PARTITION_LEVELS 0u
#define PARTITION_BUCKETS_PER_WINDOW 2u
/* The nested partition where the first partition's windows would take at
 * least this many merge levels: 3 for every key type since the nested
 * partition sorts on a tile of its own (32-bit keys took 4 before; at 3
 * levels, 1.5 x 2^24 to 2^25 + 1 keys, 0.90-0.94x on the H200; at 2 levels
 * every type lost up to 10%): docs/TUNING.md, "The partition sort". */
#define PARTITION_NESTED_MIN_LEVELS_32 3u
#define PARTITION_NESTED_MIN_LEVELS_64 3u
/* The window split pass's cursors in three pieces by one thread's selection
 * from 2^24 32-bit keys and 2^25 pairs and 64-bit keys, by the workgroup's
 * search below: docs/TUNING.md, "The partition sort". */
#define PARTITION_SPLIT_BY_THREAD_MIN_KEYS_32 (1u << 24)
#define PARTITION_SPLIT_BY_THREAD_MIN_KEYS_64 (1u << 25)
#define PARTITION_SAMPLES_PER_BUCKET 32u
#define PARTITION_MAX_SPLITTERS 511u
/* Splitters enough for windows of the tile times 4 up to 2^22 keys (an
 * 8192-key tile; 2^23 when windows were half-merged, before entry 57): the
 * scatter stages fewer keys a thread where shared memory would hold fewer. */
#define PARTITION_GOOD_SPLITTERS 255u
#define PARTITION_WORKGROUP_SIZE 1024u
/* The scatter's staged tile (4-byte keys, which stage no place beside each
 * key, partition_pass.comp PLACES_BY_SEARCH; a quarter of it for the others;
 * src/vulkan/sorter/partition.c halves it where that takes fewer rounds), and the most keys a
 * thread stages (they are held in registers): docs/TUNING.md, "The partition
 * sort". */
#define PARTITION_SCATTER_TILE_KEYS 8192u
#define PARTITION_MAX_SCATTER_KEYS 16u
/* The nested partition's tiles: 2048 keys for 32-bit keys, 1024 for 8-byte
 * keys and pairs, 2048 for the wider. On the H200 the tile pass of 32-bit keys
 * took 0.89-0.92x the time of the whole sort's 8192-key tile from 2^26 to
 * 2^28 keys, and 8-byte keys 0.91-0.93x at 2^26 and 2^27 against their 4096
 * (docs/perf-log.md, entry 114): a workgroup of the long tile fills the shared
 * memory the driver gives a multiprocessor (about 64 KiB, entry 92), so it
 * runs alone there. A tile of 1024 made 8-byte sorts 0.93-0.96x at 2^25 and
 * 2^26 and 32-bit keys 1.01-1.04x (entries 116, 119); the windows grow past it
 * where the nested buckets would be long (sorter/partition.c). */
#define PARTITION_NESTED_TILE_LOG_32 11u
#define PARTITION_NESTED_TILE_LOG_64 10u
#define PARTITION_NESTED_TILE_LOG_WIDE 11u
/* The count's and the scatter's workgroups at most where the driver does not
 * tell the multiprocessors (else one a multiprocessor): docs/TUNING.md, "The
 * partition sort". */
#define PARTITION_WORKGROUPS 128u
/* Transpose blocks of 32 x 32 keys, 8 rows at a time: docs/TUNING.md, "The
 * transpose strategy". */
#define PREFERRED_TRANSPOSE_BLOCK_LOG 5u
#define PREFERRED_TRANSPOSE_LINES_LOG 3u

uint64_t bitonic_tile_shared_bytes(uint32_t tile_log, uint32_t bytes_per_key)
{
    uint64_t keys = (uint64_t)1 << tile_log;
    return (keys + (keys >> 5)) * bytes_per_key;
}

uint64_t bitonic_transpose_shared_bytes(uint32_t block_log, uint32_t bytes_per_key)
{
    uint64_t side = (uint64_t)1 << block_log;
    return side * (side + 1u) * bytes_per_key;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* The largest square block up to the preferred one whose padded keys fit
 * shared memory and whose rows fit a workgroup, and how many rows the
 * workgroup moves at a time. */
static bool derive_transpose(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t max_threads,
                             bitonic_tuning *out)
{
    for (uint32_t block_log = PREFERRED_TRANSPOSE_BLOCK_LOG; block_log >= 1u; --block_log) {
        uint32_t side = 1u << block_log;
        if (side > max_threads ||
            bitonic_transpose_shared_bytes(block_log, bytes_per_key) > limits->max_shared_memory_bytes)
            continue;
        uint32_t lines_log = min_u32(PREFERRED_TRANSPOSE_LINES_LOG, block_log);
        while ((side << lines_log) > max_threads)
            --lines_log;
        out->transpose_block_log = block_log;
        out->transpose_workgroup_size = side << lines_log;
        return true;
    }
    return false;
}

/* The partition sort's sizes (bitonic_tuning, partition_*): as many splitters
 * as shared memory holds with a count for each of their buckets, up to
 * PARTITION_MAX_SPLITTERS. */
static void set_partition(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t max_threads,
                          bitonic_tuning *tuning)
{
    tuning->partition_min_keys = bytes_per_key == 4u   ? PARTITION_MIN_KEYS_32
                                 : bytes_per_key == 8u ? PARTITION_MIN_KEYS_64
                                                       : PARTITION_MIN_KEYS_WIDE;
    tuning->partition_levels = PARTITION_LEVELS;
    tuning->partition_buckets_per_window = PARTITION_BUCKETS_PER_WINDOW;
    tuning->partition_nested_min_levels =
        bytes_per_key == 4u ? PARTITION_NESTED_MIN_LEVELS_32 : PARTITION_NESTED_MIN_LEVELS_64;
    bitonic_tuning_set_nested_tile(limits,
                                   bytes_per_key == 4u   ? PARTITION_NESTED_TILE_LOG_32
                                   : bytes_per_key == 8u ? PARTITION_NESTED_TILE_LOG_64
                                                         : PARTITION_NESTED_TILE_LOG_WIDE,
                                   tuning);
    tuning->partition_split_by_thread_min_keys = bytes_per_key == 4u ? PARTITION_SPLIT_BY_THREAD_MIN_KEYS_32
                                                 : bytes_per_key == 8u ? PARTITION_SPLIT_BY_THREAD_MIN_KEYS_64
                                                                       : UINT64_MAX;
    tuning->partition_samples_per_bucket = PARTITION_SAMPLES_PER_BUCKET;
    tuning->window_merge_store_from_registers = bytes_per_key == 4u;
    tuning->partition_sample_runs = true;
    /* A workgroup a multiprocessor where the device tells how many. */
    uint32_t workgroups = limits->multiprocessors != 0 ? limits->multiprocessors : PARTITION_WORKGROUPS;
    tuning->partition_workgroups = workgroups;
    tuning->partition_scatter_workgroups = workgroups;
    tuning->partition_scan_by_subgroup = limits->subgroup_arithmetic;
    bitonic_tuning_set_partition_workgroup(limits, bytes_per_key, min_u32(PARTITION_WORKGROUP_SIZE, max_threads), 0u,
                                           tuning);
}

void bitonic_tuning_set_nested_tile(const bitonic_device_limits *limits, uint32_t wanted_log, bitonic_tuning *tuning)
{
    /* At most the tile, at least one thread's keys, and whole subgroups where
     * the tile merge sort merges lanes by shuffles: else the tile itself. */
    uint32_t log = min_u32(wanted_log, tuning->tile_log);
    if (log < tuning->tile_sort_register_log)
        log = tuning->tile_log;
    uint64_t threads = (uint64_t)1 << (log - tuning->tile_sort_register_log);
    if (tuning->tile_sort_uses_shuffle && limits->subgroup_size != 0 && threads % limits->subgroup_size != 0)
        log = tuning->tile_log;
    tuning->partition_nested_tile_log = log;
}

void bitonic_tuning_set_partition_workgroup(const bitonic_device_limits *limits, uint32_t bytes_per_key,
                                            uint32_t threads, uint32_t staged_tile_keys, bitonic_tuning *tuning)
{
    uint32_t max_threads = min_u32(limits->max_workgroup_invocations, limits->max_workgroup_size_x);
    tuning->partition_workgroup_size = threads < 1u ? 1u : min_u32(threads, max_threads);
    /* A splitter's key (and value), two cells' words of the lookup table, and
     * two words for each of its open and equality buckets (a count, a start);
     * besides them the scatter's staged tile (partition_pass.comp,
     * SCATTER_KEYS keys a thread) with a word a key (its place; the scan's
     * word a thread before) but where a key and its value take at most 8
     * bytes, whose staged keys hold those words themselves, and a few more:
     * one more cell pair and bucket pair, four words (the fallback's nine lie
     * in the splitters' keys of 32-bit keys, so at least 9 splitters: 15; in
     * the staged tile's high words of 64-bit keys, so a tile of at least 9).
     * 2^d - 1 of them: the cells are a power of two. The
     * staged tile is 32 KiB of keys (and values) without places,
     * PARTITION_SCATTER_TILE_KEYS / 4 keys with them, where that leaves room
     * for PARTITION_GOOD_SPLITTERS (on the H100 and H200 every key type keeps
     * it; a device of 32 KiB, lavapipe, stages half as many keys), whatever
     * the workgroup's size, up to PARTITION_MAX_SCATTER_KEYS a thread. */
    uint64_t per_splitter = (uint64_t)bytes_per_key + 8u + 16u;
    uint64_t fit = 0;
    tuning->partition_places_by_search = bytes_per_key <= 8u;
    uint32_t preferred_tile = tuning->partition_places_by_search ? PARTITION_SCATTER_TILE_KEYS * 4u / bytes_per_key
                                                                 : PARTITION_SCATTER_TILE_KEYS / 4u;
    uint64_t place_bytes = tuning->partition_places_by_search ? 0u : 4u;
    /* The exact words where no places are staged (a tile of 4096 pairs or
     * 64-bit keys beside 511 splitters fills 48 KiB to the byte); the old
     * allowance for 64-bit keys with values. */
    uint64_t other_bytes = tuning->partition_places_by_search ? 32u : 64u + bytes_per_key;
    uint32_t wanted = (staged_tile_keys != 0u ? staged_tile_keys : preferred_tile) / tuning->partition_workgroup_size;
    for (uint32_t keys = wanted < 1u ? 1u : min_u32(wanted, PARTITION_MAX_SCATTER_KEYS); keys >= 1u; keys /= 2u) {
        uint64_t tile_keys = (uint64_t)tuning->partition_workgroup_size * keys;
        uint64_t fixed = other_bytes + tile_keys * (bytes_per_key + place_bytes);
        fit = limits->max_shared_memory_bytes > fixed ? (limits->max_shared_memory_bytes - fixed) / per_splitter : 0;
        tuning->partition_scatter_keys = keys;
        if (fit >= PARTITION_GOOD_SPLITTERS)
            break;
    }
    if (fit > PARTITION_MAX_SPLITTERS)
        fit = PARTITION_MAX_SPLITTERS;
    if (fit < 15u || (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys < 16u)
        fit = 0;  /* too few splitters or staged keys to hold the fallback's words */
    tuning->partition_max_splitters = fit == 0 ? 0u : (1u << (bitonic_ceil_log2(fit + 2u) - 1u)) - 1u;
}

bool bitonic_tuning_set_merge(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t chunk_keys_override,
                              bitonic_tuning *tuning)
{
    uint32_t max_threads = min_u32(limits->max_workgroup_invocations, limits->max_workgroup_size_x);
    uint32_t wanted_chunk_log = PREFERRED_MERGE_CHUNK_LOG;
    if (chunk_keys_override != 0)
        wanted_chunk_log = bitonic_ceil_log2(chunk_keys_override);
    uint32_t register_log =
        bytes_per_key > 4u ? BITONIC_MERGE_REGISTER_LOG_WIDER_KEYS : BITONIC_MERGE_REGISTER_LOG_4_BYTE_KEYS;
    /* The largest chunk up to the wanted one that fits shared memory, the
     * workgroup limit and tile_log + 1, of at least 2 threads: the split
     * search runs two searches side by side. */
    for (uint32_t chunk_log = min_u32(wanted_chunk_log, tuning->tile_log + 1u); chunk_log > register_log;
         --chunk_log) {
        if (((uint64_t)1 << (chunk_log - register_log)) <= max_threads &&
            bitonic_tile_shared_bytes(chunk_log, bytes_per_key) <= limits->max_shared_memory_bytes) {
            tuning->merge_chunk_log = chunk_log;
            tuning->merge_register_log = register_log;
            tuning->merge_workgroup_size = 1u << (chunk_log - register_log);
            tuning->merge_search_lanes = PREFERRED_MERGE_SEARCH_LANES;
            tuning->merge_split_pass_min_chunks =
                bytes_per_key > 4u ? WIDE_MERGE_SPLIT_PASS_MIN_CHUNKS : MERGE_SPLIT_PASS_MIN_CHUNKS;
            tuning->merge_split_probes = PREFERRED_MERGE_SPLIT_PROBES;
            tuning->merge_split_probes_max_chunks = MERGE_SPLIT_PROBES_MAX_CHUNKS;
            tuning->merge_split_workgroup_size =
                limits->subgroup_size == 0 ? 1u : min_u32(limits->subgroup_size, max_threads);
            tuning->merge_split_guided_min_chunks =
                bytes_per_key > 4u ? WIDE_MERGE_SPLIT_GUIDED_MIN_CHUNKS : MERGE_SPLIT_GUIDED_MIN_CHUNKS;
            tuning->merge_split_samples = true;
            tuning->merge_fused_split_min_chunks = MERGE_FUSED_SPLIT_MIN_CHUNKS;
            tuning->merge_fused_split_probes = MERGE_FUSED_SPLIT_PROBES;
            tuning->merge_fused_split_by_subgroup =
                limits->subgroup_ballot &&
                (bytes_per_key > 4u ? WIDE_MERGE_FUSED_SPLIT_BY_SUBGROUP : MERGE_FUSED_SPLIT_BY_SUBGROUP);
            tuning->merge_store_from_registers = false;
            set_partition(limits, bytes_per_key, max_threads, tuning);
            return true;
        }
    }
    return false;
}

uint64_t bitonic_tuning_merge_direct_max_keys(bool key64, bool with_values, uint32_t tile_log)
{
    uint32_t log = with_values ? DIRECT_MERGE_MAX_LOG_PAIRS : key64 ? DIRECT_MERGE_MAX_LOG_64 : DIRECT_MERGE_MAX_LOG_32;
    return ((uint64_t)1 << log) + ((uint64_t)1 << tile_log);
}

/* The short tile of a derived tuning (short_tile_log 0: none): about
 * 2^wanted_register_log keys a thread, more where those threads would not fit
 * a workgroup, never more than the tile merge sort's; and the tail the tile
 * passes place, a key a thread of the smaller of their workgroups. */
static void derive_short_tile(const bitonic_device_limits *limits, uint32_t wanted_register_log, bitonic_tuning *out)
{
    uint32_t max_threads = min_u32(limits->max_workgroup_invocations, limits->max_workgroup_size_x);
    uint32_t short_tile_log = min_u32(SHORT_TILE_LOG, out->tile_log - 1u);
    uint32_t register_log = min_u32(max_u32(wanted_register_log, 1u), out->tile_sort_register_log);
    while (register_log < out->tile_sort_register_log && short_tile_log > register_log &&
           ((uint64_t)1 << (short_tile_log - register_log)) > max_threads)
        ++register_log;
    uint32_t short_tile_threads = short_tile_log > register_log ? 1u << (short_tile_log - register_log) : 0u;
    bool fits = short_tile_threads >= 2u && short_tile_threads <= max_threads &&
                (!out->tile_sort_uses_shuffle || short_tile_threads % limits->subgroup_size == 0);
    out->short_tile_log = fits ? short_tile_log : 0u;
    out->short_tile_register_log = fits ? register_log : out->tile_sort_register_log;

    /* A tail key a thread, on the short tile's workgroup too. */
    uint32_t tail_threads = out->short_tile_log != 0 ? min_u32(short_tile_threads, out->tile_sort_workgroup_size)
                                                     : out->tile_sort_workgroup_size;
    out->tile_tail_log = out->tile_merge_sort ? min_u32(TILE_TAIL_LOG, bitonic_ceil_log2(tail_threads + 1u) - 1u) : 0u;
}

bool bitonic_tuning_derive_small(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t tile_keys_override,
                                 uint32_t max_keys_override, bitonic_tuning *out, uint64_t *out_max_keys)
{
    uint32_t tile_keys = tile_keys_override != 0 ? tile_keys_override : SMALL_TILE_KEYS;
    if (!bitonic_tuning_derive(limits, bytes_per_key, tile_keys, SMALL_TILE_KEYS_PER_THREAD, 0, out))
        return false;
    out->merge_direct = true;
    /* The small sorts' tile takes SMALL_TILE_KEYS_PER_THREAD; their short tile its own. */
    derive_short_tile(limits, SHORT_TILE_REGISTER_LOG, out);
    *out_max_keys = max_keys_override != 0 ? max_keys_override : SMALL_SORT_MAX_KEYS;
    return true;
}

bool bitonic_tuning_derive(const bitonic_device_limits *limits, uint32_t bytes_per_key, uint32_t tile_keys_override,
                           uint32_t keys_per_thread_override, uint32_t max_steps_override, bitonic_tuning *out)
{
    uint32_t preferred_register_log = PREFERRED_TILE_REGISTER_LOG;
    if (keys_per_thread_override != 0) {
        preferred_register_log = bitonic_ceil_log2(keys_per_thread_override);
        if (preferred_register_log < BITONIC_TILE_MIN_REGISTER_LOG)
            return false;  /* no tile kernel is built for so few */
        preferred_register_log = min_u32(preferred_register_log, BITONIC_GPU_MAX_REGISTER_LOG);
    }
    uint32_t max_threads = min_u32(limits->max_workgroup_invocations, limits->max_workgroup_size_x);
    if (max_threads == 0 || bytes_per_key == 0)
        return false;

    /* Largest tile the device holds, with at most 2^PREFERRED registers a thread. */
    uint32_t tile_log = 0;
    for (uint32_t log = 1; log <= 24u; ++log) {
        uint32_t register_log = min_u32(preferred_register_log, log);
        uint64_t threads = (uint64_t)1 << (log - register_log);
        /* and, in tile_sort_pass.comp, one slot past the padded keys (the
         * head a merge round reads past a used-up run) and room for a tail:
         * its arrays hold TAIL_KEYS + 1 keys and values, and the slots grow by
         * the tail, padded, for the sort's way out */
        uint64_t slot_past_bytes = bytes_per_key;
        uint64_t tail_keys = (uint64_t)1 << TILE_TAIL_LOG;
        uint64_t tail_bytes = (tail_keys + 1u + tail_keys + (tail_keys >> 5) + 1u) * bytes_per_key;
        uint64_t shared_bytes = bitonic_tile_shared_bytes(log, bytes_per_key) + slot_past_bytes + tail_bytes;
        if (shared_bytes <= limits->max_shared_memory_bytes && threads <= max_threads)
            tile_log = log;
    }
    if (tile_log == 0)
        return false;
    if (tile_keys_override != 0) {
        uint32_t wanted = bitonic_ceil_log2(tile_keys_override);
        tile_log = min_u32(tile_log, wanted == 0 ? 1u : wanted);
    }
    out->tile_log = tile_log;
    out->tile_register_log = min_u32(preferred_register_log, tile_log);
    if (out->tile_register_log < BITONIC_TILE_MIN_REGISTER_LOG)
        return false;  /* a tile too small for the keys a thread the kernels hold */
    /* The merge sort of a tile wants no subgroup; 16 keys a thread for 32-bit
     * keys alone, else 8 where the threads fit one workgroup (16 where they do not). */
    out->tile_merge_sort = true;
    out->tile_sort_register_log = out->tile_register_log;
    uint32_t preferred_sort_register_log =
        bytes_per_key == 4u ? PREFERRED_TILE_SORT_REGISTER_LOG_4_BYTE_KEYS : PREFERRED_TILE_SORT_REGISTER_LOG;
    if (keys_per_thread_override == 0)
        while (out->tile_sort_register_log > preferred_sort_register_log &&
               ((uint64_t)1 << (tile_log - out->tile_sort_register_log + 1u)) <= max_threads)
            --out->tile_sort_register_log;
    out->tile_sort_workgroup_size = 1u << (tile_log - out->tile_sort_register_log);
    out->tile_uses_shuffle = false;
    out->merge_direct = false;
    out->merge_direct_max_keys = 0;  /* bitonic_tuning_merge_direct_max_keys: the sorter's choice */
    out->merge_vector_io = true;
    out->tile_vector_io = true;
    /* With shuffles, strides below keys-per-thread x subgroup need no shared
     * memory; the kernel wants whole subgroups and every shared-memory step group
     * inside the tile (2 x register_log + log2(subgroup) <= tile_log). Fewer keys
     * per thread, down to the fewest the kernel is built for, can make that
     * hold; else the tile kernel without shuffles. */
    uint32_t subgroup_log = bitonic_ceil_log2(limits->subgroup_size);
    bool power_of_two = limits->subgroup_size > 0 && (1u << subgroup_log) == limits->subgroup_size;
    out->tile_sort_uses_shuffle = limits->subgroup_shuffle && power_of_two && limits->subgroup_size >= 2u &&
                                  out->tile_sort_workgroup_size % limits->subgroup_size == 0;
    for (uint32_t register_log = out->tile_register_log; limits->subgroup_shuffle && power_of_two &&
                                                         register_log >= BITONIC_TILE_MIN_REGISTER_LOG &&
                                                         !out->tile_uses_shuffle;
         --register_log) {
        uint32_t thread_log = tile_log - register_log;
        if (2u * register_log + subgroup_log <= tile_log && thread_log >= subgroup_log &&
            ((uint64_t)1 << thread_log) <= max_threads) {
            out->tile_register_log = register_log;
            out->tile_uses_shuffle = true;
        }
    }
    out->tile_workgroup_size = 1u << (tile_log - out->tile_register_log);
    /* The short tile, for sorts of up to 2^SHORT_TILE_LOG keys: one
     * workgroup of that many keys' threads, where the tile's workgroup would
     * hold idle threads; shorter than the tile, and whole subgroups where the
     * merge sort shuffles. On the H100 sorts of 1024 pairs and 64-bit keys
     * took 1.8% and 2.7% less time on a short tile of 1024 keys, u32 keys as
     * long (docs/perf-log.md, entry 69); one of 2048 keys took 1-3%
     * less again from 1536 to 2048 keys, and 1024 keys as long (entry 70). */
    /* Keys a thread there: the tile's where the caller chose them, else
     * SHORT_TILE_REGISTER_LOG where the threads fit a workgroup. */
    derive_short_tile(limits, keys_per_thread_override != 0 ? out->tile_sort_register_log : SHORT_TILE_REGISTER_LOG,
                      out);

    uint32_t steps = PREFERRED_GLOBAL_STEPS;
    if (max_steps_override != 0)
        steps = min_u32(max_steps_override, BITONIC_GPU_MAX_REGISTER_LOG);
    out->max_global_steps = steps;
    out->global_workgroup_size = min_u32(PREFERRED_GLOBAL_WORKGROUP, max_threads);
    return derive_transpose(limits, bytes_per_key, max_threads, out) &&
           bitonic_tuning_set_merge(limits, bytes_per_key, 0, out);
}
