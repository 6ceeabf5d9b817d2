#!/usr/bin/env bash
# The "done when" of issue 6: `skelcast check` on a copy of the project's suite
# in which one bundled skeleton must move more data -- one more array streamed
# through the memory-bound STREAM triad (validation/skeletons/streaming_64M.skel)
# -- fails (exit 1) and names the kernel and the GPUs, while the unedited copy
# passes. No layout can hide the edit: every element of the new array must
# cross the memory bus once. Run from the repository root:
#   tests/batch/check_demo.sh SKELCAST
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The suite refers to ../skeletons and ../validation/skeletons: copy all three.
mkdir -p "$tmp/bench" "$tmp/validation"
cp bench/suite.json "$tmp/bench/"
cp -r skeletons "$tmp/skeletons"
cp -r validation/skeletons "$tmp/validation/skeletons"
cp -r examples "$tmp/examples"
cp bench/baseline.json "$tmp/bench/"
# From inside the copy, so that the output names the suite as docs/batch.md does
# (its example is this script's output: tests/docs/check_examples.sh).
case $bin in */*) bin=$(realpath "$bin") ;; esac
check() { (cd "$tmp" && "$bin" check bench/suite.json --baseline bench/baseline.json --hw h100,a100 -j 2 --quiet "$@"); }

fail=0
if ! check >"$tmp/control.txt" 2>&1; then
  echo "FAIL: the unedited copy of the suite does not pass (is bench/baseline.json up to date?"
  echo "      scripts/update-baseline.sh regenerates it)"; cat "$tmp/control.txt"; exit 1
fi

triad=$tmp/validation/skeletons/streaming_64M.skel
sed -i -e 's/^float c\[N\]$/float c[N]\nfloat d[N]/' -e 's/^  ld c\[i\]$/  ld c[i]\n  ld d[i]/' "$triad"
if ! grep -q '^  ld d\[i\]$' "$triad" || ! grep -q '^float d\[N\]$' "$triad"; then
  echo "FAIL: could not edit the triad"; cat "$triad"; exit 1
fi
check --junit "$tmp/junit.xml" >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt"
if [ $rc -ne 1 ]; then echo "FAIL: check exited $rc, expected 1"; fail=1; fi
for gpu in h100 a100; do
  if ! grep -q "^REGRESSED  streaming_64M: kernel 'kernel0' on $gpu: time " "$tmp/out.txt"; then
    echo "FAIL: the output does not name kernel 'kernel0' of streaming_64M on $gpu"; fail=1
  fi
done
# Only the edited benchmark regressed.
others=$(grep -E '^(REGRESSED|GONE|FAILED|NEW) ' "$tmp/out.txt" | grep -vc '^REGRESSED  streaming_64M: ')
if [ "$others" -ne 0 ]; then echo "FAIL: $others other entries reported"; fail=1; fi
if ! grep -q '<testcase classname="streaming_64M" name="kernel0 on h100">' "$tmp/junit.xml" ||
   [ "$(grep -c '<failure ' "$tmp/junit.xml")" -ne 2 ]; then
  echo "FAIL: the JUnit file does not hold the two failures"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: check fails on the edited triad, naming the kernel and the GPUs"
exit $fail
