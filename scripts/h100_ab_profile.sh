#!/bin/bash
# h100_ab_profile.sh: one short device call that compares two configurations
# of the sort by their per-pass profiles: the GPU suites with validation
# (unless SKIP_TESTS), then `bitonic bench --profile` alternating A and B
# (ROUNDS times each, ABAB.., or ABCABC.. with C_OPTS, ABCDABCD.. with D_OPTS too), the types in
# AB_TYPES (default u32) with the per-pass times, then those in EXTRA_TYPES (default pairs,u64;
# empty: none) once each; AB_SIZES="" measures 1.5 x 2^k and 2^k + 1 too (default --pow2), the SM clock sampled meanwhile. A_OPTS, B_OPTS and C_OPTS are bench options ("" is the default). Expects build-h100.tar.xz (scripts/h100_pack.sh)
# and .gl/. Output under $OUT: ab_profile.txt, smi.csv.
set -u
out=${OUT:-out}
mkdir -p "$out"
. scripts/h100_env.sh
bitonic=build/tools/bitonic/bitonic
export BITONIC_TEST_DEVICE=${BITONIC_TEST_DEVICE:-NVIDIA}
status=0
sides="A B"
[ -n "${C_OPTS:-}" ] && sides="A B C"
[ -n "${D_OPTS:-}" ] && sides="$sides D"
side_options() {
  case $1 in A) echo "${A_OPTS:-}" ;; B) echo "${B_OPTS:-}" ;; C) echo "${C_OPTS:-}" ;; D) echo "${D_OPTS:-}" ;; esac
}
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100 > "$out/smi.csv" &
sampler=$!
{
  if [ -z "${SKIP_TESTS:-}" ]; then
    for t in ${TESTS:-test_vulkan_sort test_key_types test_key_types64}; do
      start=$SECONDS
      BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout 150 build/tests/$t > /tmp/$t.log 2>&1
      rc=$?; [ $rc -eq 0 ] || status=1
      echo "$t (exit $rc, $((SECONDS - start)) s): $(tail -n 1 /tmp/$t.log)"
      grep -m 5 -E "FAIL|VALIDATION" /tmp/$t.log
    done
  fi
  for round in $(seq "${ROUNDS:-2}"); do
    for side in $sides; do
      opts=$(side_options $side)
      echo "== $side round $round: ${opts:-default}"
      # shellcheck disable=SC2086  # the options are words
      timeout 120 $bitonic bench --device NVIDIA --no-e2e --min-log "${MIN_LOG:-18}" --max-log "${MAX_LOG:-24}" \
        ${AB_SIZES---pow2} --types "${AB_TYPES:-u32}" --profile $opts 2>&1 || status=1
    done
  done
  extra_types=${EXTRA_TYPES-pairs,u64}
  for side in $sides; do
    [ -n "$extra_types" ] || break
    opts=$(side_options $side)
    echo "== $side $extra_types: ${opts:-default}"
    # shellcheck disable=SC2086
    timeout 120 $bitonic bench --device NVIDIA --no-e2e --min-log 20 --max-log 24 --pow2 \
      --types "$extra_types" $opts 2>&1 || status=1
  done
} > "$out/ab_profile.txt" 2>&1
kill "$sampler" 2> /dev/null
grep -v "^#" "$out/ab_profile.txt"
awk -F', ' '{print $2}' "$out/smi.csv" | sort | uniq -c | sort -rn | head -5
exit $status
