#!/bin/bash
# h100_host.sh OUTDIR: the host-memory path on the GPU machine, in one call of
# under 3 minutes. Writes OUTDIR/host.txt (everything, readable) and
# OUTDIR/host_bench.csv (the bench rows). Measures:
#   1. context start: `bitonic bench --startup` (create, first sort of 2^16 keys,
#      second sort), cold (empty cache directory) and warm, with the NVIDIA
#      driver's own shader disk cache off (ours alone) and on (as users run);
#   2. `bitonic info` wall time, best of 3, warm;
#   3. `bitonic sort` of 2^20, 2^24 and 2^26 random uint32 .npy files: the
#      default device choice, forced GPU (--device $gpu) and BITONIC_DEVICE=cpu,
#      best of 3 wall times, every output checked by bitonic-npy (no NumPy
#      needed); NumPy's load + sort + save beside it when python3 has numpy;
#   4. the bench's host-path rows at 2^20..2^26 (powers of two): upload, sort, download and host
#      stages of bitonic_sort_u32 on the GPU, the whole call over the bus time
#      (vs_bus), the resident GPU sort and the CPU path (cpu_e2e) in the same run;
#      then the GPU rows again with the arrays staged, not imported.
# Run from the repository root with build/ (scripts/h100_pack.sh) in place, as
# scripts/h100_run.sh. Large files go to $WORK (default /tmp), not to OUTDIR.
set -u
out=${1:?usage: scripts/h100_host.sh OUTDIR}
mkdir -p "$out"
bitonic=${BITONIC:-build/tools/bitonic/bitonic}
npy=${BITONIC_NPY:-build/tools/bitonic/bitonic-npy}
work=$(mktemp -d "${WORK:-/tmp}/bitonic-host.XXXXXX")
# For a rehearsal elsewhere: GPU=llvmpipe LOGS="16 18" BENCH_MIN_LOG=16 BENCH_MAX_LOG=17
gpu=${GPU:-NVIDIA}
logs=${LOGS:-20 24 26}
trap 'rm -rf "$work"' EXIT
report="$out/host.txt"
: > "$report"
say() { echo "$*" | tee -a "$report"; }

# The Vulkan loader and NVIDIA's ICD as h100_run.sh finds them.
if [ -d .gl ] && ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in .gl/*.deb; do case "$f" in *validationlayers*) ;; *) dpkg -x "$f" /;; esac; done
  ldconfig
fi
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
unset BITONIC_DEVICE BITONIC_CROSSOVER BITONIC_PIPELINE_CACHE BITONIC_CACHE_DIR
export XDG_CACHE_HOME="$work/xdg"
nproc_count=$(nproc)
say "# h100_host.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $nproc_count cores"
say "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

ms_now() { date +%s%N; }
# best_of N CMD...: runs CMD N times, prints the best wall time in ms.
best_of() {
  local n=$1; shift
  local best=""
  for _ in $(seq "$n"); do
    local t0 t1 ms
    t0=$(ms_now)
    "$@" > /dev/null 2>> "$work/errors" || { echo "FAILED"; return 1; }
    t1=$(ms_now)
    ms=$(( (t1 - t0) / 1000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  printf "%d.%03d" $((best / 1000)) $((best % 1000))
}

say ""
say "## 1. Context start (bitonic bench --startup --device $gpu; ms)"
say "driver_cache,our_cache,device,cache,create_ms,first_sort_ms,second_sort_ms,destroy_ms"
for driver_cache in off on; do
  if [ $driver_cache = off ]; then export __GL_SHADER_DISK_CACHE=0; else unset __GL_SHADER_DISK_CACHE; fi
  export __GL_SHADER_DISK_CACHE_PATH="$work/nv-cache"
  for run in 1 2 3; do
    rm -rf "$XDG_CACHE_HOME" "$work/nv-cache"; mkdir -p "$work/nv-cache"
    line=$(timeout 60 "$bitonic" bench --startup --device $gpu --csv | tail -n 1)
    say "$driver_cache,cold,$line"
    for warm in 1 2; do
      line=$(timeout 60 "$bitonic" bench --startup --device $gpu --csv | tail -n 1)
      say "$driver_cache,warm,$line"
    done
  done
done
unset __GL_SHADER_DISK_CACHE
"$bitonic" info | grep -E "Chosen|Pipeline cache|Cache directory|Host sorts" | tee -a "$report"
say "bitonic info wall ms (warm, best of 3): $(best_of 3 "$bitonic" info)"

say ""
say "## 2. bitonic sort IN OUT of random uint32 .npy (wall ms, best of 3; outputs checked)"
# The default device choice calibrates once per device (stored beside the
# pipeline cache); do it here, untimed, so the timed runs read it.
"$npy" gen 1048576 1 "$work/calibrate.npy"
"$bitonic" sort "$work/calibrate.npy" "$work/calibrate_sorted.npy" --timing 2>> "$report"
say "crossover: $(cat "$XDG_CACHE_HOME"/bitonic/crossover-*.txt 2>/dev/null | tr '\n' ' ')"
have_numpy=no
python3 -c 'import numpy' 2> /dev/null && have_numpy=yes
say "n,default_ms,gpu_ms,cpu_ms,numpy_ms,checked"
for log in $logs; do
  n=$((1 << log))
  in="$work/in_$log.npy"
  "$npy" gen $n $log "$in"
  checked=ok
  d=$(best_of 3 "$bitonic" sort "$in" "$work/out_default.npy")
  "$npy" check "$in" "$work/out_default.npy" 2>> "$report" || checked=WRONG
  g=$(best_of 3 "$bitonic" sort "$in" "$work/out_gpu.npy" --device $gpu)
  "$npy" check "$in" "$work/out_gpu.npy" 2>> "$report" || checked=WRONG
  c=$(BITONIC_DEVICE=cpu best_of 3 "$bitonic" sort "$in" "$work/out_cpu.npy")
  "$npy" check "$in" "$work/out_cpu.npy" 2>> "$report" || checked=WRONG
  p=-
  if [ $have_numpy = yes ]; then
    p=$(best_of 3 python3 -c "import numpy as np; a=np.load('$in'); a.sort(); np.save('$work/out_numpy.npy', a)")
  fi
  say "2^$log,$d,$g,$c,$p,$checked"
  for dev in "" "--device $gpu"; do
    # shellcheck disable=SC2086
    "$bitonic" sort "$in" "$work/out_timing.npy" $dev --timing 2>&1 | sed "s/^/  2^$log ${dev:-default}: /" | tee -a "$report"
  done
  rm -f "$in" "$work"/out_*.npy
done

say ""
say "## 3. bench: host-path stages beside the bus (ms; vs_bus = whole call / (upload + download))"
timeout 80 "$bitonic" bench --device $gpu --pow2 --min-log "${BENCH_MIN_LOG:-20}" --max-log "${BENCH_MAX_LOG:-26}" --runs 10 --types u32 --csv \
  > "$out/host_bench.csv" 2>> "$work/errors"
grep -E "^(impl|bitonic_e2e|cpu_e2e|bitonic,)" "$out/host_bench.csv" | tee -a "$report"
say ""
say "## 4. the same with the arrays staged instead of imported (BITONIC_HOST_IMPORT=0), e2e rows only"
BITONIC_HOST_IMPORT=0 timeout 45 "$bitonic" bench --device $gpu --host-only --pow2 --min-log "${BENCH_MIN_LOG:-20}" \
  --max-log "${BENCH_MAX_LOG:-26}" --runs 10 --types u32 --csv 2>> "$work/errors" \
  | grep -E "^bitonic_e2e" | sed 's/^bitonic_e2e/staged_e2e/' | tee -a "$report" >> "$out/host_bench.csv"
if [ -s "$work/errors" ]; then
  say ""
  say "## errors"
  tail -n 20 "$work/errors" | tee -a "$report"
fi
