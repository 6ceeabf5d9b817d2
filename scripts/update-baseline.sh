#!/usr/bin/env bash
# Regenerates bench/baseline.json, the baseline of the project's own suite that
# the test suite checks against (ctest: bench.check). Run it from a build whose
# projections you mean to accept -- after a change of the model, a spec or a
# bundled skeleton -- and commit the result with the change that caused it;
# `git diff bench/baseline.json` shows every projection that moved.
#   scripts/update-baseline.sh [path/to/skelcast]     (default: build/skelcast)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/skelcast}
"$bin" check bench/suite.json --baseline bench/baseline.json --hw h100,a100 --update-baseline
