// Micro-benchmarks for the hardware spec the projection model needs.
// Writes one JSON object whose keys are the hwspec field names (see README).
// All cycle counts are SM cycles read with clock64().
#include "common.cuh"
#include <climits>

// ------------------------------------------------------------------ latency
// Pointer chase by one thread.  next[] holds element indices; node k sits at
// element k*stride.  A fresh random cyclic permutation (Sattolo) is built for
// every measurement.  mode 0: ld.global.cg (L2 and beyond, L1 bypassed);
// mode 1: ld.global.ca (L1 allowed).
__device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
  unsigned v; asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v;
}
__device__ __forceinline__ unsigned ld_ca(const unsigned* p) {
  unsigned v; asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p)); return v;
}
__global__ void chase(const unsigned* __restrict__ next, unsigned start, int hops, int mode,
                      long long* cycles, unsigned* sink) {
  unsigned p = start;
  long long t0 = clock64();
  if (mode == 0) {
#pragma unroll 4
    for (int h = 0; h < hops; ++h) p = ld_cg(next + p);
  } else {
#pragma unroll 4
    for (int h = 0; h < hops; ++h) p = ld_ca(next + p);
  }
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}
__global__ void build_chain(unsigned* next, const unsigned* perm, size_t n, unsigned stride) {
  size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < n) next[(size_t)perm[k] * stride] = perm[(k + 1) % n] * stride;
}

// returns median cycles/hop over `meas` fresh chains
static double chase_latency(size_t footprint, unsigned stride_bytes, int mode, bool warm,
                            int hops, int meas, std::vector<double>* all, uint64_t seed) {
  const unsigned stride = stride_bytes / 4;
  const size_t n = footprint / stride_bytes;
  unsigned* next; unsigned* perm; long long* dcyc; unsigned* sink;
  CK(cudaMalloc(&next, footprint));
  CK(cudaMalloc(&perm, n * 4));
  CK(cudaMalloc(&dcyc, 8));
  CK(cudaMalloc(&sink, 4));
  std::vector<unsigned> order(n);
  std::mt19937_64 g(seed);
  std::vector<double> v;
  for (int m = 0; m < meas; ++m) {
    // Sattolo: a single random cycle through all n nodes; order[k] is the k-th node
    for (size_t k = 0; k < n; ++k) order[k] = (unsigned)k;
    for (size_t k = n - 1; k > 0; --k) {
      size_t r = g() % k;
      std::swap(order[k], order[r]);
    }
    CK(cudaMemcpy(perm, order.data(), n * 4, cudaMemcpyHostToDevice));
    build_chain<<<(unsigned)((n + 255) / 256), 256>>>(next, perm, n, stride); CKL();
    CK(cudaDeviceSynchronize());
    const unsigned start = order[0] * stride;
    if (warm) { chase<<<1, 1>>>(next, start, (int)std::min<size_t>(2 * n, 1 << 22), mode, dcyc, sink); CKL(); }
    chase<<<1, 1>>>(next, start, hops, mode, dcyc, sink); CKL();
    long long c;
    CK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost));
    v.push_back((double)c / hops);
  }
  CK(cudaFree(next)); CK(cudaFree(perm)); CK(cudaFree(dcyc)); CK(cudaFree(sink));
  if (all) *all = v;
  return median_of(v);
}

// -------------------------------------------------------- departure delay
// One block (one SM) of w warps.  Warp `wp` issues L loads; its u-th load is
// request r = u*w + wp (every (warp, instruction) pair gets its own memory).
// COAL: lane l reads word r*32 + l  -> one 128-byte line per warp instruction.
// UNCOAL: lane l reads word (r*32 + l)*32 -> 32 distinct 128-byte lines, one
// 32-byte sector each, per warp instruction.  Loads are ld.global.cg (no L1)
// and independent (32 per group before their values are summed).  Total
// cycles T(w) between two block barriers are measured with clock64; the
// departure delay is the slope dT/d(requests) where latency is hidden (largest w).
template <bool COAL>
__global__ void __launch_bounds__(1024, 1) depart(const float* __restrict__ base, int L, long long* cyc, float* sink) {
  const int w = blockDim.x >> 5, wp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float acc = 0.f;
  __syncthreads();
  long long t0 = clock64();
  for (int g0 = 0; g0 < L; g0 += 32) {
    float v[32];
#pragma unroll
    for (int u = 0; u < 32; ++u) {
      const size_t r = (size_t)(g0 + u) * w + wp;
      const size_t word = COAL ? r * 32 + lane : (r * 32 + lane) * 32;
      v[u] = __ldcg(base + word);
    }
#pragma unroll
    for (int u = 0; u < 32; ++u) acc += v[u];
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  if (acc == 1234.5f) *sink = acc;
}

// ------------------------------------------------------------ FMA / issue
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %smid;" : "=r"(s)); return s; }
// 8 independent FMA chains x 16 per iteration per thread = 128 FMAs per
// iteration (loop overhead 3-4 instructions).  If blk != nullptr, thread 0 of
// every block writes {clock64 start, clock64 end, smid, globaltimer start,
// globaltimer end} to blk[5*blockIdx.x ...].
constexpr int FMA_PER_ITER = 128;
template <typename T>
__global__ void fma_tp(T* out, int iters, long long* blk) {
  T a0 = threadIdx.x * 1e-3, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  const T m = (T)0.9999, c = (T)0.0001;
  __syncthreads();
  long long t0 = clock64();
  unsigned long long g0 = gtimer();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int r = 0; r < 16; ++r) {
      a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
      a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    }
  }
  __syncthreads();
  long long t1 = clock64();
  unsigned long long g1 = gtimer();
  if (threadIdx.x == 0 && blk) {
    long long* b = blk + 5 * blockIdx.x;
    b[0] = t0; b[1] = t1; b[2] = smid(); b[3] = (long long)g0; b[4] = (long long)g1;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

// ------------------------------------------------------------- bandwidth
__global__ void copy_k(const float4* __restrict__ s, float4* __restrict__ d, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) d[i] = s[i];
}
__global__ void copy_k4(const float4* __restrict__ s, float4* __restrict__ d, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a; d[i + stride] = b; d[i + 2 * stride] = c; d[i + 3 * stride] = e;
  }
  for (; i < n; i += stride) d[i] = s[i];
}
__global__ void reduce_k4(const float4* __restrict__ s, size_t n, float* out) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((e.x + e.y) + (e.z + e.w));
  }
  for (; i < n; i += stride) { const float4 v = s[i]; acc += (v.x + v.y) + (v.z + v.w); }
  __shared__ float sh[32];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) atomicAdd(out, acc);
  }
}
__global__ void reduce_k(const float4* __restrict__ s, size_t n, float* out) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = s[i]; acc += (v.x + v.y) + (v.z + v.w);
  }
  __shared__ float sh[32];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) atomicAdd(out, acc);
  }
}
__global__ void fill_k(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = v;
}
__global__ void empty_k() {}

static double fit_slope(const std::vector<double>& x, const std::vector<double>& y, double* icpt) {
  double n = x.size(), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i]; }
  double s = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  if (icpt) *icpt = (sy - s * sx) / n;
  return s;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const bool Q = quick_mode();
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int SMS = prop.multiProcessorCount;
  Json j;
  j.open('{');
  j.integer("schema_version", 1);
  j.str("gpu_name", prop.name);
  j.integer("seed", (long long)run_seed());
  // device properties
  j.integer("sm_count", SMS);
  j.integer("l2_cache_bytes", prop.l2CacheSize);
  j.integer("shared_mem_per_sm_bytes", (long long)prop.sharedMemPerMultiprocessor);
  j.integer("shared_mem_per_block_optin_bytes", (long long)prop.sharedMemPerBlockOptin);
  j.integer("registers_per_sm", prop.regsPerMultiprocessor);
  j.integer("max_threads_per_sm", prop.maxThreadsPerMultiProcessor);
  j.integer("max_blocks_per_sm", prop.maxBlocksPerMultiProcessor);
  j.integer("warp_size", prop.warpSize);
  j.integer("global_mem_bytes", (long long)prop.totalGlobalMem);
  j.integer("mem_bus_width_bits", prop.memoryBusWidth);
  j.str("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  printf("device: %s, %d SMs, L2 %d B, smem/SM %zu, regs/SM %d\n", prop.name, SMS, prop.l2CacheSize,
         prop.sharedMemPerMultiprocessor, prop.regsPerMultiprocessor);

  long long* dcyc;
  CK(cudaMalloc(&dcyc, 64));
  float* fsink;
  CK(cudaMalloc(&fsink, 64));

  // ---------------- clock: clock64 ticks over event time in a long FMA kernel
  double clock_ghz;
  {
    const int threads = 256, blocks = SMS * 8;
    float* out; CK(cudaMalloc(&out, (size_t)threads * blocks * 4));
    long long* blk; CK(cudaMalloc(&blk, (size_t)blocks * 5 * 8));
    std::vector<long long> hb((size_t)blocks * 5);
    fma_tp<float><<<blocks, threads>>>(out, 1000, blk); CKL();
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    const int iters = Q ? 5000 : 50000;  // ~0.1 s at full FP32 rate
    std::vector<double> ghz, ghz_gt, gfl, blk0;
    for (int r = 0; r < 3; ++r) {
      CK(cudaEventRecord(a));
      fma_tp<float><<<blocks, threads>>>(out, iters, blk); CKL();
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b));
      CK(cudaMemcpy(hb.data(), blk, hb.size() * 8, cudaMemcpyDeviceToHost));
      // per SM: span of clock64 from the first block start to the last block end
      std::vector<long long> lo(1024, LLONG_MAX), hi(1024, LLONG_MIN), glo(1024, LLONG_MAX), ghi(1024, LLONG_MIN);
      for (int k = 0; k < blocks; ++k) {
        const long long* e = &hb[(size_t)k * 5];
        const int sm = (int)e[2] & 1023;
        lo[sm] = std::min(lo[sm], e[0]); hi[sm] = std::max(hi[sm], e[1]);
        glo[sm] = std::min(glo[sm], e[3]); ghi[sm] = std::max(ghi[sm], e[4]);
      }
      std::vector<double> span_ghz, gt_ghz;
      for (int sm = 0; sm < 1024; ++sm)
        if (hi[sm] > lo[sm]) {
          span_ghz.push_back((double)(hi[sm] - lo[sm]) / (ms * 1e6));
          if (ghi[sm] > glo[sm]) gt_ghz.push_back((double)(hi[sm] - lo[sm]) / (double)(ghi[sm] - glo[sm]));
        }
      ghz.push_back(median_of(span_ghz));
      ghz_gt.push_back(median_of(gt_ghz));
      blk0.push_back((double)(hb[1] - hb[0]) / (ms * 1e6));
      gfl.push_back(2.0 * FMA_PER_ITER * iters * (double)threads * blocks / (ms * 1e6));
    }
    clock_ghz = median_of(ghz);
    j.num("clock_ghz", clock_ghz);
    j.nums("clock_ghz_samples", ghz);
    j.num("clock_ghz_vs_globaltimer", median_of(ghz_gt));
    j.nums("clock_ghz_block0_only", blk0);
    j.num("peak_sp_gflops", median_of(gfl));
    j.str("clock_method", "FP32 FMA kernel filling all SMs (8 blocks x 256 threads per SM, ~0.1 s); every block records clock64 at start/end and its %smid; per SM the clock64 span from the first block start to the last block end is divided by the CUDA-event time of the launch; median over SMs, median of 3 launches. clock_ghz_vs_globaltimer divides the same span by the %globaltimer span instead. (clock64 of block 0 alone is NOT the kernel length: warps of the oldest block are favoured, so block 0 finishes early - clock_ghz_block0_only shows that bias.)");
    printf("clock %.3f GHz (vs globaltimer %.3f, block0-only %.3f), SP %.0f GFLOP/s\n", clock_ghz, median_of(ghz_gt),
           median_of(blk0), median_of(gfl));
    // FP64
    double* outd; CK(cudaMalloc(&outd, (size_t)threads * blocks * 8));
    const int itd = Q ? 2500 : 25000;
    fma_tp<double><<<blocks, threads>>>(outd, 100, nullptr); CKL();
    std::vector<double> gd;
    for (int r = 0; r < 3; ++r) {
      CK(cudaEventRecord(a));
      fma_tp<double><<<blocks, threads>>>(outd, itd, nullptr); CKL();
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b));
      gd.push_back(2.0 * FMA_PER_ITER * itd * (double)threads * blocks / (ms * 1e6));
    }
    j.num("peak_sp_gflops_at_clock_ghz", clock_ghz);
    j.num("peak_dp_gflops", median_of(gd));
    j.str("peak_method", "FMA kernel, 8 independent chains x 16 FMAs per loop iteration per thread, 8 blocks x 256 threads per SM; GFLOP/s = 2*FMAs/event time (median of 3)");
    printf("DP %.0f GFLOP/s\n", median_of(gd));
    CK(cudaFree(out)); CK(cudaFree(outd)); CK(cudaFree(blk));
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  }

  // ---------------- issue cycles and schedulers: one block, w warps
  {
    float* out; CK(cudaMalloc(&out, 1024 * 4));
    const int iters = Q ? 1000 : 5000;
    std::vector<double> ws = {1, 2, 3, 4, 5, 6, 8, 16, 32}, rate;
    for (double wd : ws) {
      int w = (int)wd;
      fma_tp<float><<<1, 32 * w>>>(out, 100, dcyc); CKL();
      std::vector<double> rr;
      for (int r = 0; r < 3; ++r) {
        fma_tp<float><<<1, 32 * w>>>(out, iters, dcyc); CKL();
        long long c[2]; CK(cudaMemcpy(c, dcyc, 16, cudaMemcpyDeviceToHost));
        rr.push_back((double)w * iters * FMA_PER_ITER / (double)(c[1] - c[0]));  // warp-FMA per SM cycle
      }
      rate.push_back(median_of(rr));
    }
    const double rmax = *std::max_element(rate.begin(), rate.end());
    const double sched = rate[3] / rate[0];  // 4 warps vs 1 warp
    const int sched_i = (int)std::lround(sched);
    j.num("issue_cycles", sched_i / rmax);
    j.integer("schedulers_per_sm", sched_i);
    j.num("schedulers_ratio_4w_over_1w", sched);
    j.num("ratio_8w_over_4w", rate[6] / rate[3]);
    j.nums("fma_issue_warps", ws);
    j.nums("fma_warp_insts_per_sm_cycle", rate);
    j.num("fma_warp_insts_per_sm_cycle_max", rmax);
    j.num("issue_cycles_single_warp", 1.0 / rate[0]);
    j.str("issue_method", "one block on one SM with w warps, each thread 8 independent FP32 FMA chains (128 FMAs per loop iteration + ~4 loop instructions); rate = warp-FMA instructions per SM cycle (clock64 of the only block). Throughput grows linearly from 1 to 4 warps (one warp per scheduler) and saturates after: schedulers_per_sm = round(rate(4 warps)/rate(1 warp)); issue_cycles = schedulers_per_sm / max rate = SM cycles per FMA warp instruction per scheduler at saturation (loop overhead not subtracted, ~3%)");
    printf("FMA warp-inst/cycle/SM for w=1,2,3,4,5,6,8,16,32:");
    for (double r : rate) printf(" %.3f", r);
    printf("  -> schedulers %.2f issue_cycles %.3f\n", sched, sched_i / rmax);
    CK(cudaFree(out));
  }

  // ---------------- latencies (pointer chase)
  {
    const int hops = Q ? 2000 : 20000, meas = Q ? 2 : 5;
    std::vector<double> v;
    double l1 = chase_latency(16 << 10, 128, 1, true, hops, meas, &v, run_seed() + 1);
    j.num("l1_latency_cycles", l1); j.nums("l1_latency_samples", v);
    double l2 = chase_latency(8 << 20, 128, 0, true, hops, meas, &v, run_seed() + 2);
    j.num("l2_latency_cycles", l2); j.nums("l2_latency_samples", v);
    double d512 = chase_latency((size_t)512 << 20, 256, 0, false, hops, meas, &v, run_seed() + 3);
    j.num("dram_latency_cycles", d512); j.nums("dram_latency_samples", v);
    double d128 = chase_latency((size_t)128 << 20, 256, 0, false, hops, meas, &v, run_seed() + 4);
    double d2g = Q ? NAN : chase_latency((size_t)2048 << 20, 256, 0, false, hops, 3, &v, run_seed() + 5);
    j.num("dram_latency_cycles_128MB", d128);
    j.num("dram_latency_cycles_2GB", d2g);
    j.num("dram_latency_ns", d512 / clock_ghz);
    j.str("latency_method", "one thread, dependent loads through a fresh random cyclic chain (Sattolo) per measurement, median cycles/hop (clock64) over 5 chains. L1: 16 KiB footprint, 128 B node stride, ld.global.ca, chain walked twice before timing. L2: 8 MiB, 128 B stride, ld.global.cg, walked before timing. DRAM: 512 MiB (also 128 MiB and 2 GiB), 256 B stride, ld.global.cg, cold (no warm walk; includes whatever TLB misses a random walk over that footprint causes). Includes the ~2-cycle address arithmetic of each hop.");
    printf("latency cycles: L1 %.1f  L2 %.1f  DRAM(512MB) %.1f  DRAM(128MB) %.1f DRAM(2GB) %.1f\n", l1, l2, d512, d128, d2g);
  }

  // ---------------- departure delay
  {
    const size_t big = (size_t)4 << 30;
    float* buf; CK(cudaMalloc(&buf, big));
    fill_k<<<SMS * 8, 256>>>(buf, big / 4, 1.0f); CKL();
    CK(cudaDeviceSynchronize());
    size_t off = 0;  // advancing offset in floats: every measurement touches fresh lines
    auto run = [&](bool coal, int w, int L, bool l2hit) -> double {
      const size_t reqs = (size_t)w * L;
      const size_t span = coal ? reqs * 32 : reqs * 32 * 32;  // floats touched
      if (off + span + 64 > big / 4) off = 0;
      const float* base = buf + off;
      if (coal) { if (l2hit) depart<true><<<1, 32 * w>>>(base, L, dcyc, fsink); depart<true><<<1, 32 * w>>>(base, L, dcyc, fsink); }
      else { if (l2hit) depart<false><<<1, 32 * w>>>(base, L, dcyc, fsink); depart<false><<<1, 32 * w>>>(base, L, dcyc, fsink); }
      CKL();
      long long c; CK(cudaMemcpy(&c, dcyc, 8, cudaMemcpyDeviceToHost));
      off += span + 64;
      return (double)c;
    };
    const std::vector<double> ws = {1, 2, 4, 8, 16, 24, 32};
    for (int variant = 0; variant < 4; ++variant) {
      const bool coal = variant % 2 == 0, l2hit = variant >= 2;
      const int L = coal ? 256 : 64;
      std::vector<double> T, R;
      for (double wd : ws) {
        int w = (int)wd;
        std::vector<double> s;
        for (int r = 0; r < (Q ? 1 : 5); ++r) s.push_back(run(coal, w, L, l2hit));
        T.push_back(median_of(s));
        R.push_back(wd * L);
      }
      // slope over the three largest warp counts (latency hidden)
      std::vector<double> xs(R.end() - 3, R.end()), ys(T.end() - 3, T.end());
      double icpt, slope = fit_slope(xs, ys, &icpt);
      std::string pre = std::string("departure_") + (coal ? "coal" : "uncoal") + (l2hit ? "_l2hit" : "_dram");
      j.nums(pre + "_warps", ws);
      j.nums(pre + "_total_cycles", T);
      j.num(pre + "_cycles_per_warp_request", slope);
      j.num(pre + "_intercept_cycles", icpt);
      if (coal) {
        if (!l2hit) j.num("departure_del_coal_cycles", slope);
      } else {
        if (!l2hit) j.num("departure_del_uncoal_cycles", slope / 32.0);
        j.num(pre + "_cycles_per_transaction", slope / 32.0);
      }
      printf("%s: cycles for w=", pre.c_str());
      for (size_t k = 0; k < ws.size(); ++k) printf(" %g:%.0f", ws[k], T[k]);
      printf("  slope %.3f cyc/warp-request%s\n", slope, coal ? "" : " (/32 per transaction)");
    }
    j.str("departure_method",
          "One block (one SM active) of w warps; each warp issues L independent ld.global.cg loads (32 in flight per warp before use); "
          "coalesced: one 128-byte line per warp instruction (L=256); uncoalesced: 32 distinct lines, one 32-byte sector each, per warp instruction (L=64). "
          "Every measurement reads lines never touched before (fresh region of a 4 GiB buffer) so requests go to DRAM ('_dram'); '_l2hit' re-reads a region just read. "
          "T(w) = clock64 cycles between two block barriers around all loads, median of 5. Departure delay = least-squares slope of T versus number of warp requests w*L over w = 16, 24, 32 (latency hidden); "
          "for the uncoalesced case divided by 32 transactions per request. This is a per-SM issue/throughput spacing; it includes any per-SM bandwidth limit.");
    CK(cudaFree(buf));
  }

  // ---------------- memory bandwidth
  {
    const size_t bytes = Q ? ((size_t)256 << 20) : ((size_t)1 << 30);
    const size_t n4 = bytes / 16;
    float *s, *d, *red;
    CK(cudaMalloc(&s, bytes)); CK(cudaMalloc(&d, bytes)); CK(cudaMalloc(&red, 4));
    fill_k<<<SMS * 8, 256>>>(s, bytes / 4, 1.0f); CKL();
    fill_k<<<SMS * 8, 256>>>(d, bytes / 4, 0.0f); CKL();
    CK(cudaDeviceSynchronize());
    const dim3 g(SMS * 8), b(256);
    Timing tc1 = time_launches([&] { copy_k<<<g, b>>>((const float4*)s, (float4*)d, n4); });
    Timing tr1 = time_launches([&] { reduce_k<<<g, b>>>((const float4*)s, n4, red); });
    Timing tc = time_launches([&] { copy_k4<<<g, b>>>((const float4*)s, (float4*)d, n4); });
    Timing tr = time_launches([&] { reduce_k4<<<g, b>>>((const float4*)s, n4, red); });
    Timing tm = time_launches([&] { CK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice)); });
    // check copy and reduction once
    CK(cudaMemset(red, 0, 4));
    reduce_k4<<<g, b>>>((const float4*)s, n4, red); CKL();
    float rsum; CK(cudaMemcpy(&rsum, red, 4, cudaMemcpyDeviceToHost));
    float probe[4]; CK(cudaMemcpy(probe, d + bytes / 4 - 4, 16, cudaMemcpyDeviceToHost));
    const double copy_gbps = 2.0 * bytes / (tc.med_ms * 1e6);
    const double read_gbps = (double)bytes / (tr.med_ms * 1e6);
    const double memcpy_gbps = 2.0 * bytes / (tm.med_ms * 1e6);
    j.num("mem_bandwidth_gbps", copy_gbps);
    j.num("mem_bandwidth_read_only_gbps", read_gbps);
    j.num("mem_bandwidth_copy_1load_gbps", 2.0 * bytes / (tc1.med_ms * 1e6));
    j.num("mem_bandwidth_read_only_1load_gbps", (double)bytes / (tr1.med_ms * 1e6));
    j.num("mem_bandwidth_cudamemcpy_d2d_gbps", memcpy_gbps);
    j.num("bandwidth_buffer_bytes", (double)bytes);
    j.boolean("bandwidth_checks_ok", probe[3] == 1.0f && std::fabs(rsum - bytes / 4.0) < 1e-3 * bytes / 4.0);
    j.str("bandwidth_method", "float4 grid-stride copy kernel with 4 independent 16-byte loads per thread per iteration (8 blocks x 256 threads per SM) over 1 GiB -> 1 GiB, (bytes read + bytes written)/median event time; read-only: the same access pattern summed (one atomicAdd per block), bytes read/time; *_1load_*: the same kernels with one load per iteration; also cudaMemcpy device-to-device (read+write)");
    printf("bandwidth GB/s: copy %.0f  read-only %.0f  cudaMemcpy D2D %.0f\n", copy_gbps, read_gbps, memcpy_gbps);
    CK(cudaFree(s)); CK(cudaFree(d)); CK(cudaFree(red));
  }

  // ---------------- launch overhead
  {
    for (int i = 0; i < 100; ++i) empty_k<<<1, 1>>>();
    CKL();
    CK(cudaDeviceSynchronize());
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    const int n = 2000;
    std::vector<double> per;
    for (int r = 0; r < 5; ++r) {
      CK(cudaEventRecord(a));
      for (int i = 0; i < n; ++i) empty_k<<<1, 1>>>();
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); CKL();
      float ms; CK(cudaEventElapsedTime(&ms, a, b));
      per.push_back(ms * 1e3 / n);
    }
    std::vector<double> single, ev;
    for (int r = 0; r < 200; ++r) {
      double t0 = now_s();
      empty_k<<<1, 1>>>();
      CK(cudaDeviceSynchronize());
      single.push_back((now_s() - t0) * 1e6);
    }
    for (int r = 0; r < 200; ++r) {
      CK(cudaEventRecord(a));
      empty_k<<<1, 1>>>();
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b));
      ev.push_back(ms * 1e3);
    }
    CKL();
    // Keys are the hwspec's fields: launch_overhead_us is a launch timed alone
    // with an event pair (as validation times kernels), launch_back_to_back_us
    // one queued behind another (as a program's kernels run).
    j.num("launch_overhead_us", median_of(ev));
    j.num("launch_back_to_back_us", median_of(per));
    j.num("launch_sync_latency_us", median_of(single));
    j.num("empty_kernel_event_time_us", median_of(ev));
    j.str("launch_method", "empty kernel <<<1,1>>>: launch_back_to_back_us = time per launch of 2000 back-to-back launches (events, median of 5); launch_overhead_us = empty_kernel_event_time_us = events bracketing one launch (median of 200), the floor of the per-launch kernel timings; launch_sync_latency_us = host wall time of one launch + cudaDeviceSynchronize (median of 200). Files before 2026-11-23 wrote the back-to-back time under launch_overhead_us");
    printf("launch: %.2f us/launch back-to-back, %.2f us launch+sync, %.2f us event-bracketed\n",
           median_of(per), median_of(single), median_of(ev));
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  }
  j.close('}');
  j.write(argv[1]);
  return 0;
}
