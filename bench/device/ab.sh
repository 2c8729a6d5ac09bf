#!/bin/bash
# ab.sh: on a GPU machine, two or more builds of the tool side by side in one
# call, for changes no option switches (the build before a change against the
# build after it): ROUNDS rounds, each running `bitonic bench --csv` of every
# build in turn (old, new, old, new, ...: a slow spell of the machine hits each
# alike) on the same types and sizes, the SM clock sampled meanwhile; then
# the flock (`bitonic-boids --bench`, 1M and 4M boids) of every build that has
# it, alternating too. bench/device/ab_table.py writes the table: per type and
# size each build's median time over the rounds (verified rows only; rows
# measured at a low clock left out where a steady round exists) and its ratio
# to the first build's (new/old: below 1 is faster). Run from the repository
# root. Everything goes into one tarball, $OUT/ab.tar.gz (ab/ inside: ab.md,
# the rows, the clocks, flock.txt, machine.txt with each pack's PACKED.txt),
# and ab.md is printed.
#
#   BUILDS="old new" bash bench/device/ab.sh      # .pack/old.tar.xz against .pack/new.tar.xz
#
# Reads: BUILDS (required: words LABEL=SPEC or SPEC; SPEC a pack name, a pack
# tarball or a build folder, LABEL letters, digits and '_', default the pack's
# name; the first is the baseline), OPTS_<LABEL> (bench options of that build
# alone, so one build under two labels compares options:
# BUILDS="a=new b=new" OPTS_b="--tune NAME=VALUE"), BENCH_OPTS (options of
# every build's runs), DEVICE (see env.sh), ROUNDS (3), MIN_LOG (16), MAX_LOG
# (24), TYPES (u32,pairs,u64), POW2 (1: powers of two alone), E2E (1: the
# host-to-host rows too), BUDGET (seconds the whole script may take, 560: the
# flock's time is kept back from the bench's, and a run with no time left is
# skipped, and said so), RUN_TIMEOUT (seconds one bench run at most, 240), FLOCK (0:
# no flock), FLOCK_COUNTS ("1048576 4194304"), FLOCK_SEARCH (grid),
# FLOCK_ROUNDS (2), FLOCK_BUDGET (seconds of timed steps a run, 8),
# GPU_INDEX (see env.sh), OUT (default ./out).
# Exit status 1 when a run failed or a row was wrong.
set -eu
cd "$(dirname "$0")/../.."
. bench/device/env.sh
top=${OUT:-out}
out=$top/ab
rm -rf "$out"
mkdir -p "$out"
notes=$out/notes.txt
: > "$notes"
note() { echo "ab.sh: $*" | tee -a "$notes" >&2; }
[ -n "${BUILDS:-}" ] || { echo "ab.sh: BUILDS names the builds, the baseline first: BUILDS=\"old new\"" >&2; exit 2; }

labels=""
dirs=""
for word in $BUILDS; do
  case "$word" in
    *=*) label=${word%%=*} spec=${word#*=} ;;
    *) spec=$word label=$(basename "$word" .tar.xz) ;;
  esac
  label=$(echo "$label" | tr -c 'A-Za-z0-9_\n' '_')
  case " $labels " in *" $label "*) echo "ab.sh: two builds labelled $label: name them LABEL=SPEC" >&2; exit 2 ;; esac
  dir=$(unpack_build "$spec")
  [ -x "$dir/tools/bitonic/bitonic" ] || { echo "ab.sh: no tools/bitonic/bitonic in $dir" >&2; exit 2; }
  labels="$labels $label"
  dirs="$dirs $dir"
done
set -- $dirs
builds_dirs=("$@")
read -ra build_labels <<< "$labels"
[ ${#build_labels[@]} -ge 2 ] || note "one build only: the table has no ratios"
record_machine "$out/machine.txt" "${builds_dirs[@]}"
for i in "${!build_labels[@]}"; do
  echo "${build_labels[$i]}: ${builds_dirs[$i]}" >> "$out/builds.txt"
  grep '^commit:' "${builds_dirs[$i]}/PACKED.txt" 2> /dev/null | sed 's/^/  /' >> "$out/builds.txt" || true
done

min_log=${MIN_LOG:-16}
max_log=${MAX_LOG:-24}
types=${TYPES:-u32,pairs,u64}
status=0
start_sampler "$out/smi.csv"
trap stop_sampler EXIT

# The options of one build's runs: what every build gets, where it has them.
build_options() {  # build_options DIR LABEL
  local tool=$1/tools/bitonic/bitonic options="--device $DEVICE"
  if [ "${E2E:-0}" != 1 ] && has_option --no-e2e "$tool" bench; then options="$options --no-e2e"; fi
  if [ "${POW2:-0}" = 1 ] && has_option --pow2 "$tool" bench; then options="$options --pow2"; fi
  local own_name="OPTS_$2"
  echo "$options ${BENCH_OPTS:-} ${!own_name:-}"
}

# The call's time (BUDGET, env.sh): the flock's runs are kept back from the bench's.
flock_reserve=0
if [ "${FLOCK:-1}" != 0 ]; then
  flock_builds=0
  for dir in "${builds_dirs[@]}"; do [ -x "$dir/apps/boids/bitonic-boids" ] && flock_builds=$((flock_builds + 1)); done
  flock_counts=$(echo ${FLOCK_COUNTS:-1048576 4194304} | wc -w)
  flock_reserve=$(( ${FLOCK_ROUNDS:-2} * flock_counts * flock_builds * (${FLOCK_BUDGET:-8} + 12) ))
fi
pairs=""
for round in $(seq "${ROUNDS:-3}"); do
  for i in "${!build_labels[@]}"; do
    label=${build_labels[$i]} dir=${builds_dirs[$i]}
    tool=$dir/tools/bitonic/bitonic
    limit=$(limit_for "${RUN_TIMEOUT:-240}" $(( flock_reserve + 20 )))
    if [ "$limit" = 0 ]; then note "round $round, $label and after: skipped, no time left in BUDGET=${BUDGET:-560}"; break 2; fi
    options=$(build_options "$dir" "$label")
    log_option=$(batch_log_option "$tool" "$out/batch_${label}_$round.log")
    step "round $round, $label: $types, 2^$min_log..2^$max_log, $options (at most $limit s)"
    csv=$out/run_${label}_$round.csv
    start=$SECONDS
    rc=0
    # shellcheck disable=SC2086  # the options are words
    timeout "$limit" $LINE_BUFFERED "$tool" bench $options --min-log "$min_log" --max-log "$max_log" \
      --types "$types" --csv $log_option > "$csv.raw" 2>> "$out/bench_$label.err" || rc=$?
    [ $rc -eq 0 ] || { status=1; note "round $round, $label: exit $rc (124: killed after $limit s; its rows so far are kept)"; }
    echo "round $round, $label: exit $rc, $((SECONDS - start)) s" >> "$notes"
    # Each row's impl names its build (IMPL@LABEL), in the rows and the batch log alike.
    sed "/^impl,/! s/^\([^,]*\),/\1@$label,/" "$csv.raw" > "$csv" && rm -f "$csv.raw"
    if [ -n "$log_option" ] && [ -f "$out/batch_${label}_$round.log" ]; then
      sed -i "s/^\([^,]*\),/\1@$label,/" "$out/batch_${label}_$round.log"
      pairs="$pairs $csv:$out/batch_${label}_$round.log"
    fi
  done
done

# The flock of every build that has it, alternating.
flock=$out/flock.txt
: > "$flock"
if [ "${FLOCK:-1}" != 0 ]; then
  for round in $(seq "${FLOCK_ROUNDS:-2}"); do
    for count in ${FLOCK_COUNTS:-1048576 4194304}; do
      for i in "${!build_labels[@]}"; do
        label=${build_labels[$i]} dir=${builds_dirs[$i]}
        [ -x "$dir/apps/boids/bitonic-boids" ] || { [ "$round" = 1 ] && [ "$count" = "${FLOCK_COUNTS%% *}" ] &&
          note "$label has no apps/boids/bitonic-boids: no flock for it"; continue; }
        limit=$(limit_for $(( ${FLOCK_BUDGET:-8} + 60 )) 15)
        if [ "$limit" = 0 ]; then note "flock round $round, $label, $count boids: skipped, no time left"; continue; fi
        step "flock round $round, $label: $count boids (at most $limit s)"
        rc=0
        line=$(timeout "$limit" env LD_LIBRARY_PATH="$(boids_library_path "$dir")" "$dir/apps/boids/bitonic-boids" --bench \
          --count "$count" --search "${FLOCK_SEARCH:-grid}" --device "$DEVICE" --steps 200 \
          --time-budget "${FLOCK_BUDGET:-8}" --quiet 2>> "$out/flock_$label.err" | grep '^bench') || rc=$?
        [ $rc -eq 0 ] || { status=1; note "flock round $round, $label, $count boids: exit $rc"; }
        [ -n "$line" ] && echo "$label $round $line" >> "$flock"
      done
    done
  done
fi
stop_sampler

rows=""
for f in "$out"/run_*.csv; do [ -f "$f" ] && rows="$rows $f"; done
if [ -n "$pairs" ]; then
  # shellcheck disable=SC2086  # pairs is a list of words
  if python3 bench/report/stability.py --samples "$out/smi.csv" --out "$out/ab_clocked.csv" $pairs \
       > "$out/stability.txt" 2>&1; then
    rows=$out/ab_clocked.csv
  else
    note "stability.py failed: $(tail -n 1 "$out/stability.txt")"
  fi
fi
label_list=$(echo "${build_labels[@]}" | tr ' ' ',')
# shellcheck disable=SC2086
python3 bench/device/ab_table.py --labels "$label_list" --flock "$flock" $rows > "$out/ab.md" 2> "$out/ab_table.err" ||
  { status=1; note "ab_table.py: $(tail -n 1 "$out/ab_table.err")"; }
if [ "${E2E:-0}" = 1 ]; then
  # shellcheck disable=SC2086
  python3 bench/device/ab_table.py --labels "$label_list" --impl bitonic_e2e $rows >> "$out/ab.md" 2>> "$out/ab_table.err" || true
fi
if cat "$out"/run_*.csv 2> /dev/null | awk -F, '$1 != "impl" && $7 == "0"' | grep -q .; then
  status=1
  note "some rows failed their check (verified 0): left out of the table"
fi

cat "$out/builds.txt"
cat "$out/ab.md"
echo "== clocks"
tail -n 3 "$out/stability.txt" 2> /dev/null || echo "(no clock samples)"
echo "== notes"
cat "$notes"
echo "ab.sh: exit status $status"
tar -czf "$top/ab.tar.gz" -C "$top" ab && rm -rf "$out"
echo "ab.sh: $top/ab.tar.gz"
exit $status
