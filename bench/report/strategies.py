#!/usr/bin/env python3
"""strategies.py: the three ways bitonic goes beyond one tile, side by side.

Reads the CSV lines `bitonic bench --csv` prints (compare.py's reader: headers in the middle
of concatenated files are skipped, a later row replaces an earlier one) and prints, for each key
type, a markdown table of the GPU medians of impl `bitonic` (the merge), `bitonic_network` and
`bitonic_transpose` at every size, with the transpose's time over the network's and the merge's.
A cell is `-` where a strategy has no row at that size.

    python3 bench/report/strategies.py out/bitonic.csv [--out strategies.md]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import keys_per_second, read_results, size_label  # noqa: E402

STRATEGIES = [("bitonic", "merge"), ("bitonic_network", "network"), ("bitonic_transpose", "transpose")]


def ms(row):
    return "%.4f" % row.median_ms if row else "-"


def ratio(mine, other):
    return "%.2f" % (mine.median_ms / other.median_ms) if mine and other else "-"


def render(results):
    lines = []
    types = sorted({t for (impl, t, _) in results if impl in dict(STRATEGIES)})
    for key_type in types:
        sizes = sorted({n for (impl, t, n) in results if t == key_type and impl in dict(STRATEGIES)})
        lines.append("## %s\n" % key_type)
        lines.append("| n | size | merge ms | network ms | transpose ms | transpose/network | "
                     "transpose/merge | transpose G keys/s |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes:
            merge, network, transpose = (results.get((impl, key_type, n)) for impl, _ in STRATEGIES)
            rate = "%.2f" % (keys_per_second(n, transpose) / 1e9) if transpose else "-"
            wrong = [name for (impl, name) in STRATEGIES
                     if results.get((impl, key_type, n)) and not results[(impl, key_type, n)].verified]
            cells = [str(n), size_label(n), ms(merge), ms(network), ms(transpose), ratio(transpose, network),
                     ratio(transpose, merge), rate + (" (WRONG: %s)" % ", ".join(wrong) if wrong else "")]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description="The merge, the network and the transpose side by side.")
    parser.add_argument("csv_files", nargs="+", metavar="FILE.csv")
    parser.add_argument("--out", metavar="FILE.md", help="also write the tables to this file")
    args = parser.parse_args(argv)
    results = read_results(args.csv_files)
    text = render(results)
    if not text:
        print("strategies.py: no rows of bitonic, bitonic_network or bitonic_transpose", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
