# Sourced by the scripts that profile emitted layouts (banks_ncu.sh,
# spills_ncu.sh): each names its layouts ("C file|layout") and Nsight Compute
# metrics, and these two steps do the rest.
# emit_layouts DIR ENTRY...: here, `skelcast emit` (SKELCAST=build/skelcast)
#   each layout ("C file|layout", or "C file#kernel|layout" for one kernel of
#   several) into a folder of DIR named after it, printing the folder.
emit_layouts() {
  local dir=$1 e c l d k
  shift
  for e in "$@"; do
    c=${e%%|*}; l=${e#*|}; k=()
    case $c in *'#'*) k=(--kernel "${c#*#}"); c=${c%%#*};; esac
    d="$dir/$(basename "$c" .c)${k[1]:+_${k[1]}}_$(echo "$l" | tr -c 'a-z0-9' '_')"
    "${SKELCAST:-build/skelcast}" emit "$c" "${k[@]}" --hw h200 --layout "$l" -o "$d" > /dev/null || return 1
    echo "$d"
  done
}
# profile_layouts DIR METRICS: on the device, each folder's program built with
#   nvcc -O3 -arch=sm_90, run for its own record (--repeats 20), and its fourth
#   launch profiled (ncu, clocks left as they are; NCU_ARGS adds options) for
#   METRICS.
profile_layouts() {
  local dir=$1 metrics=$2 d cu b k
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for d in "$dir"/*/; do
    cu=$(ls "$d"*.cu); b="$d/prog"
    echo "=== $(head -1 "$cu" | sed 's|^// ||')"
    nvcc -arch=sm_90 -O3 -std=c++17 -Xcompiler -fopenmp "$cu" -o "$b" > /dev/null 2>&1 || { echo "BUILD FAILED"; continue; }
    "$b" --repeats 20 | grep -E "\"(time_ms|rel_error)\"" | tr -s " "
    k=$(grep -o "skelcast_[a-z0-9_]*" "$cu" | head -1)
    ncu --clock-control none ${NCU_ARGS:-} --metrics "$metrics" -k "$k" --launch-skip 3 -c 1 "$b" --repeats 2 2>&1 |
      grep -E "^ *[a-z0-9]+__" | tr -s ' '
    rm -f "$b"
  done
}
