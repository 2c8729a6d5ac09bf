"""bitonic: NumPy arrays sorted by the bitonic library, on a Vulkan GPU, through
OpenGL ES, or on its SIMD CPU path, with NumPy's signatures.

    >>> import numpy as np, bitonic
    >>> bitonic.sort(np.array([3, 1, 2], dtype=np.uint32))
    array([1, 2, 3], dtype=uint32)
    >>> bitonic.argsort(np.array([2.5, 0.5, 1.5]))
    array([1, 2, 0])

Keys are uint32, int32, float32, uint64, int64 or float64 in the machine's byte
order. Floats sort in one total order: -inf < ... < -0.0 < +0.0 < ... < +inf,
then the NaNs (NumPy too puts NaNs last, but treats -0.0 and +0.0 as equal);
descending is exactly the reverse. Every call takes ctx=, a Context; without it
the default context (made on first use, the library's default device choice)
sorts. The GIL is released while the library sorts. docs/PYTHON.md is the guide.
"""
from __future__ import annotations

import atexit
import threading
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _bitonic
from ._bitonic import Error

__all__ = ["Context", "Error", "argsort", "default_context", "devices", "empty", "searchsorted", "sort",
           "sort_pairs"]
__version__ = f"{_bitonic.VERSION_MAJOR}.{_bitonic.VERSION_MINOR}.{_bitonic.VERSION_PATCH}"

_KEY_TYPES = {
    np.dtype(np.uint32): _bitonic.KEY_U32,
    np.dtype(np.int32): _bitonic.KEY_I32,
    np.dtype(np.float32): _bitonic.KEY_F32,
    np.dtype(np.uint64): _bitonic.KEY_U64,
    np.dtype(np.int64): _bitonic.KEY_I64,
    np.dtype(np.float64): _bitonic.KEY_F64,
}
_VULKAN_DEVICE_TYPES = {0: "other", 1: "integrated-gpu", 2: "discrete-gpu", 3: "virtual-gpu", 4: "cpu"}
_AxisError = getattr(getattr(np, "exceptions", None), "AxisError", None) or np.AxisError


class Context(_bitonic.Context):
    """A bitonic context: one device, or the CPU path, that sorts.

    device: None (or "auto") for the library's default choice (BITONIC_DEVICE
    if set, else the first discrete GPU, then an integrated or virtual one, else
    the CPU path; a CPU Vulkan driver such as lavapipe is never picked
    automatically), "cpu", "vulkan" (the first Vulkan device of any type),
    "gles" (OpenGL ES 3 through a headless EGL context), a Vulkan device index
    (as devices() lists them) or part of a device name, ignoring case.

    validation: the Khronos validation layer on (on GLES, glGetError after every
    draw); validation_messages() returns what it said. cpu_threads: threads of
    the CPU path (0: every core). cache_directory, no_disk_cache: where the
    library keeps what it learns about a device (pipeline cache, crossover), or
    nothing on disk. crossover_keys: host sorts below this many keys run on the
    CPU path (0: the library's default; docs/API.md).

    Use it as a context manager (closed on exit) or close() it; a context may be
    shared by threads, whose calls on it then run one after another (for sorts
    side by side, give each thread its own). Failures raise bitonic.Error.

        >>> with bitonic.Context("cpu") as ctx:
        ...     bitonic.sort(np.array([2, 1], dtype=np.int32), ctx=ctx)
        array([1, 2], dtype=int32)
    """

    def __init__(self, device: Union[str, int, None] = None, *, validation: bool = False, cpu_threads: int = 0,
                 cache_directory: Optional[str] = None, no_disk_cache: bool = False, crossover_keys: int = 0) -> None:
        for name, value in (("cpu_threads", cpu_threads), ("crossover_keys", crossover_keys)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be an integer of at least 0, not {value!r}")
        if cpu_threads > 0xFFFFFFFF or crossover_keys > 0xFFFFFFFFFFFFFFFF:
            raise ValueError("cpu_threads or crossover_keys is too large")
        super().__init__(_selector(device), validation=bool(validation), cpu_threads=int(cpu_threads),
                         cache_directory=cache_directory, no_disk_cache=bool(no_disk_cache),
                         crossover_keys=int(crossover_keys))
        self.device = device

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"bitonic.Context(device={self.device!r}) ({state})"


def _selector(device: Union[str, int, None]) -> Optional[str]:
    if device is None or device == "auto":
        return None
    if isinstance(device, bool) or not isinstance(device, (str, int, np.integer)):
        raise TypeError(f"device is a name, an index or None, not {type(device).__name__}")
    if not isinstance(device, str):
        if device < 0:
            raise ValueError(f"a device index is at least 0, not {device}")
        return str(int(device))
    return device


_default_lock = threading.Lock()
_default: Optional[Context] = None


def default_context() -> Context:
    """The context calls use without ctx=: made on first use with the library's
    default device choice (Context()), and again if it was closed."""
    global _default
    context = _default
    if context is None or context.closed:
        with _default_lock:
            if _default is None or _default.closed:
                _default = Context()
            context = _default
    return context


@atexit.register
def _close_default_context() -> None:
    if _default is not None:
        _default.close()


def _context_of(ctx: Optional[Context]) -> Context:
    if ctx is None:
        context = _default
        return context if context is not None and not context.closed else default_context()
    return ctx


def _key_type(dtype: np.dtype) -> int:
    key_type = _KEY_TYPES.get(dtype)
    if key_type is not None:
        return key_type
    if dtype.kind in "uif" and dtype.itemsize in (4, 8) and not dtype.isnative:
        raise ValueError(f"{dtype.str} keys are not in the machine's byte order: convert them first, "
                         f"with a.astype(a.dtype.newbyteorder('='))")
    raise TypeError(f"bitonic sorts uint32, int32, float32, uint64, int64 and float64 keys, not {dtype}")


def _axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer or None, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise _AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % ndim


def _check_out(out: Any, shape: Tuple[int, ...], dtype: np.dtype) -> None:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a NumPy array, not {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"out has dtype {out.dtype}, the keys {dtype}: they must be the same")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, the result {shape}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def sort(a: Any, axis: Optional[int] = -1, *, descending: bool = False, stable: bool = False,
         order: Union[str, Sequence[str], None] = None, out: Optional[np.ndarray] = None,
         ctx: Optional[Context] = None) -> np.ndarray:
    """Return a sorted copy of a (or write it to out, which may be a itself).

    axis: the axis sorted (default the last); None sorts the flattened array. A
    2-D or N-D array sorts every row along the last axis in one library call
    (batched rows); another axis is moved last by a copy and back.
    descending: largest first (for floats exactly the reverse: NaNs first).
    stable: accepted for NumPy's and the Array API's sake; a sort of keys alone
    gives one result either way (every key type is one total order on its bits).
    order: for a structured array, the field (or fields, the first most
    significant) to sort by; records with equal keys keep their input order
    (NumPy breaks such ties by the other fields). Without order a structured
    array sorts by all its fields in dtype order. Each field must be one of
    the six key types.
    out: an array of the result's shape and the same dtype (no casting).
    ctx: the Context that sorts (default: default_context()).

    Floats: -inf < ... < -0.0 < +0.0 < ... < +inf, then NaNs (positive, then
    negative ones). NumPy puts NaNs last too but keeps -0.0 and +0.0 as equal.

        >>> bitonic.sort(np.array([[3, 1, 2], [9, 8, 7]], dtype=np.int64))
        array([[1, 2, 3],
               [7, 8, 9]])
        >>> bitonic.sort(np.array([0.0, np.nan, -0.0, -np.inf]), descending=True)
        array([ nan,   0.,  -0., -inf])

    Raises TypeError for an unsupported dtype, ValueError for keys not in the
    machine's byte order or a wrong out, and bitonic.Error when the library
    fails. The input is never changed unless it is out.
    """
    context = _context_of(ctx)
    keys = np.asarray(a)
    if keys.dtype.names is not None or order is not None:
        return _sort_records(context, keys, axis, order, descending, out)
    key_type = _key_type(keys.dtype)
    if axis is None:
        keys = keys.reshape(-1)
        axis = 0
    last = _axis(axis, keys.ndim) == keys.ndim - 1
    if out is not None:
        _check_out(out, keys.shape, keys.dtype)
        if not (last and out.flags.c_contiguous and out.flags.aligned):
            np.copyto(out, sort(keys, axis, descending=descending, ctx=context))
            return out
        if out is not keys:
            np.copyto(out, keys.copy() if np.may_share_memory(out, keys) else keys)
        _bitonic.sort(context, out, keys.shape[-1], key_type, descending)
        return out
    if last:
        result = np.array(keys, order="C")
        _bitonic.sort(context, result, keys.shape[-1], key_type, descending)
        return result
    moved = np.array(np.moveaxis(keys, axis, -1), order="C")
    _bitonic.sort(context, moved, moved.shape[-1], key_type, descending)
    return np.ascontiguousarray(np.moveaxis(moved, -1, axis))


def argsort(a: Any, axis: Optional[int] = -1, *, descending: bool = False, stable: bool = False,
            order: Union[str, Sequence[str], None] = None, ctx: Optional[Context] = None) -> np.ndarray:
    """Return the int64 indices that sort a along axis (NumPy's np.argsort).

    The argsort is always stable: equal keys keep their input order, descending
    too (stable is accepted for the signature's sake). axis, order and ctx as in
    sort(); a structured array is argsorted as a 1-D array (or with axis=None).
    Each row holds fewer than 2^32 - 1 keys. Floats in sort()'s order, so unlike
    NumPy's stable argsort -0.0 comes before +0.0 whatever their positions.

        >>> bitonic.argsort(np.array([3, 1, 2, 1], dtype=np.uint32))
        array([1, 3, 2, 0])
        >>> bitonic.argsort(np.array([3, 1, 2, 1], dtype=np.uint32), descending=True)
        array([0, 2, 1, 3])
    """
    context = _context_of(ctx)
    keys = np.asarray(a)
    if keys.dtype.names is not None or order is not None:
        return _argsort_records(context, keys, axis, order, descending)
    key_type = _key_type(keys.dtype)
    if axis is None:
        keys = keys.reshape(-1)
        axis = 0
    last = _axis(axis, keys.ndim) == keys.ndim - 1
    rows = np.require(keys if last else np.moveaxis(keys, axis, -1), requirements="CA")
    indices = np.empty(rows.shape, dtype=np.int64)
    _bitonic.argsort(context, rows, indices, rows.shape[-1], key_type, descending)
    return indices if last else np.ascontiguousarray(np.moveaxis(indices, -1, axis))


def sort_pairs(keys: Any, values: Any, *, descending: bool = False, stable: bool = False,
               ctx: Optional[Context] = None) -> Tuple[np.ndarray, np.ndarray]:
    """Return (sorted keys, values moved with them) for 1-D keys and values.

    values: one 32-bit value a key (uint32, int32 or float32; moved as bits).
    Equal keys come out ordered by value, or in input order with stable=True;
    either way every device gives the same result element for element.

        >>> k, v = bitonic.sort_pairs(np.array([5, -2, 5, 0], dtype=np.int32),
        ...                           np.array([12, 11, 10, 13], dtype=np.uint32), stable=True)
        >>> k, v
        (array([-2,  0,  5,  5], dtype=int32), array([11, 13, 12, 10], dtype=uint32))
    """
    context = _context_of(ctx)
    keys_in, values_in = np.asarray(keys), np.asarray(values)
    key_type = _key_type(keys_in.dtype)
    if keys_in.ndim != 1 or values_in.shape != keys_in.shape:
        raise ValueError(f"sort_pairs takes 1-D keys and values of one length, not shapes {keys_in.shape} "
                         f"and {values_in.shape}")
    if values_in.dtype.kind not in "uif" or values_in.dtype.itemsize != 4 or not values_in.dtype.isnative:
        raise TypeError(f"values must be 32-bit (uint32, int32 or float32) in the machine's byte order, not "
                        f"{values_in.dtype.str}")
    sorted_keys, moved_values = np.array(keys_in, order="C"), np.array(values_in, order="C")
    _bitonic.sort_pairs(context, sorted_keys, moved_values, key_type, descending, stable)
    return sorted_keys, moved_values


def _queries_like(queries: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if queries.dtype == dtype:
        return queries
    if queries.dtype.kind not in "uifb":
        raise TypeError(f"queries of {queries.dtype} cannot be compared with keys of {dtype}")
    with np.errstate(invalid="ignore", over="ignore"):
        converted = queries.astype(dtype)
        back = converted.astype(queries.dtype)
    same = back == queries
    if queries.dtype.kind == "f":
        same |= np.isnan(queries) & np.isnan(back)
    if not np.all(same):
        raise TypeError(f"queries of {queries.dtype} are not all exactly {dtype} values, as the keys are")
    return converted


def searchsorted(a: Any, v: Any, side: str = "left", *, descending: bool = False,
                 ctx: Optional[Context] = None) -> Union[np.ndarray, np.int64]:
    """Where the queries v fall in the sorted 1-D keys a (NumPy's np.searchsorted).

    side "left": the first position whose key is not before the query (the
    lower bound); "right": the first whose key is after it (the upper bound).
    a must be sorted in this package's order (sort() with the same descending);
    queries are converted to a's dtype and must be exactly representable in it
    (NumPy would compare mixed types instead). Returns int64 positions of v's
    shape (a NumPy scalar for a scalar query).

        >>> bitonic.searchsorted(np.array([0.5, 1.5, 1.5, 2.5], dtype=np.float32), [1.5, 3.0], side="right")
        array([3, 4])
    """
    context = _context_of(ctx)
    keys = np.asarray(a)
    key_type = _key_type(keys.dtype)
    if keys.ndim != 1:
        raise ValueError(f"searchsorted takes 1-D sorted keys, not {keys.ndim}-D")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', not {side!r}")
    queries = _queries_like(np.asarray(v), keys.dtype)
    positions = np.empty(queries.shape, dtype=np.int64)
    _bitonic.search(context, np.require(keys, requirements="CA"), np.require(queries, requirements="CA"),
                    positions, side == "right", key_type, descending)
    return positions if positions.ndim else positions[()]


def _record_fields(dtype: np.dtype, order: Union[str, Sequence[str], None]) -> List[Tuple[str, int, int]]:
    """(name, key type, byte offset) of each field sorted by, most significant first."""
    if dtype.names is None:
        raise ValueError("order= names fields of a structured array; these keys have none")
    names = list(dtype.names) if order is None else [order] if isinstance(order, str) else list(order)
    if not names:
        raise ValueError("order names no field")
    fields = []
    for name in names:
        if not isinstance(name, str) or name not in dtype.fields:
            raise ValueError(f"{name!r} is not a field of {dtype}")
        field_dtype, offset = dtype.fields[name][:2]
        try:
            fields.append((name, _key_type(field_dtype), offset))
        except TypeError:
            raise TypeError(f"field {name!r} is {field_dtype}; bitonic sorts records by uint32, int32, float32, "
                            f"uint64, int64 or float64 fields") from None
    return fields


def _sort_records(context: Context, records: np.ndarray, axis: Optional[int],
                  order: Union[str, Sequence[str], None], descending: bool, out: Optional[np.ndarray]) -> np.ndarray:
    fields = _record_fields(records.dtype, order)
    if axis is None:
        records = records.reshape(-1)
        axis = 0
    axis = _axis(axis, records.ndim)
    if out is not None:
        _check_out(out, records.shape, records.dtype)
    moved = np.array(np.moveaxis(records, axis, -1), order="C")
    # Stable sorts from the least significant field to the most give the order of all of them.
    for _, key_type, offset in reversed(fields):
        _bitonic.sort_records(context, moved, moved.shape[-1], moved.dtype.itemsize, offset, key_type, descending)
    result = np.ascontiguousarray(np.moveaxis(moved, -1, axis))
    if out is None:
        return result
    np.copyto(out, result)
    return out


def _argsort_records(context: Context, records: np.ndarray, axis: Optional[int],
                     order: Union[str, Sequence[str], None], descending: bool) -> np.ndarray:
    fields = _record_fields(records.dtype, order)
    if axis is None:
        records = records.reshape(-1)
    elif records.ndim != 1 or _axis(axis, 1) != 0:
        raise ValueError("argsort of a structured array takes a 1-D array (or axis=None)")
    indices = None
    for name, key_type, _ in reversed(fields):
        column = records[name] if indices is None else records[name][indices]
        step = np.empty(column.shape, dtype=np.int64)
        _bitonic.argsort(context, np.require(column, requirements="CA"), step, column.shape[0], key_type,
                         descending)
        indices = step if indices is None else indices[step]
    return indices


def empty(shape: Union[int, Sequence[int]], dtype: Any = np.float64, *, ctx: Optional[Context] = None) -> np.ndarray:
    """An uninitialised array in host memory the context's GPU copies directly
    (bitonic_host_alloc): sorting it in place on that context, sort(a, out=a),
    stages nothing. On the CPU path it is ordinary memory. The memory is freed
    when the last array on it is gone (the context stays alive until then).

        >>> a = bitonic.empty(4, np.uint32)
        >>> a[:] = [4, 2, 3, 1]
        >>> bitonic.sort(a, out=a)
        array([1, 2, 3, 4], dtype=uint32)
    """
    context = _context_of(ctx)
    element = np.dtype(dtype)
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    shape = tuple(shape)
    if any(isinstance(side, bool) or not isinstance(side, (int, np.integer)) or side < 0 for side in shape):
        raise ValueError(f"shape must be whole numbers of at least 0, not {shape}")
    count = 1
    for side in shape:
        count *= int(side)
    block = context._host_alloc(count * element.itemsize)
    return np.frombuffer(block, dtype=element, count=count).reshape(shape)


def devices() -> List[dict]:
    """The Vulkan devices the library sees (bitonic_list_devices), as dicts with
    index, name, type ("discrete-gpu", "cpu", ...), subgroup_size, limits and
    whether it is suitable; empty without a Vulkan driver. "cpu" and "gles" are
    always valid Context devices besides these."""
    found = _bitonic.devices()
    for device in found:
        device["type"] = _VULKAN_DEVICE_TYPES.get(device["device_type"], "other")
    return found
