#!/bin/bash
# h100_wide_choice.sh OUTDIR: the device choice of host sorts of pairs and
# 64-bit keys (device_choice.c: a crossover of their own) on the GPU machine,
# in one call of about 2 minutes. With a fresh cache directory: test_host_path
# on the GPU; then the default selection calibrates on its first host sort
# (u32 keys, then pairs) and the crossover file is printed; then `bitonic sort`
# of u64 .npy files and `--argsort` of u32 files (pairs inside) at 2^16..2^24,
# the default selection against BITONIC_DEVICE=cpu and the GPU by name, best
# of 3 wall times, outputs compared. Writes OUTDIR/wide_choice.txt.
# Run from the repository root with build-h100.tar.xz and .gl/ in place.
set -u
out=${1:?usage: scripts/h100_wide_choice.sh OUTDIR}
mkdir -p "$out"
. scripts/h100_env.sh
report="$out/wide_choice.txt"
: > "$report"
say() { echo "$*" | tee -a "$report"; }
export XDG_CACHE_HOME=$(mktemp -d)
bitonic=build/tools/bitonic/bitonic
say "# h100_wide_choice.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
BITONIC_TEST_DEVICE=NVIDIA timeout 120 build/tests/test_host_path > "$out/test_host_path.log" 2>&1
say "test_host_path (exit $?): $(tail -n 1 "$out/test_host_path.log")"
grep -m 5 -E "FAIL|VALIDATION" "$out/test_host_path.log" | tee -a "$report"
work=$(mktemp -d)
head -c $((4 << 20)) /dev/urandom > "$work/k20.raw"
say "## calibration: the first default-selection sort of a GPU machine"
/usr/bin/time -f "wall %e s" "$bitonic" sort "$work/k20.raw" "$work/o20.raw" --timing 2>&1 | tee -a "$report"
"$bitonic" sort "$work/k20.raw" "$work/o20.raw" --timing 2>&1 | tee -a "$report"
cat "$XDG_CACHE_HOME"/bitonic/crossover-* | tee -a "$report"
npy_u64() {  # npy_u64 FILE LOG: 2^LOG random uint64 as .npy (no numpy needed)
  python3 - "$1" "$2" <<'PY'
import os, sys
n = 1 << int(sys.argv[2])
header = "{'descr': '<u8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (63 - (len(header) + 10) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    f.write(os.urandom(8 * n))
PY
}
best() {  # best LABEL CMD...: the best of 3 wall times and the last --timing line
  local label=$1; shift
  local best_ms=999999 line=""
  for r in 1 2 3; do
    local start=$(date +%s%N)
    line=$("$@" --timing 2>&1 | tail -n 1)
    local ms=$(( ($(date +%s%N) - start) / 1000000 ))
    [ $ms -lt $best_ms ] && best_ms=$ms
  done
  say "$label: best of 3 ${best_ms} ms; $line"
}
say "## u64 .npy and u32 --argsort: default, BITONIC_DEVICE=cpu, the GPU by name"
for log in 16 20 22 24; do
  npy_u64 "$work/w$log.npy" $log
  head -c $((4 << log)) /dev/urandom > "$work/k$log.raw"
  best "u64 2^$log default" "$bitonic" sort "$work/w$log.npy" "$work/d$log.npy"
  BITONIC_DEVICE=cpu best "u64 2^$log cpu" "$bitonic" sort "$work/w$log.npy" "$work/c$log.npy"
  best "u64 2^$log gpu" "$bitonic" sort "$work/w$log.npy" "$work/g$log.npy" --device NVIDIA
  cmp "$work/d$log.npy" "$work/c$log.npy" && cmp "$work/g$log.npy" "$work/c$log.npy" && say "u64 2^$log: outputs equal"
  best "argsort 2^$log default" "$bitonic" sort "$work/k$log.raw" "$work/a$log.npy" --argsort
  BITONIC_DEVICE=cpu best "argsort 2^$log cpu" "$bitonic" sort "$work/k$log.raw" "$work/b$log.npy" --argsort
  best "argsort 2^$log gpu" "$bitonic" sort "$work/k$log.raw" "$work/h$log.npy" --argsort --device NVIDIA
  cmp "$work/a$log.npy" "$work/b$log.npy" && cmp "$work/h$log.npy" "$work/b$log.npy" && say "argsort 2^$log: outputs equal"
done
rm -rf "$work"
say "## the CPU path in one process (bench --device cpu, pairs and u64)"
timeout 120 "$bitonic" bench --device cpu --min-log 16 --max-log 24 --pow2 --types u32,pairs,u64 --runs 5 2>&1 | grep -E "^bitonic_cpu" | tee -a "$report"
