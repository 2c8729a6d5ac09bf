# np_bench.py: NumPy's sorts beside bitonic_cpu_types_bench, on one thread.
#
#   python3 bench/cpu/np_bench.py <min log> <max log>
#
# Prints `numpy type log2(n) cpu_ms` with that bench's type names: u32, u64, f64
# (np.sort, whose time includes the copy it returns), argsort (np.argsort of u32
# keys), stable (np.argsort(kind="stable") of u32 keys) and pairs64 (np.argsort
# of u64 keys, the argsort our pairs of 64-bit keys carry). Keys are uniformly
# random from NumPy's own generator; each figure is the least of 3 sorts in
# thread CPU time (below 2^16, of the mean of 2^16/n sorts).
import sys, time
import numpy as np
lo, hi = int(sys.argv[1]), int(sys.argv[2])
N = 1 << hi
words = np.random.default_rng(2026).integers(0, 2**64, N + (1 << 16), dtype=np.uint64)
doubles = words.view(np.int64).astype(np.float64) * 1e-9
keys32 = (words >> np.uint64(32)).astype(np.uint32)
cases = [("u32", lambda n, b: np.sort(keys32[b:b + n])),
         ("u64", lambda n, b: np.sort(words[b:b + n])),
         ("f64", lambda n, b: np.sort(doubles[b:b + n])),
         ("argsort", lambda n, b: np.argsort(keys32[b:b + n])),
         ("stable", lambda n, b: np.argsort(keys32[b:b + n], kind="stable")),
         ("pairs64", lambda n, b: np.argsort(words[b:b + n]))]
for log in range(lo, hi + 1):
    n = 1 << log
    batch = max(1, (1 << 16) // n)
    for name, run in cases:
        best = 1e300
        for _ in range(3):
            total = 0.0
            for b in range(batch):
                start = time.thread_time()
                run(n, b)
                total += time.thread_time() - start
            best = min(best, total / batch)
        print(f"numpy {name} {log} {best * 1e3:.4f}")
