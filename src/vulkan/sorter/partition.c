/* partition.c: the partition sort (tuning.partition_min_keys and up):
 * splitters from sorted samples, a count and a scatter of the keys into
 * buckets (again inside each bucket for the nested partition), the tile sort
 * and merges up to windows, the window merge, and an indirect fallback for
 * buckets longer than a window; pairs of 32-bit keys may run packed as one
 * 64-bit key on KEYS64's pipelines (pairs_pack_fits). */
#include "sorter_internal.h"

/* Whether a partition sort of pairs of 32-bit keys may run packed on KEYS64's
 * pipelines: the plan is made with PAIRS32's tuning (the grids, the chunks,
 * the split passes, the windows, the fallback's chunks), so KEYS64's must
 * agree on every field those read. Both come from 8 bytes a key, so they do
 * unless a device or an override tells them apart. */
bool sorter_pairs_pack_fits(const bitonic_vulkan_sorter *sorter)
{
    const sorter_variant *pairs = &sorter->variants[PAIRS32], *keys = &sorter->variants[KEYS64];
    if (!pairs->available || !keys->available)
        return false;
    const bitonic_tuning *a = &pairs->tuning, *b = &keys->tuning;
    return a->tile_log == b->tile_log && a->tile_merge_sort == b->tile_merge_sort &&
           a->tile_sort_register_log == b->tile_sort_register_log &&
           a->tile_sort_workgroup_size == b->tile_sort_workgroup_size && a->tile_register_log == b->tile_register_log &&
           a->tile_workgroup_size == b->tile_workgroup_size && a->merge_chunk_log == b->merge_chunk_log &&
           a->merge_register_log == b->merge_register_log && a->merge_workgroup_size == b->merge_workgroup_size &&
           a->merge_split_pass_min_chunks == b->merge_split_pass_min_chunks &&
           a->merge_split_probes_max_chunks == b->merge_split_probes_max_chunks &&
           a->merge_split_workgroup_size == b->merge_split_workgroup_size &&
           a->merge_split_guided_min_chunks == b->merge_split_guided_min_chunks &&
           a->merge_split_samples == b->merge_split_samples &&
           a->merge_fused_split_min_chunks == b->merge_fused_split_min_chunks && a->merge_direct == b->merge_direct &&
           a->partition_min_keys == b->partition_min_keys && a->partition_levels == b->partition_levels &&
           a->partition_nested_min_levels == b->partition_nested_min_levels &&
           a->partition_fallback_in_batches == b->partition_fallback_in_batches &&
           a->partition_max_splitters == b->partition_max_splitters &&
           a->partition_workgroup_size == b->partition_workgroup_size &&
           a->partition_scatter_keys == b->partition_scatter_keys &&
           a->partition_split_by_thread_min_keys == b->partition_split_by_thread_min_keys;
}

/* The largest power of two within the scatter's staged tile: the fallback's
 * chunk and the most samples a nested bucket takes (fallback_chunk_keys() in
 * partition_pass.comp). */
static uint64_t staged_power_of_two(const bitonic_tuning *tuning)
{
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    return (uint64_t)1 << (bitonic_ceil_log2(staged_tile + 1u) - 1u);
}

/* The sort of the partition's samples: keys (and values) in the partition's
 * words, the scratch after them; never partitioned itself. */
static bitonic_vulkan_sort_info samples_sort_info(const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    VkDeviceSize at = info->scratch_offset + plan->partition_at;
    bitonic_vulkan_sort_info nested = {
        .keys = info->scratch, .keys_offset = at + plan->samples_at, .count = plan->sample_count,
        .values = info->values != VK_NULL_HANDLE ? info->scratch : VK_NULL_HANDLE,
        .values_offset = info->values != VK_NULL_HANDLE ? at + plan->sample_values_at : 0,
        .key_type = info->key_type, .order = info->order,
        .scratch = info->scratch, .scratch_offset = at + plan->nested_scratch_at};
    return nested;
}

/* Makes a planned merge sort of one array (plan->merge, bound buffers, no
 * count buffer) a partition sort where the tuning asks for one: the splitter
 * and sample counts, the workgroups, the scratch, the passes and dispatches.
 * Leaves the plan as it was where the sort cannot partition. */
void sorter_plan_partition(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                           sort_plan *plan)
{
    const bitonic_tuning *tuning = &sorter->variants[plan->variant_number].tuning;
    plan->partition = false;
    uint32_t count_log = bitonic_ceil_log2(info->count);
    /* The window merge is a shared-memory merge (merge_pass.comp, not the
     * direct one). */
    if (info->count < tuning->partition_min_keys || tuning->partition_max_splitters == 0 ||
        tuning->partition_buckets_per_window == 0 || tuning->partition_samples_per_bucket == 0 ||
        count_log >= 31u || plan->merge_direct)
        return;
    /* Windows of the tile times 2^levels, more levels where the splitters
     * would not fit; at least four windows, or there is little to win. The
     * buckets are rounded down (at least 8 of them, so the average bucket is
     * under 1/8 longer than the share asked for): 2^k + 1 keys take the
     * buckets and windows of 2^k, where rounding up made them one more merge
     * level (6% slower at 2^24 + 1 on the H100, docs/perf-log.md,
     * entry 56). */
    if (tuning->partition_levels > 30u)
        return;
    uint32_t window_log = tuning->tile_log + tuning->partition_levels;
    uint64_t buckets = 0;
    plan->nested = false;
    for (; window_log + 2u <= count_log; ++window_log) {
        /* The least window that keeps buckets of at most a window on average
         * (the window merge sorts buckets of up to 2W), with as many buckets
         * as fit up to partition_buckets_per_window a window: buckets of
         * half a window span three runs far less often, and at 2^21 keys,
         * where the window is the tile however many buckets there are, the
         * sort took 5.5% longer with buckets of a window (docs/perf-log.md, entry 65). */
        uint64_t window = (uint64_t)1 << window_log, most = (uint64_t)tuning->partition_max_splitters + 1u;
        if (info->count / window <= most) {
            buckets = tuning->partition_buckets_per_window * info->count / window;
            buckets = buckets < most ? buckets : most;
            break;
        }
    }
    if (window_log + 2u > count_log || buckets < 2u)
        return;
    uint64_t samples = buckets * tuning->partition_samples_per_bucket;
    /* The samples in runs of twice as many keys as buckets, a power of two of
     * them (the count rounded up to fill them), so that each splitter has a
     * rank of its own in every run: splitter i is the mean of a key about
     * (i + 1) / (m + 1) of the way through each run (splitter_from_runs in
     * partition_pass.comp), which splits as evenly as the whole sort's
     * quantiles do (the means of R estimates of one quantile; docs/perf-log.md, entry 62).
     * The sample step sorts the runs itself, a workgroup a run in shared
     * memory, where a run fits the scatter's staged tile; else the samples are
     * sorted whole by the library's sort after it. On the H100 that one
     * dispatch made sorts of 64-bit keys 1.4-2.4% faster from 1.5 x 2^20 to
     * 2^22, pairs 1.1% from 1.5 x 2^20 to 2^21 + 1 and u32 1.3% at 2^22, but
     * u32 1.3% slower at 1.5 x 2^20 and 2^21, against the sample step and a
     * tile pass of the runs on a 1024-key tile after it (docs/perf-log.md, entry 69).
     * Not for pairs: where keys repeat, the runs' estimates of one quantile
     * fall on different keys, and their mean's value is then no value of the
     * key it names, so the splitters fall between keys and a key's pairs stay
     * in one bucket; 2^20 pairs of 256 keys sent 3/4 of the sort to the
     * fallback on lavapipe, and the flock's sort of 4M boids took 4.7x a sort
     * of random pairs on the H200. The quantiles of the samples sorted whole
     * are pairs of the data (docs/perf-log.md, entry 120). */
    plan->sample_runs_log = 0;
    uint32_t run_log = bitonic_ceil_log2(2u * buckets);
    if (tuning->partition_sample_runs && info->values == VK_NULL_HANDLE && samples > ((uint64_t)1 << run_log) &&
        ((uint64_t)1 << run_log) <= (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys) {
        uint32_t runs_log = bitonic_ceil_log2((samples + ((uint64_t)1 << run_log) - 1u) >> run_log);
        if (runs_log <= 8u) {
            samples = (uint64_t)1 << (run_log + runs_log);
            plan->sample_runs_log = runs_log;
        }
    }
    /* splitter_from_runs (partition_pass.comp) multiplies up to m (L + 1) R. */
    uint64_t rank_bound = (samples + ((uint64_t)1 << plan->sample_runs_log)) * buckets;
    if (samples > info->count / 2u || rank_bound >= ((uint64_t)1 << 32))
        return;
    /* The nested partition where the windows would take enough merge levels:
     * each open bucket of more than the tile is partitioned again into
     * buckets of about half a tile (at most partition_max_splitters + 1 of
     * them, fewer where the nested sample, which the scatter's staged tile
     * holds, would have fewer samples than splitters), so that windows of
     * the tile do, with three pieces (buckets of up to two tiles). A second
     * count and scatter instead of the levels: docs/perf-log.md,
     * entries 105 and 106. Pairs go as two arrays through it (their packed
     * scatter is not nested: below, packed_pairs). The windows are the
     * nested tile (tuning.partition_nested_tile_log), longer where its
     * splitters would leave the nested buckets longer than a window on
     * average: the tile pass of a shorter tile runs more workgroups a
     * multiprocessor (entry 114). */
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    uint64_t nested_capacity = staged_power_of_two(tuning);
    uint32_t nested_splitters = tuning->partition_max_splitters;
    if (nested_splitters + 1u > nested_capacity / 2u)
        nested_splitters = (uint32_t)(nested_capacity / 2u) - 1u;
    if (tuning->partition_nested_min_levels <= 30u &&
        window_log - tuning->tile_log >= tuning->partition_nested_min_levels && nested_splitters >= 1u) {
        plan->nested = true;
        /* About 2L / W nested buckets for a bucket of L keys: at most the
         * nested splitters' and at most one for 16 keys of a staged tile,
         * so that the nested scatter writes 16 keys a bucket a tile on
         * average (pairs at 2^28 with 8 took 1.07x where u32 keys with 16
         * took 0.92x, entry 114); else longer windows. */
        uint64_t most_nested = staged_tile / 16u < nested_splitters + 1u ? staged_tile / 16u : nested_splitters + 1u;
        uint64_t average_bucket = info->count / buckets;
        window_log = tuning->partition_nested_tile_log;
        while (window_log < tuning->tile_log &&
               (window_log < tuning->merge_chunk_log || ((uint64_t)1 << window_log) * most_nested < 2u * average_bucket))
            ++window_log;
        /* Each window below the tile is sorted by a pipeline built for its
         * length (sorter_variant.nested_tile_sort_pipelines): one built for a
         * shorter run left the second half of each window unsorted
         * (docs/perf-log.md, entry 118). Longer ones take the whole tile. */
        if (window_log >= tuning->partition_nested_tile_log + NESTED_WINDOW_LOGS)
            window_log = tuning->tile_log;
        plan->nested_splitters = nested_splitters;
        /* A workgroup for about 8 scatter tiles of an average bucket. */
        uint64_t average_tiles = info->count / buckets / staged_tile;
        plan->nested_groups = (uint32_t)(average_tiles / 8u < 1u ? 1u : average_tiles / 8u > 64u ? 64u : average_tiles / 8u);
    }
    plan->window_log = window_log;
    plan->window_three_pieces = plan->nested || buckets * ((uint64_t)1 << window_log) < 2u * info->count;
    plan->window_split_by_thread =
        plan->window_three_pieces && info->count >= tuning->partition_split_by_thread_min_keys;
    plan->splitter_count = (uint32_t)(buckets - 1u);
    plan->sample_count = (uint32_t)samples;
    /* Count workgroups: at least 4 keys a thread, at most partition_workgroups
     * of them (each adds its counts to the totals), and no more than a
     * dispatch's x dimension surely holds (the count is one row). */
    uint32_t threads = tuning->partition_workgroup_size;
    uint64_t groups = (info->count + (uint64_t)threads * 4u - 1u) / ((uint64_t)threads * 4u);
    if (groups > tuning->partition_workgroups)
        groups = tuning->partition_workgroups;
    if (groups > 65535u)
        groups = 65535u;
    uint64_t chunk = (info->count + groups - 1u) / groups;
    chunk = (chunk + threads - 1u) / threads * threads;
    plan->partition_chunk_keys = (uint32_t)chunk;
    plan->partition_groups = (uint32_t)((info->count + chunk - 1u) / chunk);
    /* The words: arguments and verdict (8), the buckets' totals and claims,
     * the splitters as the count found them (3 words each, for the scatter);
     * the window merge's table, bound on its own (merge_pass.comp,
     * BUCKET_WINDOWS): 5 words a chunk, then 2 a window boundary (runs + 1 of
     * them). */
    uint64_t bucket_words = 2u * (uint64_t)plan->splitter_count + 1u;
    VkDeviceSize words_bytes = (8u + 2u * bucket_words + 3u * (uint64_t)plan->splitter_count) * 4u;
    uint64_t chunk_keys = (uint64_t)1 << tuning->merge_chunk_log;
    uint64_t window_chunks = (info->count + chunk_keys - 1u) / chunk_keys;
    uint64_t runs = (info->count + ((uint64_t)1 << window_log) - 1u) >> window_log;
    if (window_log < tuning->merge_chunk_log)
        return;  /* a chunk lies inside one run */
    /* The fallback selects in up to every run at once: for its first target
     * two bounds and a probe a run in the buckets' and cells' shared arrays,
     * for its second three words a run in the scatter's tile of words
     * (partition_pass.comp, fallback_step). Buckets of a window on average
     * make about as many runs as buckets: 513 at 2^22 + 1 keys. */
    uint64_t fallback_runs = 2u * (uint64_t)tuning->partition_max_splitters + 1u;
    uint64_t tile_words = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    /* (A nested partition's fallback spans the segments it touches; where
     * those span more runs, it selects in batches of runs, slower.) */
    if (!plan->nested && (runs > fallback_runs || 3u * runs > tile_words))
        return;
    plan->window_chunks = (uint32_t)window_chunks;
    plan->windows_at = align_up(words_bytes, sorter->storage_alignment);
    plan->window_table_bytes = (5u * window_chunks + 2u * (runs + 1u)) * 4u;
    plan->samples_at = align_up(plan->windows_at + plan->window_table_bytes, sorter->storage_alignment);
    plan->sample_values_at = align_up(plan->samples_at + samples * plan->key_bytes, sorter->storage_alignment);
    plan->nested_scratch_at = align_up(plan->sample_values_at + (info->values != VK_NULL_HANDLE ? samples * 4u : 0u),
                                       sorter->storage_alignment);
    plan->partition_at = align_up(plan->scratch_bytes, sorter->storage_alignment);
    bitonic_vulkan_sort_info nested = samples_sort_info(info, plan);
    nested.keys = info->keys;  /* the scratch is not given yet when its size is asked */
    nested.values = info->values;
    nested.scratch = VK_NULL_HANDLE;
    nested.scratch_offset = 0;
    sort_plan nested_plan;
    if (sorter_plan_sort_runs(sorter, &nested, true, 0, false, &nested_plan) != BITONIC_SUCCESS)
        return;
    plan->partition_bytes = plan->nested_scratch_at + nested_plan.scratch_bytes;
    if (plan->nested) {
        /* partition_pass.comp, segment_at: the first buckets' starts, then
         * 7P + 4 words a first bucket. */
        uint64_t first_buckets = 2u * (uint64_t)plan->splitter_count + 1u;
        plan->nested_at = align_up(plan->partition_bytes, 4u);
        plan->partition_bytes =
            plan->nested_at + (first_buckets + first_buckets * (7u * (uint64_t)plan->nested_splitters + 4u)) * 4u;
    }
    /* The passes: the schedule's tile sort and merges to the window, then the
     * window merge, a merge of runs of W that takes no tail (its chunks and
     * pipelines are record_partition_sort's). */
    plan->nested_tile = window_log < tuning->tile_log;
    plan->level_merges = plan->nested_tile ? 0u : window_log - tuning->tile_log;
    if (plan->nested_tile) {  /* the tile pass on the nested tile */
        plan->passes[0].last_phase = window_log;
        plan->passes[0].group_count = (uint32_t)runs;
    }
    uint32_t pass_count = 1u + plan->level_merges;
    plan->passes[pass_count++] = (bitonic_pass){.kind = BITONIC_PASS_MERGE, .phase = window_log,
                                                .stride_log = window_log - 1u, .last_phase = window_log,
                                                .group_count = (uint32_t)runs};
    plan->pass_count = pass_count;
    /* Sample, the samples' sort (one pass for the profile, whatever it
     * records), count, scatter; the tile sort; each merge level and its split
     * pass; the window merge and its split pass; the fallback. */
    uint32_t level_splits = plan->split_pass ? plan->level_merges : 0u;
    plan->dispatch_count = (plan->sample_runs_log > 0 ? 3u : 4u) + 1u + plan->level_merges + level_splits + 2u + 1u +
                           (plan->nested ? 3u : 0u);
    plan->scratch_bytes = plan->partition_at + plan->partition_bytes;
    /* Packed pairs: 8n bytes more where there are merge levels, which
     * ping-pong with the scatter's packed pairs in the scratch's first 8n
     * (the keys and values sections: the values start at or past 4n). */
    plan->packed_pairs = sorter->pack_pairs && plan->variant_number == PAIRS32 && !plan->nested &&
                         info->count <= sorter->bound_max_keys / 2u;  /* a packed side is one binding */
    plan->packed_at = 0;
    if (plan->packed_pairs && plan->level_merges > 0) {
        VkDeviceSize alignment = sorter->storage_alignment < 16u ? 16u : sorter->storage_alignment;
        plan->packed_at = align_up(plan->scratch_bytes, alignment);
        plan->scratch_bytes = plan->packed_at + (VkDeviceSize)info->count * 8u;
    }
    plan->partition = true;
}

/* The push constants of partition_pass.comp (PartitionParams), within the
 * pipeline layout's range. */
typedef struct partition_push_constants {
    uint32_t count, step, key_xor, key_type;
    uint32_t sample_count, splitters, chunk_keys, window;
    uint32_t samples_at, sample_values_at;
    uint32_t fallback_groups_x, fallback_groups_y;
    uint32_t straddles_at;
    uint32_t sample_runs_log;
    uint32_t longest;
    uint32_t flags;              /* PARTITION_FLAG_* */
    uint32_t scatter_tile;
    uint32_t nested_at;          /* words into the partition's: the nested table (0: not nested) */
    uint32_t nested_splitters;
} partition_push_constants;
_Static_assert(sizeof(partition_push_constants) <= sizeof(pass_push_constants), "the pipeline layout's range");

enum {
    PARTITION_SAMPLE = 0,
    PARTITION_COUNT = 1,
    PARTITION_SCATTER = 2,
    PARTITION_FALLBACK = 3,
    PARTITION_NESTED_SAMPLE = 4,
    PARTITION_NESTED_COUNT = 5,
    PARTITION_NESTED_SCATTER = 6
};
/* partition_pass.comp's FLAG_*. */
enum { PARTITION_FLAG_PACKED_PAIRS = 1, PARTITION_FLAG_FALLBACK_IN_BATCHES = 2 };

/* The keys a tile of the scatter takes: its staged tile, or, for keys of at
 * most 8 bytes with their values (whose tile is twice as long as before,
 * partition_pass.comp's PLACES_BY_SEARCH), half of it where that takes fewer
 * rounds of its workgroups by more than a tile twice as long costs. A tile's cost is mostly
 * its chain of barriers and claims, whatever its keys: on the H200 a tile of
 * 8192 u32 keys took 1.69x one of 4096, so the scatter of 2^26 keys was 15%
 * faster with the longer tiles, but that of 1.5 x 2^20 keys (192 tiles, two
 * rounds of 132 workgroups, against three of 384 tiles) 9% slower
 * (docs/perf-log.md, entry 93). Costs taken as 17 against 10. Half
 * tiles go to a pipeline of their own (partition_half_scatter_pipeline) that
 * stores each staged key's place, as before the long tiles (entry 94); for
 * pairs and 64-bit keys that is the tile of 2048 they had before entry 95
 * (halved to 1024 keys, their scatter of 1.5 x 2^18 was 15-20% slower). */
static uint64_t scatter_tile_for(uint64_t count, const bitonic_tuning *tuning)
{
    uint64_t staged_tile = (uint64_t)tuning->partition_workgroup_size * tuning->partition_scatter_keys;
    uint64_t half = staged_tile / 2u, workgroups = tuning->partition_scatter_workgroups;
    if (!partition_halves_tiles(tuning) || workgroups == 0)
        return staged_tile;
    uint64_t tiles = (count + staged_tile - 1u) / staged_tile, half_tiles = (count + half - 1u) / half;
    uint64_t rounds = (tiles + workgroups - 1u) / workgroups, half_rounds = (half_tiles + workgroups - 1u) / workgroups;
    return 10u * half_rounds < 17u * rounds ? half : staged_tile;
}

/* Where partition_pass.comp's scatter leaves the fallback's dispatch size
 * (FALLBACK_ARGS_AT there). */
#define PARTITION_FALLBACK_ARGS_BYTES 0u

/* Records a sort planned as a partition sort (plan->partition), with its
 * timestamps, as bitonic_vulkan_record_sort() does for the others:
 * 1. sample the keys and sort the samples (the sort of few keys, recorded
 *    here without timestamps of its own);
 * 2. count the keys by bucket, then scatter them from the caller's side to
 *    the scratch's (each scatter workgroup sums the buckets' totals into
 *    their starts itself);
 * 3. the tile sort and the merges up to windows of W keys;
 * 4. the window merge into the caller's side: its split pass finds each
 *    chunk's cursors in the runs around it from the scatter's window boundaries,
 *    and each chunk merges its pieces of three runs (merge_pass.comp,
 *    BUCKET_WINDOWS);
 * 5. the fallback, an indirect dispatch that the scatter gives workgroups only
 *    where an open bucket is longer than W: they remake the chunks of the
 *    caller's side that such buckets touch from the runs of W. */
bitonic_status sorter_record_partition_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_sort_info *info, const sort_plan *plan)
{
    bool with_values = info->values != VK_NULL_HANDLE;
    const sorter_variant *variant = &sorter->variants[plan->variant_number];
    const bitonic_tuning *tuning = &variant->tuning;
    uint32_t key_bytes = plan->key_bytes;
    uint32_t group_x[BITONIC_SCHEDULE_MAX_PASSES], group_y[BITONIC_SCHEDULE_MAX_PASSES];
    uint32_t split_x = 0, split_y = 0;
    if (!sorter_plan_grids(sorter, plan, group_x, group_y, &split_x, &split_y))
        return BITONIC_ERROR_TOO_LARGE;
    /* The window merge's grid, and its split pass's: a workgroup a chunk
     * where its threads search three pieces together, else a thread a chunk
     * (the three-piece pipeline's workgroups have WINDOW_SPLIT_THREADS); a
     * thread a chunk in three pieces takes two such grids, one for the
     * cursors in place or in two pieces and one for those in three
     * (merge_pass.comp, ROLE_TWO_PIECES and ROLE_THREE_PIECES). */
    uint32_t window_chunks = plan->window_chunks;
    uint32_t window_x, window_y, window_split_x, window_split_y;
    uint32_t split_threads = tuning->merge_split_workgroup_size;
    if (plan->window_three_pieces && split_threads > WINDOW_SPLIT_THREADS)
        split_threads = WINDOW_SPLIT_THREADS;
    uint32_t split_groups_wanted = (window_chunks + split_threads - 1u) / split_threads;
    if (plan->window_three_pieces)
        split_groups_wanted = plan->window_split_by_thread ? 2u * split_groups_wanted : window_chunks;
    if (!sorter_split_groups(sorter, window_chunks, &window_x, &window_y) ||
        !sorter_split_groups(sorter, split_groups_wanted, &window_split_x, &window_split_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t threads = tuning->partition_workgroup_size;
    /* The scatter's staged tile: SCATTER_KEYS a thread in partition_pass.comp. */
    uint64_t scatter_tile = (uint64_t)threads * tuning->partition_scatter_keys;
    uint64_t scatter_run_tile = scatter_tile_for(info->count, tuning);
    uint64_t scatter_groups = (info->count + scatter_run_tile - 1u) / scatter_run_tile;
    if (scatter_groups > tuning->partition_scatter_workgroups)
        scatter_groups = tuning->partition_scatter_workgroups;
    uint32_t scatter_x, scatter_y;
    if (!sorter_split_groups(sorter, scatter_groups, &scatter_x, &scatter_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint64_t fallback_chunk = staged_power_of_two(tuning);
    uint32_t fallback_x, fallback_y;
    if (!sorter_split_groups(sorter, (info->count + fallback_chunk - 1u) / fallback_chunk, &fallback_x, &fallback_y))
        return BITONIC_ERROR_TOO_LARGE;
    uint32_t reach = plan->sample_count > 2u * plan->splitter_count + 1u ? plan->sample_count
                                                                          : 2u * plan->splitter_count + 1u;

    bool timed = info->timestamps != VK_NULL_HANDLE;
    if (timed)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, info->timestamps, info->first_query);
    VkDescriptorBufferInfo count_binding = {info->keys, info->keys_offset, 4u};  /* unread: no count buffer */
    VkDescriptorBufferInfo caller_keys = {info->keys, info->keys_offset, (VkDeviceSize)info->count * key_bytes};
    VkDescriptorBufferInfo caller_values = {info->values, info->values_offset, (VkDeviceSize)info->count * 4u};
    VkDescriptorBufferInfo side_keys[2], side_values[2];
    side_keys[0] = caller_keys;
    side_values[0] = caller_values;
    side_keys[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset, side_keys[0].range};
    side_values[1] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_values_at,
                                              side_values[0].range};
    /* Packed pairs (plan->packed_pairs): the tile sort, the merges and the
     * window split pass are KEYS64's, without values, on the scratch's two
     * sides of 8n bytes (side 1 where the scatter writes, side 0 at
     * packed_at); the window merge and the fallback read packed pairs and
     * write the caller's keys and values. */
    bool packed = plan->packed_pairs;
    const sorter_variant *runs_variant = packed ? &sorter->variants[KEYS64] : variant;
    bool runs_values = with_values && !packed;
    uint32_t runs_key_type = packed ? (uint32_t)BITONIC_KEY_U64 : (uint32_t)info->key_type;
    uint32_t runs_key_xor = packed || info->order != BITONIC_ORDER_DESCENDING ? 0u : UINT32_MAX;
    if (packed) {
        side_keys[1].range = (VkDeviceSize)info->count * 8u;
        side_keys[0] = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->packed_at,
                                                side_keys[1].range};
        side_values[0] = side_keys[0];
        side_values[1] = side_keys[1];
    }
    VkDescriptorBufferInfo splits = count_binding;
    if (plan->splits_bytes > 0)
        splits = (VkDescriptorBufferInfo){info->scratch, info->scratch_offset + plan->scratch_splits_at,
                                          plan->splits_bytes};
    VkDeviceSize partition_offset = info->scratch_offset + plan->partition_at;
    VkDescriptorBufferInfo partition = {info->scratch, partition_offset, plan->partition_bytes};
    VkDescriptorBufferInfo window_table = {info->scratch, partition_offset + plan->windows_at,
                                           plan->window_table_bytes};
    dispatch_recorder recorder = sorter_dispatch_recorder_for(command_buffer, variant, info);
    /* Bytes for the profile's pass details: the keys read, and every key and
     * value read and written. */
    uint64_t keys_read = info->count * key_bytes;
    uint64_t moved = sorter_bytes_moved(info->count, key_bytes, with_values);
    uint64_t samples_read = (uint64_t)plan->sample_count * (key_bytes + (with_values ? 4u : 0u));

    /* 1. The samples, and their sort. */
    partition_push_constants steps = {
        .count = (uint32_t)info->count, .step = PARTITION_SAMPLE,
        .key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u, .key_type = (uint32_t)info->key_type,
        .sample_count = plan->sample_count, .splitters = plan->splitter_count,
        .chunk_keys = plan->partition_chunk_keys, .window = 1u << plan->window_log,
        .samples_at = (uint32_t)(plan->samples_at / 4u), .sample_values_at = (uint32_t)(plan->sample_values_at / 4u),
        .fallback_groups_x = fallback_x, .fallback_groups_y = fallback_y,
        .straddles_at = (uint32_t)((plan->windows_at / 4u) + 5u * (VkDeviceSize)window_chunks),
        .sample_runs_log = plan->sample_runs_log,
        .longest = plan->window_three_pieces ? 2u << plan->window_log : 1u << plan->window_log,
        .flags = (packed ? PARTITION_FLAG_PACKED_PAIRS : 0u) |
                 (tuning->partition_fallback_in_batches ? PARTITION_FLAG_FALLBACK_IN_BATCHES : 0u),
        .scatter_tile = (uint32_t)scatter_run_tile,
        .nested_at = plan->nested ? (uint32_t)(plan->nested_at / 4u) : 0u,
        .nested_splitters = plan->nested ? plan->nested_splitters : 0u};
    sort_sides caller_to_scratch = {caller_keys, caller_values, side_keys[1], side_values[1]};
    sorter_push_sort_bindings(sorter, command_buffer, variant, with_values, caller_to_scratch, count_binding,
                              partition);
    /* With runs, a workgroup a run (the step sorts them); else a thread a sample. */
    uint32_t sample_groups = plan->sample_runs_log > 0 ? 1u << plan->sample_runs_log : (reach + threads - 1u) / threads;
    sorter_name_pass(&recorder, "sample", samples_read);
    sorter_record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, sample_groups, 1u);
    sorter_record_pass_barrier(command_buffer);
    if (plan->sample_runs_log == 0) {
        bitonic_vulkan_sort_info samples = samples_sort_info(info, plan);
        bitonic_status sorted = sorter_record_sort_passes(sorter, command_buffer, &samples, 0, false);
        if (sorted != BITONIC_SUCCESS)
            return sorted;
        sorter_name_pass(&recorder, "samples' sort", 2u * samples_read);
        sorter_finish_dispatch(&recorder);  /* the samples' sort as one pass of the profile */
        sorter_record_pass_barrier(command_buffer);
        recorder.bound = VK_NULL_HANDLE;  /* the samples' sort bound its own */
    }

    /* 2. Count, scatter. */
    sorter_push_sort_bindings(sorter, command_buffer, variant, with_values, caller_to_scratch, count_binding,
                              partition);
    steps.step = PARTITION_COUNT;
    sorter_name_pass(&recorder, "count", keys_read);
    sorter_record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->partition_groups, 1u);
    sorter_record_pass_barrier(command_buffer);
    steps.step = PARTITION_SCATTER;
    VkPipeline scatter_pipeline = scatter_run_tile < scatter_tile ? variant->partition_half_scatter_pipeline
                                                                  : variant->partition_pipeline;
    sorter_name_pass(&recorder, "scatter", moved);
    sorter_record_dispatch(&recorder, scatter_pipeline, &steps, sizeof steps, scatter_x, scatter_y);
    sorter_record_indirect_barrier(command_buffer);  /* its workgroup 0 wrote the fallback's dispatch size */

    /* 2b. The nested partition: a row of workgroups a bucket of the first;
     * its sample step, then its count and scatter from side 1 (the first
     * scatter's) into side 0 on the staged tile's whole pipeline. */
    if (plan->nested) {
        uint32_t first_buckets = 2u * plan->splitter_count + 1u;
        sorter_push_sort_bindings(sorter, command_buffer, variant, with_values,
                                  (sort_sides){side_keys[1], side_values[1], side_keys[0], side_values[0]},
                                  count_binding, partition);
        steps.sample_count = tuning->partition_samples_per_bucket;
        steps.scatter_tile = (uint32_t)scatter_tile;
        steps.step = PARTITION_NESTED_SAMPLE;
        sorter_name_pass(&recorder, "nested sample", 0u);
        sorter_record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, 1u, first_buckets);
        sorter_record_pass_barrier(command_buffer);
        steps.step = PARTITION_NESTED_COUNT;
        sorter_name_pass(&recorder, "nested count", keys_read);
        sorter_record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->nested_groups,
                               first_buckets);
        sorter_record_pass_barrier(command_buffer);
        steps.step = PARTITION_NESTED_SCATTER;
        sorter_name_pass(&recorder, "nested scatter", moved);
        sorter_record_dispatch(&recorder, variant->partition_pipeline, &steps, sizeof steps, plan->nested_groups,
                               first_buckets);
        sorter_record_indirect_barrier(command_buffer);  /* the fallback's dispatch size again */
    }

    /* 3-5. The tile sort reads the scattered keys (side 1, or side 0 after
     * the nested scatter) and writes the side that leaves the window merge
     * writing side 0. */
    uint32_t scattered_side = plan->nested ? 0u : 1u;
    uint32_t merge_count = plan->pass_count - 1u;
    uint32_t write_side = merge_count % 2u, read_side = 1u;
    bool aligned = packed ? info->scratch_offset % 16u == 0
                          : info->keys_offset % 16u == 0 && (!with_values || info->values_offset % 16u == 0) &&
                                info->scratch_offset % 16u == 0 &&
                                (info->scratch_offset + plan->scratch_values_at) % 16u == 0;
    recorder.layout = runs_variant->pipeline_layout;
    bool merge_vector_io = aligned && tuning->merge_vector_io;
    bool samples_left = false;
    for (uint32_t p = 0; p < plan->pass_count; ++p) {
        const bitonic_pass *pass = &plan->passes[p];
        bool window = p + 1u == plan->pass_count;
        if (pass->kind == BITONIC_PASS_MERGE) {
            read_side = write_side;
            write_side = 1u - read_side;
        }
        sort_sides sides = {side_keys[read_side], side_values[read_side], side_keys[write_side],
                            side_values[write_side]};
        if (p == 0)  /* the tile sort: the scattered side in place, or into the other */
            sides = (sort_sides){side_keys[scattered_side], side_values[scattered_side], side_keys[write_side],
                                 side_values[write_side]};
        sorter_push_sort_bindings(sorter, command_buffer, runs_variant, runs_values, sides, count_binding,
                                  window ? window_table : splits);
        pass_push_constants constants = {
            .count = (uint32_t)info->count, .phase = pass->phase, .stride_log = pass->stride_log,
            .last_phase = pass->last_phase, .group_count = pass->group_count,
            .key_xor = runs_key_xor,
            .key_type = runs_key_type,
            .count_offset = NO_COUNT_BUFFER,
            .output_buffer = p == 0 && write_side != scattered_side ? 1u : 0u,
            .vector_io = (p == 0 ? aligned && tuning->tile_vector_io : merge_vector_io) ? 1u : 0u,
        };
        if (p == 0) {
            if (plan->run_samples && sorter_sorts_tile_by_merging(runs_variant, pass) &&
                pass->last_phase == tuning->tile_log) {
                constants.sample_runs = MERGE_SAMPLES_WRITE;
                samples_left = true;
            }
            sorter_name_pass(&recorder, "tile sort", moved);
            VkPipeline tile_sort = plan->nested_tile
                                       ? runs_variant->nested_tile_sort_pipelines[NESTED_WINDOW_STEP(plan, tuning)]
                                       : sorter_tile_pipeline_for(runs_variant, pass);
            sorter_record_dispatch(&recorder, tile_sort, &constants, sizeof constants, group_x[0], group_y[0]);
            sorter_record_pass_barrier(command_buffer);
            continue;
        }
        if (window) {
            /* Runs of W (phase: log2 W), a cursor of five runs a chunk,
             * found by a split pass whatever the plan. Packed pairs' window
             * merge is PAIRS32's pipeline: it writes the caller's keys and
             * values apart, the keys back to their type and order. */
            constants.phase = plan->window_log;
            constants.group_count = window_chunks;
            /* Its two pieces' searches guided by the keys' values where the
             * plan's merges' are: at 2^22 keys a guided window split pass took
             * 0.0142 ms on the H100, a plain one 0.0090 (docs/perf-log.md, entry 57). */
            constants.sample_runs = plan->split_search == SPLIT_SEARCH_GUIDED ? MERGE_SAMPLES_GUIDED : 0u;
            if (plan->window_split_by_thread)
                constants.sample_runs |= MERGE_SPLIT_BY_THREAD;
            sorter_name_pass(&recorder, "window split", 0u);
            sorter_record_dispatch(&recorder, runs_variant->window_split_pipeline[plan->window_three_pieces],
                                   &constants, sizeof constants, window_split_x, window_split_y);
            sorter_record_pass_barrier(command_buffer);
            constants.sample_runs = 0u;
            VkPipeline window_merge = runs_variant->window_merge_pipeline[plan->window_three_pieces];
            if (packed) {
                window_merge = variant->window_unpack_pipeline[plan->window_three_pieces];
                recorder.layout = variant->pipeline_layout;
                sorter_push_sort_bindings(sorter, command_buffer, variant, true,
                                          (sort_sides){side_keys[1], side_values[1], caller_keys, caller_values},
                                          count_binding, window_table);
                constants.key_type = (uint32_t)info->key_type;
                constants.key_xor = info->order == BITONIC_ORDER_DESCENDING ? UINT32_MAX : 0u;
            }
            sorter_name_pass(&recorder, "window merge", moved);
            sorter_record_dispatch(&recorder, window_merge, &constants, sizeof constants, window_x, window_y);
            continue;
        }
        constants.group_count = plan->chunk_count;
        dispatch_size split = {split_x, split_y, VK_NULL_HANDLE, 0};
        dispatch_size merge = {group_x[p], group_y[p], VK_NULL_HANDLE, 0};
        samples_left = sorter_record_two_run_merge(&recorder, runs_variant, plan, pass, constants, samples_left,
                                                   plan->run_samples && p + 2u < plan->pass_count, split, merge);
        sorter_record_pass_barrier(command_buffer);
    }
    /* 5. The fallback: from the runs of W (side 1) into the caller's side,
     * where the window merge has written (packed pairs: the runs' pairs
     * through PackedIn, the 16-byte view's binding). */
    sorter_record_pass_barrier(command_buffer);
    recorder.layout = variant->pipeline_layout;
    sorter_push_sort_bindings(sorter, command_buffer, variant, with_values,
                              (sort_sides){side_keys[1], side_values[1], caller_keys, caller_values}, count_binding,
                              partition);
    steps.step = PARTITION_FALLBACK;
    sorter_name_pass(&recorder, "fallback", 0u);  /* no workgroups unless a bucket is too long */
    sorter_record_dispatch_indirect(&recorder, variant->partition_pipeline, &steps, sizeof steps, info->scratch,
                                    partition_offset + PARTITION_FALLBACK_ARGS_BYTES);
    if (timed && !info->profile_passes)
        vkCmdWriteTimestamp(command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, info->timestamps,
                            info->first_query + 1u);
    return BITONIC_SUCCESS;
}
