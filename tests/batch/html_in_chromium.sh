#!/usr/bin/env bash
# The HTML report in a real browser: `skelcast batch` on bench/suite.json, then
# headless Chromium loads report.html and the test checks that every chart was
# laid out and drawn (non-empty SVG with rectangles and text of non-zero size),
# that its inline script sorts and filters the tables, and that the page
# fetched nothing; then the same for `batch --sweep`'s page, whose sweep plot
# must be drawn too (the screenshot is of that page: the program table, the
# rooflines and the sweep). Run from the repository root:
#   tests/batch/html_in_chromium.sh SKELCAST [--screenshot docs/report.png]
# Exit 77 (ctest's SKIP_RETURN_CODE) only when chromium is not installed.
set -u
bin=$1
abs_bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
shift
shot=""
if [ "${1:-}" = "--screenshot" ]; then shot=$2; fi

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium is not installed (scripts/bootstrap.sh installs Debian's 'chromium')"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() {
  # A fresh profile per run; nothing that talks to the network.
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d -p "$tmp")" "$@" 2>"$tmp/chromium.log"
}

if ! "$bin" batch bench/suite.json --hw h100,a100 --out "$tmp/out" -j 2 >"$tmp/batch.log" 2>&1; then
  cat "$tmp/batch.log"; echo "FAIL: skelcast batch failed"; exit 1
fi
# A sweep of two sizes of the benchmarks that have an N, with and without a CPU time.
cat >"$tmp/sweep.json" <<JSON
{"schema_version": 1, "benchmarks": [
  {"name": "matmul", "input": "$(pwd)/skeletons/matmul.skel", "cpu_ms": 232.2},
  {"name": "streaming", "input": "$(pwd)/validation/skeletons/streaming_1M.skel", "cpu_ms": 0.47},
  {"name": "compute_heavy", "input": "$(pwd)/validation/skeletons/compute_heavy_1M.skel", "cpu_ms": 442.3},
  {"name": "transpose", "input": "$(pwd)/validation/skeletons/transpose_1024.skel"}]}
JSON
if ! (cd "$tmp" && "$abs_bin" batch sweep.json --hw h100,a100 --sweep N=256..4096:log:4 --out sweep >sweep.log 2>&1); then
  cat "$tmp/sweep.log"; echo "FAIL: skelcast batch --sweep failed"; exit 1
fi
fail=0
for html in "$tmp/out/report.html" "$tmp/sweep/report.html"; do
  if grep -q -i '<script[^>]*src' "$html" || grep -q -i '<link ' "$html"; then echo "FAIL: $html loads a script or a file"; fail=1; fi
  if [ "$(grep -c -i '<script' "$html")" -ne 1 ]; then echo "FAIL: $html: expected its one inline script"; fail=1; fi
done
html=$tmp/out/report.html

# A test-only copy with a probe at the end of the body: it measures what the
# browser laid out and writes it into the DOM, which --dump-dom prints.
probe='<script>
(function () {
  var out = [];
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var drawn = function (sel) {
      var n = 0;
      svg.querySelectorAll(sel).forEach(function (e) {
        var b = e.getBoundingClientRect();
        if (b.width > 0 && b.height > 0) n++;
      });
      return n;
    };
    out.push("CHART " + svg.getAttribute("class").replace("chart ", "") + " " +
             Math.round(box.width) + "x" + Math.round(box.height) + " rects=" + drawn("rect") +
             "/" + svg.querySelectorAll("rect").length + " texts=" + drawn("text") + "/" +
             svg.querySelectorAll("text").length);
  });
  out.push("RESOURCES " + performance.getEntriesByType("resource").length);
  // the script of the page: a click on "total (ms)" sorts the program table, the filter hides rows
  var t = document.getElementById("programs");
  if (t) {
    var th = t.querySelectorAll("thead th")[6];
    th.click();
    var vals = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[6].getAttribute("data-v"); })
                   .filter(function (v) { return v !== null && v !== ""; }).map(parseFloat);
    var sorted = vals.every(function (v, i) { return i === 0 || vals[i - 1] <= v; });
    out.push("SORTED " + (sorted && vals.length > 1 ? "yes" : "no") + " " + vals.length);
    var f = document.querySelector("input.filter[data-table=programs]");
    f.value = "a100";
    f.dispatchEvent(new Event("input"));
    var shown = Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return r.style.display !== "none"; }).length;
    out.push("FILTERED " + shown + " of " + t.tBodies[0].rows.length);
    f.value = "";
    f.dispatchEvent(new Event("input"));
  }
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>'
probe() { # $1: the page, $2: the probe's output
  PROBE="$probe" awk '/<\/body>/ { print ENVIRON["PROBE"] } { print }' "$1" >"$tmp/probed.html"
  chrome --dump-dom "file://$tmp/probed.html" >"$tmp/dom.html"
  sed -n '/<pre id="probe">/,/<\/pre>/p' "$tmp/dom.html" | sed 's/<[^>]*>//g' >"$2"
  if [ ! -s "$2" ]; then
    echo "FAIL: the probe did not run on $1"; cat "$tmp/chromium.log"; exit 1
  fi
  cat "$2"
}
probe "$html" "$tmp/probe.txt"
probe "$tmp/sweep/report.html" "$tmp/probe_sweep.txt"
for kind in sweep roofline speedup; do
  if ! grep -q "^CHART $kind " "$tmp/probe_sweep.txt"; then echo "FAIL: no '$kind' chart on the sweep's page"; fail=1; fi
done

kernels=$(grep -c '"layouts_explored"' "$tmp/out/report.json")
kernels=$((kernels / 2)) # two GPUs per kernel
for kind in speedup split layouts roofline; do
  n=$(grep -c "^CHART $kind " "$tmp/probe.txt")
  if [ "$n" -eq 0 ]; then echo "FAIL: no '$kind' chart"; fail=1; fi
done
n=$(grep -c '^CHART roofline ' "$tmp/probe.txt")
if [ "$n" -ne 2 ]; then echo "FAIL: $n rooflines, expected one per GPU"; fail=1; fi
for p in "$tmp/probe.txt" "$tmp/probe_sweep.txt"; do
  if ! grep -q '^SORTED yes' "$p"; then echo "FAIL: a click on 'total (ms)' did not sort the program table ($p)"; fail=1; fi
  rows=$(sed -n 's/^FILTERED [0-9]* of \([0-9]*\)$/\1/p' "$p")
  if ! grep -q "^FILTERED $((rows / 2)) of $rows\$" "$p"; then echo "FAIL: filtering 'a100' did not leave half the rows ($p)"; fail=1; fi
done
n=$(grep -c '^CHART layouts ' "$tmp/probe.txt")
if [ "$n" -ne "$kernels" ]; then echo "FAIL: $n layout charts for $kernels kernels"; fail=1; fi
# Every chart has a size and every rectangle and label of it was drawn.
while read -r _ kind size rects texts; do
  w=${size%x*} h=${size#*x}
  r=${rects#rects=} t=${texts#texts=}
  if [ "$w" -le 0 ] || [ "$h" -le 0 ]; then echo "FAIL: chart $kind is ${size}"; fail=1; fi
  if [ "${r%/*}" -eq 0 ] || [ "${r%/*}" -ne "${r#*/}" ]; then echo "FAIL: chart $kind: $rects drawn"; fail=1; fi
  if [ "${t%/*}" -eq 0 ] || [ "${t%/*}" -ne "${t#*/}" ]; then echo "FAIL: chart $kind: $texts drawn"; fail=1; fi
done < <(grep -h '^CHART ' "$tmp/probe.txt" "$tmp/probe_sweep.txt" | grep -v '^CHART roofline\|^CHART sweep')
# rooflines and the sweep plot draw circles and lines, not always rectangles: their texts
while read -r _ kind size rects texts; do
  w=${size%x*} h=${size#*x} t=${texts#texts=}
  if [ "$w" -le 0 ] || [ "$h" -le 0 ]; then echo "FAIL: chart $kind is ${size}"; fail=1; fi
  if [ "${t%/*}" -eq 0 ] || [ "${t%/*}" -ne "${t#*/}" ]; then echo "FAIL: chart $kind: $texts drawn"; fail=1; fi
done < <(grep -h '^CHART roofline\|^CHART sweep' "$tmp/probe.txt" "$tmp/probe_sweep.txt")
for p in "$tmp/probe.txt" "$tmp/probe_sweep.txt"; do
  if ! grep -q '^RESOURCES 0$' "$p"; then echo "FAIL: the page fetched resources ($p)"; fail=1; fi
done

if [ -n "$shot" ]; then
  chrome --screenshot="$tmp/shot.png" --window-size=1200,2900 --hide-scrollbars "file://$tmp/sweep/report.html" >/dev/null
  if [ -s "$tmp/shot.png" ]; then cp "$tmp/shot.png" "$shot" && echo "screenshot: $shot"; else
    echo "FAIL: no screenshot"; fail=1; fi
fi
[ $fail -eq 0 ] && echo "ok: report.html draws its charts in $("$browser" --version 2>/dev/null | head -n 1)"
exit $fail
