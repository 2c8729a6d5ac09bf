"""test_errors.py: what the package refuses, and how: unsupported dtypes
(TypeError), keys not in the machine's byte order (ValueError), wrong shapes and
wrong out arrays, bad arguments; library failures as bitonic.Error naming the
status; the input unchanged whenever a call fails.
"""
import numpy as np
import pytest

import bitonic

UNSUPPORTED = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.float16, np.complex64, np.complex128,
               np.longdouble, "U3", "S3", object, "M8[s]")


@pytest.mark.parametrize("dtype", UNSUPPORTED, ids=str)
def test_unsupported_dtypes(cpu, dtype):
    keys = np.zeros(4, dtype=dtype)
    for call in (lambda: bitonic.sort(keys, ctx=cpu), lambda: bitonic.argsort(keys, ctx=cpu),
                 lambda: bitonic.sort_pairs(keys, np.zeros(4, np.uint32), ctx=cpu),
                 lambda: bitonic.searchsorted(keys, keys[:1], ctx=cpu)):
        with pytest.raises(TypeError, match="uint32, int32, float32, uint64, int64 and float64"):
            call()


@pytest.mark.parametrize("dtype", (">u4", ">i4", ">f4", ">u8", ">i8", ">f8"))
def test_non_native_byte_order(cpu, dtype):
    keys = np.array([3, 1, 2], dtype=dtype)
    before = keys.tobytes()
    with pytest.raises(ValueError, match="byte order"):
        bitonic.sort(keys, ctx=cpu)
    with pytest.raises(ValueError, match="byte order"):
        bitonic.sort(keys, out=keys, ctx=cpu)
    with pytest.raises(ValueError, match="byte order"):
        bitonic.argsort(keys, ctx=cpu)
    assert keys.tobytes() == before
    native = keys.astype(keys.dtype.newbyteorder("="))
    assert np.array_equal(bitonic.sort(native, ctx=cpu), [1, 2, 3])


def test_wrong_out(cpu):
    keys = np.array([[3, 1], [2, 0]], dtype=np.int32)
    before = keys.copy()
    with pytest.raises(TypeError):
        bitonic.sort(keys, out=np.empty((2, 2), dtype=np.int64), ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.sort(keys, out=np.empty((4,), dtype=np.int32), ctx=cpu)
    with pytest.raises(TypeError):
        bitonic.sort(keys, out=[[0, 0], [0, 0]], ctx=cpu)
    read_only = np.empty((2, 2), dtype=np.int32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.sort(keys, out=read_only, ctx=cpu)
    keys.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bitonic.sort(keys, out=keys, ctx=cpu)
    assert np.array_equal(keys, before)
    assert np.array_equal(bitonic.sort(keys, ctx=cpu), [[1, 3], [0, 2]]), "read-only input sorts into a copy"


def test_wrong_shapes_and_arguments(cpu):
    with pytest.raises(ValueError):
        bitonic.sort_pairs(np.zeros(3, np.uint32), np.zeros(4, np.uint32), ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.sort_pairs(np.zeros((2, 2), np.uint32), np.zeros((2, 2), np.uint32), ctx=cpu)
    with pytest.raises(TypeError):
        bitonic.sort_pairs(np.zeros(3, np.uint32), np.zeros(3, np.uint64), ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.searchsorted(np.zeros((2, 2), np.uint32), 1, ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.searchsorted(np.zeros(2, np.uint32), 1, side="middle", ctx=cpu)
    with pytest.raises(TypeError):
        bitonic.sort(np.zeros(3, np.uint32), axis=1.0, ctx=cpu)
    with pytest.raises(TypeError):
        bitonic.sort(np.zeros(3, np.uint32), ctx="cpu")
    with pytest.raises(TypeError):
        bitonic.Context(device=1.5)
    with pytest.raises(ValueError):
        bitonic.Context("cpu", cpu_threads=-1)
    with pytest.raises(ValueError):
        bitonic.empty((2, -1), np.uint32, ctx=cpu)


def test_library_errors_name_their_status():
    with pytest.raises(bitonic.Error) as raised:
        bitonic.Context("no such device anywhere", no_disk_cache=True)
    assert isinstance(raised.value, RuntimeError)
    assert raised.value.status_name == "BITONIC_ERROR_DEVICE_NOT_FOUND"
    assert str(raised.value).startswith("BITONIC_ERROR_DEVICE_NOT_FOUND: ")
    assert raised.value.status == 5


def test_closed_context():
    context = bitonic.Context("cpu", no_disk_cache=True)
    with context:
        assert not context.closed
    assert context.closed
    context.close()
    keys = np.array([2, 1], dtype=np.uint32)
    with pytest.raises(ValueError, match="closed"):
        bitonic.sort(keys, ctx=context)
    with pytest.raises(ValueError, match="closed"):
        context.info()
    assert np.array_equal(keys, [2, 1])


def test_nothing_printed(capfd):
    with bitonic.Context("cpu", no_disk_cache=True) as context:
        bitonic.sort(np.array([1.0, np.nan]), ctx=context)
        with pytest.raises(TypeError):
            bitonic.searchsorted(np.array([1, 2], dtype=np.int32), [np.nan], ctx=context)
        with pytest.raises(bitonic.Error):
            bitonic.Context("no such device anywhere", no_disk_cache=True)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
