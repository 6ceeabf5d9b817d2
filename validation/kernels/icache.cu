// What a loop body larger than the instruction cache costs a warp: the issue
// rate of straight-line code as its size grows, at 1-32 warps an SM.
// conv2d's fold=y:8,x:4 unroll=p:5,q:5 (32 tasks x 25 taps unrolled, about
// 1,200 instructions) ran at ~10 cycles an instruction a warp where the model
// counted one; Nsight Compute put half of its stalls on instruction fetch
// (docs/validation.md). This measures that cost apart from everything else:
//  - a body of K independent FFMAs with immediates (16 bytes of SASS each, so
//    K x 16 bytes of code), over 16 accumulators (no dependence stall),
//    repeated `reps` times so every configuration runs about 2^18 FFMAs a thread;
//  - `block`: one block of W warps on each SM (the warps start together);
//    `blocks`: W one-warp blocks on each SM (they start apart, like conv2d's);
//    `stagger`: one block of W warps, warp w first spins w x (K x 4 / W) cycles,
//    so the warps run at different places of the body;
//  - each warp's lane 0 reads clock64() around its loop: cycles a warp
//    instruction = the warps' mean cycles / (K x reps); issue per scheduler =
//    warp instructions an SM / (4 x the SM's longest warp).
// Each configuration runs twice (the first warms the instruction caches); the
// second's clocks are kept, and the kernel's time by events around it.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/icache.cu -o /tmp/icache
//   /tmp/icache > validation/results/h200_icache.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL

constexpr int kTotal = 1 << 18; // FFMAs a thread, every configuration

template <int K>
__global__ void body(float *out, float b, int reps, long long spin, long long *cycles) {
  float acc[16];
#pragma unroll
  for (int a = 0; a < 16; ++a)
    acc[a] = threadIdx.x * 1e-3f + a;
  int warp = threadIdx.x / 32;
  if (spin > 0) {
    long long s0 = clock64();
    while (clock64() - s0 < spin * warp) {
    }
  }
  long long t0 = clock64();
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int k = 0; k < K; ++k)
      acc[k & 15] = fmaf(acc[k & 15], b, (float)(k + 1) * 1e-7f);
  }
  long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int a = 0; a < 16; ++a)
    s += acc[a];
  out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
  if (threadIdx.x % 32 == 0)
    cycles[(blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32] = t1 - t0;
}

struct Result {
  double meanWarpCycles, maxWarpCycles, ms;
};

template <int K>
Result run(const char *mode, int warps, int sms, float *out, long long *dcycles, std::vector<long long> &h) {
  int reps = kTotal / K;
  bool blocks = mode[1] == 'l' && mode[5] == 's'; // "blocks"
  bool stagger = mode[0] == 's';
  int grid = blocks ? sms * warps : sms, threads = blocks ? 32 : 32 * warps;
  long long spin = stagger ? (long long)K * 4 / warps : 0;
  size_t nwarps = (size_t)grid * threads / 32;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float ms = 0;
  for (int pass = 0; pass < 2; ++pass) {
    CK(cudaEventRecord(e0));
    body<K><<<grid, threads>>>(out, 0.999f, reps, spin, dcycles);
    CKL();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  h.resize(nwarps);
  CK(cudaMemcpy(h.data(), dcycles, nwarps * sizeof(long long), cudaMemcpyDeviceToHost));
  double sum = 0, mx = 0;
  for (long long c : h) {
    sum += (double)c;
    mx = std::max(mx, (double)c);
  }
  return {sum / nwarps, mx, ms};
}

template <int K>
void sweep(bool &first, int sms, float *out, long long *dcycles) {
  std::vector<long long> h;
  for (const char *mode : {"block", "blocks", "stagger"})
    for (int w : {1, 2, 4, 8, 12, 16, 24, 32}) {
      Result r = run<K>(mode, w, sms, out, dcycles, h);
      double insts = (double)K * (kTotal / K);
      printf("%s\n    {\"body_ffma\": %d, \"code_bytes\": %d, \"mode\": \"%s\", \"warps_per_sm\": %d, "
             "\"cycles_per_warp_inst\": %.4f, \"max_cycles_per_warp_inst\": %.4f, "
             "\"issue_per_scheduler\": %.4f, \"ms\": %.5f}",
             first ? "" : ",", K, K * 16, mode, w, r.meanWarpCycles / insts, r.maxWarpCycles / insts,
             w * insts / (4.0 * r.maxWarpCycles), r.ms);
      first = false;
    }
}

int main() {
  int dev = 0;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, dev));
  int sms = p.multiProcessorCount;
  float *out;
  long long *dcycles;
  CK(cudaMalloc(&out, (size_t)sms * 32 * 32 * sizeof(float)));
  CK(cudaMalloc(&dcycles, (size_t)sms * 32 * sizeof(long long)));
  printf("{\n  \"gpu\": \"%s\", \"sms\": %d, \"ffma_per_thread\": %d,\n  \"method\": \"validation/kernels/icache.cu: "
         "K independent FFMAs with immediates (16 bytes of SASS each) unrolled, repeated to 2^18 a thread; "
         "clock64 around each warp's loop, second of two launches\",\n  \"cases\": [",
         p.name, sms, kTotal);
  bool first = true;
  sweep<256>(first, sms, out, dcycles);
  sweep<512>(first, sms, out, dcycles);
  sweep<1024>(first, sms, out, dcycles);
  sweep<2048>(first, sms, out, dcycles);
  sweep<4096>(first, sms, out, dcycles);
  sweep<8192>(first, sms, out, dcycles);
  sweep<16384>(first, sms, out, dcycles);
  printf("\n  ]\n}\n");
  CK(cudaFree(out));
  CK(cudaFree(dcycles));
  return 0;
}
