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
// and prints the SM cycles per iteration (clock measured with clock64 against
// the events), the median of 9 launches each.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/walkstore.cu -o /tmp/walkstore
//   /tmp/walkstore > validation/results/h100_walkstore.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                                  \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      fprintf(stderr, "CUDA error '%s' at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

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
  CK(cudaMalloc(&w, n * sizeof(float)));
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
  const char *names[] = {"loads", "store_same", "store_next", "store_other", "only_u"};
  for (int block : {32, 128}) {
    float t[5] = {timeIt<0>(u, v, w, res, block), timeIt<1>(u, v, w, res, block),
                  timeIt<2>(u, v, w, res, block), timeIt<3>(u, v, w, res, block),
                  timeIt<4>(u, v, w, res, block)};
    for (int k = 0; k < 5; ++k)
      printf("block %3d %-12s %8.4f ms %7.1f cycles/iteration\n", block, names[k], t[k],
             t[k] * 1e-3 * clockKhz * 1e3 / (COLS - 2));
  }
  return 0;
}
