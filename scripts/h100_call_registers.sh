#!/bin/bash
# h100_call_registers.sh: the twelfth session's first device call. Merges that
# store from registers (A, the default) against through shared memory (B), and
# merges that search their own splits on run samples at every size (C) or from
# 4096 chunks (D), as per-pass profiles alternating ABCD twice (2^17..2^26), pairs
# and u64 once each; CUB's u32 sorts right after; then the GPU suites with
# validation. Output under $OUT (log entry 44 of docs/PERFORMANCE.md).
set -u
mkdir -p "$OUT"
SKIP_TESTS=1 B_OPTS="--merge-store-shared" C_OPTS="--merge-fused-split-min-chunks 1" \
  D_OPTS="--merge-fused-split-min-chunks 4096" ROUNDS=2 MIN_LOG=17 MAX_LOG=26 \
  timeout 360 bash scripts/h100_ab_profile.sh > "$OUT/ab_stdout.txt" 2>&1
. scripts/h100_env.sh
timeout 60 build/cub_sort_bench --types u32 --min-log 17 --max-log 26 --csv > "$OUT/cub.csv" 2> "$OUT/cub.err"
export BITONIC_TEST_DEVICE=NVIDIA
for t in test_vulkan_sort test_key_types test_key_types64 test_vulkan_interop test_host_path test_device_addresses; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=18 timeout 120 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> "$OUT/tests.txt"
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> "$OUT/tests.txt"
done
cat "$OUT/tests.txt"
