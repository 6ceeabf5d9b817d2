#!/usr/bin/env python3
"""Checks the occupancy rule of eq. 8 (docs/model.md, `registers`) against the
device's own: every emitted program's record holds the blocks an SM keeps
resident as cudaOccupancyMaxActiveBlocksPerMultiprocessor gave it on the GPU
(max_active_blocks_per_sm), beside ptxas's registers and the block's shared
memory. The rule, from the spec's fields:
  blocks = min(max_warps_per_sm / warps, max_blocks_per_sm,
               S x floor(registers_per_sm / S / (32 x ceil(regs / 8) x 8)) / warps,
               floor(shared_mem_per_sm_bytes / (shared bytes + reserved_shared_mem_per_block_bytes)))
with S = schedulers_per_sm (a warp's registers sit in one scheduler's
sub-partition) and the shared bytes in units of 128 (the allocation unit).
usage: python3 validation/occupancy_check.py SPEC.json RESULTS.json...
prints the cases whose record differs from the rule and a count; exits 1 if any."""
import json, math, sys


def value(spec, name, default=0):
    v = spec.get(name, default)
    return v["value"] if isinstance(v, dict) else v


def blocks(spec, case):
    threads = case["block"][0] * case["block"][1] * case["block"][2]
    warps = math.ceil(threads / value(spec, "warp_size"))
    parts = value(spec, "schedulers_per_sm", 1)
    per_warp = math.ceil(case["regs_per_thread"] / 8) * 8 * value(spec, "warp_size")
    by_regs = parts * (value(spec, "registers_per_sm") // parts // per_warp) // warps if per_warp else 1 << 30
    shared = case.get("static_smem_bytes", 0) + case.get("dynamic_smem_bytes", 0)
    shared = math.ceil((shared + value(spec, "reserved_shared_mem_per_block_bytes")) / 128) * 128
    by_shared = value(spec, "shared_mem_per_sm_bytes") // shared if shared else 1 << 30
    return min(value(spec, "max_warps_per_sm") // warps, value(spec, "max_blocks_per_sm"), by_regs, by_shared)


def main():
    spec = json.load(open(sys.argv[1]))
    n = bad = 0
    for f in sys.argv[2:]:
        for c in json.load(open(f))["cases"]:
            if "max_active_blocks_per_sm" not in c or "regs_per_thread" not in c:
                continue
            n += 1
            b = blocks(spec, c)
            if b != c["max_active_blocks_per_sm"]:
                bad += 1
                print(f"{f}: {c['kernel']} {c['layout']}: the device {c['max_active_blocks_per_sm']}, the rule {b}")
    print(f"{n} records, {bad} differ from the rule")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
