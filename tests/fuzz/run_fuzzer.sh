#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time (a ctest step of the sanitizer
# build). The working corpus and crash artifacts live in WORKDIR (the build
# tree); the seed directories are only read.
#   run_fuzzer.sh FUZZER SECONDS WORKDIR SEED_DIR...
set -euo pipefail
bin=$1 seconds=$2 work=$3
shift 3
mkdir -p "$work/corpus" "$work/artifacts"
# -timeout=1: an input that takes longer than a second is a hang, hence a bug.
exec "$bin" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -max_len=16384 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$@"
