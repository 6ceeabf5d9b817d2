#!/usr/bin/env bash
# Nsight Compute's issue-stall breakdown of programs `skelcast emit` wrote
# (docs/validation.md, "Row walks"; validation/results/h100_ncu_folds_s15.txt):
# each .cu is built (nvcc -O3 -arch=sm_90, ptxas's report), run once for its own
# time (--repeats 10), then its third launch profiled with the clocks left as
# they are: instructions executed, active cycles, warps and issue per scheduler
# cycle, and every issue-stall reason above 0.3 cycles per issued instruction.
#   skelcast emit examples/matmul.c --layout 'block=i:2,j:32 fold=i:8,j:2 cache=A unroll=k:16' -o d
#   mv d/matmul_layout.cu mm_reg.cu
#   OUT=/path bash validation/profile_stalls.sh mm_reg.cu ...
set -u -o pipefail
OUT=${OUT:-validation/out}
mkdir -p "$OUT"
ST=""
for s in long_scoreboard short_scoreboard mio_throttle lg_throttle no_instruction wait math_pipe_throttle \
  barrier not_selected selected dispatch_stall imc_miss branch_resolving drain tex_throttle; do
  ST="$ST,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
M="smsp__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum,smsp__warps_active.avg.per_cycle_active,\
smsp__issue_active.avg.per_cycle_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_op_read.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,dram__bytes_read.sum${ST}"
for f in "$@"; do
  n=$(basename "$f" .cu)
  nvcc -O3 -arch=sm_90 -Xptxas -v -o "$OUT/$n" "$f" > "$OUT/$n.build.txt" 2>&1 || { echo "BUILD FAILED: $f"; continue; }
  cuobjdump -sass "$OUT/$n" > "$OUT/$n.sass" 2>&1 || true
  "$OUT/$n" --repeats 10 > "$OUT/$n.run.json" 2>&1
  timeout 200 ncu --clock-control none -k regex:skelcast --launch-skip 2 --launch-count 1 --metrics "$M" \
    "$OUT/$n" --repeats 2 > "$OUT/$n.ncu.txt" 2>&1
  echo "== $n: $(grep -o '"time_ms": [0-9.e-]*' "$OUT/$n.run.json" | head -1); ptxas: $(grep -o 'Used [0-9]* registers' "$OUT/$n.build.txt" | head -1)"
  grep -E "inst_executed|cycles_active|duration|issue_active|warps_active|stalled" "$OUT/$n.ncu.txt" |
    awk '{ v=$NF; if ($1 ~ /stalled/) { if (v+0 > 0.3) print "   " $1, v } else print "   " $1, $(NF-1), v }'
  rm -f "$OUT/$n"
done
