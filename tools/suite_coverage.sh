#!/usr/bin/env bash
# How much of a public benchmark suite gets through the skeletonizer, run as a
# new user would: each file with only the suite's own flags. Prints one row per
# file (exit code, kernels written, loops refused) and the totals; a crash (exit
# code above 2) is counted apart. The suite is not part of this repository:
# fetch it yourself (docs/skeletonizer.md, "Coverage").
#   tools/suite_coverage.sh polybench DIR [SKELCAST]   PolyBench/C 4.2.1 (-I utilities -I <dir> -DLARGE_DATASET)
#   tools/suite_coverage.sh rodinia DIR/openmp [SKELCAST]  Rodinia 3.1's OpenMP codes, with the -D/-I
#       flags of their Makefiles; counts the omp loops ported: all `omp for` and `omp parallel for`
#       loops (61 in 25 files), and issue 16's set, the `omp parallel for` loops with cfd
#       counted once (42 in 20 files; docs/skeletonizer.md, "Coverage", says why)
#   tools/suite_coverage.sh rodinia-sized DIR/openmp [SKELCAST]  the same, plus the --extent values
#       of the sizes each benchmark reads at run time, as its own `run` script gives them
#       (rodinia_extents below says where each value comes from)
set -uo pipefail
suite=${1:?usage: tools/suite_coverage.sh polybench DIR [SKELCAST]}
dir=${2:?usage: tools/suite_coverage.sh polybench DIR [SKELCAST]}
bin=$(realpath "${3:-$(dirname "$0")/../build/skelcast}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sized='' files=0 ok=0 kernels=0 kkernels=0 omp=0 refused=0 crashes=0 isfiles=0 isomp=0 isported=0
# an OpenMP loop: `#pragma omp for` or `parallel for`, spaces or tabs between the words
# (lavaMD writes `#pragma omp<TAB>parallel for`); a pragma commented out is not one
omp_for='^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+(parallel[[:space:]]+)?for'
omp_parallel_for='^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+parallel[[:space:]]+for'
printf '%-48s %4s %7s %9s %7s\n' file exit kernels "$([ "$suite" = polybench ] && echo 'kernel_*' || echo 'omp')" refused
case $suite in
  polybench)
    mapfile -t inputs < <(cd "$dir" && find . -name '*.c' ! -name '*.orig.c' ! -path './utilities/*' | sort) ;;
  rodinia)
    mapfile -t inputs < <(cd "$dir" && grep -rlE "$omp_for" --include=*.c --include=*.cpp . | grep -v /tools/ | sort) ;;
  rodinia-sized)
    sized=1; suite=rodinia
    mapfile -t inputs < <(cd "$dir" && grep -rlE "$omp_for" --include=*.c --include=*.cpp . | grep -v /tools/ | sort) ;;
  *) echo "unknown suite '$suite'" >&2; exit 2 ;;
esac
# the flags each Rodinia Makefile adds (cfd: OMP_NUM_THREADS = 8)
rodinia_flags() {
  case $1 in
    cfd/*) echo "-Dblock_length=8" ;;
    heartwall/*) echo "-I heartwall/AVI" ;;
    leukocyte/*) echo "-I leukocyte/meschach_lib" ;;
  esac
}
# The sizes a user runs with: each benchmark's own `run` script (DIR/openmp/BENCH/run), its
# arguments mapped to the names the source reads them into. Scalars read at run time, and
# struct fields by the name the code reads them with (`--extent dim.number_boxes=N`);
# sizes read from input data that is not in the checkout (mummergpu) stay out.
rodinia_extents() {
  case $1 in
    # run: ./b+tree.out core 2 file ../../data/b+tree/mil.txt command ../../data/b+tree/command.txt.
    # The data is not in the checkout: Rodinia 3.1's command.txt is "j 6000 3000" and "k 10000"
    # (22 bytes, the size its git-lfs pointer gives), so kernel_cpu (command k) runs 10000
    # queries and kernel_cpu_2 (command j) 6000; order is main.c's DEFAULT_ORDER (508,
    # common.h). mil.txt holds 1,000,000 records (its name); the tree it builds with order 508
    # is estimated, not read: leaves about half full after splits (about 4,000 nodes), 3 levels.
    b+tree/kernel/kernel_cpu.c) echo "--extent count=10000 --extent order=508 --extent maxheight=3 --extent knodes_elem=4000 --extent knodes=4000 --extent records=1000000" ;;
    b+tree/kernel/kernel_cpu_2.c) echo "--extent count=6000 --extent order=508 --extent maxheight=3 --extent knodes_elem=4000 --extent knodes=4000" ;;
    # run: ./backprop 65536; facetrain.c: bpnn_create(layer_size, 16, 1) (input, hidden, output
    # units). The names are bpnn_layerforward's (n1 in, n2 hidden), bpnn_adjust_weights's
    # (ndelta hidden, nly in), bpnn_hidden_error's (nh, no), bpnn_output_error's (nj) and the
    # weight initialisers' (m rows = input, n columns = hidden) for the input layer.
    backprop/*) echo "--extent n1=65536 --extent n2=16 --extent ndelta=16 --extent nly=65536 --extent nh=16 --extent no=1 --extent nj=1 --extent m=65536 --extent n=16" ;;
    # run: ./bfs 4 graph1MW_6.txt: 1M nodes, 6 edges a node (the file's name; data not in the checkout)
    bfs/*) echo "--extent no_of_nodes=1000000 --extent edge_list_size=6000000" ;;
    # run: ./euler3d_cpu fvcorr.domn.193K: 193,474 elements (the file's first line; the name
    # says 193K), nelr = nel rounded up to block_length (8, the Makefile's -Dblock_length)
    cfd/*) echo "--extent nel=193474 --extent nelr=193480" ;;
    # run: ./hotspot 1024 1024 2 4 ...: grid_rows grid_cols sim_time threads (single_iteration's row, col)
    hotspot/*) echo "--extent grid_rows=1024 --extent grid_cols=1024 --extent row=1024 --extent col=1024 --extent sim_time=2 --extent num_iterations=2" ;;
    # run: ./3D 512 8 100 ...: numCols = numRows = 512, layers 8, iterations 100 (computeTempOMP's nx ny nz)
    hotspot3D/*) echo "--extent nx=512 --extent ny=512 --extent nz=8 --extent numCols=512 --extent numRows=512 --extent layers=8 --extent iterations=100 --extent numiter=100" ;;
    # run: kmeans -n 4 -i kdd_cup: KDD Cup 1999 (README: 494,020 points, 34 features); -m/-n
    # default to 5 clusters
    kmeans/*) echo "--extent npoints=494020 --extent nfeatures=34 --extent nclusters=5" ;;
    # run: ./lavaMD -cores 4 -boxes1d 10: main.c sets dim_cpu.number_boxes to boxes1d_arg cubed,
    # 1000, and passes dim_cpu to kernel_cpu as its parameter 'dim'; box_cpu holds number_boxes
    # boxes and rv_cpu, qv_cpu, fv_cpu space_elem = number_boxes * NUMBER_PAR_PER_BOX = 100000
    # particles each (main.c, the mallocs after 'dim_cpu.space_elem = ...'). The loop over a
    # box's home and neighbour boxes runs 1 + box[l].nn times, nn set by main.c's neighbour
    # loops: 26 for a box inside the 10x10x10 grid, fewer on its faces. 27 is the trip of 25
    # of the 32 warps of 32 consecutive boxes (those holding an inner box; the other 7 lie on
    # the first and last planes: 18, and 12 for the last, partial one); the mean over boxes is
    # 2.8^3, about 22
    lavaMD/*) echo "--extent dim.number_boxes=1000 --extent box=1000 --extent rv=100000 --extent qv=100000 --extent fv=100000 --trip k=27" ;;
    # run: ./omp/lud_omp -s 8000; lud_omp's 'a' is lud.c's matrix, create_matrix's
    # malloc of size*size floats (common/common.c), 8000 rows of 8000
    lud/*) echo "--extent size=8000 --extent matrix_dim=8000 --extent a=8000,8000" ;;
    # run: ./myocyte.out 100 1 0 4: xmax (time span) 100, workload 1, mode 0
    myocyte/*) echo "--extent xmax=100 --extent workload=1 --extent mode=0" ;;
    # run: ./nn filelist_4 5 30 90: records are read REC_WINDOW (10) at a time
    nn/*) echo "--extent rec_count=10" ;;
    # run: ./needle 2048 10 2: max_rows = max_cols = 2048 + 1, penalty 10
    nw/*) echo "--extent max_rows=2049 --extent max_cols=2049 --extent penalty=10" ;;
    # run: ./particle_filter -x 128 -y 128 -z 10 -np 10000
    # countOnes: the points of particleFilter's disk, counted at run time from strelDisk(disk, 5)
    # (distance < 5 on the 9x9 grid): 69, the same on every run (it reads no input)
    particlefilter/*) echo "--extent IszX=128 --extent IszY=128 --extent Nfr=10 --extent Nparticles=10000 --extent countOnes=69" ;;
    # run: ./pathfinder 100000 100: cols rows
    pathfinder/*) echo "--extent cols=100000 --extent rows=100" ;;
    # run: ./srad 100 0.5 502 458 4: niter lambda Nr Nc threads; Ne = Nr*Nc
    srad/srad_v1/*) echo "--extent niter=100 --extent Nr=502 --extent Nc=458 --extent Ne=229916" ;;
    # run: ./srad 2048 2048 0 127 0 127 2 0.5 2: rows cols r1 r2 c1 c2 threads lambda niter;
    # size_I = rows*cols
    srad/srad_v2/*) echo "--extent rows=2048 --extent cols=2048 --extent size_I=4194304 --extent r1=0 --extent r2=127 --extent c1=0 --extent c2=127 --extent niter=2" ;;
    # run: ./sc_omp 10 20 256 65536 65536 1000 none output.txt 4: kmin kmax dim n chunksize
    # clustersize infile outfile nproc
    streamcluster/*) echo "--extent kmin=10 --extent kmax=20 --extent dim=256 --extent n=65536 --extent chunksize=65536 --extent clustersize=1000 --extent nproc=4" ;;
  esac
}
for f in "${inputs[@]}"; do
  f=${f#./}
  d=$(dirname "$f")
  if [ "$suite" = polybench ]; then
    (cd "$dir" && timeout 120 "$bin" skeletonize "$f" -I utilities -I "$d" -DLARGE_DATASET) \
      >"$tmp/out" 2>"$tmp/err"
  else
    # shellcheck disable=SC2046
    (cd "$dir" && timeout 120 "$bin" skeletonize "$f" -I "$d" $(rodinia_flags "$f") \
      ${sized:+$(rodinia_extents "$f")}) \
      >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  k=$(grep -cE '^[[:space:]]*parallel_for' "$tmp/out")
  if [ "$suite" = polybench ]; then
    # PolyBench's own kernel is the function named kernel_*
    kk=$(grep -cE "^[[:space:]]*// from .*, function 'kernel_" "$tmp/out")
  else
    # Rodinia: the OpenMP loops ported, of those in the file
    kk=$(grep -cE "OpenMP '(parallel for|for)'" "$tmp/out")
    omp=$((omp + $(grep -cE "$omp_for" "$dir/$f")))
    # Issue 16's set: the `omp parallel for` loops (not an `omp for` inside an `omp parallel`:
    # kmeans, hotspot3D), cfd counted once, by its benchmark's own euler3d_cpu.cpp (the
    # double and pre_ files are variants of the same four loops and its copy<T>)
    case $f in cfd/euler3d_cpu_double.cpp|cfd/pre_euler3d_cpu*.cpp) ;;
      *) n=$(grep -cE "$omp_parallel_for" "$dir/$f")
         if ((n > 0)); then
           isfiles=$((isfiles + 1)); isomp=$((isomp + n))
           isported=$((isported + $(grep -cE "OpenMP 'parallel for'" "$tmp/out")))
         fi ;;
    esac
  fi
  r=$(grep -c 'cannot port this loop' "$tmp/err")
  files=$((files + 1)); kernels=$((kernels + k)); kkernels=$((kkernels + kk)); refused=$((refused + r))
  ((rc == 0)) && ok=$((ok + 1))
  ((rc > 2)) && crashes=$((crashes + 1))
  printf '%-48s %4d %7d %9d %7d\n' "$f" "$rc" "$k" "$kk" "$r"
  if [ -n "${VERBOSE:-}" ]; then sed "s/^/    /" "$tmp/err"; grep -E "^ *// from" "$tmp/out" | sed "s/^ */    kernel /"; fi
done
if [ "$suite" = rodinia ]; then
  echo "OpenMP loops ported: $kkernels of $omp"
  echo "issue 16's set ('omp parallel for', cfd once): $isported of $isomp, in $isfiles files"
fi
echo "files $files, exit 0: $ok, kernels $kernels (in kernel_* functions or OpenMP loops: $kkernels), loops refused $refused, crashes $crashes"
