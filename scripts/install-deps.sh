#!/bin/sh
# install-deps.sh: the Debian 12 packages to build bitonic and run its tests
# (compiler, CMake, glslc, the Vulkan loader and headers, lavapipe, the Khronos
# validation layer, clang for the fuzzer, pkg-config for the install test,
# libpng, GLFW and ffmpeg for the flock's pictures, window and video, EGL with
# OpenGL ES, Mesa's EGL driver and its DRI drivers (llvmpipe) for the GLES
# backend, Open MPI for the distributed sort and its tests, and Python's headers,
# NumPy, pip, venv, wheel, pytest and Hypothesis for the Python package).
set -eu
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends \
    build-essential cmake pkg-config glslc libvulkan-dev libvulkan1 mesa-vulkan-drivers libpng-dev libglfw3-dev ffmpeg \
    vulkan-validationlayers vulkan-tools clang libclang-rt-14-dev python3 \
    libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libopenmpi-dev openmpi-bin emscripten chromium \
    python3-dev python3-numpy python3-pip python3-venv python3-setuptools python3-wheel python3-pytest \
    python3-hypothesis > /dev/null
