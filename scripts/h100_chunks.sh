#!/bin/bash
# h100_chunks.sh OUTDIR: the chunked host sort (vk_context.c, sort_in_chunks)
# on the GPU machine in one call of about 3 minutes. Writes OUTDIR/chunks.txt
# (readable) and OUTDIR/chunks.csv (bench rows, a first column naming the
# variant), with OUTDIR/smi.csv (the SM clock every 100 ms). Measures:
#   1. test_host_path and test_api on the GPU with validation on;
#   2. the bench's host-path rows (bitonic_sort_u32 from and to host memory,
#      2^20..2^26, powers of two, median of 10, each result checked: malloc'd
#      keys (bitonic_e2e), keys in a block of bitonic_host_alloc (pinned_e2e),
#      the CPU path (cpu_e2e)) with the pipeline (default chunks) and without it
#      (BITONIC_HOST_CHUNK_BYTES=0), alternated twice in the same call;
#   3. pairs and u64 keys the same way (TYPES_LOG, default 24..25);
#   4. variants at 2^22..2^26 (VARIANTS, default the last): a copy crew of 8
#      threads (the default: one a core, up to 16), 8 MiB chunks, the pipeline
#      without sorting each chunk as it arrives (BITONIC_HOST_CHUNK_SORT=0).
# Run from the repository root with build-h100.tar.xz (scripts/h100_pack.sh)
# and .gl/ in place.
set -u
out=${1:?usage: scripts/h100_chunks.sh OUTDIR}
mkdir -p "$out"
. scripts/h100_env.sh
gpu=${GPU:-NVIDIA}
bitonic=build/tools/bitonic/bitonic
report="$out/chunks.txt"
: > "$report"
say() { echo "$*" | tee -a "$report"; }
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" 2> /dev/null &
sampler=$!
say "# h100_chunks.sh $(date -u +%Y-%m-%dT%H:%MZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), $(nproc) cores"
say "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
export XDG_CACHE_HOME=$(mktemp -d)
export BITONIC_TEST_DEVICE=$gpu
status=0
say ""
say "## 1. tests (validation on)"
for t in host_path api; do
  start=$SECONDS
  timeout 240 build/tests/test_$t > "$out/test_$t.log" 2>&1
  rc=$?; [ $rc -eq 0 ] || status=1
  say "test_$t (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/test_$t.log")"
done
grep -h -m 5 -E "FAIL|VALIDATION" "$out"/test_*.log | tee -a "$report"

bench() {  # bench VARIANT MIN MAX [env...]; TYPES (default u32)
  local variant=$1 lo=$2 hi=$3; shift 3
  env "$@" timeout 150 "$bitonic" bench --device "$gpu" --host-only --pow2 --min-log "$lo" --max-log "$hi" --runs 10 \
    --types "${TYPES:-u32}" --csv 2>> "$out/errors.txt" | grep -E "^(bitonic_e2e|pinned_e2e|cpu_e2e)" | sed "s/^/$variant,/" \
    | tee -a "$report" >> "$out/chunks.csv"
}
echo "variant,impl,type,n,median_ms,min_ms,runs,verified,upload_ms,sort_ms,download_ms,host_ms,vs_bus" > "$out/chunks.csv"
say ""
say "## 2. pipelined (default chunks) against one-shot staging, alternated"
say "variant,impl,type,n,median_ms,min_ms,runs,verified,upload_ms,sort_ms,download_ms,host_ms,vs_bus"
for round in 1 2; do
  bench "chunked$round" "${MIN_LOG:-20}" "${MAX_LOG:-26}"
  bench "oneshot$round" "${MIN_LOG:-20}" "${MAX_LOG:-26}" BITONIC_HOST_CHUNK_BYTES=0
done
say ""
say "## 3. pairs and u64 keys, pipelined and one-shot"
TYPES=pairs,u64 bench "chunked" "${TYPES_MIN_LOG:-24}" "${TYPES_MAX_LOG:-25}"
TYPES=pairs,u64 bench "oneshot" "${TYPES_MIN_LOG:-24}" "${TYPES_MAX_LOG:-25}" BITONIC_HOST_CHUNK_BYTES=0
say ""
say "## 4. variants: a crew of 8 threads, 8 MiB chunks, chunks not sorted as they arrive"
for v in ${VARIANTS:-threads8 chunk8MiB nochunksort}; do
  case $v in
    threads8) bench "threads8" 22 "${MAX_LOG:-26}" BITONIC_HOST_COPY_THREADS=8 ;;
    chunk8MiB) bench "chunk8MiB" 22 "${MAX_LOG:-26}" BITONIC_HOST_CHUNK_BYTES=$((8 << 20)) ;;
    nochunksort) bench "nochunksort" 22 "${MAX_LOG:-26}" BITONIC_HOST_CHUNK_SORT=0 ;;
  esac
done
kill $sampler 2> /dev/null
if [ -s "$out/errors.txt" ]; then say "## errors"; tail -n 20 "$out/errors.txt" | tee -a "$report"; fi
exit $status
