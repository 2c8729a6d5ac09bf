#!/bin/bash
# h100_shape_sweep.sh: one device call that asks the H100 which shapes of the
# merge sort are fastest, with the SM clock recorded for every row: tile shape
# (keys : keys per thread), merge shape (chunk : keys per thread) and where the
# split pass starts, each swept at 2^16..2^MAX_LOG with the default
# (SWEEPS names configurations instead; PROFILES adds profiles of them)
# beside it, then the default's per-pass profile and CUB at the same sizes.
# Expects build/ (or build-h100.tar.xz from scripts/h100_pack.sh) and .gl/.
# Output under $OUT (or ./out): sweep.csv (annotated with clocks), profile.txt,
# cub.csv, report lines on stdout.
set -u
out=${OUT:-out}
mkdir -p "$out"
[ -f build-h100.tar.xz ] && tar -xJf build-h100.tar.xz && ln -sfn build-h100 build
for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
# CUB builds in the background while the GPU runs our sweep.
if [ ! -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
  (bash bench/cub/build.sh /tmp/cub_sort_bench > /tmp/cub_build.log 2>&1) &
  cub_build=$!
fi
# The clock every 100 ms, with why it is low where the driver says (older
# drivers name the field clocks_throttle_reasons).
smi_fields=timestamp,clocks.sm,clocks_event_reasons.active,power.draw,temperature.gpu
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader > /dev/null 2>&1 || smi_fields=timestamp,clocks.sm
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
bitonic=build/tools/bitonic/bitonic
min_log=${MIN_LOG:-16}
max_log=${MAX_LOG:-24}
status=0
sweeps_run=0
sweep() {  # label, then bench options; a label may repeat (stability.py compares those)
  local label=$1; shift
  sweeps_run=$((sweeps_run + 1))
  local csv=/tmp/sweep_$sweeps_run.csv log=/tmp/batch_$sweeps_run.log
  $bitonic bench --device NVIDIA --no-e2e --min-log "$min_log" --max-log "$max_log" --csv \
    --batch-log "$log" "$@" 2>> "$out/bench.err" |
    sed "s/^bitonic\(_network\)\{0,1\},/bitonic_$label,/" > "$csv" || status=1
  sed -i "s/^bitonic\(_network\)\{0,1\},/bitonic_$label,/" "$log"
  pairs="$pairs $csv:$log"
}
pairs=""
sweep default
# SWEEPS="label=options;label=options": named configurations instead of the shape lists.
if [ -n "${SWEEPS:-}" ]; then
  IFS=';' read -ra configs <<< "$SWEEPS"
  for config in "${configs[@]}"; do
    # shellcheck disable=SC2086  # the options are words
    sweep "${config%%=*}" ${config#*=}
  done
  TILES=none MERGES=none SPLITS=none
fi
for shape in ${TILES:-8192:8 4096:8 2048:8 2048:4 1024:4}; do
  [ "$shape" = none ] && continue
  sweep "tile${shape%:*}x${shape#*:}" --tile-keys "${shape%:*}" --keys-per-thread "${shape#*:}"
done
for shape in ${MERGES:-2048:8 512:4 1024:4}; do
  [ "$shape" = none ] && continue
  sweep "merge${shape%:*}x${shape#*:}" --merge-chunk "${shape%:*}" --merge-keys-per-thread "${shape#*:}"
done
for chunks in ${SPLITS:-1 16777216}; do
  [ "$chunks" = none ] && continue
  sweep "split$chunks" --merge-split-min-chunks "$chunks"
done
sweep default
$bitonic bench --device NVIDIA --no-e2e --min-log 20 --max-log "$max_log" --profile ${PROFILE_OPTIONS:-} > "$out/profile.txt" 2>&1 || status=1
# PROFILES="label=options;label=options": more profiles after the default's, in the same file.
if [ -n "${PROFILES:-}" ]; then
  IFS=';' read -ra profiles <<< "$PROFILES"
  for config in "${profiles[@]}"; do
    echo "## profile ${config%%=*}: ${config#*=}" >> "$out/profile.txt"
    # shellcheck disable=SC2086  # the options are words
    $bitonic bench --device NVIDIA --no-e2e --min-log "${PROFILE_MIN_LOG:-20}" --max-log "$max_log" --profile \
      ${config#*=} >> "$out/profile.txt" 2>&1 || status=1
  done
fi
$bitonic info --device NVIDIA --pipelines > "$out/pipelines.txt" 2>&1
kill $sampler
# shellcheck disable=SC2086  # pairs is a list of words
python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/sweep.csv" $pairs > "$out/stability.txt"
cat "$out/stability.txt"
if [ -n "${cub_build:-}" ]; then
  wait $cub_build && cp /tmp/cub_sort_bench build/ 2>/dev/null || cat /tmp/cub_build.log
fi
if [ -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
  build/cub_sort_bench --types u32 --min-log "$min_log" --max-log "$max_log" --csv > "$out/cub.csv" 2> "$out/cub.err" || status=1
fi
# One line per size: the fastest configuration against CUB merge sort.
python3 - "$out/sweep.csv" "$out/cub.csv" <<'EOF'
import csv, sys
best = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["type"] != "u32" or r["verified"] != "1": continue
    n, ms = int(r["n"]), float(r["median_ms"])
    best.setdefault(n, {})[r["impl"]] = min(ms, best.get(n, {}).get(r["impl"], 1e9))
cub = {}
try:
    for r in csv.reader(open(sys.argv[2])):
        if len(r) == 7 and r[1] == "u32": cub.setdefault(int(r[2]), {})[r[0]] = float(r[3])
except OSError: pass
for n in sorted(best):
    impls = best[n]; top = min(impls, key=impls.get)
    merge = cub.get(n, {}).get("cub_merge")
    print("n=%d default %.4f best %s %.4f cub_merge %s" % (n, impls.get("bitonic_default", 0), top, impls[top],
          "%.4f ratio %.2f" % (merge, impls[top] / merge) if merge else "-"))
EOF
exit $status
