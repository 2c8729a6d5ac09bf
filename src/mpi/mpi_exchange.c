/* mpi_exchange.c: the all-to-all of sorted runs, for any counts.
 *
 * MPI counts and displacements are ints (MPI 4's large-count calls are not in
 * Open MPI 4), so one MPI_Alltoallv carries at most 2^31 - 1 elements per rank
 * pair and offsets below 2^31. Past that, or past the caller's message limit,
 * the ranks exchange point to point in rounds: each round posts at most one
 * message of at most max_message elements to and from each peer, with byte
 * addresses computed in size_t, so no count or offset passes an int. The path
 * is agreed by all ranks first, since it decides which calls they make. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static bool fits_in_alltoallv(const uint64_t *counts, uint32_t ranks, size_t max_message)
{
    uint64_t offset = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
        if (counts[r] > max_message || offset > INT_MAX)
            return false;
        offset += counts[r];
    }
    return true;
}

static int alltoallv(MPI_Comm comm, uint32_t ranks, const void *send, const uint64_t *send_counts, void *recv,
                     const uint64_t *recv_counts, MPI_Datatype type, int *table)
{
    int *send_ints = table, *send_offsets = table + ranks, *recv_ints = table + 2 * ranks,
        *recv_offsets = table + 3 * ranks;
    int send_offset = 0, recv_offset = 0;
    for (uint32_t r = 0; r < ranks; ++r) {
        send_ints[r] = (int)send_counts[r];
        send_offsets[r] = send_offset;
        send_offset += send_ints[r];
        recv_ints[r] = (int)recv_counts[r];
        recv_offsets[r] = recv_offset;
        recv_offset += recv_ints[r];
    }
    /* MPI takes a non-const send buffer in older headers. */
    return MPI_Alltoallv((void *)send, send_ints, send_offsets, type, recv, recv_ints, recv_offsets, type, comm);
}

/* Rounds of at most one message of at most max_message elements per peer and
 * direction. Messages between two ranks on one communicator with one tag
 * arrive in the order they were sent, so each side only counts its rounds. */
static int point_to_point(MPI_Comm comm, uint32_t ranks, uint32_t rank, const unsigned char *send,
                          const uint64_t *send_counts, unsigned char *recv, const uint64_t *recv_counts,
                          size_t element_bytes, MPI_Datatype type, size_t max_message, size_t *positions,
                          MPI_Request *requests)
{
    size_t *send_offsets = positions, *recv_offsets = positions + ranks;   /* in elements */
    size_t *sent = positions + 2 * ranks, *received = positions + 3 * ranks;
    for (uint32_t r = 1; r < ranks; ++r) {
        send_offsets[r] = send_offsets[r - 1] + send_counts[r - 1];
        recv_offsets[r] = recv_offsets[r - 1] + recv_counts[r - 1];
    }
    if (send_counts[rank] > 0)
        memcpy(recv + recv_offsets[rank] * element_bytes, send + send_offsets[rank] * element_bytes,
               send_counts[rank] * element_bytes);
    sent[rank] = send_counts[rank];
    received[rank] = recv_counts[rank];
    int result = MPI_SUCCESS;
    for (;;) {
        int request_count = 0;
        for (uint32_t r = 0; r < ranks && result == MPI_SUCCESS; ++r) {
            if (received[r] < recv_counts[r]) {
                size_t n = recv_counts[r] - received[r] < max_message ? recv_counts[r] - received[r] : max_message;
                result = MPI_Irecv(recv + (recv_offsets[r] + received[r]) * element_bytes, (int)n, type, (int)r, 0,
                                   comm, &requests[request_count++]);
                received[r] += n;
            }
        }
        for (uint32_t r = 0; r < ranks && result == MPI_SUCCESS; ++r) {
            if (sent[r] < send_counts[r]) {
                size_t n = send_counts[r] - sent[r] < max_message ? send_counts[r] - sent[r] : max_message;
                result = MPI_Isend((void *)(send + (send_offsets[r] + sent[r]) * element_bytes), (int)n, type, (int)r,
                                   0, comm, &requests[request_count++]);
                sent[r] += n;
            }
        }
        if (request_count == 0)
            break;
        int waited = MPI_Waitall(request_count, requests, MPI_STATUSES_IGNORE);
        if (result == MPI_SUCCESS)
            result = waited;
        if (result != MPI_SUCCESS)
            break;
    }
    return result;
}

int mpi_exchange(MPI_Comm comm, uint32_t ranks, uint32_t rank, const void *send, const uint64_t *send_counts,
                 void *recv, const uint64_t *recv_counts, size_t element_bytes, MPI_Datatype type,
                 size_t max_message, bool *out_chunked)
{
    if (max_message == 0 || max_message > INT_MAX)
        max_message = INT_MAX;
    /* The tables of both paths, allocated before the ranks agree, so that a rank that
     * cannot allocate them fails together with the others instead of leaving them waiting. */
    int *table = malloc(4 * (size_t)ranks * sizeof *table);
    size_t *positions = calloc(4 * (size_t)ranks, sizeof *positions);
    MPI_Request *requests = malloc(2 * (size_t)ranks * sizeof *requests);
    int local[2] = {fits_in_alltoallv(send_counts, ranks, max_message) &&
                        fits_in_alltoallv(recv_counts, ranks, max_message),
                    table && positions && requests};
    int all[2] = {0, 0};
    int result = MPI_Allreduce(local, all, 2, MPI_INT, MPI_LAND, comm);
    if (result == MPI_SUCCESS && !all[1])
        result = MPI_ERR_NO_MEM;
    if (result == MPI_SUCCESS && out_chunked)
        *out_chunked = *out_chunked || !all[0];
    if (result == MPI_SUCCESS && all[0])
        result = alltoallv(comm, ranks, send, send_counts, recv, recv_counts, type, table);
    else if (result == MPI_SUCCESS)
        result = point_to_point(comm, ranks, rank, send, send_counts, recv, recv_counts, element_bytes, type,
                                max_message, positions, requests);
    free(table);
    free(positions);
    free(requests);
    return result;
}
