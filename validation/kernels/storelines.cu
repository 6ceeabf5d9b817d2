// Stores whose warp spreads over several 128-byte lines: what they cost L2.
// The transposes of h200_emit20i store out[j][i] with warps of R rows of out:
// `block=i:128,j:8` (8 rows of 16 bytes a warp store) ran 0.10-0.12 ms,
// `block=i:128,j:4` (4 rows of 32 bytes) 0.049, with DRAM bytes within 10%
// (Nsight Compute, validation/results/h200_ncu_transpose20.txt). This measures
// stores alone: a matrix of rows of 4,096 floats written whole once a launch,
// every warp store R rows x 32/R consecutive floats (R = 1: one line; R = 8:
// eight half sectors on eight lines), the warps of a band of R rows side by side
// so the neighbouring warp writes the rest of each sector soon after; a grid of
// 8 blocks of 256 threads an SM walks the tiles (grid-stride). Footprints of
// 256 MB (past L2: the stores go on to DRAM) and 8 MB (L2 holds it), 4 launches
// to warm up, then 20 back to back between one event pair; the footprint is
// poisoned before each configuration and every element checked written after.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/storelines.cu -o /tmp/storelines
//   /tmp/storelines > validation/results/h200_storelines.json
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL

constexpr int kRow = 4096; // floats a row

__global__ void storeTiles(float *out, size_t n, int rowsPerWarp, float v) {
  int lane = threadIdx.x % 32;
  int cols = 32 / rowsPerWarp;
  size_t tilesPerBand = kRow / cols;
  size_t tiles = n / 32;
  size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  size_t warps = (size_t)gridDim.x * blockDim.x / 32;
  for (size_t t = warp; t < tiles; t += warps) {
    size_t band = t / tilesPerBand, cb = t % tilesPerBand;
    size_t row = band * rowsPerWarp + lane / cols, col = cb * cols + lane % cols;
    out[row * kRow + col] = v + (float)lane;
  }
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int sms = p.multiProcessorCount;
  size_t big = (size_t)1 << 26; // floats: 256 MB
  float *out;
  CK(cudaMalloc(&out, big * sizeof(float)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  printf("{\n  \"gpu\": \"%s\", \"sms\": %d, \"l2_bytes\": %d, \"cuda_driver\": %d,\n  \"method\": \"validation/kernels/storelines.cu: a matrix "
         "of rows of 4096 floats stored whole once a launch, each warp store R rows x 32/R floats, "
         "grid of 8 x 256 threads an SM (grid-stride over the tiles); 4 warm-up launches, then 20 back to back "
         "between one event pair; ms per launch\",\n  \"cases\": [",
         p.name, sms, p.l2CacheSize, driver);
  bool first = true;
  std::vector<float> h(big);
  size_t bad = 0;
  for (size_t n : {big, (size_t)1 << 21})
    for (int r : {1, 2, 4, 8, 16, 32}) {
      // poisoned (NaN) before each configuration, checked after it: every
      // element of its footprint written with its own value
      poison(out, n * sizeof(float));
      float v = (float)(r * 100);
      for (int i = 0; i < 4; ++i) {
        storeTiles<<<sms * 8, 256>>>(out, n, r, v);
        CKL();
      }
      CK(cudaEventRecord(e0));
      for (int i = 0; i < 20; ++i)
        storeTiles<<<sms * 8, 256>>>(out, n, r, v);
      CKL();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      ms /= 20;
      double bytes = (double)n * 4;
      int bytesPerRow = 4 * 32 / r;
      double lines = (double)n / 32 * r; // one line a row of a warp store
      double sectors = (double)n / 32 * r * ((bytesPerRow + 31) / 32);
      printf("%s\n    {\"footprint_bytes\": %.0f, \"rows_per_warp_store\": %d, \"bytes_a_row\": %d, \"ms\": %.5f, "
             "\"gbps\": %.1f, \"lines_per_ns\": %.2f, \"sectors_per_ns\": %.2f}",
             first ? "" : ",", bytes, r, bytesPerRow, ms, bytes / ms / 1e6, lines / ms / 1e6, sectors / ms / 1e6);
      first = false;
      CK(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < n; ++i)
        bad += !(h[i] >= v && h[i] < v + 32.0f);
    }
  printf("\n  ],\n  \"unwritten_elements\": %zu\n}\n", bad);
  CK(cudaFree(out));
  return bad ? 3 : 0;
}
