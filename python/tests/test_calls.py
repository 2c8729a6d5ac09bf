"""test_calls.py: argsort, sort_pairs, searchsorted and structured arrays on
every backend, against the NumPy oracle of reference.py: every key type, both
orders, stable ties, empty and one-element inputs, rows along every axis.
"""
import numpy as np
import pytest

import bitonic
from reference import DTYPES, expected_argsort, expected_sort, ordered_bits, random_keys, same_bits

SIZES = (0, 1, 2, 5, 100, 3001)
ids = lambda d: np.dtype(d).name  # noqa: E731


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("descending", (False, True), ids=("ascending", "descending"))
def test_argsort(ctx, dtype, descending):
    rng = np.random.default_rng(11)
    for count in SIZES:
        keys = random_keys(rng, dtype, count)
        before = keys.copy()
        indices = bitonic.argsort(keys, descending=descending, stable=True, ctx=ctx)
        assert indices.dtype == np.int64 and indices.shape == keys.shape
        assert np.array_equal(indices, expected_argsort(keys, descending)), (ids(dtype), count)
        assert same_bits(keys, before)


def test_argsort_matches_numpy_stable(cpu):
    rng = np.random.default_rng(12)
    keys = rng.integers(0, 50, size=4000).astype(np.int32)
    assert np.array_equal(bitonic.argsort(keys, ctx=cpu), np.argsort(keys, kind="stable"))


def test_argsort_rows_and_axes(ctx):
    rng = np.random.default_rng(13)
    keys = rng.integers(0, 20, size=(4, 7, 50)).astype(np.float32)
    for axis in (-1, 0, 1):
        assert np.array_equal(bitonic.argsort(keys, axis=axis, ctx=ctx), np.argsort(keys, axis=axis, kind="stable"))
    assert np.array_equal(bitonic.argsort(keys, axis=None, ctx=ctx), np.argsort(keys, axis=None, kind="stable"))
    assert bitonic.argsort(keys[:, :, ::2], ctx=ctx).shape == (4, 7, 25)


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("descending", (False, True), ids=("ascending", "descending"))
def test_sort_pairs(ctx, dtype, descending):
    rng = np.random.default_rng(14)
    for count in SIZES:
        keys = random_keys(rng, dtype, count)
        values = rng.integers(0, 2**32, size=count, dtype=np.uint32)
        before = keys.copy(), values.copy()
        stable_keys, stable_values = bitonic.sort_pairs(keys, values, descending=descending, stable=True, ctx=ctx)
        permutation = expected_argsort(keys, descending)
        assert same_bits(stable_keys, keys[permutation]) and np.array_equal(stable_values, values[permutation])
        # Without stable, equal keys come out ordered by value (ascending).
        any_keys, any_values = bitonic.sort_pairs(keys, values, descending=descending, ctx=ctx)
        by_value = np.lexsort((values, ordered_bits(keys, descending)))
        assert same_bits(any_keys, keys[by_value]) and np.array_equal(any_values, values[by_value])
        assert same_bits(keys, before[0]) and np.array_equal(values, before[1])


def test_sort_pairs_value_types(ctx):
    keys = np.array([3, 1, 2], dtype=np.uint64)
    for values in (np.array([-1, -2, -3], dtype=np.int32), np.array([0.5, np.nan, -0.0], dtype=np.float32)):
        _, moved = bitonic.sort_pairs(keys, values, ctx=ctx)
        assert same_bits(moved, values[[1, 2, 0]])


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("side", ("left", "right"))
def test_searchsorted(ctx, dtype, side):
    rng = np.random.default_rng(15)
    keys = np.sort(random_keys(rng, dtype, 700, special=False))
    queries = np.concatenate([keys[rng.integers(0, 700, size=50)], random_keys(rng, dtype, 50, special=False)])
    positions = bitonic.searchsorted(keys, queries, side=side, ctx=ctx)
    assert positions.dtype == np.int64
    assert np.array_equal(positions, np.searchsorted(keys, queries, side=side))
    grid = queries[:12].reshape(3, 4)
    assert np.array_equal(bitonic.searchsorted(keys, grid, side=side, ctx=ctx),
                          np.searchsorted(keys, grid, side=side))


def test_searchsorted_edges(ctx):
    keys = np.array([-np.inf, -1.0, 0.0, 0.0, 2.0, np.nan], dtype=np.float64)
    assert bitonic.searchsorted(keys, 0.0, ctx=ctx) == 2 and isinstance(bitonic.searchsorted(keys, 0.0, ctx=ctx),
                                                                        np.int64)
    assert bitonic.searchsorted(keys, 0.0, side="right", ctx=ctx) == 4
    assert bitonic.searchsorted(keys, np.nan, ctx=ctx) == 5
    assert np.array_equal(bitonic.searchsorted(keys, [], ctx=ctx), np.array([], dtype=np.int64))
    assert np.array_equal(bitonic.searchsorted(np.array([], dtype=np.uint32), [3], ctx=ctx), [0])
    descending = np.array([9, 7, 7, 1], dtype=np.int32)
    assert np.array_equal(bitonic.searchsorted(descending, [7, 8, 0], descending=True, ctx=ctx), [1, 1, 4])
    # Python ints into uint32 keys convert exactly; a negative one does not.
    assert bitonic.searchsorted(np.array([1, 5], dtype=np.uint32), 5, ctx=ctx) == 1
    with pytest.raises(TypeError):
        bitonic.searchsorted(np.array([1, 5], dtype=np.uint32), -1, ctx=ctx)
    with pytest.raises(TypeError):
        bitonic.searchsorted(np.array([1, 5], dtype=np.int64), 2.5, ctx=ctx)


RECORD = np.dtype([("name", "S3"), ("depth", "<f4"), ("id", "<u8"), ("rank", "<i4")])


def records(count, seed=16):
    rng = np.random.default_rng(seed)
    data = np.zeros(count, dtype=RECORD)
    data["name"] = [b"a%02d" % (i % 100) for i in range(count)]
    data["depth"] = rng.integers(0, 10, size=count).astype(np.float32)
    data["id"] = np.arange(count, dtype=np.uint64)
    data["rank"] = rng.integers(-3, 3, size=count)
    return data


@pytest.mark.parametrize("descending", (False, True), ids=("ascending", "descending"))
def test_structured_by_field(ctx, descending):
    for count in (0, 1, 7, 1500):
        data = records(count)
        before = data.copy()
        result = bitonic.sort(data, order="depth", descending=descending, ctx=ctx)
        assert np.array_equal(data, before)
        permutation = expected_argsort(data["depth"], descending)
        assert result.tobytes() == data[permutation].tobytes(), count
        assert np.array_equal(bitonic.argsort(data, order="depth", descending=descending, ctx=ctx), permutation)


def test_structured_by_several_fields(ctx):
    data = records(900)
    expected = np.argsort(data, order=["rank", "depth", "id"], kind="stable")
    assert bitonic.sort(data, order=["rank", "depth"], ctx=ctx).tobytes() == data[expected].tobytes()
    assert np.array_equal(bitonic.argsort(data, order=["rank", "depth"], ctx=ctx), expected)
    numbers = data[["depth", "rank"]]                  # a view whose records keep the other fields' bytes
    assert bitonic.sort(numbers, ctx=ctx).tolist() == np.sort(numbers).tolist()


def test_structured_rows_and_out(ctx):
    data = records(120).reshape(4, 30)
    result = bitonic.sort(data, order="rank", ctx=ctx)
    for row in range(4):
        assert result[row].tobytes() == data[row][expected_argsort(data[row]["rank"])].tobytes()
    out = np.empty_like(data)
    assert bitonic.sort(data, order="rank", out=out, ctx=ctx) is out and out.tobytes() == result.tobytes()
    flat = bitonic.sort(data, axis=None, order="id", ctx=ctx)
    assert flat.shape == (120,) and np.array_equal(flat["id"], np.arange(120))


def test_structured_errors(cpu):
    data = records(5)
    with pytest.raises(TypeError):
        bitonic.sort(data, order="name", ctx=cpu)
    with pytest.raises(TypeError):
        bitonic.sort(data, ctx=cpu)                     # "name" is a field too
    with pytest.raises(ValueError):
        bitonic.sort(data, order="missing", ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.sort(np.arange(3, dtype=np.int32), order="depth", ctx=cpu)
    with pytest.raises(ValueError):
        bitonic.argsort(records(6).reshape(2, 3), order="depth", ctx=cpu)
    swapped = np.zeros(3, dtype=[("k", ">u4")])
    with pytest.raises(ValueError):
        bitonic.sort(swapped, order="k", ctx=cpu)
