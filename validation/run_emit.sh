#!/bin/bash
# The emitted CUDA of every C example and validation kernel, measured
# (docs/emit.md): for each file of validation/emit_sources.txt (examples/ and
# validation/c/) the projected top 5 layouts (on --hw h100) and the naive one are
# emitted, built with nvcc for the GPU's architecture, run (each checks itself
# against the C nest on the host and times the kernel), and the records are
# gathered into one measurement file that `skelcast validate` reads.
#
# One command on a machine with a GPU, nvcc and a built skelcast:
#   bash validation/run_emit.sh [OUT]                 (OUT default: /tmp/emit_run)
# Where skelcast is not built (a bare GPU machine), emit first elsewhere and
# carry the folder:
#   EMIT_ONLY=1 bash validation/run_emit.sh DIR       (needs build/skelcast, no GPU)
#   EMITTED=DIR bash validation/run_emit.sh [OUT]     (needs nvcc and a GPU, no skelcast)
# Then: build/skelcast validate OUT/emit_kernels.json --hw h100. The cases name their
# C files from the repository root; "skeleton_root" leads there from OUT
# (SKELETON_ROOT overrides it: "../.." for a file moved into validation/results/).
# Settings: SKELCAST (default build/skelcast), HW (h100), TOP (5), ARCH (sm_90),
# NVCC (nvcc on PATH, else /usr/local/cuda/bin/nvcc), JOBS (nproc), REPEATS (30),
# ROUNDS (1) and ROUNDS_BELOW_MS (0.05): with ROUNDS=R > 1 every program whose
# first time is below ROUNDS_BELOW_MS runs R - 1 more times after the first pass
# (the even rounds in reverse order), and its time_ms is the median of the
# rounds' times (listed in round_ms). A few-microsecond kernel's time moves by
# a microsecond from one minute to the next (the launch queue's, not the
# layout's), which one pass's repeats cannot show (docs/validation.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-/tmp/emit_run}
SKELCAST=${SKELCAST:-$ROOT/build/skelcast}
HW=${HW:-h100}
TOP=${TOP:-5}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}
REPEATS=${REPEATS:-30}
ROUNDS=${ROUNDS:-1}
ROUNDS_BELOW_MS=${ROUNDS_BELOW_MS:-0.05}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "run_emit.sh: ROUNDS must be a whole number >= 1, is '$ROUNDS'" >&2; exit 1; }
[[ $ROUNDS_BELOW_MS =~ ^[0-9]*\.?[0-9]+$ ]] ||
  { echo "run_emit.sh: ROUNDS_BELOW_MS must be a number of milliseconds, is '$ROUNDS_BELOW_MS'" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The C files and their options: validation/emit_sources.txt (the examples and
# the C versions of the validation kernels). Each file's layouts go into a folder
# named after its path (examples/conv2d.c -> examples__conv2d).
SOURCES=${SOURCES:-$ROOT/validation/emit_sources.txt}
emit_all() { # DIR: the naive layout and the top $TOP of each file's kernels
  local dir=$1
  cp "$SOURCES" "$dir/sources.txt"
  while IFS='|' read -r file args; do
    case "$file" in ''|\#*) continue ;; esac
    local sub=${file%.c}; sub=${sub//\//__}
    # shellcheck disable=SC2086
    (cd "$ROOT" && "$SKELCAST" emit "$file" $args --hw "$HW" --layout naive \
        --skip-unsupported -o "$dir/$sub" && \
      "$SKELCAST" emit "$file" $args --hw "$HW" --top "$TOP" --skip-unsupported \
        -o "$dir/$sub") > /dev/null 2>> "$dir/emit_warnings.txt" || \
      echo "$file: nothing emitted (see emit_warnings.txt)"
  done < "$SOURCES"
  echo "emitted $(ls "$dir"/*/*.cu | wc -l) CUDA files into $dir"
}

if [ -n "${EMIT_ONLY:-}" ]; then
  emit_all "$OUT"
  exit 0
fi
if [ -n "${EMITTED:-}" ]; then
  SRC=$(cd "$EMITTED" && pwd)
else
  SRC=$OUT/emitted
  mkdir -p "$SRC"
  emit_all "$SRC"
fi
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "run_emit.sh: no nvcc (set NVCC)" >&2; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/env.txt" 2>&1 || true
"$NVCC" --version >> "$OUT/env.txt"

# build everything in parallel: nvcc -O3 -arch=$ARCH, with ptxas's resource report
mkdir -p "$OUT/bin"
ls "$SRC"/*/*.cu | xargs -P "$JOBS" -I{} sh -c \
  'f={}; b='"$OUT"'/bin/$(basename "$(dirname "$f")")__$(basename "$f" .cu);
   "'"$NVCC"'" -O3 -arch='"$ARCH"' -Xcompiler -fopenmp -Xptxas -v -o "$b" "$f" > "$b.build.txt" 2>&1 || echo "BUILD FAILED: $f"'

# run one at a time (timings need the GPU alone); each prints one record
: > "$OUT/log.txt"
rm -f "$OUT"/bin/*.round*.json # an earlier run's rounds
records=()
for f in "$SRC"/*/*.cu; do
  b=$OUT/bin/$(basename "$(dirname "$f")")__$(basename "$f" .cu)
  [ -x "$b" ] || continue
  rc=0
  "$b" --repeats "$REPEATS" > "$b.json" 2>> "$OUT/log.txt" || rc=$?
  [ $rc -eq 0 ] || echo "$(basename "$b"): exit $rc (3: the result is wrong, 2: a CUDA error)" | tee -a "$OUT/log.txt"
  # the record names its skeleton: the .skel beside the .cu
  [ -s "$b.json" ] && records+=("$b.json" "${f%.cu}.skel")
done

# the later rounds: the short programs again, the even rounds in reverse order
programs=()
if ((ROUNDS > 1)); then
  while IFS= read -r b; do programs+=("$b"); done < <(python3 - "$ROUNDS_BELOW_MS" "${records[@]}" <<'PY'
import json, sys
below, rest = float(sys.argv[1]), sys.argv[2:]
for f in rest[0::2]:  # the records; the .skel files between them
    if json.load(open(f))["cases"][0]["time_ms"] < below:
        print(f[:-5])
PY
)
fi
for ((r = 2; r <= ROUNDS; r++)); do
  order=(${programs[@]+"${programs[@]}"})
  if ((r % 2 == 0)); then
    order=()
    for ((i = ${#programs[@]} - 1; i >= 0; i--)); do order+=("${programs[i]}"); done
  fi
  for b in ${order[@]+"${order[@]}"}; do
    rc=0
    "$b" --repeats "$REPEATS" > "$b.round$r.json" 2>> "$OUT/log.txt" || rc=$?
    [ $rc -eq 0 ] || echo "$(basename "$b") (round $r): exit $rc" | tee -a "$OUT/log.txt"
    [ -s "$b.round$r.json" ] || rm -f "$b.round$r.json" # no record: the case is marked unverified
  done
done

if [ ${#records[@]} -eq 0 ]; then
  echo "run_emit.sh: no program printed a record (no GPU? see $OUT/log.txt):" >&2
  tail -3 "$OUT/log.txt" >&2
  exit 1
fi
python3 - "$OUT/emit_kernels.json" "$ROOT" "${SKELETON_ROOT:-}" "$SRC/sources.txt" "$ROUNDS" "$ROUNDS_BELOW_MS" "${records[@]}" <<'PY'
import json, os, re, shlex, statistics, sys
out, root, skel_root, sources = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rounds, rounds_below, rest = int(sys.argv[5]), sys.argv[6], sys.argv[7:]
# Each case names its C file, the options it was emitted with and its kernel
# there (as `skelcast validate --run` writes them: validation/README.md), so
# validate projects it from C, the user's path.
options = {}
for line in open(sources):
    if line.strip() and not line.startswith("#"):
        file, args = line.rstrip("\n").split("|", 1)
        options[file[:-2].replace("/", "__")] = (file, shlex.split(args))
def name_c_file(c, skel):
    file, args = options[os.path.basename(os.path.dirname(skel))]
    c.pop("skeleton", None)
    c["c"] = file
    c["c_kernel"] = re.search(r"parallel_for\s+(\w+)", open(skel).read()).group(1)
    for opt, value in zip(args[0::2], args[1::2]):
        name, val = value.split("=", 1)
        if opt == "-D":
            c.setdefault("c_args", []).append("-D" + value)
        elif opt == "--extent":
            c.setdefault("c_extent", {})[name] = [int(x) for x in val.split(",")]
        elif opt == "--trip":
            c.setdefault("c_trip", {})[name] = int(val)
        elif opt == "--sample":
            c.setdefault("c_sample", {})[name] = val
        else:
            sys.exit(f"emit_sources.txt: option {opt} is not one a measurement case can name")
merged, bad = None, []
for f, skel in zip(rest[0::2], rest[1::2]):
    j = json.load(open(f))
    c = j["cases"][0]
    name_c_file(c, skel)
    later, missing = [], False
    if rounds > 1 and c["time_ms"] < float(rounds_below):
        for r in range(2, rounds + 1):
            g = f"{f[:-5]}.round{r}.json"
            if os.path.exists(g):
                later.append(json.load(open(g))["cases"][0])
            else:
                missing = True
    if missing:
        c["verified"] = False
    if later:
        c["round_ms"] = [c["time_ms"]] + [x["time_ms"] for x in later]
        c["time_ms"] = statistics.median(c["round_ms"])
        c["verified"] = c.get("verified") and all(x.get("verified") for x in later)
    if not c.get("verified"):
        bad.append(os.path.basename(f))
    if merged is None:
        merged = {k: j[k] for k in ("schema_version", "gpu", "method", "timing") if k in j}
        if rounds > 1:
            merged["method"] += (f"; a program under {rounds_below} ms in the first round is timed in {rounds} rounds "
                                 "(the even ones in reverse order) and time_ms is the median of the rounds' "
                                 "time_ms (round_ms)")
        merged["skeleton_root"] = skel_root or os.path.relpath(root, os.path.dirname(os.path.abspath(out)))
        merged["cases"] = []
    elif j["gpu"]["name"] != merged["gpu"]["name"]:
        sys.exit("records of different GPUs")
    merged["cases"].append(c)
json.dump(merged, open(out, "w"), indent=1)
print(f"{len(merged['cases'])} cases on {merged['gpu']['name']} -> {out}")
print("not verified:", ", ".join(bad) if bad else "none")
for c in merged["cases"]:
    print(f"  {c['kernel']:20s} {c['layout']:60s} {c['time_ms']:10.4f} ms  err {c['rel_error']:.2e}")
PY
