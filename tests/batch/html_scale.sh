#!/usr/bin/env bash
# report.html at 400 benchmarks (issue 20, item 4): a manifest that repeats the
# bundled skeletons under 400 names, projected on two GPUs; the page must stay
# under 2 MB, hold a program row per benchmark and GPU (those without a CPU time
# marked), link every summary row to a section that exists, show each repeated
# warning once with its count, and cap its bar charts. Bash only (CI has no
# python3). Run from the repository root:
#   tests/batch/html_scale.sh SKELCAST
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(pwd)
inputs=(skeletons/matmul.skel skeletons/hotspot.skel validation/skeletons/streaming_1M.skel
        validation/skeletons/transpose_1024.skel validation/skeletons/compute_heavy_1M.skel
        examples/branch.c)
{
  echo '{"schema_version": 1, "benchmarks": ['
  for i in $(seq 0 399); do
    in=${inputs[$((i % ${#inputs[@]}))]}
    cpu=""
    [ $((i % 3)) -ne 0 ] && cpu=", \"cpu_ms\": $((i + 1)).5"
    sep=","; [ "$i" -eq 399 ] && sep=""
    echo "  {\"name\": \"b$i\", \"input\": \"$root/$in\"$cpu}$sep"
  done
  echo ']}'
} >"$tmp/suite.json"
start=$(date +%s)
if ! "$bin" batch "$tmp/suite.json" --hw h100,a100 --top 2 --out "$tmp/out" -j 2 >"$tmp/log" 2>&1; then
  cat "$tmp/log"; echo "FAIL: skelcast batch failed"; exit 1
fi
html=$tmp/out/report.html
size=$(wc -c <"$html")
fail=0
echo "report.html at 400 benchmarks on 2 GPUs: $size bytes ($(( $(date +%s) - start )) s)"
if [ "$size" -ge 2000000 ]; then echo "FAIL: report.html is $size bytes, expected under 2 MB"; fail=1; fi
prog=$(sed -n '/<table id="programs"/,/<\/table>/p' "$html" | grep -c '^<tr>')
if [ "$prog" -ne 800 ]; then echo "FAIL: $prog program rows, expected 800 (400 benchmarks x 2 GPUs)"; fail=1; fi
nocpu=$(sed -n '/<table id="programs"/,/<\/table>/p' "$html" | grep -c 'no CPU time</td>')
if [ "$nocpu" -ne 268 ]; then echo "FAIL: $nocpu rows marked without a CPU time, expected 268 (134 x 2)"; fail=1; fi
# every link of the page points at an id of the page
for target in $(grep -o 'href="#[^"]*"' "$html" | sort -u | sed 's/href="#//; s/"$//'); do
  if ! grep -q "id=\"$target\"" "$html"; then echo "FAIL: a link to #$target, which is not on the page"; fail=1; break; fi
done
# branch.c's warning comes from 66 benchmarks: shown once, with its count
w=$(grep -c 'class="warning"' "$html")
if [ "$w" -ne 1 ]; then echo "FAIL: $w warning lines, expected the one warning once"; fail=1; fi
if ! grep -q '&times;66</span>' "$html"; then echo "FAIL: the warning's count (66 benchmarks) is not shown"; fail=1; fi
if ! grep -q 'the 20 highest and 20 lowest of 266 benchmarks' "$html"; then
  echo "FAIL: the speedup chart does not say it shows 40 of 266"; fail=1; fi
n=$(grep -c '<svg class="chart roofline' "$html")
if [ "$n" -ne 2 ]; then echo "FAIL: $n rooflines, expected one per GPU"; fail=1; fi
if grep -q '<script[^>]*src=' "$html" || grep -q '<link ' "$html"; then echo "FAIL: the page loads something"; fail=1; fi
[ $fail -eq 0 ] && echo "ok: report.html of 400 benchmarks is $size bytes"
exit $fail
