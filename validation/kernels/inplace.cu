// What an in-place row walk costs when a division stands between a thread's
// load and its store: row_norm's second loop, `a[i][j] = a[i][j] / r` with one
// thread a row of 2048 doubles (validation/c/row_norm.c). Emitted rolled it ran
// 0.80 ms on the H200, unrolled by 16 (`unroll=j#2:16`) 4.1-5.1 ms
// (h200_unseen33_kernels.json). The unrolled SASS issues the load of element
// j+1 before the store of element j (the division's slow-path branch closes
// each iteration; the next load is hoisted over the store), the rolled one
// stores j before it loads j+1. This program times the loop alone (r read
// from an array, one launch a variant, the median of 7 after 2 warm-ups) in:
//   div_rolled      #pragma unroll 1, a[j] / r
//   div_unroll16    #pragma unroll 16, a[j] / r (the order ptxas chooses)
//   div_batch16     16 elements at a time: their 16 loads, then 16 divisions
//                   and stores (no load waits while a store to its sector
//                   is in flight)
//   mul_rolled      #pragma unroll 1, a[j] * r (no division: no chain)
//   mul_unroll16    #pragma unroll 16, a[j] * r
//   div_copy16      #pragma unroll 16, b[j] = a[j] / r (out of place)
// ROWS rows, blocks of 32 threads (row_norm's block=i:32). Prints one line a
// variant: name, ms, and ns per element per thread.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/inplace.cu -o /tmp/inplace
//   /tmp/inplace > validation/results/h200_inplace.txt
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_of

constexpr int kRows = 8192, kCols = 2048;

template <int V>
__global__ void __launch_bounds__(32) scale(double *__restrict__ a, double *__restrict__ b,
                                            const double *__restrict__ rs) {
  int i = blockIdx.x * 32 + threadIdx.x;
  if (i >= kRows)
    return;
  double r = rs[i];
  double *row = a + (size_t)i * kCols;
  double *out = b + (size_t)i * kCols;
  if constexpr (V == 0) {
#pragma unroll 1
    for (int j = 0; j < kCols; j++)
      row[j] = row[j] / r;
  } else if constexpr (V == 1) {
#pragma unroll 16
    for (int j = 0; j < kCols; j++)
      row[j] = row[j] / r;
  } else if constexpr (V == 2) {
#pragma unroll 1
    for (int j = 0; j < kCols; j += 16) {
      double v[16];
#pragma unroll
      for (int u = 0; u < 16; u++)
        v[u] = row[j + u];
#pragma unroll
      for (int u = 0; u < 16; u++)
        row[j + u] = v[u] / r;
    }
  } else if constexpr (V == 3) {
#pragma unroll 1
    for (int j = 0; j < kCols; j++)
      row[j] = row[j] * r;
  } else if constexpr (V == 4) {
#pragma unroll 16
    for (int j = 0; j < kCols; j++)
      row[j] = row[j] * r;
  } else {
#pragma unroll 16
    for (int j = 0; j < kCols; j++)
      out[j] = row[j] / r;
  }
}

template <int V> static void run(const char *name, double *a, double *b, const double *rs) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> ms;
  for (int rep = 0; rep < 9; ++rep) {
    CK(cudaEventRecord(e0));
    scale<V><<<kRows / 32, 32>>>(a, b, rs);
    CKL();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t = 0;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (rep >= 2)
      ms.push_back(t);
  }
  double m = median_of(ms);
  std::printf("%-16s %9.4f ms %8.2f ns/element/thread\n", name, m, m * 1e6 / kCols);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

int main() {
  size_t n = (size_t)kRows * kCols;
  std::vector<double> h(n), hr(kRows);
  for (size_t k = 0; k < n; ++k)
    h[k] = 1.0 + (double)(k % 97) / 97.0;
  for (int i = 0; i < kRows; ++i)
    hr[i] = 1.0; // dividing by 1 keeps the values finite over the repeats
  double *a, *b, *rs;
  CK(cudaMalloc(&a, n * sizeof(double)));
  CK(cudaMalloc(&b, n * sizeof(double)));
  CK(cudaMalloc(&rs, kRows * sizeof(double)));
  CK(cudaMemcpy(a, h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(rs, hr.data(), kRows * sizeof(double), cudaMemcpyHostToDevice));
  run<0>("div_rolled", a, b, rs);
  run<1>("div_unroll16", a, b, rs);
  run<2>("div_batch16", a, b, rs);
  run<3>("mul_rolled", a, b, rs);
  run<4>("mul_unroll16", a, b, rs);
  run<5>("div_copy16", a, b, rs);
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(rs));
  return 0;
}
