#!/bin/bash
# The SASS instructions of each kernel of each built program, one line
# "BINARY FUNCTION INSTRUCTIONS" (needs cuobjdump: run it on the device).
#   bash validation/sass_count.sh BINARY...
set -u -o pipefail
command -v cuobjdump > /dev/null || { echo "sass_count.sh: no cuobjdump on PATH" >&2; exit 1; }
for b in "$@"; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  cuobjdump -sass "$b" | awk -v b="$(basename "$b")" \
    '/Function :/{f=$3} /^ +\/\*[0-9a-f]+\*\/ /{n[f]++} END{for(k in n) print b, k, n[k]}'
done
