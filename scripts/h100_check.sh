#!/bin/bash
# h100_check.sh: a short correctness call on the GPU machine (about six minutes):
# `bitonic info`, the Vulkan test programs with validation on (sizes up to
# 2^TEST_MAX_LOG, default 18), then 2^LOG and 2^LOG + 1 u32 keys
# (default LOG=31: past the 4 GiB binding, so through device addresses, which are
# on by default) sorted and verified. Results in $OUT/check.tar.gz. Expects
# build-h100.tar.xz (scripts/h100_pack.sh) and .gl/. A rehearsal on lavapipe:
# DEVICE=llvmpipe LOG=20 TEST_MAX_LOG=12 OUT=/tmp/out bash scripts/h100_check.sh
set -u
top=${OUT:-out}
out=$top/check
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
export BITONIC_TEST_DEVICE=$device
bitonic=build/tools/bitonic/bitonic
status=0
$bitonic info --device "$device" > "$out/info.txt" 2>&1
grep -i addressing "$out/info.txt" | tee -a "$out/summary.txt"
for t in vulkan_sort key_types key_types64 vulkan_interop device_addresses host_path; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 90 build/tests/test_$t > "$out/test_$t.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "test_$t (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/test_$t.log")" | tee -a "$out/summary.txt"
done
grep -h -m 5 -E "FAIL|VALIDATION" "$out"/test_*.log >> "$out/summary.txt"
log=${LOG:-31}
start=$SECONDS
timeout ${LARGE_LIMIT:-240} $bitonic bench --device "$device" --min-log $log --max-log $log --runs 1 --no-e2e --run-buffers 1 \
  --csv > "$out/large.csv" 2> "$out/large.err" || status=1
echo "2^$log and 2^$log+1: $((SECONDS - start)) s" | tee -a "$out/summary.txt"
cat "$out/large.csv" "$out/large.err" | tee -a "$out/summary.txt"
tar -czf "$top/check.tar.gz" -C "$top" check && rm -rf "$out"
exit $status
