#!/bin/bash
# h100_call_fused.sh: the twelfth session's second device call. The default
# (merges below the split pass's threshold search their splits a thread each
# on run samples; the tile sort leaves samples for the first merge) against
# the same searches by the whole workgroup in k-ary rounds (B), against the
# k-ary search of the keys (C), and against no run samples at all (D): per-pass
# profiles alternating ABCD twice (2^18..2^26), pairs and u64 once each; CUB's
# u32 sorts right after; then the GPU suites with validation. Output under
# $OUT (log entry 44 of docs/PERFORMANCE.md).
set -u
mkdir -p "$OUT"
SKIP_TESTS=1 B_OPTS="--merge-fused-split-cooperative" C_OPTS="--merge-no-fused-split" \
  D_OPTS="--merge-split-no-samples" ROUNDS=2 MIN_LOG=18 MAX_LOG=26 \
  timeout 330 bash scripts/h100_ab_profile.sh > "$OUT/ab_stdout.txt" 2>&1
. scripts/h100_env.sh
timeout 60 build/cub_sort_bench --types u32 --min-log 18 --max-log 26 --csv > "$OUT/cub.csv" 2> "$OUT/cub.err"
export BITONIC_TEST_DEVICE=NVIDIA
for t in test_vulkan_sort test_key_types test_vulkan_interop test_host_path test_api; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=18 timeout 120 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> "$OUT/tests.txt"
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> "$OUT/tests.txt"
done
cat "$OUT/tests.txt"
