"""test_properties.py: property tests (Hypothesis) of sort and argsort against
np.sort and np.argsort(kind="stable") on the CPU path, and of sort against the
bit-exact oracle on every backend: arbitrary arrays of every key type, floats
with NaN, infinities and signed zeros included.
"""
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import bitonic
from reference import DTYPES, expected_argsort, expected_sort, same_bits

keys_1d = hnp.arrays(dtype=st.sampled_from([np.dtype(d) for d in DTYPES]),
                     shape=st.integers(min_value=0, max_value=300))
keys_nd = hnp.arrays(dtype=st.sampled_from([np.dtype(d) for d in DTYPES]),
                     shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=12))
tolerant = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
quick = settings(max_examples=60, deadline=None, suppress_health_check=tolerant)


@quick
@given(keys=keys_1d, descending=st.booleans())
def test_sort_is_numpy_sort(cpu, keys, descending):
    result = bitonic.sort(keys, descending=descending, ctx=cpu)
    expected = np.sort(keys)[::-1] if descending else np.sort(keys)
    assert np.array_equal(result, expected, equal_nan=keys.dtype.kind == "f")
    assert same_bits(result, expected_sort(keys, descending))


@quick
@given(keys=keys_1d)
def test_argsort_is_numpy_stable_argsort(cpu, keys):
    indices = bitonic.argsort(keys, ctx=cpu)
    assert same_bits(indices, expected_argsort(keys))
    if keys.dtype.kind != "f" or not (keys == 0).any():
        # NumPy's stable argsort agrees wherever -0.0 and +0.0 do not meet (all NaNs count as equal, last).
        if keys.dtype.kind != "f" or np.isnan(keys).sum() <= 1:
            assert np.array_equal(indices, np.argsort(keys, kind="stable"))


@settings(max_examples=15, deadline=None, suppress_health_check=tolerant)
@given(keys=keys_nd, descending=st.booleans(), data=st.data())
def test_sort_along_any_axis_on_every_backend(ctx, keys, descending, data):
    axis = data.draw(st.integers(min_value=-keys.ndim, max_value=keys.ndim - 1))
    result = bitonic.sort(keys, axis=axis, descending=descending, ctx=ctx)
    moved = np.moveaxis(keys, axis, -1).reshape(-1, keys.shape[axis])
    expected = np.stack([expected_sort(row, descending) for row in moved]) if moved.shape[0] else moved
    assert same_bits(np.moveaxis(result, axis, -1).reshape(moved.shape), expected)
