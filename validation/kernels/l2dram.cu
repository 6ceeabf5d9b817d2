// Whether L2 hits and DRAM traffic share L2's rate: every element of A (read
// from DRAM) and of C (written to DRAM) passes L2 too, beside the loads that
// hit in it. Each thread reads A[i], then r loads of a 4 MB window W that L2
// holds (__ldcg: not L1), and stores C[i] = the sum, in emit's shape (a block
// a tile of 1,024 consecutive elements, 4 a thread 256 apart), r = 0 to 16:
//  - big: A and C of 2^26 floats (256 MB each, past L2): DRAM moves 8 bytes an
//    element, L2 8 + 4 r;
//  - small: the same 2^26 elements, A's and C's indices wrapped into 2^20
//    floats (4 MB each, which L2 holds with W; the blocks that share an
//    element store the same value): L2 alone moves the same 8 + 4 r bytes an
//    element, at L2's rate.
// If L2's rate is shared, big(r) ~ small(r) once L2 binds, and the
// balance (r ~ 2, where 8 + 4 r bytes at L2's rate take as long as 8 at
// DRAM's) costs more than the larger of the two (docs/validation.md, "Three
// mechanisms measured and not adopted").
// Each (size, r) runs twice to warm up, then 5 repeats of 10 launches back to
// back between one event pair; ms = the median repeat's time a launch.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/l2dram.cu -o /tmp/l2dram
//   /tmp/l2dram > validation/results/h200_l2dram.json
#include <cuda_runtime.h>

#include <cstdio>

#include "common.cuh" // CK, CKL, back_to_back_us

constexpr size_t kWindow = size_t{1} << 20; // floats: 4 MB

template <int R>
__global__ void mix(const float *__restrict__ a, const float *__restrict__ w, float *__restrict__ c,
                    size_t mask) {
  size_t base = blockIdx.x * (size_t)1024 + threadIdx.x;
  float v[4];
#pragma unroll
  for (int e = 0; e < 4; ++e)
    v[e] = a[(base + e * 256) & mask];
#pragma unroll
  for (int k = 0; k < R; ++k)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      v[e] += __ldcg(w + ((base + e * 256 + (size_t)k * 65536) & (kWindow - 1)));
#pragma unroll
  for (int e = 0; e < 4; ++e)
    c[(base + e * 256) & mask] = v[e];
}

template <int R>
double timeIt(const float *a, const float *w, float *c, size_t n, size_t mask) {
  unsigned blocks = (unsigned)(n / 1024);
  return back_to_back_us([&] { mix<R><<<blocks, 256>>>(a, w, c, mask); }, 10, 5, 2) / 1000.0;
}

template <int... Rs>
void sweep(const float *a, const float *w, float *c, size_t big, size_t small) {
  bool first = true;
  ((printf("%s  {\"r\": %d, \"big_ms\": %.6f, \"small_ms\": %.6f}", first ? "" : ",\n", Rs,
           timeIt<Rs>(a, w, c, big, ~size_t{0}), timeIt<Rs>(a, w, c, big, small - 1)),
    first = false),
   ...);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t big = size_t{1} << 26, small = size_t{1} << 20;
  float *a = nullptr, *w = nullptr, *c = nullptr;
  CK(cudaMalloc(&a, big * sizeof(float)));
  CK(cudaMalloc(&c, big * sizeof(float)));
  CK(cudaMalloc(&w, kWindow * sizeof(float)));
  CK(cudaMemset(a, 0, big * sizeof(float)));
  CK(cudaMemset(w, 0, kWindow * sizeof(float)));
  printf("{\"gpu\": \"%s\", \"sm_count\": %d, \"big_elements\": %zu, \"small_elements\": %zu, "
         "\"window_bytes\": %zu,\n",
         p.name, p.multiProcessorCount, big, small, kWindow * sizeof(float));
  printf(" \"method\": \"validation/kernels/l2dram.cu: C[i] = A[i] + r loads of a 4 MB window through L2 "
         "(__ldcg), a block a tile of 1,024 elements (4 a thread), 2^26 elements; big: A and C past L2, "
         "small: their indices wrapped into 2^20 (all in L2); each (size, r) twice to warm up, then 5 repeats of 10 launches back "
         "to back; ms = the median repeat a launch\",\n");
  printf(" \"rows\": [\n");
  sweep<0, 1, 2, 3, 4, 6, 8, 12, 16>(a, w, c, big, small);
  printf("\n ]}\n");
  CK(cudaFree(a));
  CK(cudaFree(w));
  CK(cudaFree(c));
  return 0;
}
