#!/usr/bin/env bash
# DataRaceBench (LLNL, github.com/LLNL/dataracebench; not part of this
# repository: fetch it yourself) as a test of the worst error skelcast can
# make, a loop with a dependence ported as parallel. For each racy file
# (`*-yes.c`) of micro-benchmarks/: the racy loop is the first `for` after the
# last loop pragma before a line its header's "Data race pair" names; it is
# reported when skelcast ports it as a kernel. Race-free files (`*-no.c`): the
# kernels written, to compare before and after a change. Crashes (exit code
# above 2) are reported apart. docs/skeletonizer.md, "OpenMP directives".
#   tools/race_check.sh DRB/micro-benchmarks [SKELCAST]
set -uo pipefail
dir=${1:?usage: tools/race_check.sh DRB/micro-benchmarks [SKELCAST]}
bin=$(realpath "${2:-$(dirname "$0")/../build/skelcast}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 2
yes=0 ported=0 no=0 nokernels=0 crashes=0
for f in DRB*-yes.c DRB*-no.c; do
  timeout 60 "$bin" skeletonize "$f" -I . >"$tmp/out.skel" 2>"$tmp/err"; rc=$?
  if [ $rc -gt 2 ]; then crashes=$((crashes + 1)); echo "CRASH $f exit $rc"; fi
  case $f in
    *-no.c)
      no=$((no + 1)); nokernels=$((nokernels + $(grep -c '^ *parallel_for' "$tmp/out.skel")))
      continue ;;
  esac
  yes=$((yes + 1)); hit=
  for r in $(grep -oE '@[0-9]+:[0-9]+:[RW]' "$f" | cut -d@ -f2 | cut -d: -f1 | sort -un); do
    p=$(awk -v r="$r" 'NR <= r && /#pragma omp.*(for|simd|loop|distribute)/ {p = NR} END {print p + 0}' "$f")
    [ "$p" = 0 ] && continue
    l=$(awk -v p="$p" 'NR > p && /^[ \t]*for[ \t]*\(/ {print NR; exit}' "$f")
    [ -n "$l" ] && grep -q "^ *// from $f:$l," "$tmp/out.skel" && hit="$hit $l"
  done
  if [ -n "$hit" ]; then
    ported=$((ported + 1))
    echo "racy loop ported: $f line$(echo "$hit" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
  fi
done
echo "racy files: $yes, racy loop ported in $ported; race-free files: $no, kernels $nokernels; crashes: $crashes"
