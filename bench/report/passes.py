#!/usr/bin/env python3
"""passes.py: each pass of `bitonic bench --profile` beside the device's copy rate.

Reads the profile (the lines `profile of N keys|pairs|u64 keys: P passes, T ms`, then
`pass I NAME T ms [B MB R GB/s]`, as bitonic bench prints them) and CSV files of
`impl,type,n,median_ms,...` rows with impl `d2d_copy` (bench/cub/cub_sort_bench: a device-to-device
copy of the same keys and values, timed in the same call). For each profiled sort it prints
markdown: every pass with its time, share of the sort, the bytes it reads and writes, their rate
and that rate as a fraction of the copy rate (bytes read and written over the copy's time), then
the sort's bytes against one copy's.

    bench/report/passes.py PROFILE.txt COPY.csv [COPY.csv ...] [--out FILE.md]

Standard library only. Exit status 0, or 2 on unreadable input.
"""

import argparse
import csv
import re
import sys

PROFILE = re.compile(r"^\s*profile of (\d+) (keys|pairs|u64 keys): (\d+) passes, ([\d.]+) ms")
PASS = re.compile(r"^\s*pass\s+(\d+)\s+(.+?)\s+([\d.]+) ms(?:\s+([\d.]+) MB\s+([\d.]+) GB/s)?\s*$")
TYPE_OF = {"keys": "u32", "pairs": "pairs", "u64 keys": "u64"}
BYTES_PER_KEY = {"u32": 4, "pairs": 8, "u64": 8}


def read_copies(paths):
    """{(type, n): median ms} of the d2d_copy rows."""
    copies = {}
    for path in paths:
        with open(path, newline="") as handle:
            for fields in csv.reader(handle):
                if len(fields) >= 4 and fields[0].strip() == "d2d_copy":
                    try:
                        copies[(fields[1].strip(), int(fields[2]))] = float(fields[3])
                    except ValueError:
                        pass
    return copies


def read_profiles(path):
    """[(type, n, total_ms, [(index, name, ms, megabytes or None)])] in the profile's order."""
    profiles = []
    with open(path) as handle:
        for line in handle:
            head = PROFILE.match(line)
            if head:
                profiles.append((TYPE_OF[head.group(2)], int(head.group(1)), float(head.group(4)), []))
                continue
            step = PASS.match(line)
            if step and profiles:
                megabytes = float(step.group(4)) if step.group(4) else None
                profiles[-1][3].append((int(step.group(1)), step.group(2), float(step.group(3)), megabytes))
    return profiles


def render(profiles, copies):
    lines = ["# Passes beside the copy rate\n",
             "Each pass's bytes are the keys and values it reads and writes (tables, samples and "
             "searches not counted); the copy rate is that of a device-to-device copy of the same "
             "keys and values in the same call (bytes read and written over its time).\n"]
    for key_type, n, total_ms, passes in profiles:
        copy_ms = copies.get((key_type, n))
        copy_bytes = 2.0 * n * BYTES_PER_KEY[key_type]
        rate = copy_bytes / (copy_ms * 1e-3) if copy_ms else None
        lines.append("## %s, %d keys: %.4f ms%s\n" % (
            key_type, n, total_ms,
            ", copy rate %.2f TB/s (%.4f ms)" % (rate * 1e-12, copy_ms) if rate else ", no copy row"))
        lines.append("| pass | name | ms | share | MB | GB/s | of copy rate |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|")
        moved = 0.0
        for index, name, ms, megabytes in passes:
            share = "%.0f%%" % (100.0 * ms / total_ms) if total_ms > 0 else "-"
            if megabytes is not None and ms > 0:
                moved += megabytes * 1e6
                speed = megabytes * 1e6 / (ms * 1e-3)
                fraction = "%.0f%%" % (100.0 * speed / rate) if rate else "-"
                lines.append("| %d | %s | %.4f | %s | %.3f | %.0f | %s |" % (
                    index, name, ms, share, megabytes, speed * 1e-9, fraction))
            else:
                lines.append("| %d | %s | %.4f | %s | - | - | - |" % (index, name, ms, share))
        if rate and moved > 0:
            lines.append("\nBytes moved: %.1f copies of the data; at the copy rate they would take %.4f ms, "
                         "%.0f%% of the sort's %.4f ms.\n" % (
                             moved / copy_bytes, moved / rate * 1e3, 100.0 * moved / rate * 1e3 / total_ms,
                             total_ms))
        else:
            lines.append("")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description="Set each profiled pass beside the copy rate.")
    parser.add_argument("profile", metavar="PROFILE.txt")
    parser.add_argument("copies", nargs="+", metavar="COPY.csv")
    parser.add_argument("--out", metavar="FILE.md")
    args = parser.parse_args(argv)
    try:
        profiles = read_profiles(args.profile)
        copies = read_copies(args.copies)
    except OSError as error:
        print("passes.py: %s: %s" % (error.filename, error.strerror), file=sys.stderr)
        return 2
    text = render(profiles, copies)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
