#!/bin/bash
# h100_cub_profile.sh: where CUB's merge sort spends its time, kernel by kernel
# (Nsight Systems, when the GPU machine has nsys), beside our per-pass profile
# of the same sizes in the same call, so a kernel of ours can be set against the
# CUB kernel that does the same job (block sort against our tile pass, partition
# against our split pass, merge against merge). One call of about 4 minutes;
# results in $OUT/cub_profile.tar.gz. Expects build-h100.tar.xz and .gl/.
set -u
top=${OUT:-out}
out=$top/cub_profile
mkdir -p "$out"
. scripts/h100_env.sh  # build/, the loader, the validation layer, the NVIDIA driver
bitonic=build/tools/bitonic/bitonic
status=0
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks_event_reasons.active --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
(bash bench/cub/build.sh /tmp/cub_sort_bench > "$out/cub_build.log" 2>&1) &
cub_build=$!
# Ours while CUB compiles: the per-pass profile keeps the GPU busy.
timeout 200 $bitonic bench --device NVIDIA --types ${TYPES:-u32,pairs} --min-log ${MIN_LOG:-20} --max-log ${MAX_LOG:-24} \
  --pow2 --runs 10 --profile --no-e2e > "$out/ours_profile.txt" 2>&1 || status=1
wait $cub_build || status=1
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -n 1)
echo "nsys: ${nsys:-none}" > "$out/nsys.txt"
if [ -n "$nsys" ] && [ -x /tmp/cub_sort_bench ]; then
  for log in ${CUB_LOGS:-22 24}; do
    timeout 120 "$nsys" profile -o /tmp/cub$log --force-overwrite true /tmp/cub_sort_bench --impls cub_merge,d2d_copy \
      --types u32 --min-log $log --max-log $log --csv > "$out/cub_run$log.csv" 2>> "$out/nsys.txt" || status=1
    "$nsys" stats --report cuda_gpu_kern_sum --format csv /tmp/cub$log.nsys-rep > "$out/cub_kernels$log.csv" 2>> "$out/nsys.txt" || status=1
  done
elif [ -x /tmp/cub_sort_bench ]; then
  /tmp/cub_sort_bench --impls cub_merge,d2d_copy --types u32 --min-log 20 --max-log 24 --csv > "$out/cub_run.csv" 2>&1
fi
kill $sampler 2>/dev/null
tar -czf "$top/cub_profile.tar.gz" -C "$top" cub_profile && rm -rf "$out"
exit $status
