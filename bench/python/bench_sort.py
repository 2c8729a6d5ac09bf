#!/usr/bin/env python3
"""bench_sort.py: bitonic.sort and bitonic.argsort against np.sort and np.argsort
in the same run, by turns, on fresh random keys each round, every result
verified; cupy.sort and torch.sort as well where they import (from host arrays,
their transfers included, and on arrays already on the device); and the cost of
the Python call on small arrays: bitonic.sort of 1,000 keys against the same
copy-and-sort made from C in the same process.

    python3 bench/python/bench_sort.py --device cpu --sizes 20,22,24 --repeats 11

Prints a Markdown table: the median wall time of each call (and, as the machine
may be shared, the median process CPU time: all threads of the process), and
each call's time against NumPy's.
"""
import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import bitonic
from bitonic import _bitonic

DTYPES = {"u32": np.uint32, "i32": np.int32, "f32": np.float32, "u64": np.uint64, "i64": np.int64,
          "f64": np.float64}
KEY_TYPES = {"u32": _bitonic.KEY_U32, "i32": _bitonic.KEY_I32, "f32": _bitonic.KEY_F32, "u64": _bitonic.KEY_U64,
             "i64": _bitonic.KEY_I64, "f64": _bitonic.KEY_F64}


def random_keys(rng, type_name, count):
    dtype = np.dtype(DTYPES[type_name])
    if dtype.kind == "f":
        return rng.standard_normal(count, dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=count, dtype=dtype, endpoint=True)


def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def check_sort(keys, result, expected):
    if result.shape != keys.shape or not np.array_equal(result, expected):
        raise SystemExit("bench: a sort gave a wrong result")


def check_argsort(keys, indices, expected_sorted):
    if (indices.shape != keys.shape or not np.array_equal(keys[indices], expected_sorted)
            or np.bincount(indices, minlength=keys.size).max(initial=1) != 1):
        raise SystemExit("bench: an argsort gave a wrong result")


def peer_calls():
    """(name, sort of a host array, sort of a device array maker) for the GPU peers that import."""
    peers = []
    try:
        import cupy

        def cupy_host(keys):
            result = cupy.asnumpy(cupy.sort(cupy.asarray(keys)))
            return result

        def cupy_device(keys):
            resident = cupy.asarray(keys)
            cupy.cuda.Device().synchronize()

            def run():
                result = cupy.sort(resident)
                cupy.cuda.Device().synchronize()
                return result
            return run, lambda result: cupy.asnumpy(result)
        peers.append(("cupy.sort", cupy_host, cupy_device))
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            # torch sorts no uint32 on every version: u32 keys go as int64, order unchanged.
            def as_torch(keys):
                return torch.from_numpy(keys.astype(np.int64) if keys.dtype == np.uint32 else keys)

            def torch_host(keys):
                return torch.sort(as_torch(keys).cuda()).values.cpu().numpy().astype(keys.dtype)

            def torch_device(keys):
                resident = as_torch(keys).cuda()
                torch.cuda.synchronize()

                def run():
                    result = torch.sort(resident).values
                    torch.cuda.synchronize()
                    return result
                return run, lambda result: result.cpu().numpy().astype(keys.dtype)
            peers.append(("torch.sort", torch_host, torch_device))
    except Exception:
        pass
    return peers


def measure_size(context, rng, type_name, count, repeats, peers, argsorts=True):
    """Median (wall, cpu) seconds of each call at one size, by turns (argsorts: the argsorts too)."""
    times = {}

    def add(name, wall, cpu):
        times.setdefault(name, []).append((wall, cpu))

    for _ in range(repeats):
        keys = random_keys(rng, type_name, count)
        expected, wall, cpu = timed(lambda: np.sort(keys))
        add("np.sort", wall, cpu)
        result, wall, cpu = timed(lambda: bitonic.sort(keys, ctx=context))
        check_sort(keys, result, expected)
        add("bitonic.sort", wall, cpu)
        if argsorts:
            indices, wall, cpu = timed(lambda: np.argsort(keys))
            check_argsort(keys, indices, expected)
            add("np.argsort", wall, cpu)
            indices, wall, cpu = timed(lambda: bitonic.argsort(keys, ctx=context))
            check_argsort(keys, indices, expected)
            add("bitonic.argsort", wall, cpu)
        for name, host_sort, device_sort in peers:
            try:
                result, wall, cpu = timed(lambda: host_sort(keys))
                check_sort(keys, result, expected)
                add(f"{name} (host array)", wall, cpu)
                run, fetch = device_sort(keys)
                result, wall, cpu = timed(run)
                check_sort(keys, fetch(result), expected)
                add(f"{name} (device array)", wall, cpu)
            except SystemExit:
                raise
            except Exception as error:  # a peer that cannot sort this type is left out, not fatal
                print(f"bench: {name} left out at 2^{count.bit_length() - 1} {type_name}: {error}", file=sys.stderr)
    return {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            for name, runs in times.items()}


def measure_small_call(context, rng, count, calls):
    """Median microseconds of bitonic.sort(keys) from Python and of the same copy-and-sort from C."""
    keys = random_keys(rng, "u32", count)
    expected = np.sort(keys)
    check_sort(keys, bitonic.sort(keys, ctx=context), expected)
    python_times, c_times = [], []
    for _ in range(5):   # by turns, so both see the same load
        for _ in range(calls // 5):
            started = time.perf_counter()
            bitonic.sort(keys, ctx=context)
            python_times.append(time.perf_counter() - started)
        c_times += _bitonic.c_sort_timings(context, keys, _bitonic.KEY_U32, calls // 5)
    return statistics.median(python_times) * 1e6, statistics.median(c_times) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default=None, help="a Context device (default: the library's choice)")
    parser.add_argument("--sizes", default="20,22,24", help="log2 of the key counts, comma-separated")
    parser.add_argument("--types", default="u32", help="key types: " + ",".join(DTYPES))
    parser.add_argument("--repeats", type=int, default=11, help="rounds per size (the median is taken)")
    parser.add_argument("--small", type=int, default=1000, help="keys of the small-call measure (0: none)")
    parser.add_argument("--small-calls", type=int, default=2000)
    parser.add_argument("--no-peers", action="store_true", help="leave out cupy and torch")
    parser.add_argument("--sort-only", action="store_true", help="leave out the argsorts (NumPy's is slow at 2^26)")
    options = parser.parse_args()
    if options.repeats < 1:
        parser.error("--repeats must be at least 1")

    context = bitonic.Context(options.device)
    info = context.info()
    rng = np.random.default_rng(int.from_bytes(os.urandom(8), "little"))
    peers = [] if options.no_peers else peer_calls()
    print(f"device: {info['device']} ({info['backend']}); NumPy {np.__version__}; Python "
          f"{platform.python_version()}; {os.cpu_count()} CPUs; load average "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; median of {options.repeats} rounds, "
          f"fresh keys each round, every result verified")
    print(f"peers: {', '.join(name for name, _, _ in peers) or 'none importable'}")
    print()
    print("| keys | call | wall ms | CPU ms | wall vs NumPy |")
    print("|---|---|---:|---:|---:|")
    for type_name in options.types.split(","):
        if type_name not in DTYPES:
            parser.error(f"unknown type {type_name}")
        for size_log in (int(s) for s in options.sizes.split(",")):
            medians = measure_size(context, rng, type_name, 1 << size_log, options.repeats, peers,
                                   not options.sort_only)
            for name, (wall, cpu) in medians.items():
                numpy_name = "np.argsort" if "argsort" in name else "np.sort"
                ratio = wall / medians[numpy_name][0]
                print(f"| 2^{size_log} {type_name} | {name} | {wall * 1e3:.1f} | {cpu * 1e3:.1f} | {ratio:.2f}x |",
                      flush=True)
    if options.small > 0:
        python_us, c_us = measure_small_call(context, rng, options.small, options.small_calls)
        print()
        print(f"{options.small} u32 keys, median of {options.small_calls} calls each: bitonic.sort from Python "
              f"{python_us:.1f} us, the same copy and bitonic_sort from C {c_us:.1f} us: "
              f"{python_us - c_us:+.1f} us a call")
    context.close()


if __name__ == "__main__":
    main()
