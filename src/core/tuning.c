/* tuning.c: device limits to sort sizes (see tuning.h). The choices and why:
 * - 16 keys per thread in the tile kernel: enough registers to run four steps
 *   per shared-memory round trip, few enough that a 512-thread workgroup keeps
 *   its keys without spilling.
 * - A tile sorted from scratch is merge-sorted (tile_sort_pass.comp): each
 *   thread's keys by the network, then a merge round per doubling. 32-bit keys
 *   alone take 16 keys a thread (512 threads for 8192 keys): since the lane
 *   merges and the vector loads, the H100 ran their tile pass 5% faster that
 *   way than with 8, and sorts from 2^19 to 2^26 keys 1-1.6% faster (docs/perf-log.md, entry
 *   43). Pairs and 64-bit keys were 2-4% slower with 16, and keep 8 a thread
 *   (1024 threads) where they fit a workgroup: twice the warps to hide the
 *   merges' chains of shared-memory reads (4-6% faster than 16, entry 24).
 * - The largest power-of-two tile whose keys (padded) fit the shared memory the
 *   device reports and whose threads fit one workgroup: bigger tiles mean fewer
 *   passes over device memory, which is what a bitonic sort pays for.
 * - 16 keys per thread (4 steps) in global passes: on the H100 the 5-step pass
 *   takes 96 registers and runs at half the bandwidth of a 1-step pass, and 4 steps
 *   beat 5 at every size measured (docs/perf-log.md).
 * - Merge chunks of 1024 keys, 8 a thread (128 threads; 4 for pairs and 64-bit
 *   keys, whose merges hold twice the registers), smaller where shared
 *   memory is short: a thread's merge is a chain of dependent shared-memory
 *   reads, so fewer keys a thread and more workgroups hide it better; on the
 *   H100 this was the best of 11 shapes measured (docs/perf-log.md). Their
 *   shared memory counts as much as their registers: on the H200 a merge
 *   level slowed in step with its shared bytes alone, as if NVIDIA's driver
 *   gave these pipelines about 64 KiB a multiprocessor (docs/perf-log.md, entry 92), so
 *   1024-key chunks of 32-bit keys seem to run twelve workgroups by both limits.
 * - Transpose blocks of 32 x 32 keys, 8 rows at a time (256 threads), smaller
 *   where shared memory or the workgroup is short: a row of 32 keys is a whole
 *   128-byte line of 32-bit keys both when read and when written, and 32 is
 *   the bank count the padding is made for. Not measured against other shapes. */
#include "tuning.h"

#include "schedule.h"

#define PREFERRED_TILE_REGISTER_LOG 4u
#define PREFERRED_TILE_SORT_REGISTER_LOG 3u
#define PREFERRED_TILE_SORT_REGISTER_LOG_4_BYTE_KEYS 4u
#define PREFERRED_GLOBAL_WORKGROUP 128u
#define PREFERRED_GLOBAL_STEPS 4u
#define PREFERRED_MERGE_REGISTER_LOG 3u
/* Pairs and 64-bit keys merge 4 keys a thread (256 threads a 1024-key chunk):
 * their merge kernels take 63-64 registers a thread at 8, and on the H100 4
 * made pairs 5-6% faster from 2^20 to 2^24 keys and u64 up to 2.7%, where u32
 * keys were slower (docs/perf-log.md, entry 47). */
#define WIDE_PREFERRED_MERGE_REGISTER_LOG 2u
#define PREFERRED_MERGE_CHUNK_LOG 10u
#define PREFERRED_MERGE_SEARCH_LANES 32u
#define MERGE_SPLIT_PASS_MIN_CHUNKS 4096u
/* Pairs and 64-bit keys from 2048 chunks: on the H100 a split pass made their
 * sorts of 2^21 and 1.5 x 2^21 keys 8.5-13% faster, level at 1.5 x 2^20 and
 * slower below; 32-bit keys alone gained at 1.5 x 2^21 only (2.7%) and lost
 * 5% at 2^21 (docs/perf-log.md, entry 38). */
#define WIDE_MERGE_SPLIT_PASS_MIN_CHUNKS 2048u
/* The split pass's threads test 3 keys a round (a 4-ary search, half the
 * rounds of a binary one) in merges of up to 16384 chunks, and search binary in
 * bigger ones: in one H100 run, sorts of 2^22 to 1.5 x 2^23 keys took 2.2-4.9%
 * less time with 3 probes, 2^24 the same, and 1.5 x 2^24 to 2^26 + 1 1.5-4.6%
 * more (more searches read more sectors than they save rounds;
 * docs/perf-log.md, entry 26). */
#define PREFERRED_MERGE_SPLIT_PROBES 3u
#define MERGE_SPLIT_PROBES_MAX_CHUNKS 16384u
/* The split pass guesses where each split lies from the keys' values from
 * 16384 chunks up (2^24 32-bit keys), 8192 for pairs and 64-bit keys: on the
 * H100 the guesses made sorts 1.3% faster at 2^24, 3.1% at 2^25 and 4.8% at
 * 2^26, but 4-5% slower at 2^22-2^23, where the keys sit in the L2 cache, a
 * round of probes is short, and each split pass took 2 µs longer; pairs and
 * 64-bit keys gained 3-5% at 2^24, u64 also at 2^22-2^23, pairs lost 6% at
 * 2^22 (docs/perf-log.md, entry 41). */
#define MERGE_SPLIT_GUIDED_MIN_CHUNKS 16384u
#define WIDE_MERGE_SPLIT_GUIDED_MIN_CHUNKS 8192u
/* Merges below the split pass's threshold search their own splits on the run
 * samples from 16 chunks (2^14 keys), every key type. On the H100, against the
 * workgroup's k-ary search of the keys: pairs 4-8% and u64 6-9% faster at 2^14
 * to 2^18 keys (docs/perf-log.md, entry 49); 32-bit keys, whose threshold was 512 chunks
 * (2^19 keys; 4-6% faster at 2^19 to 2^21, entry 44), 7% faster at 1.5 x 2^18
 * and level elsewhere from 2^17 to 2^20 + 1 (entry 50; sorts up to 2^18
 * keys take the small shapes, which merge without a split search). In place
 * of split passes (2^22 up) the searches were 6-30% slower, since every merge
 * workgroup then waits on its own chain of them (entry 44). */
#define MERGE_FUSED_SPLIT_MIN_CHUNKS 16u
/* Keys each of those searches tests a round: on the H100 3 and 5 were level
 * at 2^19-2^21 keys, 7 up to 2% slower, 1 (binary) 5-7% slower (docs/perf-log.md, entry 45). */
#define MERGE_FUSED_SPLIT_PROBES 3u
/* Those searches by a subgroup (a key a lane a round, a ballot to count) for
 * pairs and 64-bit keys, where ballots exist; by one thread for 32-bit keys
 * alone. On the H100 the subgroup made u64 sorts of 2^19-2^20 keys 5-6%
 * faster and pairs 1-2%, but u32 ones 1-2% slower (docs/perf-log.md, entry 46). */
#define WIDE_MERGE_FUSED_SPLIT_BY_SUBGROUP true
#define MERGE_FUSED_SPLIT_BY_SUBGROUP false
/* Small sorts: a sort below about 2^18 keys is a few dispatches, and its time
 * is the latency of one workgroup's tile sort plus about 10 µs a merge level
 * (docs/perf-log.md, entry 17): 4096-key tiles of 8 keys a thread sort
 * sooner, and the merge without shared memory needs no split search of the
 * workgroup before its threads start. */
#define SMALL_TILE_KEYS 4096u
#define SMALL_TILE_KEYS_PER_THREAD 8u
/* The short tile (bitonic_tuning.short_tile_log), log2 of its keys, and of
 * the keys a thread sorts on it. A sort of one short tile is one workgroup on
 * one multiprocessor, bound by the latency of its chains, not by its work:
 * 4 keys a thread (twice the threads, half the merge steps a round) sorted
 * pairs and 64-bit keys of 1024 to 2049 keys 8-13% faster than 8 on the H200
 * (docs/perf-log.md, entry 84). */
#define SHORT_TILE_LOG 11u
#define SHORT_TILE_REGISTER_LOG 2u
/* A sort of one tile and a tail of up to 2^TILE_TAIL_LOG keys (2^12 + 1 on
 * a 4096-key tile) places the tail in the tile pass (tile_sort_pass.comp):
 * each tail key ranks itself against the whole tail, so the tail stays short. */
#define TILE_TAIL_LOG 5u
/* Up to 2^18 keys: on the H100, since the large shapes' merges search their
 * splits on run samples, 2^18 + 1 keys sort 4.6% faster with them (0.0630 ms
 * against 0.0661; docs/perf-log.md, entry 50); 2^18 the same either way. (Before, the
 * crossing lay between 2^18 + 1 and 3 x 2^17, and a limit at 2^17 made
 * 2^17 + 1 a 1.3x step.) */
#define SMALL_SORT_MAX_KEYS (1u << 18)
/* Merges without shared memory (bitonic_tuning.merge_direct_max_keys) up to
 * 2^18 32-bit keys, 2^17 pairs and 2^16 64-bit keys, and a tile past that
 * (the tail the last merge takes in). On the H100 the direct merge sorted
 * pairs 6-9% faster than the shared-memory one from 2^13 to 2^17 and 64-bit
 * keys 1-6% faster up to 2^16, and 2^k + 1 keys 5-21% faster where it took
 * the tail in; 64-bit keys were 1.7% slower at 1.5 x 2^16 and 3.5% at 2^17,
 * and every type 3-17% slower from 1.5 x 2^17 (docs/perf-log.md,
 * entry 70). Pairs of 64-bit keys follow pairs (not measured). */
#define DIRECT_MERGE_MAX_LOG_32 18u
#define DIRECT_MERGE_MAX_LOG_PAIRS 17u
#define DIRECT_MERGE_MAX_LOG_64 16u
/* The partition sort (bitonic_tuning, partition_*), from 1.5 x 2^18 keys of
 * 4 and 8 bytes: on an H200, with the partition's steps as they are since
 * docs/perf-log.md, entry 84 and pairs packed (entry 85), against the merge levels u32
 * sorted 5.4% faster at 1.5 x 2^18, 4.5% at 2^19, 7.2% at 2^19 + 1 and 11.1%
 * at 1.5 x 2^19; pairs 11.1% and 14.2% faster at 1.5 x 2^18 and 2^19; u64
 * 3.5% and 7.5% (docs/perf-log.md, entry 86). From 2^18 + 1 pairs gained
 * 6.3% there but u64 lost 2.7% and u32 tied; the two 8-byte kinds share the
 * threshold. Before, on the H100 (2^20 32-bit keys and 2^19 + 1 pairs and
 * 64-bit keys), since the fallback became
 * one dispatch and the samples are sorted in runs (docs/perf-log.md,
 * entry 63), against the merge levels u32 sorts 4.1% faster at 2^20 and 10.5%
 * at 2^20 + 1, as fast at 2^19 + 1 and 1.5 x 2^19, 9.1% slower at 2^19;
 * pairs 5.9% faster at 2^19 + 1, 19% at 1.5 x 2^19 and 18% at 2^20, 1.4%
 * slower at 2^19; u64 0.8% slower at 2^19 + 1, 13.5% faster at 1.5 x 2^19 and
 * 14.6% at 2^20, 8% slower at 2^19. (Before, entry 59: from 1.5 x 2^20 and
 * 2^20 + 1.) 64-bit keys
 * with values (255 splitters) were not measured: they keep 2^23, where the
 * partition first won for the others (entry 55). Windows of at least the
 * tile (no merge level), more where the splitters would not fit; open buckets
 * of half a window on average where the splitters allow, else up to a
 * window (from 2^22 keys), so the longest stays under two windows (what the
 * window merge sorts since entry 65; a bucket of more than a window may span
 * three runs) with 32 samples a bucket: in a simulation of 200 sorts of 2^22
 * random keys into 512 buckets of 8192 keys on average, the longest was 1.89
 * windows, and about 36 buckets a sort spanned three runs. (16 samples fell
 * back in most sorts of 2^24 keys into 4095 buckets on the H100, entry 54, and
 * in one of two batches into 511, entry 56, each against a bucket of twice
 * the average.) Half a window on average, as before entry 65, took one merge
 * level more from 2^22 keys up. At most 511 splitters: the scatter
 * stages a tile of 4096 keys in shared memory (8192 u32 keys since entry 93),
 * and more buckets would leave too few keys a bucket to write whole sectors
 * (entry 55). */
#define PARTITION_MIN_KEYS_32 (3u << 17)
#define PARTITION_MIN_KEYS_64 (3u << 17)
#define PARTITION_MIN_KEYS_WIDE (1u << 23)
#define PARTITION_LEVELS 0u
#define PARTITION_BUCKETS_PER_WINDOW 2u
/* The nested partition where the first partition's windows would take at
 * least this many merge levels: 4 for 32-bit keys (from 1.5 x 2^25 on a 48
 * KiB device), 3 for the others (pairs and 64-bit keys from 2^24). On an
 * H200, against those levels in the same call, u32 sorted 11% faster at 2^26
 * (2.563 against 2.885 ms), 20% at 2^27 and 26% at 2^28 (9.716 against
 * 13.150), but at 3 levels only as fast (2^25: 1.380 against 1.377), and 1.5
 * x 2^24 took 1.092 ms nested where the flat sort had taken 1.058 in the
 * run of 2026-11-30; u64 3% faster at 2^24 (3 levels), 12% at 2^25, 20% at
 * 2^26 and 32% at 2^28 (17.36 against 25.41); pairs 2% faster at 2^24, 10%
 * at 2^25, 18% at 2^26 and 30% at 2^28. From 1 level (2^23), u32 took 32%
 * longer at 2^23 and 14% at 2^24 (the second count and scatter cost more
 * than one or two levels); u64 9% longer at 2^23 (docs/perf-log.md,
 * entry 106). */
#define PARTITION_NESTED_MIN_LEVELS_32 4u
#define PARTITION_NESTED_MIN_LEVELS_64 3u
/* The window split pass's cursors in three pieces by one thread's selection
 * from 2^24 32-bit keys and 2^25 pairs and 64-bit keys, by the workgroup's
 * search below. On the H100 the selection's chain of about 22 steps made the
 * pass 0.0310 ms at 2^24 u32 keys and 0.0587 at 2^26 where the workgroup's
 * took 0.0371 and 0.1259 (sorts 1.0% and 1.9% faster), but 0.0149 at 2^22
 * against 0.0132 (1.1% slower) and up to 2.5% slower from 1.5 x 2^21 to 2^23;
 * u64 sorts 0.3-1.5% faster from 2^23, pairs 0.6% slower at 2^24 and 0.8%
 * faster at 2^26 (2^25 not measured; docs/perf-log.md, entry 66).
 * Since the cursors in three pieces take workgroups of their own (entry 81)
 * the thresholds held: u32 level either way from 2^21 to 2^23, pairs 0.5-4.9%
 * slower by thread up to 2^24, u64 0.4% and 1.0% faster at 2^23 and 2^24 but
 * slower below. */
#define PARTITION_SPLIT_BY_THREAD_MIN_KEYS_32 (1u << 24)
#define PARTITION_SPLIT_BY_THREAD_MIN_KEYS_64 (1u << 25)
#define PARTITION_SAMPLES_PER_BUCKET 32u
#define PARTITION_MAX_SPLITTERS 511u
/* Splitters enough for windows of the tile times 4 up to 2^22 keys (an
 * 8192-key tile; 2^23 when windows were half-merged, before entry 57): the
 * scatter stages fewer keys a thread where shared memory would hold fewer. */
#define PARTITION_GOOD_SPLITTERS 255u
#define PARTITION_WORKGROUP_SIZE 1024u
/* The scatter's staged tile (4-byte keys; a quarter of it for the others),
 * and the most keys a thread stages (they are held in registers). 4-byte keys
 * stage no place beside each key (partition_pass.comp, PLACES_BY_SEARCH), so
 * twice as many fit: a tile of 8192 u32 keys took the scatter of 2^26 keys
 * from 0.649 to 0.548 ms on the H200 (docs/perf-log.md, entry 93;
 * vk_sorter.c halves it where that takes fewer rounds). */
#define PARTITION_SCATTER_TILE_KEYS 8192u
#define PARTITION_MAX_SCATTER_KEYS 16u
/* The count's and the scatter's workgroups at most: each builds the
 * splitters' cells once, then the count counts one stretch of the keys and
 * the scatter takes tiles in turn, the next tile's keys loaded while it writes
 * the last. Their 1024-thread workgroups run one a multiprocessor on the
 * H100 (44 registers a thread; 61 for u32 keys on the H200 since entry 93),
 * and each is a chain of waits (the table's
 * barriers, the claims' atomics): one workgroup a multiprocessor, 132 there
 * where the driver tells it (bitonic_device_limits.multiprocessors), sorted
 * 2^21 u32 keys 4.7% faster than 256 (two rounds of workgroups), 2^22 2.4%,
 * 2^24 1.2%; 128 as fast as 132 (docs/perf-log.md, entry 60). */
#define PARTITION_WORKGROUPS 128u
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
                              uint32_t keys_per_thread_override, bitonic_tuning *tuning)
{
    uint32_t max_threads = min_u32(limits->max_workgroup_invocations, limits->max_workgroup_size_x);
    uint32_t wanted_chunk_log = PREFERRED_MERGE_CHUNK_LOG;
    if (chunk_keys_override != 0)
        wanted_chunk_log = bitonic_ceil_log2(chunk_keys_override);
    uint32_t wanted_register_log = bytes_per_key > 4u ? WIDE_PREFERRED_MERGE_REGISTER_LOG : PREFERRED_MERGE_REGISTER_LOG;
    if (keys_per_thread_override != 0)
        wanted_register_log = min_u32(bitonic_ceil_log2(keys_per_thread_override), BITONIC_GPU_MAX_REGISTER_LOG);
    /* The largest chunk up to the wanted one that fits shared memory, the
     * workgroup limit and tile_log + 1 (at least 2: a 4-key chunk of 2 threads). */
    for (uint32_t chunk_log = min_u32(wanted_chunk_log < 2u ? 2u : wanted_chunk_log, tuning->tile_log + 1u);
         chunk_log >= 2u; --chunk_log) {
        /* At least 2 threads: the split search runs two searches side by side. */
        uint32_t register_log = min_u32(wanted_register_log < 1u ? 1u : wanted_register_log, chunk_log - 1u);
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
        preferred_register_log = preferred_register_log < 1u ? 1u : preferred_register_log;
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
     * per thread can make that hold. */
    uint32_t subgroup_log = bitonic_ceil_log2(limits->subgroup_size);
    bool power_of_two = limits->subgroup_size > 0 && (1u << subgroup_log) == limits->subgroup_size;
    out->tile_sort_uses_shuffle = limits->subgroup_shuffle && power_of_two && limits->subgroup_size >= 2u &&
                                  out->tile_sort_workgroup_size % limits->subgroup_size == 0;
    for (uint32_t register_log = out->tile_register_log; limits->subgroup_shuffle && power_of_two &&
                                                         register_log >= 1 && !out->tile_uses_shuffle;
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
           bitonic_tuning_set_merge(limits, bytes_per_key, 0, 0, out);
}
