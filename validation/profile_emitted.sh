#!/usr/bin/env bash
# Nsight Compute counters of programs `skelcast emit` wrote (docs/validation.md,
# "What limits the folded layouts" and "The same shapes on the H100"): each .cu
# is built (nvcc -O3 -arch=$ARCH, with ptxas's report and its SASS), run once for
# its own time (--repeats 5), then its third launch profiled with the clocks
# left as they are (--clock-control none; ncu flushes the caches before it).
#   OUT=/path bash validation/profile_emitted.sh FILE.cu ...
# Writes OUT/NAME.build.txt, NAME.sass, NAME.run.json, NAME.ncu.txt and prints,
# per program, the counters docs/validation.md quotes.
set -u -o pipefail
OUT=${OUT:-validation/out}
ARCH=${ARCH:-sm_90}
mkdir -p "$OUT"
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,sm__cycles_active.avg,\
sm__cycles_active.max,sm__ctas_launched.max,sm__ctas_launched.min,smsp__inst_executed.sum,\
smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,lts__t_sectors_op_read.sum,\
lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
for f in "$@"; do
  n=$(basename "$f" .cu)
  nvcc -O3 -arch="$ARCH" -Xcompiler -fopenmp -Xptxas -v -o "$OUT/$n" "$f" > "$OUT/$n.build.txt" 2>&1 || { echo "BUILD FAILED: $f"; continue; }
  cuobjdump -sass "$OUT/$n" > "$OUT/$n.sass" 2>&1 || true
  "$OUT/$n" --repeats 5 > "$OUT/$n.run.json" 2>&1
  timeout 300 ncu --clock-control none -k regex:skelcast --launch-skip 2 --launch-count 1 $SECTIONS \
    --metrics "$METRICS" "$OUT/$n" --repeats 2 > "$OUT/$n.ncu.txt" 2>&1
  echo "== $n: $(grep -o "in layout '[^']*'" "$f" | head -1)"
  grep -E "^    (Duration|Registers Per Thread|Achieved Occupancy|Active Warps Per Scheduler|Warp Cycles Per Issued Instruction|Executed Instructions  )|dram__bytes|sm__cycles_active|ctas_launched|long_scoreboard_per" \
    "$OUT/$n.ncu.txt" | awk '{$1=$1; print "   " $0}'
  rm -f "$OUT/$n"
done
