#!/bin/bash
# What emitted kernels compute, checked without a GPU: each case below is
# emitted, built for the host with the CPU stand-in for the CUDA runtime
# (tests/emit/emulate.h), and run; its driver compares the kernel's arrays
# with the C nest's (run on the host too) and exits 3 when they differ. The
# cases cover every layout element: block shapes in 1-3 dimensions, folding,
# unrolling, cached arrays with and without a stage, delinearised pointers,
# helpers, branches, index arrays from a sample.
set -u
SKELCAST=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/skelcast-emulate-XXXXXX")
trap 'rm -rf "$OUT"' EXIT
CXX=${CXX_EMULATE:-clang++-19}
status=0
n=0
while IFS='|' read -r file args layout; do
  case "$file" in ''|\#*) continue ;; esac
  n=$((n + 1))
  cu=$OUT/case$n.cu
  src=examples/$file # a path with a folder: from the repository's root
  case "$file" in */*) src=$file ;; esac
  # shellcheck disable=SC2086
  if ! "$SKELCAST" emit "$src" $args --layout "$layout" -o - > "$cu" 2> "$cu.err"; then
    echo "FAIL $file '$layout': emit failed:"; cat "$cu.err"; status=1; continue
  fi
  if ! "$CXX" -std=c++20 -O2 -pthread -w -x c++ -include "$ROOT/tests/emit/emulate.h" "$cu" \
      -o "$OUT/case$n" 2> "$cu.build"; then
    echo "FAIL $file '$layout': does not build for the host:"; head -20 "$cu.build"; status=1; continue
  fi
  if "$OUT/case$n" --repeats 0 > "$cu.json" 2> "$cu.run"; then
    echo "ok   $file '$layout': $(tail -1 "$cu.run")"
  else
    echo "FAIL $file '$layout': $(tail -1 "$cu.run")"; status=1
  fi
done < "$ROOT/tests/emit/emulated.txt"
exit $status
