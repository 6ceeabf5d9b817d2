#!/usr/bin/env python3
"""SpinFlap's column permutation M[i][n] = 4i + perm[(i + n) % 4], perm = {2, 0, 3, 1}
(validation/kernels/spinflap.cu), one row of 4 a line, for COLS columns:
  python3 validation/skeletons/spinflap_M.py 2048  > validation/skeletons/M.txt
  python3 validation/skeletons/spinflap_M.py 65536 > validation/skeletons/M_65536.txt
A sample of fewer values than the array repeats them cyclically
(docs/skeleton-language.md, "Sample files"): past 2048 columns that is no
permutation, so the 65536-column kernel needs its own file."""
import sys

PERM = (2, 0, 3, 1)
cols = int(sys.argv[1])
if cols <= 0 or cols % 4:
    sys.exit("spinflap_M.py: COLS must be a positive multiple of 4")
for i in range(cols // 4):
    print(" ".join(str(4 * i + PERM[(i + n) % 4]) for n in range(4)))
