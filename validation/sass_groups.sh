#!/usr/bin/env bash
# The load groups and registers of every program `skelcast emit` wrote into the
# given directories, from their SASS (docs/validation.md, "SpinFlap's favourites
# measured; row walks beside other warps; the cost of a stage"): each .cu is
# built (nvcc -O3 -arch=sm_90, ptxas's report), its kernel's SASS read with
# cuobjdump and walked by validation/sass_load_groups.py (straight-line order:
# every path of the kernel, edge blocks' too). Needs the CUDA toolkit with
# cuobjdump (the device machine has it).
#   OUT=/path bash validation/sass_groups.sh DIR ...
# Writes OUT/groups_all.txt (a program's path, then its LDG count and groups)
# and OUT/regs_all.txt (a program's path and ptxas's registers).
set -u -o pipefail
OUT=${OUT:-validation/out}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
mkdir -p "$OUT"
for d in "$@"; do ls "$d"/*/*.cu; done > "$TMP/list"
xargs -P "${JOBS:-16}" -I{} sh -c 'b='"$TMP"'/$(echo {} | tr / _);
  nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -Xptxas -v -o "$b.bin" {} > "$b.build" 2>&1 &&
  cuobjdump -sass "$b.bin" | awk "/Function : skelcast/{p=1} /Function :/ && !/skelcast/{p=0} p" > "$b.sass";
  rm -f "$b.bin"' < "$TMP/list"
while read -r f; do
  b=$TMP/$(echo "$f" | tr / _)
  echo "== $f"
  cat "$b.sass" 2>/dev/null
done < "$TMP/list" > "$TMP/all.sass"
python3 "$ROOT/validation/sass_load_groups.py" "$TMP/all.sass" > "$OUT/groups_all.txt" 2>&1
while read -r f; do
  b=$TMP/$(echo "$f" | tr / _)
  echo "$f $(grep -o 'Used [0-9]* registers' "$b.build" | head -1)"
done < "$TMP/list" > "$OUT/regs_all.txt"
rm -rf "$TMP"
