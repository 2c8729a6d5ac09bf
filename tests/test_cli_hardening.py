#!/usr/bin/env python3
"""test_cli_hardening.py BITONIC [RUN_MPI MPIEXEC]: `bitonic sort` against what
an adversarial user tries. A FIFO as IN must fail at once with one line (not
wait for a writer); an OUT whose name is 245 to 255 bytes long must be written;
SIGINT, SIGTERM and SIGHUP arriving while OUT is being written must end
the process by that signal and leave neither a temporary file nor OUT, and so
must SIGKILL where the file system has O_TMPFILE; an OUT that is a symbolic
link is replaced, its target left as it was; a
malformed BITONIC_CROSSOVER (or any other BITONIC_* setting) must be named
and refused. With MPI: ranks given
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
    """The CLI's named temporaries, and rank 0's hidden part file of a distributed sort."""
    return [n for n in os.listdir(directory) if ".tmp." in n or ".bitonic-part." in n]


def npy_bytes(count, seed):
    header = "{'descr': '<u4', 'fortran_order': False, 'shape': (%d,), }" % count
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    words = [(i * 2654435761 + seed) & 0xFFFFFFFF for i in range(count)]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack(
        "<%dI" % count, *words)


def writing_into(pid, directory, input_path):
    """Whether the process holds a descriptor on a file of directory other
    than its input: the unnamed output ("DIR/#123 (deleted)") or a named
    temporary file, so its write is under way."""
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            if target.startswith(directory + "/") and target != input_path:
                return True
    except OSError:
        pass
    return False


def unnamed_files_work(directory):
    """Whether the file system of directory takes O_TMPFILE."""
    try:
        fd = os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600)
    except (AttributeError, OSError):
        return False
    os.close(fd)
    return True


def kill_during_write(scratch, big, signal_number):
    """Starts a sort of big, waits for its output to be open, sends the signal.
    Returns (seen, returncode) or None when the write was never caught."""
    out = os.path.join(scratch, "killed.bin")
    for attempt in range(5):
        process = subprocess.Popen([tool, "sort", big, out, "--device", "cpu"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        seen = False
        while process.poll() is None and time.monotonic() < deadline:
            if temporaries(scratch) or writing_into(process.pid, scratch, big):
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

    # Every other BITONIC_* setting the same way: named, with the reason, and no OUT.
    for variable, value, reason in (("BITONIC_DEVICE", "cpu ", "space"),
                                    ("BITONIC_CACHE_DIR", "/tmp/a\x01b", "control character"),
                                    ("BITONIC_PIPELINE_CACHE", "disabled", "expected 0 or 1"),
                                    ("BITONIC_DEVICE_ADDRESSES", "2", "expected 0 or 1"),
                                    ("BITONIC_HOST_IMPORT", "n", "expected 0 or 1"),
                                    ("BITONIC_HOST_CHUNK_SORT", "nope", "expected 0 or 1"),
                                    ("BITONIC_HOST_CHUNK_BYTES", "4MiB", "decimal digits"),
                                    ("BITONIC_IMPORT_MIN_BYTES", "281474976710657", "out of range"),
                                    ("BITONIC_HOST_COPY_THREADS", "0", "out of range")):
        env = dict(os.environ, **{variable: value})
        r = run("sort", path("keys.bin"), path("setting_out.bin"), "--device", "cpu", env=env)
        check(r is not None and r.returncode == 2 and r.stderr.count("\n") == 1 and variable in r.stderr and
              reason in r.stderr and not os.path.exists(path("setting_out.bin")),
              "%s=%r refused by name: %r" % (variable, value, r.stderr if r else "timeout"))
    env = dict(os.environ, BITONIC_HOST_COPY_THREADS="", BITONIC_PIPELINE_CACHE="")
    r = run("sort", path("keys.bin"), path("setting_out.bin"), "--device", "cpu", env=env)
    check(r is not None and r.returncode == 0, "empty settings are the defaults: %r" % (r.stderr if r else "timeout"))
    if os.path.exists(path("setting_out.bin")):
        os.remove(path("setting_out.bin"))

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
    # SIGKILL cannot be caught: only an unnamed output leaves nothing, where
    # the file system has O_TMPFILE (else the named fallback's file stays).
    before = sorted(os.listdir(scratch))
    if unnamed_files_work(scratch):
        caught = kill_during_write(scratch, big, signal.SIGKILL)
        check(caught is not None, "SIGKILL: the write was caught in progress")
        if caught is not None:
            check(caught[0] == -signal.SIGKILL, "SIGKILL ends the process (%s)" % caught[0])
            check(sorted(os.listdir(scratch)) == before, "SIGKILL mid-write leaves no file: %s" %
                  sorted(set(os.listdir(scratch)) - set(before)))
    else:
        print("note: %s has no O_TMPFILE; the SIGKILL case is not run" % scratch)
    os.remove(big)

    # OUT as a symbolic link: the link is replaced by the sorted file, and the
    # file it pointed to is left as it was (not written through, not followed).
    with open(path("link_target.bin"), "wb") as f:
        f.write(b"keep")
    for name, target in (("link_out.bin", path("link_target.bin")), ("dangling_out.bin", path("nowhere.bin"))):
        os.symlink(target, path(name))
        r = run("sort", path("keys.bin"), path(name), "--device", "cpu")
        ok = r is not None and r.returncode == 0 and not os.path.islink(path(name))
        if ok:
            with open(path(name), "rb") as f:
                ok = struct.unpack("<4I", f.read()) == (1, 2, 3, 4)
        check(ok, "OUT %s, a link, is replaced by the sorted file: %r" % (name, r.stderr if r else "timeout"))
        os.remove(path(name))
    with open(path("link_target.bin"), "rb") as f:
        check(f.read() == b"keep", "the file OUT linked to is untouched")
    check(not os.path.exists(path("nowhere.bin")), "a dangling OUT link's target is not created")
    check(not temporaries(scratch), "no temporary file after the link cases")

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
