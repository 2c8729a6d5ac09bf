#!/bin/bash
# h100_call_ab.sh: one device call that compares configurations and checks the
# build: scripts/h100_ab_profile.sh (A_OPTS .. D_OPTS, ROUNDS, MIN_LOG, MAX_LOG as
# there, AB_TYPES and EXTRA_TYPES too) first, while the GPU is warm; CUB's sorts of
# the same sizes and CUB_TYPES (default u32) right after (SKIP_CUB=1 leaves them out); then the test programs named in TESTS
# (default test_vulkan_sort test_key_types) with validation, sizes up to
# 2^TEST_MAX_LOG (18). Output under $OUT: ab_profile.txt, smi.csv, cub.csv,
# tests.txt. The twelfth session's calls (docs/PERFORMANCE.md, log entries 44, 45)
# ran this way.
set -u
mkdir -p "$OUT"
SKIP_TESTS=1 timeout "${AB_TIMEOUT:-330}" bash scripts/h100_ab_profile.sh > "$OUT/ab_stdout.txt" 2>&1
. scripts/h100_env.sh
[ -z "${SKIP_CUB:-}" ] && timeout 60 build/cub_sort_bench --types "${CUB_TYPES:-u32}" --min-log "${MIN_LOG:-18}" \
  --max-log "${MAX_LOG:-24}" --csv > "$OUT/cub.csv" 2> "$OUT/cub.err"
export BITONIC_TEST_DEVICE=NVIDIA
for t in ${TESTS:-test_vulkan_sort test_key_types}; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 150 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> "$OUT/tests.txt"
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> "$OUT/tests.txt"
done
cat "$OUT/tests.txt"
