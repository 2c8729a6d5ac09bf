/* bitonic.h: the public C API of the bitonic sorting library.
 *
 * A context owns one executor: a Vulkan device (the GPU path) or the plain C
 * path. Every call returns a bitonic_status; bitonic_status_string() names it.
 * The library never prints, exits or aborts, and keeps no global state: all of
 * it hangs off the context the caller creates.
 *
 *     bitonic_context *ctx;
 *     if (bitonic_context_create(NULL, &ctx) == BITONIC_SUCCESS) {
 *         bitonic_sort_u32(ctx, keys, count, NULL);     // ascending, in place
 *         bitonic_context_destroy(ctx);
 *     }
 *
 * Description structs follow one rule: a zeroed field means the sensible
 * default, so a caller names only what matters (designated initialisers).
 * Sorting keys that already live in Vulkan buffers, inside the caller's own
 * command buffer, is in bitonic_vulkan.h.
 */
#ifndef BITONIC_H
#define BITONIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITONIC_VERSION_MAJOR 0
#define BITONIC_VERSION_MINOR 1
#define BITONIC_VERSION_PATCH 0

/* Marks the functions the library exports. A shared build compiles everything
 * else hidden (-fvisibility=hidden), so only what these headers declare is
 * part of the ABI; a static build links the same way. */
#if defined(__GNUC__) || defined(__clang__)
#define BITONIC_API __attribute__((visibility("default")))
#else
#define BITONIC_API
#endif

typedef enum bitonic_status {
    BITONIC_SUCCESS = 0,
    BITONIC_ERROR_INVALID_ARGUMENT,  /* a NULL pointer, an unknown enum value, a count above capacity */
    BITONIC_ERROR_OUT_OF_HOST_MEMORY,
    BITONIC_ERROR_OUT_OF_DEVICE_MEMORY,
    BITONIC_ERROR_TOO_LARGE,         /* more keys than the device can address in one buffer */
    BITONIC_ERROR_DEVICE_NOT_FOUND,  /* no device matches the selector (option or BITONIC_DEVICE) */
    BITONIC_ERROR_UNSUPPORTED,       /* the device lacks a feature this call needs */
    BITONIC_ERROR_VULKAN_UNAVAILABLE,/* no Vulkan loader or driver could be opened */
    BITONIC_ERROR_VALIDATION_LAYER_MISSING, /* validation was asked for but the layer is not installed */
    BITONIC_ERROR_DEVICE_LOST,
    BITONIC_ERROR_VULKAN,            /* any other Vulkan failure; see the context's last_vk_result */
    BITONIC_ERROR_GLES_UNAVAILABLE,  /* no EGL display or OpenGL ES 3 context could be made (or none is current) */
    BITONIC_ERROR_GL,                /* an OpenGL ES call failed (glGetError) */
    BITONIC_ERROR_COMMUNICATION,     /* an MPI call failed (bitonic_mpi.h) */
} bitonic_status;

/* A short English sentence for a status; never NULL. */
BITONIC_API const char *bitonic_status_string(bitonic_status status);

typedef enum bitonic_order {
    BITONIC_ORDER_ASCENDING = 0,
    BITONIC_ORDER_DESCENDING = 1,
} bitonic_order;

/* The type of the keys. Every type sorts by one total order, the same on every
 * backend: signed integers as numbers; floats -inf < ... < -0.0 < +0.0 < ... <
 * +inf, then the NaNs (positive ones, then negative ones), as
 * NumPy puts NaNs last. Descending is exactly the reverse (NaNs first). */
typedef enum bitonic_key_type {
    BITONIC_KEY_U32 = 0,
    BITONIC_KEY_I32 = 1,
    BITONIC_KEY_F32 = 2,
    BITONIC_KEY_U64 = 3,             /* 64-bit types: 8 bytes a key (and a bound in range search); every */
    BITONIC_KEY_I64 = 4,             /* call takes them; on your own device they need shaderInt64 (see */
    BITONIC_KEY_F64 = 5,             /* bitonic_vulkan_sorter_desc.enable_64bit_keys) */
} bitonic_key_type;

typedef enum bitonic_backend {
    BITONIC_BACKEND_CPU = 0,     /* the plain C path */
    BITONIC_BACKEND_VULKAN = 1,
    BITONIC_BACKEND_GLES = 2,    /* OpenGL ES 3 fragment-shader passes (bitonic_gles.h) */
} bitonic_backend;

/* How a Vulkan sort goes beyond one tile (docs/ALGORITHM.md). Every strategy
 * gives the same result; they differ in passes over memory and in scratch. */
typedef enum bitonic_strategy {
    /* Sort tiles on chip, then merge sorted runs (merge path): the fewest
     * passes, count keys (and values) of scratch. */
    BITONIC_STRATEGY_MERGE = 0,
    /* The bitonic network alone, in place: no scratch, the most passes. */
    BITONIC_STRATEGY_NETWORK = 1,
    /* The network with its large strides brought on chip by transposing the
     * keys (the DirectX 11 sample's scheme): per phase above the tile, a
     * transpose into scratch, a tile pass there, a transpose back and a tile
     * pass; scratch of count keys (and values) rounded up to a whole row. */
    BITONIC_STRATEGY_TRANSPOSE = 2,
} bitonic_strategy;

/* Called with each validation-layer message when validation is on, on the
 * thread whose call made the message. */
typedef void (*bitonic_message_fn)(void *user_data, const char *message);

/* Extension chains. Each description struct starts with `const void *next`:
 * NULL, or the first entry of a chain of structs, each of which starts with a
 * uint32_t type and a const void *next to the entry after it (the layout of
 * bitonic_chain_entry). The library reads the entries whose type it knows and
 * skips the others, and reads the chain only during the call it is passed to:
 * the entries need not outlive that call. */
typedef struct bitonic_chain_entry {
    uint32_t type;
    const void *next;
} bitonic_chain_entry;

/* Allocation callbacks, as engines give them (VkAllocationCallbacks, zstd's
 * ZSTD_customMem, SQLite's sqlite3_mem_methods): an entry of the `next` chain
 * of bitonic_context_desc. allocate returns size bytes aligned to alignment (a
 * power of two, at least 16 on 64-bit targets), or NULL when it cannot; free
 * releases a block allocate returned (never NULL). There is no reallocate: the
 * library never grows a block in place. */
#define BITONIC_STRUCTURE_TYPE_ALLOCATOR 0x42540100u
typedef void *(*bitonic_allocate_fn)(void *user_data, size_t size, size_t alignment);
typedef void (*bitonic_free_fn)(void *user_data, void *memory);

struct VkAllocationCallbacks;  /* vulkan_core.h; bitonic.h does not need it included */

/* The context's host memory and, on the Vulkan backend, the callbacks of the
 * Vulkan objects it makes.
 *
 * allocate and free (both, or neither: one alone is
 * BITONIC_ERROR_INVALID_ARGUMENT): every host block the library allocates for
 * the context comes from allocate and goes back through free before
 * bitonic_context_destroy returns: the context and its buffers, the scratch
 * of argsort, rank map, records, segments and stable pairs, the CPU path's
 * pair words (also on a Vulkan context's CPU path), the Vulkan backend's
 * objects and lists, bitonic_host_alloc's blocks where they are ordinary
 * memory, the pipeline cache and crossover files read. Not the C library's
 * own (thread stacks, stdio), nor what a Vulkan loader, driver or layer
 * allocates without callbacks (shader compilers), nor the default
 * selection's census, the GLES backend or bitonic_mpi.h, nor a
 * bitonic_vulkan_sorter's own host memory (its Vulkan objects take
 * bitonic_vulkan_sorter_desc.allocator), nor, on the CPU path, the values
 * array of pairs with 64-bit keys that span 2^32 or more. A failed allocate
 * makes the call return BITONIC_ERROR_OUT_OF_HOST_MEMORY (or, where the
 * library has another way, succeed without it) and leaves the context
 * usable (docs/API.md, "Allocation callbacks").
 *
 * vulkan (NULL: the driver's): passed as pAllocator to every Vulkan object
 * the context creates and destroys, the instance, device, pools, buffers,
 * memory, pipeline cache and the sorter's pipelines included. A driver's
 * VK_ERROR_OUT_OF_HOST_MEMORY is BITONIC_ERROR_OUT_OF_HOST_MEMORY.
 *
 * The library copies the entry (and the VkAllocationCallbacks it points to)
 * at creation; user_data and the VkAllocationCallbacks' pUserData must stay
 * valid until bitonic_context_destroy returns. The callbacks are called on the
 * thread of the call that needs them (a driver may call its callbacks from
 * threads of its own), one context's calls one after another, with the
 * context's lock held, so they must not call the library; callbacks that
 * several contexts share must be safe to call from several threads. */
typedef struct bitonic_allocator {
    uint32_t type;                   /* BITONIC_STRUCTURE_TYPE_ALLOCATOR */
    const void *next;
    bitonic_allocate_fn allocate;
    bitonic_free_fn free;
    void *user_data;                 /* handed to allocate and free */
    const struct VkAllocationCallbacks *vulkan;
} bitonic_allocator;

/* What a context is made with. Every field is optional: a zeroed description
 * (or NULL) is the default selection on the default settings. */
typedef struct bitonic_context_desc {
    const void *next;                /* an extension chain (above); NULL for none */
    /* Which device. NULL or "": the BITONIC_DEVICE environment variable if set, else
     * the first discrete GPU, then an integrated or virtual one, then the CPU path
     * (a CPU-only Vulkan driver such as lavapipe is never picked automatically).
     * "cpu": the plain C path. "vulkan": the first Vulkan device of any type, CPU
     * drivers included. A decimal number: that Vulkan device index (as `bitonic
     * info` lists them). "gles": OpenGL ES 3 fragment-shader passes in a headless EGL
     * context of the library's own (never picked automatically; see bitonic_gles.h).
     * Anything else: the first Vulkan device whose name contains
     * it, ignoring case (for example "llvmpipe" or "H100"). */
    const char *device;
    /* Turn on the Khronos validation layer, synchronization validation included
     * (BITONIC_ERROR_VALIDATION_LAYER_MISSING where it is not installed). Each
     * message is counted (bitonic_context_info.validation_messages) and handed
     * to on_validation_message with message_user_data if set. On the GLES
     * backend validation checks glGetError after every draw. */
    bool validation;
    bitonic_message_fn on_validation_message;
    void *message_user_data;
    /* How a Vulkan sort goes beyond one tile (bitonic_strategy; 0 is the
     * merge). The network and the transpose are the algorithms the library
     * grew from, kept as documented choices: the network needs no scratch
     * memory, the transpose is the DirectX 11 sample's scheme. Where scratch
     * memory cannot be had the network sorts in place instead. The CPU and
     * GLES paths do not use the schedule and ignore it. A value outside the
     * enum: BITONIC_ERROR_INVALID_ARGUMENT. */
    bitonic_strategy strategy;
    /* Ask the driver for per-pipeline statistics (registers, spills) where it
     * offers them (VK_KHR_pipeline_executable_properties); see
     * bitonic_context_pipeline_report(). It builds every pipeline at the start. */
    bool capture_pipeline_statistics;
    /* Threads for the CPU path, 0 = all cores. */
    uint32_t cpu_threads;
    /* The GLES backend's texture layout, a bitonic_gles_layout: 0 = automatic
     * (one row while the keys fit in it), 1 = one row (N x 1), 2 = rows (W x H). */
    uint32_t gles_layout;
    /* What the library learns about a device is kept on disk between runs: the
     * Vulkan pipeline cache (so a warm start compiles no shaders) and the
     * calibrated CPU/GPU crossover. It lives in cache_directory if set, else in
     * $BITONIC_CACHE_DIR, else $XDG_CACHE_HOME/bitonic, else ~/.cache/bitonic.
     * no_disk_cache (or BITONIC_PIPELINE_CACHE=0 in the environment) turns the
     * disk off: nothing is read or written there. A directory that cannot be
     * written is not an error; the next run only starts cold. Files are
     * replaced whole (written aside, then renamed), so processes sharing the
     * directory read either the old file or the new one. */
    const char *cache_directory;
    bool no_disk_cache;
    /* Host-memory sorts (bitonic_sort, bitonic_sort_u32, the pair calls and
     * argsort, rank map and records, built on pairs; not rows or segments) on a
     * Vulkan context run on the CPU path below this many keys, where
     * it finishes first. 0: the default, BITONIC_CROSSOVER from the environment
     * if set ("model" or a count), else the calibrated model when the device
     * came from the default selection and 1 (every sort on the device) when the
     * caller named one. BITONIC_CROSSOVER_MODEL: the model whatever the
     * selection. The model times both sides once per device and CPU (a fraction
     * of a second on a GPU, up to 3 s on a slow one) on the first host sort of
     * at least 4096 keys, and stores the result beside the pipeline cache.
     * Resident buffers and the recording API always use the device. */
    uint64_t crossover_keys;
} bitonic_context_desc;

#define BITONIC_CROSSOVER_MODEL UINT64_MAX

typedef struct bitonic_context bitonic_context;

/* desc may be NULL (all defaults). On failure *out_context is NULL. With the
 * default selection (and "vulkan") the logical device is made on the first
 * call that needs it, which then returns any failure to make it. The strings
 * and the chain of desc need not outlive the call.
 * BITONIC_ERROR_INVALID_ARGUMENT: an enum field past its last value, or a
 * malformed BITONIC_* environment value (bitonic_check_environment says
 * which): a malformed setting is refused, never read as a default.
 *
 * Threads: a context may be used from several threads at once. Every call
 * that takes the context (or one of its buffers) holds the context's lock
 * while it runs, so concurrent calls run one after another, each whole; for
 * sorts that run side by side, give each thread a context of its own.
 * bitonic_context_destroy must not race any other call on the context. A
 * bitonic_vulkan_sorter, like the Vulkan objects it records into, is the
 * caller's to synchronise (bitonic_vulkan.h). The library reads its
 * environment variables (BITONIC_DEVICE and the others named here) with
 * getenv, at creation and when it makes a deferred device, so they must not
 * be set on another thread at the same time.
 *
 * Arrays: every host array a call takes (keys, values, bounds, indices) must
 * have its element's natural alignment: 4 bytes for 32-bit keys and for
 * values and indices, 8 bytes for 64-bit keys (records need none: their keys
 * are copied out). A misaligned array, and a values or indices array that
 * overlaps its keys, is BITONIC_ERROR_INVALID_ARGUMENT. A count whose bytes
 * would not fit a size_t is BITONIC_ERROR_TOO_LARGE, as is one above
 * bitonic_context_info.max_keys; both are refused before any array is read. */
BITONIC_API bitonic_status bitonic_context_create(const bitonic_context_desc *desc, bitonic_context **out_context);
BITONIC_API void bitonic_context_destroy(bitonic_context *context);

/* Checks every BITONIC_* environment variable the library reads, as
 * bitonic_context_create does first. An unset or empty variable is the
 * default. A switch (BITONIC_PIPELINE_CACHE, BITONIC_DEVICE_ADDRESSES,
 * BITONIC_HOST_IMPORT, BITONIC_HOST_CHUNK_SORT) is 0 or 1, off or on, no or
 * yes, false or true; a count is decimal digits alone within its range
 * (BITONIC_HOST_CHUNK_BYTES and BITONIC_IMPORT_MIN_BYTES 0 to 2^48,
 * BITONIC_HOST_COPY_THREADS 1 to 64); BITONIC_CROSSOVER is "model", "auto"
 * or a count from 0 to 2^64 - 1; BITONIC_DEVICE is at most 255 bytes with no
 * control character and no space at either end; BITONIC_CACHE_DIR at most
 * 768 bytes with no control character. On the first malformed one it
 * returns BITONIC_ERROR_INVALID_ARGUMENT and, when message is not NULL,
 * writes a line such as `BITONIC_HOST_COPY_THREADS="0": out of range (1 to
 * 64)` (cut to message_capacity, always terminated); else BITONIC_SUCCESS
 * and an empty message. The library prints nothing: a front end prints this. */
BITONIC_API bitonic_status bitonic_check_environment(char *message, size_t message_capacity);

typedef struct bitonic_context_info {
    bitonic_backend backend;
    char device_name[256];
    uint32_t vulkan_device_index;    /* UINT32_MAX for the CPU path */
    uint32_t vulkan_api_version;     /* VK_MAKE_API_VERSION form; 0 for the CPU path */
    uint32_t vulkan_device_type;     /* VkPhysicalDeviceType (4 = a CPU driver such as lavapipe); 0 for the CPU path */
    uint32_t subgroup_size;          /* 0 when not used */
    uint32_t workgroup_size;         /* invocations per workgroup of the sort kernels */
    uint32_t keys_per_thread;        /* keys a thread holds in registers in the tile kernel */
    uint32_t tile_keys;              /* keys one workgroup sorts on chip */
    uint32_t max_strides_per_global_pass;
    bool tile_uses_subgroup_shuffle;
    uint64_t max_keys;               /* the largest count one sort accepts (32-bit keys; 64-bit: half) */
    /* Vulkan: sorts past bound_max_keys (what one storage-buffer binding holds,
     * at most 2^31) reach their buffers through device addresses, so max_keys
     * is what device memory holds with the merge's scratch (docs/API.md,
     * "Sizes"); without them max_keys is bound_max_keys. */
    bool device_addresses;
    uint64_t bound_max_keys;
    double timestamp_period_ns;      /* 0 when the device has no compute timestamps */
    uint64_t validation_messages;    /* messages seen so far (0 unless validation is on) */
    int32_t last_vk_result;          /* the last failing VkResult, 0 if none */
    uint32_t gles_max_texture_size;  /* GLES: the largest texture side a sort uses; 0 elsewhere */
    bool gles_timer_query;           /* GLES: timings come from GL timer queries, not glFinish wall time */
    /* The pipeline cache file of this device ("" when the disk cache is off or
     * on the CPU path) and how many bytes of driver data it gave at start (0: a
     * cold start; a missing, foreign or damaged file counts as none). */
    char pipeline_cache_path[1024];
    uint64_t pipeline_cache_loaded_bytes;
    /* The cache directory ("" when the disk cache is off), on either backend. */
    char cache_directory[1024];
    /* Host sorts of fewer keys run on the CPU path (bitonic_context_desc.
     * crossover_keys): the count in effect, given or calibrated and stored; 0
     * while the model has not been calibrated for this device; UINT64_MAX when
     * every host sort runs on the CPU path (also on the CPU backend); 1 on a
     * backend that keeps every host sort (gles). */
    uint64_t crossover_keys;
    /* Vulkan: keys a thread holds in the tile merge sort (tile_sort_pass.comp),
     * which sorts tiles from scratch with tile_keys / tile_sort_keys_per_thread
     * threads; 0 where the network sorts them (a tuning override). The
     * workgroup_size and keys_per_thread above are the network's tile kernel,
     * which merges within tiles in the network and transpose strategies. */
    uint32_t tile_sort_keys_per_thread;
} bitonic_context_info;

BITONIC_API bitonic_status bitonic_context_get_info(const bitonic_context *context, bitonic_context_info *out_info);

typedef struct bitonic_sort_options {
    bitonic_order order;
    bitonic_key_type key_type;       /* for bitonic_sort() and the pair calls; u32 by default */
    /* Pairs: equal keys keep their input order (values move with them). Without
     * it, equal keys come out ordered by value, which is deterministic too. */
    bool stable;
} bitonic_sort_options;

/* The driver's statistics of each sort pipeline, one line each, when the context
 * was created with capture_pipeline_statistics and the device offers them;
 * otherwise BITONIC_ERROR_UNSUPPORTED. */
BITONIC_API bitonic_status bitonic_context_pipeline_report(const bitonic_context *context, char *text, size_t capacity);

/* Sorts count 32-bit unsigned keys in host memory, in place. options may be NULL.
 * On the Vulkan backend this uploads, records the same sort that
 * bitonic_vulkan_record_sort() records, submits, waits and downloads. */
BITONIC_API bitonic_status bitonic_sort_u32(bitonic_context *context, uint32_t *keys, size_t count,
                                const bitonic_sort_options *options);

/* Host memory that the GPU reaches directly ("pinned" memory, as CUDA users
 * know it). Host sorts of arrays inside such a block (keys, values, or both)
 * copy them over the bus straight from and into it: no staging copy on the
 * CPU and no pinning of pages for each call, so a host sort costs about the
 * bus time plus the part of the sort that cannot overlap it (docs/perf-log.md,
 * the host path). On the Vulkan backend the block is a host-visible buffer mapped
 * for its lifetime (the deferred device is made by the first call); on the CPU
 * path, and where the device cannot give such memory, it is ordinary memory,
 * which sorts as any other. Blocks are 64-byte aligned; any part of one can be
 * sorted. Free each block with bitonic_host_free on the same context before
 * destroying it (blocks left are freed with the context). bytes 0 or out_memory
 * NULL: BITONIC_ERROR_INVALID_ARGUMENT; BITONIC_ERROR_OUT_OF_HOST_MEMORY when
 * no memory at all could be had. */
BITONIC_API bitonic_status bitonic_host_alloc(bitonic_context *context, size_t bytes, void **out_memory);
/* NULL is ignored. */
BITONIC_API void bitonic_host_free(bitonic_context *context, void *memory);

/* Sorts count 32-bit keys of options->key_type in place (bitonic_sort_u32 with
 * a type). */
BITONIC_API bitonic_status bitonic_sort(bitonic_context *context, void *keys, size_t count, const bitonic_sort_options *options);

/* Sorts row_count independent rows of row_length keys each, stored one after
 * another, in one call: each row costs about what its own length costs. */
BITONIC_API bitonic_status bitonic_sort_rows(bitonic_context *context, void *keys, size_t row_count, size_t row_length,
                                 const bitonic_sort_options *options);

/* Sorts segments of keys independently: segment s is keys[offsets[s] ..
 * offsets[s+1]) (offsets has segment_count + 1 entries, non-decreasing). Segments
 * are grouped by their length rounded up to a power of two and each group is
 * sorted as batched rows, so a segment costs at most about twice its length. */
BITONIC_API bitonic_status bitonic_sort_segments(bitonic_context *context, void *keys, const size_t *offsets,
                                     size_t segment_count, const bitonic_sort_options *options);

/* Sorts count keys and moves the 32-bit value at the same index with each key.
 * Equal keys come out ordered by value, or in input order with options->stable.
 * The GPU and the CPU path give the same result, element for element. */
BITONIC_API bitonic_status bitonic_sort_pairs(bitonic_context *context, void *keys, uint32_t *values, size_t count,
                                  const bitonic_sort_options *options);

/* The permutation that sorts keys (keys are left as they are): out_indices[r]
 * is the index of the key of rank r. Equal keys keep their input order, so it
 * is the stable argsort. count must be below 2^32 - 1. */
BITONIC_API bitonic_status bitonic_argsort(bitonic_context *context, const void *keys, size_t count, uint32_t *out_indices,
                               const bitonic_sort_options *options);

/* The inverse of the argsort: out_ranks[i] is the rank of key i in sorted
 * order (the boids seed's ValueIdxToKeyIdx). */
BITONIC_API bitonic_status bitonic_rank_map(bitonic_context *context, const void *keys, size_t count, uint32_t *out_ranks,
                                const bitonic_sort_options *options);

/* Sorts count records of stride bytes each (an array of structs) by the
 * 32-bit key of options->key_type at key_offset in each record, for example
 * RGBA texels by one channel. Equal keys keep their input order. Done as a
 * (key, index) sort on the context's device and one gather of the records. */
BITONIC_API bitonic_status bitonic_sort_records(bitonic_context *context, void *records, size_t count, size_t stride,
                                    size_t key_offset, const bitonic_sort_options *options);

/* Range search on keys already sorted with the same options (order and key
 * type): for each query i, out_first[i] is the lower bound of lows[i] and
 * out_end[i] the upper bound of highs[i], so positions [first, end) hold
 * exactly the keys between low and high (pass the same array twice for point
 * queries). In descending order pass the larger bound as the low. */
BITONIC_API bitonic_status bitonic_search_range(bitonic_context *context, const void *sorted_keys, size_t count,
                                    const void *lows, const void *highs, size_t query_count, uint32_t *out_first,
                                    uint32_t *out_end, const bitonic_sort_options *options);

/* Resident buffers: upload once, sort many times, download. On the CPU backend
 * the buffer is host memory. */
typedef struct bitonic_buffer bitonic_buffer;

BITONIC_API bitonic_status bitonic_buffer_create(bitonic_context *context, size_t capacity_keys, bitonic_buffer **out_buffer);
BITONIC_API void bitonic_buffer_destroy(bitonic_buffer *buffer);
BITONIC_API bitonic_status bitonic_buffer_upload(bitonic_buffer *buffer, const uint32_t *keys, size_t count);
BITONIC_API bitonic_status bitonic_buffer_download(bitonic_buffer *buffer, uint32_t *keys, size_t count);

/* Values for pair sorts of a resident buffer, one per key. */
BITONIC_API bitonic_status bitonic_buffer_upload_values(bitonic_buffer *buffer, const uint32_t *values, size_t count);
BITONIC_API bitonic_status bitonic_buffer_download_values(bitonic_buffer *buffer, uint32_t *values, size_t count);

/* What one pass of a profiled sort is (bitonic_timing.pass_details). */
typedef struct bitonic_pass_detail {
    const char *name;   /* "count", "scatter", "tile sort", "merge", ...: static text */
    uint64_t bytes;     /* keys and values the pass reads and writes in device memory */
} bitonic_pass_detail;

/* Timing of one sort, filled when a pointer is given. GPU time comes from
 * timestamp queries around the recorded passes; on the CPU path it is the wall
 * time of the sort. pass_ms, when non-NULL, receives the time of each pass (up to
 * pass_capacity of them; the Vulkan path writes a timestamp after every pass, so
 * profile only when you need it). */
typedef struct bitonic_timing {
    double sort_ms;
    uint32_t pass_count;
    double *pass_ms;
    uint32_t pass_capacity;
    /* Optional, with pass_ms: pass_capacity entries that receive each pass's
     * name and the bytes it moves (the Vulkan path; elsewhere "sort" and 0). */
    bitonic_pass_detail *pass_details;
} bitonic_timing;

/* Sorts the first count keys of the buffer in place and waits for the result.
 * A key of a 64-bit type takes two 32-bit words of the buffer (upload and
 * download 2 x count words, little-endian). */
BITONIC_API bitonic_status bitonic_buffer_sort(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                   bitonic_timing *out_timing);

/* Sorts the first row_count x row_length keys of the buffer as independent
 * rows (bitonic_sort_rows on resident keys). */
BITONIC_API bitonic_status bitonic_buffer_sort_rows(bitonic_buffer *buffer, size_t row_count, size_t row_length,
                                        const bitonic_sort_options *options, bitonic_timing *out_timing);

/* Sorts the first count (key, value) pairs of the buffer, ordered by key, then
 * by value (options->stable is not taken here: use indices as the values). */
BITONIC_API bitonic_status bitonic_buffer_sort_pairs(bitonic_buffer *buffer, size_t count, const bitonic_sort_options *options,
                                         bitonic_timing *out_timing);

/* Where the last host-memory sort of this context (bitonic_sort,
 * bitonic_sort_u32, the pair calls, and argsort, rank map and records, which
 * sort pairs) ran and what each stage took. On
 * the GPU the stages come from timestamps: the upload (the copy of the keys and
 * values to the device), the sort, the download; prepare_ms is the host's part
 * before the upload (importing or staging the array) and finish_ms after the
 * download (copying staged keys back). On the CPU path only sort_ms is set. */
typedef struct bitonic_host_timing {
    bitonic_backend ran_on;
    size_t count;
    bool imported;                   /* the caller's array was imported, not staged (VK_EXT_external_memory_host) */
    bool pinned;                     /* the keys lay in a block of bitonic_host_alloc: neither staged nor imported */
    double total_ms;                 /* wall time of the call */
    double prepare_ms, upload_ms, sort_ms, download_ms, finish_ms;
    /* Chunks of the pipelined transfer of a staged array (1: none). With more
     * than one, upload_ms and download_ms are the time the bus was busy with
     * each direction's copies, prepare_ms the host's copy of the first chunk
     * (before the GPU could start) and finish_ms its copy of the last chunk
     * out; the other chunks' copies overlap the bus. */
    uint32_t chunks;
} bitonic_host_timing;

/* BITONIC_ERROR_INVALID_ARGUMENT before the first host sort. */
BITONIC_API bitonic_status bitonic_context_last_host_timing(const bitonic_context *context, bitonic_host_timing *out_timing);

/* Devices the library can see, for listing (`bitonic info`). Index i is the
 * Vulkan physical device index; the CPU path is not listed. */
typedef struct bitonic_device_info {
    char name[256];
    uint32_t index;
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t device_type;            /* VkPhysicalDeviceType */
    uint32_t api_version;
    uint32_t subgroup_size;
    uint32_t max_workgroup_invocations;
    uint32_t max_shared_memory_bytes;
    uint64_t max_storage_buffer_range;
    uint32_t multiprocessors;        /* SMs or compute units where the driver tells, else 0 */
    bool suitable;                   /* has what the sort needs (a compute queue, push descriptors) */
} bitonic_device_info;

/* Writes up to capacity entries and sets *out_count to the number of devices.
 * BITONIC_ERROR_VULKAN_UNAVAILABLE when there is no loader or no driver. */
BITONIC_API bitonic_status bitonic_list_devices(bitonic_device_info *out_devices, uint32_t capacity, uint32_t *out_count);

#ifdef __cplusplus
}
#endif

#endif /* BITONIC_H */
