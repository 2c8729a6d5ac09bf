/* copy_crew.c: threads that copy memory together (copy_crew.h).
 *
 * The caller publishes the jobs and bumps a generation counter; each helper
 * sees the new generation, copies its slice of every job and counts itself
 * done. Helpers spin for a short while before sleeping on a condition
 * variable: a chunk of the host sort's pipeline takes a fraction of a
 * millisecond, and waking a sleeping thread costs tens of microseconds, but a
 * thread spinning for long would take a core from the driver (on lavapipe,
 * the GPU itself runs on those cores). */
#define _POSIX_C_SOURCE 200809L
#include "copy_crew.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HELPERS 15u
#define SPIN_ROUNDS 20000u           /* about 50-100 microseconds of polling with yields */
#define SLICE_ALIGN ((size_t)64)     /* slices on cache-line boundaries */

typedef struct helper {
    struct bitonic_copy_crew *crew;
    unsigned index;                  /* 1..helpers; the caller is 0 */
    pthread_t thread;
} helper;

struct bitonic_copy_crew {
    const bitonic_host_memory *memory;  /* the context's, which outlives the crew */
    unsigned hands;                  /* threads copying, the caller's included */
    unsigned helpers_started;
    helper helpers[MAX_HELPERS];
    bitonic_copy_job jobs[BITONIC_COPY_CREW_MAX_JOBS];
    unsigned job_count;
    atomic_uint generation;          /* bumped for each copy; helpers follow it */
    atomic_uint pending;             /* helpers not yet done with this generation */
    atomic_bool quit;
    pthread_mutex_t lock;
    pthread_cond_t wake;             /* a new generation, or quit */
    pthread_cond_t done;             /* pending reached zero */
};

/* The slice [begin, end) of a job that hand index copies. */
static void copy_slice(const bitonic_copy_crew *crew, unsigned index)
{
    for (unsigned j = 0; j < crew->job_count; ++j) {
        const bitonic_copy_job *job = &crew->jobs[j];
        size_t slice = (job->bytes / crew->hands + SLICE_ALIGN - 1) & ~(SLICE_ALIGN - 1);
        size_t begin = (size_t)index * slice;
        if (begin >= job->bytes)
            continue;
        size_t end = begin + slice < job->bytes && index + 1 < crew->hands ? begin + slice : job->bytes;
        memcpy((unsigned char *)job->to + begin, (const unsigned char *)job->from + begin, end - begin);
    }
}

static void *helper_run(void *argument)
{
    helper *self = argument;
    bitonic_copy_crew *crew = self->crew;
    unsigned seen = 0;
    for (;;) {
        unsigned generation = atomic_load(&crew->generation);
        for (unsigned spin = 0; generation == seen && !atomic_load(&crew->quit) && spin < SPIN_ROUNDS; ++spin) {
            if (spin % 64u == 63u)
                sched_yield();
            generation = atomic_load(&crew->generation);
        }
        if (generation == seen && !atomic_load(&crew->quit)) {
            pthread_mutex_lock(&crew->lock);
            while ((generation = atomic_load(&crew->generation)) == seen && !atomic_load(&crew->quit))
                pthread_cond_wait(&crew->wake, &crew->lock);
            pthread_mutex_unlock(&crew->lock);
        }
        if (atomic_load(&crew->quit))
            return NULL;
        seen = generation;
        copy_slice(crew, self->index);
        if (atomic_fetch_sub(&crew->pending, 1u) == 1u) {
            pthread_mutex_lock(&crew->lock);
            pthread_cond_signal(&crew->done);
            pthread_mutex_unlock(&crew->lock);
        }
    }
}

bitonic_copy_crew *bitonic_copy_crew_start(const bitonic_host_memory *memory, unsigned threads)
{
    bitonic_copy_crew *crew = bitonic_host_memory_calloc(memory, 1, sizeof *crew);
    if (!crew)
        return NULL;
    crew->memory = memory;
    atomic_init(&crew->generation, 0u);
    atomic_init(&crew->pending, 0u);
    atomic_init(&crew->quit, false);
    if (pthread_mutex_init(&crew->lock, NULL) != 0) {
        bitonic_host_memory_free(memory, crew);
        return NULL;
    }
    if (pthread_cond_init(&crew->wake, NULL) != 0 || pthread_cond_init(&crew->done, NULL) != 0) {
        pthread_cond_destroy(&crew->wake);
        pthread_mutex_destroy(&crew->lock);
        bitonic_host_memory_free(memory, crew);
        return NULL;
    }
    unsigned wanted = threads > 1 ? threads - 1 : 0;
    if (wanted > MAX_HELPERS)
        wanted = MAX_HELPERS;
    for (unsigned h = 0; h < wanted; ++h) {
        crew->helpers[h] = (helper){.crew = crew, .index = h + 1};
        if (pthread_create(&crew->helpers[h].thread, NULL, helper_run, &crew->helpers[h]) != 0)
            break;  /* fewer hands, same copies */
        crew->helpers_started = h + 1;
    }
    crew->hands = crew->helpers_started + 1;
    return crew;
}

void bitonic_copy_crew_copy(bitonic_copy_crew *crew, const bitonic_copy_job *jobs, unsigned job_count)
{
    if (job_count > BITONIC_COPY_CREW_MAX_JOBS)
        job_count = BITONIC_COPY_CREW_MAX_JOBS;
    if (!crew || crew->helpers_started == 0) {
        for (unsigned j = 0; j < job_count; ++j)
            memcpy(jobs[j].to, jobs[j].from, jobs[j].bytes);
        return;
    }
    memcpy(crew->jobs, jobs, job_count * sizeof *jobs);
    crew->job_count = job_count;
    atomic_store(&crew->pending, crew->helpers_started);
    pthread_mutex_lock(&crew->lock);
    atomic_fetch_add(&crew->generation, 1u);  /* publishes the jobs (sequentially consistent) */
    pthread_cond_broadcast(&crew->wake);
    pthread_mutex_unlock(&crew->lock);
    copy_slice(crew, 0);
    for (unsigned spin = 0; atomic_load(&crew->pending) != 0 && spin < SPIN_ROUNDS; ++spin)
        if (spin % 64u == 63u)
            sched_yield();
    if (atomic_load(&crew->pending) != 0) {
        pthread_mutex_lock(&crew->lock);
        while (atomic_load(&crew->pending) != 0)
            pthread_cond_wait(&crew->done, &crew->lock);
        pthread_mutex_unlock(&crew->lock);
    }
}

unsigned bitonic_copy_crew_threads(const bitonic_copy_crew *crew)
{
    return crew ? crew->hands : 1u;
}

void bitonic_copy_crew_stop(bitonic_copy_crew *crew)
{
    if (!crew)
        return;
    pthread_mutex_lock(&crew->lock);
    atomic_store(&crew->quit, true);
    pthread_cond_broadcast(&crew->wake);
    pthread_mutex_unlock(&crew->lock);
    for (unsigned h = 0; h < crew->helpers_started; ++h)
        pthread_join(crew->helpers[h].thread, NULL);
    pthread_cond_destroy(&crew->wake);
    pthread_cond_destroy(&crew->done);
    pthread_mutex_destroy(&crew->lock);
    bitonic_host_memory_free(crew->memory, crew);
}
