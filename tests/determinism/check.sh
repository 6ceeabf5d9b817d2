#!/usr/bin/env bash
# Determinism (issue 7, item 5): the same input gives byte-identical JSON from
# separate runs of the executable (other addresses, other heap layout, another
# working directory, another environment).
#   check.sh SKELCAST SOURCE_DIR
# TODO(batch merge): also compare `skelcast batch` JSON reports run with -j 1
# and -j 2 (and -j 8) on bench/suite.json; they must be byte-identical.
set -euo pipefail
bin=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
skels=("$src"/skeletons/*.skel "$src"/validation/skeletons/fusion_chain_16.skel
       "$src"/validation/skeletons/hotspot_program_1024_10.skel)
run() { # run OUT ARGS...: from a scratch directory, with a perturbed heap
  local out=$1
  shift
  (cd "$work" && env MALLOC_PERTURB_="$((RANDOM % 255 + 1))" SKELCAST_DETERMINISM_RUN="$out" \
     "$bin" "$@" >"$out")
}
fail=0
for spec in h100 fx5600; do
  run "$work/a.json" project "${skels[@]}" --hw "$spec" --format json --top 20 --cpu-ms 5
  run "$work/b.json" project "${skels[@]}" --hw "$spec" --format json --top 20 --cpu-ms 5
  if ! cmp -s "$work/a.json" "$work/b.json"; then
    echo "project --format json on $spec differs between two runs:"
    diff "$work/a.json" "$work/b.json" | head -20
    fail=1
  fi
done
run "$work/a.txt" explain "$src/skeletons/matmul.skel" --hw h100 --layout 'block=i:16,j:16 stage=k:16 cache=A,B'
run "$work/b.txt" explain "$src/skeletons/matmul.skel" --hw h100 --layout 'block=i:16,j:16 stage=k:16 cache=A,B'
cmp -s "$work/a.txt" "$work/b.txt" || { echo "explain differs between two runs"; fail=1; }
[ $fail -eq 0 ] && echo "ok: identical output from separate runs"
exit $fail
