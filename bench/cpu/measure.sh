#!/usr/bin/env bash
# Measures the CPU times that bench/suite.json gives as "cpu_ms": each loop nest
# of bench/cpu/loops.c, sequential C built with `cc -O2`, median of 5 runs after
# a warm-up. Prints one line per benchmark of the suite: `name ms`.
# Usage: bash bench/cpu/measure.sh [benchmark...]   (default: all below)
# Run it on an idle machine, then copy the numbers into bench/suite.json and
# say in its "description" which CPU they come from.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
${CC:-cc} -O2 -std=c11 -o "$bin" bench/cpu/loops.c -lm

declare -A cases=(
  [matmul]="matmul 800 400 800"          [matmul_800]="matmul 800 400 800"
  [hotspot]="hotspot 512 512"            [hotspot_512]="hotspot 512 512"
  [hotspot_1024]="hotspot 1024 1024"     [hotspot_4096]="hotspot 4096 4096"
  [streaming_1M]="triad 1048576"         [streaming_64M]="triad 67108864"
  [compute_heavy_1M]="heavy 1048576"     [compute_heavy_16M]="heavy 16777216"
  [transpose_1024]="transpose 1024"      [transpose_4096]="transpose 4096"
  [ispinex_real]="ispinex_real 132 4096" [ispinex_real_4096]="ispinex_real 132 4096"
  [ispinex_real_65536]="ispinex_real 132 65536"
)
names=("$@")
if ((${#names[@]} == 0)); then
  mapfile -t names < <(printf '%s\n' "${!cases[@]}" | sort)
fi
for n in "${names[@]}"; do
  [[ -n "${cases[$n]:-}" ]] || { echo "measure.sh: no CPU loop for '$n'" >&2; exit 2; }
  # shellcheck disable=SC2086
  echo "$n $("$bin" ${cases[$n]} 2>/dev/null)"
done
