// Do a warp's partial-sector stores reach L2 as more sector writes when the
// blocks are larger?
//
// SpinFlap scatters each task's four complex results into its own 32-byte
// sector of C: eight 4-byte stores (the real and imaginary parts of columns
// 4i + a permutation of n). Nsight Compute counts 2.1 times the L2 write
// sectors for `block=j:2,i:128` as for `block=j:2,i:16` at 132 x 512 tasks, 3
// times at 132 x 16384 (validation/results/h200_ncu_27.txt,
// h200_ncu_latency_layouts.txt), with the same SASS stores. This program does
// only those stores: C of 132 rows x 65,536 complex floats (69 MB), task (j, i)
// of 132 x 16,384 writing its sector, threadIdx.x along i, in blocks of
// BJ x BI tasks, in two variants:
//   split   eight 4-byte stores a task, as SpinFlap's C code compiles
//   paired  four 8-byte stores (re and im together)
//   fold0, fold64  split's stores for two tasks a thread (rows j and j + BJ, emit's fold=j:2),
//           each task's stores after a chain of 0 or 64 dependent FMAs
// (VARIANT: split, paired, fold0 or fold64.) Prints the block shape, the variant and the median of 20 event-timed
// launches (after 3 warm-ups); run it under Nsight Compute for the sectors:
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/storesplit.cu -o /tmp/storesplit
//   /tmp/storesplit > validation/results/h200_storesplit.txt
//   ncu --metrics lts__t_sectors_op_write.sum,dram__bytes_write.sum,gpu__time_duration.sum \
//       -k regex:store --launch-skip 3 --launch-count 1 /tmp/storesplit VARIANT BJ BI
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_alone_ms

constexpr int ROWS = 132, TASKS = 16384, COLS = 4 * TASKS;

__device__ __forceinline__ int perm(int n, int i) { return (n + (i & 3)) & 3; } // a permutation of n

__global__ void storeSplit(float *__restrict__ c, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= TASKS || j >= ROWS)
    return;
  float *row = c + size_t(j) * COLS * 2;
#pragma unroll
  for (int n = 0; n < 4; ++n) {
    int col = 4 * i + perm(n, i);
    row[2 * col] = v + n;
    row[2 * col + 1] = v - n;
  }
}

// fold: two tasks a thread, rows j and j + gridDim.y x BJ (emit's fold=j:2), each task's eight
// 4-byte stores after a chain of K dependent FMAs (SpinFlap computes its 16 products between
// its loads and its stores)
template <int K>
__global__ void storeFold(float *__restrict__ c, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= TASKS)
    return;
#pragma unroll
  for (int f = 0; f < 2; ++f) {
    const int j = blockIdx.y * blockDim.y * 2 + f * blockDim.y + threadIdx.y;
    if (j >= ROWS)
      continue;
    float w = v + float(i & 7);
#pragma unroll
    for (int k = 0; k < K; ++k)
      w = fmaf(w, 0.999f, 0.5f);
    float *row = c + size_t(j) * COLS * 2;
#pragma unroll
    for (int n = 0; n < 4; ++n) {
      int col = 4 * i + perm(n, i);
      row[2 * col] = w + n;
      row[2 * col + 1] = w - n;
    }
  }
}

__global__ void storePaired(float2 *__restrict__ c, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= TASKS || j >= ROWS)
    return;
  float2 *row = c + size_t(j) * COLS;
#pragma unroll
  for (int n = 0; n < 4; ++n)
    row[4 * i + perm(n, i)] = make_float2(v + n, v - n);
}

int main(int argc, char **argv) {
  // storesplit VARIANT BJ BI: that configuration only (for a profiler)
  const int onlyPaired = argc == 4 ? (argv[1][0] == 'p' ? 1 : argv[1][0] == 'f' ? (argv[1][4] == '0' ? 2 : 3) : 0) : -1;
  const int onlyBJ = argc == 4 ? atoi(argv[2]) : 0, onlyBI = argc == 4 ? atoi(argv[3]) : 0;
  float *c = nullptr;
  CK(cudaMalloc(&c, size_t(ROWS) * COLS * 2 * sizeof(float)));
  CK(cudaMemset(c, 0, size_t(ROWS) * COLS * 2 * sizeof(float)));
  printf("# storesplit.cu: 132 x 16384 tasks, each its own 32-byte sector of C (69 MB); BJ x BI a block "
         "(threadIdx.x along i); median ms of 20 launches\n");
  printf("# variant BJ BI ms\n");
  const int shapes[][2] = {{1, 512}, {2, 256}, {4, 128}, {2, 128}, {2, 64}, {2, 32}, {2, 16}, {16, 16}, {16, 4}};
  for (int paired = 0; paired < 4; ++paired) // split, paired, fold (K = 0), fold (K = 64)
    for (auto &s : shapes) {
      if (onlyPaired >= 0 && (paired != onlyPaired || s[0] != onlyBJ || s[1] != onlyBI))
        continue;
      dim3 block(s[1], s[0]), grid((TASKS + s[1] - 1) / s[1], (ROWS + s[0] - 1) / s[0]);
      if (paired >= 2)
        grid.y = (ROWS + 2 * s[0] - 1) / (2 * s[0]);
      auto launch = [&](int r) { // 3 warm-ups, then 20 timed
        if (paired == 1)
          storePaired<<<grid, block>>>(reinterpret_cast<float2 *>(c), 1.0f + r);
        else if (paired == 2)
          storeFold<0><<<grid, block>>>(c, 1.0f + r);
        else if (paired == 3)
          storeFold<64><<<grid, block>>>(c, 1.0f + r);
        else
          storeSplit<<<grid, block>>>(c, 1.0f + r);
      };
      double ms = median_alone_ms(launch, 20, 3, [](int) {});
      static const char *names[] = {"split", "paired", "fold0", "fold64"};
      printf("%-6s %2d %3d %9.5f\n", names[paired], s[0], s[1], ms);
    }
  CK(cudaFree(c));
  return 0;
}
