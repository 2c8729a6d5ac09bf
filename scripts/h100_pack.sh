#!/bin/sh
# h100_pack.sh: copies what the GPU machine runs (the tool, the test programs,
# the flock, the CUB peer) from build/ into build-h100/, stripped, so the
# device tool's 64 MiB transfer limit holds; on the GPU machine, link it as build.
# BUILD names the build folder (default build). The GPU machine has no Open MPI:
# pack a build configured with -DBITONIC_MPI=OFF, or the tool will not start
# there (scripts/gpu_distributed.sh carries Open MPI for the MPI programs).
set -eu
build=${BUILD:-build}
rm -rf build-h100
mkdir -p build-h100/tools/bitonic build-h100/tests build-h100/apps/boids
cp $build/tools/bitonic/bitonic $build/tools/bitonic/bitonic-npy build-h100/tools/bitonic/
for t in schedule tuning api vulkan_interop vulkan_sort vulkan_partition key_types key_types64 host_path device_addresses; do
  cp $build/tests/test_$t build-h100/tests/
done
cp $build/tests/api_tour build-h100/tests/
# The GLES backend's test and example, when the build has them (scripts/h100_gles.sh).
for t in test_gles gles_tour; do [ -x $build/tests/$t ] && cp $build/tests/$t build-h100/tests/; done
[ -x $build/tests/test_mpi_sort ] && cp $build/tests/test_mpi_sort build-h100/tests/   # for scripts/gpu_distributed.sh
[ -x $build/cub_sort_bench ] && cp $build/cub_sort_bench build-h100/
[ -x $build/apps/boids/bitonic-boids ] && cp $build/apps/boids/bitonic-boids build-h100/apps/boids/
strip build-h100/tests/* build-h100/tools/bitonic/bitonic build-h100/apps/boids/* 2>/dev/null || true
du -sh build-h100
# Each program embeds every SPIR-V module: they compress well, and the transfer
# limit counts bytes. On the GPU machine: tar -xJf build-h100.tar.xz
tar -cJf build-h100.tar.xz build-h100
ls -la build-h100.tar.xz
