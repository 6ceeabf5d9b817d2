// Memory parallelism on one GPU: the DRAM bandwidth a kernel draws against the
// bytes it keeps in flight per SM (Little's law: bandwidth = bytes in flight /
// latency), and against the SMs that have work. Measures what a Little's-law
// term of the skelcast model needs and hwspecs/*.json does not hold yet: the
// latency under load (dram_latency_cycles is a single thread's, unloaded) and
// the bytes in flight per SM at which the bandwidth stops growing.
//
// Not part of run_all.sh (its output is not a measurement file of cases):
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/inflight.cu -o /tmp/inflight
//   /tmp/inflight > validation/results/h100_inflight.json
// (about a minute on an H100). For each S active SMs (one block per SM: every
// block asks for more than half an SM's shared memory), W warps per block and
// L independent coalesced 4-byte loads per thread in flight (one 128-byte
// request per warp each), every warp streams its own 256 KB of a 4 GiB buffer
// that L2 was flushed of, timed with CUDA events (median of 5). The JSON gives
// GB/s, bytes in flight per SM = W x L x 128, and the latency Little's law
// implies, bytes in flight x S / bandwidth, in ns and in SM cycles at the
// clock the program measures itself.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common.cuh" // CK

constexpr size_t kBytesPerWarp = 256 << 10;                  // each warp's stream
constexpr size_t kFloatsPerWarp = kBytesPerWarp / sizeof(float);
constexpr size_t kBufferBytes = size_t(4) << 30;             // every (S, W) fits: 132 x 32 x 256 KB
constexpr size_t kSmemBytes = 120 << 10;                     // > half of 228 KB: one block per SM

// Warp w of block b streams floats [slice, slice + kFloatsPerWarp): per
// iteration each lane issues L loads 32 floats apart, so the warp has L
// independent 128-byte requests in flight, summed only after all are issued.
template <int L>
__global__ void stream(const float *__restrict__ a, float *out) {
  extern __shared__ float pad[]; // only to hold one block per SM
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t slice = (size_t(blockIdx.x) * (blockDim.x >> 5) + warp) * kFloatsPerWarp;
  const float *p = a + slice + lane;
  float acc = 0;
  for (size_t it = 0; it < kFloatsPerWarp; it += 32 * L) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; ++k)
      v[k] = __ldcg(p + it + 32 * k);
#pragma unroll
    for (int k = 0; k < L; ++k)
      acc += v[k];
  }
  if (acc == 1234.5f) // never true for the zero-filled buffer; keeps the loads
    out[0] = acc + pad[0];
}

__global__ void spin(long long cycles, long long *out) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  out[0] = clock64() - t0;
}

template <int L>
float timeOne(const float *a, float *out, float *scratch, size_t scratchN, int sms, int warps) {
  auto k = stream<L>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  std::vector<float> ms;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int rep = 0; rep < 5; ++rep) {
    flush<<<1024, 256>>>(scratch, scratchN); // 256 MB written: L2 holds none of `a`
    CK(cudaGetLastError());
    CK(cudaEventRecord(e0));
    k<<<sms, 32 * warps, kSmemBytes>>>(a, out);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t = 0;
    CK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  float *a = nullptr, *out = nullptr, *scratch = nullptr;
  const size_t scratchN = (size_t(256) << 20) / sizeof(float);
  CK(cudaMalloc(&a, kBufferBytes));
  CK(cudaMemset(a, 0, kBufferBytes));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&scratch, scratchN * sizeof(float)));
  // The SM clock under a spin of known cycles, for latencies in cycles.
  long long *cyc = nullptr;
  CK(cudaMalloc(&cyc, sizeof(long long)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const long long spinCycles = 200000000LL;
  CK(cudaEventRecord(e0));
  spin<<<1, 1>>>(spinCycles, cyc);
  CK(cudaGetLastError());
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float spinMs = 0;
  CK(cudaEventElapsedTime(&spinMs, e0, e1));
  const double ghz = spinCycles / (spinMs * 1e6);

  const int smsAll = prop.multiProcessorCount;
  std::vector<int> smList{1, 8, 16, 33, 66, smsAll};
  std::vector<int> warpList{1, 2, 4, 8, 16, 32};
  std::printf("{\n \"gpu\": \"%s\", \"sm_count\": %d, \"clock_ghz\": %.4f,\n", prop.name, smsAll, ghz);
  std::printf(" \"method\": \"validation/kernels/inflight.cu: one block per SM on S SMs, W warps, L "
              "independent 128-byte requests per warp in flight, 256 KB per warp from DRAM (L2 "
              "flushed), median of 5 event-timed launches\",\n \"points\": [\n");
  bool first = true;
  for (int s : smList)
    for (int w : warpList)
      for (int l : {1, 2, 4, 8, 16}) {
        float ms = l == 1    ? timeOne<1>(a, out, scratch, scratchN, s, w)
                   : l == 2  ? timeOne<2>(a, out, scratch, scratchN, s, w)
                   : l == 4  ? timeOne<4>(a, out, scratch, scratchN, s, w)
                   : l == 8  ? timeOne<8>(a, out, scratch, scratchN, s, w)
                             : timeOne<16>(a, out, scratch, scratchN, s, w);
        double bytes = double(s) * w * kBytesPerWarp;
        double gbps = bytes / (ms * 1e6);
        double inflight = double(w) * l * 128; // per SM
        double latencyNs = inflight * s / gbps; // Little's law: bytes / (bytes/ns)
        std::printf("%s  {\"sms\": %d, \"warps_per_sm\": %d, \"loads_in_flight_per_warp\": %d, "
                    "\"bytes_in_flight_per_sm\": %.0f, \"ms\": %.5g, \"gbps\": %.5g, "
                    "\"implied_latency_ns\": %.5g, \"implied_latency_cycles\": %.5g}",
                    first ? "" : ",\n", s, w, l, inflight, ms, gbps, latencyNs, latencyNs * ghz);
        first = false;
      }
  std::printf("\n ]\n}\n");
  CK(cudaFree(a));
  CK(cudaFree(out));
  CK(cudaFree(scratch));
  CK(cudaFree(cyc));
  return 0;
}
