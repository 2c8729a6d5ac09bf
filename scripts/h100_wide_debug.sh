#!/bin/bash
# h100_wide_debug.sh: the device-address path (BITONIC_DEVICE_ADDRESSES=1) on the
# GPU machine, in one call of under ten minutes (7 x 25 s of tests, 2 x 120 + 130 s
# of sorts), to find why it sorted 2^32 keys wrong on the H100 and failed small
# forced cases there (docs/API.md, "Sizes"; it passes on lavapipe). Each shape of
# test_device_addresses runs on its own with its own time limit (validation on),
# then 2^LOG u32 keys (default 2^32) with the split pass and without it, then
# with PAST31=1 2^(LOG-1) and 2^(LOG-1) + 1; LOG=none skips the large sorts. Results in $OUT/wide.tar.gz. Expects build-h100.tar.xz
# (scripts/h100_pack.sh) and .gl/. A rehearsal on lavapipe, in a copy of the tree:
# DEVICE=llvmpipe LOG=20 OUT=/tmp/out bash scripts/h100_wide_debug.sh
set -u
top=${OUT:-out}
out=$top/wide
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
export BITONIC_DEVICE_ADDRESSES=1 BITONIC_TEST_DEVICE=$device
status=0
# Shape 0 also with bound buffers (BITONIC_TEST_BOUND=1): on the H100 its 64-key
# tile takes the shared-memory tile kernel with 4-thread workgroups (no shuffle
# at subgroup 32), which lavapipe (subgroup 8) never runs in that shape, so a
# failure there too is not the device addresses' doing.
for run in 0 0b 1 2 3 4 5; do
  shape=${run%b}; control=; [ "$run" != "$shape" ] && control=1
  BITONIC_TEST_BOUND=$control BITONIC_TEST_SHAPE=$shape timeout 25 build/tests/test_device_addresses \
    > "$out/shape_$run.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "shape $run (exit $rc): $(head -n 1 "$out/shape_$run.log" | cut -c1-60) $(grep -c FAIL "$out/shape_$run.log") failed, $(tail -n 1 "$out/shape_$run.log")"
done | tee "$out/summary.txt"
# 2^32 with and without the split pass, then 2^31 and 2^31 + 1 (past 2^31 keys
# but below 2^32: where it breaks). A wrong result says where
# (bench.err: the first index out of order, or a changed multiset).
for log in ${LOG:-32}; do
  [ "$log" = none ] && break
  for opts in "--pow2" "--pow2 --merge-split-min-chunks 16777216"; do
    start=$SECONDS
    timeout 120 build/tools/bitonic/bitonic bench --device "$device" --min-log $log --max-log $log --runs 1 \
      --no-e2e --run-buffers 1 --csv $opts > "$out/bench.csv" 2>> "$out/bench.err"
    echo "2^$log $opts: exit $?, $((SECONDS - start)) s: $(grep -v '^impl' "$out/bench.csv" | tr '\n' ' ') $(tail -n 1 "$out/bench.err")" |
      tee -a "$out/summary.txt"
  done
done
[ "${PAST31:-0}" = 1 ] || { tar -czf "$top/wide.tar.gz" -C "$top" wide && rm -rf "$out"; exit $status; }
start=$SECONDS
timeout 130 build/tools/bitonic/bitonic bench --device "$device" --min-log $((${LOG:-32} - 1)) \
  --max-log $((${LOG:-32} - 1)) --runs 1 --no-e2e --run-buffers 1 --csv > "$out/bench_past31.csv" 2> "$out/bench_past31.err"
echo "2^$((${LOG:-32} - 1)) and +1: exit $?, $((SECONDS - start)) s: $(grep -v '^impl' "$out/bench_past31.csv" | tr '\n' ' ') $(tail -n 2 "$out/bench_past31.err" | tr '\n' ' ')" |
  tee -a "$out/summary.txt"
tar -czf "$top/wide.tar.gz" -C "$top" wide && rm -rf "$out"
exit $status
