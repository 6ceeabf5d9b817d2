#!/usr/bin/env bash
# How much of a public benchmark suite gets through the skeletonizer, run as a
# new user would: each file with only the suite's own flags. Prints one row per
# file (exit code, kernels written, loops refused) and the totals; a crash (exit
# code above 2) is counted apart. The suite is not part of this repository:
# fetch it yourself (docs/skeletonizer.md, "Coverage").
#   tools/suite_coverage.sh polybench DIR [SKELCAST]   PolyBench/C 4.2.1 (-I utilities -I <dir> -DLARGE_DATASET)
#   tools/suite_coverage.sh rodinia DIR/openmp [SKELCAST]  Rodinia 3.1's OpenMP codes, with the -D/-I
#                                                          flags of their Makefiles; counts omp loops
set -uo pipefail
suite=${1:?usage: tools/suite_coverage.sh polybench DIR [SKELCAST]}
dir=${2:?usage: tools/suite_coverage.sh polybench DIR [SKELCAST]}
bin=$(realpath "${3:-$(dirname "$0")/../build/skelcast}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
files=0 ok=0 kernels=0 kkernels=0 omp=0 refused=0 crashes=0
printf '%-48s %4s %7s %9s %7s\n' file exit kernels "$([ "$suite" = polybench ] && echo 'kernel_*' || echo 'omp')" refused
case $suite in
  polybench)
    mapfile -t inputs < <(cd "$dir" && find . -name '*.c' ! -name '*.orig.c' ! -path './utilities/*' | sort) ;;
  rodinia)
    mapfile -t inputs < <(cd "$dir" && grep -rlE '#pragma omp (parallel )?for' --include=*.c --include=*.cpp . | grep -v /tools/ | sort) ;;
  *) echo "unknown suite '$suite'" >&2; exit 2 ;;
esac
# the flags each Rodinia Makefile adds (cfd: OMP_NUM_THREADS = 8)
rodinia_flags() {
  case $1 in
    cfd/*) echo "-Dblock_length=8" ;;
    heartwall/*) echo "-I heartwall/AVI" ;;
    leukocyte/*) echo "-I leukocyte/meschach_lib" ;;
  esac
}
for f in "${inputs[@]}"; do
  f=${f#./}
  d=$(dirname "$f")
  if [ "$suite" = polybench ]; then
    (cd "$dir" && timeout 120 "$bin" skeletonize "$f" -I utilities -I "$d" -DLARGE_DATASET) \
      >"$tmp/out" 2>"$tmp/err"
  else
    # shellcheck disable=SC2046
    (cd "$dir" && timeout 120 "$bin" skeletonize "$f" -I "$d" $(rodinia_flags "$f")) \
      >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  k=$(grep -cE '^[[:space:]]*parallel_for' "$tmp/out")
  if [ "$suite" = polybench ]; then
    # PolyBench's own kernel is the function named kernel_*
    kk=$(grep -cE "^[[:space:]]*// from .*, function 'kernel_" "$tmp/out")
  else
    # Rodinia: the OpenMP loops ported, of those in the file
    kk=$(grep -cE "OpenMP '(parallel for|for)'" "$tmp/out")
    omp=$((omp + $(grep -cE '#pragma omp (parallel )?for' "$dir/$f")))
  fi
  r=$(grep -c 'cannot port this loop' "$tmp/err")
  files=$((files + 1)); kernels=$((kernels + k)); kkernels=$((kkernels + kk)); refused=$((refused + r))
  ((rc == 0)) && ok=$((ok + 1))
  ((rc > 2)) && crashes=$((crashes + 1))
  printf '%-48s %4d %7d %9d %7d\n' "$f" "$rc" "$k" "$kk" "$r"
  if [ -n "${VERBOSE:-}" ]; then sed 's/^/    /' "$tmp/err"; fi
done
if [ "$suite" = rodinia ]; then echo "OpenMP loops ported: $kkernels of $omp"; fi
echo "files $files, exit 0: $ok, kernels $kernels (in kernel_* functions or OpenMP loops: $kkernels), loops refused $refused, crashes $crashes"
