#!/bin/bash
# h100_call_fused_probes.sh: the twelfth session's fifth device call. Merges
# below the split pass's threshold search their splits on run samples with 3
# probes a round (A, the default), 7 (B), 5 (C) and 1 (D), as per-pass
# profiles alternating ABCD three times, 2^19..2^21; then test_vulkan_sort and
# test_key_types with validation. Output under $OUT (log entry 45 of
# docs/PERFORMANCE.md).
set -u
mkdir -p "$OUT"
SKIP_TESTS=1 B_OPTS="--merge-fused-split-probes 7" C_OPTS="--merge-fused-split-probes 5" \
  D_OPTS="--merge-fused-split-probes 1" ROUNDS=3 MIN_LOG=19 MAX_LOG=21 \
  timeout 300 bash scripts/h100_ab_profile.sh > "$OUT/ab_stdout.txt" 2>&1
. scripts/h100_env.sh
export BITONIC_TEST_DEVICE=NVIDIA
for t in test_vulkan_sort test_key_types; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=18 timeout 150 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> "$OUT/tests.txt"
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> "$OUT/tests.txt"
done
cat "$OUT/tests.txt"
