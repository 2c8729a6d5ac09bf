/* bitonic_vulkan.h: sorting keys that live in the caller's Vulkan buffers,
 * recorded into the caller's command buffer on the caller's VkDevice.
 *
 * This is the core of the library: the host calls in bitonic.h record through
 * exactly this path. A sorter holds the pipelines for one device; it is created
 * once and used to record any number of sorts.
 *
 * Device requirements: Vulkan 1.1, a queue family with compute, and the device
 * extension VK_KHR_push_descriptor enabled (core in Vulkan 1.4; NVIDIA, AMD, Intel
 * and Mesa drivers have it). bitonic_vulkan_sorter_create() reports
 * BITONIC_ERROR_UNSUPPORTED when it is missing.
 *
 * Sorts past the largest storage-buffer binding: a sort binds its buffers, so
 * by default one sort takes at most maxStorageBufferRange bytes of keys (4 GiB - 1
 * on NVIDIA: 2^30 - 1 32-bit keys) and never more than 2^31 keys. A device made
 * with the Vulkan 1.2 features bufferDeviceAddress and shaderInt64 enabled
 * (bitonic_vulkan_sorter_desc.enable_device_addresses and enable_64bit_keys)
 * sorts larger arrays too: the merge (BITONIC_STRATEGY_MERGE) of one array, keys
 * alone or with values, of every key type, reaches keys, values and scratch
 * through buffer device addresses (docs/API.md, "Sizes"). Such a sort needs its
 * keys, values and scratch buffers created with
 * VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (besides STORAGE_BUFFER) and bound
 * to memory allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
 * (VkMemoryAllocateFlagsInfo); sorts that fit a binding do not. Rows, the
 * network and the transpose strategy keep the binding's limit and answer
 * BITONIC_ERROR_TOO_LARGE beyond it.
 */
#ifndef BITONIC_VULKAN_H
#define BITONIC_VULKAN_H

#include <vulkan/vulkan.h>

#include "bitonic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a sorter is made with: the caller's device and what was enabled on
 * it. The handles are required; every other field may be zero. */
typedef struct bitonic_vulkan_sorter_desc {
    const void *next;                   /* an extension chain (bitonic.h); NULL for none */
    VkInstance instance;                /* the instance the device came from */
    VkPhysicalDevice physical_device;
    VkDevice device;
    const VkAllocationCallbacks *allocator;  /* NULL: the driver's */
    VkPipelineCache pipeline_cache;          /* VK_NULL_HANDLE: none */
    /* What a sort of more than one tile does with the scratch it is given
     * (bitonic_vulkan_sort_info.scratch): merge (0), transpose, or nothing
     * (BITONIC_STRATEGY_NETWORK: bitonic_vulkan_sort_scratch_bytes() is then 0
     * and the network sorts in place). */
    bitonic_strategy strategy;
    /* The device was created with the shaderInt64 feature enabled: build the
     * pipelines for 64-bit keys (u64, i64, f64), and let pairs of 32-bit keys
     * compare as one 64-bit integer (the same order, 4-8% faster on an H200).
     * Without it those 64-bit sorts give BITONIC_ERROR_UNSUPPORTED, and pairs
     * compare in two parts. */
    bool enable_64bit_keys;
    /* The device was created with the bufferDeviceAddress feature (Vulkan 1.2,
     * or VK_KHR_buffer_device_address) enabled, and with shaderInt64
     * (enable_64bit_keys): merge sorts past maxStorageBufferRange go through
     * device addresses (see the top of this file), and max_keys grows to what
     * the largest device-local heap holds. Sorts within a binding are unchanged. */
    bool enable_device_addresses;
    /* Create the pipelines with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR so
     * bitonic_vulkan_sorter_pipeline_report() can list the driver's statistics
     * (registers, spills, ...). Needs VK_KHR_pipeline_executable_properties and
     * its pipelineExecutableInfo feature enabled on the device. */
    bool capture_pipeline_statistics;
    /* Build each pipeline on the first recording that needs it instead of all
     * at creation: a faster start, and a sort of u32 keys never builds the
     * pipelines of pairs or 64-bit keys. A recording that builds a pipeline can
     * fail with what pipeline creation returns. Ignored with
     * capture_pipeline_statistics (the report lists every pipeline). */
    bool lazy_pipelines;
} bitonic_vulkan_sorter_desc;

/* A sorter holds pipelines and what it derived from the device's limits; it
 * records into the caller's command buffers and owns none; it never submits.
 * Threads: the sorter takes no lock. Without lazy_pipelines it builds its
 * pipelines at creation and a recording reads it, so sorts may be recorded
 * with one sorter from several threads at once (into different command
 * buffers, from pools that are not shared, as Vulkan requires). With
 * lazy_pipelines a recording may build a pipeline and store it in the sorter:
 * recordings with it then must not overlap (the caller's lock). Destroy it
 * when no recording runs. */
typedef struct bitonic_vulkan_sorter bitonic_vulkan_sorter;

BITONIC_API bitonic_status bitonic_vulkan_sorter_create(const bitonic_vulkan_sorter_desc *desc,
                                            bitonic_vulkan_sorter **out_sorter);
/* The caller makes sure no recorded sort is still pending on the GPU. */
BITONIC_API void bitonic_vulkan_sorter_destroy(bitonic_vulkan_sorter *sorter);

typedef struct bitonic_vulkan_sorter_info {
    uint32_t subgroup_size;
    uint32_t workgroup_size;
    uint32_t keys_per_thread;
    uint32_t tile_keys;
    uint32_t max_strides_per_global_pass;
    /* The largest count of 32-bit keys one sort accepts (64-bit keys: half).
     * With device addresses: what the largest device-local heap holds with the
     * merge's scratch (8 bytes a key; values take as much again, so pairs of
     * that many run out of memory); else bound_max_keys. */
    uint64_t max_keys;
    /* What bound buffers take: maxStorageBufferRange / 4, at most 2^31. Rows,
     * the network, the transpose strategy and the range search stop here. */
    uint64_t bound_max_keys;
    bool device_addresses;              /* larger sorts go through buffer device addresses */
    bool tile_uses_subgroup_shuffle;    /* the tile kernel exchanges keys by subgroup shuffles */
    uint32_t merge_chunk_keys;          /* output keys a merge workgroup writes (32-bit keys alone) */
    /* Merge sorts (with scratch) of 32-bit keys without values, up to
     * small_sort_max_keys keys, use shapes of their own: tiles of
     * small_sort_tile_keys keys, which may be smaller than tile_keys, so such a
     * sort of tile_keys keys can need scratch and a merge pass. Both 0 when the
     * device has no such shapes. */
    uint32_t small_sort_tile_keys;
    uint64_t small_sort_max_keys;
    /* Keys a thread holds in the tile merge sort, which sorts tiles from scratch
     * (tile_keys / tile_sort_keys_per_thread threads); 0 where the network
     * sorts them (a tuning override). */
    uint32_t tile_sort_keys_per_thread;
} bitonic_vulkan_sorter_info;

BITONIC_API void bitonic_vulkan_sorter_get_info(const bitonic_vulkan_sorter *sorter, bitonic_vulkan_sorter_info *out_info);

typedef struct bitonic_vulkan_sort_info {
    /* count keys at keys_offset in keys (4 bytes each, 8 for 64-bit key types), sorted in place. The buffer needs
     * VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; the offset must be a multiple of
     * minStorageBufferOffsetAlignment. */
    VkBuffer keys;
    VkDeviceSize keys_offset;
    uint64_t count;                     /* 64-bit: with device addresses a sort can pass 2^32 keys */
    bitonic_order order;
    bitonic_key_type key_type;          /* how the keys are ordered (bitonic.h); 64-bit types take 8 bytes a key */
    /* 0: the count keys are one array. Else they are count / row_length rows
     * (count a multiple of it) sorted independently, each at the cost of its own
     * length rounded up to a power of two. */
    uint32_t row_length;
    /* Optional: a count the GPU writes (a particle system's live count). When
     * set, the sort reads the uint32 at count_offset bytes (a multiple of 4) of
     * count_buffer when it runs, and sorts that many keys, at most `count`: the
     * passes are recorded for `count`, so that is what the sort costs. The buffer
     * needs STORAGE_BUFFER usage; the sort reads it with COMPUTE_SHADER /
     * SHADER_READ in every pass, so make its write visible before the sort and
     * leave it unchanged until the sort ends. Not with row_length. */
    VkBuffer count_buffer;
    VkDeviceSize count_offset;
    /* Optional: count 32-bit values moved with their keys (same usage and offset
     * rules). VK_NULL_HANDLE sorts keys alone. Pairs are ordered by key, then by
     * value: equal keys come out in value order, so with the original indices as
     * values the sort is stable. */
    VkBuffer values;
    VkDeviceSize values_offset;
    /* Optional: a timestamp query pool. When set, the sort writes a timestamp at
     * first_query before its first pass and one after its last pass at
     * first_query + 1; with profile_passes it writes one after every pass instead
     * (first_query + 1 .. first_query + pass count). The caller resets the
     * queries. bitonic_vulkan_sort_pass_count() says how many are written. */
    VkQueryPool timestamps;
    uint32_t first_query;
    bool profile_passes;
    /* Optional: an array of pass_detail_capacity entries that receives, pass
     * by pass as recorded, what each pass is (a name that lives as long as the
     * program) and the bytes of keys and values it reads and writes in device
     * memory, so that a profile's times say how near each pass comes to the
     * device's copy rate. Tables, samples and searches are not counted. */
    bitonic_pass_detail *pass_details;
    uint32_t pass_detail_capacity;
    /* Optional: scratch memory of bitonic_vulkan_sort_scratch_bytes() bytes at
     * scratch_offset (a multiple of minStorageBufferOffsetAlignment) in a buffer
     * with STORAGE_BUFFER and INDIRECT_BUFFER usage (sorts of 1.5 x 2^20
     * 32-bit keys and more, 2^20 + 1 pairs and 64-bit keys, 2^23 64-bit keys
     * with values, partition first, by default: the
     * partition's fallback dispatches
     * take their sizes from the scratch, read at the DRAW_INDIRECT stage,
     * which the caller's barriers before the sort need not cover: the sort
     * writes those words itself). With it, a sort of more keys than one tile sorts
     * the tiles with the bitonic network on chip and then merges sorted runs
     * (merge path): 1 + log2(count / tile) passes over memory instead of the
     * network's (log2(count / tile) + 1) (log2(count / tile) + 2) / 2 or so, at
     * the price of count keys (and values) of scratch. With the sorter's
     * strategy BITONIC_STRATEGY_TRANSPOSE it holds the transposed keys instead
     * (4 passes a phase above the tile: docs/ALGORITHM.md). The result is the same
     * (the network and the merge both order pairs by key, then value). Without it
     * (VK_NULL_HANDLE), and always for rows, the pure network sorts in place. The
     * sort reads and writes the scratch from the compute shader stage like the
     * keys, so the same barriers cover it; its contents are undefined after. */
    VkBuffer scratch;
    VkDeviceSize scratch_offset;
} bitonic_vulkan_sort_info;

/* Bytes of scratch the sort described by info can use (its scratch fields are
 * ignored): 0 when it would not use any (count at most one tile, rows) or the
 * info is refused. Depends on count, key type and whether there are values. */
VkDeviceSize bitonic_vulkan_sort_scratch_bytes(const bitonic_vulkan_sorter *sorter,
                                               const bitonic_vulkan_sort_info *info);

/* Writes one line per pipeline with the statistics the driver reports for it
 * (for example register count and spills), NUL-terminated and cut to capacity.
 * BITONIC_ERROR_UNSUPPORTED unless the sorter was created with
 * capture_pipeline_statistics. */
BITONIC_API bitonic_status bitonic_vulkan_sorter_pipeline_report(const bitonic_vulkan_sorter *sorter, char *text,
                                                     size_t capacity);

/* Number of passes (dispatches) bitonic_vulkan_record_sort() records for this
 * sort (key type, values, rows and scratch change it; a big merge is two
 * dispatches, its splits and the merge; a partition sort's sort of its samples
 * counts as one); 0 if it would record none or the info is refused. With
 * profile_passes, a timestamp follows each of them. */
BITONIC_API uint32_t bitonic_vulkan_sort_pass_count(const bitonic_vulkan_sorter *sorter, const bitonic_vulkan_sort_info *info);

/* Records the sort into command_buffer, which must be in the recording state,
 * outside a render pass, on a queue family with compute.
 *
 * Synchronisation contract: the sort begins with COMPUTE_SHADER reads and
 * writes (SHADER_READ | SHADER_WRITE) of the keys (and values) and ends with a
 * COMPUTE_SHADER write (SHADER_WRITE) of them. Before it, make earlier writes
 * available to VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT |
 * VK_ACCESS_SHADER_WRITE_BIT; after it, wait on VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
 * / VK_ACCESS_SHADER_WRITE_BIT before reading the result. Between its own passes
 * the sort records compute-to-compute buffer barriers.
 *
 * State: it binds its own compute pipelines and pushes descriptors and push
 * constants; after it, the command buffer's compute pipeline, descriptor and
 * push-constant state is undefined and must be bound again.
 *
 * count 0 and 1 record nothing but the timestamps. A count above max_keys gives
 * BITONIC_ERROR_TOO_LARGE and records nothing; so does a count above
 * bound_max_keys that device addresses cannot take (no scratch, rows, another
 * strategy, or a device without them). */
BITONIC_API bitonic_status bitonic_vulkan_record_sort(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                          const bitonic_vulkan_sort_info *info);

typedef struct bitonic_vulkan_search_info {
    /* count keys sorted in `order` as `key_type`; at most bound_max_keys (the
     * search binds its buffers), so the counts stay 32-bit. */
    VkBuffer keys;
    VkDeviceSize keys_offset;
    uint32_t count;
    bitonic_order order;
    bitonic_key_type key_type;
    /* query_count queries: a low and a high key each (equal for a point query). */
    VkBuffer lows, highs;
    VkDeviceSize lows_offset, highs_offset;
    uint32_t query_count;
    /* Results, one uint32 per query: first = the first position whose key does
     * not come before the low in the sort order (lower bound), end = the first
     * position whose key comes after the high (upper bound). [first, end) holds
     * exactly the keys between low and high. In descending order "before" means
     * larger, so pass the larger bound as the low. */
    VkBuffer first, end;
    VkDeviceSize first_offset, end_offset;
} bitonic_vulkan_search_info;

/* Records the range search. Buffers need STORAGE_BUFFER usage and offsets that
 * are multiples of minStorageBufferOffsetAlignment. It begins with
 * COMPUTE_SHADER reads of keys, lows and highs and ends with COMPUTE_SHADER
 * writes of first and end; it leaves the same state undefined as a sort. */
BITONIC_API bitonic_status bitonic_vulkan_record_search(bitonic_vulkan_sorter *sorter, VkCommandBuffer command_buffer,
                                            const bitonic_vulkan_search_info *info);

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_VULKAN_H */
