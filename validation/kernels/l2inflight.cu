// The L2 bandwidth a grid of threads draws against the bytes its warps keep
// in flight per SM, loads that hit L2: inflight_grid.cu's program (whose
// curve, from DRAM, is the spec's dram_gbps_by_bytes_in_flight) with every
// address wrapped into a window that L2 holds. The model takes an L2 hit's
// latency as l2_latency_cycles whatever the load; a stencil whose loads hit L2
// (HotSpot 4096's one-row blocks: 10.6 million L2 read sectors, 101 us against
// 89 for two-row blocks, validation/results/h200_ncu_27.txt) asks how it grows.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/l2inflight.cu -o /tmp/l2inflight
//   /tmp/l2inflight > validation/results/h200_l2inflight.json
//
// Each thread t of a grid of T threads, in each of R rounds r, loads L
// elements of type E through L2 only (__ldcg), a[((r L + k) T + t) mod W] for
// k < L, and stores their sum to out[(r T + t) mod W'] (W = 8 MB of loads, W' =
// 2 MB of stores, both in L2 after a warm-up launch); 1 GiB loaded a launch.
// Blocks of 128 threads, blocks per SM limited with dynamic shared memory.
// Bytes in flight per SM = warps per SM x (L + 1) x 32 x sizeof(E); GB/s
// counts the loads and the stores; latency = bytes in flight x SMs / GB/s.
// Median of 7 event-timed launches after one warm-up.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_alone_ms

constexpr size_t kReadBytes = size_t(1) << 30;
constexpr int kThreads = 128;
template <typename E> constexpr size_t kLoadMask = (size_t(8) << 20) / sizeof(E) - 1;
template <typename E> constexpr size_t kStoreMask = (size_t(2) << 20) / sizeof(E) - 1;

template <typename E, int L, int R>
__global__ void rounds(const E *__restrict__ a, E *__restrict__ out, size_t threads) {
  extern __shared__ char pad[]; // only to limit the blocks per SM
  size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (t >= threads)
    return;
  // R rounds one after another (not unrolled: a round's loads wait for the
  // previous round's sum).
#pragma unroll 1
  for (int r = 0; r < R; ++r) {
    E v[L];
#pragma unroll
    for (int k = 0; k < L; ++k)
      v[k] = __ldcg(a + (((size_t(r) * L + k) * threads + t) & kLoadMask<E>));
    E s = 0;
#pragma unroll
    for (int k = 0; k < L; ++k)
      s += v[k];
    if (threadIdx.x == 0 && s == E(-12345))
      s += E(pad[0]);
    out[(size_t(r) * threads + t) & kStoreMask<E>] = s;
  }
}

__global__ void fill(float *b, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u ^ seed;
    b[i] = float(x & 1023) * (1.0f / 1024);
  }
}

struct Point {
  int elemBytes, loads, rounds, blocksPerSM, warpsPerSM;
  double ms, gbps, inflightPerSM;
};

template <typename E, int L, int R>
Point measure(const void *a, void *out, int wantBlocks, int sms,
              size_t smemPerSM) {
  auto k = rounds<E, L, R>;
  // Dynamic shared memory so that at most wantBlocks blocks fit an SM (1 KB
  // per block is the runtime's own reserve).
  int smem = wantBlocks >= 16 ? 0 : int(smemPerSM / wantBlocks) - 1024 - 64;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, std::max(smem, 0)));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kThreads, size_t(std::max(smem, 0))));
  size_t threads = kReadBytes / (sizeof(E) * L * R);
  unsigned grid = unsigned((threads + kThreads - 1) / kThreads);
  // the first launch warms L2 with both windows
  double ms = median_alone_ms([&](int) {
    k<<<grid, kThreads, size_t(std::max(smem, 0))>>>(static_cast<const E *>(a), static_cast<E *>(out), threads);
  }, 7, 1, [](int) {});
  Point p;
  p.elemBytes = int(sizeof(E));
  p.loads = L;
  p.rounds = R;
  p.blocksPerSM = blocks;
  p.warpsPerSM = blocks * kThreads / 32;
  p.ms = ms;
  double bytes = double(kReadBytes) + double(threads) * R * sizeof(E);
  p.gbps = bytes / (p.ms * 1e6);
  p.inflightPerSM = double(p.warpsPerSM) * (L + 1) * 32 * sizeof(E);
  (void)sms;
  return p;
}

template <typename E, int R>
void sweep(std::vector<Point> &out, const void *a, void *o, int sms,
           size_t smemPerSM) {
  for (int b : {1, 2, 4, 8, 16}) {
    out.push_back(measure<E, 1, R>(a, o, b, sms, smemPerSM));
    out.push_back(measure<E, 2, R>(a, o, b, sms, smemPerSM));
    out.push_back(measure<E, 4, R>(a, o, b, sms, smemPerSM));
    out.push_back(measure<E, 8, R>(a, o, b, sms, smemPerSM));
  }
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  void *a = nullptr, *out = nullptr;
  CK(cudaMalloc(&a, kReadBytes));
  CK(cudaMalloc(&out, size_t(2) << 20));
  fill<<<4096, 256>>>(static_cast<float *>(a), kReadBytes / sizeof(float), 1u);
  CKL();
  CK(cudaDeviceSynchronize());
  std::vector<Point> pts;
  // 16 rounds a thread: the bandwidth against the bytes in flight; 1 round:
  // one-shot threads, where block starts bound the grids of few loads a thread.
  sweep<float, 16>(pts, a, out, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
  sweep<double, 16>(pts, a, out, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
  sweep<float, 1>(pts, a, out, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
  std::printf("{\n \"gpu\": \"%s\", \"sm_count\": %d,\n", prop.name, prop.multiProcessorCount);
  std::printf(" \"method\": \"validation/kernels/l2inflight.cu: blocks of %d threads, each thread "
              "in R rounds loading L elements through L2 (__ldcg; L coalesced warp requests, addresses wrapped into "
              "8 MB) and storing one (wrapped into 2 MB), 1 GiB loaded, both windows in L2; blocks per SM limited by "
              "dynamic shared memory; bytes in flight per SM = warps per SM x (L + 1) x 32 x element bytes; median "
              "of 7 event-timed launches\",\n \"points\": [\n",
              kThreads);
  for (size_t i = 0; i < pts.size(); ++i) {
    const Point &p = pts[i];
    std::printf("  {\"elem_bytes\": %d, \"loads_per_round\": %d, \"rounds\": %d, \"blocks_per_sm\": %d, "
                "\"warps_per_sm\": %d, \"bytes_in_flight_per_sm\": %.0f, \"ms\": %.5g, \"gbps\": %.5g}%s\n",
                p.elemBytes, p.loads, p.rounds, p.blocksPerSM, p.warpsPerSM, p.inflightPerSM, p.ms, p.gbps,
                i + 1 < pts.size() ? "," : "");
  }
  std::printf(" ]\n}\n");
  CK(cudaFree(a));
  CK(cudaFree(out));
  return 0;
}
