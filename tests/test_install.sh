#!/bin/sh
# test_install.sh BUILD_DIR SOURCE_DIR: installs the build into a scratch
# prefix, then builds examples/ against it twice, through the CMake package and
# through pkg-config, and runs both programs on the CPU path; where the build has
# MPI, the same for examples/mpi_sort.c against bitonic_mpi, on 2 ranks.
set -eu
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
cmake -S "$source/examples" -B "$scratch/examples" -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/configure.log"
cmake --build "$scratch/examples" > "$scratch/build.log"
BITONIC_DEVICE=cpu "$scratch/examples/sort_keys"
libdir=$(ls -d "$scratch"/prefix/lib*/pkgconfig | head -n 1)
PKG_CONFIG_PATH=$libdir cc -std=c11 "$source/examples/sort_keys.c" -o "$scratch/sort_keys_pc" \
    $(PKG_CONFIG_PATH=$libdir pkg-config --define-variable=prefix="$scratch/prefix" --cflags --libs --static bitonic)
BITONIC_DEVICE=cpu "$scratch/sort_keys_pc"
# The distributed sort, where the build has it: bitonic_mpi.pc, built and run on 2 ranks
# (MPI's own flags again, unmoved: --define-variable=prefix moves mpi-c's prefix too).
if [ -f "$libdir/bitonic_mpi.pc" ]; then
  test -x "$scratch/examples/mpi_sort"   # the CMake package gave bitonic::bitonic_mpi
  cc -std=c11 "$source/examples/mpi_sort.c" -o "$scratch/mpi_sort_pc" \
      $(PKG_CONFIG_PATH=$libdir pkg-config --define-variable=prefix="$scratch/prefix" --cflags --libs --static bitonic_mpi) \
      $(pkg-config --cflags --libs mpi-c)
  sh "$source/tests/run_mpi.sh" mpiexec 2 "$scratch/mpi_sort_pc" cpu
fi
echo "install test: CMake package and pkg-config builds ran"
