#!/usr/bin/env bash
# Reads Nsight Compute counters of the validation kernels, one launch per case
# (PROFILE=1 makes time_launches launch once, untimed), with the clocks left as
# they are (--clock-control none) and caches flushed before each launch (ncu's
# default).  The counters say what limits each layout (pipe use, L1/L2 hit
# rates, shared-memory wavefronts, warp stall reasons): docs/validation.md uses
# them to explain where the model and the GPU disagree.
#   OUT=/path bash validation/profile.sh [program ...]   (default: matmul hotspot spinflap stream)
# Writes OUT/profile_<program>.csv (ncu --page raw --csv) and OUT/profile_log.txt.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-validation/out}
ARCH=${ARCH:-sm_90}
BUILD=${BUILD:-/tmp/skelcast_validation_build}
PROGS=${*:-matmul hotspot spinflap stream}
mkdir -p "$OUT" "$BUILD"
LOG=$OUT/profile_log.txt
: > "$LOG"
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section MemoryWorkloadAnalysis_Chart --section Occupancy --section LaunchStats --section WarpStateStats \
  --section InstructionStats --section SchedulerStats"
for p in $PROGS; do
  # (re)build unless a binary newer than its sources exists (an older one may
  # predate PROFILE=1 and would time every repeat under the profiler)
  [ -x "$BUILD/$p" ] && [ "$BUILD/$p" -nt "validation/kernels/$p.cu" ] && \
    [ "$BUILD/$p" -nt validation/kernels/common.cuh ] || nvcc -arch=$ARCH -O3 -std=c++17 -Xcompiler -fopenmp -lgomp \
    "validation/kernels/$p.cu" -o "$BUILD/$p" >> "$LOG" 2>&1 || { echo "BUILD FAILED: $p" | tee -a "$LOG"; exit 1; }
  s=$(date +%s)
  PROFILE=1 ncu --clock-control none $SECTIONS -f -o "$BUILD/profile_$p" \
    "$BUILD/$p" "$BUILD/profile_cases_$p.json" >> "$LOG" 2>&1
  rc=$?
  ncu --import "$BUILD/profile_$p.ncu-rep" --csv --page raw > "$OUT/profile_$p.csv" 2>> "$LOG"
  echo "=== $p rc=$rc ($(( $(date +%s) - s )) s)" | tee -a "$LOG"
done
