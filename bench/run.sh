#!/usr/bin/env bash
# skelcast's own speed (issue 8), from one command:
#   bench/run.sh [BUILD_DIR] [--reps N] [--quick]
# BUILD_DIR defaults to ./build (configured and built as in the README). Prints:
#   1. the machine (nproc, lscpu model name) and the commit;
#   2. the Google Benchmark programs (bench/bench.cpp), N repetitions each, as
#      median / mean / stddev (--quick: one short run, as ctest does);
#   3. whole processes: every bundled skeleton (skeletons/*.skel) projected on
#      four GPU specs (h100, a100, v100, c1060), two processes at a time (the
#      machine's two cores), N times: the median wall time of the whole suite and
#      the largest peak RSS of any process (/usr/bin/time -v);
#   4. the 3-D loop spaces of bench/skeletons/: wall time and peak RSS of one
#      `skelcast project` each on h100 (median of N), with layouts explored/pruned.
# Timings are medians because these machines are shared and noisy; nothing here
# passes or fails on time. docs/performance.md records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build reps=5 quick=0
while (($#)); do
  case $1 in
    --reps) reps=$2; shift ;;
    --quick) quick=1; reps=1 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) build=$1 ;;
  esac
  shift
done
bin=$build/skelcast bench=$build/bench/skelcast_bench
for f in "$bin" "$bench"; do
  [ -x "$f" ] || { echo "run.sh: $f not found; build first (cmake --build $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is needed (Debian package 'time')" >&2; exit 2; }
specs=(h100 a100 v100 c1060)
skels=(skeletons/*.skel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "== machine"
echo "nproc: $(nproc)"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo

echo "== Google Benchmark (bench/bench.cpp), CPU time per iteration"
if ((quick)); then
  "$bench" --benchmark_min_time=0.01 --benchmark_counters_tabular=true
else
  "$bench" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
    --benchmark_counters_tabular=true
fi
echo

# One `skelcast project` process: its wall seconds and peak RSS (KB) to $2.
timed() {
  local out=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$out.time"
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for (i=1;i<=n;i++) s=s*60+t[i]; w=s}
              /Maximum resident set size/ {m=$2} END {print w, m}' "$out.time" >"$out"
}
export -f timed

echo "== whole processes: ${#skels[@]} bundled skeletons x ${#specs[@]} specs, 2 at a time"
# ---------------------------------------------------------------------------
# SWITCH TO `skelcast batch` AFTER THE MERGE: `skelcast batch` is written on
# another branch (docs/batch.md there). Until it is here, the suite is one
# `skelcast project` process per spec (all bundled skeletons in it), two
# processes at a time. After the merge, replace the printf | xargs pipeline below
# by one batch process with two threads (the directory skeletons/ is the suite),
#   timed "$work/suite.$r.batch" "$bin" batch skeletons --hw h100,a100,v100,c1060 \
#     -j 2 --out "$work/out.$r"
# and read its peak RSS from "$work/suite.$r.batch" instead of the four files.
# ---------------------------------------------------------------------------
walls=() rss=0
for ((r = 0; r < reps; ++r)); do
  start=$(date +%s.%N)
  printf '%s\n' "${specs[@]}" |
    xargs -P 2 -I{} bash -c 'timed "'"$work"'/suite.'"$r"'.{}" "'"$bin"'" project '"${skels[*]}"' --hw {}'
  end=$(date +%s.%N)
  walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
  for s in "${specs[@]}"; do
    m=$(cut -d' ' -f2 "$work/suite.$r.$s")
    ((m > rss)) && rss=$m
  done
done
printf 'suite wall time: median %.3f s of %d runs (%s s)\n' "$(printf '%s\n' "${walls[@]}" | median)" \
  "$reps" "$(printf '%s ' "${walls[@]}" | sed 's/ $//')"
echo "peak RSS of any process: $((rss / 1024)) MB ($rss KB)"
echo

echo "== 3-D loop spaces (bench/skeletons/), one process each on h100"
for f in bench/skeletons/*.skel; do
  ws=()
  for ((r = 0; r < reps; ++r)); do
    timed "$work/one" "$bin" project "$f" --hw h100
    ws+=("$(cut -d' ' -f1 "$work/one")")
  done
  counts=$("$bin" project "$f" --hw h100 --top 1 --format json |
    sed -n 's/.*"layouts_\(explored\|pruned\)": \([0-9]*\).*/\2/p' | paste -sd' ')
  printf '%-40s wall median %.3f s, peak RSS %d MB, layouts explored/pruned: %s\n' "$f" \
    "$(printf '%s\n' "${ws[@]}" | median)" "$(($(cut -d' ' -f2 "$work/one") / 1024))" "${counts/ //}"
done
