#!/bin/sh
# plot.sh: draws sorted keys per second against n (log-log), one line per impl, for one key type,
# from benchmark CSV files (impl,type,n,median_ms,min_ms,runs,verified), into a PNG via gnuplot.
#   bench/report/plot.sh [-t TYPE] [-o OUT.png] [-p] FILE.csv [FILE.csv ...]
#     -t TYPE    key type: u32 (default), pairs, u64 or f32
#     -o OUT     output PNG (default: bench-TYPE.png)
#     -p         powers of two only (leave out 2^k+1 and 1.5*2^k)
# A later row for the same impl and n replaces an earlier one, as in compare.py. Unverified rows
# (verified=0) are left out, with a warning.
set -eu

usage() {
  sed -n '4,7p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

key_type=u32
output=
pow2_only=0
while getopts t:o:ph option; do
  case $option in
    t) key_type=$OPTARG ;;
    o) output=$OPTARG ;;
    p) pow2_only=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
output=${output:-bench-$key_type.png}

if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot not found; install it (Debian/Ubuntu: apt-get install gnuplot-nox)" >&2
  exit 1
fi
for file in "$@"; do
  [ -r "$file" ] || { echo "plot.sh: cannot read $file" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# One file per impl in $work, "n gkeys_per_s" lines sorted by n.
awk -F, -v type="$key_type" -v pow2_only="$pow2_only" -v dir="$work" '
  function is_pow2(n,   k) { k = int(log(n) / log(2) + 0.5); return 2 ^ k == n }
  /^[ \t]*(#|$)/ || $1 == "impl" { next }
  NF != 7 { printf "plot.sh: %s:%d: skipped, want 7 columns\n", FILENAME, FNR > "/dev/stderr"; next }
  $2 != type { next }
  pow2_only && !is_pow2($3 + 0) { next }
  $7 != 1 {
    printf "plot.sh: %s:%d: skipped, output not verified: %s\n", FILENAME, FNR, $0 > "/dev/stderr"
    next
  }
  $4 + 0 > 0 { rate[$1, $3 + 0] = ($3 + 0) / ($4 * 1e6); impls[$1] = 1 }
  END {
    for (key in rate) {
      split(key, part, SUBSEP)
      printf "%d %.6g\n", part[2], rate[key] > (dir "/" part[1] ".dat")
    }
  }
' "$@"

set -- "$work"/*.dat
if [ ! -e "$1" ]; then
  echo "plot.sh: no verified rows of type $key_type in the input" >&2
  exit 1
fi

# Ours (bitonic*) first, then the peers in name order (globs expand sorted).
plots=
for pass in ours peers; do
  for data in "$work"/*.dat; do
    impl=$(basename "$data" .dat)
    case $pass:$impl in
      ours:bitonic* | peers:*) ;;
      *) continue ;;
    esac
    case $pass:$impl in peers:bitonic*) continue ;; esac
    sort -n "$data" -o "$data"
    plots="${plots:+$plots, }'$data' using 1:2 with linespoints title '$impl' noenhanced"
  done
done

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
  terminal="pngcairo size 1000,650 font ',11'"
else
  terminal="png size 1000,650"
fi
gnuplot <<GNUPLOT
set terminal $terminal
set output '$output'
set title "$key_type: keys per second against n (n / median time)" noenhanced
set logscale x 2
set logscale y 10
set format x "2^{%L}"
set xlabel "n (keys)"
set ylabel "G keys/s"
set grid xtics ytics mytics
set key top left
plot $plots
GNUPLOT
echo "plot.sh: wrote $output" >&2
