#!/bin/bash
# h100_run.sh: everything one device session does, in one call (device time is
# scarce): unpack the carried Vulkan loader and validation layer, run the tests
# on the GPU with validation on, then our bench and CUB's in the same run, and
# write the ratio table, and the merge, network and transpose strategies side
# by side (strategies.md). Expects build/ (built on the Debian machine, with
# build/cub_sort_bench from bench/cub/build.sh) and .gl/ (the .deb files).
# Output goes to $OUT (the device tool's folder) or ./out.
set -u
out=${OUT:-out}
mkdir -p "$out"
max_log=${MAX_LOG:-26}
for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
ldconfig
mkdir -p /tmp/vvl && dpkg -x .gl/vulkan-validationlayers_*.deb /tmp/vvl
export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
bitonic=build/tools/bitonic/bitonic
$bitonic info | tee "$out/info.txt"
export BITONIC_TEST_DEVICE=${BITONIC_TEST_DEVICE:-NVIDIA}
status=0
if [ -z "${SKIP_TESTS:-}" ]; then
# One summary file: only a few files come back from the device tool.
for t in schedule tuning api vulkan_interop vulkan_sort key_types key_types64 host_path; do
  BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-20} build/tests/test_$t > "$out/test_$t.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  echo "test_$t (exit $rc): $(tail -n 1 "$out/test_$t.log")" >> "$out/tests.txt"
done
build/tests/api_tour NVIDIA > "$out/test_api_tour.log" 2>&1 || status=1
echo "api_tour: $(tail -n 1 "$out/test_api_tour.log")" >> "$out/tests.txt"
grep -m 5 -E "FAIL|VALIDATION" "$out"/test_*.log >> "$out/tests.txt"
rm -f "$out"/test_*.log
cat "$out/tests.txt"
fi
# Our bench (GPU time from timestamps, end-to-end from host memory), then CUB.
types=${TYPES:-u32}
$bitonic bench --device NVIDIA --min-log 10 --max-log "$max_log" --types "$types" --csv > "$out/bitonic.csv" 2> "$out/bitonic_bench.err" || status=1
# The pure network (no merge passes) beside it, same run, impl bitonic_network.
if [ -z "${SKIP_NETWORK:-}" ]; then
  $bitonic bench --device NVIDIA --network --no-e2e --min-log 10 --max-log "$max_log" --types u32 --csv >> "$out/bitonic.csv" 2>> "$out/bitonic_bench.err" || status=1
fi
# The seeds' transpose strategy beside the merge and the network, same run,
# impl bitonic_transpose (SKIP_TRANSPOSE=1 leaves it out; TRANSPOSE_TYPES
# picks its key types, u32 by default), with the per-pass profiles of the
# network and the transpose that say where each spends its time.
if [ -z "${SKIP_TRANSPOSE:-}" ]; then
  $bitonic bench --device NVIDIA --strategy transpose --no-e2e --min-log 10 --max-log "$max_log" --types "${TRANSPOSE_TYPES:-u32}" --csv >> "$out/bitonic.csv" 2>> "$out/bitonic_bench.err" || status=1
  if [ -n "${SKIP_NETWORK:-}" ]; then echo "note: SKIP_NETWORK set: the strategy table has no network column" >&2; fi
  for strategy in network transpose; do
    $bitonic bench --device NVIDIA --strategy $strategy --min-log 20 --max-log 24 --profile --no-e2e > "$out/profile_$strategy.txt" 2>&1 || status=1
  done
  python3 bench/report/strategies.py "$out/bitonic.csv" --out "$out/strategies.md" > /dev/null 2>&1
fi
$bitonic bench --device NVIDIA --min-log 20 --max-log 24 --profile --no-e2e > "$out/profile.txt" 2>&1 || status=1
$bitonic bench --device NVIDIA --network --min-log 20 --max-log 20 --profile --no-e2e --tile-keys 1 --max-steps 1 > "$out/pure_network.txt" 2>&1 || status=1
if [ -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
  # CUB has no batched-rows sort: drop that type for it.
  cub_types=$(echo "$types" | tr ',' '\n' | grep -v '^rows' | paste -sd, -)
  build/cub_sort_bench --types "$cub_types" --min-log 10 --max-log "$max_log" --csv > "$out/cub.csv" 2> "$out/cub.err" || status=1
fi
python3 bench/report/compare.py "$out/bitonic.csv" "$out/cub.csv" --out "$out/report.md" > /dev/null 2>&1
[ -n "${WITH_BOIDS:-}" ] && bash scripts/h100_boids.sh
cat "$out/report.md" 2>/dev/null | head -80
cat "$out/strategies.md" 2>/dev/null
tail -n 3 "$out/bitonic_bench.err" "$out/cub.err" 2>/dev/null
exit $status
