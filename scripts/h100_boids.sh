#!/bin/bash
# h100_boids.sh: the flock's speed on the GPU (issue: steps/s per search mode at
# 16K, 256K, 1M and 4M boids, and that 16M runs), after h100_run.sh has set up
# the Vulkan loader. Appends to $OUT/boids.txt.
set -u
out=${OUT:-out}
boids=build/apps/boids/bitonic-boids
# The app links GLFW and libpng, which the GPU machine lacks: unpack the
# carried packages aside (not into /) and point the loader at them.
if [ -d .gl/boids ]; then
  mkdir -p /tmp/boids-libs
  for f in .gl/boids/*.deb; do dpkg -x "$f" /tmp/boids-libs; done
  export LD_LIBRARY_PATH=/tmp/boids-libs/usr/lib/x86_64-linux-gnu:/tmp/boids-libs/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
[ -x "$boids" ] || { echo "no $boids"; exit 1; }
{
  $boids --check --count 4000 --steps 8 --device NVIDIA --quiet | tail -n 2
  for n in 16384 262144 1048576 4194304; do
    for s in grid station; do
      $boids --bench --count $n --search $s --device NVIDIA --steps 200 --time-budget 8 --quiet | grep "^bench"
    done
  done
  for n in 16384 262144; do
    $boids --bench --count $n --search brute --device NVIDIA --steps 100 --time-budget 8 --quiet | grep "^bench"
  done
  $boids --bench --count 16777216 --search grid --device NVIDIA --steps 20 --time-budget 8 --quiet | grep "^bench"
} 2>&1 | tee -a "$out/boids.txt"
