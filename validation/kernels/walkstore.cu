// Does a thread's own global store take the sector it walks out of L1?
//
// The `walk` term (docs/model.md, section 7) gives a row walk L1 latency for
// the 7 of 8 loads that find the element in the 32-byte sector the thread
// fetched itself. jacobi_residual's second nest (examples/jacobi_residual.c)
// loads u[i][j] and v[i][j] and stores u[i][j] in the same iteration, each
// thread on its own row: on the H100 it ran about an L2 round trip per
// iteration (validation/results/h100_emit9_kernels.json), as if the store
// took the sector away and the next iteration's u[i][j+1] went to L2.
//
// This program times the same walk (ROWS threads in one-warp blocks, each
// walking its own row of COLS floats, unroll 1) in five variants:
//   loads      r += |v - u|                         (no store)
//   store_same r += |v - u|; u[i][j] = v[i][j]     (the thread stores into the sector it walks)
//   store_next r += |v - u|; u[i][j+1] = ...       (it stores into the sector it reads next)
//   store_other r += |v - u|; w[i][j] = v[i][j]    (a store of the same shape to another array)
//   only_u     r += u; u[i][j] = r                 (one walked array, stored after its load)
//   one        r += u[i][j]                        (one walked array, no store)
//   one_line   r += u[b][j], b the warp's block    (one array, the warp's 32 threads on one row: one line a load)
//   one_double r += d[i][j], d double              (one array of 8-byte elements: 4 iterations a sector)
// and prints the SM cycles per iteration (the clock cudaDevAttrClockRate
// gives), the median of 9 launches each.
//
// Then the latency those walks are made of, as pointer chases (each load's
// address is the value the last one returned, as calibrate.cu chases): one
// warp, each thread chasing within its own 32 KB row ("32 lines": a warp's
// load touches 32 128-byte lines) or all 32 threads the same row ("1 line"),
// each hop either staying on its element (an L1 hit every time) or moving 32
// bytes on (a new sector every hop; the 1 MB the warp walks stays in L2):
// cycles per hop, clock64 inside the kernel, the median of 9 launches.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/walkstore.cu -o /tmp/walkstore
//   /tmp/walkstore > validation/results/h100_walkstore.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common.cuh" // CK

constexpr int ROWS = 1024, COLS = 1024;

template <int V>
__global__ void walk(float *u, const float *v, float *w, float *res) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= ROWS)
    return;
  float r = 0.0f;
#pragma unroll 1
  for (int j = 1; j < COLS - 1; j++) {
    size_t at = size_t(i) * COLS + j;
    if (V == 4) {
      r += u[at];
      u[at] = r;
      continue;
    }
    if (V == 5) {
      r += u[at];
      continue;
    }
    if (V == 6) {
      r += u[size_t(blockIdx.x) * COLS + j];
      continue;
    }
    if (V == 7) {
      r += float(((const double *)w)[at]);
      continue;
    }
    r += fabsf(v[at] - u[at]);
    if (V == 1)
      u[at] = v[at];
    if (V == 2)
      u[at + 1] = v[at] * 0.5f;
    if (V == 3)
      w[at] = v[at];
  }
  res[i] = r;
}

constexpr int CHASE_COLS = 8192; // ints a row: 32 KB

// One warp; lane l chases row (sameRow ? 0 : l); hop = 0 stays, 8 moves 32 bytes.
__global__ void chase(const int *p, int hops, bool sameRow, long long *cycles, int *sink) {
  int lane = threadIdx.x;
  const int *row = p + size_t(sameRow ? 0 : lane) * CHASE_COLS;
  int at = 0;
  for (int k = 0; k < 64; ++k) // warm up; the timed hops go on from here
    at = row[at];
  __syncwarp();
  long long t0 = clock64();
  for (int k = 0; k < hops; ++k)
    at = row[at];
  long long t1 = clock64();
  if (lane == 0)
    *cycles = t1 - t0;
  sink[lane] = at;
}

template <int V> float timeIt(float *u, float *v, float *w, float *res, int block) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int rep = 0; rep < 9; ++rep) {
    CK(cudaEventRecord(a));
    walk<V><<<(ROWS + block - 1) / block, block>>>(u, v, w, res);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main() {
  size_t n = size_t(ROWS) * COLS + 1;
  float *u, *v, *w, *res;
  CK(cudaMalloc(&u, n * sizeof(float)));
  CK(cudaMalloc(&v, n * sizeof(float)));
  CK(cudaMalloc(&w, n * sizeof(double))); // the double walk reads it as doubles
  CK(cudaMalloc(&res, ROWS * sizeof(float)));
  CK(cudaMemset(u, 0, n * sizeof(float)));
  CK(cudaMemset(v, 0, n * sizeof(float)));
  int clockKhz = 0;
  CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, clock %d kHz (cudaDevAttrClockRate); %d rows of %d floats, one thread a row, "
         "unroll 1; median of 9 launches; cycles per iteration = ms x clock / %d iterations\n",
         p.name, clockKhz, ROWS, COLS, COLS - 2);
  CK(cudaMemset(w, 0, n * sizeof(double)));
  const char *names[] = {"loads", "store_same", "store_next", "store_other", "only_u", "one", "one_line", "one_double"};
  for (int block : {32, 128}) {
    float t[8] = {timeIt<0>(u, v, w, res, block), timeIt<1>(u, v, w, res, block),
                  timeIt<2>(u, v, w, res, block), timeIt<3>(u, v, w, res, block),
                  timeIt<4>(u, v, w, res, block), timeIt<5>(u, v, w, res, block),
                  timeIt<6>(u, v, w, res, block), timeIt<7>(u, v, w, res, block)};
    for (int k = 0; k < 8; ++k)
      printf("block %3d %-12s %8.4f ms %7.1f cycles/iteration\n", block, names[k], t[k],
             t[k] * 1e-3 * clockKhz * 1e3 / (COLS - 2));
  }
  // The chases.
  int hops = CHASE_COLS / 8 - 65; // the moving chase stays inside its row
  int *pc, *sink;
  long long *cyc;
  CK(cudaMalloc(&pc, size_t(32) * CHASE_COLS * sizeof(int)));
  CK(cudaMalloc(&sink, 32 * sizeof(int)));
  CK(cudaMalloc(&cyc, sizeof(long long)));
  std::vector<int> host(size_t(32) * CHASE_COLS);
  for (int step : {0, 8}) {
    for (size_t r = 0; r < 32; ++r)
      for (int c = 0; c < CHASE_COLS; ++c)
        host[r * CHASE_COLS + c] = step == 0 ? c : std::min(c + step, CHASE_COLS - 1);
    CK(cudaMemcpy(pc, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (bool same : {true, false}) {
      std::vector<long long> per;
      for (int rep = 0; rep < 9; ++rep) {
        chase<<<1, 32>>>(pc, hops, same, cyc, sink);
        CK(cudaGetLastError());
        long long c;
        CK(cudaMemcpy(&c, cyc, sizeof c, cudaMemcpyDeviceToHost));
        per.push_back(c);
      }
      std::sort(per.begin(), per.end());
      printf("chase %-9s %-8s %7.1f cycles/hop\n", same ? "1 line" : "32 lines",
             step == 0 ? "L1 hit" : "new sector", double(per[per.size() / 2]) / hops);
    }
  }
  return 0;
}
