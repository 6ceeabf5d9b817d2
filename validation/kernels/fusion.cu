// Kernel fusion: c = sin(a) + cos(b); d = log(a); out = sqrt(c) * d  (float)
// a in (0.5, 2), b in (-1, 1) (so c > 0).  Unfused: three kernels, c and d
// device temporaries; fused: one kernel.  Kernel time only: CUDA events around
// the launches (3 or 1), median (see common.cuh time_launches), same buffers.
#include "common.cuh"

__global__ void k_c(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = sinf(a[i]) + cosf(b[i]);
}
__global__ void k_d(const float* __restrict__ a, float* __restrict__ d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = logf(a[i]);
}
__global__ void k_out(const float* __restrict__ c, const float* __restrict__ d, float* __restrict__ o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = sqrtf(c[i]) * d[i];
}
__global__ void k_fused(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { const float x = a[i]; o[i] = sqrtf(sinf(x) + cosf(b[i])) * logf(x); }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const int maxlog = quick_mode() ? 22 : 28;
  Json j;
  j.open('{');
  j.str("program", "fusion");
  j.str("method", "unfused = 3 kernels (c, d device temporaries), fused = 1 kernel; block 256, one element per thread; CUDA events around the launches, median of repeats after warm-up, same buffers each repeat; verified against a double CPU reference (poisoned output)");
  j.key("cases");
  j.open('[');
  for (int lg = 16; lg <= maxlog; lg += 2) {
    const int n = 1 << lg;
    std::vector<float> a(n), b(n), h(n);
    fill_uniform(a, 0.5f, 2.0f, run_seed() + 71 + lg);
    fill_uniform(b, -1.f, 1.f, run_seed() + 72 + lg);
    std::vector<double> ref(n);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; ++i) ref[i] = std::sqrt(std::sin((double)a[i]) + std::cos((double)b[i])) * std::log((double)a[i]);
    float *da, *db, *dc, *dd, *dout;
    const size_t B = (size_t)n * 4;
    CK(cudaMalloc(&da, B)); CK(cudaMalloc(&db, B)); CK(cudaMalloc(&dc, B)); CK(cudaMalloc(&dd, B)); CK(cudaMalloc(&dout, B));
    CK(cudaMemcpy(da, a.data(), B, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), B, cudaMemcpyHostToDevice));
    const dim3 blk(256), grd((n + 255) / 256);
    auto unfused = [&] {
      k_c<<<grd, blk>>>(da, db, dc, n);
      k_d<<<grd, blk>>>(da, dd, n);
      k_out<<<grd, blk>>>(dc, dd, dout, n);
    };
    auto fused = [&] { k_fused<<<grd, blk>>>(da, db, dout, n); };
    auto check = [&](auto f) {
      poison(dout, B); poison(dc, B); poison(dd, B);
      f(); CKL();
      CK(cudaMemcpy(h.data(), dout, B, cudaMemcpyDeviceToHost));
      return rel_error(h.data(), ref.data(), n);
    };
    for (int v = 0; v < 2; ++v) {
      double e1 = v == 0 ? check(unfused) : check(fused);
      Timing t;
      double e2 = NAN;
      if (error_ok(e1)) {
        t = v == 0 ? time_launches(unfused) : time_launches(fused);
        e2 = v == 0 ? check(unfused) : check(fused);
      }
      const bool ok = error_ok(e1) && error_ok(e2);
      j.open('{');
      j.integer("n", n);
      j.str("variant", v == 0 ? "unfused" : "fused");
      j.integer("kernels", v == 0 ? 3 : 1);
      j.integer("dram_bytes_min", (long long)(v == 0 ? 32 : 12) * n);
      if (ok) {
        j.num("time_ms", t.med_ms); j.num("min_ms", t.min_ms); j.num("max_ms", t.max_ms);
        j.integer("repeats", t.reps); j.num("batch_ms_per_launch", t.batch_ms);
      }
      j.num("rel_error", ok ? std::max(e1, e2) : e1);
      j.boolean("verified", ok);
      j.close('}');
      printf("fusion n=2^%d %-8s %s %.4f ms (min %.4f) err %.2e\n", lg, v == 0 ? "unfused" : "fused",
             ok ? "OK  " : "FAIL", t.med_ms, t.min_ms, ok ? std::max(e1, e2) : e1);
      fflush(stdout);
    }
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(dd)); CK(cudaFree(dout));
  }
  j.close(']');
  j.close('}');
  j.write(argv[1]);
  return 0;
}
