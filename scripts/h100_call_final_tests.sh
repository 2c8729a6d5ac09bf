#!/bin/bash
# h100_call_final_tests.sh: the twelfth session's fourth device call: every GPU
# test program with validation on the final build (scripts/h100_final.sh tests,
# sizes up to 2^18), then merges below the split pass's threshold searching on
# samples by plain 3-probe rounds (A, the default) against guided searches (B),
# alternating three times, 2^19..2^21. Output under $OUT: tests.tar.gz,
# ab_profile.txt.
set -u
mkdir -p "$OUT"
TEST_MAX_LOG=18 timeout 420 bash scripts/h100_final.sh tests
SKIP_TESTS=1 B_OPTS="--merge-split-guided-min-chunks 512" ROUNDS=3 MIN_LOG=19 MAX_LOG=21 \
  timeout 120 bash scripts/h100_ab_profile.sh > "$OUT/ab_stdout.txt" 2>&1
