#!/bin/bash
# h100_call_large_bench.sh: one device call of under nine minutes that times the
# sizes issue 10 names above the final bench's 2^26 + 1 (2^27, 2^27 + 1,
# 1.5 x 2^27, 2^28, 2^28 + 1 by default) beside CUB, with the final bench's
# method: SWEEPS identical sweeps (default 3) of `bitonic bench --csv
# --batch-log` with the SM clock sampled, the per-pass profile of the powers of
# two, CUB's sorts of the same sizes (built here with nvcc while ours run),
# stability.py and compare.py. Everything goes into one tarball,
# $OUT/large_bench.tar.gz: the device tool brings back only a few files from
# $OUT, and a call that left fourteen lost its sweeps (docs/PERFORMANCE.md, log
# entry 103). TYPES (default u32) picks the key types: a sweep of 2^27 to 2^28
# took about 90 s for u32 when the host made and checked the keys on one core
# (threads since), so pairs and u64 may want a call of their own with SWEEPS=1. MIN_LOG and MAX_LOG (27, 28) pick the
# sizes. Expects build-h100.tar.xz or build/ (the tool alone is enough) and .gl/.
# A rehearsal on lavapipe: DEVICE=llvmpipe MIN_LOG=12 MAX_LOG=13 SKIP_CUB=1
# OUT=/tmp/out bash scripts/h100_call_large_bench.sh (run in a copy of the tree).
set -u
top=${OUT:-out}
out=$top/large_bench
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
min_log=${MIN_LOG:-27}
max_log=${MAX_LOG:-28}
types=${TYPES:-u32}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
bitonic=build/tools/bitonic/bitonic
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" 2> /dev/null &
sampler=$!
# CUB builds on the CPU while our sweeps keep the GPU busy.
if [ -z "${SKIP_CUB:-}" ] && [ ! -x build/cub_sort_bench ]; then
  (bash bench/cub/build.sh /tmp/cub_sort_bench > "$out/cub_build.log" 2>&1) &
  cub_build=$!
fi
pairs=""
for run in $(seq "${SWEEPS:-3}"); do
  start=$SECONDS
  timeout "${SWEEP_TIMEOUT:-120}" $bitonic bench --device "$device" --no-e2e --min-log "$min_log" --max-log "$max_log" \
    --types "$types" --csv --batch-log "$out/batch_$run.log" > "$out/sweep_$run.csv" 2>> "$out/bench.err"
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "sweep $run: exit $rc, $((SECONDS - start)) s" | tee -a "$out/steps.txt"
  pairs="$pairs $out/sweep_$run.csv:$out/batch_$run.log"
done
start=$SECONDS
timeout "${PROFILE_TIMEOUT:-90}" $bitonic bench --device "$device" --no-e2e --min-log "$min_log" --max-log "$max_log" \
  --types "$types" --pow2 --profile > "$out/profile.txt" 2>&1 || status=1
echo "profile: $((SECONDS - start)) s" | tee -a "$out/steps.txt"
kill "$sampler" 2> /dev/null
# shellcheck disable=SC2086  # pairs is a list of words
python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/sweeps_clocked.csv" $pairs > "$out/stability.txt"
tail -n 5 "$out/stability.txt"
if [ -z "${SKIP_CUB:-}" ]; then
  if [ -n "${cub_build:-}" ]; then
    wait "$cub_build" && cp /tmp/cub_sort_bench build/ || status=1
  fi
  start=$SECONDS
  timeout "${CUB_TIMEOUT:-120}" build/cub_sort_bench --types "$types" --min-log "$min_log" --max-log "$max_log" --csv \
    > "$out/cub.csv" 2> "$out/cub.err" || status=1
  echo "cub: $((SECONDS - start)) s" | tee -a "$out/steps.txt"
  python3 bench/report/compare.py "$out/sweeps_clocked.csv" "$out/cub.csv" --out "$out/report.md" > /dev/null 2>&1
  grep -E "^\| [0-9]" "$out/report.md"
fi
tar -czf "$top/large_bench.tar.gz" -C "$top" large_bench && rm -rf "$out"
exit $status
