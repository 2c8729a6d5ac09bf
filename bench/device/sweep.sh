#!/bin/bash
# sweep.sh: on a GPU machine, in one call: SWEEPS identical sweeps of our
# `bitonic bench` (TYPES at every size 3·2^(k-2), 2^k and 2^k + 1 from
# 2^MIN_LOG to 2^MAX_LOG, GPU time, every output checked) with the SM clock
# sampled meanwhile, one per-pass profile, then CUB's sorts of the same types
# and sizes (bench/cub/cub_sort_bench, built here with nvcc while our sweeps
# keep the GPU busy, unless the pack has it), the stability check
# (bench/report/stability.py: each row with the clock of its batch, and how far
# the sweeps disagree), the report (bench/report/compare.py: ours beside
# CUB's, the targets) and the passes beside the copy rate
# (bench/report/passes.py). The bench keeps the GPU busy between its warm-up and
# each timed batch, and sorts a batch again when the clock moved while it ran;
# the sampler's clocks say whether that held. Run from the repository root.
# Everything goes into one tarball, $OUT/sweep.tar.gz (sweep/ inside), and the
# report and the stability summary are printed.
#
# Reads: BUILD (see tests.sh), DEVICE (see env.sh), MIN_LOG (10), MAX_LOG (26),
# TYPES (u32,pairs,u64), SWEEPS (3), E2E (1: the host-to-host rows too; default
# 0), PROFILE (0: no profile; default 1), PROFILE_MIN_LOG (20, at least MIN_LOG),
# PROFILE_MAX_LOG (MAX_LOG, at most 24), BENCH_OPTS (more `bitonic bench`
# options for every run of ours, e.g. --tune NAME=VALUE), BUDGET (seconds the
# whole script may take, 560: each step's limit is cut so that CUB, the profile
# and the report keep their time), SWEEP_TIMEOUT (seconds a sweep at most, 240),
# PROFILE_TIMEOUT (90), SKIP_CUB (1: no CUB), CUB_TIMEOUT (120), CUB_PARTS
# (1: also bench/cub/cub_parts.cu, CUB's merge sort by parts, u32, from
# 2^PROFILE_MIN_LOG), NVCC (the compiler; default nvcc on PATH, else
# /usr/local/cuda/bin/nvcc), CUDA_ARCH_FLAGS (default: this GPU's compute
# capability from nvidia-smi), GPU_INDEX (the GPU nvidia-smi samples, 0),
# OUT (default ./out). Exit status 1 when a run failed or a row was wrong.
set -eu
cd "$(dirname "$0")/../.."
. bench/device/env.sh
top=${OUT:-out}
out=$top/sweep
rm -rf "$out"
mkdir -p "$out"
default_build=build
[ -f "$PACK_DIR/bitonic-device.tar.xz" ] && default_build=bitonic-device
build=$(unpack_build "${BUILD:-$default_build}")
tool=$build/tools/bitonic/bitonic
min_log=${MIN_LOG:-10}
max_log=${MAX_LOG:-26}
types=${TYPES:-u32,pairs,u64}
sweeps=${SWEEPS:-3}
profile_min_log=${PROFILE_MIN_LOG:-$(( max_log < 20 ? max_log : 20 ))}
[ "$profile_min_log" -ge "$min_log" ] || profile_min_log=$min_log
profile_max_log=${PROFILE_MAX_LOG:-$(( max_log > 24 ? 24 : max_log ))}
bench_opts=${BENCH_OPTS:-}
status=0
notes=$out/notes.txt
: > "$notes"
note() { echo "sweep.sh: $*" | tee -a "$notes" >&2; }

record_machine "$out/machine.txt" "$build"
"$tool" info --device "$DEVICE" > "$out/info.txt" 2>&1 || { note "bitonic info --device $DEVICE failed"; status=1; }
start_sampler "$out/smi.csv"
trap stop_sampler EXIT

# CUB: the pack's binary, else built here (nvcc exists on the GPU machine only).
cub=""
cub_build=""
cub_parts=""
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -n "${SKIP_CUB:-}" ] && [ "${SKIP_CUB}" != 0 ]; then
  note "CUB skipped: SKIP_CUB is set"
elif ! nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
  note "CUB skipped: nvidia-smi lists no NVIDIA GPU here"
elif [ -x "$build/cub_sort_bench" ] && { [ "${CUB_PARTS:-0}" != 1 ] || [ -x "$build/cub_parts" ]; }; then
  cub=$build/cub_sort_bench
  [ "${CUB_PARTS:-0}" = 1 ] && cub_parts=$build/cub_parts
elif [ ! -x "$nvcc" ]; then
  note "CUB skipped: no nvcc (NVCC=$nvcc) to build bench/cub/cub_sort_bench.cu"
else
  if [ -z "${CUDA_ARCH_FLAGS:-}" ]; then
    cap=$(nvidia-smi -i "${GPU_INDEX:-0}" --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | tr -d ' .')
    case "$cap" in
      [0-9][0-9]|[0-9][0-9][0-9]) CUDA_ARCH_FLAGS="-gencode arch=compute_$cap,code=sm_$cap -gencode arch=compute_$cap,code=compute_$cap" ;;
      *) CUDA_ARCH_FLAGS="" ;;  # build.sh's default
    esac
  fi
  mkdir -p /tmp/bitonic-cub
  step "building CUB with $nvcc (${CUDA_ARCH_FLAGS:-the default targets of build.sh}) while ours run"
  (
    export NVCC=$nvcc
    [ -n "$CUDA_ARCH_FLAGS" ] && export CUDA_ARCH_FLAGS
    sh bench/cub/build.sh /tmp/bitonic-cub/cub_sort_bench
    if [ "${CUB_PARTS:-0}" = 1 ]; then sh bench/cub/build.sh /tmp/bitonic-cub/cub_parts bench/cub/cub_parts.cu; fi
  ) > "$out/cub_build.log" 2>&1 &
  cub_build=$!
fi

# Ours: the options every run gets, where this build has them.
common="--device $DEVICE"
if [ "${E2E:-0}" != 1 ] && has_option --no-e2e "$tool" bench; then common="$common --no-e2e"; fi
batch_log=0
[ -n "$(batch_log_option "$tool" x)" ] && batch_log=1
[ $batch_log = 1 ] || note "this build writes no batch log: rows get no clock, and stability.py does not run"
# The call's time (BUDGET, env.sh): what CUB, the profile and the report need
# is kept back from our sweeps; a step with no time left is skipped, and said so.
cub_reserve=0
[ -n "$cub$cub_build" ] && cub_reserve=$(( ${CUB_TIMEOUT:-120} + 10 ))
[ -n "$cub_parts$cub_build" ] && [ "${CUB_PARTS:-0}" = 1 ] && cub_reserve=$(( cub_reserve + ${CUB_TIMEOUT:-120} ))
profile_reserve=0
[ "${PROFILE:-1}" != 0 ] && profile_reserve=${PROFILE_TIMEOUT:-90}
pairs=""
for sweep in $(seq "$sweeps"); do
  limit=$(limit_for "${SWEEP_TIMEOUT:-240}" $(( profile_reserve + cub_reserve + 20 )))
  if [ "$limit" = 0 ]; then note "sweep $sweep of $sweeps skipped: no time left in BUDGET=${BUDGET:-560}"; break; fi
  step "sweep $sweep of $sweeps: $types, 2^$min_log..2^$max_log (at most $limit s)"
  start=$SECONDS
  log_option=""
  [ $batch_log = 1 ] && log_option=$(batch_log_option "$tool" "$out/batch_$sweep.log")
  rc=0
  # shellcheck disable=SC2086  # the options are words
  timeout "$limit" $LINE_BUFFERED "$tool" bench $common --min-log "$min_log" --max-log "$max_log" \
    --types "$types" --csv $log_option $bench_opts > "$out/sweep_$sweep.csv" 2>> "$out/bench.err" || rc=$?
  [ $rc -eq 0 ] || { status=1; note "sweep $sweep: exit $rc (124: killed after $limit s; its rows so far are kept)"; }
  echo "sweep $sweep: exit $rc, $((SECONDS - start)) s, $(grep -c -v '^impl' "$out/sweep_$sweep.csv" || true) rows" >> "$notes"
  [ $batch_log = 1 ] && [ -f "$out/batch_$sweep.log" ] && pairs="$pairs $out/sweep_$sweep.csv:$out/batch_$sweep.log"
done
limit=$(limit_for "${PROFILE_TIMEOUT:-90}" $(( cub_reserve + 20 )))
if [ "${PROFILE:-1}" != 0 ] && [ "$limit" = 0 ]; then
  note "profile skipped: no time left in BUDGET=${BUDGET:-560}"
elif [ "${PROFILE:-1}" != 0 ] && [ "$profile_min_log" -le "$profile_max_log" ]; then
  step "profile: $types, 2^$profile_min_log..2^$profile_max_log (at most $limit s)"
  pow2=""
  has_option --pow2 "$tool" bench && pow2=--pow2
  rc=0
  # shellcheck disable=SC2086
  timeout "$limit" "$tool" bench $common $pow2 --min-log "$profile_min_log" --max-log "$profile_max_log" \
    --types "$types" --profile $bench_opts > "$out/profile.txt" 2>&1 || rc=$?
  [ $rc -eq 0 ] || { status=1; note "profile: exit $rc"; }
fi

# CUB right after ours, the GPU still warm.
if [ -n "$cub_build" ]; then
  step "waiting for the CUB build"
  # Not past the time CUB's own run needs (at least 30 s of it).
  while kill -0 "$cub_build" 2> /dev/null && [ $(( BUDGET_END - SECONDS - 50 )) -gt 0 ]; do sleep 1; done
  if kill -0 "$cub_build" 2> /dev/null; then
    kill "$cub_build" 2> /dev/null || true
    note "CUB build still running with no time left in BUDGET=${BUDGET:-560}: stopped"
  fi
  if wait "$cub_build"; then
    cub=/tmp/bitonic-cub/cub_sort_bench
    [ "${CUB_PARTS:-0}" = 1 ] && cub_parts=/tmp/bitonic-cub/cub_parts
  else
    status=1
    note "CUB build failed: $(tail -n 3 "$out/cub_build.log" | tr '\n' ' ')"
  fi
fi
if [ -n "$cub" ]; then
  # CUB sorts no batched rows nor records.
  cub_types=$(echo "$types" | tr ',' '\n' | grep -E '^(u32|pairs|u64|f32)$' | paste -sd, -)
  limit=$(limit_for "${CUB_TIMEOUT:-120}" $(( 20 + ${CUB_PARTS:-0} * 30 )))
  step "CUB: $cub_types, 2^$min_log..2^$max_log (at most $limit s)"
  rc=0
  [ "$limit" != 0 ] || { limit=1; note "CUB: no time left in BUDGET=${BUDGET:-560}"; }
  timeout "$limit" $LINE_BUFFERED "$cub" --types "$cub_types" --min-log "$min_log" --max-log "$max_log" \
    --csv > "$out/cub.csv" 2> "$out/cub.err" || rc=$?
  [ $rc -eq 0 ] || { status=1; note "CUB: exit $rc: $(tail -n 2 "$out/cub.err" | tr '\n' ' ')"; }
fi
if [ -n "$cub_parts" ] && [ "$profile_min_log" -le "$max_log" ]; then
  step "CUB's merge sort by parts, 2^$profile_min_log..2^$max_log"
  rc=0
  limit=$(limit_for "${CUB_TIMEOUT:-120}" 15)
  [ "$limit" != 0 ] || { limit=1; note "cub_parts: no time left in BUDGET=${BUDGET:-560}"; }
  timeout "$limit" "$cub_parts" --min-log "$profile_min_log" --max-log "$max_log" > "$out/cub_parts.csv" \
    2> "$out/cub_parts.err" || rc=$?
  [ $rc -eq 0 ] || { status=1; note "cub_parts: exit $rc"; }
fi
stop_sampler

# The clock of every row, the sweeps against each other, then the report.
cat "$out"/sweep_*.csv | grep -v '^impl,' > "$out/bitonic_all.csv" || true
ours=$out/bitonic_all.csv
if [ -n "$pairs" ]; then
  # shellcheck disable=SC2086  # pairs is a list of words
  if python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/sweeps_clocked.csv" $pairs \
       > "$out/stability.txt" 2>&1; then
    ours=$out/sweeps_clocked.csv
  else
    note "stability.py failed: $(tail -n 1 "$out/stability.txt")"
  fi
fi
# compare.py wants the header on our file when there is no stability file.
if [ "$ours" = "$out/bitonic_all.csv" ]; then
  { echo "impl,type,n,median_ms,min_ms,runs,verified"; cut -d, -f1-7 "$out/bitonic_all.csv"; } > "$out/bitonic.csv"
  ours=$out/bitonic.csv
fi
report_inputs=$ours
[ -s "$out/cub.csv" ] && report_inputs="$report_inputs $out/cub.csv"
# shellcheck disable=SC2086
python3 bench/report/compare.py $report_inputs --out "$out/report.md" > /dev/null 2> "$out/compare.err" ||
  note "compare.py: $(tail -n 1 "$out/compare.err")"
# Each profiled pass beside the copy rate of the same call (CUB's d2d_copy rows).
if [ -s "$out/profile.txt" ] && [ -s "$out/cub.csv" ]; then
  python3 bench/report/passes.py "$out/profile.txt" "$out/cub.csv" --out "$out/passes.md" > /dev/null \
    2>> "$out/compare.err" || note "passes.py: $(tail -n 1 "$out/compare.err")"
fi
if awk -F, '$7 == "0"' "$out/bitonic_all.csv" | grep -q .; then
  status=1
  note "rows of ours that failed their check: $(awk -F, '$7 == "0"' "$out/bitonic_all.csv" | wc -l)"
fi

echo "== stability"
tail -n 12 "$out/stability.txt" 2> /dev/null || echo "(none)"
echo "== report"
head -n "${REPORT_LINES:-120}" "$out/report.md" 2> /dev/null || echo "(none)"
echo "== notes"
cat "$notes"
tail -n 3 "$out/bench.err" 2> /dev/null || true
echo "sweep.sh: exit status $status"
tar -czf "$top/sweep.tar.gz" -C "$top" sweep && rm -rf "$out"
echo "sweep.sh: $top/sweep.tar.gz"
exit $status
