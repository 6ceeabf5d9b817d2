#!/usr/bin/env bash
# Shared-memory bank conflicts of emitted cached tiles (docs/model.md, term
# `banks`; docs/validation.md, "Bank conflicts in cached tiles"). Two steps:
#   bash validation/banks_ncu.sh emit DIR   # here: skelcast emit (SKELCAST=build/skelcast)
#   bash validation/banks_ncu.sh run DIR    # on the device: nvcc, the program's own timing, ncu
# Each layout's program is built with nvcc -O3 -arch=sm_90, run for its own
# record (--repeats 20), and its fourth launch profiled (ncu, clocks left as
# they are): shared-load instructions, their wavefronts and the bank conflicts.
set -u -o pipefail
mode=${1:?emit or run}; dir=${2:?DIR}
layouts=(
  "validation/c/stencil27.c|block=i:8,j:8,k:16 fold=i:4,j:4,k:2 cache=a"
  "validation/c/stencil27.c|block=i:4,j:8,k:32 fold=i:8,j:4 cache=a"
  "validation/c/conv2d.c|block=i:128,j:8 fold=i:2 cache=in,w"
  "validation/c/conv2d.c|block=i:32,j:32 fold=i:2 cache=in,w"
)
. "$(dirname "$0")/ncu_layouts.sh"
if [ "$mode" = emit ]; then
  emit_layouts "$dir" "${layouts[@]}" > /dev/null
  exit
fi
M=smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,gpu__time_duration.sum
profile_layouts "$dir" "$M"
