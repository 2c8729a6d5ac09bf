#!/bin/sh
# wide_table.sh: the table of the CPU path's wide sorts (64-bit keys, pairs,
# argsort) against u32 keys, with the peers, on this machine, in one go:
#   1. `bitonic bench --device cpu --types u32,pairs,u64 --pow2` on each thread
#      count (the tool's own table: median and least of its runs, wall time);
#   2. bitonic_cpu_types_bench on each thread count: every wide call through the
#      public API (u32, u64, f64, pairs, stable pairs, argsort, pairs with u64
#      keys), then each type's time divided by u32's at the same n (CPU time on
#      one thread, wall time on more);
#   3. the peers on one thread, where they are built or installed: vqsort and
#      std::sort (bitonic_cpu_wide_peers, needs libhwy-dev), NumPy (np_bench.py).
#
#   bench/cpu/wide_table.sh [build dir] [min log] [max log] [thread counts]
#
# Defaults: build, 16, 24, "1 0" (0: all cores). Needs a Release build with the
# tool and the benches: cmake --build build --target bitonic_cli
# bitonic_cpu_types_bench (and bitonic_cpu_wide_peers for the peers). Run it on
# an otherwise idle machine: the tool's rows are wall time.
set -eu
build=${1:-build}
min_log=${2:-16}
max_log=${3:-24}
thread_counts=${4:-"1 0"}
here=$(cd "$(dirname "$0")" && pwd)
tool=$build/tools/bitonic/bitonic
types_bench=$build/bench/cpu/bitonic_cpu_types_bench
peers=$build/bench/cpu/bitonic_cpu_wide_peers

for program in "$tool" "$types_bench"; do
    if [ ! -x "$program" ]; then
        echo "wide_table.sh: $program is not built (cmake --build $build --target bitonic_cli bitonic_cpu_types_bench)" >&2
        exit 2
    fi
done

echo "# wide_table.sh $build $min_log $max_log \"$thread_counts\", $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# $(uname -m), $(getconf _NPROCESSORS_ONLN) cores online; $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"

for threads in $thread_counts; do
    echo
    echo "== bitonic bench --device cpu --types u32,pairs,u64 --pow2 --min-log $min_log --max-log $max_log --cpu-threads $threads"
    "$tool" bench --device cpu --types u32,pairs,u64 --pow2 --min-log "$min_log" --max-log "$max_log" \
        --cpu-threads "$threads"
done

for threads in $thread_counts; do
    echo
    echo "== bitonic_cpu_types_bench $min_log $max_log $threads (type log2(n) cpu_ms wall_ms)"
    out=$("$types_bench" "$min_log" "$max_log" "$threads")
    echo "$out"
    echo
    if [ "$threads" = 1 ]; then column=3; what="CPU time"; else column=4; what="wall time"; fi
    echo "== ratio to u32 at the same n, $what, threads $threads (type log2(n) ms ratio)"
    echo "$out" | awk -v c="$column" '
        { ms[$1 " " $2] = $c; if (!($1 in seen)) { seen[$1] = 1; order[++types] = $1 }; if (!($2 in logs)) { logs[$2] = 1; sizes[++n] = $2 } }
        END { for (t = 1; t <= types; t++) for (i = 1; i <= n; i++) {
                  k = order[t] " " sizes[i]; u = ms["u32 " sizes[i]]
                  if (k in ms && u > 0) printf "%-8s %2d %10.3f %6.2fx\n", order[t], sizes[i], ms[k], ms[k] / u } }'
done

echo
if [ -x "$peers" ]; then
    echo "== bitonic_cpu_wide_peers $min_log $max_log (peer type log2(n) cpu_ms, one thread)"
    "$peers" "$min_log" "$max_log"
else
    echo "== vqsort and std::sort skipped: $peers is not built (needs libhwy-dev)"
fi
echo
if python3 -c 'import numpy' 2>/dev/null; then
    echo "== python3 bench/cpu/np_bench.py $min_log $max_log (numpy type log2(n) cpu_ms, one thread)"
    python3 "$here/np_bench.py" "$min_log" "$max_log"
else
    echo "== NumPy skipped: python3 cannot import numpy"
fi
