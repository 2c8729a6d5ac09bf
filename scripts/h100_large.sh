#!/bin/bash
# h100_large.sh: one sort past the 4 GiB storage-buffer binding (issue 13, item 0)
# on the GPU machine, in one device call of under nine minutes, results in one
# tarball ($OUT/large.tar.gz). It records `bitonic info` (the addressing line),
# runs test_device_addresses on the GPU (the device-address kernels forced at
# small sizes, every key type and pairs, against the CPU path, validation on),
# then sorts 2^28, 2^30, 2^31 and 2^32 random u32 keys resident on the GPU with
# `bitonic bench`: keys made on the host and uploaded, the sort timed with GPU
# timestamps, then downloaded and verified (sorted order and a fingerprint of
# the key multiset). 2^30 (4 GiB, one byte past NVIDIA's maxStorageBufferRange
# of 2^32 - 1), 2^31 and 2^32 take the device-address path; 2^28 stays with
# bound buffers, for comparison. One
# timed run after two warm-ups per size (generating and checking 2^32 keys on
# the host takes tens of seconds a run). Prints time and ns per key per size.
# Expects build-h100.tar.xz (scripts/h100_pack.sh of a build with -DBITONIC_MPI=OFF)
# or build/, and .gl/ (the Vulkan loader and the validation layer as .deb files).
# DEVICE (default NVIDIA) names the device; LOGS the sizes (default "28 30 31 32").
# A rehearsal on lavapipe: DEVICE=llvmpipe LOGS="20 25 26" OUT=/tmp/out bash scripts/h100_large.sh
set -u
top=${OUT:-out}
out=$top/large
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
logs=${LOGS:-28 30 31 32}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
smi_fields=timestamp,clocks.sm,memory.used,power.draw,temperature.gpu
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader > /dev/null 2>&1 || smi_fields=timestamp,clocks.sm
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader -lms 200 > "$out/smi.csv" 2>/dev/null &
sampler=$!
bitonic=build/tools/bitonic/bitonic
status=0
# The device-address path is experimental and off unless asked for (docs/API.md, "Sizes").
export BITONIC_DEVICE_ADDRESSES=1
free -g > "$out/host_memory.txt" 2>&1

$bitonic info --device "$device" > "$out/info.txt" 2>&1
grep -E "Chosen|at most|addressing" "$out/info.txt"

# The device-address kernels on this GPU at small sizes (forced), against the CPU path.
if [ -x build/tests/test_device_addresses ]; then
  start=$SECONDS
  BITONIC_TEST_DEVICE=$device timeout 45 build/tests/test_device_addresses > "$out/test_device_addresses.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "test_device_addresses (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/test_device_addresses.log")"
fi

# Per size: a bench of its own, so one size that fails or runs long leaves the others.
echo "impl,type,n,median_ms,min_ms,runs,verified,upload_ms,sort_ms,download_ms,host_ms,vs_bus" > "$out/large.csv"
for log in $logs; do
  case $log in 32|33|34) limit=250;; 31) limit=110;; 30) limit=60;; *) limit=45;; esac  # 510 s in all
  start=$SECONDS
  timeout $limit $bitonic bench --device "$device" --min-log "$log" --max-log "$log" --pow2 --runs 1 --no-e2e \
    --run-buffers 1 --csv > "$out/bench_$log.csv" 2> "$out/bench_$log.err"
  rc=$?; [ $rc -eq 0 ] || status=1
  grep -v '^impl,' "$out/bench_$log.csv" >> "$out/large.csv"
  row=$(grep -v '^impl,' "$out/bench_$log.csv" | head -n 1)
  if [ -n "$row" ]; then
    echo "$row" | awk -F, -v s=$((SECONDS - start)) '{ printf "2^%d keys: sort %.3f ms, %.3f ns/key, %s (bench %d s)\n", log($3)/log(2) + 0.5, $4, $4 * 1e6 / $3, $7 == 1 ? "verified" : "WRONG", s }'
  else
    echo "2^$log keys: no result (exit $rc, $((SECONDS - start)) s): $(tail -n 2 "$out/bench_$log.err" | tr '\n' ' ')"
  fi
done | tee "$out/summary.txt"
grep -q WRONG "$out/summary.txt" && status=1
grep -q "no result" "$out/summary.txt" && status=1
kill $sampler 2> /dev/null
tar -czf "$top/large.tar.gz" -C "$top" large && rm -rf "$out"
exit $status
