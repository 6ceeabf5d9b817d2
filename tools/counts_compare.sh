#!/usr/bin/env bash
# How far the three instruction counts differ (docs/skeletonizer.md, "Counts from
# a compiler"): Func_insts (eq. 17, the `comp` instructions a thread executes,
# loop control apart) of each validation kernel's naive layout, with --counts=table,
# ptx and sass, beside the hand skeleton's (validation/skeletons/, counted from the
# SASS of the kernel that was measured). A count that could not be read is `-`.
#   tools/counts_compare.sh [C FILES...]     (skelcast on PATH; default validation/c/*.c)
set -euo pipefail
tmp=$(mktemp -d "${TMPDIR:-/tmp}/skelcast-counts-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(validation/c/*.c)
funcInsts() { awk '$1 == "Func_insts" { print $2 }'; }
echo "| kernel | naive layout | table | PTX | SASS | hand skeleton |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for c in "${files[@]}"; do
  name=$(basename "$c" .c)
  skelcast emit "$c" --layout naive --skip-unsupported -o "$tmp/$name" 2> /dev/null |
    while read -r _ _ kernel layout; do
      row="| $name: $kernel | \`$layout\`"
      for m in table ptx sass; do
        v=$(skelcast explain "$c" --kernel "$kernel" --layout "$layout" --counts=$m 2> "$tmp/err" |
          funcInsts || true)
        grep "instruction counts from the table" "$tmp/err" | grep -q "kernel '$kernel'" && v=-
        row="$row | ${v:--}"
      done
      h=validation/skeletons/$name.skel hv=-
      # a hand skeleton's one kernel may be unnamed: by its name, else the file's only one
      [ -f "$h" ] && hv=$({ skelcast explain "$h" --kernel "$kernel" --layout "$layout" 2> /dev/null ||
        skelcast explain "$h" --layout "$layout" 2> /dev/null; } | funcInsts || true)
      echo "$row | ${hv:--} |"
    done
done
