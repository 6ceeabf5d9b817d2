#!/usr/bin/env bash
# Partial tiles (docs/emit.md, "Folding"; docs/validation.md, "Edge blocks"):
# for each pair OLD/NAME.cu NEW/NAME.cu of programs `skelcast emit` wrote, the
# old with each task of a partial tile under its own guard, the new with the
# tasks past the end clamped to the last, this builds both (nvcc -O3
# -arch=sm_90), runs each (--repeats 30: the median of back-to-back launches,
# checked against the C nest) and, with Nsight Compute (--clock-control none,
# the fourth launch), reads how the blocks and the active cycles spread over
# the SMs.
#   skelcast emit examples/conv2d.c --layout 'block=y:1,x:32 fold=y:8,x:8 cache=filt' -o d
#   mv d/conv2d_layout.cu NEW/cv88c.cu   (the same at commit 466a410 into OLD/)
#   OUT=/path bash validation/profile_edges.sh OLD NEW
set -u -o pipefail
OLD=$1
NEW=$2
OUT=${OUT:-validation/out}
W=$(mktemp -d)
M="gpu__time_duration.sum,sm__ctas_launched.max,sm__ctas_launched.min,sm__cycles_active.max,\
sm__cycles_active.min,sm__cycles_active.avg,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active"
for f in "$NEW"/*.cu; do
  n=$(basename "$f" .cu)
  for v in old new; do
    src=$NEW/$n.cu
    [ "$v" = old ] && src=$OLD/$n.cu
    nvcc -O3 -arch=sm_90 -Xptxas -v -o "$W/$n.$v" "$src" > "$W/$n.$v.build.txt" 2>&1 || {
      echo "$n $v BUILD FAILED"; continue; }
    "$W/$n.$v" --repeats 30 > "$W/$n.$v.json" 2>&1
    echo "$n $v $(grep -o '"time_ms": [0-9.e-]*' "$W/$n.$v.json" | head -1)" \
      "$(grep -o '"verified": [a-z]*' "$W/$n.$v.json" | head -1)" \
      "$(grep -o 'Used [0-9]* registers' "$W/$n.$v.build.txt" | head -1)"
    timeout 100 ncu --cache-control none --clock-control none -k regex:skelcast --launch-skip 3 \
      --launch-count 1 --metrics "$M" "$W/$n.$v" --repeats 2 2>&1 |
      grep -E "^\s+(gpu__|sm__|smsp__)" | awk '{print "   ", $1, $NF}'
  done
done | tee "$OUT/edges.txt"
rm -rf "$W"
