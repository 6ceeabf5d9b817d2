#!/bin/bash
# The emitted CUDA of every C example compiles (docs/emit.md, "Tests"):
#   compile_examples.sh SKELCAST ptx    each example's naive layout and its
#     projected top 3, device code to PTX with clang-19 (-nocudainc
#     -nocudalib: no CUDA toolkit needed)
#   compile_examples.sh SKELCAST nvcc   the same files built whole (kernel and
#     host driver, its reference with OpenMP) with nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp; skipped (exit 77) without nvcc
# Layouts emit cannot write are skipped with their reason on stderr
# (--skip-unsupported); the expected count of files per example is checked so
# that a layout newly refused fails the test.
set -u
SKELCAST=$1
MODE=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/skelcast-emit-test-XXXXXX")
trap 'rm -rf "$OUT"' EXIT
NVCC=""
if [ "$MODE" = nvcc ]; then
  NVCC=$(command -v nvcc || true)
  [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
  if [ -z "$NVCC" ]; then
    echo "SKIPPED: no nvcc on PATH nor in /usr/local/cuda/bin"
    exit 77
  fi
fi
CLANG=${CLANG:-clang-19}
status=0
# example | its skelcast options | files expected (naive + top 3, per kernel)
while IFS='|' read -r file args expected; do
  case "$file" in ''|\#*) continue ;; esac
  dir="$OUT/${file%.c}"
  # shellcheck disable=SC2086
  "$SKELCAST" emit "examples/$file" $args --layout naive --skip-unsupported -o "$dir" > /dev/null 2> "$dir.err1" || true
  # shellcheck disable=SC2086
  "$SKELCAST" emit "examples/$file" $args --top 3 --skip-unsupported -o "$dir" > /dev/null 2> "$dir.err2" || true
  n=$(ls "$dir"/*.cu 2> /dev/null | wc -l)
  grep -h "cannot emit" "$dir.err1" "$dir.err2" | sed "s|^|  not emitted: |"
  if [ "$n" -ne "$expected" ]; then
    echo "FAIL $file: $n files emitted, expected $expected"
    status=1
  fi
  for cu in "$dir"/*.cu; do
    [ -e "$cu" ] || continue
    if [ "$MODE" = ptx ]; then
      if ! "$CLANG" -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O3 \
          -Wno-unknown-cuda-version -S -o "${cu%.cu}.ptx" "$cu" 2> "$cu.log"; then
        echo "FAIL $cu does not compile to PTX:"; head -20 "$cu.log"; status=1
      elif ! grep -q "\.entry skelcast_" "${cu%.cu}.ptx"; then
        echo "FAIL $cu: no kernel entry in the PTX"; status=1
      fi
    else
      if ! "$NVCC" -O3 -arch=sm_90 -Xcompiler -fopenmp -o "${cu%.cu}" "$cu" > "$cu.log" 2>&1; then
        echo "FAIL $cu does not build with nvcc:"; head -20 "$cu.log"; status=1
      fi
    fi
  done
  echo "$file: $n files $([ "$MODE" = ptx ] && echo "to PTX" || echo "built with nvcc")"
done < "$ROOT/tests/emit/examples.txt"
exit $status
