// What does one stage of a staged loop cost a warp: the fill of shared memory
// (a load, its store to shared memory) and the barriers around it?
//
// matvec_rows_fp64 8192 `block=i:32 stage=j:S unroll=j:16` ran about 515
// cycles a stage more than unstaged (Nsight Compute, validation/results/
// h200_ncu_27.txt), where the model counts the fill's L2 round trip (287) and
// Hong & Kim's Synch_cost (nothing for one warp). This program times, with
// clock64 inside the kernel, 4,096 iterations of each of these, W warps a
// block, one block on each SM, the loaded array L2-resident (4 MB, read again)
// or in DRAM (a region of a 16 GB buffer no launch read, where two fit):
//   chase    i = x[i]: the load's own round trip (a random cycle)
//   fill F   F loads a thread (F = 1, 4, 16, unrolled), each stored to shared
//            memory, a barrier, a read of shared memory, a barrier: one stage
//            with F fills, as emit writes it
//   barrier  the two barriers and the shared read alone
// and prints the cycles an iteration (median over the blocks).
//
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/fillwait.cu -o /tmp/fillwait
//   /tmp/fillwait > validation/results/h200_fillwait.txt
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common.cuh" // CK, CKL, median_of

constexpr int ITERS = 4096;

__global__ void chase(const unsigned *__restrict__ x, size_t offset, long long *cycles, unsigned *out) {
  unsigned i = (blockIdx.x * 977u + threadIdx.x * 131u) & ((4u << 20) / 4 - 1);
  const unsigned *p = x + offset;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it)
    i = __ldg(p + i);
  long long t1 = clock64();
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = t1 - t0;
  if (i == 0xffffffffu)
    out[0] = i;
}

template <int F>
__global__ void fill(const float *__restrict__ x, size_t offset, size_t mask, long long *cycles, float *out) {
  extern __shared__ float tile[];
  const int t = threadIdx.x, n = blockDim.x;
  const size_t base = offset + size_t(blockIdx.x) * ITERS * F * n;
  float s = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it) {
#pragma unroll
    for (int f = 0; f < F; ++f)
      tile[f * n + t] = __ldg(x + ((base + (size_t(it) * F + f) * n + t) & mask));
    __syncthreads();
    s += tile[(t * 7 + it) % (F * n)];
    __syncthreads();
  }
  long long t1 = clock64();
  if (t == 0)
    cycles[blockIdx.x] = t1 - t0;
  if (s == 1234.5f)
    out[0] = s;
}

__global__ void barrier(long long *cycles, float *out) {
  extern __shared__ float tile[];
  const int t = threadIdx.x, n = blockDim.x;
  tile[t] = float(t);
  float s = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < ITERS; ++it) {
    tile[t] = s;
    __syncthreads();
    s += tile[(t * 7 + it) % n];
    __syncthreads();
  }
  long long t1 = clock64();
  if (t == 0)
    cycles[blockIdx.x] = t1 - t0;
  if (s == 1234.5f)
    out[0] = s;
}

double medianPerIter(long long *dCycles, int blocks) {
  std::vector<long long> h(blocks);
  CK(cudaMemcpy(h.data(), dCycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<double> v(h.begin(), h.end());
  return median_of(v) / ITERS;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const int sms = p.multiProcessorCount;
  const size_t bigBytes = size_t(16) << 30, smallBytes = size_t(4) << 20;
  // the L2 series wraps every block's addresses into 4 MB; the DRAM series reads a region the
  // launches before did not, where two regions fit in the 16 GB buffer
  float *x = nullptr, *out = nullptr;
  unsigned *ux = nullptr;
  long long *cyc = nullptr;
  CK(cudaMalloc(&x, bigBytes));
  CK(cudaMemset(x, 0, bigBytes));
  CK(cudaMalloc(&ux, smallBytes));
  CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&cyc, sms * sizeof(long long)));
  {
    // a random cycle over the 4 MB for the chase
    size_t n = smallBytes / 4;
    std::vector<unsigned> perm(n), next(n);
    for (size_t k = 0; k < n; ++k)
      perm[k] = unsigned(k);
    uint64_t r = 88172645463325252ull;
    for (size_t k = n - 1; k > 0; --k) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      std::swap(perm[k], perm[r % (k + 1)]);
    }
    for (size_t k = 0; k < n; ++k)
      next[perm[k]] = perm[(k + 1) % n];
    CK(cudaMemcpy(ux, next.data(), smallBytes, cudaMemcpyHostToDevice));
  }
  printf("# %s, %d SMs; one block of 32 x W threads on each SM, %d iterations timed with clock64 inside "
         "the kernel, cycles an iteration (median over the blocks, the second of two launches)\n",
         p.name, sms, ITERS);
  printf("# series W where cycles_per_iteration\n");
  for (int w : {1, 4, 16}) {
    const int threads = 32 * w;
    for (int l = 0; l < 2; ++l)
      chase<<<sms, threads>>>(ux, 0, cyc, (unsigned *)out);
    CKL();
    CK(cudaDeviceSynchronize());
    printf("chase    %2d  l2    %8.1f\n", w, medianPerIter(cyc, sms));
    for (int l = 0; l < 2; ++l)
      barrier<<<sms, threads, threads * sizeof(float)>>>(cyc, out);
    CKL();
    CK(cudaDeviceSynchronize());
    printf("barrier  %2d  -     %8.1f\n", w, medianPerIter(cyc, sms));
    auto run = [&](auto kernel, int f, const char *name) {
      size_t smem = size_t(f) * threads * sizeof(float);
      CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      size_t span = size_t(sms) * ITERS * f * threads; // floats a launch reads
      const size_t window = smallBytes / sizeof(float) - 1;
      for (int l = 0; l < 2; ++l) // the second launch finds the 4 MB in L2
        kernel<<<sms, threads, smem>>>(x, 0, window, cyc, out);
      CKL();
      CK(cudaDeviceSynchronize());
      double warm = medianPerIter(cyc, sms);
      double dram = -1;
      if (span * sizeof(float) * 2 <= bigBytes) {
        kernel<<<sms, threads, smem>>>(x, span, ~size_t(0), cyc, out); // a region no launch read
        CKL();
        CK(cudaDeviceSynchronize());
        dram = medianPerIter(cyc, sms);
      }
      printf("%-6s%2d %2d  l2    %8.1f\n", name, f, w, warm);
      if (dram > 0)
        printf("%-6s%2d %2d  dram  %8.1f\n", name, f, w, dram);
    };
    run(fill<1>, 1, "fill");
    run(fill<4>, 4, "fill");
    run(fill<16>, 16, "fill");
  }
  CK(cudaFree(x));
  CK(cudaFree(ux));
  CK(cudaFree(out));
  CK(cudaFree(cyc));
  return 0;
}
