// How many 128-byte lines a second does an SM's L1 serve to warp loads that
// hit it, when each load's 32 threads touch L lines?
//
// The `lsu` floor (docs/model.md, section 7) counts one L1 wavefront per
// coalesced warp load and, with `lines`, one per line for an uncoalesced one,
// at l1_wavefronts_per_cycle (1 on the H100). MatMul 800's register tiles
// (`block=i:8,j:8 fold=i:8,j:2 cache=B`: a warp of 8 x 4 threads loads A[i][k]
// for 4 rows i, 4 lines, each line's 8 threads on one word) ran 0.149 ms on
// the H100, against an L1 floor of 0.021 ms that counts such a load as one
// wavefront (validation/results/h100_emit11_kernels.json). This program asks
// the L1 directly.
//
// Every warp of a grid that fills the GPU (WARPS warps per SM, one block of
// 32 x WARPS threads per SM) loads from one 64 KB buffer that stays in L1;
// each load of a warp touches L lines (L = 1, 2, 4, 8, 16, 32), lane t on line
// t mod L, in two variants:
//   spread   the 32 / L lanes of a line read distinct words of it (a coalesced
//            run per line: L = 4 is 4 runs of 32 bytes)
//   same     the 32 / L lanes of a line all read one word (matmul's A[i][k])
// 8 independent loads an iteration with immediate offsets, 4096 iterations;
// the loaded values are summed so that nothing is dropped. Prints, per L,
// variant and WARPS, the SM cycles per warp load (the clock cudaDevAttrClockRate
// gives; event time of the whole grid, median of 7 launches) and the lines a
// cycle an SM served.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/l1lines.cu -o /tmp/l1lines
//   /tmp/l1lines > validation/results/h200_l1lines.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_of

constexpr int BUF_FLOATS = 16384;  // 64 KB: the window (32 KB) plus the farthest unrolled offset
constexpr int WINDOW_FLOATS = 8192; // 32 KB the iterations walk round
constexpr int ITERS = 4096;
constexpr int UNROLL = 8;

template <int L, bool SAME>
__global__ void lines(const float *__restrict__ buf, float *__restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  // lane t on line t mod L, at word (t / L) of it, or at word 0 of it (same)
  const int word = SAME ? 0 : lane / L;
  const int start = ((warp * 7 + blockIdx.x * 3) * L * 32) % WINDOW_FLOATS;
  int base = start + (lane % L) * 32 + word;
  float s[UNROLL] = {}; // one sum a load: no chain of adds between them
#pragma unroll 1
  for (int it = 0; it < ITERS; ++it) {
    const float *p = buf + base;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      s[u] += p[u * L * 32]; // the next L lines along
    base = (base + UNROLL * L * 32) & (WINDOW_FLOATS - 1);
  }
  float sum = 0.0f;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    sum += s[u];
  if (sum == 12345.678f) // never: keeps the loads
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int L, bool SAME>
double time_ms(const float *buf, float *out, int sms, int warps) {
  std::vector<double> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < 9; ++r) {
    CK(cudaEventRecord(a));
    lines<L, SAME><<<sms, 32 * warps>>>(buf, out);
    CKL();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) // two warm-ups
      t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median_of(t);
}

template <int L, bool SAME>
void row(const float *buf, float *out, int sms, int warps, double clockKhz) {
  double ms = time_ms<L, SAME>(buf, out, sms, warps);
  double loadsPerSm = double(warps) * ITERS * UNROLL;
  double cycles = ms * 1e-3 * clockKhz * 1e3;
  printf("%-6s %2d %5d %10.4f %12.3f %10.3f\n", SAME ? "same" : "spread", L, warps, ms,
         cycles / loadsPerSm, loadsPerSm * L / cycles);
}

template <int L>
void rows(const float *buf, float *out, int sms, double clockKhz) {
  for (int warps : {8, 16, 32})
    row<L, false>(buf, out, sms, warps, clockKhz);
  for (int warps : {8, 16, 32})
    row<L, true>(buf, out, sms, warps, clockKhz);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clockKhz = 0;
  CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  std::vector<float> h(BUF_FLOATS);
  for (int k = 0; k < BUF_FLOATS; ++k)
    h[k] = 1.0f + 1e-3f * float(k % 97);
  float *buf = nullptr, *out = nullptr;
  CK(cudaMalloc(&buf, BUF_FLOATS * sizeof(float)));
  CK(cudaMalloc(&out, size_t(p.multiProcessorCount) * 1024 * sizeof(float)));
  CK(cudaMemcpy(buf, h.data(), BUF_FLOATS * sizeof(float), cudaMemcpyHostToDevice));
  printf("# %s, %d SMs, clock %d kHz (cudaDevAttrClockRate); one block of 32 x WARPS threads per SM, "
         "%d iterations of %d independent loads from a 64 KB buffer that stays in L1; median of 7 "
         "launches\n",
         p.name, p.multiProcessorCount, clockKhz, ITERS, UNROLL);
  printf("# variant L warps ms cycles_per_warp_load lines_per_cycle_per_sm\n");
  const int sms = p.multiProcessorCount;
  rows<1>(buf, out, sms, clockKhz);
  rows<2>(buf, out, sms, clockKhz);
  rows<4>(buf, out, sms, clockKhz);
  rows<8>(buf, out, sms, clockKhz);
  rows<16>(buf, out, sms, clockKhz);
  rows<32>(buf, out, sms, clockKhz);
  CK(cudaFree(buf));
  CK(cudaFree(out));
  return 0;
}
