#!/bin/bash
# h100_merge_ways.sh: one device call that measures the four-run merge
# (--merge-ways 4, shaders/merge4_pass.comp) against the two-run merge on the
# H100, with CUB in the same call: the GPU tests that run it first (with
# validation), then alternating sweeps of both (u32, SWEEPS_EACH times each,
# the SM clock sampled), pairs and u64 once each, the per-pass profiles of
# both, and CUB's merge and radix sorts at the same sizes.
# Expects build-h100.tar.xz (scripts/h100_pack.sh) and .gl/. Output under $OUT
# (or ./out): tests.txt, sweep.csv (annotated with clocks), stability.txt,
# types.csv, profile_2.txt, profile_4.txt, cub.csv, pipelines.txt.
set -u
out=${OUT:-out}
mkdir -p "$out"
. scripts/h100_env.sh
min_log=${MIN_LOG:-16}
max_log=${MAX_LOG:-26}
types_max_log=${TYPES_MAX_LOG:-24}
status=0
if [ ! -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
  (bash bench/cub/build.sh /tmp/cub_sort_bench > /tmp/cub_build.log 2>&1) &
  cub_build=$!
fi
if [ -z "${SKIP_TESTS:-}" ]; then
  for t in test_vulkan_sort test_key_types test_key_types64 test_host_path; do
    echo "== $t" >> "$out/tests.txt"
    env ${TEST_MAX_LOG:+BITONIC_TEST_MAX_LOG=$TEST_MAX_LOG} timeout 200 build/tests/$t >> "$out/tests.txt" 2>&1
    rc=$?
    echo "== $t exit $rc" >> "$out/tests.txt"
    [ $rc -eq 0 ] || status=1
  done
  grep "^== \|FAIL" "$out/tests.txt" | head -40
fi
smi_fields=timestamp,clocks.sm,clocks_event_reasons.active,power.draw,temperature.gpu
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader > /dev/null 2>&1 || smi_fields=timestamp,clocks.sm
nvidia-smi --query-gpu=$smi_fields --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
bitonic=build/tools/bitonic/bitonic
sweeps_run=0
pairs=""
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
for i in $(seq 1 "${SWEEPS_EACH:-3}"); do
  sweep four --merge-ways 4
  sweep two --merge-ways 2
done
for ways in 4 2; do
  $bitonic bench --device NVIDIA --no-e2e --min-log 20 --max-log "$types_max_log" --types pairs,u64 --csv \
    --merge-ways $ways 2>> "$out/bench.err" | sed "s/^bitonic,/bitonic_ways$ways,/" >> "$out/types.csv" || status=1
  $bitonic bench --device NVIDIA --no-e2e --min-log 20 --max-log "$max_log" --pow2 --profile --merge-ways $ways \
    > "$out/profile_$ways.txt" 2>&1 || status=1
done
kill $sampler
$bitonic info --device NVIDIA --pipelines > "$out/pipelines.txt" 2>&1
# shellcheck disable=SC2086  # pairs is a list of words
python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/sweep.csv" $pairs > "$out/stability.txt"
tail -5 "$out/stability.txt"
if [ -n "${cub_build:-}" ]; then
  wait $cub_build && cp /tmp/cub_sort_bench build/ 2>/dev/null || cat /tmp/cub_build.log
fi
if [ -x build/cub_sort_bench ] && [ -z "${SKIP_CUB:-}" ]; then
  build/cub_sort_bench --types u32,pairs,u64 --min-log "$min_log" --max-log "$max_log" --csv > "$out/cub.csv" \
    2> "$out/cub.err" || status=1
fi
# One line per size: the median of each configuration's sweeps against CUB's merge sort.
python3 - "$out/sweep.csv" "$out/cub.csv" <<'EOF'
import csv, statistics, sys
times = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["type"] != "u32" or r["verified"] != "1": continue
    times.setdefault(int(r["n"]), {}).setdefault(r["impl"], []).append(float(r["median_ms"]))
cub = {}
try:
    for r in csv.reader(open(sys.argv[2])):
        if len(r) == 7 and r[1] == "u32": cub.setdefault(int(r[2]), {})[r[0]] = float(r[3])
except OSError: pass
for n in sorted(times):
    four = statistics.median(times[n].get("bitonic_four", [0])); two = statistics.median(times[n].get("bitonic_two", [0]))
    merge = cub.get(n, {}).get("cub_merge")
    print("n=%d four %.4f two %.4f four/two %.2f cub_merge %s" % (n, four, two, four / two if two else 0,
          "%.4f four/cub %.2f two/cub %.2f" % (merge, four / merge, two / merge) if merge else "-"))
EOF
grep -h -A3 "profile of" "$out/profile_4.txt" | tail -8
exit $status
