#!/bin/sh
# run_mpi.sh MPIEXEC RANKS PROGRAM [ARGS...]: runs PROGRAM on RANKS MPI ranks the
# way CI can: oversubscribed (CI has 2 cores, the tests use up to 4 ranks), and
# as root where the tests run as root (Open MPI refuses root without the flag).
set -eu
mpiexec=$1
ranks=$2
shift 2
root_flag=""
if [ "$(id -u)" -eq 0 ]; then root_flag="--allow-run-as-root"; fi
# The default single-copy mechanism (CMA) needs ptrace rights that containers
# often lack; plain shared-memory copies work everywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
exec "$mpiexec" --oversubscribe $root_flag -n "$ranks" "$@"
