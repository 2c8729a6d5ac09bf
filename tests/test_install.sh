#!/bin/sh
# test_install.sh BUILD_DIR SOURCE_DIR: installs the build into a scratch
# prefix, then builds examples/ against it twice, through the CMake package and
# through pkg-config, and runs both programs on the CPU path.
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
echo "install test: CMake package and pkg-config builds ran"
