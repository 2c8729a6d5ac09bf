/* test_tuning.c: the sizes derived from device limits fit those limits, for
 * the devices we know (lavapipe, an H100 under Vulkan) and for odd ones. */
#include <inttypes.h>

#include "test_util.h"
#include "tuning.h"

static bool fits(const bitonic_device_limits *limits, uint32_t bytes_per_key, const bitonic_tuning *tuning)
{
    return bitonic_tile_shared_bytes(tuning->tile_log, bytes_per_key) <= limits->max_shared_memory_bytes &&
           tuning->tile_workgroup_size <= limits->max_workgroup_invocations &&
           tuning->tile_workgroup_size == 1u << (tuning->tile_log - tuning->tile_register_log) &&
           /* the merge sort of a tile: the same tile, its own keys a thread */
           /* keys a thread the kernels are built for (tuning.h) */
           tuning->tile_register_log >= BITONIC_TILE_MIN_REGISTER_LOG &&
           tuning->tile_register_log <= BITONIC_GPU_MAX_REGISTER_LOG &&
           tuning->tile_sort_register_log >= BITONIC_TILE_MIN_REGISTER_LOG &&
           tuning->tile_sort_register_log <= BITONIC_GPU_MAX_REGISTER_LOG &&
           tuning->merge_register_log ==
               (bytes_per_key == 4u ? BITONIC_MERGE_REGISTER_LOG_4_BYTE_KEYS : BITONIC_MERGE_REGISTER_LOG_WIDER_KEYS) &&
           tuning->tile_sort_register_log <= tuning->tile_log &&
           tuning->tile_sort_workgroup_size == 1u << (tuning->tile_log - tuning->tile_sort_register_log) &&
           tuning->tile_sort_workgroup_size <= limits->max_workgroup_invocations &&
           /* the short tile: none, or shorter than the tile with at least two threads and no
              more keys a thread, a workgroup the device runs, whole subgroups where the merge
              sort shuffles */
           (tuning->short_tile_log == 0 ||
            (tuning->short_tile_log < tuning->tile_log && tuning->short_tile_log > tuning->short_tile_register_log &&
             tuning->short_tile_register_log >= BITONIC_SHORT_TILE_MIN_REGISTER_LOG &&
             tuning->short_tile_register_log <= tuning->tile_sort_register_log &&
             (1u << (tuning->short_tile_log - tuning->short_tile_register_log)) <= limits->max_workgroup_invocations &&
             (!tuning->tile_sort_uses_shuffle ||
              (1u << (tuning->short_tile_log - tuning->short_tile_register_log)) % limits->subgroup_size == 0))) &&
           /* the nested partition's tile: at most the tile, a thread's keys at least, whole
              subgroups where the merge sort shuffles */
           tuning->partition_nested_tile_log <= tuning->tile_log &&
           tuning->partition_nested_tile_log >= tuning->tile_sort_register_log &&
           (!tuning->tile_sort_uses_shuffle ||
            (1u << (tuning->partition_nested_tile_log - tuning->tile_sort_register_log)) % limits->subgroup_size == 0) &&
           /* a tail key a thread of the tile merge sort, on the short tile too */
           tuning->tile_tail_log <= 5u && (1u << tuning->tile_tail_log) <= tuning->tile_sort_workgroup_size &&
           (tuning->short_tile_log == 0 ||
            (1u << tuning->tile_tail_log) <= (1u << (tuning->short_tile_log - tuning->short_tile_register_log))) &&
           tuning->global_workgroup_size <= limits->max_workgroup_invocations && tuning->max_global_steps >= 1 &&
           tuning->max_global_steps <= BITONIC_GPU_MAX_REGISTER_LOG &&
           /* merge chunks: in shared memory, one workgroup, never wider than two tiles */
           tuning->merge_chunk_log >= 1 && tuning->merge_chunk_log <= tuning->tile_log + 1 &&
           bitonic_tile_shared_bytes(tuning->merge_chunk_log, bytes_per_key) <= limits->max_shared_memory_bytes &&
           tuning->merge_workgroup_size == 1u << (tuning->merge_chunk_log - tuning->merge_register_log) &&
           tuning->merge_workgroup_size <= limits->max_workgroup_invocations && tuning->merge_workgroup_size >= 2u &&
           /* transpose blocks: in shared memory, whole rows of the block a workgroup */
           tuning->transpose_block_log >= 1 &&
           bitonic_transpose_shared_bytes(tuning->transpose_block_log, bytes_per_key) <= limits->max_shared_memory_bytes &&
           tuning->transpose_workgroup_size <= limits->max_workgroup_invocations &&
           tuning->transpose_workgroup_size % (1u << tuning->transpose_block_log) == 0 &&
           tuning->transpose_workgroup_size <= 1u << (2u * tuning->transpose_block_log);
}

/* The partition steps' shared memory as partition_pass.comp declares it, for
 * keys of key_bytes (4 or 8) with or without 32-bit values: the splitters
 * sorted, the lookup table's 2 (m + 1) cells of a word, two words for each
 * of the 2m + 1 buckets, the staged tile with a word a key where a key and
 * its value take more than 8 bytes (the others stage their scan's words in
 * the tile), and four more words. The fallback's nine lie in the splitters'
 * keys where keys are 32 bits (at least 9 splitters), else in the staged
 * keys' high words. */
static uint64_t partition_shared_bytes(const bitonic_tuning *tuning, uint32_t key_bytes, bool values)
{
    uint64_t m = tuning->partition_max_splitters, item = key_bytes + (values ? 4u : 0u);
    uint64_t tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    uint64_t place = item <= 8u ? 0u : 4u;
    return m * item + 2u * (m + 1u) * 4u + 2u * (2u * m + 1u) * 4u + tile * (item + place) + 16u;
}

/* The partition's sizes fit for every key type: its bytes a key are the key's
 * and the value's. */
static bool partition_fits(const bitonic_device_limits *limits, const bitonic_tuning *tuning, uint32_t key_bytes,
                           bool values)
{
    uint32_t m = tuning->partition_max_splitters;
    return m >= 9u && ((m + 1u) & m) == 0 && tuning->partition_scatter_keys >= 1 &&
           (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys >= 9u &&
           tuning->partition_places_by_search == (key_bytes + (values ? 4u : 0u) <= 8u) &&
           tuning->partition_workgroup_size <= limits->max_workgroup_invocations &&
           partition_shared_bytes(tuning, key_bytes, values) <= limits->max_shared_memory_bytes;
}

/* Every device Vulkan allows (at least 128 invocations and 16 KiB of shared
 * memory a workgroup, any subgroup size, with or without each subgroup
 * feature): the derived sizes fit, of keys a thread the kernels are built
 * for, for every key size, small sorts too. */
static void check_device_grid(test_counter *t)
{
    static const uint32_t invocations[] = {128, 256, 512, 1024, 2048};
    static const uint32_t shared[] = {16384, 24576, 32768, 49152, 65536, 98304};
    static const uint32_t subgroups[] = {1, 4, 8, 16, 32, 64, 128};
    static const uint32_t key_bytes[] = {4, 8, 12, 16};
    uint32_t checked = 0, failed = 0;
    for (size_t i = 0; i < sizeof invocations / sizeof *invocations; ++i)
        for (size_t m = 0; m < sizeof shared / sizeof *shared; ++m)
            for (size_t g = 0; g < sizeof subgroups / sizeof *subgroups; ++g)
                for (uint32_t features = 0; features < 8u; ++features)
                    for (size_t k = 0; k < sizeof key_bytes / sizeof *key_bytes; ++k) {
                        bitonic_device_limits limits = {invocations[i], invocations[i], shared[m], subgroups[g],
                                                        (features & 1u) != 0, (features & 2u) != 0,
                                                        (features & 4u) != 0, 0};
                        bitonic_tuning tuning = {0}, small = {0};
                        uint64_t small_max = 0;
                        bool ok = bitonic_tuning_derive(&limits, key_bytes[k], 0, 0, 0, &tuning) &&
                                  fits(&limits, key_bytes[k], &tuning) &&
                                  (key_bytes[k] != 4u ||
                                   (bitonic_tuning_derive_small(&limits, 4, 0, 0, &small, &small_max) &&
                                    fits(&limits, 4, &small)));
                        ++checked;
                        if (!ok && failed++ < 5)
                            TEST_CHECK(t, false, "device %u invocations, %u bytes shared, subgroup %u, features %u: "
                                       "%u-byte keys derive sizes the kernels are built for",
                                       limits.max_workgroup_invocations, limits.max_shared_memory_bytes,
                                       limits.subgroup_size, features, key_bytes[k]);
                    }
    TEST_CHECK(t, failed == 0, "%u of %u devices and key sizes derive what the kernels are built for", checked - failed,
               checked);
}

int main(void)
{
    test_counter t = {0};
    check_device_grid(&t);
    bitonic_tuning tuning = {0};
    const bitonic_device_limits lavapipe = {1024, 1024, 32768, 8, false, false, false, 0};
    const bitonic_device_limits h100 = {1024, 1024, 49152, 32, false, false, false, 0};
    const bitonic_device_limits small = {128, 128, 16384, 4, false, false, false, 0};
    const bitonic_device_limits tiny = {64, 64, 1024, 1, false, false, false, 0};

    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe, 4, 0, 0, 0, &tuning) && fits(&lavapipe, 4, &tuning) &&
                       tuning.tile_log == 12, "lavapipe keys: 4096-key tile (got 2^%u)", tuning.tile_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 4, 0, 0, 0, &tuning) && fits(&h100, 4, &tuning) && tuning.tile_log == 13,
               "H100 keys: 8192-key tile in 48 KiB (got 2^%u)", tuning.tile_log);
    TEST_CHECK(&t, tuning.tile_merge_sort && tuning.tile_sort_register_log == 4 && tuning.tile_sort_workgroup_size == 512,
               "H100 keys: the tile merge-sorted by 512 threads of 16 keys (got 2^%u keys a thread)",
               tuning.tile_sort_register_log);
    TEST_CHECK(&t, tuning.short_tile_log == 11 && tuning.short_tile_register_log == 2,
               "H100 keys: a short tile of 2048 keys, 4 a thread (got 2^%u, 2^%u a thread)", tuning.short_tile_log,
               tuning.short_tile_register_log);
    TEST_CHECK(&t, tuning.tile_tail_log == 5, "H100 keys: tails of up to 32 keys placed by the tile (got 2^%u)",
               tuning.tile_tail_log);
    TEST_CHECK(&t, tuning.partition_nested_tile_log == 11 && tuning.partition_max_splitters == 511,
               "H100 keys: the nested partition's tile 2048 keys (got 2^%u), 511 splitters (got %u)",
               tuning.partition_nested_tile_log, tuning.partition_max_splitters);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 8, 0, 0, 0, &tuning) && tuning.tile_merge_sort &&
                       tuning.tile_sort_register_log == 3 && tuning.tile_sort_workgroup_size == 512,
               "H100 pairs and 64-bit keys: the 4096-key tile merge-sorted 8 keys a thread (got 2^%u)",
               tuning.tile_sort_register_log);
    TEST_CHECK(&t, tuning.partition_nested_tile_log == 10,
               "H100 pairs and 64-bit keys: the nested partition's tile 1024 keys (got 2^%u; %u splitters)",
               tuning.partition_nested_tile_log, tuning.partition_max_splitters);
    TEST_CHECK(&t, bitonic_tuning_derive(&small, 4, 0, 0, 0, &tuning) && tuning.tile_sort_register_log == 4 &&
                   tuning.tile_sort_workgroup_size == 128,
               "128-thread device, 2048-key tile: merge-sorted 16 keys a thread (got 2^%u)",
               tuning.tile_sort_register_log);
    TEST_CHECK(&t, tuning.short_tile_log == 10 && tuning.short_tile_register_log == 3,
               "128-thread device: the short tile of 1024 keys takes 8 a thread, its threads a workgroup (got 2^%u, "
               "2^%u a thread)",
               tuning.short_tile_log, tuning.short_tile_register_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 8, 0, 8, 0, &tuning) && tuning.short_tile_register_log == 3,
               "H100 pairs, 8 keys a thread asked for: the short tile's too (got 2^%u)",
               tuning.short_tile_register_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 8, 0, 0, 0, &tuning) && fits(&h100, 8, &tuning) && tuning.tile_log == 12,
               "H100 pairs: 4096-key tile (got 2^%u)", tuning.tile_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&small, 4, 0, 0, 0, &tuning) && fits(&small, 4, &tuning) && tuning.tile_log == 11,
               "128 invocations cap the tile at 128 x 16 keys (got 2^%u)", tuning.tile_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&tiny, 8, 0, 0, 0, &tuning) && fits(&tiny, 8, &tuning),
               "1 KiB of shared memory still gives a tile");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe, 4, 32, 0, 2, &tuning) && tuning.tile_log == 5 &&
                       tuning.max_global_steps == 2 && fits(&lavapipe, 4, &tuning),
               "overrides: 32-key tile, 2 steps per pass");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe, 4, 1u << 20, 0, 9, &tuning) && tuning.tile_log == 12 &&
                       tuning.max_global_steps == 4, "overrides are clamped to the device and the kernels built");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 4, 0, 32, 0, &tuning) && tuning.tile_register_log == 4 &&
                       tuning.tile_log == 13 && tuning.tile_workgroup_size == 512 && fits(&h100, 4, &tuning),
               "32 keys per thread is clamped to the 16 the kernels are built for: 512 threads a 8192-key tile");
    const bitonic_device_limits h100_shuffle = {1024, 1024, 49152, 32, true, false, false, 0};
    const bitonic_device_limits lavapipe_shuffle = {1024, 1024, 32768, 8, true, false, false, 0};
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_shuffle, 4, 0, 0, 0, &tuning) && tuning.tile_uses_shuffle &&
                       tuning.tile_log == 13 && tuning.tile_register_log == 4 && fits(&h100_shuffle, 4, &tuning),
               "H100 with shuffles: 8192-key tile, 16 keys a thread, shuffle kernel");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_shuffle, 8, 0, 0, 0, &tuning) && tuning.tile_uses_shuffle &&
                       tuning.tile_log == 12 && tuning.tile_register_log == 3 && fits(&h100_shuffle, 8, &tuning),
               "H100 pairs with shuffles: 8 keys a thread so the step groups fit the 4096-key tile");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe_shuffle, 4, 0, 0, 0, &tuning) && tuning.tile_uses_shuffle &&
                       tuning.tile_register_log == 4 && fits(&lavapipe_shuffle, 4, &tuning),
               "lavapipe with shuffles (subgroup 8)");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe_shuffle, 4, 32, 0, 0, &tuning) && !tuning.tile_uses_shuffle &&
                       tuning.tile_log == 5 && tuning.tile_register_log == 4 && fits(&lavapipe_shuffle, 4, &tuning),
               "a 32-key tile is too small for the shuffle kernel's 8 or 16 keys a thread: shared memory only");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe_shuffle, 4, 512, 0, 0, &tuning) && tuning.tile_uses_shuffle &&
                       tuning.tile_log == 9 && tuning.tile_register_log == 3 && fits(&lavapipe_shuffle, 4, &tuning),
               "a 512-key tile takes the shuffle kernel with 8 keys a thread (64 threads, 8 subgroups of 8)");
    TEST_CHECK(&t, !bitonic_tuning_derive(&lavapipe, 4, 0, 4, 0, &tuning),
               "4 keys a thread asked for: refused, no tile kernel is built for it");
    TEST_CHECK(&t, !bitonic_tuning_derive(&lavapipe, 4, 4, 0, 0, &tuning),
               "a 4-key tile: refused, fewer keys than a thread of the tile kernels holds");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe_shuffle, 4, 8, 0, 0, &tuning) && !tuning.tile_uses_shuffle &&
                       tuning.tile_log == 3, "an 8-key tile is too small for whole subgroups: shared memory only");
    const bitonic_device_limits h100_ballot = {1024, 1024, 49152, 32, true, true, false, 0};
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_ballot, 8, 0, 0, 0, &tuning) && tuning.merge_fused_split_by_subgroup &&
                       bitonic_tuning_derive(&h100_shuffle, 8, 0, 0, 0, &tuning) && !tuning.merge_fused_split_by_subgroup,
               "merges of pairs and 64-bit keys search their own splits by subgroups where ballots exist");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_ballot, 4, 0, 0, 0, &tuning) && !tuning.merge_fused_split_by_subgroup,
               "merges of 32-bit keys alone search their own splits a thread a split");
    const bitonic_device_limits none = {0, 0, 0, 0, false, false, false, 0};
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 4, 0, 0, 0, &tuning) && tuning.merge_chunk_log == 10 &&
                       tuning.merge_workgroup_size == 128,
               "H100 keys: merge chunks of 1024 keys, 128 threads");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 12, 0, 0, 0, &tuning) && fits(&h100, 12, &tuning) &&
                       bitonic_tuning_set_merge(&h100, 12, 8192, &tuning) && tuning.merge_chunk_log == 11 &&
                       tuning.merge_register_log == 2,
               "H100 64-bit pairs: merge chunks cut to 2048 keys (12 bytes a key in 48 KiB)");
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe, 4, 8, 0, 0, &tuning) && fits(&lavapipe, 4, &tuning) &&
                       tuning.merge_chunk_log == 4,
               "an 8-key tile: merge chunks of 16 keys at most");
    TEST_CHECK(&t, !bitonic_tuning_set_merge(&lavapipe, 4, 8, &tuning) && bitonic_tuning_set_merge(&lavapipe, 8, 8, &tuning),
               "8-key merge chunks: refused for 32-bit keys (one thread of 8), two threads of 4 for pairs");
    uint64_t small_max = 0;
    TEST_CHECK(&t, bitonic_tuning_derive_small(&h100_shuffle, 4, 0, 0, &tuning, &small_max) && tuning.tile_log == 12 &&
                       tuning.tile_register_log == 3 && tuning.tile_uses_shuffle && tuning.merge_direct &&
                       small_max == (1u << 18) && fits(&h100_shuffle, 4, &tuning),
               "H100 small sorts: 4096-key tiles of 8 keys a thread, the direct merge, up to 2^18 keys");
    TEST_CHECK(&t, tuning.short_tile_log == 11 && tuning.short_tile_register_log == 2 && tuning.tile_tail_log == 5,
               "H100 small sorts: a short tile of 2048 keys, 4 a thread, tails of 32 (got 2^%u, 2^%u, 2^%u)",
               tuning.short_tile_log, tuning.short_tile_register_log, tuning.tile_tail_log);
    TEST_CHECK(&t, bitonic_tuning_derive_small(&h100_shuffle, 4, 8192, 1u << 18, &tuning, &small_max) &&
                       tuning.tile_log == 13 && tuning.tile_register_log == 3 && tuning.tile_workgroup_size == 1024 &&
                       tuning.merge_direct && small_max == (1u << 18) && fits(&h100_shuffle, 4, &tuning),
               "H100 small sorts asked for 8192-key tiles up to 2^18 keys: 1024 threads of 8 keys");
    TEST_CHECK(&t, bitonic_tuning_derive_small(&lavapipe, 4, 1u << 20, 0, &tuning, &small_max) &&
                       fits(&lavapipe, 4, &tuning) && small_max == (1u << 18),
               "small tiles asked for past the device: clamped to what fits (got 2^%u)", tuning.tile_log);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_shuffle, 4, 0, 0, 0, &tuning) && !tuning.merge_direct,
               "H100 large sorts merge through shared memory");
    TEST_CHECK(&t, !bitonic_tuning_derive_small(&none, 4, 0, 0, &tuning, &small_max), "no small tuning without shared memory");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 12, 0, 0, 0, &tuning) && tuning.transpose_block_log == 5 &&
                       tuning.transpose_workgroup_size == 256,
               "H100 64-bit pairs: transpose blocks of 32 x 32 keys, 256 threads");
    TEST_CHECK(&t, bitonic_tuning_derive(&tiny, 8, 0, 0, 0, &tuning) && tuning.transpose_block_log == 3 &&
                       tuning.transpose_workgroup_size == 64,
               "1 KiB of shared memory: transpose blocks of 8 x 8 keys (got 2^%u)", tuning.transpose_block_log);
    TEST_CHECK(&t, !bitonic_tuning_derive(&none, 4, 0, 0, 0, &tuning), "a device with no shared memory is refused");
    /* The partition: every key type fits, with the preferred staged keys
     * where 255 splitters fit beside them. */
    const struct {
        uint32_t key_bytes;
        bool values;
    } partition_types[] = {{4, false}, {4, true}, {8, false}, {8, true}};
    const bitonic_device_limits *partition_devices[] = {&lavapipe, &h100, &small};
    for (size_t d = 0; d < sizeof partition_devices / sizeof partition_devices[0]; ++d) {
        for (size_t k = 0; k < sizeof partition_types / sizeof partition_types[0]; ++k) {
            uint32_t key_bytes = partition_types[k].key_bytes;
            bool values = partition_types[k].values;
            bool derived = bitonic_tuning_derive(partition_devices[d], key_bytes + (values ? 4u : 0u), 0, 0, 0, &tuning);
            TEST_CHECK(&t, derived && partition_fits(partition_devices[d], &tuning, key_bytes, values),
                       "partition: device %zu, %u-byte keys%s: %u splitters, %u staged keys a thread, %" PRIu64
                       " bytes of shared memory", d, key_bytes, values ? " with values" : "",
                       tuning.partition_max_splitters, tuning.partition_scatter_keys,
                       partition_shared_bytes(&tuning, key_bytes, values));
        }
    }
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 4, 0, 0, 0, &tuning) && tuning.partition_max_splitters == 511 &&
                       tuning.partition_scatter_keys == 8 && !tuning.partition_scan_by_subgroup,
                   "H100 u32 partition: 511 splitters, tiles of 8 keys a thread, the scan in shared memory without "
                   "subgroup arithmetic");
    const bitonic_device_limits h100_arithmetic = {1024, 1024, 49152, 32, true, true, true, 132};
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_arithmetic, 8, 0, 0, 0, &tuning) &&
                       tuning.partition_max_splitters == 511 && tuning.partition_scatter_keys == 4 &&
                       tuning.partition_places_by_search && tuning.partition_scan_by_subgroup &&
                       partition_shared_bytes(&tuning, 4, true) == 49152u &&
                       partition_shared_bytes(&tuning, 8, false) == 49152u,
               "H100 pairs and u64 partition: 511 splitters and tiles of 4 keys a thread, no places, 48 KiB to the "
               "byte, the scan by subgroups (got %u, %u, %" PRIu64 " bytes)",
               tuning.partition_max_splitters, tuning.partition_scatter_keys, partition_shared_bytes(&tuning, 4, true));
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_arithmetic, 12, 0, 0, 0, &tuning) &&
                       tuning.partition_scatter_keys == 2 && !tuning.partition_places_by_search,
               "H100 u64 pairs partition: tiles of 2 keys a thread with their places (got %u)",
               tuning.partition_scatter_keys);
    TEST_CHECK(&t, bitonic_tuning_derive(&lavapipe, 4, 0, 0, 0, &tuning) && tuning.partition_max_splitters == 511 &&
                       tuning.partition_scatter_keys == 4,
               "lavapipe u32 partition (32 KiB): 511 splitters, tiles of 4 keys a thread");
    TEST_CHECK(&t, bitonic_tuning_derive(&h100_arithmetic, 4, 0, 0, 0, &tuning) && tuning.partition_workgroups == 132 &&
                       tuning.partition_scatter_workgroups == 132,
               "132 multiprocessors: the count and the scatter a workgroup each (got %u, %u)",
               tuning.partition_workgroups, tuning.partition_scatter_workgroups);
    TEST_CHECK(&t, bitonic_tuning_derive(&h100, 4, 0, 0, 0, &tuning) && tuning.partition_workgroups == 128 &&
                       tuning.partition_scatter_workgroups == 128,
               "multiprocessors unknown: 128 workgroups of the count and the scatter (got %u, %u)",
               tuning.partition_workgroups, tuning.partition_scatter_workgroups);
    bitonic_tuning_set_partition_workgroup(&h100, 4, 256, 0u, &tuning);
    TEST_CHECK(&t, tuning.partition_workgroup_size == 256 && tuning.partition_scatter_keys == 16 &&
                       tuning.partition_max_splitters == 511 && partition_fits(&h100, &tuning, 4, false),
               "H100 u32, 256-thread partition workgroups: 16 keys a thread, the most (a 4096-key staged tile)");
    bitonic_tuning_set_partition_workgroup(&h100, 4, 8, 0u, &tuning);
    TEST_CHECK(&t, tuning.partition_workgroup_size == 8 && tuning.partition_scatter_keys == 16 &&
                       partition_fits(&h100, &tuning, 4, false),
               "8-thread partition workgroups stage at most 16 keys a thread (got %u)", tuning.partition_scatter_keys);
    bitonic_tuning_set_partition_workgroup(&lavapipe, 4, 4096, 0u, &tuning);
    TEST_CHECK(&t, tuning.partition_workgroup_size == 1024 && tuning.partition_scatter_keys == 4 &&
                       partition_fits(&lavapipe, &tuning, 4, false),
               "a partition workgroup is cut to the device's (got %u threads)", tuning.partition_workgroup_size);
    return test_finish(&t);
}
