#!/usr/bin/env python3
"""test_cli.py BITONIC [gles]: the `bitonic` tool as a user meets it. Sorts raw
and .npy files on the CPU path and on the first Vulkan device (lavapipe here),
and with the argument gles (the library was built with its GLES backend) also
on `--device gles`, whose output must equal the CPU's byte for byte for every
key type, as must `--strategy transpose`'s; checks that bad input gets one clear line on stderr, a non-zero
exit, and no output file (an existing output is left untouched)."""
import math
import os
import re
import random
import struct
import subprocess
import sys
import tempfile

tool = sys.argv[1]
devices = ("cpu", "vulkan", "gles") if sys.argv[2:] == ["gles"] else ("cpu", "vulkan")
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)


def npy_bytes(descr, values, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        "<%d%s" % (len(values), fmt), *values)


with tempfile.TemporaryDirectory() as scratch:
    def path(name):
        return os.path.join(scratch, name)

    rng = random.Random(5)
    keys = [rng.getrandbits(32) for _ in range(5000)] + [0, 0xFFFFFFFF]
    with open(path("keys.bin"), "wb") as f:
        f.write(struct.pack("<%dI" % len(keys), *keys))
    with open(path("keys.npy"), "wb") as f:
        f.write(npy_bytes("<u4", keys, "I"))

    for device in devices:
        r = run("sort", path("keys.bin"), path("out.bin"), "--device", device)
        check(r.returncode == 0, "raw sort on %s: %s" % (device, r.stderr))
        with open(path("out.bin"), "rb") as f:
            got = list(struct.unpack("<%dI" % len(keys), f.read()))
        check(got == sorted(keys), "raw output sorted on " + device)
        r = run("sort", path("keys.npy"), path("out.npy"), "--descending", "--device", device)
        check(r.returncode == 0, "npy sort on %s: %s" % (device, r.stderr))
        with open(path("out.npy"), "rb") as f:
            data = f.read()
        check(data[:6] == b"\x93NUMPY" and b"'<u4'" in data[:128], "npy output keeps format and dtype")
        offset = 10 + struct.unpack("<H", data[8:10])[0]
        got = list(struct.unpack("<%dI" % len(keys), data[offset:]))
        check(got == sorted(keys, reverse=True), "npy output sorted descending on " + device)

    # --strategy: the network and the transpose give the same result as the
    # CPU path; 6000 keys are more than lavapipe's 4096-key tile, so the
    # transpose really transposes (64-bit keys too).
    longs = [rng.getrandbits(64) - (1 << 63) for _ in range(6000)]
    with open(path("longs6000.npy"), "wb") as f:
        f.write(npy_bytes("<i8", longs, "q"))
    doubles = [rng.uniform(-1e6, 1e6) for _ in range(5990)] + [float("inf"), float("-inf"), -0.0, 0.0] * 2
    with open(path("doubles6000.npy"), "wb") as f:
        f.write(npy_bytes("<f8", doubles, "d"))
    def read_values(name, fmt, count):
        with open(path(name), "rb") as f:
            data = f.read()
        offset = 10 + struct.unpack("<H", data[8:10])[0]
        return list(struct.unpack("<%d%s" % (count, fmt), data[offset:]))
    for strategy in ("network", "transpose", "merge"):
        r = run("sort", path("keys.bin"), path("out.bin"), "--device", "vulkan", "--strategy", strategy)
        with open(path("out.bin"), "rb") as f:
            got = list(struct.unpack("<%dI" % len(keys), f.read()))
        check(r.returncode == 0 and got == sorted(keys), "raw sort, --strategy %s: %s" % (strategy, r.stderr))
        r = run("sort", path("longs6000.npy"), path("longs_out.npy"), "--descending", "--device", "vulkan",
                "--strategy", strategy)
        check(r.returncode == 0 and read_values("longs_out.npy", "q", 6000) == sorted(longs, reverse=True),
              "int64 descending, --strategy %s: %s" % (strategy, r.stderr))
        r = run("sort", path("doubles6000.npy"), path("doubles_out.npy"), "--device", "vulkan", "--strategy", strategy)
        got = read_values("doubles_out.npy", "d", 5998)
        check(r.returncode == 0 and [struct.pack("<d", x) for x in got] ==
              [struct.pack("<d", x) for x in sorted(doubles, key=lambda x: (x, math.copysign(1, x)))],
              "float64, --strategy %s: %s" % (strategy, r.stderr))
    r = run("sort", path("keys.bin"), path("out.bin"), "--strategy", "sideways")
    check(r.returncode == 2 and "--strategy" in r.stderr, "an unknown strategy is refused")

    # Other dtypes, argsort and the float order (NaNs last, -0 before +0).
    floats = [3.5, float("nan"), -0.0, 0.0, float("-inf"), -2.0, float("inf"), 1e-40, -7.25]
    with open(path("floats.npy"), "wb") as f:
        f.write(npy_bytes("<f4", floats, "f"))
    ints = [5, -3, 2147483647, -2147483648, 0, -3, 7]
    with open(path("ints.npy"), "wb") as f:
        f.write(npy_bytes("<i4", ints, "i"))

    def read_npy(name, fmt):
        with open(path(name), "rb") as f:
            data = f.read()
        offset = 10 + struct.unpack("<H", data[8:10])[0]
        count = (len(data) - offset) // struct.calcsize(fmt)
        return data[:offset], list(struct.unpack("<%d%s" % (count, fmt), data[offset:]))

    doubles = [2.5, float("nan"), -0.0, float("-inf"), 1e300, -1e-310, 0.0]
    with open(path("doubles.npy"), "wb") as f:
        f.write(npy_bytes("<f8", doubles, "d"))
    longs = [2**62, -2**63, 5, -5, 2**63 - 1, 5]
    with open(path("longs.npy"), "wb") as f:
        f.write(npy_bytes("<i8", longs, "q"))

    for device in devices:
        r = run("sort", path("doubles.npy"), path("doubles_out.npy"), "--descending", "--device", device)
        header, got = read_npy("doubles_out.npy", "d")
        check(r.returncode == 0 and b"'<f8'" in header and got[0] != got[0] and got[1:] == [1e300, 2.5, 0.0, -0.0,
              -1e-310, float("-inf")] and struct.pack("<d", got[3]) == struct.pack("<d", 0.0),
              "float64 descending on %s: %r" % (device, got))
        r = run("sort", path("longs.npy"), path("longs_perm.npy"), "--argsort", "--device", device)
        header, got = read_npy("longs_perm.npy", "I")
        check(r.returncode == 0 and got == sorted(range(len(longs)), key=lambda i: longs[i]),
              "int64 argsort on %s: %r" % (device, got))
        r = run("sort", path("floats.npy"), path("floats_out.npy"), "--device", device)
        header, got = read_npy("floats_out.npy", "f")
        bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in got]
        expected = [-float("inf"), -7.25, -2.0, -0.0, 0.0, struct.unpack("<f", struct.pack("<f", 1e-40))[0], 3.5,
                    float("inf")]
        check(r.returncode == 0 and b"'<f4'" in header and got[:8] == expected and bits[3] == 0x80000000
              and bits[4] == 0 and got[8] != got[8], "float32 order on %s: %r" % (device, got))
        r = run("sort", path("ints.npy"), path("ints_out.npy"), "--descending", "--device", device)
        header, got = read_npy("ints_out.npy", "i")
        check(r.returncode == 0 and got == sorted(ints, reverse=True), "int32 descending on " + device)
        r = run("sort", path("ints.npy"), path("perm.npy"), "--argsort", "--device", device)
        header, got = read_npy("perm.npy", "I")
        check(r.returncode == 0 and b"'<u4'" in header and got == sorted(range(len(ints)), key=lambda i: ints[i]),
              "stable argsort as uint32 on %s: %r" % (device, got))
        r = run("sort", path("floats.npy"), path("perm64.npy"), "--argsort", "--index-dtype", "int64",
                "--descending", "--device", device)
        header, got = read_npy("perm64.npy", "q")
        check(r.returncode == 0 and b"'<i8'" in header and got[0] == 1 and got[1] == 6 and got[-1] == 4,
              "int64 argsort, descending floats (NaN first) on %s: %r" % (device, got))

    with open(path("odd.bin"), "wb") as f:
        f.write(b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a")
    with open(path("broken.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x20\x00{'descr': '<u4', 'shape': (")
    with open(path("shorts.npy"), "wb") as f:
        f.write(npy_bytes("<i2", [1, -2], "h"))
    with open(path("two_d.npy"), "wb") as f:
        data = npy_bytes("<u4", [1, 2, 3, 4], "I").replace(b"(4,)", b"(2,2)")
        f.write(data)
    cases = [
        ("odd.bin", "not a multiple of 4"),
        ("broken.npy", ""),
        ("shorts.npy", "<i2"),
        ("two_d.npy", ""),
        ("missing.bin", "missing.bin"),
    ]
    for name, words in cases:
        out = path("never_" + name)
        r = run("sort", path(name), out)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        check(r.returncode != 0, "%s: non-zero exit" % name)
        check(len(lines) == 1 and lines[0].startswith("bitonic: ") and words in lines[0],
              "%s: one clear line, got %r" % (name, r.stderr))
        check(not os.path.exists(out), "%s: no output file left" % name)

    with open(path("existing.bin"), "wb") as f:
        f.write(b"keep me!")
    r = run("sort", path("odd.bin"), path("existing.bin"))
    with open(path("existing.bin"), "rb") as f:
        check(r.returncode != 0 and f.read() == b"keep me!", "a failed sort leaves an existing output alone")
    r = run("sort", path("keys.bin"), path("no_such_dir/out.bin"))
    check(r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, "unwritable output: one line, non-zero")
    check(not any(n.startswith("no_such") or ".tmp" in n for n in os.listdir(scratch)), "no temporary left behind")
    r = run("sort", path("keys.bin"), path("x.bin"), "--device", "no such device")
    check(r.returncode != 0 and not os.path.exists(path("x.bin")), "unknown device: non-zero, no output")
    r = run("frobnicate")
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "see bitonic --help" in r.stderr,
          "unknown command: one line that points at --help")
    r = run("sort", "--frobnicate")
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--frobnicate" in r.stderr,
          "unknown option: one line naming it")
    for words in (["--help"], ["-h"], ["help"], ["sort", "--help"], ["bench", "-h"]):
        r = run(*words)
        lines = r.stdout.splitlines()
        check(r.returncode == 0 and lines and lines[0].startswith("usage: bitonic") and len(lines) <= 25 and
              max(len(l) for l in lines) <= 100 and not r.stderr, f"{' '.join(words)}: the help, at most 25 lines")
    r = run("--version")
    check(r.returncode == 0 and re.fullmatch(r"bitonic \d+\.\d+\.\d+\n", r.stdout) is not None, "--version")
    r = run("bench", "--tune", "help")
    check(r.returncode == 0 and "merge-chunk=" in r.stdout and "partition-nested=" in r.stdout,
          "--tune help lists the experiment settings")
    for setting in ("merge-chunk=abc", "merge-chunk", "no-such-setting=1", "merge-kernel=fast"):
        r = run("bench", "--device", "cpu", "--tune", setting)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--help" in r.stderr,
              f"--tune {setting}: refused in one line")
    r = run("info")
    check(r.returncode == 0 and "Chosen:" in r.stdout, "info names the chosen device")
    r = run("bench", "--device", "cpu", "--min-log", "10", "--max-log", "12", "--runs", "10", "--csv",
            "--types", "u32,f32,pairs,u64,rows")
    header = r.stdout.splitlines()[0].split(",") if r.stdout else []
    verified = header.index("verified") if "verified" in header else -1
    rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
    check(r.returncode == 0 and len(rows) >= 20 and all(len(row) == len(header) for row in rows)
          and all(row[verified] == "1" for row in rows)
          and {row[1] for row in rows} == {"u32", "f32", "pairs", "u64", "rows1024"}, "bench on the CPU verifies every type")
    # The CPU path on more threads than this machine has cores: the parallel
    # partition of large inputs (4 threads and 2^22 keys up) runs, and verifies.
    r = run("bench", "--device", "cpu", "--cpu-threads", "6", "--min-log", "22", "--max-log", "22", "--pow2",
            "--runs", "3", "--csv", "--no-e2e")
    rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
    check(r.returncode == 0 and len(rows) == 1 and rows[0][verified] == "1", "bench --cpu-threads 6 at 2^22: "
          + r.stdout + r.stderr)
    r = run("bench", "--cpu-threads", "2000")
    check(r.returncode == 2 and "--cpu-threads" in r.stderr, "too many CPU threads are refused")
    r = run("bench", "--types", "u32,bogus")
    check(r.returncode == 2 and "--types" in r.stderr, "an unknown bench type is refused")
    r = run("bench", "--device", "vulkan", "--min-log", "10", "--max-log", "11", "--runs", "10", "--validation",
            "--types", "u32,pairs,u64")
    check(r.returncode == 0 and "WRONG" not in r.stdout, "bench on Vulkan with validation: " + r.stderr)
    r = run("bench", "--device", "vulkan", "--strategy", "transpose", "--min-log", "12", "--max-log", "13", "--runs",
            "10", "--validation", "--csv", "--types", "u32,pairs,u64")
    rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
    check(r.returncode == 0 and len(rows) >= 6 and all(row[6] == "1" for row in rows)
          and {row[0] for row in rows} - {"cpu_e2e"} == {"bitonic_transpose", "bitonic_transpose_e2e",
                                                       "bitonic_transpose_pinned_e2e"},
          "bench --strategy transpose on Vulkan with validation: " + r.stderr)

    # Held-out inputs of every key type, in both orders and as an argsort: the
    # output of another path equals the CPU's, byte for byte. The transpose
    # strategy on Vulkan (6001 + 50 keys: past lavapipe's tile, so it transposes),
    # and the fragment path when the build has it.
    specials = {"f": [float("nan"), -float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-40],
                "d": [float("nan"), -float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-310]}
    def held_out(label, count, other):
        for descr, fmt in (("<u4", "I"), ("<i4", "i"), ("<f4", "f"), ("<u8", "Q"), ("<i8", "q"), ("<f8", "d")):
            wide = fmt in "Qqd"
            raw = [rng.getrandbits(64 if wide else 32) for _ in range(count)]
            raw += raw[:50]  # duplicates
            values = list(struct.unpack("<%d%s" % (len(raw), fmt), struct.pack("<%d%s" % (len(raw), "Q" if wide else "I"), *raw)))
            values += specials.get(fmt, [])
            with open(path("held.npy"), "wb") as f:
                f.write(npy_bytes(descr, values, fmt))
            for extra in ([], ["--descending"], ["--argsort"]):
                outputs = []
                for name, args in (("cpu", ["--device", "cpu"]), (label, other)):
                    r = run("sort", path("held.npy"), path("held_%s.npy" % name), *args, *extra)
                    check(r.returncode == 0, "held-out %s %s on %s: %s" % (descr, extra, name, r.stderr))
                    with open(path("held_%s.npy" % name), "rb") as f:
                        outputs.append(f.read())
                check(outputs[0] == outputs[1], "held-out %s %s: %s equals the CPU" % (descr, extra, label))
    held_out("transpose", 6001, ["--device", "vulkan", "--strategy", "transpose"])

    if "gles" in devices:
        held_out("gles", 3001, ["--device", "gles"])
        r = run("info")
        check(r.returncode == 0 and "OpenGL ES (device gles):" in r.stdout and "largest texture side" in r.stdout,
              "info lists the GLES backend: " + r.stdout)
        r = run("bench", "--device", "gles", "--min-log", "10", "--max-log", "12", "--runs", "10", "--csv",
                "--validation", "--types", "u32,records", "--layout", "2d")
        rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
        check(r.returncode == 0 and len(rows) == 6 and all(row[-1] == "1" and row[6] == row[7] == row[8] for row in rows)
              and {row[1] for row in rows} == {"u32", "rgba_f32"}, "bench on gles verifies, passes = formula: "
              + r.stdout + r.stderr)
        r = run("bench", "--device", "gles", "--min-log", "10", "--max-log", "11", "--runs", "10", "--csv",
                "--types", "u32,records", "--tune", "max-steps=3")
        rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
        check(r.returncode == 0 and len(rows) == 4 and all(row[-1] == "1" and row[5] == "3" and row[6] == row[8]
              and int(row[6]) < int(row[7]) for row in rows), "bench on gles, 3 steps a draw: " + r.stdout + r.stderr)

    # Large files take the fast paths: a huge-page block, the header's room
    # reused, one O_DIRECT write with a buffered tail (sizes that are not a
    # multiple of 4096 bytes), on the CPU path and on Vulkan. Checked by the
    # tool's companion, bitonic-npy, and for the raw file by Python.
    npy_tool = os.path.join(os.path.dirname(tool), "bitonic-npy")
    if os.path.exists(npy_tool):
        for count, device in ((1000003, "cpu"), (1 << 21, "cpu"), (1100000, "vulkan")):
            subprocess.run([npy_tool, "gen", str(count), "7", path("big.npy")], check=True)
            r = run("sort", path("big.npy"), path("big_sorted.npy"), "--device", device, "--timing")
            checked = subprocess.run([npy_tool, "check", path("big.npy"), path("big_sorted.npy")],
                                     capture_output=True, text=True)
            check(r.returncode == 0 and checked.returncode == 0 and "read" in r.stderr,
                  "large .npy (%d keys, %s): %s %s" % (count, device, r.stderr.strip(), checked.stderr.strip()))
            check(os.path.getsize(path("big_sorted.npy")) == os.path.getsize(path("big.npy")),
                  "large .npy (%d keys): same size as the input" % count)
            broken = subprocess.run([npy_tool, "check", path("big.npy"), path("big.npy")], capture_output=True)
            check(broken.returncode != 0, "bitonic-npy check refuses an unsorted file")
        raw = [random.getrandbits(32) for _ in range(1000001)]
        with open(path("big.bin"), "wb") as f:
            f.write(struct.pack("<%dI" % len(raw), *raw))
        r = run("sort", path("big.bin"), path("big_sorted.bin"), "--device", "cpu")
        with open(path("big_sorted.bin"), "rb") as f:
            got = f.read()
        check(r.returncode == 0 and got == struct.pack("<%dI" % len(raw), *sorted(raw)), "large raw file sorted")
        check(not any(".tmp" in n for n in os.listdir(scratch)), "no temporary left behind by large sorts")
    else:
        check(False, "bitonic-npy is missing next to " + tool)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
