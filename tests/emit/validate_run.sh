#!/bin/bash
# `validate --run` end to end as far as this machine allows: with nvcc it must
# emit, build (the executables must exist) and then either run on the GPU and
# print the validation table (exit 0), or, with no GPU, stop with the error
# that says so. Skipped (77) without nvcc.
set -u
SKELCAST=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "SKIPPED: no nvcc"; exit 77; }
OUT=$(mktemp -d "${TMPDIR:-/tmp}/skelcast-vrun-XXXXXX")
trap 'rm -rf "$OUT"' EXIT
"$SKELCAST" validate --run examples/matvec.c -D N=256 --hw h100 --top 1 -o "$OUT/run" \
  > "$OUT/out" 2> "$OUT/err"
rc=$?
for f in matvec_naive.cu matvec_naive.skel matvec_top1.cu matvec_naive; do
  [ -e "$OUT/run/$f" ] || { echo "FAIL: $f was not written or built"; cat "$OUT/err"; exit 1; }
done
if [ $rc -eq 0 ]; then
  grep -q "^ran on: " "$OUT/out" && grep -q "matvec" "$OUT/out" && [ -s "$OUT/run/measurements.json" ] \
    || { echo "FAIL: ran, but no table or measurements"; cat "$OUT/out"; exit 1; }
  echo "ran on a GPU:"; cat "$OUT/out"
elif [ $rc -eq 1 ] && grep -q "error: validate --run needs a CUDA GPU on this machine" "$OUT/err"; then
  echo "emitted and built; no GPU here: $(tail -1 "$OUT/err")"
else
  echo "FAIL: exit $rc"; cat "$OUT/err"; exit 1
fi
