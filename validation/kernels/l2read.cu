// L2's bandwidth for loads alone: what `l2_bandwidth_gbps` (measured with a
// triad, two loads and a store an element, validation/kernels/launches.cu)
// says for a kernel that only reads what L2 holds (IspinEx's rows of B, read
// by 14 rows of the sparse matrix each).
//  - read: every thread of blocks on every SM reads F floats (or float4s) a
//    round, `ld.global.cg` (__ldcg: L2, not L1), over an array of S bytes that
//    L2 holds, R rounds; one float a thread is stored at the end;
//  - write: the same with 4-byte stores (`st.global.cg`) and no loads;
//  - copy: a load and a store an element, each array half the footprint;
//  - triad: a = b + s c over the same footprint, as launches.cu measures it.
// A configuration whose threads' first round would pass the array's end is
// left out (its loop would not run).
// Each configuration runs once to warm L2, then 20 launches back to back
// between one event pair; bytes moved / time per launch.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/l2read.cu -o /tmp/l2read
//   /tmp/l2read > validation/results/h200_l2read.json
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL

template <int F, class T>
__global__ void readL2(const T *__restrict__ a, size_t n, int rounds, float *out) {
  float s = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + (F - 1) * stride < n;
         i += F * stride) {
      T v[F];
#pragma unroll
      for (int f = 0; f < F; ++f)
        v[f] = __ldcg(a + i + f * stride);
#pragma unroll
      for (int f = 0; f < F; ++f) {
        if constexpr (sizeof(T) == 16)
          s += v[f].x + v[f].y + v[f].z + v[f].w;
        else
          s += v[f];
      }
    }
  out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

template <int F>
__global__ void writeL2(float *__restrict__ a, size_t n, int rounds) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + (F - 1) * stride < n;
         i += F * stride) {
#pragma unroll
      for (int f = 0; f < F; ++f)
        __stcg(a + i + f * stride, (float)r);
    }
}

template <int F>
__global__ void copyL2(float *__restrict__ a, const float *__restrict__ b, size_t n, int rounds) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + (F - 1) * stride < n;
         i += F * stride) {
      float v[F];
#pragma unroll
      for (int f = 0; f < F; ++f)
        v[f] = __ldcg(b + i + f * stride);
#pragma unroll
      for (int f = 0; f < F; ++f)
        __stcg(a + i + f * stride, v[f] + (float)r);
    }
}

__global__ void triad(float *__restrict__ a, const float *__restrict__ b,
                      const float *__restrict__ c, float s, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

template <class Launch> static float perLaunchUs(Launch launch) {
  launch();
  CKL();
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int n = 20;
  CK(cudaEventRecord(e0));
  for (int k = 0; k < n; ++k)
    launch();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CKL();
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ms * 1000.0f / n;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const size_t maxBytes = 32u << 20;
  float *buf, *out, *b, *c;
  CK(cudaMalloc(&buf, maxBytes));
  CK(cudaMalloc(&b, maxBytes));
  CK(cudaMalloc(&c, maxBytes));
  CK(cudaMalloc(&out, (size_t)sms * 64 * 1024 * sizeof(float)));
  CK(cudaMemset(buf, 0, maxBytes));
  CK(cudaMemset(b, 0, maxBytes));
  CK(cudaMemset(c, 0, maxBytes));
  printf("{\"gpu\": \"%s\", \"sm_count\": %d, \"l2_cache_bytes\": %d,\n", p.name, sms, p.l2CacheSize);
  printf(" \"method\": \"validation/kernels/l2read.cu: loads through L2 only (__ldcg) of an array L2 holds, "
         "R rounds a launch, 20 launches back to back after one that warms L2; GB/s = bytes loaded / time "
         "per launch; triad: 12 bytes an element (2 loads, 1 store), the array's footprint as given\",\n");
  printf(" \"read\": [\n");
  bool first = true;
  for (size_t bytes : {8u << 20, 16u << 20, 24u << 20}) {
    for (int warps : {8, 16, 32, 64}) {
      const int threads = 256, blocks = sms * warps * 32 / threads;
      const int rounds = 16;
      const size_t threadsAll = (size_t)blocks * threads;
      if (threadsAll * 4 * 16 > bytes)
        continue; // float4 x 4 a round must fit the array
      float us4 = perLaunchUs([&] {
        readL2<4, float><<<blocks, threads>>>(buf, bytes / 4, rounds, out);
      });
      float us4v = perLaunchUs([&] {
        readL2<4, float4><<<blocks, threads>>>((const float4 *)buf, bytes / 16, rounds, out);
      });
      float usw = perLaunchUs([&] { writeL2<4><<<blocks, threads>>>(buf, bytes / 4, rounds); });
      float usc = perLaunchUs([&] { copyL2<4><<<blocks, threads>>>(buf, b, bytes / 8, rounds); });
      // bytes each kernel moves: the elements its threads' loops visit
      auto visited = [&](size_t n) {
        size_t sum = 0, T = threadsAll, F = 4;
        for (size_t t = 0; t < T; ++t)
          if (n >= (F - 1) * T + 1 + t)
            sum += ((n - (F - 1) * T - 1 - t) / (F * T) + 1) * F;
        return (double)sum;
      };
      double gbf = visited(bytes / 4) * 4 * rounds / 1e9;
      double gbv = visited(bytes / 16) * 16 * rounds / 1e9;
      printf("%s  {\"bytes\": %zu, \"warps_per_sm\": %d, \"rounds\": %d, \"float_us\": %.3f, "
             "\"float_gbps\": %.0f, \"float4_us\": %.3f, \"float4_gbps\": %.0f, \"write_us\": %.3f, "
             "\"write_gbps\": %.0f, \"copy_us\": %.3f, \"copy_gbps\": %.0f}",
             first ? "" : ",\n", bytes, warps, rounds, us4, gbf / (us4 * 1e-6), us4v,
             gbv / (us4v * 1e-6), usw, gbf / (usw * 1e-6), usc,
             2 * visited(bytes / 8) * 4 * rounds / 1e9 / (usc * 1e-6));
      first = false;
    }
  }
  printf("\n ],\n \"triad\": [\n");
  first = true;
  for (size_t bytes : {8u << 20, 16u << 20, 24u << 20}) {
    size_t n = bytes / 12; // launch-bound at these sizes: compare with the read rows' gap
    float us = perLaunchUs([&] { triad<<<(n + 255) / 256, 256>>>(buf, b, c, 2.0f, n); });
    printf("%s  {\"bytes\": %zu, \"us\": %.3f, \"gbps\": %.0f}", first ? "" : ",\n", bytes, us,
           (double)bytes / 1e9 / (us * 1e-6));
    first = false;
  }
  printf("\n ]\n}\n");
  return 0;
}
