"""reference.py: the library's key order written in NumPy, the oracle of the
tests. Every key type maps to unsigned bits whose order is the wanted order
(src/core/key_transform.h): floats -inf < ... < -0.0 < +0.0 < ... < +inf, then
the positive NaNs by payload, then the negative ones; descending is the map
with every bit flipped. A stable sort of those bits gives the expected
permutation exactly, where np.sort alone could not say where -0.0 or each NaN
goes.
"""
import numpy as np

DTYPES = (np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64)


def ordered_bits(keys, descending=False):
    keys = np.ascontiguousarray(keys)
    width = keys.dtype.itemsize * 8
    unsigned = np.dtype(f"u{width // 8}")
    bits = keys.view(unsigned).copy()
    top = unsigned.type(1) << unsigned.type(width - 1)
    if keys.dtype.kind == "i":
        bits ^= top
    elif keys.dtype.kind == "f":
        mantissa_all = unsigned.type((1 << (23 if width == 32 else 52)) - 1)
        negative_inf = unsigned.type(0xFF800000 if width == 32 else 0xFFF0000000000000)
        negative = (bits >> unsigned.type(width - 1)).astype(bool)
        negative_nan = bits > negative_inf
        twiddled = np.where(negative, ~bits, bits | top)
        with np.errstate(over="ignore"):
            numbers = twiddled - mantissa_all
            nans = ~bits + negative_inf + unsigned.type(1)
        bits = np.where(negative_nan, nans, numbers)
    return ~bits if descending else bits


def expected_argsort(keys, descending=False):
    """The stable permutation of keys in the library's order (NumPy int64)."""
    return np.argsort(ordered_bits(keys, descending), kind="stable").astype(np.int64)


def expected_sort(keys, descending=False):
    return np.ascontiguousarray(keys)[expected_argsort(keys, descending)]


def same_bits(actual, expected):
    """Equal element for element, bit for bit (so -0.0 and each NaN count)."""
    actual, expected = np.ascontiguousarray(actual), np.ascontiguousarray(expected)
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return False
    return bool(np.array_equal(actual.view(np.uint8), expected.view(np.uint8)))


def random_keys(rng, dtype, count, special=True):
    """Keys with many ties, extremes, and for floats -0.0, infinities and NaNs."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        keys = rng.normal(size=count).astype(dtype) * dtype.type(1000)
        keys[rng.random(count) < 0.3] = dtype.type(7.5)
        if special and count:
            extras = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dtype)
            keys[rng.integers(0, count, size=min(count, 12))] = rng.choice(extras, size=min(count, 12))
        return keys
    info = np.iinfo(dtype)
    keys = rng.integers(info.min, info.max, size=count, dtype=dtype, endpoint=True)
    keys[rng.random(count) < 0.3] = dtype.type(5)
    if special and count >= 2:
        keys[0], keys[-1] = info.max, info.min
    return keys
