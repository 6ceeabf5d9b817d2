#!/usr/bin/env bash
# Proves that skelcast's output is byte-identical to the output recorded before
# the performance work of issue 8: runs every line of tests/identity/cases.txt
# (skelcast arguments) and compares the SHA-256 of its stdout and its exit code
# with tests/identity/expected.sha256. Run from anywhere:
#   tests/identity/check.sh SKELCAST [-j N]              compare (exit 1 on any difference)
#   tests/identity/check.sh SKELCAST --save DIR [-j N]   compare and keep each output in DIR
#   tests/identity/check.sh SKELCAST --every N [-j N]    compare cases 1, 1 + N, 1 + 2N, ... only
#   tests/identity/check.sh SKELCAST --record [-j N]     rewrite expected.sha256 (only from a
#                                                        build whose numbers are the reference)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(realpath "$1"); shift
mode=check save="" jobs=2 every=1
while (($#)); do
  case $1 in
    --record) mode=record ;;
    --every) every=$2; shift ;;
    --save) save=$(realpath -m "$2"); shift ;;
    -j) jobs=$2; shift ;;
    *) echo "check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$save" ] && mkdir -p "$save"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One case: prints "<sha256> <rc> <n>" for case number n.
run_case() {
  local n=$1 args
  args=$(sed -n "${n}p" "$work/cases")
  local out="$work/out.$n"
  local rc=0
  (cd "$root" && eval "\"$bin\" $args") >"$out" 2>/dev/null || rc=$?
  echo "$(sha256sum <"$out" | cut -c1-64) $rc $n"
  if [ -n "$save" ]; then mv "$out" "$save/$(printf '%04d' "$n").out"; else rm -f "$out"; fi
}
export -f run_case
export bin root work save

if [ "$every" != 1 ] && [ "$mode" = record ]; then
  echo "check.sh: --record records every case; --every does not go with it" >&2; exit 2
fi
grep -v '^#' "$here/cases.txt" | grep -v '^$' >"$work/cases"
# --every N (the sanitizer build, tests/CMakeLists.txt): cases 1, 1 + N, 1 + 2N, ...
# against the same lines of expected.sha256.
seq 1 "$every" "$(wc -l <"$work/cases")" >"$work/picked"
count=$(wc -l <"$work/picked")
picked() { awk 'NR==FNR{p[$1]=1; next} p[FNR]' "$work/picked" "$1"; } # those lines of file $1
xargs -P "$jobs" -I{} bash -c 'run_case {}' <"$work/picked" | sort -k3,3n >"$work/results"
# expected.sha256: "<sha256> <rc> <arguments>" per case, in the order of cases.txt.
paste -d' ' <(cut -d' ' -f1,2 "$work/results") <(picked "$work/cases") >"$work/actual"
picked "$here/expected.sha256" >"$work/expected"
if [ "$mode" = record ]; then
  cp "$work/actual" "$here/expected.sha256"
  echo "identity: recorded $count cases in $here/expected.sha256"
  exit 0
fi
if diff "$work/expected" "$work/actual" >"$work/diff"; then
  echo "identity: all $count outputs byte-identical to expected.sha256"
  exit 0
fi
echo "identity: outputs differ from expected.sha256 (< expected, > actual):"
cat "$work/diff"
exit 1
