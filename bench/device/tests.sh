#!/bin/bash
# tests.sh: on a GPU machine, every test program of a build on the GPU with the
# Khronos validation layer on where it exists (a validation message fails a
# test), then the examples (api_tour, gles_tour) and the flock's own check
# (bitonic-boids --check), when the build has them. Run from the repository
# root; the results go into one tarball, $OUT/tests.tar.gz (tests/ inside:
# summary.txt, machine.txt, one log per program), and summary.txt is printed.
#
# Reads: BUILD (a pack name, a pack tarball or a build folder; default the pack
# bitonic-device when .pack/bitonic-device.tar.xz exists, else build), DEVICE
# (see env.sh), TEST_MAX_LOG (the largest size the suites sort, 2^TEST_MAX_LOG
# keys; default 18), TEST_TIMEOUT (seconds a program at most, default 240),
# BUDGET (seconds the whole script may take, 560: a program with no time left
# is skipped, and said so), TESTS
# (program names to run, default every tests/test_* but test_mpi_sort, which
# needs mpirun: bench/mpi/gpu_distributed.sh runs it), OUT (default ./out).
# Exit status 1 when a program failed or printed a validation message.
set -eu
cd "$(dirname "$0")/../.."
. bench/device/env.sh
top=${OUT:-out}
out=$top/tests
rm -rf "$out"
mkdir -p "$out"
default_build=build
[ -f "$PACK_DIR/bitonic-device.tar.xz" ] && default_build=bitonic-device
build=$(unpack_build "${BUILD:-$default_build}")
record_machine "$out/machine.txt" "$build"
status=0
summary=$out/summary.txt
{
  echo "# tests.sh $(date -u +%Y-%m-%dT%H:%MZ): device $DEVICE, sizes up to 2^${TEST_MAX_LOG:-18}, validation layer: $VALIDATION_LAYER"
  grep '^commit:' "$build/PACKED.txt" 2> /dev/null || true
} > "$summary"
"$build/tools/bitonic/bitonic" info > "$out/info.txt" 2>&1 || status=1

programs=${TESTS:-}
if [ -z "$programs" ]; then
  for program in "$build"/tests/test_*; do
    name=$(basename "$program")
    [ -x "$program" ] && [ "$name" != test_mpi_sort ] && programs="$programs $name"
  done
fi
for name in $programs; do
  program=$build/tests/$name
  if [ ! -x "$program" ]; then
    echo "$name: not in this build" | tee -a "$summary"
    continue
  fi
  limit=$(limit_for "${TEST_TIMEOUT:-240}" 30)
  if [ "$limit" = 0 ]; then
    status=1
    echo "$name: skipped, no time left in BUDGET=${BUDGET:-560}" | tee -a "$summary"
    continue
  fi
  step "$name (at most $limit s)"
  start=$SECONDS
  rc=0
  # Line-buffered, so that a program the limit kills leaves the lines it printed
  # (test_vulkan_partition's of 2026-12-02 left none).
  # shellcheck disable=SC2086  # LINE_BUFFERED is words
  BITONIC_TEST_MAX_LOG=${TEST_MAX_LOG:-18} timeout "$limit" $LINE_BUFFERED "$program" > "$out/$name.log" 2>&1 ||
    rc=$?
  [ $rc -eq 0 ] || status=1
  if [ $rc -eq 124 ]; then echo "(killed after $limit s)" >> "$out/$name.log"; fi
  if grep -q '^VALIDATION' "$out/$name.log"; then status=1; fi
  echo "$name (exit $rc, $((SECONDS - start)) s): $(tail -n 1 "$out/$name.log")" | tee -a "$summary"
done

# The examples of docs/API.md on this device, and the flock's check.
for example in api_tour gles_tour; do
  [ -x "$build/tests/$example" ] || continue
  step "$example"
  rc=0
  device_argument=$DEVICE
  [ $example = gles_tour ] && device_argument=
  # shellcheck disable=SC2086  # no argument for gles_tour (EGL's first ES 3 device)
  timeout 120 "$build/tests/$example" $device_argument > "$out/$example.log" 2>&1 || rc=$?
  [ $rc -eq 0 ] || status=1
  echo "$example (exit $rc): $(tail -n 1 "$out/$example.log")" | tee -a "$summary"
done
boids=$build/apps/boids/bitonic-boids
if [ -x "$boids" ]; then
  step "bitonic-boids --check"
  rc=0
  timeout 120 env LD_LIBRARY_PATH="$(boids_library_path "$build")" "$boids" --check --count 4000 --steps 8 --device "$DEVICE" --validation --quiet > "$out/boids_check.log" 2>&1 || rc=$?
  [ $rc -eq 0 ] || status=1
  echo "bitonic-boids --check (exit $rc): $(tail -n 1 "$out/boids_check.log")" | tee -a "$summary"
fi
if grep -h -m 5 -E 'FAIL|^VALIDATION' "$out"/*.log > "$out/failures.txt" 2> /dev/null; then
  echo "first failures and validation messages:" | tee -a "$summary"
  sed 's/^/  /' "$out/failures.txt" | tee -a "$summary"
fi
echo "tests.sh: exit status $status" | tee -a "$summary"
tar -czf "$top/tests.tar.gz" -C "$top" tests && rm -rf "$out"
echo "tests.sh: $top/tests.tar.gz"
exit $status
