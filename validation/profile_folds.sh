#!/usr/bin/env bash
# Nsight Compute counters and SASS of programs `skelcast emit` wrote, for the
# folded layouts (docs/validation.md, "Loads in flight between waits"): each
# .cu is built (nvcc -O3 -arch=sm_90, ptxas's report), its kernel's SASS kept,
# run for its own time (--repeats 10), then its third launch profiled with the
# clocks left as they are: time, DRAM and L2 traffic, hit rates, registers,
# occupancy, warps and issue per scheduler cycle, and the issue stalls above
# 0.3 cycles per issued instruction.
#   OUT=/path bash validation/profile_folds.sh FILE.cu ...
# Writes OUT/summary.txt and OUT/NAME.{build.txt,sass,run.json,ncu.txt};
# python3 validation/sass_load_groups.py OUT/NAME.sass counts the load groups.
set -u -o pipefail
OUT=${OUT:-validation/out}
mkdir -p "$OUT"
ST=""
for s in long_scoreboard short_scoreboard mio_throttle lg_throttle no_instruction wait math_pipe_throttle \
  barrier not_selected selected drain tex_throttle; do
  ST="$ST,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
M="gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.per_cycle_active,dram__bytes_read.sum,\
dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,\
l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,launch__registers_per_thread,launch__occupancy_limit_registers,\
sm__ctas_launched.max,sm__ctas_launched.min,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum${ST}"
printf '%s\n' "$@" | xargs -P 8 -I{} sh -c 'n=$(basename {} .cu);
  nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -Xptxas -v -o "'"$OUT"'/$n" {} > "'"$OUT"'/$n.build.txt" 2>&1 &&
  cuobjdump -sass "'"$OUT"'/$n" | awk "/Function : skelcast/{p=1} /Function :/ && !/skelcast/{p=0} p" > "'"$OUT"'/$n.sass"'
for f in "$@"; do
  n=$(basename "$f" .cu)
  [ -x "$OUT/$n" ] || { echo "BUILD FAILED: $f"; continue; }
  "$OUT/$n" --repeats 10 > "$OUT/$n.run.json" 2>&1
  timeout 100 ncu --clock-control none -k regex:skelcast --launch-skip 2 --launch-count 1 --metrics "$M" \
    "$OUT/$n" --repeats 2 > "$OUT/$n.ncu.txt" 2>&1
  echo "== $n $(head -1 "$f" | grep -o "layout '[^']*'") $(grep -o '"time_ms": [0-9.e-]*' "$OUT/$n.run.json" | head -1) $(grep -o 'Used [0-9]* registers' "$OUT/$n.build.txt" | head -1)"
  grep -E "^    [a-z]" "$OUT/$n.ncu.txt" |
    awk '{ v=$NF; if ($1 ~ /stalled/) { if (v+0 > 0.3) print "   " $1, v } else print "   " $1, $(NF-1), v }'
  rm -f "$OUT/$n"
done 2>&1 | tee "$OUT/summary.txt"
