#!/usr/bin/env bash
# Where spilled registers go and what they cost (docs/model.md, term `spills`;
# docs/validation.md, "Spilled register tiles"). Two steps:
#   bash validation/spills_ncu.sh emit DIR   # here: skelcast emit (SKELCAST=build/skelcast), ptxas's report
#   bash validation/spills_ncu.sh run DIR    # on the device: nvcc, the program's own timing, ncu
# Each layout's program is built with nvcc -O3 -arch=sm_90, run for its own
# record (--repeats 20), and its fourth launch profiled (ncu, clocks left as
# they are): the local loads and stores, their L1 hit rates, the bytes L1
# sends to L2 and L2 and DRAM move. Output: validation/results/h200_spills_ncu.txt.
set -u -o pipefail
mode=${1:?emit or run}; dir=${2:?DIR}
layouts=(
  "validation/c/small_k_gemm.c|block=i:32,j:32 fold=i:8,j:8 cache=A,B"
  "validation/c/small_k_gemm.c|block=i:32,j:32 fold=i:8,j:8 cache=A,B unroll=k:16"
  "validation/c/small_k_gemm.c|block=i:16,j:32 fold=i:8,j:8 cache=A,B unroll=k:16"
  "validation/c/small_k_gemm.c|block=i:16,j:32 fold=i:8,j:8 cache=A,B"
  "validation/c/conv2d.c|block=i:2,j:512 fold=i:8,j:8 unroll=a:3,b:3"
  "validation/c/conv2d.c|block=i:2,j:256 fold=i:8,j:8 unroll=a:3,b:3"
  "validation/c/conv2d.c|block=i:2,j:128 fold=i:8,j:8 unroll=a:3,b:3"
  "validation/c/conv2d.c|block=i:2,j:512 fold=i:8,j:8"
  "validation/c/conv2d.c|block=i:2,j:256 fold=i:8,j:8"
)
. "$(dirname "$0")/ncu_layouts.sh"
if [ "$mode" = emit ]; then
  emit_layouts "$dir" "${layouts[@]}" | while read -r d; do
    echo "=== $(sed -n "s/.* in layout '\(.*\)'$/\1/p" "$d"/*.cu | head -1): $(nvcc -arch=sm_90 -O3 -cubin -Xptxas -v -o /dev/null "$d"/*.cu 2>&1 |
      grep -E 'Used [0-9]+ registers|bytes stack frame' | sed 's/ptxas info *: //' | tr -s ' \n' ' ')"
  done
  exit "${PIPESTATUS[0]}"
fi
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct,\
l1tex__t_sector_pipe_lsu_mem_local_op_st_hit_rate.pct,l1tex__m_l1tex2xbar_write_bytes.sum,\
l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_bytes.sum,dram__bytes.sum,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
profile_layouts "$dir" "$M"
