"""test_context.py: devices(), Context (selection, info, close while in use),
bitonic.empty (host memory that outlives a closed context), one context shared
by threads, and the GIL released during a sort.
"""
import threading
import time

import numpy as np
import pytest

import bitonic


def test_devices():
    found = bitonic.devices()
    assert isinstance(found, list)
    for index, device in enumerate(found):
        assert device["index"] == index and isinstance(device["name"], str) and device["name"]
        assert device["type"] in ("other", "integrated-gpu", "discrete-gpu", "virtual-gpu", "cpu")


def test_info(ctx):
    info = ctx.info()
    assert info["backend"] == ctx.backend
    assert info["device"] and info["max_keys"] > 0
    if info["backend"] == "vulkan":
        assert info["subgroup_size"] > 0 and info["tile_keys"] > 0 and info["vulkan_device_index"] >= 0
    else:
        assert info["vulkan_device_index"] is None
    assert repr(ctx).startswith("bitonic.Context(device=")


def test_select_by_index_and_name(cache_directory):
    found = [device for device in bitonic.devices() if device["suitable"]]
    if not found:
        pytest.skip("no Vulkan device")
    with bitonic.Context(found[0]["index"], cache_directory=cache_directory) as by_index:
        assert by_index.info()["device"] == found[0]["name"]
    with bitonic.Context(found[0]["name"].split()[0].upper(), cache_directory=cache_directory) as by_name:
        assert by_name.info()["backend"] == "vulkan"


def test_last_timing(cpu):
    bitonic.sort(np.arange(5000, 0, -1, dtype=np.uint32), ctx=cpu)
    timing = cpu.last_timing()
    assert timing["ran_on"] == "cpu" and timing["count"] == 5000 and timing["total_ms"] >= 0


def test_empty(ctx):
    keys = bitonic.empty((3, 100), np.float32, ctx=ctx)
    assert keys.shape == (3, 100) and keys.dtype == np.float32 and keys.flags.writeable
    keys[...] = np.random.default_rng(21).random((3, 100))
    expected = np.sort(keys)
    assert bitonic.sort(keys, out=keys, ctx=ctx) is keys and np.array_equal(keys, expected)
    assert bitonic.empty(0, np.uint32, ctx=ctx).shape == (0,)
    records = bitonic.empty(4, [("k", "<u4"), ("v", "<f8")], ctx=ctx)
    assert records.dtype.names == ("k", "v")


def test_empty_is_sorted_without_staging(ctx):
    """An array of bitonic.empty sorted in place on a Vulkan context is copied
    by the GPU straight from its block (last_timing: pinned); a copy of it is not."""
    if ctx.info()["backend"] != "vulkan":
        pytest.skip("host memory the GPU reaches is a Vulkan buffer")
    keys = bitonic.empty(5000, np.uint32, ctx=ctx)
    keys[:] = np.random.default_rng(25).integers(0, 2**32, size=5000, dtype=np.uint32)
    expected = np.sort(keys)
    bitonic.sort(keys, out=keys, ctx=ctx)
    assert np.array_equal(keys, expected) and ctx.last_timing()["pinned"]
    ordinary = np.random.default_rng(26).integers(0, 2**32, size=5000, dtype=np.uint32)
    bitonic.sort(ordinary, out=ordinary, ctx=ctx)
    assert ctx.last_timing()["ran_on"] == "vulkan" and not ctx.last_timing()["pinned"]


def test_empty_outlives_closed_context(cache_directory):
    context = bitonic.Context("cpu", cache_directory=cache_directory)
    keys = bitonic.empty(1000, np.int64, ctx=context)
    view = keys[10:20]
    context.close()
    del keys
    view[:] = np.arange(10)                         # the block is alive while a view is
    assert view.sum() == 45 and context.closed
    with pytest.raises(ValueError, match="closed"):
        bitonic.empty(4, np.uint32, ctx=context)


def test_one_context_from_threads(ctx):
    rng = np.random.default_rng(22)
    inputs = [rng.integers(-1000, 1000, size=3000 + 7 * i).astype(np.int32) for i in range(8)]
    results = [None] * len(inputs)

    def work(i):
        results[i] = (bitonic.sort(inputs[i], ctx=ctx), bitonic.argsort(inputs[i], ctx=ctx))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for keys, (sorted_keys, indices) in zip(inputs, results):
        assert np.array_equal(sorted_keys, np.sort(keys))
        assert np.array_equal(indices, np.argsort(keys, kind="stable"))


def test_close_while_another_thread_sorts(cache_directory):
    """A thread sorts again and again; closing the context meanwhile lets the
    running sort finish (the library context is destroyed after it) and
    refuses the next one."""
    context = bitonic.Context("cpu", cpu_threads=1, cache_directory=cache_directory)
    keys = np.random.default_rng(23).random(1 << 20)
    expected = np.sort(keys)
    first_done = threading.Event()
    outcome = {"sorted": 0}

    def work():
        try:
            while True:
                assert np.array_equal(bitonic.sort(keys, ctx=context), expected)
                outcome["sorted"] += 1
                first_done.set()
        except ValueError as error:
            outcome["error"] = str(error)
            first_done.set()

    thread = threading.Thread(target=work)
    thread.start()
    first_done.wait()
    context.close()
    thread.join()
    assert outcome["sorted"] >= 1 and "closed" in outcome["error"]


def test_gil_released_during_sort(cache_directory):
    """Python in another thread keeps running while the library sorts: the
    longest pause of a counting loop stays well below the sort's time."""
    context = bitonic.Context("cpu", cpu_threads=1, cache_directory=cache_directory)
    keys = np.random.default_rng(24).random(1 << 22)
    bitonic.sort(keys[:1000], ctx=context)
    started = time.perf_counter()
    bitonic.sort(keys, ctx=context)
    alone = time.perf_counter() - started
    finished = threading.Event()

    def work():
        bitonic.sort(keys, ctx=context)
        finished.set()

    thread = threading.Thread(target=work)
    longest, last = 0.0, time.perf_counter()
    thread.start()
    while not finished.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    thread.join()
    context.close()
    assert longest < 0.5 * alone, f"a pause of {longest * 1e3:.1f} ms during a sort of {alone * 1e3:.1f} ms"
