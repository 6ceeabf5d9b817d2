#!/usr/bin/env bash
# skelcast's own speed (issue 8), from one command:
#   bench/run.sh [BUILD_DIR] [--reps N] [--quick] [--scaling]
# BUILD_DIR defaults to ./build (configured and built as in the README). Prints:
#   1. the machine (nproc, lscpu model name, load average) and the commit;
#      the load average again at the end;
#   2. the Google Benchmark programs (bench/bench.cpp), N repetitions each, as
#      median / mean / stddev (--quick: one short run, as ctest does);
#   3. one whole process: `skelcast batch bench/suite.json` (the bundled suite,
#      examples/*.c skeletonized by Clang included) on four GPU specs (h100,
#      a100, v100, c1060) with -j 2 (the machine's two cores), N times: the
#      median wall time and the peak RSS (/usr/bin/time -v);
#   4. inputs per second of `skelcast batch` over C inputs (the Clang parse is
#      most of it) at -j 1, 2 and 4, N times each: the median wall time and
#      inputs/s per -j, on examples/*.c and validation/c/*.c (always), and on
#      PolyBench/C 4.2.1 when it is found (POLYBENCH_DIR, default
#      /work/suites/MatthiasJReisinger+PolyBenchC-4.2.1; skipped with a
#      message otherwise: it is not part of this repository); --scaling runs
#      only this step (after step 1), and needs only the skelcast binary;
#   5. the 3-D loop spaces of bench/skeletons/: wall time and peak RSS of one
#      `skelcast project` each on h100 (median of N), with layouts explored/pruned;
#   6. an indexed repeat whose subscripts use / and % (bench/repeat/blocked_lu.skel,
#      a blocked LU's interior update) at S = 256, 512 and 1024: wall time and
#      peak RSS of one `skelcast project` on h100 (median of N).
# Timings are medians because these machines are shared and noisy; nothing here
# passes or fails on time. docs/performance.md records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build reps=5 quick=0 only_scaling=0
while (($#)); do
  case $1 in
    --reps) reps=$2; shift ;;
    --quick) quick=1; reps=1 ;;
    --scaling) only_scaling=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) build=$1 ;;
  esac
  shift
done
bin=$build/skelcast bench=$build/bench/skelcast_bench
for f in "$bin" $( ((only_scaling)) || echo "$bench"); do
  [ -x "$f" ] || { echo "run.sh: $f not found; build first (cmake --build $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is needed (Debian package 'time')" >&2; exit 2; }
specs=(h100 a100 v100 c1060)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "== machine"
echo "nproc: $(nproc)"
echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo

# One process: its wall seconds and peak RSS (KB) to the file $1, its CPU
# seconds (user + system) to $1.cpu (its output to $1.stdout); returns its exit status.
timed() {
  local out=$1 rc=0; shift
  /usr/bin/time -v "$@" >"$out.stdout" 2>"$out.time" || rc=$?
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for (i=1;i<=n;i++) s=s*60+t[i]; w=s}
              /Maximum resident set size/ {m=$2} END {print w, m}' "$out.time" >"$out"
  awk -F': ' '/(User|System) time \(seconds\)/ {c+=$2} END {print c}' "$out.time" >"$out.cpu"
  return "$rc"
}

if ((!only_scaling)); then
echo "== Google Benchmark (bench/bench.cpp), CPU time per iteration"
if ((quick)); then
  "$bench" --benchmark_min_time=0.01 --benchmark_counters_tabular=true
else
  "$bench" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
    --benchmark_counters_tabular=true
fi
echo


echo "== whole process: skelcast batch bench/suite.json (${#specs[@]} specs, -j 2), the Clang parse included"
# One `skelcast batch` process runs the bundled suite (the paper's skeletons,
# the validation kernels and examples/*.c through the skeletonizer) on four
# specs with two threads (the machine's two cores). Its wall time includes
# reading and skeletonizing every input (in parallel too), projecting every
# (kernel, spec) and writing the four reports.
hw=$(IFS=,; echo "${specs[*]}")
walls=() rss=0
for ((r = 0; r < reps; ++r)); do
  timed "$work/suite.$r" "$bin" batch bench/suite.json --hw "$hw" -j 2 --out "$work/out.$r" ||
    { echo "run.sh: skelcast batch failed:" >&2; cat "$work/suite.$r.time" >&2; exit 1; }
  read -r w m <"$work/suite.$r"
  walls+=("$w")
  ((m > rss)) && rss=$m
done
sed -n 1p "$work/suite.0.stdout" # the summary: benchmarks, kernels, projections, failures
printf 'suite wall time: median %.3f s of %d runs (%s s)\n' "$(printf '%s\n' "${walls[@]}" | median)" \
  "$reps" "$(printf '%s ' "${walls[@]}" | sed 's/ $//')"
echo "peak RSS: $((rss / 1024)) MB ($rss KB)"
echo

fi # ((!only_scaling))

# A manifest of C inputs: "name<TAB>input<TAB>json args" lines on stdin.
c_manifest() {
  printf '{"schema_version": 1, "benchmarks": [\n'
  local sep=""
  while IFS=$'\t' read -r name input args; do
    printf '%s  {"name": "%s", "input": "%s"%s}' "$sep" "$name" "$input" "${args:+, \"args\": $args}"
    sep=$',\n'
  done
  printf '\n]}\n'
}

# Inputs per second of `skelcast batch MANIFEST --hw h100 -j J` for J = 1, 2, 4:
# the median wall time of N runs each (one GPU, so that the Clang parse of the C
# inputs is what the threads share out).
scaling() {
  local label=$1 manifest=$2 inputs base=""
  inputs=$(grep -c '"input"' "$manifest")
  printf '%-34s %6s %3s %16s %10s %8s %15s\n' suite inputs -j "median wall (s)" "inputs/s" "vs -j 1" \
    "median CPU (s)"
  for j in 1 2 4; do
    local ws=() cs=() m
    for ((r = 0; r < reps; ++r)); do
      # Failing inputs (exit code 1) are timed as the others: they are parsed too.
      timed "$work/scale" "$bin" batch "$manifest" --hw h100 -j "$j" -q --out "$work/scale.out" || true
      ws+=("$(cut -d' ' -f1 "$work/scale")")
      cs+=("$(cat "$work/scale.cpu")")
    done
    m=$(printf '%s\n' "${ws[@]}" | median)
    [ -z "$base" ] && base=$m
    printf '%-34s %6d %3d %16.3f %10.2f %7.2fx %15.2f\n' "$label" "$inputs" "$j" "$m" \
      "$(awk -v n="$inputs" -v w="$m" 'BEGIN {print (w > 0 ? n / w : 0)}')" \
      "$(awk -v b="$base" -v w="$m" 'BEGIN {print (w > 0 ? b / w : 0)}')" \
      "$(printf '%s\n' "${cs[@]}" | median)"
  done
  sed -n 1p "$work/scale.stdout" # the summary of the last run: benchmarks, kernels, failures
}

echo "== inputs per second: skelcast batch over C inputs at -j 1, 2, 4 (h100; median of $reps)"
echo "(this machine has $(nproc) cores: above -j $(nproc) no gain is to be expected)"
# In the repository, always: examples/*.c and validation/c/*.c, each read with no option.
for f in examples/*.c validation/c/*.c; do
  printf '%s\t%s\t\n' "$(dirname "$f" | tr / _)_$(basename "$f" .c)" "$PWD/$f"
done | c_manifest >"$work/repo_c.json"
scaling "examples/*.c, validation/c/*.c" "$work/repo_c.json"
# PolyBench/C 4.2.1, when it is there (not part of this repository), as its
# Makefiles build it: -I utilities -I <the kernel's directory> -DLARGE_DATASET.
poly=${POLYBENCH_DIR:-/work/suites/MatthiasJReisinger+PolyBenchC-4.2.1}
if [ -f "$poly/utilities/polybench.h" ]; then
  (cd "$poly" && find . -name '*.c' ! -name '*.orig.c' ! -path './utilities/*' | sort) |
    while read -r f; do
      d=$(dirname "$f")
      printf '%s\t%s\t["-I", "%s", "-I", "%s", "-DLARGE_DATASET"]\n' "$(basename "$f" .c)" \
        "$poly/${f#./}" "$poly/utilities" "$poly/${d#./}"
    done | c_manifest >"$work/polybench.json"
  scaling "PolyBench/C 4.2.1" "$work/polybench.json"
else
  echo "PolyBench/C 4.2.1: skipped, not found at $poly (set POLYBENCH_DIR to its checkout)"
fi
echo

if ((only_scaling)); then
  echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

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
echo

echo "== an indexed repeat with subscripts of / and % (bench/repeat/blocked_lu.skel), one process each on h100"
for size in 256 512 1024; do
  sed "s/^#define S .*/#define S $size/" bench/repeat/blocked_lu.skel > "$work/blocked_lu_$size.skel"
  ws=()
  for ((r = 0; r < reps; ++r)); do
    timed "$work/one" "$bin" project "$work/blocked_lu_$size.skel" --hw h100
    ws+=("$(cut -d' ' -f1 "$work/one")")
  done
  printf 'S = %-5d (%4d passes of offset) wall median %.3f s, peak RSS %d MB\n' "$size" "$((size / 16 - 1))" \
    "$(printf '%s\n' "${ws[@]}" | median)" "$(($(cut -d' ' -f2 "$work/one") / 1024))"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
