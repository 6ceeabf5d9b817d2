// How sharply a kernel passes from one bound to another: whether near the
// balance of two resources a GPU runs slower than the larger of the two times
// (a smooth maximum, (t1^p + t2^p)^(1/p), rather than max(t1, t2); the check
// of docs/validation.md, "Three mechanisms measured and not adopted").
// y[i] = f(x[i]) with K FMAs an element in 4 independent chains,
// 4 elements a thread a round (grid-stride over 8 blocks of 256 threads an
// SM), K = 0 to 512:
//  - dram: 2^26 floats in and out (512 MB, far past L2), so K = 0 is DRAM's
//    time and large K the FMA pipes';
//  - l2: 2^21 floats in and out (16 MB, which L2 holds), launched back to back,
//    so K = 0 is L2's time;
//  - dram_16warps: the DRAM array with 2 blocks an SM (16 warps).
// Each (array, K) runs twice to warm up, then 5 repeats of 10 launches back
// to back between one event pair; ms = the median repeat's time a launch.
// docs/validation.md gives the p that fits t(K) = (t_mem^p + t_fma(K)^p)^(1/p).
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/overlap.cu -o /tmp/overlap
//   /tmp/overlap > validation/results/h200_overlap.json
#include <cuda_runtime.h>

#include <cstdio>

#include "common.cuh" // CK, CKL, back_to_back_us

template <int K>
__global__ void work(const float *__restrict__ x, float *__restrict__ y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 3 * stride < n; i += 4 * stride) {
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e)
      v[e] = x[i + e * stride];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float a0 = v[e], a1 = v[e] + 1.0f, a2 = v[e] + 2.0f, a3 = v[e] + 3.0f;
#pragma unroll
      for (int k = 0; k < K / 4; ++k) {
        a0 = fmaf(a0, 0.999f, 0.001f);
        a1 = fmaf(a1, 0.999f, 0.001f);
        a2 = fmaf(a2, 0.999f, 0.001f);
        a3 = fmaf(a3, 0.999f, 0.001f);
      }
      y[i + e * stride] = (a0 + a1) + (a2 + a3);
    }
  }
}

template <int K>
double timeIt(const float *x, float *y, size_t n, int blocks) {
  return back_to_back_us([&] { work<K><<<blocks, 256>>>(x, y, n); }, 10, 5, 2) / 1000.0;
}

template <int... Ks>
void sweep(const float *x, float *y, size_t nDram, size_t nL2, int blocks) {
  bool first = true;
  ((printf("%s  {\"k\": %d, \"dram_ms\": %.6f, \"l2_ms\": %.6f, \"dram_16warps_ms\": %.6f}",
           first ? "" : ",\n", Ks, timeIt<Ks>(x, y, nDram, blocks), timeIt<Ks>(x, y, nL2, blocks),
           timeIt<Ks>(x, y, nDram, blocks / 4)),
    first = false),
   ...);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t nDram = size_t{1} << 26, nL2 = size_t{1} << 21;
  float *x = nullptr, *y = nullptr;
  CK(cudaMalloc(&x, nDram * sizeof(float)));
  CK(cudaMalloc(&y, nDram * sizeof(float)));
  CK(cudaMemset(x, 0, nDram * sizeof(float)));
  const int blocks = p.multiProcessorCount * 8;
  printf("{\"gpu\": \"%s\", \"sm_count\": %d, \"dram_elements\": %zu, \"l2_elements\": %zu,\n", p.name,
         p.multiProcessorCount, nDram, nL2);
  printf(" \"method\": \"validation/kernels/overlap.cu: y[i] = f(x[i]) with k FMAs an element in 4 "
         "independent chains, 4 elements a thread a round, %d blocks of 256; each (array, k) twice to "
         "warm up, then 5 repeats of 10 launches back to back; ms = the median repeat a launch\",\n",
         blocks);
  printf(" \"rows\": [\n");
  sweep<0, 4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512>(x, y, nDram, nL2,
                                                                                        blocks);
  printf("\n ]}\n");
  CK(cudaFree(x));
  CK(cudaFree(y));
  return 0;
}
