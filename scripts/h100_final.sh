#!/bin/bash
# h100_final.sh MODE: a whole session's GPU checks in three device calls of under
# ten minutes each, results in one tarball ($OUT/MODE.tar.gz) because the device
# tool brings back only a few files.
#   tests  every GPU test program in build/tests with validation on (sizes up to
#          2^TEST_MAX_LOG) and the examples
#   extras scripts/h100_gles.sh (the fragment path beside the compute path) and
#          scripts/h100_host.sh (the host path)
#   bench  three identical sweeps of the default sort (u32, 2^MIN_LOG..2^MAX_LOG)
#          with the SM clock sampled, the pure network, the network's tile sort
#          and the transpose strategy beside them, pairs and u64, the per-pass profile, CUB's sorts
#          of the same types and sizes, the ratio report and the stability check
# Expects build-h100.tar.xz (scripts/h100_pack.sh of a build with -DBITONIC_MPI=OFF)
# or build/, and .gl/ (the Vulkan loader, glvnd and the validation layer as .deb
# files). DEVICE (default NVIDIA) names the device; a rehearsal on lavapipe:
# DEVICE=llvmpipe TEST_MAX_LOG=12 MIN_LOG=10 MAX_LOG=13 TYPES_MAX_LOG=12
# PROFILE_MIN_LOG=12 PROFILE_MAX_LOG=13 GLES_MAX_LOG=11 SKIP_CUB=1 OUT=/tmp/out,
# run in a copy of the tree (the script links build to build-h100).
set -u
mode=${1:?usage: scripts/h100_final.sh tests|extras|bench}
top=${OUT:-out}
out=$top/$mode
mkdir -p "$out"
device=${DEVICE:-NVIDIA}
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt" 2>&1
smi_fields=timestamp,clocks.sm,clocks_event_reasons.active,power.draw,temperature.gpu
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader > /dev/null 2>&1 || smi_fields=timestamp,clocks.sm
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
bitonic=build/tools/bitonic/bitonic
export BITONIC_TEST_DEVICE=${BITONIC_TEST_DEVICE:-$device}
status=0

if [ "$mode" = tests ]; then
  $bitonic info > "$out/info.txt" 2>&1
  for t in build/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    start=$SECONDS
    BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 240 "$t" > "$out/$name.log" 2>&1
    rc=$?; [ $rc -eq 0 ] || status=1
    echo "$name (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/$name.log")" | tee -a "$out/tests.txt"
  done
  for example in build/tests/api_tour build/tests/gles_tour; do
    [ -x "$example" ] || continue
    "$example" "$device" > "$out/$(basename "$example").log" 2>&1 || status=1
    echo "$(basename "$example"): $(tail -n 1 "$out/$(basename "$example").log")" | tee -a "$out/tests.txt"
  done
  grep -h -m 5 -E "FAIL|VALIDATION" "$out"/test_*.log >> "$out/tests.txt"
elif [ "$mode" = extras ]; then
  [ -f scripts/h100_gles.sh ] && { VK_DEVICE=$device OUT=$out/gles MAX_LOG=${GLES_MAX_LOG:-22} SKIP_TESTS=1 timeout 270 bash scripts/h100_gles.sh > "$out/gles.log" 2>&1 || status=1; }
  [ -f scripts/h100_host.sh ] && { GPU=$device timeout 270 bash scripts/h100_host.sh "$out/host" > "$out/host.log" 2>&1 || status=1; }
else
  min_log=${MIN_LOG:-10}
  max_log=${MAX_LOG:-26}
  # CUB builds on the CPU while our sweeps keep the GPU busy.
  if [ ! -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
    (bash bench/cub/build.sh /tmp/cub_sort_bench > "$out/cub_build.log" 2>&1) &
    cub_build=$!
  fi
  pairs=""
  run=0
  sweep() {  # label, then bench options; the same label thrice is compared by stability.py
    local label=$1; shift
    run=$((run + 1))
    $bitonic bench --device "$device" --no-e2e --min-log "$min_log" --max-log "$max_log" --csv \
      --batch-log "$out/batch_$run.log" "$@" > "$out/sweep_$run.csv" 2>> "$out/bench.err" || status=1
    sed -i "s/^bitonic\(_network\)\{0,1\},/$label,/" "$out/sweep_$run.csv" "$out/batch_$run.log"
    pairs="$pairs $out/sweep_$run.csv:$out/batch_$run.log"
  }
  # SKIP_VARIANTS=1 leaves out the network, the network's tile sort, the
  # transpose strategy and the merge without split passes (a shorter call);
  # EXTRA_SWEEPS="label=options;..." adds named sweeps after the second default.
  sweep bitonic
  [ -z "${SKIP_VARIANTS:-}" ] && sweep bitonic_network --network
  sweep bitonic
  if [ -n "${EXTRA_SWEEPS:-}" ]; then
    IFS=';' read -ra extras <<< "$EXTRA_SWEEPS"
    for extra in "${extras[@]}"; do
      # shellcheck disable=SC2086  # the options are words
      sweep "bitonic_${extra%%=*}" ${extra#*=}
    done
  fi
  # The tiles sorted by the network, as before the merge sort of a tile.
  if [ -z "${SKIP_VARIANTS:-}" ] && $bitonic bench --help 2>&1 | grep -q -- --network-tile-sort; then
    sweep bitonic_network_tile_sort --network-tile-sort --max-log "${TYPES_MAX_LOG:-24}"
  fi
  if [ -z "${SKIP_VARIANTS:-}" ] && $bitonic bench --help 2>&1 | grep -q -- --strategy; then
    sweep bitonic_transpose --strategy transpose
  fi
  sweep bitonic
  [ -z "${SKIP_VARIANTS:-}" ] && sweep bitonic_no_split_pass --merge-split-min-chunks 16777216 --max-log "${TYPES_MAX_LOG:-24}"
  sweep bitonic_types --types pairs,u64 --max-log "${TYPES_MAX_LOG:-24}"
  sed -i 's/^bitonic_types,\(pairs\|u64\),/bitonic,\1,/' "$out/sweep_$run.csv" "$out/batch_$run.log"
  $bitonic bench --device "$device" --no-e2e --min-log "${PROFILE_MIN_LOG:-16}" --max-log "${PROFILE_MAX_LOG:-24}" --profile > "$out/profile.txt" 2>&1 || status=1
  kill $sampler
  # shellcheck disable=SC2086  # pairs is a list of words
  python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/sweeps_clocked.csv" $pairs > "$out/stability.txt"
  cat "$out/stability.txt" | tail -n 15
  if [ -n "${cub_build:-}" ]; then
    wait "$cub_build" && cp /tmp/cub_sort_bench build/ || status=1
  fi
  # CUB right after, the GPU still warm from ours.
  [ -z "${SKIP_CUB:-}" ] && build/cub_sort_bench --types u32,pairs,u64 --min-log "$min_log" --max-log "$max_log" --csv > "$out/cub.csv" 2> "$out/cub.err" || status=1
  cat "$out"/sweep_*.csv | grep -v '^impl,' > "$out/bitonic_all.csv"
  # The clock-annotated rows: the report marks low-clock rows and takes the median of repeats.
  python3 bench/report/compare.py "$out/sweeps_clocked.csv" "$out/cub.csv" --out "$out/report.md" > /dev/null 2>&1
  head -n 60 "$out/report.md"
fi
kill $sampler 2> /dev/null
tar -czf "$top/$mode.tar.gz" -C "$top" "$mode" && rm -rf "$out"
exit $status
