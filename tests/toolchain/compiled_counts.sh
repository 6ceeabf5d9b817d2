#!/bin/bash
# Counts from a compiler (docs/skeletonizer.md, "Counts from a compiler"):
#   compiled_counts.sh SKELCAST ptx    clang-19's PTX of the naive layout sets the
#     skeleton's comps (skipped, exit 77, without clang-19)
#   compiled_counts.sh SKELCAST sass   nvcc's SASS (cuobjdump -sass) sets them, and
#     explain reads ptxas's registers (skipped without nvcc, cuobjdump and nvdisasm)
#   compiled_counts.sh SKELCAST ptxas  project re-ranks its best layouts with ptxas's
#     registers (skipped without nvcc and clang-19; docs/model.md, "Registers from ptxas")
#   compiled_counts.sh SKELCAST table  --counts=table is the default's output, and a
#     compiler that is not there falls back to the table with one positioned warning
set -u
SKELCAST=$1
MODE=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
C=validation/c/matmul_2048.c
status=0
ERR=$(mktemp "${TMPDIR:-/tmp}/skelcast-counts-XXXXXX")
trap 'rm -f "$ERR"' EXIT
fail() { echo "FAIL: $*"; status=1; }
case "$MODE" in
ptx)
  command -v "${SKELCAST_CLANG:-clang-19}" > /dev/null || { echo "SKIPPED: no clang-19"; exit 77; }
  out=$("$SKELCAST" skeletonize "$C" --counts=ptx 2> "$ERR") || fail "skeletonize --counts=ptx exited $?"
  grep -q "comp counts: PTX (clang-19" <<< "$out" || fail "no PTX counts comment in: $out"
  [ -s "$ERR" ] && fail "warnings with --counts=ptx: $(cat "$ERR")"
  # matmul's k loop, rolled as the naive layout is emitted (`#pragma unroll 1`, docs/emit.md):
  # one FMA and the address arithmetic of an iteration (the loop control is the model's)
  body=$(sed -n '/stream k/,/}/p' <<< "$out")
  grep -Eq "comp [3-5]$" <<< "$body" || fail "expected comp 3 to 5 per iteration of k (FMA, addresses), got: $body"
  ;;
sass)
  if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then PATH=$PATH:/usr/local/cuda/bin; fi
  for t in nvcc cuobjdump nvdisasm; do
    command -v $t > /dev/null || { echo "SKIPPED: no $t on PATH"; exit 77; }
  done
  out=$("$SKELCAST" skeletonize "$C" --counts=sass 2> "$ERR") || fail "skeletonize --counts=sass exited $?"
  grep -q "comp counts: SASS (nvcc" <<< "$out" || fail "no SASS counts comment in: $out"
  [ -s "$ERR" ] && fail "warnings with --counts=sass: $(cat "$ERR")"
  ex=$("$SKELCAST" explain "$C" --counts=sass --layout "block=i:16,j:16" 2>&1) || fail "explain exited $?"
  grep -q "registers per thread (ptxas)" <<< "$ex" || fail "explain does not use ptxas's registers: $ex"
  ex=$("$SKELCAST" explain "$C" --counts=table --layout "block=i:16,j:16" 2>&1)
  grep -q "registers per thread (estimate)" <<< "$ex" || fail "explain --counts=table: $ex"
  ;;
ptxas)
  if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then PATH=$PATH:/usr/local/cuda/bin; fi
  command -v nvcc > /dev/null || { echo "SKIPPED: no nvcc on PATH"; exit 77; }
  command -v "${SKELCAST_CLANG:-clang-19}" > /dev/null || { echo "SKIPPED: no clang-19"; exit 77; }
  js=$("$SKELCAST" project "$C" --counts=ptx --top 3 --format json 2> "$ERR") || fail "project --counts=ptx exited $?"
  [ -s "$ERR" ] && fail "warnings with --counts=ptx: $(cat "$ERR")"
  n=$(grep -c '"source": "ptxas"' <<< "$js")
  [ "$n" = 3 ] || fail "expected ptxas's registers for the 3 layouts shown, got $n: $js"
  tx=$("$SKELCAST" project "$C" --counts=ptx --top 3 2>&1) || fail "project --counts=ptx (text) exited $?"
  [ "$(grep -c '(ptxas)' <<< "$tx")" = 3 ] || fail "the table does not say ptxas for 3 layouts: $tx"
  cs=$("$SKELCAST" project "$C" --counts=ptx --top 3 --format csv 2>&1) || fail "project --counts=ptx (csv) exited $?"
  head -1 <<< "$cs" | grep -q ',registers,registers_source$' || fail "no registers columns in: $(head -1 <<< "$cs")"
  # --counts=table, and a model without the registers term: the estimate's ranking, unmarked
  "$SKELCAST" project "$C" --counts=table --format json | grep -q '"registers"' && fail "registers with --counts=table"
  "$SKELCAST" project "$C" --counts=ptx --without registers --format json 2> /dev/null | grep -q '"registers"' &&
    fail "registers re-ranked without the registers term"
  ;;
table)
  a=$("$SKELCAST" skeletonize "$C")
  b=$("$SKELCAST" skeletonize "$C" --counts=table)
  [ "$a" = "$b" ] || fail "--counts=table differs from the default"
  grep -q "comp counts:" <<< "$b" && fail "a counts comment with --counts=table"
  # a compiler that is not there: the table, and one warning at the kernel's line
  out=$(SKELCAST_CLANG=/nonexistent/clang "$SKELCAST" skeletonize "$C" --counts=ptx 2>&1 > /dev/null)
  n=$(grep -c "warning: instruction counts from the table" <<< "$out")
  [ "$n" = 1 ] || fail "expected one fallback warning, got $n: $out"
  grep -q "^$C:[0-9]*:[0-9]*: warning" <<< "$out" || fail "the warning has no position: $out"
  "$SKELCAST" skeletonize "$C" --counts=bogus > /dev/null 2>&1 && fail "--counts=bogus accepted"
  ;;
*)
  echo "usage: $0 SKELCAST ptx|sass|ptxas|table"; exit 2 ;;
esac
[ $status -eq 0 ] && echo "ok: $MODE"
exit $status
