#!/bin/bash
# h100_tile_sort.sh: the merge sort of a tile (tile_sort_pass.comp) against the
# network's tile sort on the GPU machine, in one call of about six minutes: the
# Vulkan test programs with validation on (sizes up to 2^18; the device-address
# path forced), then alternating sweeps of the default and --network-tile-sort
# (u32 2^10..2^24, the SM clock sampled), a per-pass profile of both at 2^20 and
# 2^24, pairs and u64, and 2^LOG u32 keys through the device addresses (default
# 2^32; LOG=none skips it). Results in $OUT/tile_sort.tar.gz. Expects
# build-h100.tar.xz (scripts/h100_pack.sh) and .gl/. A rehearsal on lavapipe:
# DEVICE=llvmpipe MAX_LOG=14 LOG=none TEST_MAX_LOG=12 OUT=/tmp/out bash scripts/h100_tile_sort.sh
set -u
top=${OUT:-out}
out=$top/tile_sort
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
bitonic=build/tools/bitonic/bitonic
export BITONIC_TEST_DEVICE=$device
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" 2>/dev/null &
sampler=$!
status=0
for t in vulkan_sort key_types key_types64 vulkan_interop device_addresses; do
  start=$SECONDS
  BITONIC_DEVICE_ADDRESSES=1 BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 100 build/tests/test_$t > "$out/test_$t.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "test_$t (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/test_$t.log")" | tee -a "$out/summary.txt"
done
grep -h -m 5 -E "FAIL|VALIDATION" "$out"/test_*.log >> "$out/summary.txt"
max_log=${MAX_LOG:-24}
for round in 1 2; do
  for variant in merge network; do
    opts=; [ $variant = network ] && opts=--network-tile-sort
    $bitonic bench --device "$device" --no-e2e --min-log 10 --max-log "$max_log" --csv --batch-log "$out/batch_${variant}_$round.log" \
      $opts > "$out/sweep_${variant}_$round.csv" 2>> "$out/bench.err" || status=1
  done
done
for variant in merge network; do
  opts=; [ $variant = network ] && opts=--network-tile-sort
  $bitonic bench --device "$device" --no-e2e --min-log 20 --max-log "$max_log" --pow2 --profile $opts \
    > "$out/profile_$variant.txt" 2>> "$out/bench.err" || status=1
  $bitonic bench --device "$device" --no-e2e --min-log 16 --max-log "$max_log" --pow2 --csv --types pairs,u64 $opts \
    > "$out/types_$variant.csv" 2>> "$out/bench.err" || status=1
done
$bitonic bench --device "$device" --no-e2e --min-log 16 --max-log "$max_log" --pow2 --csv --keys-per-thread 8 \
  > "$out/sweep_merge_kpt8.csv" 2>> "$out/bench.err" || status=1
kill $sampler 2>/dev/null
# A compact table: median ms by size, merge against network (round 1 and 2).
python3 - "$out" > "$out/compare.txt" <<'EOF'
import csv, sys, os
d = sys.argv[1]
def load(name):
    rows = {}
    path = os.path.join(d, name)
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            rows[int(r["n"])] = (float(r["median_ms"]), r["verified"])
    return rows
m1, m2, n1, n2 = (load(f"sweep_{v}_{k}.csv") for v in ("merge", "network") for k in (1, 2))
print("n merge1 merge2 network1 network2 network/merge")
for n in sorted(m1):
    if n in n1:
        best_m = min(m1[n][0], m2.get(n, m1[n])[0]); best_n = min(n1[n][0], n2.get(n, n1[n])[0])
        print(n, m1[n][0], m2.get(n, ("-",))[0], n1[n][0], n2.get(n, ("-",))[0], round(best_n / best_m, 3),
              "" if all(x.get(n, (0, "1"))[1] == "1" for x in (m1, m2, n1, n2)) else "UNVERIFIED")
EOF
cat "$out/compare.txt"
for log in ${LOG:-32}; do
  [ "$log" = none ] && break
  start=$SECONDS
  BITONIC_DEVICE_ADDRESSES=1 timeout 150 $bitonic bench --device "$device" --min-log $log --max-log $log --runs 1 \
    --no-e2e --run-buffers 1 --csv --pow2 > "$out/wide_$log.csv" 2> "$out/wide_$log.err"
  echo "2^$log device addresses: exit $?, $((SECONDS - start)) s: $(grep -v '^impl' "$out/wide_$log.csv" | tr '\n' ' ') $(tail -n 1 "$out/wide_$log.err")" |
    tee -a "$out/summary.txt"
done
tar -czf "$top/tile_sort.tar.gz" -C "$top" tile_sort && rm -rf "$out"
exit $status
