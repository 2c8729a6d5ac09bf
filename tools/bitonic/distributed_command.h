/* distributed_command.h: `bitonic sort --distributed` and `bitonic bench
 * --distributed`, run under mpirun: every rank reads its own slice of the
 * input, the ranks sort together (bitonic_mpi.h), and each writes its slice of
 * the output into one temporary file that rank 0 renames only when every rank
 * succeeded. Built only when the tool is built with MPI (BITONIC_WITH_MPI). */
#ifndef BITONIC_DISTRIBUTED_COMMAND_H
#define BITONIC_DISTRIBUTED_COMMAND_H

/* The whole command line of the tool (argv[1] is "sort" or "bench", and one
 * argument is "--distributed"). Initialises and finalises MPI; returns the
 * process's exit code, the same on every rank. */
int distributed_main(int argc, char **argv);

#endif /* BITONIC_DISTRIBUTED_COMMAND_H */
