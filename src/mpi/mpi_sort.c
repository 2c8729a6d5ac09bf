/* mpi_sort.c: the distributed sample sort of bitonic_mpi.h, phase by phase:
 * agree on the arguments, sort locally through the context, choose splitters
 * from regular samples on rank 0, exchange the buckets, merge the received
 * runs, and (unless ranks keep the splitter ranges) move the boundaries so
 * every rank ends with as many keys as it gave.
 *
 * The rule that keeps it from hanging: whatever can fail on one rank alone
 * (an argument, an allocation, the context's sort) is followed by agree(), an
 * MPI_Allreduce of the status, before the next collective; every rank then
 * takes the same branch. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

typedef struct mpi_arrays {
    void *keys;
    uint32_t *values;
} mpi_arrays;

typedef struct mpi_job {
    bitonic_context *context;
    MPI_Comm comm;                   /* the library's duplicate of the caller's communicator */
    uint32_t rank, ranks;
    mpi_sort_shape shape;
    bitonic_mpi_sort_options options;
    bool keep_ranges;
    MPI_Datatype key_datatype;
    void *keys;                      /* the caller's arrays */
    uint32_t *values;
    size_t count;
    uint64_t total;                  /* keys on all ranks */
    /* Per-rank tables, one allocation: every rank's input count, this rank's send
     * and receive counts, where each received run starts (ranks + 1), and every
     * rank's count after the merge. */
    uint64_t *table;
    uint64_t *input_counts, *send_counts, *recv_counts, *run_starts, *merged_counts;
    mpi_arrays received, scratch;    /* the runs received, and the merge's other half */
    bitonic_mpi_timing timing;
} mpi_job;

static bitonic_status agree(MPI_Comm comm, bitonic_status local)
{
    int mine = (int)local, worst = 0;
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    return (bitonic_status)worst;
}

static bitonic_status mpi_status(int result)
{
    return result == MPI_SUCCESS ? BITONIC_SUCCESS : BITONIC_ERROR_COMMUNICATION;
}

static double elapsed_ms(double *since)
{
    double now = MPI_Wtime();
    double ms = (now - *since) * 1e3;
    *since = now;
    return ms;
}

static bool valid_options(const bitonic_mpi_sort_options *options)
{
    return (options->order == BITONIC_ORDER_ASCENDING || options->order == BITONIC_ORDER_DESCENDING) &&
           (unsigned)options->key_type <= (unsigned)BITONIC_KEY_F64 &&
           (unsigned)options->merge <= (unsigned)BITONIC_MPI_MERGE_CONTEXT;
}

static uint32_t default_samples_per_rank(uint32_t ranks)
{
    uint64_t samples = 16u * (uint64_t)ranks;
    return samples < 256 ? 256 : samples > 4096 ? 4096 : (uint32_t)samples;
}

/* Checks this rank's arguments, allocates the tables, and agrees with the other
 * ranks: on the status, and on options that must be the same everywhere (a
 * rank with no keys may leave values NULL where the others give values). */
static bitonic_status begin(mpi_job *job, bool has_context)
{
    bitonic_status status = BITONIC_SUCCESS;
    if (!has_context || (!job->keys && job->count > 0) || !valid_options(&job->options))
        status = BITONIC_ERROR_INVALID_ARGUMENT;
    job->table = malloc((5 * (size_t)job->ranks + 1) * sizeof *job->table);
    if (!job->table && status == BITONIC_SUCCESS)
        status = BITONIC_ERROR_OUT_OF_HOST_MEMORY;
    const bitonic_mpi_sort_options *o = &job->options;
    int word = (int)o->order | (int)o->key_type << 1 | (int)o->stable << 4 | (int)job->keep_ranges << 5;
    int samples = (int)(o->samples_per_rank > INT_MAX ? INT_MAX : o->samples_per_rank);
    int local[7] = {(int)status, word, -word, samples, -samples, job->values != NULL,
                    job->values == NULL && job->count > 0};
    int agreed[7];
    if (MPI_Allreduce(local, agreed, 7, MPI_INT, MPI_MAX, job->comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    if (agreed[0] != BITONIC_SUCCESS)
        return (bitonic_status)agreed[0];
    if (agreed[1] != -agreed[2] || agreed[3] != -agreed[4] || (agreed[5] && agreed[6]))
        return BITONIC_ERROR_INVALID_ARGUMENT;
    size_t ranks = job->ranks;
    job->input_counts = job->table;
    job->send_counts = job->table + ranks;
    job->recv_counts = job->table + 2 * ranks;
    job->merged_counts = job->table + 3 * ranks;
    job->run_starts = job->table + 4 * ranks;
    job->shape = (mpi_sort_shape){
        .key_type = o->key_type,
        .key_bytes = o->key_type >= BITONIC_KEY_U64 ? 8 : 4,
        .has_values = agreed[5] != 0,
        .value_ties = agreed[5] != 0 && !o->stable,
        .flip = o->order == BITONIC_ORDER_DESCENDING ? UINT64_MAX : 0,
    };
    job->key_datatype = job->shape.key_bytes == 8 ? MPI_UINT64_T : MPI_UINT32_T;
    uint64_t count = job->count;
    if (MPI_Allgather(&count, 1, MPI_UINT64_T, job->input_counts, 1, MPI_UINT64_T, job->comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    job->total = 0;
    for (uint32_t r = 0; r < job->ranks; ++r)
        job->total += job->input_counts[r];
    return BITONIC_SUCCESS;
}

static bitonic_status sort_locally(mpi_job *job)
{
    bitonic_sort_options options = {.order = job->options.order, .key_type = job->options.key_type,
                                    .stable = job->options.stable};
    bitonic_status status = job->shape.has_values && job->count > 0
                                ? bitonic_sort_pairs(job->context, job->keys, job->values, job->count, &options)
                                : bitonic_sort(job->context, job->keys, job->count, &options);
    return agree(job->comm, status);
}

/* Regular samples from every rank, gathered on rank 0, which picks the
 * splitters and broadcasts them. Each rank knows every rank's count, so each
 * knows how many samples every rank sends. */
static bitonic_status choose_splitters(mpi_job *job, mpi_probe *splitters)
{
    uint32_t ranks = job->ranks;
    uint64_t per_rank = job->options.samples_per_rank ? job->options.samples_per_rank
                                                      : default_samples_per_rank(ranks);
    /* Rank 0 receives them all in one Gatherv of bytes: keep the total within an int. */
    uint64_t most = (uint64_t)INT_MAX / sizeof(mpi_probe) / ranks;
    if (per_rank > most)
        per_rank = most > 0 ? most : 1;
    size_t mine = mpi_sample_count(job->count, (uint32_t)per_rank);
    size_t all = 0;
    for (uint32_t r = 0; r < ranks; ++r)
        all += mpi_sample_count(job->input_counts[r], (uint32_t)per_rank);
    mpi_probe *samples = malloc((mine ? mine : 1) * sizeof *samples);
    mpi_probe *gathered = NULL;
    int *byte_counts = NULL;
    bool allocated = samples != NULL;
    if (job->rank == 0) {
        gathered = malloc((all ? all : 1) * sizeof *gathered);
        byte_counts = malloc(2 * (size_t)ranks * sizeof *byte_counts);
        allocated = allocated && gathered && byte_counts;
    }
    bitonic_status status = agree(job->comm, allocated ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY);
    if (status == BITONIC_SUCCESS) {
        mpi_take_samples(&job->shape, job->keys, job->values, job->count, job->rank, mine, samples);
        int *byte_offsets = NULL;
        if (job->rank == 0) {
            byte_offsets = byte_counts + ranks;
            int offset = 0;
            for (uint32_t r = 0; r < ranks; ++r) {
                byte_counts[r] = (int)(mpi_sample_count(job->input_counts[r], (uint32_t)per_rank) * sizeof(mpi_probe));
                byte_offsets[r] = offset;
                offset += byte_counts[r];
            }
        }
        status = mpi_status(MPI_Gatherv(samples, (int)(mine * sizeof *samples), MPI_BYTE, gathered, byte_counts,
                                        byte_offsets, MPI_BYTE, 0, job->comm));
    }
    if (status == BITONIC_SUCCESS && job->rank == 0)
        mpi_choose_splitters(gathered, all, job->total, ranks, splitters);
    if (status == BITONIC_SUCCESS && ranks > 1)
        status = mpi_status(MPI_Bcast(splitters, (int)((ranks - 1) * sizeof *splitters), MPI_BYTE, 0, job->comm));
    free(samples);
    free(gathered);
    free(byte_counts);
    return status;
}

/* AUTO: on a GPU, the context's sort of the received runs (on the device, where
 * the rank's fast sort is). On the CPU path, measured on 2^23 keys a rank
 * (docs/DISTRIBUTED.md): the SIMD radix sort beats the host merge for 32-bit
 * keys alone (25 ms against 31), but the host merge wins by 4x to 7x for pairs
 * and 64-bit keys, whose CPU sorts are much slower. */
static bitonic_mpi_merge merge_of(const mpi_job *job)
{
    if (job->options.merge != BITONIC_MPI_MERGE_AUTO)
        return job->options.merge;
    bitonic_context_info info;
    bool on_gpu = bitonic_context_get_info(job->context, &info) == BITONIC_SUCCESS &&
                  info.backend == BITONIC_BACKEND_VULKAN;
    bool radix_wins = job->shape.key_bytes == 4 && !job->shape.has_values;
    return on_gpu || radix_wins ? BITONIC_MPI_MERGE_CONTEXT : BITONIC_MPI_MERGE_HOST;
}

/* Arrays for count elements of the job's shape (never a NULL pointer on
 * success, so that failure is unambiguous). */
static bool allocate_arrays(const mpi_job *job, size_t count, mpi_arrays *out)
{
    out->keys = malloc((count ? count : 1) * job->shape.key_bytes);
    out->values = job->shape.has_values ? malloc((count ? count : 1) * sizeof *out->values) : NULL;
    return out->keys && (out->values || !job->shape.has_values);
}

static void free_arrays(mpi_arrays *arrays)
{
    free(arrays->keys);
    free(arrays->values);
    *arrays = (mpi_arrays){0};
}

static bitonic_status exchange_arrays(mpi_job *job, const mpi_arrays *from, const uint64_t *send_counts,
                                      const mpi_arrays *to, const uint64_t *recv_counts)
{
    size_t limit = job->options.max_message_elements;
    bitonic_status status = mpi_status(mpi_exchange(job->comm, job->ranks, job->rank, from->keys, send_counts, to->keys,
                                                    recv_counts, job->shape.key_bytes, job->key_datatype, limit,
                                                    &job->timing.chunked_exchange));
    if (status == BITONIC_SUCCESS && job->shape.has_values)
        status = mpi_status(mpi_exchange(job->comm, job->ranks, job->rank, from->values, send_counts, to->values,
                                         recv_counts, sizeof(uint32_t), MPI_UINT32_T, limit,
                                         &job->timing.chunked_exchange));
    return status;
}

/* The buckets: counts by the splitters, the counts all-to-all, then the data. */
static bitonic_status exchange_buckets(mpi_job *job, const mpi_probe *splitters, bitonic_mpi_merge merge)
{
    mpi_partition(&job->shape, job->keys, job->values, job->count, job->rank, splitters, job->ranks,
                  job->send_counts);
    if (MPI_Alltoall(job->send_counts, 1, MPI_UINT64_T, job->recv_counts, 1, MPI_UINT64_T, job->comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    job->run_starts[0] = 0;
    for (uint32_t r = 0; r < job->ranks; ++r)
        job->run_starts[r + 1] = job->run_starts[r] + job->recv_counts[r];
    size_t received = (size_t)job->run_starts[job->ranks];
    job->timing.received_count = received;
    bool allocated = allocate_arrays(job, received, &job->received);
    if (merge == BITONIC_MPI_MERGE_HOST && job->ranks > 1)
        allocated = allocate_arrays(job, received, &job->scratch) && allocated;
    bitonic_status status = agree(job->comm, allocated ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY);
    if (status != BITONIC_SUCCESS)
        return status;
    return exchange_arrays(job, &(mpi_arrays){job->keys, job->values}, job->send_counts, &job->received,
                           job->recv_counts);
}

static bitonic_status merge_runs(mpi_job *job, bitonic_mpi_merge merge)
{
    size_t count = (size_t)job->run_starts[job->ranks];
    bitonic_status status = BITONIC_SUCCESS;
    if (job->ranks == 1) {
        /* One run: already sorted. */
    } else if (merge == BITONIC_MPI_MERGE_HOST) {
        if (mpi_merge_runs(&job->shape, job->received.keys, job->received.values, job->scratch.keys,
                           job->scratch.values, job->run_starts, job->ranks)) {
            mpi_arrays swap = job->received;
            job->received = job->scratch;
            job->scratch = swap;
        }
    } else {
        /* Runs in rank order, each sorted by (key, position): a stable sort gives
         * (key, rank, position); an unstable pair sort orders ties by value, as the
         * host merge does. */
        bitonic_sort_options options = {.order = job->options.order, .key_type = job->options.key_type,
                                        .stable = job->options.stable};
        status = job->shape.has_values && count > 0
                     ? bitonic_sort_pairs(job->context, job->received.keys, job->received.values, count, &options)
                     : bitonic_sort(job->context, job->received.keys, count, &options);
    }
    free_arrays(&job->scratch);
    return agree(job->comm, status);
}

/* Every rank's merged run is a slice of the global order; move the slice
 * boundaries to where the input counts put them. Only keys near the boundaries
 * move, mostly to neighbours. */
static bitonic_status balance(mpi_job *job)
{
    uint64_t merged = job->run_starts[job->ranks];
    if (MPI_Allgather(&merged, 1, MPI_UINT64_T, job->merged_counts, 1, MPI_UINT64_T, job->comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    uint64_t my_merged_start = 0, my_target_start = 0;
    for (uint32_t r = 0; r < job->rank; ++r) {
        my_merged_start += job->merged_counts[r];
        my_target_start += job->input_counts[r];
    }
    uint64_t my_merged_end = my_merged_start + merged, my_target_end = my_target_start + job->count;
    uint64_t merged_start = 0, target_start = 0;
    for (uint32_t r = 0; r < job->ranks; ++r) {
        uint64_t merged_end = merged_start + job->merged_counts[r], target_end = target_start + job->input_counts[r];
        /* What this rank holds of rank r's target range, and what rank r holds of this rank's. */
        uint64_t low = my_merged_start > target_start ? my_merged_start : target_start;
        uint64_t high = my_merged_end < target_end ? my_merged_end : target_end;
        job->send_counts[r] = high > low ? high - low : 0;
        low = merged_start > my_target_start ? merged_start : my_target_start;
        high = merged_end < my_target_end ? merged_end : my_target_end;
        job->recv_counts[r] = high > low ? high - low : 0;
        merged_start = merged_end;
        target_start = target_end;
    }
    return exchange_arrays(job, &job->received, job->send_counts, &(mpi_arrays){job->keys, job->values},
                           job->recv_counts);
}

static bitonic_status run_phases(mpi_job *job, bitonic_mpi_result *out_result)
{
    double since = MPI_Wtime();
    bitonic_status status = sort_locally(job);
    job->timing.local_sort_ms = elapsed_ms(&since);
    /* One rank that keeps its count is done: its keys are sorted in place. */
    job->timing.received_count = job->count;
    if (status != BITONIC_SUCCESS || job->total == 0 || (job->ranks == 1 && !job->keep_ranges))
        return status;
    mpi_probe *splitters = malloc((job->ranks > 1 ? job->ranks - 1 : 1) * sizeof *splitters);
    status = agree(job->comm, splitters ? BITONIC_SUCCESS : BITONIC_ERROR_OUT_OF_HOST_MEMORY);
    if (status == BITONIC_SUCCESS)
        status = choose_splitters(job, splitters);
    job->timing.splitters_ms = elapsed_ms(&since);
    bitonic_mpi_merge merge = merge_of(job);
    if (status == BITONIC_SUCCESS)
        status = exchange_buckets(job, splitters, merge);
    free(splitters);
    job->timing.exchange_ms = elapsed_ms(&since);
    if (status == BITONIC_SUCCESS)
        status = merge_runs(job, merge);
    job->timing.merge_ms = elapsed_ms(&since);
    if (status == BITONIC_SUCCESS && !job->keep_ranges)
        status = balance(job);
    job->timing.balance_ms = elapsed_ms(&since);
    if (status == BITONIC_SUCCESS && job->keep_ranges) {
        *out_result = (bitonic_mpi_result){job->received.keys, job->received.values,
                                           (size_t)job->run_starts[job->ranks]};
        job->received = (mpi_arrays){0};
    }
    return status;
}

static bitonic_status sort_distributed(bitonic_context *context, MPI_Comm comm, void *keys, uint32_t *values,
                                       size_t count, const bitonic_mpi_sort_options *options, bool keep_ranges,
                                       bitonic_mpi_result *out_result, bitonic_mpi_timing *out_timing)
{
    double start = MPI_Wtime();
    if (out_timing)
        *out_timing = (bitonic_mpi_timing){0};
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized || comm == MPI_COMM_NULL)
        return BITONIC_ERROR_INVALID_ARGUMENT;
    mpi_job job = {.context = context, .keys = keys, .values = values, .count = count, .keep_ranges = keep_ranges,
                   .options = options ? *options : (bitonic_mpi_sort_options){0}};
    if (MPI_Comm_dup(comm, &job.comm) != MPI_SUCCESS)
        return BITONIC_ERROR_COMMUNICATION;
    MPI_Comm_set_errhandler(job.comm, MPI_ERRORS_RETURN);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(job.comm, &rank);
    MPI_Comm_size(job.comm, &ranks);
    job.rank = (uint32_t)rank;
    job.ranks = (uint32_t)ranks;
    bitonic_status status = begin(&job, context != NULL && (!keep_ranges || out_result != NULL));
    if (status == BITONIC_SUCCESS)
        status = run_phases(&job, out_result);
    free_arrays(&job.received);
    free_arrays(&job.scratch);
    free(job.table);
    MPI_Comm_free(&job.comm);
    job.timing.total_ms = (MPI_Wtime() - start) * 1e3;
    if (out_timing)
        *out_timing = job.timing;
    return status;
}

bitonic_status bitonic_mpi_sort(bitonic_context *context, MPI_Comm comm, void *keys, uint32_t *values,
                                size_t count, const bitonic_mpi_sort_options *options,
                                bitonic_mpi_timing *out_timing)
{
    return sort_distributed(context, comm, keys, values, count, options, false, NULL, out_timing);
}

bitonic_status bitonic_mpi_sort_ranges(bitonic_context *context, MPI_Comm comm, void *keys, uint32_t *values,
                                       size_t count, const bitonic_mpi_sort_options *options,
                                       bitonic_mpi_result *out_result, bitonic_mpi_timing *out_timing)
{
    if (out_result)
        *out_result = (bitonic_mpi_result){0};
    return sort_distributed(context, comm, keys, values, count, options, true, out_result, out_timing);
}

void bitonic_mpi_result_free(bitonic_mpi_result *result)
{
    if (!result)
        return;
    free(result->keys);
    free(result->values);
    *result = (bitonic_mpi_result){0};
}
