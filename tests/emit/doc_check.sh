#!/bin/bash
# docs/emit.md shows one kernel whole between `<!-- emit:begin FILE LAYOUT -->` and
# `<!-- emit:end -->`: it must be what `skelcast emit FILE --layout LAYOUT -o -`
# prints (its kernel function). With --regen, the block is rewritten.
set -euo pipefail
SKELCAST=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DOC=$ROOT/docs/emit.md
cd "$ROOT"
spec=$(grep -o '<!-- emit:begin [^>]*-->' "$DOC" | sed -e 's/<!-- emit:begin //' -e 's/ -->$//')
file=${spec%% *}
layout=${spec#* }
full=$("$SKELCAST" emit "$file" --layout "$layout" -o -)
kernel=$(echo "$full" | awk '/^extern "C" __global__/{on=1} on&&!done{print} on&&/^}$/{done=1}')
[ -n "$kernel" ] || { echo "FAIL: emit printed no kernel for $file '$layout'"; exit 1; }
shown=$(awk '/<!-- emit:begin/{on=1; next} /<!-- emit:end/{on=0} on' "$DOC" | sed -e '/^```/d')
if [ "${2:-}" = --regen ]; then
  python3 - "$DOC" "$kernel" <<'PY'
import re, sys
doc, kernel = sys.argv[1], sys.argv[2]
s = open(doc).read()
s = re.sub(r'(<!-- emit:begin [^>]*-->\n)```cuda\n.*?```\n(<!-- emit:end -->)',
           lambda m: m.group(1) + "```cuda\n" + kernel + "\n```\n" + m.group(2), s, flags=re.S)
open(doc, "w").write(s)
PY
  echo "rewrote the kernel in $DOC"
  exit 0
fi
if [ "$kernel" != "$shown" ]; then
  echo "FAIL: docs/emit.md's kernel differs from what emit prints (regenerate with $0 SKELCAST --regen):"
  diff <(echo "$shown") <(echo "$kernel") | head -40
  exit 1
fi
echo "docs/emit.md's kernel is emit's output"
