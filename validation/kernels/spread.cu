// A warp's DRAM rate when its loads in flight are spread over rows, against
// the same loads along one contiguous stream (the shape that measured
// dram_bw_per_warp_gbps: inflight.cu, warprate.cu). mvt_1's and gemver_1's
// layouts `block=i:32 stage=j:S cache=y unroll=j:32` keep 32 coalesced loads
// of one column block in flight, each in another row of A (16 KB apart), one
// warp an SM, and drew 5.6 GB/s a warp where the spec's limit is 3.707
// (docs/validation.md, "Few warps streaming their own columns").
//
// Not part of run_all.sh (its output is not a measurement file of cases):
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/spread.cu -o /tmp/spread
//   /tmp/spread > validation/results/h200_spread.json
// For S SMs (one block per SM: each block asks for more than half an SM's
// shared memory), W warps a block and L independent coalesced 128-byte
// requests a warp in flight, every warp reads 2,048 lines (256 KB) from DRAM
// (L2 flushed before each launch), median of 5 event-timed launches:
//   contiguous: warp w's lines are its own 256 KB, L consecutive lines a group;
//   rows:       the lines are one column block of a matrix whose rows are
//               (all warps) x 128 bytes wide, L consecutive rows a group: warp
//               w reads bytes [128 w, 128 w + 128) of every row, as a thread
//               per column walking down its column does.
#include <cuda_runtime.h>

#include <cstdio>

#include "common.cuh" // CK, median_alone_ms

constexpr int kLinesPerWarp = 2048;                  // 256 KB a warp
constexpr size_t kSmemBytes = 120 << 10;             // > half of 228 KB: one block per SM

/// The load as emit's programs issue it (a plain load of a `const __restrict__`
/// array), or through L2 only (__ldcg, inflight.cu's).
enum class Load { Plain, L2Only };

template <int L, bool Rows, Load How>
__global__ void walk(const float *__restrict__ a, float *out, int warpsTotal, int lines) {
  extern __shared__ float pad[]; // only to hold one block per SM
  const int lane = threadIdx.x & 31;
  const size_t w = size_t(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const size_t pitch = size_t(warpsTotal) * 32; // floats a row (rows mode)
  float acc = 0;
  for (int line = 0; line < lines; line += L) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; ++k) {
      size_t at = Rows ? size_t(line + k) * pitch + w * 32 + lane
                       : (w * lines + line + k) * 32 + lane;
      v[k] = How == Load::L2Only ? __ldcg(a + at) : a[at];
    }
#pragma unroll
    for (int k = 0; k < L; ++k)
      acc += v[k];
  }
  if (acc == 1234.5f) // never true for the zero-filled buffer; keeps the loads
    out[0] = acc + pad[0];
}

// The median of 5 event-timed launches, L2 flushed before each (common.cuh).
template <int L, bool Rows, Load How>
float timeOne(const float *a, float *out, float *scratch, size_t scratchN, int sms, int warps,
              int lines = kLinesPerWarp) {
  auto k = walk<L, Rows, How>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  return float(median_alone_ms(
      [&](int) { k<<<sms, 32 * warps, kSmemBytes>>>(a, out, sms * warps, lines); }, 5, 0,
      [&](int) { // 256 MB written: L2 holds none of `a`
        flush<<<1024, 256>>>(scratch, scratchN);
        CKL();
      }));
}

template <bool Rows, Load How>
float timeL(int l, const float *a, float *out, float *s, size_t n, int sms, int w) {
  switch (l) {
  case 1: return timeOne<1, Rows, How>(a, out, s, n, sms, w);
  case 4: return timeOne<4, Rows, How>(a, out, s, n, sms, w);
  case 8: return timeOne<8, Rows, How>(a, out, s, n, sms, w);
  case 16: return timeOne<16, Rows, How>(a, out, s, n, sms, w);
  default: return timeOne<32, Rows, How>(a, out, s, n, sms, w);
  }
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int smsAll = prop.multiProcessorCount;
  const size_t maxWarps = size_t(smsAll) * 8;
  const size_t bufferBytes = maxWarps * kLinesPerWarp * 128;
  float *a = nullptr, *out = nullptr, *scratch = nullptr;
  const size_t scratchN = (size_t(256) << 20) / sizeof(float);
  CK(cudaMalloc(&a, bufferBytes));
  CK(cudaMemset(a, 0, bufferBytes));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&scratch, scratchN * sizeof(float)));
  std::printf("{\n \"gpu\": \"%s\", \"sm_count\": %d,\n", prop.name, smsAll);
  std::printf(" \"method\": \"validation/kernels/spread.cu: one block per SM on S SMs, W warps, L "
              "independent coalesced 128-byte requests per warp in flight, 2,048 lines (256 KB) "
              "per warp from DRAM (L2 flushed), contiguous (the warp's own 256 KB) or rows (one "
              "128-byte column block of a matrix of S x W x 128-byte rows), median of 5 "
              "event-timed launches; each point with __ldcg (L2 only, as inflight.cu) and with a plain load (as emit writes it)\",\n \"points\": [\n");
  bool first = true;
  for (int plain = 0; plain < 2; ++plain)
  for (int s : {16, smsAll})
    for (int w : {1, 2, 4, 8})
      for (int l : {1, 4, 8, 16, 32})
        for (int rows = 0; rows < 2; ++rows) {
          float ms = plain ? (rows ? timeL<true, Load::Plain>(l, a, out, scratch, scratchN, s, w)
                                   : timeL<false, Load::Plain>(l, a, out, scratch, scratchN, s, w))
                           : (rows ? timeL<true, Load::L2Only>(l, a, out, scratch, scratchN, s, w)
                                   : timeL<false, Load::L2Only>(l, a, out, scratch, scratchN, s, w));
          double bytes = double(s) * w * kLinesPerWarp * 128;
          double gbps = bytes / (ms * 1e6);
          std::printf("%s  {\"sms\": %d, \"warps_per_sm\": %d, \"loads_in_flight_per_warp\": %d, "
                      "\"pattern\": \"%s\", \"load\": \"%s\", \"ms\": %.5g, \"gbps\": %.5g, \"gbps_per_warp\": %.4g}",
                      first ? "" : ",\n", s, w, l, rows ? "rows" : "contiguous", plain ? "plain" : "ldcg", ms, gbps,
                      gbps / (double(s) * w));
          first = false;
        }
  // The same walks four times as long (8,192 lines a warp), one warp an SM: a
  // rate limit doubles the time with the lines, a fixed cost does not.
  std::printf("\n ],\n \"long\": [\n");
  first = true;
  for (int lines : {2048, 4096, 8192})
    for (int l : {1, 32})
      for (int rows = 0; rows < 2; ++rows) {
        float ms = l == 1 ? (rows ? timeOne<1, true, Load::Plain>(a, out, scratch, scratchN, smsAll, 1, lines)
                                  : timeOne<1, false, Load::Plain>(a, out, scratch, scratchN, smsAll, 1, lines))
                          : (rows ? timeOne<32, true, Load::Plain>(a, out, scratch, scratchN, smsAll, 1, lines)
                                  : timeOne<32, false, Load::Plain>(a, out, scratch, scratchN, smsAll, 1, lines));
        std::printf("%s  {\"sms\": %d, \"warps_per_sm\": 1, \"lines_per_warp\": %d, "
                    "\"loads_in_flight_per_warp\": %d, \"pattern\": \"%s\", \"ms\": %.5g}",
                    first ? "" : ",\n", smsAll, lines, l, rows ? "rows" : "contiguous", ms);
        first = false;
      }
  std::printf("\n ]\n}\n");
  CK(cudaFree(a));
  CK(cudaFree(out));
  CK(cudaFree(scratch));
  return 0;
}
