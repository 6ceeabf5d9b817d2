#!/usr/bin/env python3
"""Combine the per-program JSON of run_all.sh into the result files and print
a summary table.  usage: merge_results.py OUT BUILD TAG"""
import json, os, sys

out, build, tag = sys.argv[1], sys.argv[2], sys.argv[3]


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:  # noqa: BLE001
        print(f"warning: cannot read {path}: {e}")
        return default


# nvidia-smi line: name, driver, clocks.sm, clocks.max.sm, clocks.mem, clocks.max.mem
gpu = {"name": None, "driver": None, "sm_clock_mhz_max": None, "mem_clock_mhz_max": None,
       "sm_clock_measured_mhz": None}
try:
    lines = open(os.path.join(out, "env.txt")).read().splitlines()
    k = lines.index("## nvidia-smi (before)")
    f = [x.strip() for x in lines[k + 2].split(",")]
    num = lambda s: float(s.split()[0]) if s and s.split()[0].replace(".", "").isdigit() else None
    gpu.update(name=f[0], driver=f[1], sm_clock_mhz_at_start=num(f[2]), sm_clock_mhz_max=num(f[3]),
               mem_clock_mhz_at_start=num(f[4]), mem_clock_mhz_max=num(f[5]))
except Exception as e:  # noqa: BLE001
    print("warning: cannot parse nvidia-smi line:", e)

cal = load(os.path.join(out, f"{tag}_calibration.json"), {})
if cal.get("clock_ghz"):
    gpu["sm_clock_measured_mhz"] = round(cal["clock_ghz"] * 1000.0, 1)

cases = []
for p in ["matmul", "hotspot", "ispinex", "spinflap", "stream", "transpose", "shapes"]:
    if os.path.exists(os.path.join(build, f"cases_{p}.json")):  # ONLY= runs a subset
        cases += load(os.path.join(build, f"cases_{p}.json"), [])
# Skeleton paths in the files are relative to the repository root; skeleton_root
# is that root relative to OUT (validation/results/ -> "../..").
root = os.path.relpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.path.abspath(out))
kern = {
    "schema_version": 1,
    "skeleton_root": root,
    "gpu": gpu,
    "method": ("CUDA events around each kernel launch only (no transfers); 5 warm-up launches; "
               "then N repeats (200 if a launch takes < 0.1 ms, else 300 ms worth, clamped to 30..200), "
               "each bracketed by its own event pair and followed by a synchronisation; time_ms is the "
               "median, min_ms/max_ms the extremes; batch_ms_per_launch = N back-to-back launches between "
               "one event pair / N. Buffers: the SAME input/output buffers every repeat (no rotation), as "
               "a user would run the kernel repeatedly, so inputs that fit in L2 (50 MB) stay L2-resident "
               "across repeats. Verification: output poisoned with NaN (0xFF bytes), one launch, "
               "||out-ref||/||ref|| against a double-precision CPU reference on fresh random inputs "
               "(time-based seed) must be < 1e-4 with no NaN; done before and again after timing. "
               "Built with nvcc -arch=sm_90 -O3 (CUDA 13.0). Layout semantics: see validation/README.md."),
    "buffers": "same buffers every repeat (no rotation)",
    "cases": cases,
}
if cases:
    with open(os.path.join(out, f"{tag}_kernels.json"), "w") as f:
        json.dump(kern, f, indent=1)

fusion = load(os.path.join(build, "prog_fusion.json"), {})
steps = load(os.path.join(build, "prog_hotspot_steps.json"), {})
# The skeletons skelcast validate projects for each case (paths from the repository root).
for c in fusion.get("cases", []):
    c.setdefault("skeleton", f"validation/skeletons/fusion_chain_{c['n'].bit_length() - 1}.skel")
for c in steps.get("cases", []):
    c.setdefault("program_skeleton", f"validation/skeletons/hotspot_program_{c['n']}_{c['steps']}.skel")
progs = {"schema_version": 1, "skeleton_root": root, "gpu": gpu, "fusion": fusion, "hotspot_steps": steps}
if fusion or steps:
    with open(os.path.join(out, f"{tag}_programs.json"), "w") as f:
        json.dump(progs, f, indent=1)

# ---------------------------------------------------------------- summary
print()
print("GPU:", gpu)
print(f"{'kernel':16} {'size':15} {'layout':58} {'median ms':>10} {'min ms':>9} {'ok':>3}")
nfail = 0
for c in cases:
    ok = c.get("verified")
    nfail += 0 if ok else 1
    t = c.get("time_ms")
    print(f"{c['kernel']:16} {c['size']:15} {c['layout']:58} "
          f"{(t if t is not None else float('nan')):10.4f} {(c.get('min_ms') or float('nan')):9.4f} {'yes' if ok else 'NO':>3}")
print(f"cases: {len(cases)}, failed verification: {nfail}")
keys = ["clock_ghz", "sm_count", "l1_latency_cycles", "l2_latency_cycles", "dram_latency_cycles",
        "mem_bandwidth_gbps", "mem_bandwidth_read_only_gbps", "departure_del_coal_cycles",
        "departure_del_uncoal_cycles", "issue_cycles", "schedulers_per_sm", "launch_overhead_us",
        "launch_back_to_back_us",
        "launch_sync_latency_us", "peak_sp_gflops", "peak_dp_gflops"]
print("calibration:", {k: cal.get(k) for k in keys})
tr = load(os.path.join(out, f"{tag}_transfers.json"), {})
for s in tr.get("series", []):
    print(f"transfer {s['memory']:8} {s['direction']}: latency {s['latency_us']:.2f} us, "
          f"bandwidth {s['bandwidth_gbps']:.2f} GB/s")
for c in progs["fusion"].get("cases", []):
    print(f"fusion n={c['n']:>10} {c['variant']:8} {c.get('time_ms', float('nan')):.4f} ms verified={c['verified']}")
for c in progs["hotspot_steps"].get("cases", []):
    print(f"hotspot_steps {c.get('host_memory', 'pageable'):8} {c['size']:10} steps={c['steps']:3} total {c.get('total_ms', float('nan')):.3f} ms "
          f"(h2d {c.get('h2d_t_ms', float('nan')):.3f}+{c.get('h2d_power_ms', float('nan')):.3f}, "
          f"kernels {c.get('kernels_ms', float('nan')):.3f}, d2h {c.get('d2h_ms', float('nan')):.3f}) verified={c['verified']}")
