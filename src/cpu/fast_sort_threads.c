/* fast_sort_threads.c: the fast CPU sort on several cores.
 * The threads share a queue of key ranges ("pieces"), largest first. A thread
 * takes a piece, splits it alone with the vector partition while it is large,
 * offering one side of each split to the queue, and sorts what is left; so a
 * lopsided split or a thread the OS slows down shifts work instead of leaving
 * the others waiting. On 4 or more threads and large inputs, the first passes are
 * partitioned by all threads together (each partitions its own slice around a
 * shared pivot, then the keys on the wrong side of the split are swapped across),
 * so that no thread waits out a serial top level.
 * If a thread cannot be created, its work runs on the calling thread instead, so
 * the sort never fails for lack of threads. */
#include "fast_sort.h"

#include <pthread.h>

/* Below this many keys per thread, starting threads costs more than it saves. */
#define PARALLEL_MIN_KEYS_PER_THREAD ((size_t)1 << 16)
/* The first passes over large inputs are partitioned by all threads together
 * only from this many threads and keys: with prefetching, one thread partitions
 * 2^24 keys in ~2.5 ms, less than the parallel pass plus its cross-slice swap on
 * 2 cores (34.6 vs 36.5 ms for the whole 2^24 sort), but a serial top level
 * would idle 3 or more threads. */
#define PARALLEL_PARTITION_MIN_THREADS 4
#define PARALLEL_PARTITION_MIN_KEYS ((size_t)1 << 22)
/* Workers split pieces down to 1/(GRAIN_PER_THREAD * threads) of the input
 * before sorting one alone, so the last piece a thread finishes while the others
 * idle is short (at 2^24 keys on 2 threads, ~2 ms instead of ~7 ms at 4). */
#ifndef GRAIN_PER_THREAD
#define GRAIN_PER_THREAD 16
#endif
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

/* Pieces waiting in the queue at most; a piece that finds the queue full is
 * sorted by the thread that holds it. */
#define MAX_PIECES (8 * BITONIC_CPU_MAX_THREADS + 16)

typedef struct key_piece {
    uint32_t *keys;
    size_t count;
    size_t depth_budget; /* partitions left before the heapsort guard */
} key_piece;

/* The shared work: pieces not yet taken, and how many threads hold one. Work is
 * over when the queue is empty and nobody holds a piece (nobody can add more). */
typedef struct work_queue {
    const bitonic_cpu_kernels *kernels;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    key_piece pieces[MAX_PIECES];
    size_t piece_count;
    uint32_t busy;
    size_t grain; /* pieces larger than this are split and shared */
} work_queue;

static size_t largest_piece(const key_piece *pieces, size_t piece_count)
{
    size_t largest = 0;
    for (size_t i = 1; i < piece_count; i++)
        if (pieces[i].count > pieces[largest].count)
            largest = i;
    return largest;
}

/* Waits for a piece; returns 0 when all work is done. Largest first, so the
 * pieces left for last are the small ones. */
static int take_piece(work_queue *queue, key_piece *out)
{
    pthread_mutex_lock(&queue->lock);
    while (queue->piece_count == 0 && queue->busy > 0)
        pthread_cond_wait(&queue->changed, &queue->lock);
    int got = queue->piece_count > 0;
    if (got) {
        size_t largest = largest_piece(queue->pieces, queue->piece_count);
        *out = queue->pieces[largest];
        queue->pieces[largest] = queue->pieces[--queue->piece_count];
        queue->busy++;
    }
    pthread_mutex_unlock(&queue->lock);
    return got;
}

/* Offers a piece to idle threads; returns 0 if the queue is full. */
static int share_piece(work_queue *queue, key_piece piece)
{
    pthread_mutex_lock(&queue->lock);
    int shared = queue->piece_count < MAX_PIECES;
    if (shared) {
        queue->pieces[queue->piece_count++] = piece;
        pthread_cond_signal(&queue->changed);
    }
    pthread_mutex_unlock(&queue->lock);
    return shared;
}

static void finish_piece(work_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->busy--;
    if (queue->busy == 0 && queue->piece_count == 0)
        pthread_cond_broadcast(&queue->changed);
    pthread_mutex_unlock(&queue->lock);
}

/* Splits a piece alone until it is no larger than the grain, sharing one side of
 * each split, then sorts what is left. */
static void work_on_piece(work_queue *queue, key_piece piece)
{
    const bitonic_cpu_kernels *kernels = queue->kernels;
    while (piece.count > queue->grain && piece.depth_budget > 0) {
        piece.depth_budget--;
        uint32_t pivot = bitonic_cpu_choose_pivot(kernels, piece.keys, piece.count, 256);
        size_t below = kernels->partition(piece.keys, piece.count, pivot);
        if (below == 0) {
            size_t equal = bitonic_cpu_split_equal(kernels, piece.keys, piece.count, pivot);
            piece.keys += equal;
            piece.count -= equal;
            continue;
        }
        key_piece left = {piece.keys, below, piece.depth_budget};
        key_piece right = {piece.keys + below, piece.count - below, piece.depth_budget};
        /* Keep the larger side: fewer hand-overs, and the shared side is the
         * one an idle thread finishes soonest. */
        key_piece kept = left.count >= right.count ? left : right;
        key_piece offered = left.count >= right.count ? right : left;
        if (!share_piece(queue, offered))
            bitonic_cpu_sort_sequential(kernels, offered.keys, offered.count);
        piece = kept;
    }
    bitonic_cpu_sort_sequential(kernels, piece.keys, piece.count);
}

static void queue_worker_run(void *arg)
{
    work_queue *queue = *(work_queue **)arg;
    key_piece piece;
    while (take_piece(queue, &piece)) {
        work_on_piece(queue, piece);
        finish_piece(queue);
    }
}

/* Two phases. On 4 or more threads and large inputs, while there are fewer
 * pieces than threads, all threads together partition the largest piece, so
 * even the first pass over the data runs on every core. Then each thread takes
 * the largest piece waiting, splits it alone (sharing one side of every split)
 * down to about 1/(16*threads) of the input, and sorts it; a thread the OS slows
 * down or a lopsided split only shifts work to the other threads instead of
 * making them wait. */
void bitonic_cpu_sort_parallel(const bitonic_cpu_kernels *kernels, uint32_t *keys, size_t count, uint32_t threads)
{
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;
    if (threads <= 1 || count < PARALLEL_MIN_KEYS_PER_THREAD * threads) {
        bitonic_cpu_sort_sequential(kernels, keys, count);
        return;
    }
    work_queue queue;
    if (pthread_mutex_init(&queue.lock, NULL) != 0) {
        bitonic_cpu_sort_sequential(kernels, keys, count);
        return;
    }
    if (pthread_cond_init(&queue.changed, NULL) != 0) {
        pthread_mutex_destroy(&queue.lock);
        bitonic_cpu_sort_sequential(kernels, keys, count);
        return;
    }
    queue.kernels = kernels;
    queue.busy = 0;
    queue.grain = count / (GRAIN_PER_THREAD * (size_t)threads);
    if (queue.grain < PARALLEL_MIN_KEYS_PER_THREAD / 2)
        queue.grain = PARALLEL_MIN_KEYS_PER_THREAD / 2;
    queue.pieces[0] = (key_piece){keys, count, bitonic_cpu_depth_budget(count)};
    queue.piece_count = 1;

    while (queue.piece_count < threads && threads >= PARALLEL_PARTITION_MIN_THREADS &&
           count >= PARALLEL_PARTITION_MIN_KEYS) {
        size_t largest = largest_piece(queue.pieces, queue.piece_count);
        key_piece piece = queue.pieces[largest];
        /* Only pieces large enough for every thread: below that, starting all
         * threads twice a split (partition, then swap) costs more than the split.
         * (Going on until there were as many pieces as threads made 16 threads
         * take 43 ms for 2^22 keys on the H100 machine, against 6.5 ms for 2^21.) */
        if (piece.count <= queue.grain || piece.depth_budget == 0 || piece.count < PARALLEL_PARTITION_MIN_KEYS)
            break;
        piece.depth_budget--;
        /* A large sample keeps the two sides within a few percent of the median. */
        uint32_t pivot = bitonic_cpu_choose_pivot(kernels, piece.keys, piece.count, BITONIC_CPU_MAX_PIVOT_SAMPLE);
        size_t below = parallel_partition(kernels, piece.keys, piece.count, pivot, threads);
        if (below == 0) {
            /* Nothing below the pivot: the keys equal to it are final. */
            size_t equal = pivot == UINT32_MAX
                               ? piece.count
                               : parallel_partition(kernels, piece.keys, piece.count, pivot + 1, threads);
            queue.pieces[largest] = (key_piece){piece.keys + equal, piece.count - equal, piece.depth_budget};
            continue;
        }
        queue.pieces[largest] = (key_piece){piece.keys, below, piece.depth_budget};
        queue.pieces[queue.piece_count++] = (key_piece){piece.keys + below, piece.count - below, piece.depth_budget};
    }

    work_queue *workers[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < threads; i++)
        workers[i] = &queue;
    run_jobs(queue_worker_run, workers, sizeof workers[0], threads);
    pthread_cond_destroy(&queue.changed);
    pthread_mutex_destroy(&queue.lock);
}
