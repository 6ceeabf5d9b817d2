// Does the L1 look up the lines of a warp's 8-byte load once per warp, or
// once per half-warp?
//
// validation/kernels/l1lines.cu measured 4-byte loads: a warp load whose 32
// threads touch L lines takes L cycles of the SM's L1 (the `lines` rule of
// docs/model.md). An 8-byte load moves 256 bytes a warp, and the L1 serves it
// a half-warp (128 bytes) at a time. If each half looks up its own lines, a
// warp whose two halves touch the same L lines (a rank-k update's A[j][k] in
// a block 8 threads wide: lanes t and t + 16 on the same row) costs 2 L
// cycles, not L; a warp whose halves touch disjoint lines costs L either way.
// syrk_tri's fp64 layouts (validation/c/syrk_tri.c) ran twice the L1 floor
// the per-warp count gives.
//
// Every warp of a grid that fills the GPU (one block of 32 x WARPS threads
// per SM) loads from a 64 KB buffer that stays in L1; each load touches L
// lines (1 to 32), all lanes of a line reading one element of it, in two
// placements:
//   mod   lane t on line t mod L: for L <= 16 both halves touch all L lines
//   div   lane t on line t / (32 / L): the halves touch L / 2 lines each
// for 4-byte (float) and 8-byte (double) elements. 8 independent loads an
// iteration, 4096 iterations, the values summed. Prints the SM cycles per
// warp load (median of 7 launches after 2 warm-ups, the clock
// cudaDevAttrClockRate gives).
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/l1lines_fp64.cu -o /tmp/l1lines_fp64
//   /tmp/l1lines_fp64 > validation/results/h200_l1lines_fp64.txt
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "common.cuh" // CK, median_alone_ms

constexpr int BUF_BYTES = 65536;
constexpr int WINDOW_BYTES = 32768; // the iterations walk round it
constexpr int ITERS = 4096;
constexpr int UNROLL = 8;

template <typename T, int L, bool MOD>
__global__ void lines(const T *__restrict__ buf, T *__restrict__ out) {
  constexpr int lineElems = 128 / int(sizeof(T));
  constexpr int windowElems = WINDOW_BYTES / int(sizeof(T));
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int line = MOD ? lane % L : lane / (32 / L);
  const int start = ((warp * 7 + blockIdx.x * 3) * L * lineElems) % windowElems;
  int base = start + line * lineElems;
  T s[UNROLL] = {};
#pragma unroll 1
  for (int it = 0; it < ITERS; ++it) {
    const T *p = buf + base;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      s[u] += p[u * L * lineElems]; // the next L lines along
    base = (base + UNROLL * L * lineElems) & (windowElems - 1);
  }
  T sum = 0;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    sum += s[u];
  if (sum == T(12345.678)) // never: keeps the loads
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <typename T, int L, bool MOD>
void row(const void *buf, void *out, int sms, int warps, double clockKhz) {
  double ms = median_alone_ms(
      [&](int) { lines<T, L, MOD><<<sms, 32 * warps>>>(static_cast<const T *>(buf), static_cast<T *>(out)); },
      7, 2, [](int) {});
  double loadsPerSm = double(warps) * ITERS * UNROLL;
  double cycles = ms * 1e-3 * clockKhz * 1e3;
  printf("%-6s %-3s %2d %5d %10.4f %12.3f\n", sizeof(T) == 8 ? "double" : "float", MOD ? "mod" : "div", L,
         warps, ms, cycles / loadsPerSm);
}

template <typename T, int L>
void rows(const void *buf, void *out, int sms, double clockKhz) {
  for (int warps : {16, 32}) {
    row<T, L, true>(buf, out, sms, warps, clockKhz);
    row<T, L, false>(buf, out, sms, warps, clockKhz);
  }
}

template <typename T>
void all(const void *buf, void *out, int sms, double clockKhz) {
  rows<T, 1>(buf, out, sms, clockKhz);
  rows<T, 2>(buf, out, sms, clockKhz);
  rows<T, 4>(buf, out, sms, clockKhz);
  rows<T, 8>(buf, out, sms, clockKhz);
  rows<T, 16>(buf, out, sms, clockKhz);
  rows<T, 32>(buf, out, sms, clockKhz);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clockKhz = 0;
  CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  std::vector<double> h(BUF_BYTES / sizeof(double));
  for (size_t k = 0; k < h.size(); ++k)
    h[k] = 1.0 + 1e-3 * double(k % 97);
  void *buf = nullptr, *out = nullptr;
  CK(cudaMalloc(&buf, BUF_BYTES));
  CK(cudaMalloc(&out, size_t(p.multiProcessorCount) * 1024 * sizeof(double)));
  CK(cudaMemcpy(buf, h.data(), BUF_BYTES, cudaMemcpyHostToDevice)); // the floats read the same bytes
  printf("# %s, %d SMs, clock %d kHz (cudaDevAttrClockRate); one block of 32 x WARPS threads per SM, "
         "%d iterations of %d independent loads from a 64 KB buffer that stays in L1; median of 7 launches\n",
         p.name, p.multiProcessorCount, clockKhz, ITERS, UNROLL);
  printf("# type placement L warps ms cycles_per_warp_load\n");
  const int sms = p.multiProcessorCount;
  all<float>(buf, out, sms, clockKhz);
  all<double>(buf, out, sms, clockKhz);
  CK(cudaFree(buf));
  CK(cudaFree(out));
  return 0;
}
