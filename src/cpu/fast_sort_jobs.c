/* fast_sort_jobs.c: the threads of the fast CPU sort. One call runs a set of
 * jobs, one per thread, the first on the calling thread; the driver
 * (fast_sort_driver.inc) runs its partitions and work queue through it, and the
 * CPU backend its passes around the sort (packing pairs, the order maps), so
 * that every pass of a sort uses the same threads and the same rule for how
 * many. */
#include "fast_sort.h"

#include <pthread.h>

typedef struct job_thread {
    bitonic_cpu_job_fn run;
    void *job;
} job_thread;

static void *job_thread_main(void *arg)
{
    job_thread *thread = arg;
    thread->run(thread->job);
    return NULL;
}

void bitonic_cpu_run_jobs(bitonic_cpu_job_fn run, void *jobs, size_t job_size, uint32_t job_count)
{
    pthread_t handles[BITONIC_CPU_MAX_THREADS];
    job_thread threads[BITONIC_CPU_MAX_THREADS];
    int started[BITONIC_CPU_MAX_THREADS];
    char *job_bytes = jobs;
    if (job_count > BITONIC_CPU_MAX_THREADS)
        job_count = BITONIC_CPU_MAX_THREADS;
    for (uint32_t i = 1; i < job_count; i++) {
        threads[i] = (job_thread){run, job_bytes + i * job_size};
        started[i] = pthread_create(&handles[i], NULL, job_thread_main, &threads[i]) == 0;
    }
    if (job_count > 0)
        run(job_bytes);
    for (uint32_t i = 1; i < job_count; i++) {
        if (started[i])
            pthread_join(handles[i], NULL);
        else
            run(job_bytes + i * job_size);
    }
}

typedef struct slice_job {
    bitonic_cpu_slice_fn run;
    void *context;
    size_t begin, end;
} slice_job;

static void slice_job_run(void *arg)
{
    slice_job *job = arg;
    if (job->begin < job->end)
        job->run(job->context, job->begin, job->end);
}

void bitonic_cpu_run_slices(bitonic_cpu_slice_fn run, void *context, size_t count, uint32_t threads)
{
    /* A slice under this is done before a thread would have started. */
    size_t most_threads = count / BITONIC_CPU_PARALLEL_MIN_SLICE;
    if (threads > most_threads)
        threads = (uint32_t)most_threads;
    if (threads > BITONIC_CPU_MAX_THREADS)
        threads = BITONIC_CPU_MAX_THREADS;
    if (threads <= 1) {
        if (count > 0)
            run(context, 0, count);
        return;
    }
    slice_job slices[BITONIC_CPU_MAX_THREADS];
    for (uint32_t i = 0; i < threads; i++)
        slices[i] = (slice_job){run, context, count * i / threads, count * (i + 1) / threads};
    bitonic_cpu_run_jobs(slice_job_run, slices, sizeof slices[0], threads);
}
