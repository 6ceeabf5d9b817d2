#!/usr/bin/env python3
"""The p of t_both = (t_mem^p + t_fma^p)^(1/p) that fits validation/kernels/overlap_sides.cu's
measurements best (least squares of log(projected / measured)), for each number of warps an SM,
over the rows with k > 0, and over those near the balance (the larger side at most twice the
smaller).  usage: overlap_fit.py validation/results/h200_overlap_sides.json"""
import json, math, sys

d = json.load(open(sys.argv[1]))
def fit(rows):
    best = None
    for i in range(100, 4001):
        p = i / 100.0
        e = sum(math.log((r['mem_ms'] ** p + r['fma_ms'] ** p) ** (1 / p) / r['both_ms']) ** 2 for r in rows)
        if best is None or e < best[1]:
            best = (p, e)
    rms = math.sqrt(best[1] / len(rows))
    return best[0], rms
for w in sorted({r['warps_per_sm'] for r in d['rows']}, reverse=True):
    rows = [r for r in d['rows'] if r['warps_per_sm'] == w and r['k'] > 0]
    near = [r for r in rows if max(r['mem_ms'], r['fma_ms']) <= 2 * min(r['mem_ms'], r['fma_ms'])]
    p, rms = fit(rows)
    pn, rmsn = fit(near)
    mx = max(r['both_ms'] / max(r['mem_ms'], r['fma_ms']) for r in rows)
    print(f"{w} warps an SM: p = {p:.2f} over {len(rows)} rows (rms log error {rms:.3f}); "
          f"p = {pn:.2f} over the {len(near)} near the balance (rms {rmsn:.3f}); "
          f"largest t_both / max(t_mem, t_fma) {mx:.3f}")
