/* vk_host_sort.c: sorts of arrays in host memory on the Vulkan host layer:
 * the caller's arrays imported, pinned or staged (vk_transfer.c), copied, sorted
 * and copied back in one submission, or, when staged and big enough, as a
 * pipeline over chunks whose host copies overlap the bus; the sort of a
 * resident buffer with its timestamps; and the range search. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy_crew.h"
#include "settings.h"
#include "vk_host_internal.h"

/* Below this many bytes an array is staged, not imported: importing pins its
 * pages and makes a buffer, which costs more than copying a small array. */
#define MIN_IMPORT_BYTES ((size_t)1 << 20)
/* On a discrete GPU, up to this many: pinning the caller's pages cost more host
 * time than copying them through a staging buffer with several threads at every
 * size measured on the H100 machine (2^21 to 2^26 u32 keys: 2^24 8.1 ms against
 * 4.0 ms, 2^26 27.7 against 19.2; docs/perf-log.md, the host path). Above it the
 * array is imported anyway, so no staging twin of that size is kept. */
#define DISCRETE_MIN_IMPORT_BYTES ((size_t)512 << 20)
/* Threads that copy a chunk between the caller's array and the staging buffer,
 * at most one a core and at most 8: in one alternated call on the 16-core H100
 * machine, 8 sorted 2^25 and 2^26 keys from host memory in 12.7-13.0 and
 * 24.3-24.8 ms against 13.8-15.3 and 23.2-37.6 with 16 and 15.9-16.7 and
 * 34.2-35.7 with 4 (docs/perf-log.md, entry 29). BITONIC_HOST_COPY_THREADS
 * overrides it (measurements). */
#define MAX_COPY_HANDS 8u

/* The sort of a resident buffer, as the recording API describes it. */
static bitonic_vulkan_sort_info sort_info_for(const bitonic_vk_buffer *buffer, size_t count, bool with_values,
                                              const bitonic_sort_request *request)
{
    return (bitonic_vulkan_sort_info){.keys = buffer->keys.device_buffer, .count = count,
                                      .order = request->order, .key_type = request->key_type,
                                      .row_length = request->row_length,
                                      .values = with_values ? buffer->values.device_buffer : VK_NULL_HANDLE};
}

/* Records the sort with timestamps when timing is wanted and possible, and
 * the passes' names and bytes into the caller's timing where it asks. */
static bitonic_status record_sort(bitonic_vk_context *vk, bitonic_vulkan_sort_info info, bool timed, bool profile,
                                  const bitonic_timing *timing)
{
    if (timed) {
        vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, 0, QUERY_COUNT);
        info.timestamps = vk->query_pool;
        info.profile_passes = profile;
    }
    if (profile && timing && timing->pass_details) {
        info.pass_details = timing->pass_details;
        info.pass_detail_capacity = timing->pass_capacity;
    }
    return bitonic_vulkan_record_sort(vk->sorter, vk->command_buffer, &info);
}

/* passes: what the recorded sort has, so the timestamps it wrote are known. */
static bitonic_status read_timing(bitonic_vk_context *vk, uint32_t passes, bool profile, bitonic_timing *timing)
{
    uint32_t stamps = profile && passes > 0 ? passes + 1u : 2u;
    uint64_t ticks[QUERY_COUNT];
    VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, 0, stamps, sizeof ticks, ticks, sizeof ticks[0],
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
    timing->sort_ms = (double)(ticks[stamps - 1] - ticks[0]) * period_ms;
    timing->pass_count = passes;
    if (profile)
        for (uint32_t p = 0; p < passes && p < timing->pass_capacity; ++p)
            timing->pass_ms[p] = (double)(ticks[p + 1] - ticks[p]) * period_ms;
    return BITONIC_SUCCESS;
}

/* The arrays of a host sort as the device sees them: imported or staged
 * (vk_transfer.c). NULL for a sort of a resident buffer. */
typedef struct host_spans {
    bitonic_vk_host_span keys, values;
    bool with_values;
} host_spans;

/* Timestamps around the stages of a host sort, after the sort's own: before
 * the upload, when the upload's copies are done (written at the TRANSFER stage,
 * which waits for them; the sort's own first stamp, at TOP_OF_PIPE, need not),
 * and when the download's copies are done. The sort's last stamp (BOTTOM_OF_PIPE)
 * ends the sort stage. */
enum {
    STAGE_QUERY_BEFORE_UPLOAD = QUERY_COUNT,
    STAGE_QUERY_AFTER_UPLOAD = QUERY_COUNT + 1,
    STAGE_QUERY_AFTER_DOWNLOAD = QUERY_COUNT + 2,
    STAGE_QUERIES = STAGE_QUERY_COUNT,
};

static void record_host_copies(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, const host_spans *spans,
                               bool to_device)
{
    bitonic_vk_host_span_record_copy(vk->command_buffer, &spans->keys, buffer->keys.staging_buffer,
                                     buffer->keys.device_buffer, 0, to_device);
    if (spans->with_values)
        bitonic_vk_host_span_record_copy(vk->command_buffer, &spans->values, buffer->values.staging_buffer,
                                         buffer->values.device_buffer, 0, to_device);
}

static bitonic_status sort_with_transfers(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, size_t count,
                                          bool with_values, const bitonic_sort_request *request,
                                          bitonic_timing *timing, const host_spans *spans,
                                          bitonic_host_timing *stages)
{
    size_t key_words = bitonic_key_words(request->key_type);
    if (count > buffer->capacity / key_words)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    if (with_values) {
        bitonic_status status = bitonic_vk_ensure_values(vk, buffer);
        if (status != BITONIC_SUCCESS)
            return status;
    }
    bool transfers = spans && count > 0;
    bool staged_timing = transfers && stages && vk->query_pool != VK_NULL_HANDLE;
    bool timed = (timing || staged_timing) && vk->query_pool != VK_NULL_HANDLE;
    bool profile = timed && timing && timing->pass_ms && timing->pass_capacity > 0;
    bitonic_status status = bitonic_vk_begin_commands(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    if (staged_timing) {
        vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, STAGE_QUERY_BEFORE_UPLOAD, STAGE_QUERIES);
        vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->query_pool,
                            STAGE_QUERY_BEFORE_UPLOAD);
    }
    if (transfers) {
        record_host_copies(vk, buffer, spans, true);
        if (staged_timing)
            vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, vk->query_pool,
                                STAGE_QUERY_AFTER_UPLOAD);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    }
    bitonic_vulkan_sort_info info = sort_info_for(buffer, count, with_values, request);
    bitonic_vk_attach_scratch(vk, &info);
    uint32_t passes = bitonic_vulkan_sort_pass_count(vk->sorter, &info);
    status = record_sort(vk, info, timed, profile, timing);
    if (status != BITONIC_SUCCESS) {
        vkEndCommandBuffer(vk->command_buffer);
        return status;
    }
    if (transfers) {
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        record_host_copies(vk, buffer, spans, false);
        bitonic_vk_record_download_barrier(vk);
    }
    if (staged_timing)
        vkCmdWriteTimestamp(vk->command_buffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk->query_pool,
                            STAGE_QUERY_AFTER_DOWNLOAD);
    status = bitonic_vk_submit_and_wait(vk);
    bitonic_timing sort_timing = {0};
    if (status == BITONIC_SUCCESS && timed)
        status = read_timing(vk, passes, profile, timing ? timing : &sort_timing);
    else if (timing && !timed)
        bitonic_timing_reset(timing, passes);
    if (status == BITONIC_SUCCESS && staged_timing) {
        /* The sort's last stamp follows its last pass. */
        uint32_t last = profile && passes > 0 ? passes : 1u;
        uint64_t sort_end, stage_ticks[STAGE_QUERIES];
        VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, last, 1, sizeof sort_end, &sort_end,
                                         sizeof sort_end, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool, STAGE_QUERY_BEFORE_UPLOAD, STAGE_QUERIES,
                                         sizeof stage_ticks, stage_ticks, sizeof stage_ticks[0],
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
        uint64_t before_upload = stage_ticks[0], after_upload = stage_ticks[1], after_download = stage_ticks[2];
        stages->upload_ms = (double)(after_upload - before_upload) * period_ms;
        stages->sort_ms = (double)(sort_end - after_upload) * period_ms;
        stages->download_ms = (double)(after_download - sort_end) * period_ms;
    }
    return status;
}

bitonic_status bitonic_vk_buffer_sort(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, size_t count,
                                      bool with_values, const bitonic_sort_request *request, bitonic_timing *timing)
{
    return sort_with_transfers(vk, buffer, count, with_values, request, timing, NULL, NULL);
}
/* The chunked host sort's command buffers and fences, made once. */
static bitonic_status ensure_chunk_objects(bitonic_vk_context *vk)
{
    if (vk->chunk_objects_made)
        return BITONIC_SUCCESS;
    VkCommandBufferAllocateInfo buffer_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                               .commandPool = vk->command_pool,
                                               .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                               .commandBufferCount = 2 * MAX_HOST_CHUNKS};
    VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &buffer_info, vk->chunk_commands));
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    for (uint32_t c = 0; c < MAX_HOST_CHUNKS; ++c) {
        VkResult result = vkCreateFence(vk->device, &fence_info, vk->allocator, &vk->chunk_fences[c]);
        if (result != VK_SUCCESS) {
            for (uint32_t d = 0; d < c; ++d)
                vkDestroyFence(vk->device, vk->chunk_fences[d], vk->allocator);
            memset(vk->chunk_fences, 0, sizeof vk->chunk_fences);
            vkFreeCommandBuffers(vk->device, vk->command_pool, 2 * MAX_HOST_CHUNKS, vk->chunk_commands);
            memset(vk->chunk_commands, 0, sizeof vk->chunk_commands);
            return fail(vk, result);
        }
    }
    vk->chunk_objects_made = true;
    return BITONIC_SUCCESS;
}

/* How many chunks a staged host sort of bytes is cut into: 1 means no
 * pipeline (too small for two chunks, or turned off). */
static uint32_t host_chunk_count(const bitonic_vk_context *vk, size_t bytes)
{
    if (vk->host_chunk_bytes == 0)
        return 1;
    size_t chunks = bytes / vk->host_chunk_bytes;
    return chunks < 2 ? 1u : chunks > MAX_HOST_CHUNKS ? MAX_HOST_CHUNKS : (uint32_t)chunks;
}

/* Keys [first, end) of one chunk, and its copies in each direction. */
typedef struct host_chunk {
    size_t first, end;
} host_chunk;

/* Where the GPU copies an array's chunks from and to: the staging buffer
 * (which the CPU fills and empties chunk by chunk) or the caller's block of
 * bitonic_host_alloc (which it reads and writes directly). */
typedef struct chunk_source {
    VkBuffer buffer;
    VkDeviceSize offset;             /* where the array starts in it */
    bool copied_on_host;             /* staged: the CPU copies each chunk */
} chunk_source;

/* The measure of the union of the intervals [ticks[2i], ticks[2i+1]]: how long
 * the bus was busy with a direction's copies, which may queue behind each other. */
static uint64_t busy_ticks(const uint64_t *ticks, uint32_t intervals)
{
    uint64_t busy = 0, covered_until = 0;
    for (uint32_t i = 0; i < intervals; ++i) {
        uint64_t begin = ticks[2 * i], end = ticks[2 * i + 1];
        if (end <= begin)
            continue;
        if (begin < covered_until)
            begin = covered_until;
        if (end > begin) {
            busy += end - begin;
            covered_until = end;
        }
    }
    return busy;
}

/* One chunk's copy between the staging buffers and the device buffers, with a
 * timestamp on each side when timed. The first upload first orders itself
 * after the previous submission's writes and resets the chunk queries. */
static bitonic_status record_chunk_copy(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, VkCommandBuffer commands,
                                        const chunk_source sources[2], host_chunk chunk, size_t key_bytes,
                                        bool with_values, bool to_device,
                                        bool first, bool timed, uint32_t query,
                                        const bitonic_vulkan_sort_info *chunk_sort)
{
    VK_TRY(vk, vkResetCommandBuffer(commands, 0));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_TRY(vk, vkBeginCommandBuffer(commands, &begin));
    if (first) {
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        if (timed)
            vkCmdResetQueryPool(commands, vk->query_pool, CHUNK_QUERY_BASE, 4u * MAX_HOST_CHUNKS);
    }
    if (timed)
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk->query_pool, query);
    VkDeviceSize key_at = chunk.first * key_bytes, value_at = chunk.first * sizeof(uint32_t);
    VkBufferCopy key_region = {to_device ? sources[0].offset + key_at : key_at,
                               to_device ? key_at : sources[0].offset + key_at, (chunk.end - chunk.first) * key_bytes};
    VkBufferCopy value_region = {to_device ? sources[1].offset + value_at : value_at,
                                 to_device ? value_at : sources[1].offset + value_at,
                                 (chunk.end - chunk.first) * sizeof(uint32_t)};
    if (to_device) {
        vkCmdCopyBuffer(commands, sources[0].buffer, buffer->keys.device_buffer, 1, &key_region);
        if (with_values)
            vkCmdCopyBuffer(commands, sources[1].buffer, buffer->values.device_buffer, 1, &value_region);
    } else {
        vkCmdCopyBuffer(commands, buffer->keys.device_buffer, sources[0].buffer, 1, &key_region);
        if (with_values)
            vkCmdCopyBuffer(commands, buffer->values.device_buffer, sources[1].buffer, 1, &value_region);
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    }
    if (timed)
        vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, vk->query_pool, query + 1);
    if (chunk_sort) {
        /* After this chunk's copy, and after the previous chunk's sort (they share the scratch). */
        record_buffer_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        bitonic_status sorted = bitonic_vulkan_record_sort(vk->sorter, commands, chunk_sort);
        if (sorted != BITONIC_SUCCESS) {
            vkEndCommandBuffer(commands);
            return sorted;
        }
    }
    VK_TRY(vk, vkEndCommandBuffer(commands));
    return BITONIC_SUCCESS;
}

static bitonic_status submit_commands(bitonic_vk_context *vk, VkCommandBuffer commands, VkFence fence)
{
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &commands};
    VK_TRY(vk, vkQueueSubmit(vk->queue, 1, &submit, fence));
    return BITONIC_SUCCESS;
}

/* The copies of one chunk between the caller's arrays and the staging buffers. */
static void copy_chunk(bitonic_copy_crew *crew, bitonic_vk_buffer *buffer, const chunk_source sources[2], void *keys,
                       uint32_t *values, host_chunk chunk, size_t key_bytes, bool to_staging)
{
    unsigned char *host_keys = (unsigned char *)keys + chunk.first * key_bytes;
    unsigned char *staged_keys = (unsigned char *)buffer->keys.staging + chunk.first * key_bytes;
    bitonic_copy_job jobs[2];
    unsigned job_count = 0;
    if (sources[0].copied_on_host)
        jobs[job_count++] = (bitonic_copy_job){to_staging ? (void *)staged_keys : (void *)host_keys,
                                               to_staging ? host_keys : staged_keys,
                                               (chunk.end - chunk.first) * key_bytes};
    if (values && sources[1].copied_on_host) {
        uint32_t *host_values = values + chunk.first, *staged_values = buffer->values.staging + chunk.first;
        jobs[job_count++] = (bitonic_copy_job){to_staging ? staged_values : host_values,
                                               to_staging ? host_values : staged_values,
                                               (chunk.end - chunk.first) * sizeof(uint32_t)};
    }
    if (job_count > 0)
        bitonic_copy_crew_copy(crew, jobs, job_count);
}

/* The host sort of staged arrays as a pipeline over chunks: the CPU copies
 * chunk i into the staging buffer and submits its upload, so the bus carries
 * chunk i while the CPU copies chunk i+1; the sort follows the last upload; the
 * downloads are submitted at once, each with its fence, and the CPU copies
 * chunk j out while the bus carries chunk j+1. Without it the CPU's copies
 * (3.6 ms at 2^24 on the H100 machine) and the bus's (2.8 ms) ran one after
 * the other. On any failure after the first submission the queue is drained
 * before returning, so nothing pending uses the buffers. */
static bitonic_status sort_in_chunks(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, void *keys, uint32_t *values,
                                     size_t count, const bitonic_sort_request *request, uint32_t chunk_count,
                                     const host_spans *spans, bitonic_timing *timing, bitonic_host_timing *stages)
{
    double start = wall_ms();
    bool with_values = values != NULL;
    size_t key_bytes = bitonic_key_words(request->key_type) * sizeof(uint32_t);
    /* Each array from the staging buffer, or from the caller's pinned block. */
    const bitonic_vk_host_span *array_spans[2] = {&spans->keys, &spans->values};
    device_array *arrays[2] = {&buffer->keys, &buffer->values};
    size_t array_bytes[2] = {count * key_bytes, count * sizeof(uint32_t)};
    chunk_source sources[2] = {{0}};
    bitonic_status status = BITONIC_SUCCESS;
    for (int a = 0; a < (with_values ? 2 : 1) && status == BITONIC_SUCCESS; ++a) {
        if (array_spans[a]->borrowed) {
            sources[a] = (chunk_source){array_spans[a]->imported, array_spans[a]->imported_offset, false};
        } else {
            status = bitonic_vk_ensure_staging(vk, arrays[a], array_bytes[a]);
            sources[a] = (chunk_source){arrays[a]->staging_buffer, 0, true};
        }
    }
    if (status == BITONIC_SUCCESS)
        status = ensure_chunk_objects(vk);
    if (status != BITONIC_SUCCESS)
        return status;
    bitonic_vulkan_sort_info info = sort_info_for(buffer, count, with_values, request);
    bitonic_vk_attach_scratch(vk, &info);  /* before the first submission: nothing pending uses the scratch */
    /* Chunks of whole cache lines of keys (16 keys), the last one shorter. */
    size_t chunk_keys = ((count + chunk_count - 1) / chunk_count + 15u) & ~(size_t)15u;
    /* Where the sort merges runs, each chunk is sorted as soon as it is on the
     * device (while the next one crosses the bus), and the sort after the last
     * upload only merges the chunks: chunks of 2^run_log keys then, with an
     * even number of merge levels above them (the last merge writes the keys'
     * own buffer), so sometimes half as many chunks as the bytes would give. */
    uint32_t tile_log = 0, run_log = 0, total_log = bitonic_ceil_log2(count);
    if (vk->chunk_sort_wanted && bitonic_vk_merge_of_runs_tile_log(vk->sorter, &info, &tile_log) == BITONIC_SUCCESS) {
        uint32_t r = bitonic_ceil_log2((count + chunk_count - 1) / chunk_count);
        if (r < tile_log)
            r = tile_log;
        if (total_log > r && (total_log - r) % 2u != 0)
            ++r;
        if (total_log > r) {
            run_log = r;
            chunk_keys = (size_t)1 << r;
        }
    }
    chunk_count = (uint32_t)((count + chunk_keys - 1) / chunk_keys);
    bool staged_timing = stages && vk->query_pool != VK_NULL_HANDLE;
    bool timed = (timing || staged_timing) && vk->query_pool != VK_NULL_HANDLE;
    bool profile = timed && timing && timing->pass_ms && timing->pass_capacity > 0 && run_log == 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned hands = cores < 1 ? 1u : cores > (long)MAX_COPY_HANDS ? MAX_COPY_HANDS : (unsigned)cores;
    bitonic_setting_value hands_setting;  /* 1 to 64 (settings.c) */
    if (bitonic_setting_read(BITONIC_SETTING_HOST_COPY_THREADS, &hands_setting) && hands_setting.given)
        hands = (unsigned)hands_setting.number;
    bool host_copies = sources[0].copied_on_host || (with_values && sources[1].copied_on_host);
    bitonic_copy_crew *crew = host_copies ? bitonic_copy_crew_start(&vk->host_memory, hands) : NULL;  /* NULL: the caller copies alone */
    bool submitted = false;
    double first_submitted = start, last_arrived = start;
    for (uint32_t c = 0; c < chunk_count && status == BITONIC_SUCCESS; ++c) {
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        bitonic_vulkan_sort_info chunk_sort = info;
        chunk_sort.count = chunk.end - chunk.first;
        chunk_sort.keys_offset = chunk.first * key_bytes;
        chunk_sort.values_offset = chunk.first * sizeof(uint32_t);
        status = record_chunk_copy(vk, buffer, vk->chunk_commands[c], sources, chunk, key_bytes, with_values, true,
                                   c == 0,
                                   staged_timing, CHUNK_QUERY_BASE + 2 * c, run_log > 0 ? &chunk_sort : NULL);
        if (status != BITONIC_SUCCESS)
            break;
        copy_chunk(crew, buffer, sources, keys, values, chunk, key_bytes, true);
        status = submit_commands(vk, vk->chunk_commands[c], VK_NULL_HANDLE);
        if (status == BITONIC_SUCCESS && !submitted) {
            submitted = true;
            first_submitted = wall_ms();
        }
    }
    uint32_t passes = 0;
    if (status == BITONIC_SUCCESS) {
        passes = bitonic_vulkan_sort_pass_count(vk->sorter, &info);
        status = bitonic_vk_begin_commands(vk);
    }
    if (status == BITONIC_SUCCESS) {
        if (run_log > 0) {
            /* The merges of the sorted chunks, timed as the sort stage. */
            if (timed) {
                vkCmdResetQueryPool(vk->command_buffer, vk->query_pool, 0, QUERY_COUNT);
                info.timestamps = vk->query_pool;
            }
            status = bitonic_vk_record_merge_of_runs(vk->sorter, vk->command_buffer, &info, run_log);
        } else {
            status = record_sort(vk, info, timed, profile, timing);
        }
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        VkResult ended = vkEndCommandBuffer(vk->command_buffer);
        if (status == BITONIC_SUCCESS)
            status = ended == VK_SUCCESS ? submit_commands(vk, vk->command_buffer, VK_NULL_HANDLE) : fail(vk, ended);
    }
    uint32_t downloads_submitted = 0;
    for (uint32_t c = 0; c < chunk_count && status == BITONIC_SUCCESS; ++c) {
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        status = record_chunk_copy(vk, buffer, vk->chunk_commands[MAX_HOST_CHUNKS + c], sources, chunk, key_bytes,
                                   with_values, false, false, staged_timing, CHUNK_QUERY_BASE + 2 * (MAX_HOST_CHUNKS + c), NULL);
        if (status == BITONIC_SUCCESS) {
            VkResult reset = vkResetFences(vk->device, 1, &vk->chunk_fences[c]);
            status = reset == VK_SUCCESS ? submit_commands(vk, vk->chunk_commands[MAX_HOST_CHUNKS + c],
                                                           vk->chunk_fences[c])
                                         : fail(vk, reset);
        }
        if (status == BITONIC_SUCCESS)
            ++downloads_submitted;
    }
    for (uint32_t c = 0; c < downloads_submitted && status == BITONIC_SUCCESS; ++c) {
        VkResult waited = vkWaitForFences(vk->device, 1, &vk->chunk_fences[c], VK_TRUE, UINT64_MAX);
        if (waited != VK_SUCCESS) {
            status = fail(vk, waited);
            break;
        }
        last_arrived = wall_ms();
        host_chunk chunk = {c * chunk_keys, c + 1 == chunk_count ? count : (c + 1) * chunk_keys};
        copy_chunk(crew, buffer, sources, keys, values, chunk, key_bytes, false);
    }
    bitonic_copy_crew_stop(crew);
    if (status != BITONIC_SUCCESS) {
        if (submitted)
            vkQueueWaitIdle(vk->queue);
        return status;
    }
    bitonic_timing sort_timing = {0};
    if (timed)
        status = read_timing(vk, passes, profile, timing ? timing : &sort_timing);
    else if (timing)
        bitonic_timing_reset(timing, passes);
    if (status == BITONIC_SUCCESS && stages) {
        double end = wall_ms();
        bitonic_host_timing local = {.ran_on = BITONIC_BACKEND_VULKAN, .count = count, .chunks = chunk_count,
                                     .pinned = spans->keys.borrowed,
                                     .total_ms = end - start, .prepare_ms = first_submitted - start,
                                     .finish_ms = end - last_arrived,
                                     .sort_ms = timing ? timing->sort_ms : sort_timing.sort_ms};
        if (staged_timing) {
            /* Only the queries of the chunks there were: the others stay unwritten. */
            uint64_t ticks[4 * MAX_HOST_CHUNKS];
            for (uint32_t direction = 0; direction < 2; ++direction)
                VK_TRY(vk, vkGetQueryPoolResults(vk->device, vk->query_pool,
                                                 CHUNK_QUERY_BASE + direction * 2u * MAX_HOST_CHUNKS, 2u * chunk_count,
                                                 2u * chunk_count * sizeof ticks[0],
                                                 ticks + direction * 2u * MAX_HOST_CHUNKS, sizeof ticks[0],
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            double period_ms = vk->properties.limits.timestampPeriod * 1e-6;
            local.upload_ms = (double)busy_ticks(ticks, chunk_count) * period_ms;
            local.download_ms = (double)busy_ticks(ticks + 2 * MAX_HOST_CHUNKS, chunk_count) * period_ms;
        }
        *stages = local;
    }
    return status;
}

bitonic_status bitonic_vk_sort_host(bitonic_vk_context *vk, bitonic_vk_buffer *buffer, void *keys,
                                    uint32_t *values, size_t count, const bitonic_sort_request *request,
                                    bitonic_timing *timing, bitonic_host_timing *stages)
{
    double start = wall_ms();
    bool with_values = values != NULL;
    if (with_values) {
        bitonic_status status = bitonic_vk_ensure_values(vk, buffer);
        if (status != BITONIC_SUCCESS)
            return status;
    }
    size_t key_bytes = bitonic_key_words(request->key_type) * sizeof(uint32_t);
    if (count > buffer->capacity / bitonic_key_words(request->key_type))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    /* Keys and values are imported where the driver can (each on its own: one
     * may be aligned well enough and the other not), else staged. */
    host_spans spans = {.with_values = with_values};
    size_t min_import = vk->import_min_given ? vk->import_min_bytes
                        : vk->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? DISCRETE_MIN_IMPORT_BYTES
                                                                                             : MIN_IMPORT_BYTES;
    /* Arrays in blocks of bitonic_host_alloc need neither. */
    bool pinned = bitonic_vk_pinned_span(vk, keys, count * key_bytes, &spans.keys);
    bool imported =
        !pinned && bitonic_vk_host_span_import(&vk->importer, keys, count * key_bytes, min_import, &spans.keys);
    if (with_values && !bitonic_vk_pinned_span(vk, values, count * sizeof(uint32_t), &spans.values))
        bitonic_vk_host_span_import(&vk->importer, values, count * sizeof(uint32_t), min_import, &spans.values);
    /* Arrays staged whole (beside a pinned one or not), and big enough, go
     * through the chunked pipeline: it hides the CPU's copies behind the bus.
     * Arrays all pinned have no copies to hide, and one submission beats the
     * chunks there (H100, 2^24 u32: 4.15-4.44 ms against 5.16; docs/perf-log.md, entry 29). */
    bool staged_keys = spans.keys.imported == VK_NULL_HANDLE, staged_values = with_values &&
                                                                              spans.values.imported == VK_NULL_HANDLE;
    if ((staged_keys || spans.keys.borrowed) && (!with_values || staged_values || spans.values.borrowed) &&
        (staged_keys || staged_values)) {
        uint32_t chunks = host_chunk_count(vk, count * (key_bytes + (with_values ? sizeof(uint32_t) : 0)));
        if (chunks > 1)
            return sort_in_chunks(vk, buffer, keys, values, count, request, chunks, &spans, timing, stages);
    }
    bitonic_status staged =
        bitonic_vk_ensure_staging(vk, &buffer->keys, bitonic_vk_host_span_staging_bytes(&spans.keys));
    if (staged == BITONIC_SUCCESS && with_values)
        staged = bitonic_vk_ensure_staging(vk, &buffer->values, bitonic_vk_host_span_staging_bytes(&spans.values));
    if (staged != BITONIC_SUCCESS) {
        bitonic_vk_host_span_release(&vk->importer, &spans.keys);
        bitonic_vk_host_span_release(&vk->importer, &spans.values);
        return staged;
    }
    bitonic_vk_host_span_stage_ends(&spans.keys, keys, buffer->keys.staging, true);
    if (with_values)
        bitonic_vk_host_span_stage_ends(&spans.values, values, buffer->values.staging, true);
    double prepared = wall_ms();
    bitonic_host_timing local = {0};
    bitonic_status status =
        sort_with_transfers(vk, buffer, count, with_values, request, timing, &spans, stages ? &local : NULL);
    double sorted = wall_ms();
    if (status == BITONIC_SUCCESS) {
        bitonic_vk_host_span_stage_ends(&spans.keys, keys, buffer->keys.staging, false);
        if (with_values)
            bitonic_vk_host_span_stage_ends(&spans.values, values, buffer->values.staging, false);
    }
    bitonic_vk_host_span_release(&vk->importer, &spans.keys);
    bitonic_vk_host_span_release(&vk->importer, &spans.values);
    if (stages && status == BITONIC_SUCCESS) {
        double end = wall_ms();
        local.ran_on = BITONIC_BACKEND_VULKAN;
        local.count = count;
        local.imported = imported;
        local.pinned = pinned;
        local.chunks = 1;
        local.prepare_ms = prepared - start;
        local.finish_ms = end - sorted;
        local.total_ms = end - start;
        *stages = local;
    }
    return status;
}

bitonic_status bitonic_vk_search_host(bitonic_vk_context *vk, const void *sorted_keys, size_t count,
                                      const void *lows, const void *highs, size_t query_count,
                                      uint32_t *out_first, uint32_t *out_end, const bitonic_sort_request *request)
{
    enum { KEYS, LOWS, HIGHS, FIRST, END, ARRAYS };
    bitonic_status made = bitonic_vk_ensure_device(vk);
    if (made != BITONIC_SUCCESS)
        return made;
    if (count >= UINT32_MAX || query_count >= UINT32_MAX)
        return BITONIC_ERROR_TOO_LARGE;  /* the search binds its buffers: far below this */
    device_array arrays[ARRAYS] = {{0}};
    size_t words = bitonic_key_words(request->key_type);  /* per key and per bound */
    size_t sizes[ARRAYS] = {count ? count * words : 1, query_count * words, query_count * words, query_count,
                            query_count};
    bitonic_status status = BITONIC_SUCCESS;
    for (int a = 0; a < ARRAYS && status == BITONIC_SUCCESS; ++a) {
        status = bitonic_vk_create_array(vk, sizes[a], &arrays[a]);
        if (status == BITONIC_SUCCESS)
            status = bitonic_vk_ensure_staging(vk, &arrays[a], (VkDeviceSize)sizes[a] * sizeof(uint32_t));
    }
    if (status == BITONIC_SUCCESS) {
        memcpy(arrays[KEYS].staging, sorted_keys, count * words * sizeof(uint32_t));
        memcpy(arrays[LOWS].staging, lows, query_count * words * sizeof(uint32_t));
        memcpy(arrays[HIGHS].staging, highs, query_count * words * sizeof(uint32_t));
        status = bitonic_vk_begin_commands(vk);
    }
    if (status == BITONIC_SUCCESS) {
        for (int a = KEYS; a <= HIGHS; ++a)
            bitonic_vk_record_upload(vk, &arrays[a], sizes[a]);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        bitonic_vulkan_search_info info = {
            .keys = arrays[KEYS].device_buffer, .count = (uint32_t)count, .order = request->order,
            .key_type = request->key_type, .lows = arrays[LOWS].device_buffer, .highs = arrays[HIGHS].device_buffer,
            .query_count = (uint32_t)query_count, .first = arrays[FIRST].device_buffer,
            .end = arrays[END].device_buffer};
        status = bitonic_vulkan_record_search(vk->sorter, vk->command_buffer, &info);
        record_buffer_barrier(vk->command_buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        bitonic_vk_record_download(vk, &arrays[FIRST], query_count);
        bitonic_vk_record_download(vk, &arrays[END], query_count);
        bitonic_vk_record_download_barrier(vk);
        if (status == BITONIC_SUCCESS)
            status = bitonic_vk_submit_and_wait(vk);
        else
            vkEndCommandBuffer(vk->command_buffer);
    }
    if (status == BITONIC_SUCCESS) {
        memcpy(out_first, arrays[FIRST].staging, query_count * sizeof(uint32_t));
        memcpy(out_end, arrays[END].staging, query_count * sizeof(uint32_t));
    }
    for (int a = 0; a < ARRAYS; ++a)
        bitonic_vk_destroy_array(vk, &arrays[a]);
    return status;
}
