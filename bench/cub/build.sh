#!/bin/sh
# build.sh: compiles the CUB peer benchmark (cub_sort_bench.cu) with nvcc, without CMake, so it
# can be built on the GPU machine or here and carried there.
#   bench/cub/build.sh [OUTPUT [SOURCE]]  (default OUTPUT: build/cub_sort_bench; SOURCE: another
#                                          program of this folder, e.g. bench/cub/cub_parts.cu)
# NVCC picks the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).
# CUDA_ARCH_FLAGS replaces the default targets: sm_90 code for the H100 plus compute_90 PTX, which
# the driver compiles for any newer GPU.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
output=${1:-build/cub_sort_bench}
source=${2:-$here/cub_sort_bench.cu}

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then
    nvcc=$(command -v nvcc)
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ] || ! [ -x "$nvcc" ]; then
  echo "build.sh: nvcc not found (install the CUDA toolkit, put nvcc on PATH, or set NVCC=/path/to/nvcc)" >&2
  exit 1
fi

arch_flags=${CUDA_ARCH_FLAGS:-"-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"}

mkdir -p "$(dirname "$output")"
echo "build.sh: $nvcc -> $output" >&2
# shellcheck disable=SC2086  # arch_flags is a list of words on purpose
"$nvcc" -O3 -std=c++17 $arch_flags -lineinfo -Xcompiler -Wall,-Wextra \
  -o "$output" "$source"
