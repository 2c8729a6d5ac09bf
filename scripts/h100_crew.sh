#!/bin/bash
# h100_crew.sh OUTDIR: how many threads the chunked host sort's copy crew
# should have (vk_context.c, sort_in_chunks; BITONIC_HOST_COPY_THREADS) on the
# GPU machine, in one call of about 6 minutes: u32 host sorts at 2^24..2^26 with
# crews of 4, 8 and 16 threads and the one-shot path (BITONIC_HOST_CHUNK_BYTES=0),
# alternated ROUNDS times (default 3) so that a slow spell of the host hits
# every variant alike. Writes OUTDIR/crew.csv (bench rows, a first column
# naming the variant and round) and OUTDIR/smi.csv (the SM clock every 100 ms).
# Run from the repository root with build-h100.tar.xz (scripts/h100_pack.sh)
# and .gl/ in place.
set -u
out=${1:?usage: scripts/h100_crew.sh OUTDIR}
mkdir -p "$out"
. scripts/h100_env.sh
gpu=${GPU:-NVIDIA}
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" 2> /dev/null &
sampler=$!
export XDG_CACHE_HOME=$(mktemp -d)
echo "variant,impl,type,n,median_ms,min_ms,runs,verified,upload_ms,sort_ms,download_ms,host_ms,vs_bus" > "$out/crew.csv"
for round in $(seq "${ROUNDS:-3}"); do
  for v in t4 t8 t16 oneshot; do
    case $v in
      t4) env=(BITONIC_HOST_COPY_THREADS=4) ;;
      t8) env=(BITONIC_HOST_COPY_THREADS=8) ;;
      t16) env=(BITONIC_HOST_COPY_THREADS=16) ;;
      oneshot) env=(BITONIC_HOST_CHUNK_BYTES=0) ;;
    esac
    env "${env[@]}" timeout 120 build/tools/bitonic/bitonic bench --device "$gpu" --host-only --pow2 \
      --min-log "${MIN_LOG:-24}" --max-log "${MAX_LOG:-26}" --runs 10 --types u32 --csv 2>> "$out/errors.txt" \
      | grep -E "^(bitonic_e2e|pinned_e2e|cpu_e2e)" | sed "s/^/$v-$round,/" >> "$out/crew.csv"
  done
done
kill $sampler 2> /dev/null
cat "$out/crew.csv"
