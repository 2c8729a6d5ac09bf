#!/usr/bin/env python3
"""test_cli_hardening.py BITONIC [RUN_MPI MPIEXEC]: `bitonic sort` against what
an adversarial user tries. A FIFO as IN must fail at once with one line (not
wait for a writer); an OUT whose name is 245 to 255 bytes long must be written;
SIGINT, SIGTERM and SIGHUP arriving while OUT's temporary file exists must end
the process by that signal and leave neither the temporary file nor OUT; a
malformed BITONIC_CROSSOVER must be named and refused. With MPI: ranks given
different files must all fail, with no OUT and no temporary file, and a FIFO
as IN must fail on every rank, and SIGTERM to mpirun mid-write must leave no
temporary file. Every run is bounded by a timeout."""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

tool = sys.argv[1]
mpi = sys.argv[2:4] if len(sys.argv) >= 4 else None
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*args, env=None, timeout=60):
    try:
        return subprocess.run([tool, *args], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None


def temporaries(directory):
    return [n for n in os.listdir(directory) if ".tmp." in n]


def npy_bytes(count, seed):
    header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % count
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    words = [(i * 2654435761 + seed) & 0xFFFFFFFF for i in range(count)]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        "<%dI" % count, *words)


def kill_during_write(scratch, big, signal_number):
    """Starts a sort of big, waits for its temporary file, sends the signal.
    Returns (seen, returncode) or None when the write was never caught."""
    out = os.path.join(scratch, "killed.bin")
    for attempt in range(5):
        process = subprocess.Popen([tool, "sort", big, out, "--device", "cpu"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        seen = False
        while process.poll() is None and time.monotonic() < deadline:
            if temporaries(scratch):
                process.send_signal(signal_number)
                seen = True
                break
            time.sleep(0.0005)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        if seen:
            return code, out
        if os.path.exists(out):
            os.remove(out)  # finished before its write was caught: try again
    return None


with tempfile.TemporaryDirectory() as scratch:
    def path(name):
        return os.path.join(scratch, name)

    with open(path("keys.bin"), "wb") as f:
        f.write(struct.pack("<4I", 4, 3, 2, 1))

    # A FIFO as IN: one clear line at once, no output.
    os.mkfifo(path("fifo"))
    r = run("sort", path("fifo"), path("fifo_out.bin"), "--device", "cpu", timeout=20)
    check(r is not None, "a FIFO as IN does not hang")
    if r is not None:
        check(r.returncode != 0 and "not a regular file" in r.stderr and not os.path.exists(path("fifo_out.bin")),
              "a FIFO as IN is refused with one line: %r" % r.stderr)

    # OUT names up to the 255-byte limit: the temporary name must fit too.
    for length in (244, 245, 250, 255):
        name = ("n" * (length - 4)) + ".bin"
        r = run("sort", path("keys.bin"), path(name), "--device", "cpu")
        ok = r is not None and r.returncode == 0 and os.path.exists(path(name))
        if ok:
            with open(path(name), "rb") as f:
                ok = struct.unpack("<4I", f.read()) == (1, 2, 3, 4)
        check(ok, "an OUT name of %d bytes is written: %s" % (length, r.stderr if r else "timeout"))
        check(not temporaries(scratch), "no temporary file after the %d-byte name" % length)
        if os.path.exists(path(name)):
            os.remove(path(name))

    # A malformed BITONIC_CROSSOVER is named, not silently read as the default.
    for value in ("abc", "-1", "12345678901234567890123456"):
        env = dict(os.environ, BITONIC_CROSSOVER=value)
        r = run("sort", path("keys.bin"), path("crossover_out.bin"), env=env)
        check(r is not None and r.returncode != 0 and "BITONIC_CROSSOVER" in r.stderr and
              not os.path.exists(path("crossover_out.bin")),
              "BITONIC_CROSSOVER=%s refused by name: %r" % (value, r.stderr if r else "timeout"))

    # A terminating signal during the write: no temporary file, no OUT.
    big = path("big.bin")
    with open(big, "wb") as f:
        f.write(os.urandom(64 << 20))  # 2^24 keys
    for signal_number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        caught = kill_during_write(scratch, big, signal_number)
        check(caught is not None, "%s: the write was caught in progress" % signal_number.name)
        if caught is None:
            continue
        code, out = caught
        check(code == -signal_number, "%s ends the process by that signal (%s)" % (signal_number.name, code))
        check(not temporaries(scratch), "%s leaves no temporary file: %s" % (signal_number.name,
                                                                              temporaries(scratch)))
        check(not os.path.exists(out), "%s leaves no OUT" % signal_number.name)
        for name in temporaries(scratch):
            os.remove(path(name))
    os.remove(big)

    if mpi:
        run_mpi, mpiexec = mpi
        root = ["--allow-run-as-root"] if os.getuid() == 0 else []
        env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")
        with open(path("a.npy"), "wb") as f:
            f.write(npy_bytes(1000, 1))
        with open(path("b.npy"), "wb") as f:
            f.write(npy_bytes(43690, 2))
        for name, second in (("another length", "b.npy"), ("a raw file", "keys.bin")):
            out = path("mixed.npy")
            command = [mpiexec, "--oversubscribe", *root, "-n", "1", tool, "sort", "--distributed", path("a.npy"),
                       out, "--device", "cpu", ":", "-n", "2", tool, "sort", "--distributed", path(second), out,
                       "--device", "cpu"]
            try:
                r = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
            except subprocess.TimeoutExpired:
                r = None
            check(r is not None and r.returncode != 0, "ranks given %s: non-zero exit" % name)
            check(r is not None and "disagree" in r.stderr, "ranks given %s: the mismatch is named: %r" %
                  (name, r.stderr[-400:] if r else "timeout"))
            check(not os.path.exists(out) and not temporaries(scratch), "ranks given %s: no OUT, no temporary file"
                  % name)
        # SIGTERM to mpirun while rank 0's temporary file exists: mpirun passes it
        # on, and rank 0 removes the file before it ends.
        with open(big, "wb") as f:
            f.write(os.urandom(64 << 20))
        out = path("mpi_killed.bin")
        process = subprocess.Popen([mpiexec, "--oversubscribe", *root, "-n", "2", tool, "sort", "--distributed",
                                    big, out, "--device", "cpu"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env)
        seen = False
        deadline = time.monotonic() + 90
        while process.poll() is None and time.monotonic() < deadline:
            if temporaries(scratch):
                process.send_signal(signal.SIGTERM)
                seen = True
                break
            time.sleep(0.0005)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        time.sleep(0.5)
        # mpirun passes the signal on with a delay: rank 0 may have renamed the
        # finished file first, which is then whole. Either way no temporary file.
        finished = os.path.exists(out) and os.path.getsize(out) == os.path.getsize(big)
        check(seen and (code != 0 or finished), "SIGTERM to mpirun during the write: caught (%s)" % code)
        check(not temporaries(scratch) and (finished or not os.path.exists(out)),
              "SIGTERM to mpirun leaves no temporary file and no partial OUT: %s" % temporaries(scratch))
        os.remove(big)
        try:
            r = subprocess.run(["sh", run_mpi, mpiexec, "2", tool, "sort", "--distributed", path("fifo"),
                                path("fifo_mpi.bin"), "--device", "cpu"], capture_output=True, text=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            r = None
        check(r is not None and r.returncode != 0 and "not a regular file" in r.stderr,
              "a FIFO as IN on 2 ranks fails at once: %r" % (r.stderr[-300:] if r else "timeout"))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
