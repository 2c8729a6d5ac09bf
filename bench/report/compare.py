#!/usr/bin/env python3
"""compare.py: puts bitonic's benchmark results beside CUB's and checks the project's targets.

Reads CSV files of `impl,type,n,median_ms,min_ms,runs,verified` lines, as printed by
`bitonic bench --csv` (impl `bitonic`, and `bitonic_e2e` for host-to-host time) and by
`cub_sort_bench --csv` (impl `cub_radix`, `cub_merge`, `d2d_copy`). Prints markdown: one table
per key type, then a verdict for each target (HOLDS / FAILS / NO DATA, with the worst case).
Results from one run on one GPU belong together: do not mix files from different machines.

    bench/report/compare.py [--ours IMPL] [--out FILE.md] [--strict] FILE.csv [FILE.csv ...]

Standard library only. Exit status: 0, or 1 with --strict when a target FAILS, 2 on bad input.
"""

import argparse
import csv
import math
import sys
from collections import namedtuple

COLUMNS = ["impl", "type", "n", "median_ms", "min_ms", "runs", "verified"]
TYPE_ORDER = ["u32", "pairs", "u64", "f32"]

# The targets (docs/PERFORMANCE.md names them (1) to (3) and (e)): u32 no slower than CUB's radix
# and merge sorts at any n, with the times at 2^24 and 2^28 below; pairs at most 1.25x CUB's radix
# sort of pairs and 1.4x our u32; u64 no slower than CUB's radix sort of u64; no power-of-two cliff.
U32_MAX_MS = {1 << 24: 0.46, 1 << 28: 6.3}
PAIRS_OVER_RADIX_MAX = 1.25
PAIRS_OVER_KEYS_MAX = 1.4
CLIFF_MAX = 1.15

Row = namedtuple("Row", "median_ms min_ms runs verified source clock_low")


def warn(message):
    print("compare.py: " + message, file=sys.stderr)


def read_results(paths):
    """Returns {(impl, type, n): Row}. Several lines for one key (repeated sweeps, as
    bench/report/stability.py writes them with a clock_low column) give the row of their
    median time; a clock_low of 1 marks a row measured while the GPU clock was low."""
    results = {}
    repeats = {}
    for path in paths:
        try:
            handle = open(path, newline="")
        except OSError as error:
            warn("cannot read %s: %s" % (path, error.strerror))
            sys.exit(2)
        with handle:
            clock_column = None
            for line_number, fields in enumerate(csv.reader(handle), start=1):
                fields = [field.strip() for field in fields]
                if not fields or not fields[0] or fields[0].startswith("#"):
                    continue
                if fields[:len(COLUMNS)] == COLUMNS:
                    # a header, also in the middle of concatenated files
                    clock_column = fields.index("clock_low") if "clock_low" in fields else None
                    continue
                where = "%s:%d" % (path, line_number)
                # bitonic bench adds the host-path stages after these columns
                if len(fields) < len(COLUMNS):
                    warn("%s: skipped, want %d columns: %s" % (where, len(COLUMNS), ",".join(fields)))
                    continue
                impl, key_type, n, median_ms, min_ms, runs, verified = fields[:len(COLUMNS)]
                try:
                    low = clock_column is not None and len(fields) > clock_column and fields[clock_column] == "1"
                    row = Row(float(median_ms), float(min_ms), int(runs), verified == "1", where, low)
                    n = int(n)
                except ValueError:
                    warn("%s: skipped, not a number: %s" % (where, ",".join(fields)))
                    continue
                if verified not in ("0", "1") or n < 1 or not math.isfinite(row.median_ms) \
                        or row.median_ms <= 0:
                    warn("%s: skipped, bad values: %s" % (where, ",".join(fields)))
                    continue
                repeats.setdefault((impl, key_type, n), []).append(row)
    for key, rows in repeats.items():
        rows.sort(key=lambda r: r.median_ms)
        results[key] = rows[(len(rows) - 1) // 2]
    return results


def size_label(n):
    """1048576 -> 2^20, 1048577 -> 2^20+1, 1572864 -> 1.5*2^20, else the number."""
    k = n.bit_length() - 1
    if n == 1 << k:
        return "2^%d" % k
    if n == (1 << k) + 1:
        return "2^%d+1" % k
    if k >= 1 and n == 3 << (k - 1):
        return "1.5*2^%d" % k
    return str(n)


def fmt_ms(row):
    if row is None:
        return "-"
    return "%.4f%s%s" % (row.median_ms, "" if row.verified else " (!)", " (clock)" if row.clock_low else "")


def fmt_ratio(ours, peer):
    if ours is None or peer is None:
        return "-"
    ratio = ours.median_ms / peer.median_ms
    text = "%.2f" % ratio
    return "**%s**" % text if ratio > 1.0 else text


def keys_per_second(n, row):
    return n / (row.median_ms * 1e-3)


class Report:
    def __init__(self, results, ours):
        self.results = results
        self.ours = ours
        self.lines = []
        self.verdicts = []  # (label, status, detail)

    def get(self, impl, key_type, n):
        return self.results.get((impl, key_type, n))

    def sizes(self, key_type, impl=None):
        return sorted({n for (i, t, n) in self.results if t == key_type and (impl is None or i == impl)})

    def types(self):
        present = {t for (_, t, _) in self.results}
        return [t for t in TYPE_ORDER if t in present] + sorted(present - set(TYPE_ORDER))

    def has_impl(self, impl, key_type):
        return any(i == impl and t == key_type for (i, t, _) in self.results)

    # -- tables ---------------------------------------------------------------------------------

    def table(self, key_type):
        ours = self.ours
        e2e = ours + "_e2e"
        extra = [(impl, title) for impl, title in ((e2e, "ours end-to-end ms"),
                                                   ("d2d_copy", "d2d copy ms"))
                 if self.has_impl(impl, key_type)]
        copies = self.has_impl("d2d_copy", key_type)
        header = ["n", "size", "ours ms", "CUB radix ms", "CUB merge ms", "ours/radix",
                  "ours/merge", "ours G keys/s"] + (["copies", "bound"] if copies else []) \
            + [title for _, title in extra]
        self.lines.append("## %s\n" % key_type)
        self.lines.append("| " + " | ".join(header) + " |")
        self.lines.append("|" + "|".join("---:" for _ in header) + "|")
        for n in self.sizes(key_type):
            mine = self.get(ours, key_type, n)
            radix = self.get("cub_radix", key_type, n)
            merge = self.get("cub_merge", key_type, n)
            rate = "%.2f" % (keys_per_second(n, mine) / 1e9) if mine else "-"
            cells = [str(n), size_label(n), fmt_ms(mine), fmt_ms(radix), fmt_ms(merge),
                     fmt_ratio(mine, radix), fmt_ratio(mine, merge), rate]
            if copies:
                # Our time in copies of the data (one read and one write of every key and
                # value, timed in the same call), and its inverse: the fraction of the
                # bandwidth bound of a sort that moves each key once.
                copy = self.get("d2d_copy", key_type, n)
                cells += ["%.1f" % (mine.median_ms / copy.median_ms) if mine and copy else "-",
                          "%.0f%%" % (100.0 * copy.median_ms / mine.median_ms) if mine and copy else "-"]
            cells += [fmt_ms(self.get(impl, key_type, n)) for impl, _ in extra]
            self.lines.append("| " + " | ".join(cells) + " |")
        self.lines.append("")

    # -- verdicts -------------------------------------------------------------------------------

    def verdict(self, label, status, detail):
        self.verdicts.append((label, status, detail))

    def ratio_target(self, label, items, limit, describe):
        """items: [(where, ours_row, other_row)]; the target is ours <= limit * other for each."""
        usable = [(where, a, b) for (where, a, b) in items if a and b]
        if not usable:
            self.verdict(label, "NO DATA", describe + ": no sizes with both results")
            return
        unverified = [where for (where, a, b) in usable if not (a.verified and b.verified)]
        where, a, b = max(usable, key=lambda item: item[1].median_ms / item[2].median_ms)
        over = sum(1 for (_, x, y) in usable if x.median_ms > limit * y.median_ms)
        detail = "worst %.2fx (limit %.2fx) at %s: %.4f ms vs %.4f ms; %d of %d sizes over" % (
            a.median_ms / b.median_ms, limit, where, a.median_ms, b.median_ms, over, len(usable))
        if unverified:
            detail += "; UNVERIFIED output in %d comparisons (%s)" % (
                len(unverified), ", ".join(unverified[:4]) + (", ..." if len(unverified) > 4 else ""))
        self.verdict(label, "FAILS" if over or unverified else "HOLDS", describe + ": " + detail)

    def peer_items(self, key_type, peer, max_n=None):
        return [("%s n=%s" % (key_type, size_label(n)), self.get(self.ours, key_type, n),
                 self.get(peer, key_type, n))
                for n in self.sizes(key_type, self.ours) if max_n is None or n <= max_n]

    def check_targets(self):
        ours = self.ours
        self.ratio_target("(1)", self.peer_items("u32", "cub_radix"), 1.0,
                          "u32 no slower than CUB radix sort at every n")
        self.ratio_target("(1)", self.peer_items("u32", "cub_merge"), 1.0,
                          "u32 no slower than CUB merge sort at every n")
        for n, limit in sorted(U32_MAX_MS.items()):
            row = self.get(ours, "u32", n)
            describe = "u32 n=%s in at most %.2f ms" % (size_label(n), limit)
            if row is None:
                self.verdict("(1)", "NO DATA", describe + ": no result")
            else:
                holds = row.verified and row.median_ms <= limit
                self.verdict("(1)", "HOLDS" if holds else "FAILS", "%s: %.4f ms (median)%s" % (
                    describe, row.median_ms, "" if row.verified else ", UNVERIFIED"))

        self.ratio_target("(2)", self.peer_items("pairs", "cub_radix"), PAIRS_OVER_RADIX_MAX,
                          "pairs at most %.2fx CUB radix sort of pairs at every n" % PAIRS_OVER_RADIX_MAX)
        items = [("pairs/u32 n=%s" % size_label(n), self.get(ours, "pairs", n), self.get(ours, "u32", n))
                 for n in self.sizes("pairs", ours)]
        self.ratio_target("(2)", items, PAIRS_OVER_KEYS_MAX,
                          "pairs at most %.1fx ours u32 time at each n" % PAIRS_OVER_KEYS_MAX)
        self.ratio_target("(2)", self.peer_items("u64", "cub_radix"), 1.0,
                          "u64 no slower than CUB radix sort of u64 at every n")

        cliffs = []
        for key_type in self.types():
            for n in self.sizes(key_type, ours):
                if n & (n - 1) == 0 and n > 1:
                    cliffs.append(("%s %s vs %s" % (key_type, size_label(n + 1), size_label(n)),
                                   self.get(ours, key_type, n + 1), self.get(ours, key_type, n)))
        self.ratio_target("(e)", cliffs, CLIFF_MAX,
                          "no power-of-two cliff: time(2^k+1) <= %.2f x time(2^k), every type"
                          % CLIFF_MAX)

    # -- output ---------------------------------------------------------------------------------

    def render(self, paths):
        self.lines.append("# bitonic vs CUB\n")
        self.lines.append("Sources: %s. Ours is impl `%s`. Times are GPU medians in ms; "
                          "ratios above 1 (ours slower) are bold; (!) marks output that did not "
                          "verify; (clock) a row measured while the SM clock was low (stability.py). "
                          "Repeated rows give their median.\n" % (", ".join("`%s`" % p for p in paths), self.ours))
        if not any(impl == self.ours for (impl, _, _) in self.results):
            warn("no rows with impl %s: the tables have no 'ours' column data" % self.ours)
        for key_type in self.types():
            self.table(key_type)
        self.check_targets()
        self.lines.append("## Targets\n")
        self.lines.append("| target | verdict | detail |")
        self.lines.append("|---|---|---|")
        for label, status, detail in self.verdicts:
            self.lines.append("| %s | %s | %s |" % (label, status, detail))
        self.lines.append("")
        return "\n".join(self.lines)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Compare bitonic with CUB from benchmark CSV files and check the targets.")
    parser.add_argument("csv_files", nargs="+", metavar="FILE.csv",
                        help="impl,type,n,median_ms,min_ms,runs,verified lines; a later file's "
                             "row replaces an earlier one for the same impl, type and n")
    parser.add_argument("--ours", default="bitonic",
                        help="impl name of our library in the CSV (default: bitonic)")
    parser.add_argument("--out", metavar="FILE.md", help="also write the report to this file")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if any target FAILS (NO DATA does not count)")
    args = parser.parse_args(argv)

    results = read_results(args.csv_files)
    if not results:
        print("compare.py: no result rows in %s" % ", ".join(args.csv_files), file=sys.stderr)
        return 2
    report = Report(results, args.ours)
    text = report.render(args.csv_files)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
        warn("wrote %s" % args.out)
    failed = any(status == "FAILS" for (_, status, _) in report.verdicts)
    return 1 if args.strict and failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
