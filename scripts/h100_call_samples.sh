#!/bin/bash
# h100_call_samples.sh: the eleventh session's first device call: run samples against
# none and 16 keys a thread (A/B/C profiles, 2^19..2^26), small sorts twice, then
# four GPU suites with validation. Output under $OUT.
set -u
mkdir -p $OUT
SKIP_TESTS=1 B_OPTS="--merge-split-no-samples" C_OPTS="--keys-per-thread 16" ROUNDS=2 MIN_LOG=19 MAX_LOG=26 timeout 300 bash scripts/h100_ab_profile.sh > $OUT/ab_stdout.txt 2>&1
. scripts/h100_env.sh
export BITONIC_TEST_DEVICE=NVIDIA
{
for r in 1 2; do
  timeout 60 build/tools/bitonic/bitonic bench --device NVIDIA --no-e2e --min-log 10 --max-log 14 --types u32 2>&1
done
} > $OUT/small.txt
for t in test_device_addresses test_vulkan_sort test_vulkan_interop test_key_types; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=18 timeout 100 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> $OUT/tests.txt
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> $OUT/tests.txt
done
cat $OUT/tests.txt
