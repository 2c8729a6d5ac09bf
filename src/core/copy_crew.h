/* copy_crew.h: a few threads that copy memory together, kept for the length of
 * one host sort so that each chunk of its pipeline (vk_host_sort.c, the chunked
 * host sort) is copied by every core without starting threads per chunk.
 *
 * Why: one core moves a few GB/s, well under the bus; starting eight threads
 * for each of sixteen chunks would cost more than the copies they share. The
 * crew's threads wait between copies by spinning briefly, then sleeping. */
#ifndef BITONIC_COPY_CREW_H
#define BITONIC_COPY_CREW_H

#include <stddef.h>

#include "host_memory.h"

typedef struct bitonic_copy_crew bitonic_copy_crew;

/* One copy of bytes from from to to. The regions must not overlap. */
typedef struct bitonic_copy_job {
    void *to;
    const void *from;
    size_t bytes;
} bitonic_copy_job;

#define BITONIC_COPY_CREW_MAX_JOBS 2u

/* Starts up to threads - 1 helpers (the caller is the last hand), the crew in
 * memory (NULL: the C library's), which must outlive it. NULL when no
 * memory could be had; a crew that could start no helper still copies, on the
 * caller's thread alone. */
bitonic_copy_crew *bitonic_copy_crew_start(const bitonic_host_memory *memory, unsigned threads);

/* Copies up to BITONIC_COPY_CREW_MAX_JOBS jobs, each split among the crew in
 * cache-line slices, and returns when all are done. crew may be NULL (the
 * caller copies alone). */
void bitonic_copy_crew_copy(bitonic_copy_crew *crew, const bitonic_copy_job *jobs, unsigned job_count);

/* How many threads copy, the caller's included. */
unsigned bitonic_copy_crew_threads(const bitonic_copy_crew *crew);

/* Ends the helpers and frees the crew; NULL is fine. */
void bitonic_copy_crew_stop(bitonic_copy_crew *crew);

#endif /* BITONIC_COPY_CREW_H */
