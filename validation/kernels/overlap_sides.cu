// How two bounds combine, each side timed alone (the follow-up to
// overlap.cu, whose FMA side had to be inferred; docs/validation.md, "Bounds
// that overlap imperfectly, each side measured").
// y[i] = f(x[i]) with K FMAs an element in 4 independent chains, 4 elements a
// thread a round, grid-stride, 2^26 floats (512 MB in and out, far past L2):
//  - both: the kernel as it is: DRAM traffic and K FMAs an element;
//  - mem:  K = 0 (the same loads and stores, no FMA);
//  - fma:  the same K FMAs on values made from the index's bits (a value in
//          [1, 2): two integer instructions, no conversion), with no load, and a
//          store only where the result is NaN (never; the compiler cannot
//          know), so that no byte moves: the FMA side alone.
// Each at 8 blocks of 256 an SM (64 warps) and 2 (16 warps). Each (mode, K,
// blocks) twice to warm up, then 5 repeats of 10 launches back to back
// between one event pair; ms = the median repeat's time a launch. The p that
// fits t_both = (t_mem^p + t_fma^p)^(1/p) is computed by
// validation/overlap_fit.py.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/overlap_sides.cu -o /tmp/overlap_sides
//   (no --use_fast_math: it would fold isnan to false and drop the FMA side's work)
//   /tmp/overlap_sides > validation/results/h200_overlap_sides.json
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

#include "common.cuh" // CK, CKL, back_to_back_us

template <int K, bool Load>
__global__ void work(const float *__restrict__ x, float *__restrict__ y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 3 * stride < n; i += 4 * stride) {
    float v[4];
#pragma unroll
    for (int e = 0; e < 4; ++e)
      v[e] = Load ? x[i + e * stride] : __uint_as_float(0x3f800000u | ((unsigned)(i + e * stride) & 0x7fffffu));
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
      float r = (a0 + a1) + (a2 + a3);
      if (Load || isnan(r))
        y[i + e * stride] = r;
    }
  }
}

template <int K, bool Load>
double timeIt(const float *x, float *y, size_t n, int blocks) {
  double ms = back_to_back_us([&] { work<K, Load><<<blocks, 256>>>(x, y, n); }, 10, 5, 2) / 1000.0;
  CKL();
  return ms;
}

template <int... Ks>
void sweep(const float *x, float *y, size_t n, int sms) {
  bool first = true;
  for (int per : {8, 2}) {
    int blocks = sms * per;
    ((printf("%s  {\"k\": %d, \"warps_per_sm\": %d, \"both_ms\": %.6f, \"mem_ms\": %.6f, \"fma_ms\": %.6f}",
             first ? "" : ",\n", Ks, per * 8, timeIt<Ks, true>(x, y, n, blocks), timeIt<0, true>(x, y, n, blocks),
             timeIt<Ks, false>(x, y, n, blocks)),
      first = false),
     ...);
  }
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t n = size_t{1} << 26;
  float *x = nullptr, *y = nullptr;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMemset(x, 0, n * sizeof(float)));
  printf("{\"gpu\": \"%s\", \"sm_count\": %d, \"elements\": %zu,\n", p.name, p.multiProcessorCount, n);
  printf(" \"method\": \"validation/kernels/overlap_sides.cu: y[i] = f(x[i]) with k FMAs an element in 4 "
         "independent chains, 4 elements a thread a round, blocks of 256, 8 or 2 an SM; both = loads, k FMAs, "
         "stores; mem = k 0; fma = the k FMAs on values from the index, no load, no store; each twice to warm "
         "up, then 5 repeats of 10 launches back to back; ms = the median repeat a launch\",\n");
  printf(" \"rows\": [\n");
  sweep<0, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 256, 384, 512>(x, y, n, p.multiProcessorCount);
  printf("\n ]}\n");
  CK(cudaFree(x));
  CK(cudaFree(y));
  return 0;
}
