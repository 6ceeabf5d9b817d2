#!/usr/bin/env bash
# Golden test of the skelcast CLI: tests/cli/<case>/cmd holds the arguments (one
# line, paths relative to the repository root); `expected` is the stdout,
# `expected_rc` the exit code (0 when absent), `expected_stderr` the stderr (not
# compared when absent). Run from the repository root.
#   run_golden.sh SKELCAST CASE_DIR           compare
#   run_golden.sh SKELCAST CASE_DIR --regen   rewrite the expectations (then review them)
set -u
bin=$1 dir=$2 mode=${3:-}
args=$(head -n 1 "$dir/cmd")
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
eval "\"$bin\" $args" >"$out" 2>"$err"
rc=$?
if [ "$mode" = "--regen" ]; then
  cp "$out" "$dir/expected"
  [ "$rc" -ne 0 ] && echo "$rc" >"$dir/expected_rc" || rm -f "$dir/expected_rc"
  [ -s "$err" ] && cp "$err" "$dir/expected_stderr" || rm -f "$dir/expected_stderr"
  exit 0
fi
want_rc=0
[ -f "$dir/expected_rc" ] && want_rc=$(cat "$dir/expected_rc")
fail=0
if [ "$rc" != "$want_rc" ]; then
  echo "exit code: expected $want_rc, got $rc"; fail=1
fi
if ! diff -u "$dir/expected" "$out"; then
  echo "stdout differs from $dir/expected (- expected, + actual)"; fail=1
fi
if [ -f "$dir/expected_stderr" ] && ! diff -u "$dir/expected_stderr" "$err"; then
  echo "stderr differs from $dir/expected_stderr (- expected, + actual)"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: skelcast $args"
exit $fail
