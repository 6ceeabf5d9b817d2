// How long does a warp wait for a group of row-walk loads when other warps of
// its SM walk their rows too?
//
// A thread that walks its own row (matvec's A[i][j] with one thread a row i)
// issues loads whose 32 lanes touch 32 lines: the L1 passes such a load one
// line after another (l1_line_latency_cycles, validation/kernels/walkstore.cu,
// one warp alone) and serves about one line a cycle an SM
// (validation/kernels/l1lines.cu, hits). The `mlp` term of the model waits out
// each group of U unrolled loads as the slowest load's latency plus the lines
// of the others (a warp's own passage); the `lsu` floor counts every warp's
// lines at l1_wavefronts_per_cycle. Which of the two holds when W warps of an
// SM each walk 32 rows at once (matvec 2048 ran 0.058 ms with one warp on each
// of 64 SMs and 0.087 with two warps on each of 32, validation/results/
// h200_emit21_kernels.json), this program measures.
//
// One block of 32 x W threads per SM (132 blocks), thread t of the grid
// walking row t of COLS floats with U loads in flight (#pragma unroll U, one
// partial sum a load), for W = 1, 2, 4, 8, 16 and U = 1, 4, 8, 16, 32, in two
// variants:
//   dram  each launch walks rows that the last launches did not touch (a
//         buffer of 16 x 132 x 32 rows, the launches going round it)
//   l2    every launch walks the same rows, which L2 holds after the first
// Prints, per variant, U and W, the median of 7 launches (2 warm-ups), the SM
// cycles per group of U loads (the clock cudaDevAttrClockRate gives) and the
// GB/s of rows read.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/rowwalk.cu -o /tmp/rowwalk
//   /tmp/rowwalk > validation/results/h200_rowwalk.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, median_alone_ms

constexpr int COLS = 2048; // 8 KB a row
constexpr int MAX_WARPS = 16;

template <int U>
__global__ void walk(const float *__restrict__ a, size_t firstRow, float *__restrict__ out) {
  const size_t row = firstRow + size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const float *p = a + row * COLS;
  float s[U] = {};
#pragma unroll 1
  for (int j = 0; j < COLS; j += U) {
#pragma unroll
    for (int u = 0; u < U; ++u)
      s[u] += p[j + u];
  }
  float sum = 0.0f;
#pragma unroll
  for (int u = 0; u < U; ++u)
    sum += s[u];
  out[row] = sum;
}

template <int U>
double time_ms(const float *a, float *out, int sms, int warps, bool dram, size_t bufRows) {
  const size_t rowsPerLaunch = size_t(sms) * 32 * warps;
  const size_t regions = bufRows / rowsPerLaunch;
  return median_alone_ms( // two warm-ups
      [&](int r) { walk<U><<<sms, 32 * warps>>>(a, dram ? (r % regions) * rowsPerLaunch : 0, out); }, 7, 2,
      [](int) {});
}

template <int U>
void rows(const float *a, float *out, int sms, double clockKhz, size_t bufRows) {
  for (bool dram : {true, false})
    for (int warps : {1, 2, 4, 8, 16}) {
      double ms = time_ms<U>(a, out, sms, warps, dram, bufRows);
      double groups = double(COLS) / U;
      double cycles = ms * 1e-3 * clockKhz * 1e3;
      double bytes = double(sms) * 32 * warps * COLS * sizeof(float);
      printf("%-5s %2d %3d %10.4f %12.1f %10.1f\n", dram ? "dram" : "l2", U, warps, ms, cycles / groups,
             bytes / (ms * 1e-3) / 1e9);
    }
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clockKhz = 0;
  CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  const int sms = p.multiProcessorCount;
  // Enough rows that a launch of 16 warps an SM finds its rows out of L2
  // after the last: 16 regions of the largest launch.
  const size_t bufRows = size_t(16) * sms * 32 * MAX_WARPS;
  float *a = nullptr, *out = nullptr;
  CK(cudaMalloc(&a, bufRows * COLS * sizeof(float)));
  CK(cudaMalloc(&out, bufRows * sizeof(float)));
  std::vector<float> h(size_t(1) << 24);
  for (size_t k = 0; k < h.size(); ++k)
    h[k] = 1.0f + 1e-3f * float(k % 97);
  for (size_t off = 0; off < bufRows * COLS; off += h.size())
    CK(cudaMemcpy(a + off, h.data(), std::min(h.size(), bufRows * COLS - off) * sizeof(float),
                  cudaMemcpyHostToDevice));
  printf("# %s, %d SMs, clock %d kHz (cudaDevAttrClockRate); one block of 32 x W threads per SM, "
         "each thread walking its own row of %d floats, U loads in flight; median of 7 launches\n",
         p.name, sms, clockKhz, COLS);
  printf("# variant U W ms cycles_per_group GBps\n");
  rows<1>(a, out, sms, clockKhz, bufRows);
  rows<4>(a, out, sms, clockKhz, bufRows);
  rows<8>(a, out, sms, clockKhz, bufRows);
  rows<16>(a, out, sms, clockKhz, bufRows);
  rows<32>(a, out, sms, clockKhz, bufRows);
  CK(cudaFree(a));
  CK(cudaFree(out));
  return 0;
}
