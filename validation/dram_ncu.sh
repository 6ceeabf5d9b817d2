#!/usr/bin/env bash
# Memory-bound stencils the model projects too fast (docs/validation.md, "Where
# the DRAM floor is too low"): the bytes DRAM and L2 really move, and the
# bandwidth they reach, beside a triad that the model gets right. Two steps:
#   bash validation/dram_ncu.sh emit DIR   # here: skelcast emit (SKELCAST=build/skelcast)
#   bash validation/dram_ncu.sh run DIR    # on the device: nvcc, the program's own timing, ncu
# Each layout's program is built with nvcc -O3 -arch=sm_90, run for its own
# record (--repeats 20), and its fourth launch profiled (ncu, clocks left as
# they are, caches not flushed: the launch before it left its data in L2, as
# validate's back-to-back timing has it). Output:
# validation/results/h200_dram_ncu.txt.
set -u -o pipefail
mode=${1:?emit or run}; dir=${2:?DIR}
layouts=(
  "validation/c/streaming_64M.c|block=i:256"
  "validation/c/fdtd2d.c#fdtd2d_1|block=i:1,j:32 fold=j:8 cache=hz"
  "validation/c/fdtd2d.c#fdtd2d_1|block=i:4,j:32 fold=j:8 cache=hz"
  "validation/c/stencil3d.c|block=i:16,j:2,k:32 fold=j:8,k:4 cache=a"
  "validation/c/sobel.c|block=i:1,j:256 fold=j:4"
  "validation/c/transpose_add.c|block=i:4,j:8 fold=i:4,j:4"
  "validation/c/conv2d.c|block=i:16,j:16"
  "validation/c/conv2d.c|block=i:16,j:64 fold=i:2 cache=in,w"
  "examples/stencil3d.c|block=k:2,j:2,i:32 fold=i:4"
  "validation/c/stencil27.c|block=i:4,j:8,k:32 fold=i:8,j:4 cache=a"
)
. "$(dirname "$0")/ncu_layouts.sh"
if [ "$mode" = emit ]; then
  # fdtd2d's rows of 4,096 doubles (32 KB apart) against rows of 4,104: does
  # the power-of-two pitch cost the four-row blocks their bandwidth?
  mkdir -p "$dir" && sed 's/#define NY 4096/#define NY 4104/' validation/c/fdtd2d.c > "$dir/fdtd2d_4104.c" || exit 1
  emit_layouts "$dir" "${layouts[@]}" "$dir/fdtd2d_4104.c#fdtd2d_1|block=i:1,j:32 fold=j:8 cache=hz" \
    "$dir/fdtd2d_4104.c#fdtd2d_1|block=i:4,j:32 fold=j:8 cache=hz"
  exit $?
fi
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,\
l1tex__m_xbar2l1tex_read_bytes.sum,l1tex__m_l1tex2xbar_write_bytes.sum,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
NCU_ARGS="--cache-control none" profile_layouts "$dir" "$M"
