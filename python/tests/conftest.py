"""conftest.py: the contexts the tests sort on, one of each backend for the whole
run: the CPU path, Vulkan on the first device of any type (lavapipe where there
is no GPU) with the validation layer on, and OpenGL ES 3 through EGL (llvmpipe)
with glGetError checked after every draw. A validation message fails the test
during which it came. A backend that cannot be made is skipped, unless
BITONIC_PY_REQUIRE_BACKENDS (comma-separated, as scripts/test.sh sets it) names
it: then its tests fail. As in the C tests (tests/vulkan_test_device.h),
BITONIC_TEST_DEVICE names the Vulkan device (default "vulkan": the first of any
type) and BITONIC_TEST_VALIDATION=0 turns the layer off.
"""
import os

import pytest

import bitonic

BACKENDS = ("cpu", "vulkan", "gles")
_contexts = {}
_failures = {}


def _required(backend):
    wanted = os.environ.get("BITONIC_PY_REQUIRE_BACKENDS", "")
    return backend in [name.strip() for name in wanted.split(",")]


def _context_for(backend, cache_directory):
    if backend not in _contexts and backend not in _failures:
        device = (os.environ.get("BITONIC_TEST_DEVICE") or "vulkan") if backend == "vulkan" else backend
        validation = backend != "cpu" and os.environ.get("BITONIC_TEST_VALIDATION") != "0"
        try:
            _contexts[backend] = bitonic.Context(device, validation=validation, cache_directory=cache_directory)
            _contexts[backend].backend = backend
        except bitonic.Error as error:
            _failures[backend] = error
    if backend in _failures:
        if _required(backend):
            pytest.fail(f"the {backend} backend is required here but could not be made: {_failures[backend]}")
        pytest.skip(f"no {backend} backend: {_failures[backend]}")
    return _contexts[backend]


# One cache directory for the whole run: the contexts are kept across tests.
_cache_directory = []


@pytest.fixture
def cache_directory(tmp_path_factory):
    if not _cache_directory:
        _cache_directory.append(str(tmp_path_factory.mktemp("bitonic-cache")))
    return _cache_directory[0]


@pytest.fixture(params=BACKENDS)
def ctx(request, cache_directory):
    """Each backend's context in turn; fails the test on a validation message."""
    context = _context_for(request.param, cache_directory)
    before = context.info()["validation_messages"]
    yield context
    after = context.info()["validation_messages"]
    assert after == before, f"{after - before} validation messages: {context.validation_messages()}"


@pytest.fixture
def cpu(cache_directory):
    return _context_for("cpu", cache_directory)


def pytest_sessionfinish():
    for context in _contexts.values():
        context.close()
