#!/bin/bash
# h100_cpu_check.sh: on the GPU machine's 16 cores, in about two minutes: the CPU
# path in-process (`bitonic bench --device cpu`, 2^20..2^26, where the parallel
# partition's cliff at 2^22 was: PERFORMANCE-CPU.md, entry 15), then the host
# sorts' device choice as a one-shot `bitonic sort` meets it (default against
# BITONIC_DEVICE=cpu at 2^20, 2^24 and 2^26, a fresh cache directory, outputs
# compared). Results in $OUT/cpu.tar.gz. Expects build-h100.tar.xz
# (scripts/h100_pack.sh) and .gl/. A rehearsal: DEVICE=llvmpipe OUT=/tmp/out.
set -u
top=${OUT:-out}
out=$top/cpu
mkdir -p "$out"
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
bitonic=build/tools/bitonic/bitonic
status=0
nproc > "$out/cores.txt"
timeout 120 $bitonic bench --device cpu --min-log 20 --max-log 26 --runs 10 --csv > "$out/cpu_bench.csv" 2> "$out/cpu_bench.err" || status=1
cat "$out/cpu_bench.csv"
export XDG_CACHE_HOME=/tmp/bitonic-cpu-check.$$
for log in 20 24 26; do
  head -c $((4 << log)) /dev/urandom > /tmp/k$log.raw
done
for f in 20 20 24 24 26 26; do
  { /usr/bin/time -f "2^$f default: %e s wall" $bitonic sort /tmp/k$f.raw /tmp/o$f.raw --timing; } 2>&1 | tee -a "$out/cli.txt"
done
for f in 20 24 26; do
  { BITONIC_DEVICE=cpu /usr/bin/time -f "2^$f cpu: %e s wall" $bitonic sort /tmp/k$f.raw /tmp/c$f.raw --timing; } 2>&1 | tee -a "$out/cli.txt"
  cmp -s /tmp/o$f.raw /tmp/c$f.raw && echo "2^$f: outputs equal" | tee -a "$out/cli.txt" || { echo "2^$f: outputs DIFFER" | tee -a "$out/cli.txt"; status=1; }
done
cat "$XDG_CACHE_HOME"/bitonic/crossover-*.txt > "$out/crossover.txt" 2>/dev/null
rm -rf "$XDG_CACHE_HOME" /tmp/k2?.raw /tmp/o2?.raw /tmp/c2?.raw
tar -czf "$top/cpu.tar.gz" -C "$top" cpu && rm -rf "$out"
exit $status
