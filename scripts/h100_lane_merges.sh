#!/bin/bash
# h100_lane_merges.sh: one device call that measures the tile merge sort's
# first rounds as subgroup shuffles (the default where shuffles exist) against
# the rounds in shared memory (bench --no-subgroup-shuffle): the GPU suites
# that cover the tile pass (with validation), per-pass profiles of both at
# 2^20..2^24 (u32, pairs, u64), then scripts/h100_shape_sweep.sh with the two
# alternating (default three times, no-shuffle twice) and CUB beside them.
# Expects build-h100.tar.xz (scripts/h100_pack.sh) and .gl/. Output under $OUT.
set -u
out=${OUT:-out}
mkdir -p "$out"
. scripts/h100_env.sh
bitonic=build/tools/bitonic/bitonic
export BITONIC_TEST_DEVICE=${BITONIC_TEST_DEVICE:-NVIDIA}
status=0
{
  if [ -z "${SKIP_TESTS:-}" ]; then
    for t in test_vulkan_sort test_key_types test_key_types64; do
      start=$SECONDS
      BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 150 build/tests/$t > /tmp/$t.log 2>&1
      rc=$?; [ $rc -eq 0 ] || status=1
      echo "$t (exit $rc, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)"
      grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log
    done
  fi
  for variant in default no_shuffle; do
    opts=""; [ $variant = no_shuffle ] && opts=--no-subgroup-shuffle
    echo "== profile $variant"
    # shellcheck disable=SC2086  # opts is a word or nothing
    timeout 120 $bitonic bench --device NVIDIA --no-e2e --min-log 20 --max-log 24 --pow2 \
      --types u32,pairs,u64 --profile $opts 2>&1 || status=1
  done
} > "$out/lane_profile.txt" 2>&1
grep -v "^#" "$out/lane_profile.txt" | head -150
SWEEPS="noshuffle=--no-subgroup-shuffle;default=;noshuffle=--no-subgroup-shuffle" \
  MIN_LOG=${MIN_LOG:-12} MAX_LOG=${MAX_LOG:-26} timeout ${SWEEP_TIMEOUT:-400} \
  bash scripts/h100_shape_sweep.sh || status=1
exit $status
