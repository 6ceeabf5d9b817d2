#!/usr/bin/env python3
"""The layouts of an older emitted run, with the times today's emit runs them at.

emit has changed since the early emitted runs (h200_emit7, 8, 11, 12): the same
C file and layout now compiles to different, mostly faster, CUDA (conv2d's
'block=y:1,x:32 fold=y:8,x:4 cache=filt unroll=p:5,q:5': 0.0355 ms in
h200_emit7, 0.0112 ms on 2026-11-29). This writes a measurement file holding
OLD's cases with each one's time from the newer files that measured it (the
last of them that has it), so `skelcast validate` compares the model with the
code emit writes today; a case no newer file has is left out and counted.
  python3 validation/today.py OLD.json NEW.json... -o OUT.json
"""
import argparse
import json
import os
import sys

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("old")
p.add_argument("new", nargs="+")
p.add_argument("-o", "--out", required=True)
a = p.parse_args()


def key(c):
    # a case: one layout of one kernel, read from one C file with the same options
    opts = json.dumps({k: c.get(k) for k in ("c_args", "c_extent", "c_trip", "c_sample", "c_function",
                                             "timing")}, sort_keys=True)
    return (c.get("c"), c.get("c_kernel", c["kernel"]), c["layout"], c.get("size"), opts)


old = json.load(open(a.old))
newer = {}
for f in a.new:
    j = json.load(open(f))
    if j["gpu"]["name"] != old["gpu"]["name"]:
        sys.exit(f"{f}: measured on {j['gpu']['name']}, {a.old} on {old['gpu']['name']}")
    for c in j["cases"]:
        newer[key(c)] = c
out = {k: old[k] for k in ("schema_version", "gpu", "timing") if k in old}
# the C files' root, as OLD names it, seen from where OUT is written
root = os.path.join(os.path.dirname(os.path.abspath(a.old)), old.get("skeleton_root", "."))
out["skeleton_root"] = os.path.relpath(root, os.path.dirname(os.path.abspath(a.out)))
cases, missing = [], 0
for c in old["cases"]:
    hit = newer.get(key(c))
    if hit is None:
        missing += 1
        continue
    cases.append(hit)
out["method"] = (f"the cases of {a.old.split('/')[-1]} with their times from "
                 f"{', '.join(f.split('/')[-1] for f in a.new)} (today's emitted code); "
                 f"{missing} of its {len(old['cases'])} cases not measured again, left out")
out["cases"] = cases
json.dump(out, open(a.out, "w"), indent=1)
print(f"{len(cases)} of {len(old['cases'])} cases -> {a.out} ({missing} not measured again)")
