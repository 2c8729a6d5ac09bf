"""setup.py: builds the bitonic Python package against the C library of this
source tree. First CMake builds the static library (position-independent, without
tests, benchmarks, apps or MPI) into build/libbitonic, or builds the `bitonic`
target of an existing build tree named by BITONIC_LIBRARY_BUILD_DIR; then the
extension module bitonic._bitonic is compiled and linked against it, with the
link flags that tree's bitonic.pc names (pkg-config), and the library's symbols
kept out of the module's exports.

    python3 -m pip install --no-build-isolation ./python

BITONIC_SOURCE_DIR: the library's source tree (default: the folder above this
one). BITONIC_WERROR=1: compile the module with warnings as errors (the test
script sets it).
"""
import os
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.environ.get("BITONIC_SOURCE_DIR") or os.path.join(HERE, ".."))


def run(command):
    print(" ".join(shlex.quote(part) for part in command), flush=True)
    subprocess.check_call(command)


def build_library():
    """Builds libbitonic.a and returns (the build tree, its library folder)."""
    if not os.path.exists(os.path.join(SOURCE_DIR, "CMakeLists.txt")):
        raise RuntimeError(f"no bitonic source tree at {SOURCE_DIR}: set BITONIC_SOURCE_DIR")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    build_dir = os.environ.get("BITONIC_LIBRARY_BUILD_DIR")
    if build_dir:
        build_dir = os.path.abspath(build_dir)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            raise RuntimeError(f"BITONIC_LIBRARY_BUILD_DIR={build_dir} is not a configured CMake build tree")
    else:
        build_dir = os.path.join(HERE, "build", "libbitonic")
        configure = ["cmake", "-S", SOURCE_DIR, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                     "-DBUILD_SHARED_LIBS=OFF", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-DBITONIC_MPI=OFF",
                     "-DBITONIC_BUILD_TESTS=OFF", "-DBITONIC_BUILD_BENCH=OFF", "-DBITONIC_BUILD_APPS=OFF"]
        if shutil.which("ccache") and not os.environ.get("CMAKE_C_COMPILER_LAUNCHER"):
            configure += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        run(configure)
    run(["cmake", "--build", build_dir, "--target", "bitonic", "-j", jobs])
    return build_dir, os.path.join(build_dir, "src")


def link_flags(build_dir, library_dir):
    """The static link line of bitonic.pc, pointed at the build tree."""
    command = ["pkg-config", f"--define-variable=libdir={library_dir}",
               f"--define-variable=includedir={os.path.join(SOURCE_DIR, 'include')}",
               "--static", "--libs", os.path.join(build_dir, "bitonic.pc")]
    return shlex.split(subprocess.check_output(command, text=True))


class build_ext_with_library(build_ext):
    """build_ext that builds the library first and links the module with it."""

    def build_extensions(self):
        build_dir, library_dir = build_library()
        archive = os.path.join(library_dir, "libbitonic.a")
        if not os.path.exists(archive):
            raise RuntimeError(f"{archive} was not built (a shared build tree? the module links the static library)")
        flags = link_flags(build_dir, library_dir)
        for extension in self.extensions:
            extension.include_dirs.append(os.path.join(SOURCE_DIR, "include"))
            # The archive itself, then what it needs; -lbitonic would find a shared copy first.
            extension.extra_objects.append(archive)
            extension.extra_link_args += [flag for flag in flags if flag != "-lbitonic"]
            extension.extra_link_args.append("-Wl,--exclude-libs,ALL")
        # Always compile and link again (three small files): a module left from a
        # build against another library tree must not survive by its timestamps.
        self.force = True
        super().build_extensions()


warnings = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic"]
if os.environ.get("BITONIC_WERROR") == "1":
    warnings.append("-Werror")

setup(
    packages=["bitonic"],
    package_data={"bitonic": ["py.typed", "*.pyi"]},
    ext_modules=[Extension(
        "bitonic._bitonic",
        sources=["src/module.c", "src/context.c", "src/calls.c"],
        depends=["src/bitonic_python.h"],
        extra_compile_args=warnings + ["-fvisibility=hidden", "-D_POSIX_C_SOURCE=200809L"],
    )],
    cmdclass={"build_ext": build_ext_with_library},
)
