#!/bin/bash
# h100_wide_debug.sh: the device-address path (BITONIC_DEVICE_ADDRESSES=1) on the
# GPU machine, in one call of under ten minutes (6 x 40 s of tests, 2 x 140 s of
# sorts), to find why it sorted 2^32 keys wrong on the H100 and failed small forced cases there (docs/API.md, "Sizes";
# it passes on lavapipe). Each shape of test_device_addresses runs on its own with
# its own time limit (validation on), then 2^LOG u32 keys (default 2^32) with the
# split pass and without it. Results in $OUT/wide.tar.gz. Expects build-h100.tar.xz
# (scripts/h100_pack.sh) and .gl/. A rehearsal on lavapipe, in a copy of the tree:
# DEVICE=llvmpipe LOG=20 OUT=/tmp/out bash scripts/h100_wide_debug.sh
set -u
top=${OUT:-out}
out=$top/wide
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
[ -f build-h100.tar.xz ] && tar -xJf build-h100.tar.xz && ln -sfn build-h100 build
if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
  ldconfig
fi
if [ ! -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ]; then
  mkdir -p /tmp/vvl && dpkg -x .gl/vulkan-validationlayers_*.deb /tmp/vvl
  export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
  export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export BITONIC_DEVICE_ADDRESSES=1 BITONIC_TEST_DEVICE=$device
status=0
for shape in 0 1 2 3 4 5; do
  BITONIC_TEST_SHAPE=$shape timeout 40 build/tests/test_device_addresses > "$out/shape_$shape.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "shape $shape (exit $rc): $(head -n 1 "$out/shape_$shape.log" | cut -c1-60) $(grep -c FAIL "$out/shape_$shape.log") failed, $(tail -n 1 "$out/shape_$shape.log")"
done | tee "$out/summary.txt"
for log in ${LOG:-32}; do
  for opts in "" "--merge-split-min-chunks 16777216"; do
    start=$SECONDS
    timeout 140 build/tools/bitonic/bitonic bench --device "$device" --min-log $log --max-log $log --pow2 --runs 1 \
      --no-e2e --run-buffers 1 --csv $opts > "$out/bench.csv" 2> "$out/bench.err"
    echo "2^$log ${opts:-(split pass)}: exit $?, $((SECONDS - start)) s: $(grep -v '^impl' "$out/bench.csv" | tr '\n' ' ') $(tail -n 1 "$out/bench.err")" |
      tee -a "$out/summary.txt"
  done
done
tar -czf "$top/wide.tar.gz" -C "$top" wide && rm -rf "$out"
exit $status
