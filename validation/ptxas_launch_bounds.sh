#!/bin/bash
# The registers ptxas allows a thread under emit's __launch_bounds__(T) (no
# minimum of blocks), for a kernel that wants more than any T leaves: conv2d
# 4096's `fold=i:8,j:8 unroll=a:3,b:3` (64 accumulators a thread), emitted by
# skelcast and compiled with T from 256 to 1024 threads; then T = 512 with a
# minimum of one block, and without launch bounds. Needs nvcc (no GPU).
#   bash validation/ptxas_launch_bounds.sh build/skelcast > validation/results/ptxas_launch_bounds.txt
set -euo pipefail
skelcast=${1:-build/skelcast}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$skelcast" emit validation/c/conv2d.c --hw h200 --kernel conv2d \
  --layout 'block=i:2,j:256 fold=i:8,j:8 unroll=a:3,b:3' -o "$dir/e" > /dev/null
src="$dir/e/conv2d_layout.cu"
echo "# nvcc $(nvcc --version | grep -o 'release [0-9.]*'), -arch=sm_90 -Xptxas -v: conv2d 4096 block=i:2,j:256 fold=i:8,j:8 unroll=a:3,b:3"
echo "# launch bounds | registers | spill stores (bytes) | one block's share: 65536 / (T rounded up to 4 warps) | two blocks' share"
bounds=(256 288 320 352 384 400 416 448 480 512 544 576 608 640 672 704 736 768 800 832 864 896 928 960 992 1024 "512, 1" none)
for lb in "${bounds[@]}"; do
  if [ "$lb" = none ]; then
    sed 's/__launch_bounds__(512) //' "$src" > "$dir/v.cu"
  else
    sed "s/__launch_bounds__(512)/__launch_bounds__($lb)/" "$src" > "$dir/v.cu"
  fi
  info=$(nvcc -arch=sm_90 -cubin -Xptxas -v -o /dev/null "$dir/v.cu" 2>&1)
  regs=$(grep -oE 'Used [0-9]+ registers' <<< "$info" | grep -oE '[0-9]+')
  spill=$(grep -oE '[0-9]+ bytes spill stores' <<< "$info" | grep -oE '^[0-9]+')
  t=${lb%%,*}
  if [ "$t" = none ]; then one=255; two=-; else
    w=$(( (t + 31) / 32 )); w4=$(( (w + 3) / 4 * 4 ))
    one=$(( 65536 / (w4 * 32) / 8 * 8 )); [ $one -gt 255 ] && one=255
    two=$(( 65536 / (2 * w * 32) / 8 * 8 ))
  fi
  printf '%-8s %4s %6s %4s %4s\n' "$lb" "$regs" "$spill" "$one" "$two"
done
