#!/usr/bin/env python3
"""test_mpi_cli.py RUN_MPI MPIEXEC BITONIC: `mpirun -np P bitonic sort --distributed`
as a user meets it. On 1 to 4 ranks, raw and .npy files of every dtype, both
orders, fewer keys than ranks and an empty file, the output must equal byte for
byte what the single-process `bitonic sort` writes. Then the failures: a file
cut short (only the ranks whose slices it cuts can fail to read), a file with
trailing bytes (only the last rank sees them), a missing input, an output in a
missing directory: each must exit non-zero, create no output, leave an
existing output untouched and leave no temporary file behind. Last, the
hidden temporary files that runs killed by SIGKILL left: the next run to the
same output removes them, and only them."""
import fcntl
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

run_mpi, mpiexec, tool = sys.argv[1:4]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def distributed(ranks, *args):
    return subprocess.run(["sh", run_mpi, mpiexec, str(ranks), tool, "sort", "--distributed", *args,
                           "--device", "cpu"], capture_output=True, text=True, timeout=120)


def single(*args):
    return subprocess.run([tool, "sort", *args, "--device", "cpu"], capture_output=True, text=True, timeout=120)


def npy_bytes(descr, payload, count):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def read(path):
    with open(path, "rb") as f:
        return f.read()


with tempfile.TemporaryDirectory() as scratch:
    def path(name):
        return os.path.join(scratch, name)

    def write(name, data):
        with open(path(name), "wb") as f:
            f.write(data)

    rng = random.Random(13)
    inputs = {}
    keys = [rng.getrandbits(32) for _ in range(20011)] + [0, 0xFFFFFFFF] * 50
    inputs["keys.bin"] = struct.pack("<%dI" % len(keys), *keys)
    for descr, width in (("<u4", 4), ("<i4", 4), ("<f4", 4), ("<u8", 8), ("<i8", 8), ("<f8", 8)):
        count = 3001
        # Random bits (NaNs, infinities, signed zeros among them for floats) and many repeats.
        words = bytearray()
        for i in range(count):
            word = rng.getrandbits(8 * width) if i % 3 else (i % 7) << (8 * width - 3)
            words += word.to_bytes(width, "little")
        inputs["keys_%s.npy" % descr[1:]] = npy_bytes(descr, bytes(words), count)
    inputs["three.npy"] = npy_bytes("<u4", struct.pack("<3I", 5, 1, 3), 3)
    inputs["empty.bin"] = b""

    # Every rank count for the raw file; each .npy dtype on one rank count per order
    # (each mpirun costs about half a second, and the library test covers the rest).
    for index, (name, data) in enumerate(inputs.items()):
        write(name, data)
        for descending in (False, True):
            extra = ["--descending"] if descending else []
            reference = single(path(name), path("reference"), *extra)
            check(reference.returncode == 0, "single-process sort of %s: %s" % (name, reference.stderr))
            every = name == "keys.bin" or name == "three.npy"
            for ranks in (1, 2, 3, 4) if every else ((index + 2 * descending) % 3 + 2,):
                out = path("out_%d_%s" % (ranks, name))
                r = distributed(ranks, path(name), out, *extra)
                check(r.returncode == 0, "%s on %d ranks exits 0: %s" % (name, ranks, r.stderr))
                check(os.path.exists(out) and read(out) == read(path("reference")),
                      "%s on %d ranks%s equals the single-process sort" % (name, ranks, " descending" * descending))

    def expect_failure(what, ranks, in_name, out_name, existing):
        out = path(out_name)
        if existing is not None:
            write(out_name, existing)
        elif os.path.exists(out):
            os.remove(out)
        before = set(os.listdir(os.path.dirname(out) if os.path.isdir(os.path.dirname(out)) else scratch))
        r = distributed(ranks, path(in_name), out)
        check(r.returncode != 0, "%s: non-zero exit" % what)
        check("bitonic[rank" in r.stderr, "%s: a message names the rank: %s" % (what, r.stderr.strip()[:200]))
        if existing is None:
            check(not os.path.exists(out), "%s: no output created" % what)
        else:
            check(read(out) == existing, "%s: the existing output is untouched" % what)
        after = set(os.listdir(os.path.dirname(out) if os.path.isdir(os.path.dirname(out)) else scratch))
        check(not [n for n in after - before if ".tmp." in n or ".bitonic-part." in n],
              "%s: no temporary file left" % what)

    cut = inputs["keys_f8.npy"]
    write("cut.npy", cut[:len(cut) - 5000])        # the last ranks' slices are cut off
    write("long.npy", cut + b"\0" * 16)            # only the last rank reads up to the end
    write("odd.bin", b"\1\2\3\4\5")
    for ranks in (2, 4):
        expect_failure("a file cut short on %d ranks" % ranks, ranks, "cut.npy", "cut_out.npy", None)
        expect_failure("a file cut short on %d ranks, existing output" % ranks, ranks, "cut.npy", "cut_old.npy",
                       b"keep me")
        expect_failure("trailing bytes on %d ranks" % ranks, ranks, "long.npy", "long_out.npy", b"old")
    expect_failure("a raw file of 5 bytes", 3, "odd.bin", "odd_out.bin", None)
    expect_failure("a missing input", 2, "missing.bin", "missing_out.bin", None)
    r = distributed(2, path("keys.bin"), path("no/such/dir/out.bin"))
    check(r.returncode != 0 and not os.path.exists(path("no/such/dir/out.bin")), "an output in a missing directory")

    # A run killed by SIGKILL leaves its hidden temporary file, whose lock died
    # with it; the next distributed sort to the same OUT removes it, and leaves
    # one that a live run holds locked, one too young to judge, and another OUT's.
    def leftover(name, age_s):
        write(name, b"partial slices")
        when = time.time() - age_s
        os.utime(path(name), (when, when))
        return path(name)
    stale = leftover(".swept.bin.bitonic-part.AbCdEf", 60)
    held = leftover(".swept.bin.bitonic-part.HeLdOn", 60)
    young = leftover(".swept.bin.bitonic-part.YoUnG1", 0)
    other = leftover(".other.bin.bitonic-part.AbCdEf", 60)
    with open(held, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        reference = single(path("keys.bin"), path("swept_reference.bin"))
        r = distributed(3, path("keys.bin"), path("swept.bin"))
        check(r.returncode == 0 and read(path("swept.bin")) == read(path("swept_reference.bin")),
              "a sort beside leftover temporary files succeeds: %s" % r.stderr)
        check(not os.path.exists(stale), "a killed run's temporary file is removed by the next run to that OUT")
        check(os.path.exists(held), "a temporary file that a live run holds locked is left")
        check(os.path.exists(young), "a temporary file made in the last seconds is left")
        check(os.path.exists(other), "another OUT's temporary file is left")
    left = [n for n in os.listdir(scratch) if n.startswith(".swept.bin.bitonic-part.")]
    check(sorted(left) == sorted([os.path.basename(held), os.path.basename(young)]),
          "the run leaves no temporary file of its own: %s" % left)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
