#!/bin/bash
# h100_cub_parts.sh: one device call that puts our passes beside the parts CUB's merge sort is
# built from (bench/cub/cub_parts.cu: a copy, one merge level, block sorts of 4096 and 8192
# keys, the whole sort), 32-bit keys from 2^MIN_LOG to 2^MAX_LOG, with our per-pass profile
# at the same sizes and the SM clock sampled throughout.
# Expects build/ (or build-h100.tar.xz from scripts/h100_pack.sh) and .gl/.
# Output under $OUT (or ./out): cub_parts.csv, profile.txt, smi.csv.
set -u
out=${OUT:-out}
mkdir -p "$out"
[ -f build-h100.tar.xz ] && [ ! -d build-h100 ] && tar -xJf build-h100.tar.xz && ln -sfn build-h100 build
for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
min_log=${MIN_LOG:-20}
max_log=${MAX_LOG:-26}
status=0
(bash bench/cub/build.sh /tmp/cub_parts bench/cub/cub_parts.cu > /tmp/cub_parts_build.log 2>&1) &
build=$!
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
build/tools/bitonic/bitonic bench --device NVIDIA --no-e2e --min-log "$min_log" --max-log "$max_log" --pow2 \
  --profile > "$out/profile.txt" 2>&1 || status=1
if wait $build; then
  /tmp/cub_parts --min-log "$min_log" --max-log "$max_log" > "$out/cub_parts.csv" 2> "$out/cub_parts.err" || status=1
  cat "$out/cub_parts.csv"
else
  cat /tmp/cub_parts_build.log; status=1
fi
kill $sampler
exit $status
