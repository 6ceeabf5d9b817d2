#!/bin/bash
# The loads a wait of the same kernels emitted in blocks of 32 and of 64
# threads (docs/validation.md, "Loads a wait in blocks of one warp"): each
# layout below emitted by skelcast, then validation/sass_groups.sh (nvcc -O3
# -arch=sm_90, ptxas's registers, the SASS's load groups). Needs build/skelcast,
# nvcc and cuobjdump on PATH; no GPU.
#   bash validation/sass_block_sizes.sh > validation/results/sass_block_size_load_groups.txt
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SKELCAST=${SKELCAST:-$ROOT/build/skelcast}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$ROOT"
n=0
while IFS='|' read -r file kernel layout; do
  [ -n "$file" ] || continue
  n=$((n + 1))
  sub=${file%.c}; sub=${sub//\//__}
  mkdir -p "$TMP/emitted/$sub"
  "$SKELCAST" emit "$file" --hw h200 --kernel "$kernel" --layout "$layout" -o "$TMP/e" > /dev/null 2>&1
  tag=$(printf '%02d_%s' "$n" "$(echo "$layout" | tr ' =:,#' '_____')")
  mv "$TMP/e/${kernel}_layout.cu" "$TMP/emitted/$sub/${kernel}_$tag.cu"
  rm -rf "$TMP/e"
done <<'LIST'
validation/c/atax_rows.c|atax_1|block=i:32 unroll=j:16
validation/c/atax_rows.c|atax_1|block=i:64 unroll=j:16
validation/c/jacobi2d.c|jacobi2d|block=i:1,j:32 fold=j:8
validation/c/jacobi2d.c|jacobi2d|block=i:2,j:32 fold=j:8
examples/stencil3d.c|heat3d|block=k:1,j:1,i:32 fold=i:8
examples/stencil3d.c|heat3d|block=k:1,j:2,i:32 fold=i:8
examples/conv2d.c|conv2d|block=y:1,x:32 fold=y:8 cache=filt unroll=p:5,q:5
examples/conv2d.c|conv2d|block=y:1,x:64 fold=y:8 cache=filt unroll=p:5,q:5
validation/c/gesummv.c|gesummv|block=i:32 stage=j:1024 cache=x unroll=j:32
validation/c/gesummv.c|gesummv|block=i:64 stage=j:1024 cache=x unroll=j:32
validation/c/matvec_rows_fp64.c|matvec_rows_fp64|block=i:32 stage=j:1024 cache=x unroll=j:32
validation/c/matvec_rows_fp64.c|matvec_rows_fp64|block=i:64 stage=j:1024 cache=x unroll=j:32
validation/c/mvt.c|mvt_1|block=i:32 stage=j:512 cache=y2 unroll=j:32
validation/c/mvt.c|mvt_1|block=i:64 stage=j:512 cache=y2 unroll=j:32
LIST
OUT="$TMP/out" JOBS=2 bash "$ROOT/validation/sass_groups.sh" "$TMP/emitted" > /dev/null
echo "# validation/sass_block_sizes.sh ($(nvcc --version | tail -1)): per program, ptxas's registers, then its load groups"
sed "s|$TMP/emitted/||" "$TMP/out/regs_all.txt"
sed "s|$TMP/emitted/||" "$TMP/out/groups_all.txt"
