#!/usr/bin/env bash
# Builds and runs every skelcast validation measurement on the local NVIDIA GPU.
#   OUT=/path/to/results bash validation/run_all.sh
# Environment: OUT (results folder, default validation/out), ARCH (default sm_90;
# use e.g. sm_80 or native on other GPUs), TAG (file prefix, default h100),
# QUICK=1 (smoke test: few repeats, small transfer/fusion sizes), SASS=1 (also
# dump the SASS of the kernel programs into OUT/sass.txt), BUILD (build folder),
# ONLY (a subset of the programs below, e.g. ONLY="calibrate stream": a re-run of
# some kernels; the result files then hold only what ran).
# Writes OUT/${TAG}_{kernels,calibration,transfers,programs}.json, OUT/env.txt,
# OUT/log.txt and prints a summary table.  Never changes GPU settings.
# Steps beside the hand-written programs: `inflight` (DRAM bandwidth against
# the warps per SM: OUT/${TAG}_inflight.txt), `inflight_grid` (the whole GPU's
# DRAM bandwidth against the bytes in flight per SM, hwspecs'
# dram_gbps_by_bytes_in_flight: OUT/${TAG}_inflight_grid.json) and `emit` (validation/run_emit.sh:
# the naive layout and the projected top 5 of every example and validation
# kernel, emitted by skelcast, built, checked and timed: OUT/${TAG}_emitted_kernels.json;
# it needs build/skelcast, or EMITTED=DIR of files emitted elsewhere).
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/validation/out}
ARCH=${ARCH:-sm_90}
TAG=${TAG:-h100}
BUILD=${BUILD:-/tmp/skelcast_validation_build}
mkdir -p "$OUT" "$BUILD"
LOG=$OUT/log.txt
: > "$LOG"
say() { echo "$@" | tee -a "$LOG"; }

{
  echo "## nvidia-smi (before)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem --format=csv
  echo "## nvcc"
  nvcc --version
  echo "## host"
  uname -a; nproc; date -u
  echo "## host CPU (caches decide the pageable copy rates)"
  lscpu 2>/dev/null | grep -E "Model name|Socket|NUMA node\(s\)|L2|L3" || true
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

ALL="calibrate matmul hotspot ispinex spinflap stream transpose shapes transfers pageable_probe copy_context fusion hotspot_steps inflight inflight_grid emit"
PROGS=${ONLY:-$ALL}
for p in $PROGS; do
  case " $ALL " in *" $p "*) ;; *) echo "ONLY: unknown program '$p' (known: $ALL)"; exit 1;; esac
done
wanted() { case " $PROGS " in *" $1 "*) return 0;; *) return 1;; esac; }
FLAGS="-arch=$ARCH -O3 -std=c++17 -Xcompiler -fopenmp -lgomp -Xptxas -v"
t0=$(date +%s)
pids=()
for p in $PROGS; do
  [ "$p" = emit ] && continue # run_emit.sh builds what skelcast emits
  nvcc $FLAGS "validation/kernels/$p.cu" -o "$BUILD/$p" > "$BUILD/$p.build.log" 2>&1 &
  pids+=($!)
done
fail=0
i=0
for p in $PROGS; do
  [ "$p" = emit ] && continue
  if ! wait "${pids[$i]}"; then say "BUILD FAILED: $p"; cat "$BUILD/$p.build.log" | tee -a "$LOG"; fail=1; fi
  i=$((i+1))
done
say "build: $(( $(date +%s) - t0 )) s"
[ $fail = 0 ] || exit 1
# ptxas resource report (registers, smem, spills) of every kernel
grep -h -E "Function properties|registers|spill" "$BUILD"/*.build.log > "$OUT/ptxas.txt" || true

if [ "${SASS:-0}" = 1 ]; then
  : > "$OUT/sass.txt"
  for p in matmul hotspot ispinex spinflap stream transpose calibrate; do
    wanted $p || continue
    echo "#### $p" >> "$OUT/sass.txt"
    cuobjdump -sass "$BUILD/$p" 2>&1 | sed -E 's@/\* 0x[0-9a-f]+ \*/@@; s/ +$//' | grep -v -E '^\s*$' >> "$OUT/sass.txt"
  done
fi

run() {  # name, command...
  local name=$1; shift
  local s=$(date +%s)
  say "=== $name"
  "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  say "=== $name rc=$rc ($(( $(date +%s) - s )) s)"
}
rm -f "$BUILD"/cases_*.json "$BUILD"/prog_*.json # nothing of an earlier run is merged
wanted calibrate && run calibrate "$BUILD/calibrate" "$OUT/${TAG}_calibration.json"
for p in matmul hotspot ispinex spinflap stream transpose shapes; do
  wanted $p && run $p "$BUILD/$p" "$BUILD/cases_$p.json"
done
wanted transfers && run transfers "$BUILD/transfers" "$OUT/${TAG}_transfers.json"
wanted pageable_probe && run pageable_probe "$BUILD/pageable_probe" "$OUT/${TAG}_pageable_probe.json"
wanted copy_context && run copy_context "$BUILD/copy_context" "$OUT/${TAG}_copy_context.json"
wanted fusion && run fusion "$BUILD/fusion" "$BUILD/prog_fusion.json"
wanted hotspot_steps && run hotspot_steps "$BUILD/hotspot_steps" "$BUILD/prog_hotspot_steps.json"
wanted inflight && run inflight sh -c "'$BUILD/inflight' > '$OUT/${TAG}_inflight.txt'"
wanted inflight_grid && run inflight_grid sh -c "'$BUILD/inflight_grid' > '$OUT/${TAG}_inflight_grid.json'"
if wanted emit; then
  # SKELETON_ROOT: the cases name their C files from the repository root, which
  # is ../.. from validation/results/, where the file is kept
  run emit env SKELETON_ROOT=../.. ARCH="$ARCH" bash validation/run_emit.sh "$OUT/emit"
  [ -s "$OUT/emit/emit_kernels.json" ] && cp "$OUT/emit/emit_kernels.json" "$OUT/${TAG}_emitted_kernels.json"
fi
{
  echo "## nvidia-smi (after)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
} >> "$OUT/env.txt" 2>&1
python3 validation/merge_results.py "$OUT" "$BUILD" "$TAG" 2>&1 | tee -a "$LOG"
say "total: $(( $(date +%s) - t0 )) s"
