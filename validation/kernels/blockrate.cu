// How fast the GPU starts thread blocks: grids of N blocks that do (almost)
// nothing, launched back to back, for N from 2^12 to 2^20 and 32 to 1024
// threads a block. A kernel whose blocks each do little work (a transpose in
// one-warp blocks folded by 2: 93,750 blocks) cannot end before its blocks
// have been started, so the rate is a floor of the time (the skelcast model's
// `blocks` term, docs/model.md section 7; spec field block_starts_per_us).
// Two kernels: `empty` (a branch no thread takes) and `store` (one 4-byte
// store a thread, into a 64 MiB buffer). Prints one line per (kernel, threads,
// blocks): the time per launch (a batch of REPS launches between one event
// pair, median of 5 batches) and blocks per microsecond; then, per kernel and
// block size, the slope between the two largest grids: the start rate.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/blockrate.cu -o /tmp/blockrate
//   /tmp/blockrate > validation/results/h100_blockrate.txt     (about 10 s on an H100)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, back_to_back_us

constexpr unsigned kMask = (1u << 24) - 1; // 16 Mi ints: 64 MiB

__global__ void empty(int *out) {
  if (threadIdx.x == 4096) out[0] = 1; // never: keeps the parameter
}

__global__ void store(int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i & kMask] = static_cast<int>(i);
}

// The time per launch of a grid of `blocks` blocks of `threads` threads: 20
// launches back to back, the median of 5 batches.
template <class K> double usPerLaunch(K kernel, unsigned blocks, unsigned threads, int *out) {
  return back_to_back_us([&] { kernel<<<blocks, threads>>>(out); }, 20, 5);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int khz = 0;
  CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  printf("# %s, %d SMs, clock %.0f MHz (cudaDevAttrClockRate); blockrate.cu\n", p.name,
         p.multiProcessorCount, khz / 1000.0);
  printf("# kernel threads blocks us_per_launch blocks_per_us\n");
  int *out = nullptr;
  CK(cudaMalloc(&out, (kMask + 1) * sizeof(int)));
  const unsigned threads[] = {32, 64, 128, 256, 512, 1024};
  const unsigned grids[] = {1u << 12, 1u << 14, 1u << 16, 1u << 18, 1u << 20};
  const char *names[] = {"empty", "store"};
  for (int k = 0; k < 2; ++k)
    for (unsigned t : threads) {
      double prevUs = 0;
      unsigned prevN = 0;
      for (unsigned n : grids) {
        double us = k == 0 ? usPerLaunch(empty, n, t, out) : usPerLaunch(store, n, t, out);
        printf("%s %u %u %.3f %.1f\n", names[k], t, n, us, n / us);
        if (n == grids[4])
          printf("# slope %s %u threads: %.1f blocks per us between %u and %u blocks\n", names[k], t,
                 (n - prevN) / (us - prevUs), prevN, n);
        prevUs = us;
        prevN = n;
      }
    }
  CK(cudaFree(out));
  return 0;
}
