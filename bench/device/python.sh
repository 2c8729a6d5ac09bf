#!/bin/bash
# python.sh: on a GPU machine, the Python package's bench (bench/python/bench_sort.py:
# bitonic.sort and argsort against np.sort and np.argsort, and cupy.sort and
# torch.sort where they import) with that machine's own python3. The library's
# shaders need glslc, which the GPU machine lacks, so the module is compiled
# there from python/src against the pack's static library (pack.sh's
# static/libbitonic.a, position-independent) and imported from the working tree.
# Run from the repository root; everything goes into $OUT/python.tar.gz.
#
# Reads: BUILD (a pack name, as tests.sh), DEVICES (the Context devices to
# bench, words; default "NVIDIA default": the GPU, then the library's own
# choice), SIZES (log2 of the key counts, default 20,24,26), TYPES (u32),
# REPEATS (11), BENCH_OPTS (more bench_sort.py options, e.g. --sort-only),
# PYTHON (python3), OUT (./out), BUDGET (env.sh): each device gets an equal
# share of what is left.
set -eu
cd "$(dirname "$0")/../.."
. bench/device/env.sh
top=${OUT:-out}
out=$top/python
rm -rf "$out"
mkdir -p "$out"
default_build=build
[ -f "$PACK_DIR/bitonic-device.tar.xz" ] && default_build=bitonic-device
build=$(unpack_build "${BUILD:-$default_build}")
python=${PYTHON:-python3}
archive=$build/static/libbitonic.a
status=0
[ -f "$archive" ] || { echo "python.sh: no $archive (pack a build made after pack.sh packed it)" >&2; exit 1; }

# The module, as setup.py builds it: the archive inside, its symbols kept out of
# the module's exports, the loader linked by its file (the carried packages hold
# no libvulkan.so link).
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
loader=$(ldconfig -p | awk '/libvulkan\.so\.1 / { print $NF; exit }')
module=python/bitonic/_bitonic$suffix
cc -O2 -std=c11 -Wall -Wextra -shared -fPIC -fvisibility=hidden -D_POSIX_C_SOURCE=200809L -I"$include" -Iinclude \
  python/src/module.c python/src/context.c python/src/calls.c "$archive" -lpthread -ldl -lm "$loader" \
  -Wl,--exclude-libs,ALL -o "$module" > "$out/module_build.log" 2>&1 ||
  { echo "python.sh: the module did not build: $(tail -n 3 "$out/module_build.log")" >&2; exit 1; }
record_machine "$out/machine.txt" "$build"
"$python" -c 'import numpy, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__)' \
  >> "$out/machine.txt" 2>&1 || true

done_devices=0
for device in ${DEVICES:-NVIDIA default}; do
  device_option="--device $device"
  [ "$device" = default ] && device_option=""
  devices_left=$(( $(echo ${DEVICES:-NVIDIA default} | wc -w) - done_devices ))
  share=$(( (BUDGET_END - SECONDS - 10) / devices_left ))
  [ "$share" -ge 10 ] || share=0
  limit=$(limit_for "$share" 10)
  done_devices=$((done_devices + 1))
  [ "$limit" != 0 ] || { echo "python.sh: no time left for $device" >> "$out/notes.txt"; break; }
  step "bench_sort.py, device $device (at most $limit s)"
  rc=0
  # shellcheck disable=SC2086  # the option is words
  PYTHONPATH=python timeout "$limit" "$python" bench/python/bench_sort.py $device_option \
    --sizes "${SIZES:-20,24,26}" --types "${TYPES:-u32}" --repeats "${REPEATS:-11}" ${BENCH_OPTS:-} \
    > "$out/bench_$device.md" 2> "$out/bench_$device.err" || rc=$?
  [ $rc -eq 0 ] || { status=1; echo "python.sh: $device: exit $rc" | tee -a "$out/notes.txt" >&2; }
  cat "$out/bench_$device.md"
done
tar -czf "$top/python.tar.gz" -C "$top" python && rm -rf "$out"
echo "python.sh: $top/python.tar.gz, exit status $status"
exit $status
