#!/usr/bin/env python3
"""browser.py: drives headless Chromium over pages of web/ for the tests and the
benchmark. It serves web/ on 127.0.0.1 only (an ephemeral port) from a thread
of this process, starts Chromium on SwiftShader's WebGL2 in a process group of
its own, and ends that group on every way out, so nothing is left running.

  browser.py report PAGE [--timeout S]   load PAGE, wait for its POST to
      /report (JSON), print it and exit 0 when its "failed" is 0
  browser.py screenshot PAGE OUT.png [--size WxH] [--wait-ms MS]   a headless
      screenshot; exit 0 when the picture has more than one colour

PAGE is a path under web/ with its query, e.g. tests/index.html?max=18.
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import zlib

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=WEB, **kwargs)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path.startswith("/report"):
            self.server.report = body
            self.server.reported.set()
        elif self.path.startswith("/log"):
            sys.stderr.write(body.decode("utf-8", "replace") + "\n")
        self.send_response(204)
        self.end_headers()

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


def chromium_command(profile, extra):
    binary = os.environ.get("CHROMIUM", shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    command = [binary, "--headless", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
               f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--mute-audio", "--disable-background-timer-throttling",
               "--disable-renderer-backgrounding", "--js-flags=--max-old-space-size=4096"]
    if os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return command + extra


def run_chromium(extra, timeout, until=None):
    """Runs Chromium until it exits, `until` is set, or timeout; returns its exit code or None."""
    profile = tempfile.mkdtemp(prefix="bitonic-chromium-")
    log = open(os.path.join(profile, "chromium.log"), "wb")
    process = subprocess.Popen(chromium_command(profile, extra), stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    code = None
    try:
        if until is not None:
            until.wait(timeout)
        else:
            try:
                code = process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        else:
            try:  # the browser's own helpers, should any outlive it
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()
        if os.environ.get("BITONIC_WEB_CHROMIUM_LOG"):
            with open(os.path.join(profile, "chromium.log"), "rb") as f:
                sys.stderr.write(f.read().decode("utf-8", "replace"))
        shutil.rmtree(profile, ignore_errors=True)
    return code


def png_colours(path):
    """Distinct RGB colours of an 8-bit RGB or RGBA PNG (enough for Chromium's screenshots)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unhandled PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    previous, colours, at = bytearray(stride), set(), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        for x in range(0, stride, channels):
            colours.add(bytes(line[x:x + 3]))
        previous = line
    return width, height, colours


def stop(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the finally blocks that end Chromium and the server


def main():
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["report", "screenshot"])
    parser.add_argument("page")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--size", default="800,600")
    parser.add_argument("--wait-ms", type=int, default=3000)
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.report, server.reported = None, threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/{args.page}"
    try:
        if args.mode == "report":
            run_chromium([url], args.timeout, until=server.reported)
            if server.report is None:
                print(f"browser.py: no report from {args.page} within {args.timeout:.0f} s")
                return 1
            report = json.loads(server.report)
            for line in report.get("lines", []):
                print(line)
            return 0 if report.get("failed", 1) == 0 and report.get("passed", 0) > 0 else 1
        code = run_chromium([f"--screenshot={os.path.abspath(args.out)}", f"--window-size={args.size}",
                             f"--virtual-time-budget={args.wait_ms}", url], args.timeout)
        if not os.path.exists(args.out):
            print(f"browser.py: no screenshot of {args.page} (chromium exit {code})")
            return 1
        width, height, colours = png_colours(args.out)
        print(f"screenshot {args.page}: {width} x {height}, {len(colours)} colours")
        return 0 if len(colours) > 1 else 1
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
