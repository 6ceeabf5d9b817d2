// DRAM's rate for reads and writes mixed: a kernel that reads R arrays and
// writes W arrays of 2^25 floats (128 MB each, far past L2) element by
// element, 4 elements a thread a round (grid-stride over 8 blocks of 256
// threads an SM), for (R, W) from reads alone to writes alone: how much the
// share of the bytes written lowers DRAM's rate (the bus turns around between
// reads and writes; docs/validation.md, "Three mechanisms measured and not
// adopted").
// tiled: the same in emit's shape, a block a tile of 1,024 elements.
// Each (R, W) runs twice to warm up, then 5 repeats of 10 launches back to
// back between one event pair; GB/s = (R + W) x 128 MB / the median repeat's
// time a launch.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/dramrw.cu -o /tmp/dramrw
//   /tmp/dramrw > validation/results/h200_dramrw.json
#include <cuda_runtime.h>

#include <cstdio>

#include "common.cuh" // CK, CKL, back_to_back_us

constexpr int kMaxArrays = 9;
struct Arrays {
  float *a[kMaxArrays];
};

template <int R, int W>
__global__ void rw(Arrays arr, size_t n, float *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 3 * stride < n; i += 4 * stride) {
    float v[4] = {0, 0, 0, 0};
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        v[e] += arr.a[r][i + e * stride];
#pragma unroll
    for (int w = 0; w < W; ++w)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        arr.a[R + w][i + e * stride] = v[e] + (float)(w + i);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      s += v[e];
  }
  if (W == 0 && s == 1.2345f) // keeps the loads; never true for these contents
    sink[0] = s;
}

// emit's shape: each block a tile of 1,024 consecutive elements, 4 a thread
// 256 apart (`block=i:256 fold=i:4`), n / 1,024 blocks
template <int R, int W>
__global__ void rwTiled(Arrays arr, size_t n, float *sink) {
  size_t base = blockIdx.x * (size_t)1024 + threadIdx.x;
  float v[4] = {0, 0, 0, 0};
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      v[e] += arr.a[r][base + e * 256];
#pragma unroll
  for (int w = 0; w < W; ++w)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      arr.a[R + w][base + e * 256] = v[e] + (float)(w + base);
  if (W == 0 && v[0] + v[1] + v[2] + v[3] == 1.2345f)
    sink[0] = v[0];
}

template <int R, int W>
void measure(const Arrays &arr, size_t n, float *sink, int blocks, bool last) {
  double ms = back_to_back_us([&] { rw<R, W><<<blocks, 256>>>(arr, n, sink); }, 10, 5, 2) / 1000.0;
  // right after the grid-strided launches, which warm it up (no launches of its own)
  double tiledMs =
      back_to_back_us([&] { rwTiled<R, W><<<(unsigned)(n / 1024), 256>>>(arr, n, sink); }, 10, 5, 0) / 1000.0;
  double bytes = double(R + W) * n * sizeof(float);
  printf("  {\"reads\": %d, \"writes\": %d, \"ms\": %.6f, \"gbps\": %.1f, \"tiled_ms\": %.6f, "
         "\"tiled_gbps\": %.1f}%s\n",
         R, W, ms, bytes / ms / 1e6, tiledMs, bytes / tiledMs / 1e6, last ? "" : ",");
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t n = size_t{1} << 25;
  Arrays arr;
  for (auto &x : arr.a) {
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMemset(x, 0, n * sizeof(float)));
  }
  float *sink = nullptr;
  CK(cudaMalloc(&sink, sizeof(float)));
  const int blocks = p.multiProcessorCount * 8;
  printf("{\"gpu\": \"%s\", \"sm_count\": %d, \"elements\": %zu,\n", p.name, p.multiProcessorCount, n);
  printf(" \"method\": \"validation/kernels/dramrw.cu: R arrays read and W written, 2^25 floats each, "
         "4 elements a thread a round (plain loads and stores, as emit writes them), %d blocks of 256; each (R, W) twice to warm up, "
         "then 5 repeats of 10 launches back to back; GB/s = (R + W) x 128 MB / the median repeat a "
         "launch\",\n",
         blocks);
  printf(" \"rows\": [\n");
  measure<1, 0>(arr, n, sink, blocks, false);
  measure<4, 0>(arr, n, sink, blocks, false);
  measure<8, 1>(arr, n, sink, blocks, false);
  measure<4, 1>(arr, n, sink, blocks, false);
  measure<2, 1>(arr, n, sink, blocks, false);
  measure<3, 2>(arr, n, sink, blocks, false);
  measure<1, 1>(arr, n, sink, blocks, false);
  measure<2, 3>(arr, n, sink, blocks, false);
  measure<1, 2>(arr, n, sink, blocks, false);
  measure<1, 4>(arr, n, sink, blocks, false);
  measure<0, 1>(arr, n, sink, blocks, false);
  measure<0, 4>(arr, n, sink, blocks, true);
  printf(" ]}\n");
  for (auto &x : arr.a)
    CK(cudaFree(x));
  CK(cudaFree(sink));
  return 0;
}
