#!/usr/bin/env python3
"""stability.py: says whether a benchmark's numbers hold still.

Joins the rows of several sweeps of `bitonic bench --csv --tune batch-log=LOG` with the GPU's SM clock
sampled meanwhile (`nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv,noheader -lms 100`),
so every row carries the clock seen during its timed batch, flags the rows whose clock was below the
highest clock of the whole log, and checks that the sweeps agree row by row.

    bench/report/stability.py --samples SMI.csv --out ANNOTATED.csv SWEEP1.csv:LOG1 SWEEP2.csv:LOG2 ...

The annotated CSV has the bench's columns, then sweep, sm_clock_min_mhz, sm_clock_median_mhz,
clock_samples and clock_low (1: some sample in the batch was more than 5% below the maximum).
Prints the worst spread (max median / min median across sweeps) per (impl, type, n) above 10%, and
a last line `stability: R rows, W over 10%, L clock-low` . Exit status 0, or 1 if a row moved more
than 10% across sweeps or a clock was low (--strict), 2 on bad input. Standard library only.
"""

import argparse
import csv
import datetime
import statistics
import sys

SPREAD_MAX = 1.10
CLOCK_LOW_FRACTION = 0.95


def read_samples(path):
    """[(unix_ms, mhz)] from nvidia-smi's `timestamp, clocks.sm` lines (local time, as it prints)."""
    samples = []
    with open(path) as handle:
        for line in handle:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) < 2:
                continue
            try:
                when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
                mhz = float(parts[1].split()[0])
            except ValueError:
                continue  # a header or a line cut off when the sampler was stopped
            samples.append((when.timestamp() * 1e3, mhz))
    return samples


def read_sweep(csv_path, log_path):
    """Bench rows in order, each with the wall-clock span of its timed batch from the log."""
    with open(csv_path, newline="") as handle:
        rows = [r for r in csv.reader(handle) if r and r[0] != "impl" and not r[0].startswith("#")]
    spans = {}
    with open(log_path, newline="") as handle:
        for r in csv.reader(handle):
            if len(r) == 5:
                spans.setdefault((r[0], r[1], r[2]), []).append((float(r[3]), float(r[4])))
    joined = []
    for r in rows:
        key = (r[0], r[1], r[2])
        span = spans.get(key, []).pop(0) if spans.get(key) else None
        joined.append((r, span))
    return joined


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("sweeps", nargs="+", help="CSV:LOG pairs, one per sweep")
    args = parser.parse_args()
    try:
        samples = read_samples(args.samples)
        sweeps = [read_sweep(*pair.split(":", 1)) for pair in args.sweeps]
    except (OSError, TypeError, ValueError) as error:
        print("stability.py: %s" % error, file=sys.stderr)
        return 2
    top = max((mhz for _, mhz in samples), default=0.0)
    medians = {}
    low_rows = 0
    with open(args.out, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["impl", "type", "n", "median_ms", "min_ms", "runs", "verified", "sweep", "sm_clock_min_mhz",
                      "sm_clock_median_mhz", "clock_samples", "clock_low"])
        for number, sweep in enumerate(sweeps, start=1):
            for row, span in sweep:
                # The samples inside the batch; a batch shorter than the sampler's
                # 100 ms tick gets the one sample nearest its middle (within 100 ms).
                # Wider windows catch the idle clock of the host's work around it.
                seen = [mhz for when, mhz in samples if span and span[0] <= when <= span[1]]
                if span and not seen:
                    middle = 0.5 * (span[0] + span[1])
                    near = min(samples, key=lambda s: abs(s[0] - middle), default=None)
                    if near and abs(near[0] - middle) <= 100.0:
                        seen = [near[1]]
                low = 1 if seen and min(seen) < CLOCK_LOW_FRACTION * top else 0
                low_rows += low
                out.writerow(row[:7] + [number, min(seen) if seen else "", statistics.median(seen) if seen else "",
                                        len(seen), low])
                medians.setdefault(tuple(row[:3]), []).append(float(row[3]))
    wide = 0
    for key, values in medians.items():
        if len(values) > 1 and min(values) > 0 and max(values) / min(values) > SPREAD_MAX:
            wide += 1
            print("spread %.2fx %s %s %s: %s ms" % (max(values) / min(values), key[0], key[1], key[2],
                                                    " ".join("%.4f" % v for v in values)))
    print("stability: %d rows, %d over %d%% across %d sweeps, %d clock-low (max clock %.0f MHz)"
          % (len(medians), wide, round((SPREAD_MAX - 1) * 100), len(sweeps), low_rows, top))
    return 1 if args.strict and (wide or low_rows) else 0


if __name__ == "__main__":
    sys.exit(main())
