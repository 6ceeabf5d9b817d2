#!/usr/bin/env bash
# The "what each model term changed" table of docs/validation.md: `skelcast
# validate` of the given measurement files with every term on, with the other
# models, and with each term of the skelcast model switched off in turn; each
# from the cases' C files (the user's path) and from the hand skeletons (the
# model alone). The doc's table is this script's output
# (tests/docs/check_examples.sh).
#   tools/validation_terms.sh HW MEASUREMENTS.json...    (skelcast on PATH)
set -euo pipefail
hw=$1
shift
row() {
  local label=$1 out c m
  shift
  out=$(skelcast validate "$@" --hw "$hw")
  # "96 cases: geometric-mean error 20.2% (max 131.6%); roofline 75.4%" and
  # "14 of 16 kernels: projected favourite within 10% of the fastest measured"
  c=$(sed -n 's/^[0-9]* cases: geometric-mean error \([^ ]*\) (max \([^)]*\)).*/\1 | \2/p' <<<"$out")
  c="$c | $(sed -n 's/^\([0-9]* of [0-9]*\) kernels: projected favourite.*/\1/p' <<<"$out")"
  # "from the hand skeletons (...): 96 cases: geometric-mean error 18.7% (max 106.2%); ...: 16 of 16 kernels"
  m=$(sed -n 's/^from the hand skeletons.*: [0-9]* cases: geometric-mean error \([^ ]*\) (max \([^)]*\)); .*: \([0-9]* of [0-9]*\) kernels$/\1 | \2 | \3/p' <<<"$out")
  if [ -z "$m" ] || [ "$c" = " | " ]; then
    echo "tools/validation_terms.sh: no summary in the output of: skelcast validate $* --hw $hw" >&2
    exit 1
  fi
  echo "| \`$label\` | $c | $m |"
}
echo "| model | from C: geometric-mean error | max error | favourite within 10% | model only: geometric-mean error | max error | favourite within 10% |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row skelcast "$@"
row hong-kim "$@" --model hong-kim
row roofline "$@" --model roofline
terms=$(skelcast validate --help | sed -n 's/.*--without TEXT:{\([^}]*\)}.*/\1/p' | tr ',' ' ')
[ -n "$terms" ] || { echo "tools/validation_terms.sh: no term list in 'skelcast validate --help'" >&2; exit 1; }
for t in $terms; do row "skelcast --without $t" "$@" --without "$t"; done
