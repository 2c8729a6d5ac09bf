/* fast_sort_threads.c: the fast CPU sort on several cores.
 * A quicksort whose top levels partition in parallel: each thread partitions its
 * own slice around a shared pivot with the vector kernel, then the keys that sit
 * on the wrong side of the global split are swapped across, again in parallel.
 * The two sides then go to disjoint groups of threads, sized by their key counts,
 * until every group is one thread, which runs the sequential sort. A serial first
 * partition would cap two cores at about 1.6x; this keeps every pass parallel.
 * If a thread cannot be created, its work runs on the calling thread instead, so
 * the sort never fails for lack of threads. */
#include "fast_sort.h"

#include <pthread.h>

/* Below this many keys per thread, starting threads costs more than it saves. */
#define PARALLEL_MIN_KEYS_PER_THREAD ((size_t)1 << 16)
/* Swapping fewer keys than this across threads is not worth a thread start. */
#define PARALLEL_MIN_SWAP_KEYS ((size_t)1 << 16)

size_t bitonic_cpu_parallel_min_keys(uint32_t threads)
{
    return PARALLEL_MIN_KEYS_PER_THREAD * threads;
}

typedef void (*job_fn)(void *job);

typedef struct job_thread {
    job_fn run;
    void *job;
} job_thread;

static void *job_thread_main(void *arg)
{
    job_thread *thread = arg;
    thread->run(thread->job);
    return NULL;
}

/* Runs run(jobs + i * job_size) for i < job_count, job 0 on the calling thread. */
static void run_jobs(job_fn run, void *jobs, size_t job_size, uint32_t job_count)
{
    pthread_t handles[BITONIC_CPU_MAX_THREADS];
    job_thread threads[BITONIC_CPU_MAX_THREADS];
    int started[BITONIC_CPU_MAX_THREADS];
    char *job_bytes = jobs;
    for (uint32_t i = 1; i < job_count; i++) {
        threads[i] = (job_thread){run, job_bytes + i * job_size};
        started[i] = pthread_create(&handles[i], NULL, job_thread_main, &threads[i]) == 0;
    }
    run(job_bytes);
    for (uint32_t i = 1; i < job_count; i++) {
        if (started[i])
            pthread_join(handles[i], NULL);
        else
            run(job_bytes + i * job_size);
    }
}

typedef struct slice_partition_job {
    const bitonic_cpu_kernels *kernels;
    uint32_t *keys;
    size_t begin, end;
    uint32_t pivot;
    size_t below; /* out */
} slice_partition_job;

static void slice_partition_run(void *arg)
{
    slice_partition_job *job = arg;
    job->below = job->kernels->partition(job->keys + job->begin, job->end - job->begin, job->pivot);
}

typedef struct key_interval {
    size_t begin, end;
} key_interval;

/* Keys below the pivot that lie right of the split, and keys above it that lie
 * left of it: equally many, listed slice by slice. */
typedef struct misplaced_keys {
    key_interval above_left[BITONIC_CPU_MAX_THREADS];
    key_interval below_right[BITONIC_CPU_MAX_THREADS];
    uint32_t above_left_count, below_right_count;
} misplaced_keys;

typedef struct swap_job {
    uint32_t *keys;
    const misplaced_keys *misplaced;
    size_t first, last; /* offsets into the misplaced keys this job swaps */
} swap_job;

/* Finds the interval holding the offset-th key of a list and the position in it. */
static void seek_interval(const key_interval *list, size_t offset, uint32_t *index, size_t *position)
{
    uint32_t i = 0;
    while (offset >= list[i].end - list[i].begin) {
        offset -= list[i].end - list[i].begin;
        i++;
    }
    *index = i;
    *position = list[i].begin + offset;
}

static void swap_run(void *arg)
{
    swap_job *job = arg;
    if (job->first >= job->last)
        return;
    const key_interval *left = job->misplaced->above_left, *right = job->misplaced->below_right;
    uint32_t left_index, right_index;
    size_t left_pos, right_pos;
    seek_interval(left, job->first, &left_index, &left_pos);
    seek_interval(right, job->first, &right_index, &right_pos);
    size_t remaining = job->last - job->first;
    while (remaining > 0) {
        if (left_pos == left[left_index].end)
            left_pos = left[++left_index].begin;
        if (right_pos == right[right_index].end)
            right_pos = right[++right_index].begin;
        size_t run = left[left_index].end - left_pos;
        if (right[right_index].end - right_pos < run)
            run = right[right_index].end - right_pos;
        if (remaining < run)
            run = remaining;
        uint32_t *a = job->keys + left_pos, *b = job->keys + right_pos;
        for (size_t i = 0; i < run; i++) {
            uint32_t swap = a[i];
            a[i] = b[i];
            b[i] = swap;
        }
        left_pos += run;
        right_pos += run;
        remaining -= run;
    }
}

static void add_interval(key_interval *list, uint32_t *list_count, size_t begin, size_t end)
{
    if (begin < end)
        list[(*list_count)++] = (key_interval){begin, end};
}

/* Partitions keys around pivot with `threads` threads; returns the count below. */
static size_t parallel_partition(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, uint32_t pivot,
                                 uint32_t threads)
{
    slice_partition_job slices[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < threads; i++)
        slices[i] = (slice_partition_job){kernels, keys, count * i / threads, count * (i + 1) / threads, pivot, 0};
    run_jobs(slice_partition_run, slices, sizeof slices[0], threads);

    size_t split = 0;
    for (uint32_t i = 0; i < threads; i++)
        split += slices[i].below;
    misplaced_keys misplaced;
    misplaced.above_left_count = misplaced.below_right_count = 0;
    size_t misplaced_count = 0;
    for (uint32_t i = 0; i < threads; i++) {
        size_t below_end = slices[i].begin + slices[i].below;
        /* Above-pivot keys of this slice that lie left of the split. */
        size_t above_end = slices[i].end < split ? slices[i].end : split;
        add_interval(misplaced.above_left, &misplaced.above_left_count, below_end, above_end);
        if (below_end < above_end)
            misplaced_count += above_end - below_end;
        /* Below-pivot keys of this slice that lie right of the split. */
        size_t below_begin = slices[i].begin > split ? slices[i].begin : split;
        add_interval(misplaced.below_right, &misplaced.below_right_count, below_begin, below_end);
    }

    uint32_t swappers = misplaced_count < PARALLEL_MIN_SWAP_KEYS ? 1 : threads;
    swap_job swaps[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < swappers; i++)
        swaps[i] = (swap_job){keys, &misplaced, misplaced_count * i / swappers, misplaced_count * (i + 1) / swappers};
    run_jobs(swap_run, swaps, sizeof swaps[0], swappers);
    return split;
}

typedef struct sort_job {
    const bitonic_cpu_kernels *kernels;
    uint32_t *keys;
    size_t count;
    uint32_t threads;
    size_t depth_budget;
} sort_job;

static void parallel_sort_run(void *arg);

static void parallel_sort(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, uint32_t threads,
                          size_t depth_budget)
{
    while (threads > 1 && count >= PARALLEL_MIN_KEYS_PER_THREAD * threads) {
        if (depth_budget-- == 0)
            break;
        /* A large sample keeps the two sides within a few percent of the
         * median, which is what balances the thread groups. */
        uint32_t pivot = bitonic_cpu_choose_pivot(kernels, keys, count, BITONIC_CPU_MAX_PIVOT_SAMPLE);
        size_t below = parallel_partition(kernels, keys, count, pivot, threads);
        if (below == 0) {
            size_t equal = pivot == UINT32_MAX ? count : parallel_partition(kernels, keys, count, pivot + 1, threads);
            keys += equal;
            count -= equal;
            continue;
        }
        size_t above = count - below;
        size_t smaller = below < above ? below : above;
        if (smaller * 2 * threads < count) {
            /* Too lopsided to split the threads: sort the small side with all of
             * them, then carry on with the large side. */
            if (below < above) {
                parallel_sort(kernels, keys, below, threads, depth_budget);
                keys += below;
                count = above;
            } else {
                parallel_sort(kernels, keys + below, above, threads, depth_budget);
                count = below;
            }
            continue;
        }
        uint32_t left_threads = (uint32_t)(((uint64_t)threads * below + count / 2) / count);
        if (left_threads < 1)
            left_threads = 1;
        if (left_threads > threads - 1)
            left_threads = threads - 1;
        sort_job sides[2] = {
            {kernels, keys, below, left_threads, depth_budget},
            {kernels, keys + below, above, threads - left_threads, depth_budget},
        };
        run_jobs(parallel_sort_run, sides, sizeof sides[0], 2);
        return;
    }
    bitonic_cpu_sort_sequential(kernels, keys, count);
}

static void parallel_sort_run(void *arg)
{
    sort_job *job = arg;
    parallel_sort(job->kernels, job->keys, job->count, job->threads, job->depth_budget);
}

void bitonic_cpu_sort_parallel(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, uint32_t threads)
{
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;
    parallel_sort(kernels, keys, count, threads ? threads : 1, bitonic_cpu_depth_budget(count));
}

typedef struct reverse_job {
    uint32_t *keys;
    size_t count;
    size_t first, last; /* pairs (i, count-1-i) for first <= i < last */
} reverse_job;

static void reverse_run(void *arg)
{
    reverse_job *job = arg;
    for (size_t i = job->first; i < job->last; i++) {
        uint32_t swap = job->keys[i];
        job->keys[i] = job->keys[job->count - 1 - i];
        job->keys[job->count - 1 - i] = swap;
    }
}

void bitonic_cpu_reverse_parallel(uint32_t *keys, size_t count, uint32_t threads)
{
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;
    if (threads <= 1 || count < PARALLEL_MIN_KEYS_PER_THREAD * threads) {
        bitonic_cpu_reverse(keys, count);
        return;
    }
    reverse_job jobs[BITONIC_CPU_MAX_THREADS];
    size_t pairs = count / 2;
    for (uint32_t i = 0; i < threads; i++)
        jobs[i] = (reverse_job){keys, count, pairs * i / threads, pairs * (i + 1) / threads};
    run_jobs(reverse_run, jobs, sizeof jobs[0], threads);
}
