#!/usr/bin/env python3
"""test_boids.py PART BITONIC_BOIDS: the boids app as a user meets it, on the
first Vulkan device (lavapipe on a machine without a GPU; BITONIC_TEST_DEVICE
names another) with the validation layer on, where one message fails the run.

Parts:
  check    grid and station find exactly brute's neighbours (the app's --check),
           with dispatches split into rows (2-D) even at this small count
  render   two PNG frames: right size, decodable, a sky-to-floor picture with
           many boid-coloured pixels, and the flock moved between them
  bench    one summary line with steps/s and the GPU sort and step times
  video    an MP4 through ffmpeg when it is installed; without ffmpeg on the
           PATH, one clear message and a failing exit
  options  bad command lines fail with a message"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

part, app = sys.argv[1], sys.argv[2]
passed = failed = 0
device = os.environ.get("BITONIC_TEST_DEVICE", "")
device_args = ["--device", device] if device and device != "vulkan" else []


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return ok


def run(*args, env=None):
    result = subprocess.run([app, *device_args, *args], capture_output=True, text=True, timeout=600, env=env)
    print("$ bitonic-boids", " ".join(args))
    print(result.stdout, result.stderr, sep="", end="")
    return result


def validated(result):
    return check("validation: 0 messages" in result.stdout, "zero validation messages")


def read_png(path):
    """Decodes an 8-bit RGB or RGBA PNG (all five filter types) into rows of bytes."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    offset, idat, width = 8, b"", 0
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "8-bit RGB(A)"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + left) & 255
            elif filter_type == 2:
                line[i] = (line[i] + up) & 255
            elif filter_type == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                line[i] = (line[i] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def pixels(rows, channels):
    for row in rows:
        for i in range(0, len(row), channels):
            yield row[i], row[i + 1], row[i + 2]


def boid_like(r, g, b):
    """The boids are warm orange or clear blue; sky, fog and floor are grey-blue."""
    return (r > g + 40 and r > b + 60) or (b > r + 70 and b > g + 20 and g > r)


if part == "check":
    # 5000 boids: more than one tile of pairs on lavapipe, so the sort merges (scratch) too.
    result = run("--check", "--count", "5000", "--steps", "6", "--max-groups-x", "3", "--validation")
    check(result.returncode == 0, "check exits 0")
    check("check: PASS" in result.stdout, "check passes")
    check(result.stdout.count("identical") == 2, "grid and station both find brute's neighbour sets")
    validated(result)

elif part == "render":
    with tempfile.TemporaryDirectory() as scratch:
        frames = os.path.join(scratch, "frames")
        result = run("--count", "600", "--steps", "40", "--frame-every", "20", "--size", "200x150",
                     "--frames", frames, "--validation", "--quiet")
        check(result.returncode == 0, "render exits 0")
        validated(result)
        names = sorted(os.listdir(frames)) if os.path.isdir(frames) else []
        check(names == ["frame_00000.png", "frame_00001.png"], "two frames written: %s" % names)
        decoded = []
        for name in names:
            width, height, channels, rows = read_png(os.path.join(frames, name))
            check((width, height) == (200, 150), "%s is 200x150" % name)
            colours = set(pixels(rows, channels))
            boids = sum(1 for p in pixels(rows, channels) if boid_like(*p))
            top = rows[0][:3]
            bottom = rows[-1][:3]
            check(len(colours) > 200, "%s has shading, not flat colour (%d colours)" % (name, len(colours)))
            check(boids > 300, "%s shows the flock (%d boid-coloured pixels)" % (name, boids))
            check(top[2] > top[0] and top != bottom, "%s has sky above and floor below" % name)
            decoded.append(rows)
        if len(decoded) == 2:
            check(decoded[0] != decoded[1], "the flock moved between frames")

elif part == "bench":
    result = run("--bench", "--count", "3000", "--search", "grid", "--steps", "8", "--warmup", "2", "--validation")
    check(result.returncode == 0, "bench exits 0")
    validated(result)
    line = [l for l in result.stdout.splitlines() if l.startswith("bench ")]
    check(len(line) == 1, "one summary line")
    if line:
        fields = dict(re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", line[0]))
        check(float(fields.get("steps_per_s", 0)) > 0, "steps/s measured")
        step, sort = float(fields.get("gpu_step_ms", 0)), float(fields.get("gpu_sort_ms", 0))
        check(0 < sort < step, "the sort takes part of the step: %s of %s ms" % (sort, step))
        check(0 < float(fields.get("polarisation", -1)) <= 1, "polarisation in (0, 1]")

elif part == "video":
    with tempfile.TemporaryDirectory() as scratch:
        movie = os.path.join(scratch, "flock.mp4")
        no_ffmpeg = dict(os.environ, PATH=scratch)
        result = run("--count", "300", "--steps", "4", "--size", "160x120", "--video", movie, env=no_ffmpeg)
        check(result.returncode != 0 and "ffmpeg" in result.stderr, "without ffmpeg: a clear message and a failure")
        check(not os.path.exists(movie), "without ffmpeg: no file")
        have_ffmpeg = subprocess.run(["sh", "-c", "command -v ffmpeg"], capture_output=True).returncode == 0
        if have_ffmpeg:
            result = run("--count", "300", "--steps", "12", "--size", "160x120", "--video", movie,
                         "--validation", "--quiet")
            check(result.returncode == 0, "video exits 0")
            validated(result)
            size = os.path.getsize(movie) if os.path.exists(movie) else 0
            check(size > 1000, "an MP4 was written (%d bytes)" % size)
            if os.path.exists(movie):
                check(open(movie, "rb").read(12)[4:8] == b"ftyp", "it is an MP4 (ftyp box first)")
        else:
            print("ffmpeg not installed: only the refusal was tested")

elif part == "options":
    for args, why in ((["--search", "octree"], "unknown search"), (["--count", "1"], "one boid"),
                      (["--size", "10x10"], "tiny picture"), (["--frobnicate"], "unknown option")):
        result = run(*args)
        check(result.returncode == 2 and result.stderr.strip() != "", "%s is refused with a message" % why)
    result = run("--help")
    check(result.returncode == 0 and "--search" in result.stdout, "--help lists the options")

else:
    print("unknown part", part)
    failed += 1

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
