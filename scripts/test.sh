#!/usr/bin/env bash
# The README's second Quick start command and CI (.ci/run): installs what is
# missing and builds ./build (scripts/bootstrap.sh), runs the whole test suite
# there, then configures ./build-asan with clang-19, AddressSanitizer,
# UndefinedBehaviorSanitizer and the libFuzzer targets (SKELCAST_FUZZ), builds
# it and runs the whole suite again, each fuzzer for SKELCAST_FUZZ_SECONDS.
#   bash scripts/test.sh               both builds
#   SKELCAST_TEST_ASAN=0 bash scripts/test.sh    the plain build only
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh
ctest --test-dir build --output-on-failure -j 2

if [ "${SKELCAST_TEST_ASAN:-1}" = 0 ]; then
  exit 0
fi
# -O1 with line tables: symbolized reports at a fraction of RelWithDebInfo's build
# time (CI has 2 cores and 60 minutes for both builds); the benchmarks are the
# plain build's.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++-19 -DSKELCAST_FUZZ=ON -DSKELCAST_BUILD_BENCH=OFF
cmake --build build-asan -j "$(nproc)"
# Stack traces with function names; UBSan already aborts (-fno-sanitize-recover).
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/bin/llvm-symbolizer-19}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# Less the tests labelled `compiles` (tests/CMakeLists.txt: their time is nvcc's
# and clang++'s, building emitted CUDA that no sanitizer instruments) and `docs`
# (the docs' text); the plain build above has run them.
ctest --test-dir build-asan --output-on-failure -j 2 -LE 'compiles|docs'
