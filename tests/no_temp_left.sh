#!/usr/bin/env bash
# The cleanup of the `test_tmp` fixture (tests/CMakeLists.txt): the unit tests ran
# with TMPDIR=$1; anything left in it is a test that did not clean up.
set -euo pipefail
dir=$1
left=$(find "$dir" -mindepth 1 -maxdepth 1 2>/dev/null | sort || true)
if [ -n "$left" ]; then
  echo "tests left these in the temporary directory $dir:" >&2
  echo "$left" >&2
  exit 1
fi
