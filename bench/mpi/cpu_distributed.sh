#!/bin/sh
# cpu_distributed.sh: the distributed sort on the CPU path of this machine, as
# docs/DISTRIBUTED.md reports it: 1 and 2 ranks, 2^LOG keys (default 24) of
# each type in TYPES (default u32), each merge, one thread a rank (and one rank
# with every core), the phase split from `bitonic
# bench --distributed` (median of RUNS, the slowest rank per phase). The
# machine is shared, so each configuration runs TRIES times (default 3), each
# after waiting (up to a minute) for 3 s in which the CPUs were at least 85%
# idle, and the try with the lowest total is printed (a build that starts
# during a try only slows it). Reads: BITONIC (the tool, default
# build/tools/bitonic/bitonic), LOG, TYPES, RUNS (9), TRIES.
#   sh bench/mpi/cpu_distributed.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
bitonic=${BITONIC:-$root/build/tools/bitonic/bitonic}
log=${LOG:-24}
runs=${RUNS:-9}

# Idle share of all CPUs, in percent, over the given seconds.
idle_over() {
  set -- "$1" $(head -n 1 /proc/stat)
  sleep "$1"
  shift 2
  busy0=$(( $1 + $2 + $3 + $6 + $7 + $8 )) idle0=$(( $4 + $5 ))
  set -- $(head -n 1 /proc/stat)
  shift
  busy1=$(( $1 + $2 + $3 + $6 + $7 + $8 )) idle1=$(( $4 + $5 ))
  echo $(( 100 * (idle1 - idle0) / (busy1 - busy0 + idle1 - idle0 + 1) ))
}

for type in ${TYPES:-u32}; do
  for config in "1 --cpu-threads 0" "1 --cpu-threads 1" "2 --cpu-threads 1 --merge host" \
                "2 --cpu-threads 1 --merge context"; do
    set -- $config
    ranks=$1
    shift
    best="" best_total=""
    for try in $(seq "${TRIES:-3}"); do
      waits=0
      while [ "$(idle_over 3)" -lt 85 ] && [ $waits -lt 20 ]; do waits=$((waits + 1)); done
      line=$(sh "$root/tests/run_mpi.sh" mpiexec "$ranks" "$bitonic" bench --distributed --device cpu \
        --log "$log" --runs "$runs" --types "$type" "$@")
      total=$(echo "$line" | sed 's/.*: total \([0-9.]*\) ms.*/\1/')
      if [ -z "$best" ] || awk -v a="$total" -v b="$best_total" 'BEGIN { exit !(a < b) }'; then
        best=$line best_total=$total
      fi
      echo "  try $try: $total ms (waited $((waits * 3)) s for idle CPUs)" >&2
    done
    echo "$best"
  done
done
