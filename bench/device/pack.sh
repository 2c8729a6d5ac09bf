#!/bin/sh
# pack.sh: on the build machine, makes the one tarball of a build that travels
# to a GPU machine: PACK_DIR/NAME.tar.xz (default .pack/bitonic-device.tar.xz),
# holding NAME/ with the bitonic tool and bitonic-npy, every test program and
# example of tests/, the flock (apps/boids/bitonic-boids), the CUB peer when the
# build has it (cub_sort_bench, cub_parts), all stripped, the shared libraries
# the flock links that a bare machine lacks (lib/), the static library
# (static/libbitonic.a, for python.sh), and PACKED.txt (the commit,
# the date, the build's options), and the CPU path's benches where built
# (bench/cpu/, for bench/cpu/wide_table.sh). The CUB source needs no packing: bench/cub/
# travels with the working tree, and sweep.sh builds it there with nvcc.
#
#   sh bench/device/pack.sh                         # build/ as .pack/bitonic-device.tar.xz
#   BUILD=/tmp/old/build NAME=old sh bench/device/pack.sh   # another build, another name
#
# Reads: BUILD (the CMake build folder, default build), NAME (default
# bitonic-device; letters, digits, '.', '_', '-'), PACK_DIR (default .pack, in
# the repository root), ALLOW_MPI (1: pack a tool that links Open MPI; the GPU
# machine has none, so by default such a build is refused: configure it with
# -DBITONIC_MPI=OFF, or carry .mpi as bench/mpi/gpu_distributed.sh says).
# The device tool carries at most 64 MiB in all (the working tree, .gl and the
# packs): pack.sh prints the sum and warns above 56 MiB.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${BUILD:-$root/build}" && pwd)
name=${NAME:-bitonic-device}
case "$name" in *[!A-Za-z0-9._-]*|'') echo "pack.sh: NAME '$name' is not letters, digits, '.', '_' and '-'" >&2; exit 2 ;; esac
pack_dir=${PACK_DIR:-$root/.pack}
tool=$build/tools/bitonic/bitonic
[ -x "$tool" ] || { echo "pack.sh: no $tool (build first: cmake -B build && cmake --build build)" >&2; exit 1; }

if ldd "$tool" 2> /dev/null | grep -q 'libmpi\.so'; then
  if [ "${ALLOW_MPI:-0}" != 1 ]; then
    echo "pack.sh: $tool links Open MPI, which the GPU machine lacks: configure the build with" >&2
    echo "  -DBITONIC_MPI=OFF, or set ALLOW_MPI=1 and carry .mpi (bench/mpi/gpu_distributed.sh pack)" >&2
    exit 1
  fi
  echo "pack.sh: the tool links Open MPI (ALLOW_MPI=1): carry .mpi for it to start on a bare GPU machine" >&2
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest=$stage/$name
mkdir -p "$dest/tools/bitonic" "$dest/tests" "$dest/apps/boids" "$dest/lib"
cp "$tool" "$dest/tools/bitonic/"
[ -x "$build/tools/bitonic/bitonic-npy" ] && cp "$build/tools/bitonic/bitonic-npy" "$dest/tools/bitonic/"
# Every test program and example CMake built (the fuzzer and the scripts stay).
for program in "$build"/tests/test_* "$build"/tests/*_tour; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  cp "$program" "$dest/tests/"
done
boids=$build/apps/boids/bitonic-boids
if [ -x "$boids" ]; then
  cp "$boids" "$dest/apps/boids/"
  # GLFW and libpng (and what they pull in past the loader, glvnd and glibc) as
  # this machine has them: a bare GPU machine has neither.
  ldd "$boids" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) ;;
      libvulkan.so*|libGL*.so*|libEGL*.so*|libOpenGL.so*) ;;  # the loader and glvnd come from .gl
      *) cp -L "$lib" "$dest/lib/" ;;
    esac
  done
fi
# The CPU path's benches (bench/cpu/wide_table.sh runs them from the unpacked
# folder, which has the build's layout), with the libraries they link that a
# bare machine lacks (Highway's, for the vqsort peer).
for bench in bitonic_cpu_types_bench bitonic_cpu_wide_peers; do
  program=$build/bench/cpu/$bench
  [ -x "$program" ] || continue
  mkdir -p "$dest/bench/cpu"
  cp "$program" "$dest/bench/cpu/"
  ldd "$program" | awk '$3 ~ /^\// { print $3 }' | grep -E '/libhwy' | while read -r lib; do cp -L "$lib" "$dest/lib/"; done
done
for peer in cub_sort_bench cub_parts; do
  for where in "$build/$peer" "$build/bench/cub/$peer"; do
    if [ -x "$where" ]; then cp "$where" "$dest/"; break; fi
  done
done
# The static library (position-independent), for python.sh to build the Python
# package's module there with that machine's python3.
if [ -f "$build/src/libbitonic.a" ]; then
  mkdir -p "$dest/static"
  cp "$build/src/libbitonic.a" "$dest/static/"
fi
strip "$dest"/tools/bitonic/* "$dest"/tests/* "$dest"/apps/boids/* "$dest"/bench/cpu/* 2> /dev/null || true
[ -n "$(ls "$dest/lib")" ] || rmdir "$dest/lib"

# What the pack is: the source commit (and whether the tree had changes), the build's options.
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2> /dev/null || true)
{
  echo "name: $name"
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $build"
  if [ -n "$source_dir" ] && git -C "$source_dir" rev-parse HEAD > /dev/null 2>&1; then
    changes=$(git -C "$source_dir" status --porcelain --untracked-files=no | wc -l)
    echo "commit: $(git -C "$source_dir" log -1 --format='%H %cd %s' --date=iso-strict)"
    echo "uncommitted changes: $changes files"
  fi
  grep -E '^(CMAKE_BUILD_TYPE|BITONIC_[A-Z_]+):(BOOL|STRING)=' "$build/CMakeCache.txt" 2> /dev/null | sort || true
  echo "programs:"
  (cd "$dest" && find . -type f ! -name PACKED.txt | sort | sed 's|^\./|  |')
} > "$dest/PACKED.txt"

# Every program embeds every SPIR-V module, the same 40 MB or so: a dictionary
# larger than one program finds each copy after the first (600 MB pack to
# about 10 MB, in under a minute at preset 1; the default 8 MiB window: 90 MB).
mkdir -p "$pack_dir"
tar -cf - -C "$stage" "$name" | xz -T1 --lzma2=preset=1,dict=192MiB > "$pack_dir/$name.tar.xz"
echo "pack.sh: $pack_dir/$name.tar.xz, $(du -k "$pack_dir/$name.tar.xz" | cut -f1) KiB (unpacked $(du -sk "$dest" | cut -f1) KiB)"

# What a device call would carry from this checkout: the tracked and untracked
# files git does not ignore, .gl and the packs.
tree_kib=$(cd "$root" && git ls-files -z -co --exclude-standard | xargs -0 du -ck 2> /dev/null | tail -n 1 | cut -f1)
gl_kib=$(du -sk "$root/.gl" 2> /dev/null | cut -f1 || echo 0)
packs_kib=$(du -ck "$pack_dir"/*.tar.xz | tail -n 1 | cut -f1)
total=$((tree_kib + ${gl_kib:-0} + packs_kib))
echo "pack.sh: to carry: tree $tree_kib KiB + .gl ${gl_kib:-0} KiB + packs $packs_kib KiB = $((total / 1024)) MiB of 64"
if [ "$total" -gt $((56 * 1024)) ]; then
  echo "pack.sh: WARNING: close to or over the 64 MiB the device tool carries; remove old packs from $pack_dir" >&2
fi
