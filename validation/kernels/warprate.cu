// Is a warp's own DRAM rate a limit in bytes or in requests?
//
// validation/kernels/inflight.cu measured a warp streaming its own 256 KB
// with coalesced 4-byte loads (one 128-byte request a warp instruction) at
// 3.7-4.4 GB/s on the H200, whatever its loads in flight: one request every
// ~57 cycles. The spec keeps it as dram_bw_per_warp_gbps, a cap in bytes. A
// warp whose instructions each request more bytes (8-byte elements: 256 bytes;
// 16-byte: 512) tells which: the same GB/s (a cap in bytes) or the same
// requests a second (a cap in instructions). matvec_rows_fp64 8192's row walk
// (8-byte loads, 1.94 warps an SM) moved 1.22 TB/s, 4.8 GB/s a warp, where
// the cap holds the projection at 0.95 TB/s (validation/results/
// h200_emit27_kernels.json).
//
// One block per SM (every block asks for more than half the SM's shared
// memory) on all SMs and on one, W warps a block, each warp streaming its own
// 256 KB of a buffer that L2 was flushed of, with L loads of E bytes a lane in
// flight (__ldcg, summed after all are issued), E = 4, 8, 16, L = 1, 4, 16.
// Prints SMs, W, E, L, the median of 5 event-timed launches, GB/s and the
// warp's GB/s and SM cycles per warp instruction.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/warprate.cu -o /tmp/warprate
//   /tmp/warprate > validation/results/h200_warprate.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_alone_ms

constexpr size_t kBytesPerWarp = 256 << 10;
constexpr size_t kBufferBytes = size_t(4) << 30;
constexpr size_t kSmemBytes = 120 << 10; // > half of 228 KB: one block per SM

template <class T> __device__ float total(const T &v);
template <> __device__ float total(const float &v) { return v; }
template <> __device__ float total(const double &v) { return float(v); }
template <> __device__ float total(const float4 &v) { return v.x + v.y + v.z + v.w; }

template <class T, int L>
__global__ void stream(const T *__restrict__ a, float *out) {
  extern __shared__ float pad[];
  constexpr size_t perWarp = kBytesPerWarp / sizeof(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t slice = (size_t(blockIdx.x) * (blockDim.x >> 5) + warp) * perWarp;
  const T *p = a + slice + lane;
  float acc = 0;
#pragma unroll 1
  for (size_t it = 0; it < perWarp; it += 32 * L) {
    T v[L];
#pragma unroll
    for (int k = 0; k < L; ++k)
      v[k] = __ldcg(p + it + 32 * k);
#pragma unroll
    for (int k = 0; k < L; ++k)
      acc += total(v[k]);
  }
  if (acc == 1234.5f) // never for the zero-filled buffer; keeps the loads
    out[0] = acc + pad[0];
}

template <class T, int L>
double time_ms(const void *a, float *out, float *scratch, size_t scratchN, int sms, int warps) {
  auto k = stream<T, L>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  return median_alone_ms([&](int) { k<<<sms, 32 * warps, kSmemBytes>>>(static_cast<const T *>(a), out); }, 5, 0,
                         [&](int) {
                           flush<<<1024, 256>>>(scratch, scratchN); // 256 MB written: L2 holds none of `a`
                           CKL();
                         });
}

template <class T, int L>
void row(const void *a, float *out, float *scratch, size_t scratchN, int sms, int warps, double ghz) {
  double ms = time_ms<T, L>(a, out, scratch, scratchN, sms, warps);
  double gbps = double(sms) * warps * kBytesPerWarp / (ms * 1e6);
  double insts = double(kBytesPerWarp) / (32 * sizeof(T)); // a warp's load instructions
  printf("%4d %3d %3zu %3d %10.4f %9.1f %8.3f %8.1f\n", sms, warps, sizeof(T), L, ms, gbps, gbps / (sms * warps),
         ms * 1e6 * ghz / insts);
}

template <class T>
void rows(const void *a, float *out, float *scratch, size_t scratchN, int sms, int warps, double ghz) {
  row<T, 1>(a, out, scratch, scratchN, sms, warps, ghz);
  row<T, 4>(a, out, scratch, scratchN, sms, warps, ghz);
  row<T, 16>(a, out, scratch, scratchN, sms, warps, ghz);
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clockKhz = 0;
  CK(cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, 0));
  const double ghz = clockKhz * 1e-6;
  void *a = nullptr;
  float *out = nullptr, *scratch = nullptr;
  const size_t scratchN = (size_t(256) << 20) / sizeof(float);
  CK(cudaMalloc(&a, kBufferBytes));
  CK(cudaMemset(a, 0, kBufferBytes));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&scratch, scratchN * sizeof(float)));
  printf("# %s, %d SMs, clock %.3f GHz (cudaDevAttrClockRate); one block of 32 x W threads per SM on S SMs, each warp "
         "streaming its own 256 KB (coalesced, __ldcg, L2 flushed), L loads of E bytes a lane in flight; median of 5 "
         "launches\n",
         prop.name, prop.multiProcessorCount, ghz);
  printf("# S W E L ms GBps GBps_per_warp cycles_per_warp_inst\n");
  for (int sms : {1, prop.multiProcessorCount})
    for (int warps : {1, 2, 4, 16}) {
      rows<float>(a, out, scratch, scratchN, sms, warps, ghz);
      rows<double>(a, out, scratch, scratchN, sms, warps, ghz);
      rows<float4>(a, out, scratch, scratchN, sms, warps, ghz);
    }
  CK(cudaFree(a));
  CK(cudaFree(out));
  CK(cudaFree(scratch));
  return 0;
}
