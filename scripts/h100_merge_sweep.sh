#!/bin/bash
# h100_merge_sweep.sh: merge-pass shapes on the GPU machine (after h100_run.sh
# has unpacked the loader, or with it unpacked here): for each merge chunk and
# keys per thread, the per-pass profile at a few sizes. Output: $OUT/merge_sweep.txt.
set -u
out=${OUT:-out}
mkdir -p "$out"
for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
bitonic=build/tools/bitonic/bitonic
for shape in ${SHAPES:-4096:16 2048:8 1024:4 8192:16 4096:8 2048:16 1024:8}; do
  chunk=${shape%:*}; per_thread=${shape#*:}
  for log in ${LOGS:-20 22 24}; do
    echo "== chunk $chunk, $per_thread keys/thread, 2^$log"
    $bitonic bench --device NVIDIA --min-log "$log" --max-log "$log" --profile --no-e2e \
      --merge-chunk "$chunk" --merge-keys-per-thread "$per_thread" 2>&1 | sed -n '3,5p'
  done
done | tee "$out/merge_sweep.txt"
