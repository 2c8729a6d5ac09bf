/* mpi_sort.c: the distributed sort of bitonic_mpi.h as docs/API.md quotes it.
 * Run it with any number of ranks (mpirun -np 3 ./mpi_sort cpu): each rank
 * holds 1000 particles' depths, the ranks sort them together with the
 * particle ids as values, and each rank checks what it got: as many keys as it
 * gave, sorted, every one at or above the previous rank's last, and each id
 * still with its depth. The test suite runs it on 2 ranks on the CPU path;
 * tests/test_install.sh builds it against the installed package. */
#include <stdio.h>
#include <stdlib.h>

#include <bitonic_mpi.h>

#define COUNT 1000

/* The depth of particle `id`, so any rank can check any pair it receives. */
static float depth_of(uint32_t id)
{
    return (float)((id * 2654435761u) % 100000u) * 0.01f - 300.0f;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    float depth[COUNT];
    uint32_t particle[COUNT];
    for (uint32_t i = 0; i < COUNT; ++i) {
        particle[i] = (uint32_t)rank * COUNT + i;
        depth[i] = depth_of(particle[i]);
    }

    /* [mpi] */
    bitonic_context *ctx;
    bitonic_status status = bitonic_context_create(&(bitonic_context_desc){.device = argc > 1 ? argv[1] : NULL}, &ctx);
    if (status == BITONIC_SUCCESS) {
        bitonic_mpi_timing timing;
        status = bitonic_mpi_sort(ctx, MPI_COMM_WORLD, depth, particle, COUNT,
                                  &(bitonic_mpi_sort_options){.key_type = BITONIC_KEY_F32, .stable = true}, &timing);
        /* the same status on every rank; on success this rank's COUNT depths are sorted and
         * follow every depth on rank - 1; timing.local_sort_ms, .exchange_ms, .merge_ms, ... */
        bitonic_context_destroy(ctx);
    }
    /* [mpi] */

    int ok = status == BITONIC_SUCCESS;
    for (uint32_t i = 0; ok && i < COUNT; ++i)
        ok = depth[i] == depth_of(particle[i]) && (i == 0 || depth[i - 1] <= depth[i]);
    /* Each rank's first depth must not be below the previous rank's last. */
    float last = depth[COUNT - 1], previous = -1e30f;
    MPI_Sendrecv(&last, 1, MPI_FLOAT, rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL, 0, &previous, 1, MPI_FLOAT,
                 rank > 0 ? rank - 1 : MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok = ok && previous <= depth[0];
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks: %s (%s)\n", ranks, all ? "sorted across the ranks" : "FAILED", bitonic_status_string(status));
    MPI_Finalize();
    return all ? 0 : 1;
}
