#!/bin/bash
# h100_call_tools_ab.sh: one device call that times builds of the tool side by
# side, for changes with no option to switch them (a kernel edited by hand to
# find where its time goes, or the build before a change). Every tool named in
# TOOLS ("A=path B=path ..."; one letter a name, as /tmp/abparse.py-style
# parsers expect; "A=path@--opt,value" gives one tool options of its own, commas
# for spaces, so a value with commas, as --types u32,pairs, goes in BENCH_OPTS) runs `bitonic bench --no-e2e BENCH_OPTS` once per entry of
# LOGS (k: 2^k alone; j:k: every size from 2^j to 2^k + 1, 1.5 x 2^k between),
# ROUNDS times in turn, the SM clock sampled meanwhile. An entry at a time: a
# tool edited to skip work gives wrong results, and the bench stops at the first
# one. Then the test
# programs named in TESTS with validation (sizes up to 2^TEST_MAX_LOG). Expects
# build-h100.tar.xz (scripts/h100_pack.sh) unpacked as build, and .gl/.
# Output under $OUT: tools_ab.txt, smi.csv, tests.txt.
set -u
mkdir -p "$OUT"
. scripts/h100_env.sh
export BITONIC_TEST_DEVICE=NVIDIA
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$OUT/smi.csv" &
sampler=$!
{
  for round in $(seq "${ROUNDS:-2}"); do
    for tool in ${TOOLS:?TOOLS=\"A=path B=path\"}; do
      name=${tool%%=*}
      path=${tool#*=}
      own=""
      case $path in *@*) own=$(echo "${path#*@}" | tr , ' '); path=${path%%@*} ;; esac
      echo "== $name round $round: $path ${BENCH_OPTS:-} $own"
      for logs in ${LOGS:-20 22 24}; do
        case $logs in
          *:*) range="--min-log ${logs%%:*} --max-log ${logs#*:}" ;;
          *) range="--min-log $logs --max-log $logs --pow2" ;;
        esac
        # shellcheck disable=SC2086  # the options are words
        timeout 60 "$path" bench --device NVIDIA --no-e2e $range ${BENCH_OPTS:-} $own 2>&1 | grep -v "^#"
      done
    done
  done
} > "$OUT/tools_ab.txt" 2>&1
kill "$sampler" 2> /dev/null
for t in ${TESTS:-}; do
  start=$SECONDS
  BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 150 build/tests/$t > /tmp/$t.log 2>&1
  echo "$t (exit $?, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)" >> "$OUT/tests.txt"
  grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log >> "$OUT/tests.txt"
done
[ -f "$OUT/tests.txt" ] && cat "$OUT/tests.txt"
awk -F', ' '{print $2}' "$OUT/smi.csv" | sort | uniq -c | sort -rn | head -3
