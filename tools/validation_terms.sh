#!/usr/bin/env bash
# The "what each model term changed" table of docs/validation.md: `skelcast
# validate` of the given measurement files with every term on, with the other
# models, and with each term of the skelcast model switched off in turn (the
# doc's table is this script's output: tests/docs/check_examples.sh).
#   tools/validation_terms.sh HW MEASUREMENTS.json...    (skelcast on PATH)
set -euo pipefail
hw=$1
shift
row() {
  local label=$1 out err max fav
  shift
  out=$(skelcast validate "$@" --hw "$hw")
  # "112 cases: geometric-mean error 20.7% (max 130.5%); roofline 45.7%"
  err=$(sed -n 's/^[0-9]* cases: geometric-mean error \([^ ]*\) (max \([^)]*\)).*/\1 | \2/p' <<<"$out")
  # "20 of 20 kernels: projected favourite within 10% of the fastest measured"
  fav=$(sed -n 's/^\([0-9]* of [0-9]*\) kernels: projected favourite.*/\1/p' <<<"$out")
  [ -n "$err" ] && [ -n "$fav" ] || { echo "tools/validation_terms.sh: no summary in the output of: skelcast validate $* --hw $hw" >&2; exit 1; }
  echo "| \`$label\` | $err | $fav |"
}
echo "| model | geometric-mean error | max error | projected favourite within 10% |"
echo "| --- | ---: | ---: | ---: |"
row skelcast "$@"
row hong-kim "$@" --model hong-kim
row roofline "$@" --model roofline
terms=$(skelcast validate --help | sed -n 's/.*--without TEXT:{\([^}]*\)}.*/\1/p' | tr ',' ' ')
[ -n "$terms" ] || { echo "tools/validation_terms.sh: no term list in 'skelcast validate --help'" >&2; exit 1; }
for t in $terms; do row "skelcast --without $t" "$@" --without "$t"; done
