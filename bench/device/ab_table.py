#!/usr/bin/env python3
"""ab_table.py: the table of an A/B run (bench/device/ab.sh): builds of the tool side by side.

Reads the rows of `bitonic bench --csv` whose impl is IMPL@LABEL (ab.sh names each build's rows
so), as bench/report/stability.py writes them (a clock_low column) or as the bench printed them,
and the flock's `bench ...` lines that ab.sh prefixed with `LABEL ROUND `. Prints markdown: per
key type and size the median over the rounds of each build's median time, verified rows only,
and each build's time over the first build's (new/old: below 1 is faster); then per type the
geometric mean, the smallest and the largest ratio; then the flock, per boid count and search,
each build's median steps/s and GPU ms a step, and the GPU step time over the first build's.
Rows measured while the GPU clock was low (clock_low 1) are left out where a round with a steady
clock exists for that build and size; a cell marked * had only low-clock rounds.

    bench/device/ab_table.py --labels old,new [--impl bitonic] [--flock FLOCK.txt] ROWS.csv...

Standard library only. Exit status 0, or 2 on bad input.
"""

import argparse
import csv
import math
import re
import statistics
import sys

TYPE_ORDER = ["u32", "f32", "pairs", "u64", "rows1024"]


def size_name(n):
    """2^k, 2^k+1 or 3*2^(k-2) where n is one of those, else the number."""
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    if n > 1 and (n - 1) & (n - 2) == 0:
        return "2^%d+1" % ((n - 1).bit_length() - 1)
    if n % 3 == 0 and (n // 3) & (n // 3 - 1) == 0:
        return "3*2^%d" % ((n // 3).bit_length() - 1)
    return str(n)


def read_rows(paths, impl):
    """{(type, n): {label: [(ms, low)]}} of verified rows, and the count of unverified ones."""
    cells = {}
    unverified = []
    for path in paths:
        with open(path, newline="") as handle:
            header = None
            for fields in csv.reader(handle):
                if not fields or fields[0].startswith("#"):
                    continue
                if fields[0] == "impl":
                    header = fields
                    continue
                if "@" not in fields[0] or len(fields) < 7:
                    continue
                name, label = fields[0].rsplit("@", 1)
                if name != impl:
                    continue
                low = 0
                if header and "clock_low" in header and len(fields) > header.index("clock_low"):
                    low = int(fields[header.index("clock_low")] or 0)
                key = (fields[1], int(fields[2]))
                if fields[6] != "1":
                    unverified.append((label, key))
                    continue
                cells.setdefault(key, {}).setdefault(label, []).append((float(fields[3]), low))
    return cells, unverified


def pick(samples):
    """The median of the steady-clock rounds (all rounds where none was steady), and whether all were low."""
    steady = [ms for ms, low in samples if not low]
    if steady:
        return statistics.median(steady), False
    return statistics.median(ms for ms, _ in samples), True


def bench_table(cells, unverified, labels, out):
    base = labels[0]
    others = labels[1:]
    types = sorted({t for t, _ in cells}, key=lambda t: (TYPE_ORDER.index(t) if t in TYPE_ORDER else 99, t))
    ratios = {}
    for type_name in types:
        out.append("### %s" % type_name)
        out.append("")
        out.append("| n | " + " | ".join("%s ms" % l for l in labels) + " | " +
                   " | ".join("%s/%s" % (l, base) for l in others) + " |")
        out.append("|---|" + "---:|" * (len(labels) + len(others)))
        for n in sorted(n for t, n in cells if t == type_name):
            row = cells[(type_name, n)]
            times = {}
            line = "| %s |" % size_name(n)
            for label in labels:
                if label in row:
                    ms, all_low = pick(row[label])
                    times[label] = ms
                    line += " %.4f%s (%d) |" % (ms, "*" if all_low else "", len(row[label]))
                else:
                    line += " - |"
            for label in others:
                if label in times and base in times and times[base] > 0:
                    ratio = times[label] / times[base]
                    ratios.setdefault((type_name, label), []).append(ratio)
                    line += " %.3f |" % ratio
                else:
                    line += " - |"
            out.append(line)
        out.append("")
    if ratios:
        out.append("### summary: time over %s's (below 1: faster)" % base)
        out.append("")
        out.append("| type | build | sizes | geometric mean | smallest | largest |")
        out.append("|---|---|---:|---:|---:|---:|")
        for (type_name, label), values in sorted(ratios.items(), key=lambda kv: (types.index(kv[0][0]), kv[0][1])):
            mean = math.exp(sum(math.log(v) for v in values) / len(values))
            out.append("| %s | %s | %d | %.3f | %.3f | %.3f |" % (type_name, label, len(values), mean, min(values),
                                                                max(values)))
        out.append("")
    out.append("Cells: median ms over the rounds (how many rounds); * only low-clock rounds.")
    if unverified:
        out.append("UNVERIFIED rows (left out): " + ", ".join("%s %s %s" % (l, t, size_name(n))
                                                              for l, (t, n) in unverified))
    out.append("")


FLOCK_LINE = re.compile(r"^(\S+) (\d+) bench .*?search=(\S+) count=(\d+) .*?steps_per_s=([0-9.]+)"
                        r"(?: .*?gpu_step_ms=([0-9.]+))?")


def flock_table(path, labels, out):
    runs = {}
    with open(path) as handle:
        for line in handle:
            match = FLOCK_LINE.match(line.strip())
            if not match:
                continue
            label, _, search, count, steps_per_s, gpu_ms = match.groups()
            entry = runs.setdefault((int(count), search), {}).setdefault(label, {"rate": [], "gpu": []})
            entry["rate"].append(float(steps_per_s))
            if gpu_ms:
                entry["gpu"].append(float(gpu_ms))
    if not runs:
        out.append("No flock lines (no build had bitonic-boids, or it failed: see flock.txt).")
        return
    base = labels[0]
    out.append("### flock (bitonic-boids --bench)")
    out.append("")
    out.append("| boids | search | " + " | ".join("%s steps/s | %s GPU ms/step" % (l, l) for l in labels) + " | " +
               " | ".join("%s/%s GPU ms" % (l, base) for l in labels[1:]) + " |")
    out.append("|---|---|" + "---:|" * (2 * len(labels) + len(labels) - 1))
    for (count, search) in sorted(runs):
        row = runs[(count, search)]
        line = "| %d | %s |" % (count, search)
        gpu = {}
        for label in labels:
            entry = row.get(label)
            if entry:
                line += " %.1f |" % statistics.median(entry["rate"])
                if entry["gpu"]:
                    gpu[label] = statistics.median(entry["gpu"])
                    line += " %.3f |" % gpu[label]
                else:
                    line += " - |"
            else:
                line += " - | - |"
        for label in labels[1:]:
            line += " %.3f |" % (gpu[label] / gpu[base]) if label in gpu and gpu.get(base) else " - |"
        out.append(line)
    out.append("")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", required=True, help="the builds, the first the baseline: old,new")
    parser.add_argument("--impl", default="bitonic", help="whose rows (default bitonic; bitonic_e2e: host to host)")
    parser.add_argument("--flock", help="the flock's lines, as ab.sh writes them")
    parser.add_argument("rows", nargs="*")
    args = parser.parse_args()
    labels = [l for l in args.labels.split(",") if l]
    out = []
    try:
        cells, unverified = read_rows(args.rows, args.impl)
        out.append("## %s: %s" % (args.impl, " against ".join(reversed(labels)) if len(labels) == 2
                                  else ", ".join(labels[1:]) + " against " + labels[0]))
        out.append("")
        bench_table(cells, unverified, labels, out)
        if args.flock:
            flock_table(args.flock, labels, out)
    except (OSError, ValueError) as error:
        print("ab_table.py: %s" % error, file=sys.stderr)
        return 2
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
