#!/bin/sh
# test_install.sh BUILD_DIR SOURCE_DIR: the README's install commands, run on
# a build (static or shared, whichever BUILD_DIR is): `cmake --install` into a
# scratch prefix, which is then moved (the package must be relocatable), then
# examples/ built against it through the CMake package and through
# `pkg-config --cflags --libs bitonic` alone, and both programs run on the CPU
# path. A shared build must carry a versioned soname and export only the
# functions the public headers mark BITONIC_API. Where the build has MPI, the
# same for examples/mpi_sort.c against bitonic_mpi, on 2 ranks.
set -eu
build=$1
source=$(cd "$2" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/installed" > "$scratch/install.log"
mv "$scratch/installed" "$scratch/prefix"   # nothing may point at the old place
prefix=$scratch/prefix
libdir=$(dirname "$(ls -d "$prefix"/lib*/pkgconfig | head -n 1)")
# The tuning overrides (src/private) are for the bench and the tests: never installed.
if [ -n "$(find "$prefix" -name 'bitonic_tuning_overrides.h')" ]; then
  echo "install test: the private header bitonic_tuning_overrides.h was installed"; exit 1
fi
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if ls "$libdir"/libbitonic.so* > /dev/null 2>&1; then
  kind=shared
  soname=$(readelf -d "$libdir/libbitonic.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  case "$soname" in
    libbitonic.so.[0-9]*) ;;
    *) echo "install test: libbitonic.so has no versioned soname ('$soname')"; exit 1 ;;
  esac
  exported=$(nm -D --defined-only "$libdir/libbitonic.so" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
  declared=$(cat "$prefix"/include/bitonic.h "$prefix"/include/bitonic_vulkan.h \
                 $(ls "$prefix"/include/bitonic_gles.h 2>/dev/null) |
             sed -n 's/^BITONIC_API .*\b\(bitonic_[a-z0-9_]*\)(.*/\1/p' | sort)
  if [ "$exported" != "$declared" ]; then
    echo "install test: libbitonic.so exports other symbols than the headers declare:"
    printf '%s\n' "$exported" > "$scratch/exported"; printf '%s\n' "$declared" > "$scratch/declared"
    diff "$scratch/declared" "$scratch/exported" | head -n 20
    exit 1
  fi
else
  kind=static
fi

# The CMake package: find_package(bitonic OPTIONAL_COMPONENTS mpi).
cmake -S "$source/examples" -B "$scratch/examples" -DCMAKE_PREFIX_PATH="$prefix" > "$scratch/configure.log"
cmake --build "$scratch/examples" > "$scratch/build.log"
BITONIC_DEVICE=cpu "$scratch/examples/sort_keys"

# pkg-config alone, as the README says.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 "$source/examples/sort_keys.c" -o "$scratch/sort_keys_pc" $(pkg-config --cflags --libs bitonic)
BITONIC_DEVICE=cpu "$scratch/sort_keys_pc"

# The distributed sort, where the build has it.
if [ -f "$libdir/pkgconfig/bitonic_mpi.pc" ]; then
  test -x "$scratch/examples/mpi_sort"   # the CMake package gave bitonic::mpi
  cc -std=c11 "$source/examples/mpi_sort.c" -o "$scratch/mpi_sort_pc" $(pkg-config --cflags --libs bitonic_mpi)
  sh "$source/tests/run_mpi.sh" mpiexec 2 "$scratch/mpi_sort_pc" cpu
fi
echo "install test ($kind): the moved package built examples through CMake and pkg-config, and they ran"
