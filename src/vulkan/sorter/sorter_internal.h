/* sorter_internal.h: the Vulkan sorter's shared types (the variants and their
 * pipelines, the push constants and bindings of the sort kernels, the sorter,
 * a sort's plan, the dispatch recorder) and what the files of src/vulkan/sorter/
 * and vk_sorter.c call in one another. Private to the library. */
#ifndef BITONIC_SORTER_INTERNAL_H
#define BITONIC_SORTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bitonic_tuning_overrides.h"
#include "schedule.h"
#include "vk_internal.h"

/* Pipelines for 32- and 64-bit keys, each with and without values, a second
 * set for small sorts of 32-bit keys (bitonic_tuning_derive_small), and the
 * first four again with device addresses (sorts past the largest binding). */
enum {
    KEYS32 = 0, PAIRS32 = 1, KEYS64 = 2, PAIRS64 = 3, KEYS32_SMALL = 4,
    KEYS32_WIDE = 5, PAIRS32_WIDE = 6, KEYS64_WIDE = 7, PAIRS64_WIDE = 8, VARIANT_COUNT = 9
};

static inline int variant_index(bool key64, bool with_values)
{
    return (key64 ? KEYS64 : KEYS32) + (with_values ? 1 : 0);
}

static inline int wide_variant_index(bool key64, bool with_values)
{
    return KEYS32_WIDE + variant_index(key64, with_values);
}

static inline bool is_key64(bitonic_key_type type)
{
    return type == BITONIC_KEY_U64 || type == BITONIC_KEY_I64 || type == BITONIC_KEY_F64;
}

typedef struct pass_push_constants {
    uint32_t count;
    uint32_t phase;
    uint32_t stride_log;
    uint32_t last_phase;
    uint32_t group_count;
    uint32_t key_xor;
    uint32_t key_type;
    uint32_t row_log;
    uint32_t row_length;
    uint32_t count_offset;
    uint32_t output_buffer;
    uint32_t splits_given;
    uint32_t vector_io;
    uint32_t view_column_log;
    uint32_t view_row_log;
    uint32_t view_rows_used;
    uint32_t view_mirror_phase;
    uint32_t view_forward;
    uint32_t sample_runs;   /* merge: leave run samples after the splits; split pass: read them */
} pass_push_constants;

/* The push constants of the device-address kernels (WIDE_ADDRESSING in
 * shaders/network.glsl): the same, then the count's high word and where the
 * pass reads and writes. 120 bytes, inside the 128 every device offers. */
typedef struct wide_push_constants {
    pass_push_constants pass;
    uint32_t count_high;
    VkDeviceAddress keys_address;
    VkDeviceAddress values_address;
    VkDeviceAddress keys_out_address;
    VkDeviceAddress values_out_address;
    VkDeviceAddress splits_address;
} wide_push_constants;
_Static_assert(offsetof(wide_push_constants, keys_address) == 80 && sizeof(wide_push_constants) == 120,
               "the layout of PassParams in shaders/network.glsl");

/* The bindings of every sort pipeline (shaders/network.glsl); the values ones
 * only with values. */
enum {
    KEYS_BINDING = 0,
    VALUES_BINDING = 1,
    COUNT_BINDING = 2,
    KEYS_OUT_BINDING = 3,
    VALUES_OUT_BINDING = 4,
    SPLITS_BINDING = 5,
    KEYS_VECTOR_BINDING = 6,      /* keys and values again, as uvec4 (merge_pass.comp) */
    KEYS_OUT_VECTOR_BINDING = 7,
    VALUES_VECTOR_BINDING = 8,
    VALUES_OUT_VECTOR_BINDING = 9,
    MAX_SORT_BINDINGS = 10,
};
#define NO_COUNT_BUFFER UINT32_MAX
/* Probes a split-pass thread may be asked to test a round
 * (bitonic_vulkan_sorter_desc.merge_split_probes): more are clamped to it. */
#define MAX_SPLIT_PROBES 7u
/* The bits of a merge's sample_runs (SAMPLES_* in shaders/run_samples.glsl):
 * leave run samples; search this merge's splits on the ones the pass before
 * left; by guided searches. A split pass takes 1: read the samples; the tile
 * merge sort 1: leave them. */
#define MERGE_SAMPLES_WRITE 1u
#define MERGE_SAMPLES_SEARCH 2u
#define MERGE_SAMPLES_GUIDED 4u
/* The window split pass's cursors in three pieces by a thread each
 * (SPLIT_BY_THREAD in merge_pass.comp). */
#define MERGE_SPLIT_BY_THREAD 8u
/* Threads of the window split pass's workgroups, a chunk each, at most: each
 * tests a position a round of their searches (merge_pass.comp,
 * window_split_three). */
#define WINDOW_SPLIT_THREADS 32u
/* Run samples: one key of every 2^RUN_SAMPLE_LOG (SAMPLE_LOG in merge_pass.comp). */
#define RUN_SAMPLE_LOG 5u
#define RUN_SAMPLE_KEYS (1u << RUN_SAMPLE_LOG)
/* The nested partition's window lengths with a tile sort pipeline of their
 * own: the nested tile and up to three doublings of it; a longer window takes
 * the whole tile. */
#define NESTED_WINDOW_LOGS 4u
/* The entry of sorter_variant.nested_tile_sort_pipelines a plan's window takes. */
#define NESTED_WINDOW_STEP(plan, tuning) ((plan)->window_log - (tuning)->partition_nested_tile_log)
/* The tile merge sort takes a group's first and last key from a thread's first
 * and last register: a thread's keys must divide the group. */
_Static_assert(BITONIC_MAX_STEP_GROUP_LOG <= RUN_SAMPLE_LOG, "keys a thread, at most one sample group");

/* The bindings that only pipelines with values have. */
static inline bool is_values_binding(uint32_t binding)
{
    return binding == VALUES_BINDING || binding == VALUES_OUT_BINDING || binding == VALUES_VECTOR_BINDING ||
           binding == VALUES_OUT_VECTOR_BINDING;
}

typedef struct sorter_variant {
    bool available;                 /* 64-bit variants need shaderInt64 (enable_64bit_keys) */
    bool with_values, key64;
    bool pairs_as_int64;            /* pairs of 32-bit keys compared as one 64-bit integer (values_i64) */
    bool wide;                      /* device addresses: only the Count binding, wide push constants */
    bitonic_tuning tuning;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkPipeline tile_pipeline;
    VkPipeline tile_sort_pipeline;  /* tile passes from phase 1 (tuning.tile_merge_sort) */
    VkPipeline short_tile_sort_pipeline;  /* the same on tiles of 2^tuning.short_tile_log keys */
    /* On the nested partition's windows: [0] on its tile
     * (tuning.partition_nested_tile_log), [w] on windows 2^w times as long,
     * below the whole tile (sorter/partition.c lengthens windows where the
     * nested buckets would be long). */
    VkPipeline nested_tile_sort_pipelines[NESTED_WINDOW_LOGS];
    /* The same two for passes that place a tail (bitonic_pass.tile_tail): the
     * tail's code is specialised away in the others, which it made up to 5%
     * slower on the H100 (docs/perf-log.md, entry 71). */
    VkPipeline tile_sort_tail_pipeline;
    VkPipeline short_tile_sort_tail_pipeline;
    VkPipeline global_pipelines[BITONIC_MAX_STEP_GROUP_LOG + 1];  /* by steps per pass */
    VkPipeline merge_pipeline;
    /* The direct merge, for sorts of up to tuning.merge_direct_max_keys where
     * merge_pipeline merges through shared memory. */
    VkPipeline merge_direct_pipeline;
    /* merge_pipeline's kernel with TAKES_TAIL: the last merge of a sort of
     * 2^q + m keys, which takes the m in (bitonic_pass.last_phase). */
    VkPipeline merge_tail_pipeline;
    VkPipeline merge_split_pipeline;  /* the splits of a big merge, in a dispatch of their own */
    /* The same searching binary, for merges of more than
     * tuning.merge_split_probes_max_chunks chunks (tuning.c says why). */
    VkPipeline merge_split_binary_pipeline;
    /* ... and the one that guesses from key values, in merges of at least
     * tuning.merge_split_guided_min_chunks chunks (tuning.c says why). */
    VkPipeline merge_split_guided_pipeline;
    VkPipeline transpose_pipeline;    /* TRANSPOSE passes of the transpose strategy */
    VkPipeline partition_pipeline;    /* the partition sort's steps (partition_pass.comp) */
    /* Its scatter on half tiles (STORED_PLACES), for keys of at most 8
     * bytes with their values; VK_NULL_HANDLE where tiles are never halved. */
    VkPipeline partition_half_scatter_pipeline;
    /* The partition sort's window merge and its split pass: merge_pass.comp
     * with WINDOW_MERGE, which every other merge pipeline has false. */
    /* The window merge and its split pass, for buckets of up to a window [0]
     * and of up to two windows, which may span three runs [1]
     * (sort_plan.window_three_pieces). */
    VkPipeline window_merge_pipeline[2];
    VkPipeline window_split_pipeline[2];
    /* PAIRS32's alone: the window merge of packed pairs (sort_plan.packed_pairs),
     * KEYS64's kernel built with UNPACK_OUT, writing the caller's keys and
     * values apart; bound with this variant's layout, which has them. */
    VkPipeline window_unpack_pipeline[2];
} sorter_variant;

typedef struct search_push_constants {
    uint32_t count;
    uint32_t query_count;
    uint32_t key_xor;
    uint32_t key_type;
} search_push_constants;

#define SEARCH_BINDINGS 5u
#define SEARCH_WORKGROUP 64u

struct bitonic_vulkan_sorter {
    VkDevice device;
    bool capture_statistics;
    VkPipelineCache pipeline_cache;   /* the caller's; lazily built pipelines use it too */
    const VkAllocationCallbacks *allocator;
    PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
    bitonic_device_limits limits;
    uint32_t max_group_count[3];
    uint64_t max_keys;                /* 32-bit keys; half of it for 64-bit ones */
    uint64_t bound_max_keys;          /* the same through bound buffers (one binding covers the keys) */
    bool device_addresses;            /* the wide variants exist (enable_device_addresses) */
    bool force_device_addresses;      /* every sort they can take uses them (tests) */
    PFN_vkGetBufferDeviceAddress get_buffer_address;
    VkDeviceSize storage_alignment;   /* minStorageBufferOffsetAlignment: scratch sections start on it */
    bitonic_strategy strategy;        /* what the scratch is for: merging, transposing, or nothing */
    sorter_variant variants[VARIANT_COUNT];
    uint64_t small_sort_max_keys;   /* 32-bit key sorts up to this count use KEYS32_SMALL (0: none) */
    /* Partition sorts of pairs of 32-bit keys run packed, a pair one 64-bit
     * key, on KEYS64's pipelines between the scatter and the unpack
     * (pairs_pack_fits). */
    bool pack_pairs;
    VkDescriptorSetLayout search_set_layout;
    VkPipelineLayout search_pipeline_layout;
    VkPipeline search_pipeline;
    VkPipeline search_pipeline64;     /* VK_NULL_HANDLE without enable_64bit_keys */
};

/* The pipelines of a variant, each built once, when first needed (or all at
 * creation for an eager sorter). steps: a global pass of that many steps. */
typedef enum pipeline_kind {
    PIPELINE_TILE,
    PIPELINE_TILE_SORT,
    PIPELINE_SHORT_TILE_SORT,
    PIPELINE_NESTED_TILE_SORT,
    PIPELINE_GLOBAL,
    PIPELINE_MERGE,
    PIPELINE_MERGE_TAIL,
    PIPELINE_MERGE_DIRECT,
    PIPELINE_MERGE_SPLIT,
    PIPELINE_MERGE_SPLIT_BINARY,
    PIPELINE_MERGE_SPLIT_GUIDED,
    PIPELINE_TRANSPOSE,
    PIPELINE_PARTITION,
    PIPELINE_WINDOW_MERGE,
    PIPELINE_WINDOW_SPLIT,
    PIPELINE_WINDOW_UNPACK,
} pipeline_kind;

/* Whether the partition's scatter may take half tiles (scatter_tile_for):
 * keys whose staged tile holds no places (a key and its value in at most 8
 * bytes), and at least two keys a thread. */
static inline bool partition_halves_tiles(const bitonic_tuning *tuning)
{
    return tuning->partition_places_by_search && tuning->partition_scatter_keys >= 2u;
}

/* The dispatches of one recorded sort: the pipeline bound last (bound again
 * only when it changes) and, with profile_passes, a timestamp after each. */
typedef struct dispatch_recorder {
    VkCommandBuffer command_buffer;
    VkPipelineLayout layout;
    const bitonic_vulkan_sort_info *info;
    bool profile;                    /* info->timestamps set and info->profile_passes */
    VkPipeline bound;
    uint32_t count;                  /* dispatches recorded so far */
    /* With info->pass_details: the name and the bytes of the next dispatch
     * (sorter_name_pass), written to the details when it is recorded. */
    const char *next_name;
    uint64_t next_bytes;
} dispatch_recorder;

/* Names the next dispatch of a profiled sort and the bytes of device memory it
 * reads and writes (the keys and values it moves; tables and searches are not
 * counted), for bitonic_vulkan_sort_info.pass_details. */
static inline void sorter_name_pass(dispatch_recorder *recorder, const char *name, uint64_t bytes)
{
    recorder->next_name = name;
    recorder->next_bytes = bytes;
}

/* The bytes a pass moves that reads and writes count keys of key_bytes each
 * and, with values, their 32-bit values. */
static inline uint64_t sorter_bytes_moved(uint64_t count, uint32_t key_bytes, bool with_values)
{
    return 2u * count * (key_bytes + (with_values ? 4u : 0u));
}

/* What a sort of `info` records: checked once, then used both to record it and
 * to say how many passes (and so timestamps) it records. */
/* How a merge's split pass searches: k-ary rounds of tuning.merge_split_probes,
 * binary rounds, or probes placed by a guess from the keys' values. */
typedef enum split_search { SPLIT_SEARCH_PROBES, SPLIT_SEARCH_BINARY, SPLIT_SEARCH_GUIDED } split_search;

typedef struct sort_plan {
    int variant_number;
    uint32_t key_bytes;
    uint32_t row_log;
    uint64_t count;                  /* keys sorted (info->count) */
    /* Merging above the tile (one array larger than a tile): where its parts of
     * the scratch buffer lie, relative to scratch_offset, and how big it is. */
    bool merge;
    bool split_pass;                 /* each merge finds its splits in a dispatch of its own first */
    split_search split_search;       /* ... and which split pipeline it takes */
    bool run_samples;                /* merges leave run samples after the splits for the next split search */
    /* Merges after the first, with no split pass, find their splits in their
     * own workgroups on the run samples (tuning.merge_fused_split_min_chunks). */
    bool fused_split;
    bool wide;                       /* device addresses, 64-bit positions (record_wide_sort) */
    uint32_t chunk_count;
    VkDeviceSize scratch_values_at, scratch_splits_at, scratch_bytes;
    VkDeviceSize splits_bytes;       /* from scratch_splits_at: splits or cuts (0: none) */
    /* The transpose strategy: the scratch holds the view (keys, then values
     * from scratch_values_at), view_keys keys long. */
    bool transpose;
    uint64_t view_keys;
    uint32_t pass_count;             /* passes of the schedule */
    uint32_t dispatch_count;         /* what is recorded: a split pass adds one per merge */
    bitonic_pass passes[BITONIC_SCHEDULE_MAX_PASSES];
    /* The merges are direct (merge_pass.comp, DIRECT_MERGE): the variant's
     * merge, or a small sort's (tuning.merge_direct_max_keys). */
    bool merge_direct;
    /* One tile merge sort of a plain array of up to 2^short_tile_log keys:
     * its pass runs on the short tile (tuning.short_tile_log). */
    bool short_tile;
    /* The partition sort (plan_partition, record_partition_sort): the passes
     * are the tile sort, the merges up to windows of 2^window_log keys and the
     * window merge; the fallback, one indirect dispatch, comes after them. Its
     * words lie at partition_at in the scratch (bytes from scratch_offset),
     * partition_bytes long; in them the
     * samples from byte samples_at, their values from sample_values_at, the
     * scratch of the samples' sort from nested_scratch_at; the window merge's
     * table (its chunks' cursors and the window boundaries' buckets) from
     * windows_at, window_table_bytes long. */
    bool partition;
    uint32_t window_log;
    uint32_t window_chunks;
    /* Buckets of more than half a window on average: the window merge sorts
     * buckets of up to two windows, which may span three runs, where it
     * sorts those of up to a window else (a lighter kernel; the fallback
     * takes longer buckets). */
    bool window_three_pieces;
    /* Those cursors by one thread's selection each (merge_pass.comp,
     * window_split_by_selection), not by a workgroup's search: from
     * partition_split_by_thread_min_keys keys. */
    bool window_split_by_thread;
    uint32_t splitter_count, sample_count;
    /* The samples sorted in 2^this runs by the sample step itself, a
     * workgroup a run (0: whole, by the library's sort recorded after it). */
    uint32_t sample_runs_log;
    uint32_t partition_groups, partition_chunk_keys;
    uint32_t level_merges;
    /* The nested partition (tuning.partition_nested_min_levels): each open
     * bucket of more than the tile partitioned again by up to
     * nested_splitters splitters of its own, nested_groups workgroups a
     * bucket in its count and scatter, its table from byte nested_at of the
     * partition's words; windows of the nested tile (window_log, at most
     * tile_log: nested_tile where less, the tile pass on the nested tile's
     * pipeline). */
    bool nested, nested_tile;
    uint32_t nested_splitters, nested_groups;
    VkDeviceSize nested_at;
    VkDeviceSize partition_at, partition_bytes;
    VkDeviceSize samples_at, sample_values_at, nested_scratch_at;
    VkDeviceSize windows_at, window_table_bytes;
    /* Pairs of 32-bit keys packed (sorter.pack_pairs): the scatter writes a
     * pair as one 64-bit key (the ordered key above the value) into the
     * scratch's first 8n bytes, KEYS64's tile sort and merges ping-pong
     * between those and the 8n bytes from packed_at, and the unpack step
     * writes the caller's keys and values from there. */
    bool packed_pairs;
    VkDeviceSize packed_at;
} sort_plan;

static inline VkDeviceSize align_up(VkDeviceSize x, VkDeviceSize alignment)
{
    return (x + alignment - 1u) / alignment * alignment;
}

/* Where a pass reads its keys and values, and where it writes them. */
typedef struct sort_sides {
    VkDescriptorBufferInfo keys_in, values_in, keys_out, values_out;
} sort_sides;

/* Where a dispatch's size comes from: a grid, or words the GPU wrote at
 * indirect + offset (indirect not VK_NULL_HANDLE). */
typedef struct dispatch_size {
    uint32_t x, y;
    VkBuffer indirect;
    VkDeviceSize offset;
} dispatch_size;

/* plan.c */
uint32_t sorter_build_schedule(const bitonic_vulkan_sorter *sorter, uint64_t virtual_count, int variant,
                               uint32_t row_log, bool merge, bool transpose, bool merge_tail, bool tile_tail,
                               bitonic_pass *passes);
bitonic_status sorter_plan_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                bool with_scratch, sort_plan *plan);
bitonic_status sorter_plan_sort_runs(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool allow_partition, sort_plan *plan);
bitonic_status sorter_record_sort_passes(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                         const bitonic_vulkan_sort_info *info, uint32_t run_log, bool allow_partition);

/* merge.c */
bool sorter_sorts_tile_by_merging(const sorter_variant *variant, const bitonic_pass *pass);
VkPipeline sorter_tile_pipeline_for(const sorter_variant *variant, const bitonic_pass *pass);
pipeline_kind sorter_merge_pipeline_kind(const sorter_variant *variant, const sort_plan *plan,
                                         const bitonic_pass *pass);
VkPipeline sorter_split_pipeline(const sorter_variant *variant, const sort_plan *plan);
bool sorter_plan_grids(const bitonic_vulkan_sorter *sorter, const sort_plan *plan, uint32_t *group_x,
                       uint32_t *group_y, uint32_t *split_x, uint32_t *split_y);
bool sorter_record_two_run_merge(dispatch_recorder *recorder, const sorter_variant *variant, const sort_plan *plan,
                                 const bitonic_pass *pass, pass_push_constants constants, bool samples_left,
                                 bool write_samples, dispatch_size split, dispatch_size merge);
bitonic_status sorter_plan_merge_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                     bool with_scratch, uint32_t run_log, bool rows, uint64_t virtual_count,
                                     sort_plan *plan);
bitonic_status sorter_record_merge_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                        const bitonic_vulkan_sort_info *info, const sort_plan *plan, uint32_t run_log);

/* transpose.c */
bitonic_status sorter_plan_transposed_sort(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                                           bool with_scratch, sort_plan *plan);
bitonic_status sorter_record_transposed_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                             const bitonic_vulkan_sort_info *info, const sort_plan *plan);

/* partition.c */
bool sorter_pairs_pack_fits(const bitonic_vulkan_sorter *sorter);
void sorter_plan_partition(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info,
                           sort_plan *plan);
bitonic_status sorter_record_partition_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_sort_info *info, const sort_plan *plan);

/* device_address.c */
VkResult sorter_create_wide_variants(bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                                     bool eager);
bitonic_status sorter_record_wide_sort(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                       const bitonic_vulkan_sort_info *info, const sort_plan *plan);

/* pipelines.c */
VkResult sorter_create_variant(bitonic_vulkan_sorter *sorter, VkPipelineCache cache, bitonic_kernel_form form,
                               bool wide, sorter_variant *variant);
VkResult sorter_ensure_pipeline(bitonic_vulkan_sorter *sorter, sorter_variant *variant, pipeline_kind kind,
                                uint32_t steps);
VkResult sorter_create_variant_pipelines(bitonic_vulkan_sorter *sorter, sorter_variant *variant);
VkResult sorter_create_search_pipeline(bitonic_vulkan_sorter *sorter, VkPipelineCache cache);
VkResult sorter_ensure_search_pipeline(bitonic_vulkan_sorter *sorter, bool key64);
VkResult sorter_ensure_plan_pipelines(bitonic_vulkan_sorter *sorter, const sort_plan *plan);

/* overrides.c */
bool sorter_derive_tuning(bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sorter_desc *desc,
                          const bitonic_tuning_overrides *overrides);

/* dispatch.c */
bool sorter_split_groups(const bitonic_vulkan_sorter *sorter, uint64_t workgroups, uint32_t *x, uint32_t *y);
void sorter_record_pass_barrier(VkCommandBuffer command_buffer);
dispatch_recorder sorter_dispatch_recorder_for(VkCommandBuffer command_buffer, const sorter_variant *variant,
                                               const bitonic_vulkan_sort_info *info);
void sorter_finish_dispatch(dispatch_recorder *recorder);
void sorter_record_dispatch(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                            uint32_t constants_size, uint32_t groups_x, uint32_t groups_y);
void sorter_record_dispatch_indirect(dispatch_recorder *recorder, VkPipeline pipeline, const void *constants,
                                     uint32_t constants_size, VkBuffer buffer, VkDeviceSize offset);
void sorter_record_sized_dispatch(dispatch_recorder *recorder, VkPipeline pipeline,
                                  const pass_push_constants *constants, dispatch_size size);
void sorter_record_indirect_barrier(VkCommandBuffer command_buffer);
void sorter_push_sort_bindings(const bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                               const sorter_variant *variant, bool with_values, sort_sides sides,
                               VkDescriptorBufferInfo count_binding, VkDescriptorBufferInfo splits);

#endif /* BITONIC_SORTER_INTERNAL_H */
