#!/usr/bin/env bash
# The HTML report in a real browser: `skelcast batch` on bench/suite.json, then
# headless Chromium loads report.html and the test checks that every chart was
# laid out and drawn (non-empty SVG with rectangles and text of non-zero size)
# and that the page fetched nothing. Run from the repository root:
#   tests/batch/html_in_chromium.sh SKELCAST [--screenshot docs/report.png]
# Exit 77 (ctest's SKIP_RETURN_CODE) only when chromium is not installed.
set -u
bin=$1
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
html=$tmp/out/report.html
fail=0
if grep -q -i '<script' "$html"; then echo "FAIL: report.html holds a script"; fail=1; fi

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
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = out.join("\n");
  document.body.appendChild(pre);
})();
</script>'
PROBE="$probe" awk '/<\/body>/ { print ENVIRON["PROBE"] } { print }' "$html" >"$tmp/probed.html"
chrome --dump-dom "file://$tmp/probed.html" >"$tmp/dom.html"
sed -n '/<pre id="probe">/,/<\/pre>/p' "$tmp/dom.html" | sed 's/<[^>]*>//g' >"$tmp/probe.txt"
if [ ! -s "$tmp/probe.txt" ]; then
  echo "FAIL: the probe did not run"; cat "$tmp/chromium.log"; exit 1
fi
cat "$tmp/probe.txt"

kernels=$(grep -c '"layouts_explored"' "$tmp/out/report.json")
kernels=$((kernels / 2)) # two GPUs per kernel
for kind in speedup split layouts; do
  n=$(grep -c "^CHART $kind " "$tmp/probe.txt")
  if [ "$n" -eq 0 ]; then echo "FAIL: no '$kind' chart"; fail=1; fi
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
done < <(grep '^CHART ' "$tmp/probe.txt")
if ! grep -q '^RESOURCES 0$' "$tmp/probe.txt"; then echo "FAIL: the page fetched resources"; fail=1; fi

if [ -n "$shot" ]; then
  chrome --screenshot="$tmp/shot.png" --window-size=1200,1600 --hide-scrollbars "file://$html" >/dev/null
  if [ -s "$tmp/shot.png" ]; then cp "$tmp/shot.png" "$shot" && echo "screenshot: $shot"; else
    echo "FAIL: no screenshot"; fail=1; fi
fi
[ $fail -eq 0 ] && echo "ok: report.html draws its charts in $("$browser" --version 2>/dev/null | head -n 1)"
exit $fail
