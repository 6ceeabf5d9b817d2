// The DRAM bandwidth a few warps per SM draw when each warp walks a column
// strip (a matrix-vector product's warp over A[j][i..i+31], colmean's over
// data[i][j..j+31]: every 128-byte request on a row of its own), against the
// same warps each streaming a contiguous slice (inflight.cu's shape, where
// dram_bw_per_warp_gbps comes from). The question: is a warp's 3.7 GB/s a
// limit of the warp, or of a contiguous stream? spread.cu asked it with its
// loop left to nvcc, which unrolled it (16 loads in flight at L = 1); here the
// loop is rolled.
//
// Not part of run_all.sh (its output is not a measurement file of cases):
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/inflight_walk.cu -o /tmp/iw
//   /tmp/iw > validation/results/h200_inflight_walk.json
// (about 7 s on the H200). One block per SM on every SM (each block asks for
// more than half an SM's shared memory), W warps a block, L independent 4-byte
// loads a thread (L 128-byte requests a warp) issued before any is summed (the
// SASS: all L LDGs first up to L = 16; at 32 ptxas starts the sums after 21),
// the outer loop kept rolled (#pragma unroll 1) so that L is what the warp
// holds; three loads (__ldcg, a plain ld.global, __ldg). Each warp reads
// 512 KB: 4,096 rows of its 128-byte strip (walk: rows 128 KB apart, 512 MB
// in all) or 512 KB in a row (stream). L2 flushed before each launch; median
// of 5 event-timed launches after 2 warm-ups. Then one-warp blocks on 128 SMs
// walking 64 MB (rows 16 KB apart: mvt 4096's A[j][i] in block=i:32) with L2
// flushed or not, with and without the shared memory, and alone against 1, 2
// and 10 launches back to back.
#include <cuda_runtime.h>
#include <cstdio>
#include <type_traits>
#include <vector>
#include "common.cuh" // CK, median_alone_ms

constexpr size_t kRows = 4096;                  // 512 MB matrix
constexpr size_t kSmemBytes = 120 << 10;        // > half of 228 KB: one block per SM

// How a thread loads: kCg = __ldcg (LDG.E.STRONG.GPU, inflight.cu's load),
// kPlain = an ordinary load (LDG.E: emit's loads of an array the kernel also
// writes), kNc = __ldg (LDG.E.CONSTANT: emit's loads of a const restrict array).
enum Kind { kCg, kPlain, kNc };
template <int K>
__device__ __forceinline__ float load(const float *p) {
  if constexpr (K == kCg)
    return __ldcg(p);
  else if constexpr (K == kNc)
    return __ldg(p);
  float v;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

// A warp's 128-byte strip read L rows at a time: a walk down a column block
// (Walk: the strip's rows kCols floats apart, warps side by side in a row)
// or a stream (each warp's own kRows x 128 bytes in a row).
template <int L, int K, bool Walk>
__global__ void strip(const float *__restrict__ a, float *out, size_t kCols) {
  extern __shared__ float pad[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t w = size_t(blockIdx.x) * (blockDim.x >> 5) + warp;
  const float *p = a + w * (Walk ? 32 : kRows * 32) + lane;
  const size_t row = Walk ? kCols : 32; // floats from one row of the strip to the next
  float acc = 0;
#pragma unroll 1
  for (size_t r = 0; r < kRows; r += L) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; ++k)
      v[k] = load<K>(p + (r + k) * row);
#pragma unroll
    for (int k = 0; k < L; ++k)
      acc += v[k];
  }
  if (acc == 1234.5f) // never true for the zero-filled matrix; keeps the loads
    out[0] = acc + pad[0];
}

// The walk with V floats a lane (V = 2, 4: LDG.64, LDG.128): a warp's
// request covers V x 128 bytes of its row, so L requests hold L x V x 128
// bytes in flight with L instructions (ptxas issues at most ~21 loads before
// the first sum; 8 LDG.128 hold 4 KB).
template <int L, int V>
__global__ void walkv(const float *__restrict__ a, float *out, size_t kCols) {
  using T = typename std::conditional<V == 4, float4, float2>::type;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t strip = size_t(blockIdx.x) * (blockDim.x >> 5) + warp;
  const T *p = reinterpret_cast<const T *>(a + strip * 32 * V) + lane;
  const size_t rowT = kCols / V;
  float acc = 0;
#pragma unroll 1
  for (size_t r = 0; r < kRows; r += L) {
    T v[L];
#pragma unroll
    for (int k = 0; k < L; ++k)
      v[k] = __ldg(p + (r + k) * rowT);
#pragma unroll
    for (int k = 0; k < L; ++k) {
      acc += v[k].x + v[k].y;
      if constexpr (V == 4)
        acc += v[k].z + v[k].w;
    }
  }
  if (acc == 1234.5f)
    out[0] = acc;
}

template <int L, int V>
double timeVec(const float *a, float *out, float *scratch, size_t scratchN, int sms, int warps) {
  auto k = walkv<L, V>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  return median_alone_ms([&](int) { k<<<sms, 32 * warps, kSmemBytes>>>(a, out, 32768); }, 5, 2,
                         [&](int) { flush<<<1024, 256>>>(scratch, scratchN); });
}

template <int L, int K>
double timeOne(bool isWalk, const float *a, float *out, float *scratch, size_t scratchN, int sms, int warps,
               size_t cols, bool flushed, size_t smem) {
  auto k = isWalk ? strip<L, K, true> : strip<L, K, false>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  return median_alone_ms([&](int) { k<<<sms, 32 * warps, smem>>>(a, out, cols); }, 5, 2, [&](int) {
    if (flushed)
      flush<<<1024, 256>>>(scratch, scratchN);
  });
}

// The same launch timed back to back: 10 launches between one pair of events
// (common.cuh's back_to_back_us, as emit's programs and validate time them).
template <int L, int K>
double timeBackToBack(const float *a, float *out, int blocks, size_t cols, int batch) {
  auto k = strip<L, K, true>;
  return back_to_back_us([&] { k<<<blocks, 32, 0>>>(a, out, cols); }, batch, 7) / 1000.0;
}

template <int K>
double timeL(int l, bool isWalk, const float *a, float *out, float *scratch, size_t scratchN, int sms,
             int warps, size_t cols, bool flushed, size_t smem) {
  switch (l) {
  case 1: return timeOne<1, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  case 2: return timeOne<2, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  case 4: return timeOne<4, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  case 8: return timeOne<8, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  case 16: return timeOne<16, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  default: return timeOne<32, K>(isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  }
}

double timeKind(int kind, int l, bool isWalk, const float *a, float *out, float *scratch, size_t scratchN,
                int sms, int warps, size_t cols = 32768, bool flushed = true, size_t smem = kSmemBytes) {
  if (kind == kCg)
    return timeL<kCg>(l, isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  if (kind == kNc)
    return timeL<kNc>(l, isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
  return timeL<kPlain>(l, isWalk, a, out, scratch, scratchN, sms, warps, cols, flushed, smem);
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  const size_t n = size_t(32768) * kRows;
  float *a = nullptr, *out = nullptr, *scratch = nullptr;
  const size_t scratchN = (size_t(256) << 20) / sizeof(float);
  CK(cudaMalloc(&a, n * sizeof(float)));
  CK(cudaMemset(a, 0, n * sizeof(float)));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMalloc(&scratch, scratchN * sizeof(float)));
  std::printf("{\n \"gpu\": \"%s\", \"sm_count\": %d,\n", prop.name, sms);
  std::printf(" \"method\": \"validation/kernels/inflight_walk.cu: one block per SM on every SM, W warps, L "
              "independent 128-byte requests a warp in flight (outer loop rolled), 512 KB a warp: walk = "
              "4096 rows of a 128-byte strip 128 KB apart, stream = 512 KB in a row; L2 flushed, median "
              "of 5 event-timed launches\",\n \"points\": [\n");
  const char *kindName[] = {"ldcg", "plain", "ldg"};
  bool first = true;
  for (int kind : {kCg, kPlain, kNc})
    for (int isWalk = 1; isWalk >= 0; --isWalk)
      for (int w : {1, 2, 4, 8})
        for (int l : {1, 2, 4, 8, 16, 32}) {
          const double ms = timeKind(kind, l, isWalk, a, out, scratch, scratchN, sms, w);
          const double gbps = double(sms) * w * kRows * 128.0 / (ms * 1e6);
          std::printf("%s  {\"load\": \"%s\", \"pattern\": \"%s\", \"warps_per_sm\": %d, "
                      "\"loads_in_flight_per_warp\": %d, \"bytes_in_flight_per_sm\": %d, \"ms\": %.5g, "
                      "\"gbps\": %.5g, \"gbps_per_warp\": %.4g}",
                      first ? "" : ",\n", kindName[kind], isWalk ? "walk" : "stream", w, l, w * l * 128, ms,
                      gbps, gbps / (double(sms) * w));
          first = false;
        }
  // The walk over a 64 MB matrix (rows 16 KB apart, mvt 4096's A), one warp
  // per SM on 128 SMs: L2 flushed before each launch, or the launches back
  // to back over the same matrix (what validate measures).
  // Then without the shared memory that holds one block per SM (the 128
  // blocks spread over the SMs as the GPU places them, L1 not carved down).
  for (size_t smem : {kSmemBytes, size_t(0)})
  for (int kind : {kCg, kNc})
    for (int flushed = 1; flushed >= 0; --flushed)
      for (int l : {16, 32}) {
        const int blocks = 128;
        const double ms = timeKind(kind, l, true, a, out, scratch, scratchN, blocks, 1, 4096, flushed, smem);
        const double gbps = double(blocks) * kRows * 128.0 / (ms * 1e6);
        std::printf(",\n  {\"load\": \"%s\", \"pattern\": \"walk 64 MB, 128 blocks, %s, %s\", \"warps_per_sm\": 1, "
                    "\"loads_in_flight_per_warp\": %d, \"ms\": %.5g, \"gbps\": %.5g, \"gbps_per_warp\": %.4g}",
                    kindName[kind], smem ? "120 KB shared a block" : "no shared memory",
                    flushed ? "L2 flushed" : "back to back", l, ms, gbps, gbps / blocks);
      }
  // One warp a block, 128 blocks (one an SM), the walk over 64 MB and over
  // 512 MB: launches alone (each between its own events, no flush) against
  // 1, 2 and 10 launches back to back between one pair of events.
  for (size_t cols : {size_t(4096), size_t(32768)})
    for (int l : {4, 16, 32})
      for (int batch : {0, 1, 2, 10}) {
        const int blocks = 128;
        double ms = 0;
        if (batch == 0)
          ms = timeKind(kNc, l, true, a, out, scratch, scratchN, blocks, 1, cols, false, 0);
        else if (l == 4)
          ms = timeBackToBack<4, kNc>(a, out, blocks, cols, batch);
        else if (l == 16)
          ms = timeBackToBack<16, kNc>(a, out, blocks, cols, batch);
        else
          ms = timeBackToBack<32, kNc>(a, out, blocks, cols, batch);
        const double gbps = double(blocks) * kRows * 128.0 / (ms * 1e6);
        std::printf(",\n  {\"load\": \"ldg\", \"pattern\": \"walk %d MB, 128 blocks of a warp, %s\", "
                    "\"batch\": %d, \"loads_in_flight_per_warp\": %d, \"ms\": %.5g, \"gbps\": %.5g, "
                    "\"gbps_per_warp\": %.4g}",
                    int(cols * kRows * 4 >> 20), batch ? "back to back" : "alone", batch, l, ms, gbps,
                    gbps / blocks);
      }
  // Wider requests: V floats a lane, L = 1 to 16 requests a warp, one and two
  // warps per SM on every SM, L2 flushed (the walk's 512 MB, rows 128 KB apart).
  for (int v : {2, 4})
    for (int w : {1, 2})
      for (int l : {1, 2, 4, 8, 16}) {
        double ms = 0;
#define SK_VEC(LL) \
  if (l == LL) ms = v == 2 ? timeVec<LL, 2>(a, out, scratch, scratchN, sms, w) : timeVec<LL, 4>(a, out, scratch, scratchN, sms, w);
        SK_VEC(1) SK_VEC(2) SK_VEC(4) SK_VEC(8) SK_VEC(16)
#undef SK_VEC
        const double bytes = double(sms) * w * kRows * 128.0 * v;
        const double gbps = bytes / (ms * 1e6);
        std::printf(",\n  {\"load\": \"ldg %d floats a lane\", \"pattern\": \"walk\", \"warps_per_sm\": %d, "
                    "\"loads_in_flight_per_warp\": %d, \"bytes_in_flight_per_warp\": %d, \"ms\": %.5g, "
                    "\"gbps\": %.5g, \"gbps_per_warp\": %.4g}",
                    v, w, l, l * v * 128, ms, gbps, gbps / (double(sms) * w));
      }
  std::printf("\n ]\n}\n");
  CK(cudaFree(a));
  CK(cudaFree(out));
  CK(cudaFree(scratch));
  return 0;
}
