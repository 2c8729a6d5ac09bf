#!/bin/bash
# h100_call_final_bench.sh: the twelfth session's third device call: the
# driver's statistics of every pipeline (registers), then the final bench of
# scripts/h100_final.sh (three u32 sweeps 2^10..2^26 with the SM clock, pairs
# and u64 up to 2^24, the profile 2^20..2^26, CUB, report, stability).
# Output under $OUT: pipelines.txt, bench.tar.gz.
set -u
mkdir -p "$OUT"
. scripts/h100_env.sh
timeout 60 build/tools/bitonic/bitonic info --device NVIDIA --pipelines > "$OUT/pipelines.txt" 2>&1
SKIP_VARIANTS=1 MIN_LOG=10 MAX_LOG=26 TYPES_MAX_LOG=24 PROFILE_MIN_LOG=20 PROFILE_MAX_LOG=26 \
  timeout 520 bash scripts/h100_final.sh bench
