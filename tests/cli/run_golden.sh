#!/usr/bin/env bash
# Golden test of the skelcast executable (the frontend branch's minimal runner).
#   run_golden.sh [--regen] SKELCAST CASE_DIR
# CASE_DIR/cmd holds the arguments (one line, split at whitespace, paths
# relative to the repository root); CASE_DIR/expected the exact stdout;
# optional CASE_DIR/expected_stderr the exact stderr, CASE_DIR/expected_rc the
# exit code (0 when absent). Runs from the repository root. On a mismatch it
# prints a diff and exits 1. --regen rewrites the expectations from this run
# (expected always; expected_stderr when stderr is not empty or the file
# exists; expected_rc when the code is not 0) for a reviewer to read.
set -u
regen=0
if [ "${1:-}" = "--regen" ]; then
  regen=1
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--regen] SKELCAST CASE_DIR" >&2
  exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
case_dir=$(cd "$2" && pwd)
cd "$(dirname "$0")/../.."

read -r -a args <"$case_dir/cmd"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$bin" "${args[@]}" >"$out" 2>"$err"
rc=$?

if [ $regen -eq 1 ]; then
  cp "$out" "$case_dir/expected"
  if [ -s "$err" ] || [ -e "$case_dir/expected_stderr" ]; then
    cp "$err" "$case_dir/expected_stderr"
  fi
  if [ $rc -ne 0 ]; then
    echo "$rc" >"$case_dir/expected_rc"
  else
    rm -f "$case_dir/expected_rc"
  fi
  echo "regenerated $case_dir (exit code $rc)"
  exit 0
fi

status=0
if ! diff -u "$case_dir/expected" "$out" >&2; then
  echo "stdout differs from $case_dir/expected" >&2
  status=1
fi
if [ -e "$case_dir/expected_stderr" ]; then
  if ! diff -u "$case_dir/expected_stderr" "$err" >&2; then
    echo "stderr differs from $case_dir/expected_stderr" >&2
    status=1
  fi
fi
want_rc=0
if [ -e "$case_dir/expected_rc" ]; then
  want_rc=$(tr -d '[:space:]' <"$case_dir/expected_rc")
fi
if [ "$rc" != "$want_rc" ]; then
  echo "exit code $rc, expected $want_rc" >&2
  [ -s "$err" ] && { echo "stderr:" >&2; cat "$err" >&2; }
  status=1
fi
exit $status
