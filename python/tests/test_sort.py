"""test_sort.py: bitonic.sort on every backend: every key type in both orders,
empty and one-element arrays, ties, -0.0, infinities and NaNs, rows of 2-D and
3-D arrays along every axis, axis=None, out= (a new array, the input itself, a
non-contiguous view), and non-contiguous or misaligned input. Results are
compared bit for bit with the NumPy oracle of reference.py, and with np.sort
where NumPy's order is the same.
"""
import numpy as np
import pytest

import bitonic
from reference import DTYPES, expected_sort, random_keys, same_bits

AxisError = getattr(getattr(np, "exceptions", None), "AxisError", None) or np.AxisError
# Above one tile of lavapipe and of the CPU path's small sorts, below a second on llvmpipe's fragment path.
SIZES = (0, 1, 2, 3, 17, 255, 1000, 4099)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("descending", (False, True), ids=("ascending", "descending"))
def test_every_type_and_order(ctx, dtype, descending):
    rng = np.random.default_rng(1)
    for count in SIZES:
        keys = random_keys(rng, dtype, count)
        before = keys.copy()
        result = bitonic.sort(keys, descending=descending, ctx=ctx)
        assert same_bits(keys, before), "the input was changed"
        assert same_bits(result, expected_sort(keys, descending)), (np.dtype(dtype).name, count)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_matches_numpy_without_nans_or_negative_zero(cpu, dtype):
    rng = np.random.default_rng(2)
    keys = random_keys(rng, dtype, 5000, special=False)
    assert np.array_equal(bitonic.sort(keys, ctx=cpu), np.sort(keys))
    assert np.array_equal(bitonic.sort(keys, descending=True, ctx=cpu), np.sort(keys)[::-1])


def test_larger_sort(ctx):
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**32, size=20000, dtype=np.uint32)
    assert np.array_equal(bitonic.sort(keys, ctx=ctx), np.sort(keys))


def test_float_order(ctx):
    keys = np.array([1.0, np.nan, -0.0, np.inf, 0.0, -np.inf, -1.0, -np.nan], dtype=np.float32)
    result = bitonic.sort(keys, ctx=ctx)
    assert np.array_equal(result[:6], [-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf])
    assert np.signbit(result[2]) and not np.signbit(result[3]), "-0.0 sorts before +0.0"
    assert np.isnan(result[6:]).all() and not np.signbit(result[6]) and np.signbit(result[7])
    descending = bitonic.sort(keys, descending=True, ctx=ctx)
    assert same_bits(descending, result[::-1]), "descending is exactly the reverse"
    # NumPy agrees but for the sign of zero and of NaN.
    assert np.array_equal(result, np.sort(keys), equal_nan=True)


@pytest.mark.parametrize("dtype", (np.uint32, np.float64), ids=("uint32", "float64"))
def test_rows_along_every_axis(ctx, dtype):
    rng = np.random.default_rng(4)
    keys = random_keys(rng, dtype, 6 * 5 * 33).reshape(6, 5, 33)
    for axis in (-1, 0, 1, 2, -3):
        result = bitonic.sort(keys, axis=axis, ctx=ctx)
        moved = np.moveaxis(keys, axis, -1)
        expected = np.stack([expected_sort(row) for row in moved.reshape(-1, moved.shape[-1])])
        assert result.flags.c_contiguous and result.shape == keys.shape
        assert same_bits(np.moveaxis(result, axis, -1).reshape(-1, moved.shape[-1]), expected), axis
    flat = bitonic.sort(keys, axis=None, ctx=ctx)
    assert flat.shape == (keys.size,) and same_bits(flat, expected_sort(keys.reshape(-1)))


def test_two_dimensional_rows_descending(ctx):
    rng = np.random.default_rng(5)
    keys = rng.integers(-50, 50, size=(40, 129), dtype=np.int32)
    result = bitonic.sort(keys, descending=True, ctx=ctx)
    assert np.array_equal(result, -np.sort(-keys, axis=-1))
    assert np.array_equal(bitonic.sort(keys[:, :0], ctx=ctx), keys[:, :0])
    assert np.array_equal(bitonic.sort(keys[:, :1], ctx=ctx), keys[:, :1])


def test_out(ctx):
    rng = np.random.default_rng(6)
    keys = rng.integers(0, 1000, size=(3, 300), dtype=np.int64)
    expected = np.sort(keys)
    out = np.empty_like(keys)
    assert bitonic.sort(keys, out=out, ctx=ctx) is out and np.array_equal(out, expected)
    strided = np.empty((3, 600), dtype=np.int64)[:, ::2]
    assert bitonic.sort(keys, out=strided, ctx=ctx) is strided and np.array_equal(strided, expected)
    columns = np.empty_like(keys)
    bitonic.sort(keys, axis=0, out=columns, ctx=ctx)
    assert np.array_equal(columns, np.sort(keys, axis=0))
    in_place = keys.copy()
    assert bitonic.sort(in_place, out=in_place, ctx=ctx) is in_place and np.array_equal(in_place, expected)
    # out overlapping the input (a shifted view of one buffer).
    buffer = np.concatenate([keys[0], [0]])
    bitonic.sort(buffer[:-1], out=buffer[1:], ctx=ctx)
    assert np.array_equal(buffer[1:], expected[0])


def test_non_contiguous_and_misaligned_input(ctx):
    rng = np.random.default_rng(7)
    keys = rng.random(4000).astype(np.float32)
    assert np.array_equal(bitonic.sort(keys[::3], ctx=ctx), np.sort(keys[::3]))
    assert np.array_equal(bitonic.sort(keys[::-1], ctx=ctx), np.sort(keys))
    raw = np.zeros(4 * 1000 + 1, dtype=np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=np.float32, count=1000, offset=1)
    assert not misaligned.flags.aligned
    assert np.array_equal(bitonic.sort(misaligned, ctx=ctx), np.sort(misaligned))
    fortran = np.asfortranarray(rng.integers(0, 9, size=(30, 20), dtype=np.uint64))
    assert np.array_equal(bitonic.sort(fortran, ctx=ctx), np.sort(fortran))


def test_python_sequences_and_scalar_dims(cpu):
    assert np.array_equal(bitonic.sort([3, 1, 2], ctx=cpu), [1, 2, 3])
    assert bitonic.sort([3.5, -1.0], ctx=cpu).dtype == np.float64
    assert np.array_equal(bitonic.sort(np.array(5, dtype=np.int32), axis=None, ctx=cpu), [5])
    with pytest.raises(AxisError):
        bitonic.sort(np.array(5, dtype=np.int32), ctx=cpu)
    with pytest.raises(AxisError):
        bitonic.sort(np.zeros((2, 2), dtype=np.int32), axis=2, ctx=cpu)


def test_default_context():
    keys = np.array([2, 3, 1], dtype=np.uint64)
    assert np.array_equal(bitonic.sort(keys), [1, 2, 3])
    assert bitonic.default_context() is bitonic.default_context()
    assert "backend" in bitonic.default_context().info()
