#!/bin/sh
# test.sh: the whole test suite, as CI runs it: a warnings-as-errors build and
# its CTest suite (Vulkan tests on lavapipe with validation on), the Python
# package installed into a virtual environment and its tests (CPU path,
# lavapipe with validation, gles), a shared build and its install test, the same suite
# under AddressSanitizer + UndefinedBehaviorSanitizer, a bounded run of the
# libFuzzer target for the key-file readers, and the WebGL2 build's tests in
# headless Chromium (web/test.sh).
set -eu
jobs=$(nproc 2>/dev/null || echo 2)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

echo "== build (Release, -Werror) and tests"
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DBITONIC_WERROR=ON > build-test.log
cmake --build build-test -j"$jobs" >> build-test.log
# Two suites at a time: much of a lavapipe suite is one thread (shader
# compilation, the validation layer, the host-side checks).
(cd build-test && ctest --output-on-failure -j"$jobs")

echo "== the Python package: the README's install into a virtual environment, then its tests"
# On the library the stage above built (static, position-independent); pip may
# not reach the network (--no-index): Debian's NumPy, pytest and Hypothesis come
# in through --system-site-packages. The tests run from outside python/, so the
# installed package is the one imported. Debian's own interpreter, which its
# python3-* packages serve: a python3 earlier on PATH (pyenv's, say) has
# neither NumPy nor wheel.
python=${PYTHON:-python3}
[ -n "${PYTHON:-}" ] || [ ! -x /usr/bin/python3 ] || python=/usr/bin/python3
rm -rf build-python
"$python" -m venv --system-site-packages build-python/venv
BITONIC_WERROR=1 BITONIC_LIBRARY_BUILD_DIR="$root/build-test" \
    build-python/venv/bin/python -m pip install --no-index --no-build-isolation ./python > build-python.log 2>&1 ||
  { tail -n 30 build-python.log; exit 1; }
(cd build-python && venv/bin/python -c 'import bitonic, sys; sys.exit("venv" not in bitonic.__file__)' &&
  BITONIC_PY_REQUIRE_BACKENDS=cpu,vulkan,gles venv/bin/python -m pytest -q -p no:cacheprovider ../python/tests)

echo "== shared library: build, then the README's install commands on it"
cmake -S . -B build-shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DBITONIC_BUILD_TESTS=OFF \
    -DBITONIC_BUILD_BENCH=OFF -DBITONIC_BUILD_APPS=OFF > build-shared.log
cmake --build build-shared -j"$jobs" >> build-shared.log
sh tests/test_install.sh build-shared .

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBITONIC_SANITIZE=ON -DBITONIC_BUILD_BENCH=OFF > build-asan.log
cmake --build build-asan -j"$jobs" >> build-asan.log
# The Vulkan drivers are not ours: their allocations at exit are not our leaks.
# The validation layer is off here: the Release stage ran the same recordings
# under it, and its allocations through the sanitizer's allocator cost most of
# this stage's time (tests/vulkan_test_device.h).
(cd build-asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 BITONIC_TEST_VALIDATION=0 \
    ctest --output-on-failure -j"$jobs" -E install)

if command -v clang > /dev/null; then
  echo "== fuzzing the key-file readers"
  cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DBITONIC_BUILD_FUZZERS=ON \
      -DBITONIC_BUILD_BENCH=OFF -DBITONIC_BUILD_APPS=OFF > build-fuzz.log
  cmake --build build-fuzz -j"$jobs" --target fuzz_key_file >> build-fuzz.log
  (cd build-fuzz && ctest --output-on-failure -R fuzz)
fi
if command -v emcc > /dev/null && command -v chromium > /dev/null; then
  echo "== the WebGL2 build in headless Chromium"
  sh web/test.sh
fi
echo "== all test stages passed"
