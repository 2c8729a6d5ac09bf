#!/usr/bin/env python3
"""test_report.py: the benchmark's report tools on made-up rows. stability.py must give each row
the SM clock sampled during its batch, flag the low ones and the rows that move between sweeps;
compare.py must take the median of repeated rows and mark a low-clock one; passes.py must set each
profiled pass beside the copy rate of the same call."""
import datetime
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
stability = os.path.join(root, "bench", "report", "stability.py")
compare = os.path.join(root, "bench", "report", "compare.py")
passes = os.path.join(root, "bench", "report", "passes.py")
passed = failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def stamp(unix_ms):
    return datetime.datetime.fromtimestamp(unix_ms / 1e3).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]


with tempfile.TemporaryDirectory() as work:
    path = lambda name: os.path.join(work, name)
    t0 = 1795000000000.0
    # The clock: 1980 MHz, except 600 MHz from t0 + 1000 to t0 + 1200 (the second sweep's 4096 batch).
    with open(path("smi.csv"), "w") as f:
        for i in range(40):
            when = t0 + 100.0 * i
            f.write("%s, %d MHz, 0x0000000000000000, 300.00 W, 40\n"
                    % (stamp(when), 600 if 1000 <= when - t0 <= 1200 else 1980))
    header = "impl,type,n,median_ms,min_ms,runs,verified\n"
    # Three sweeps of one configuration: 4096 moves 2x in sweep 2 (the low clock), 8192 holds still.
    times = [(0.030, 0.050), (0.060, 0.051), (0.031, 0.049)]
    pairs = []
    for sweep, (t4096, t8192) in enumerate(times):
        base = t0 + 1000.0 * sweep
        with open(path("sweep%d.csv" % sweep), "w") as f:
            f.write(header)
            f.write("bitonic,u32,4096,%.6f,%.6f,10,1\n" % (t4096, t4096))
            f.write("bitonic,u32,8192,%.6f,%.6f,10,1\n" % (t8192, t8192))
        with open(path("batch%d.log" % sweep), "w") as f:
            f.write("bitonic,u32,4096,%.3f,%.3f\n" % (base + 50, base + 250))
            f.write("bitonic,u32,8192,%.3f,%.3f\n" % (base + 450, base + 650))
        pairs.append("%s:%s" % (path("sweep%d.csv" % sweep), path("batch%d.log" % sweep)))
    r = subprocess.run([sys.executable, stability, "--samples", path("smi.csv"), "--out", path("clocked.csv")]
                       + pairs, capture_output=True, text=True)
    check(r.returncode == 0, "stability.py runs: " + r.stderr)
    check("1 over 10%" in r.stdout and "1 clock-low" in r.stdout, "stability.py summary: " + r.stdout)
    check("spread 2.00x bitonic u32 4096" in r.stdout, "the moving row is named: " + r.stdout)
    rows = open(path("clocked.csv")).read().splitlines()
    low = [row for row in rows[1:] if row.endswith(",1")]
    check(len(rows) == 7 and len(low) == 1 and low[0].startswith("bitonic,u32,4096,0.060000")
          and ",600.0," in low[0], "exactly the low-clock batch is flagged: %s" % low)
    r = subprocess.run([sys.executable, stability, "--strict", "--samples", path("smi.csv"), "--out",
                        path("clocked2.csv")] + pairs, capture_output=True, text=True)
    check(r.returncode == 1, "--strict fails a call with a moving or low-clock row")

    # compare.py: the median of the three (0.031 ms), not the last or the low-clock one.
    with open(path("cub.csv"), "w") as f:
        f.write(header + "cub_merge,u32,4096,0.020000,0.020000,10,1\ncub_radix,u32,4096,0.020000,0.020000,10,1\n")
    r = subprocess.run([sys.executable, compare, path("clocked.csv"), path("cub.csv"), "--out", path("r.md")],
                       capture_output=True, text=True)
    report = open(path("r.md")).read() if os.path.exists(path("r.md")) else ""
    check(r.returncode == 0 and "| 4096 | 2^12 | 0.0310 |" in report, "compare.py takes the median of repeats")
    # One sweep alone, the low-clock one: its row is marked.
    with open(path("low.csv"), "w") as f:
        f.write(rows[0] + "\n" + low[0] + "\n")
    r = subprocess.run([sys.executable, compare, path("low.csv"), path("cub.csv"), "--out", path("low.md")],
                       capture_output=True, text=True)
    report = open(path("low.md")).read() if os.path.exists(path("low.md")) else ""
    check(r.returncode == 0 and "| 4096 | 2^12 | 0.0600 (clock) |" in report, "compare.py marks a low-clock row")

    # passes.py: 2^20 u32 keys copied (8 MiB read and written) in 0.004 ms is 2.097 TB/s; a pass
    # of 8.4 MB in 0.008 ms runs at half of it, one of 4.2 MB in 0.004 ms at half too.
    with open(path("profile.txt"), "w") as f:
        f.write("bitonic        u32         1048576       0.0200       0.0190     52.4   ok\n"
                "  profile of 1048576 keys: 3 passes, 0.0200 ms\n"
                "    pass  0 count                0.0040 ms      4.194 MB   1048.6 GB/s\n"
                "    pass  1 tile sort            0.0080 ms      8.389 MB   1048.6 GB/s\n"
                "    pass  2 window split         0.0080 ms\n")
    with open(path("copy.csv"), "w") as f:
        f.write(header + "d2d_copy,u32,1048576,0.004000,0.004000,10,1\n")
    r = subprocess.run([sys.executable, passes, path("profile.txt"), path("copy.csv")], capture_output=True, text=True)
    check(r.returncode == 0, "passes.py runs: " + r.stderr)
    check("copy rate 2.10 TB/s" in r.stdout, "passes.py finds the copy rate: " + r.stdout)
    check("| 1 | tile sort | 0.0080 | 40% | 8.389 | 1049 | 50% |" in r.stdout, "a pass at half the copy rate: " + r.stdout)
    check("| 2 | window split | 0.0080 | 40% | - | - | - |" in r.stdout, "a pass without bytes: " + r.stdout)
    check("Bytes moved: 1.5 copies" in r.stdout, "the sort's bytes in copies: " + r.stdout)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
