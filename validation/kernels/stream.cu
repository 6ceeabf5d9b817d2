// Streaming (STREAM triad a[i] = b[i] + s*c[i]) and compute-heavy
// (x = in[i]; for n = 0:64 { 4 dependent FMAs on x }; out[i] = x) kernels, in
// float (kernels "streaming", "compute_heavy") and in double ("streaming_fp64",
// "compute_heavy_fp64": the fp64 term of docs/model.md section 7).
//   stream out.json [fp32|fp64|all]   (default all)
// Loop space parallel_for(N) : i -> i = threadIdx.x.
//   fold=i:F   elements i = blockIdx.x*B*F + threadIdx.x + m*B, m = 0..F-1 (jammed:
//              the F independent FMA chains are interleaved inside the n loop)
//   unroll=n:U #pragma unroll U on the n loop; otherwise #pragma unroll 1.
#include "common.cuh"

template <class T, int BS, int F>
__global__ void triad(T* __restrict__ a, const T* __restrict__ b,
                      const T* __restrict__ c, T s, int n) {
#pragma unroll
  for (int m = 0; m < F; ++m) {
    const int i = blockIdx.x * BS * F + threadIdx.x + m * BS;
    if (i < n) a[i] = b[i] + s * c[i];
  }
}

// constants of the 4 FMAs (x -> x*a + b), contractive so values stay O(1)
#define CH_A1 0.9990f
#define CH_B1 0.0012f
#define CH_A2 1.0004f
#define CH_B2 -0.0007f
#define CH_A3 0.9997f
#define CH_B3 0.0003f
#define CH_A4 1.0001f
#define CH_B4 -0.0002f

template <class T, int BS, int F, int U>
__global__ void heavy(const T* __restrict__ in, T* __restrict__ out, int n) {
  T x[F];
  int idx[F];
#pragma unroll
  for (int m = 0; m < F; ++m) {
    idx[m] = blockIdx.x * BS * F + threadIdx.x + m * BS;
    x[m] = in[min(idx[m], n - 1)];
  }
#pragma unroll U
  for (int k = 0; k < 64; ++k) {
#pragma unroll
    for (int m = 0; m < F; ++m) {
      x[m] = fma(x[m], (T)CH_A1, (T)CH_B1);
      x[m] = fma(x[m], (T)CH_A2, (T)CH_B2);
      x[m] = fma(x[m], (T)CH_A3, (T)CH_B3);
      x[m] = fma(x[m], (T)CH_A4, (T)CH_B4);
    }
  }
#pragma unroll
  for (int m = 0; m < F; ++m)
    if (idx[m] < n) out[idx[m]] = x[m];
}

template <class T>
struct ST {
  int n;
  T *d0, *d1, *d2;
  std::vector<T> h;
  std::vector<double> ref;
  std::string size, skel;
};

// The kernel names of the measurements: float keeps the historical names.
template <class T> std::string named(const char* base) {
  return sizeof(T) == 8 ? std::string(base) + "_fp64" : std::string(base);
}

template <class T, int BS, int F>
void triad_case(CaseOut& out, ST<T>& p, const char* layout) {
  dim3 block(BS), grid((p.n + BS * F - 1) / (BS * F));
  auto kf = triad<T, BS, F>;
  const T s = (T)1.75;
  auto launch = [&] { kf<<<grid, block>>>(p.d0, p.d1, p.d2, s, p.n); };
  auto check = [&] {
    poison(p.d0, (size_t)p.n * sizeof(T));
    launch(); CKL();
    CK(cudaMemcpy(p.h.data(), p.d0, (size_t)p.n * sizeof(T), cudaMemcpyDeviceToHost));
    return rel_error(p.h.data(), p.ref.data(), p.n);
  };
  run_case(out, named<T>("streaming"), p.size, p.skel, layout, kf, grid, block, launch, check);
}

template <class T, int BS, int F, int U>
void heavy_case(CaseOut& out, ST<T>& p, const char* layout) {
  dim3 block(BS), grid((p.n + BS * F - 1) / (BS * F));
  auto kf = heavy<T, BS, F, U>;
  auto launch = [&] { kf<<<grid, block>>>(p.d1, p.d0, p.n); };
  auto check = [&] {
    poison(p.d0, (size_t)p.n * sizeof(T));
    launch(); CKL();
    CK(cudaMemcpy(p.h.data(), p.d0, (size_t)p.n * sizeof(T), cudaMemcpyDeviceToHost));
    return rel_error(p.h.data(), p.ref.data(), p.n);
  };
  run_case(out, named<T>("compute_heavy"), p.size, p.skel, layout, kf, grid, block, launch, check);
}

struct Sz { int n; const char* size; const char* skel; };

// The four triad layouts over each size; the inputs are drawn in float (the
// same values in both types) and the reference is computed in double.
template <class T>
void triads(CaseOut& out, const Sz* sizes, int count, int& si) {
  for (int z = 0; z < count; ++z) {
    const Sz& s = sizes[z];
    ST<T> p;
    p.n = s.n; p.size = s.size; p.skel = s.skel;
    std::vector<float> bf(s.n), cf(s.n);
    fill_uniform(bf, -1.f, 1.f, run_seed() + 51 + si);
    fill_uniform(cf, -1.f, 1.f, run_seed() + 52 + si);
    ++si;
    std::vector<T> b(bf.begin(), bf.end()), c(cf.begin(), cf.end());
    p.ref.resize(s.n);
    for (int i = 0; i < s.n; ++i) p.ref[i] = (double)b[i] + 1.75 * (double)c[i];
    p.h.resize(s.n);
    const size_t bytes = (size_t)s.n * sizeof(T);
    CK(cudaMalloc(&p.d0, bytes)); CK(cudaMalloc(&p.d1, bytes)); CK(cudaMalloc(&p.d2, bytes));
    CK(cudaMemcpy(p.d1, b.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.d2, c.data(), bytes, cudaMemcpyHostToDevice));
    triad_case<T, 128, 1>(out, p, "block=i:128");
    triad_case<T, 256, 1>(out, p, "block=i:256");
    triad_case<T, 1024, 1>(out, p, "block=i:1024");
    triad_case<T, 256, 4>(out, p, "block=i:256 fold=i:4");
    CK(cudaFree(p.d0)); CK(cudaFree(p.d1)); CK(cudaFree(p.d2));
  }
}

template <class T>
void heavies(CaseOut& out, const Sz* sizes, int count, int& si) {
  for (int z = 0; z < count; ++z) {
    const Sz& s = sizes[z];
    ST<T> p;
    p.n = s.n; p.size = s.size; p.skel = s.skel;
    std::vector<float> inf(s.n);
    fill_uniform(inf, -2.f, 2.f, run_seed() + 53 + si);
    ++si;
    std::vector<T> in(inf.begin(), inf.end());
    p.ref.resize(s.n);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < s.n; ++i) {
      double x = in[i];
      for (int k = 0; k < 64; ++k) {
        x = std::fma(x, (double)CH_A1, (double)CH_B1);
        x = std::fma(x, (double)CH_A2, (double)CH_B2);
        x = std::fma(x, (double)CH_A3, (double)CH_B3);
        x = std::fma(x, (double)CH_A4, (double)CH_B4);
      }
      p.ref[i] = x;
    }
    p.h.resize(s.n);
    p.d2 = nullptr;
    const size_t bytes = (size_t)s.n * sizeof(T);
    CK(cudaMalloc(&p.d0, bytes)); CK(cudaMalloc(&p.d1, bytes));
    CK(cudaMemcpy(p.d1, in.data(), bytes, cudaMemcpyHostToDevice));
    heavy_case<T, 128, 1, 1>(out, p, "block=i:128");
    heavy_case<T, 256, 1, 1>(out, p, "block=i:256");
    heavy_case<T, 256, 1, 8>(out, p, "block=i:256 unroll=n:8");
    heavy_case<T, 256, 4, 1>(out, p, "block=i:256 fold=i:4");
    CK(cudaFree(p.d0)); CK(cudaFree(p.d1));
  }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json [fp32|fp64|all]\n", argv[0]); return 1; }
  const std::string which = argc > 2 ? argv[2] : "all";
  if (which != "fp32" && which != "fp64" && which != "all") {
    fprintf(stderr, "%s: the precision must be fp32, fp64 or all, is '%s'\n", argv[0], which.c_str());
    return 1;
  }
  CaseOut out;
  int si = 0;
  if (which != "fp64") {
    const Sz tsz[] = {{1 << 20, "1048576", "validation/skeletons/streaming_1M.skel"},
                      {1 << 26, "67108864", "validation/skeletons/streaming_64M.skel"}};
    triads<float>(out, tsz, 2, si);
    const Sz hsz[] = {{1 << 20, "1048576", "validation/skeletons/compute_heavy_1M.skel"},
                      {1 << 24, "16777216", "validation/skeletons/compute_heavy_16M.skel"}};
    heavies<float>(out, hsz, 2, si);
  }
  if (which != "fp32") {
    si = 0; // the same inputs as the float cases of the same sizes
    const Sz tsz[] = {{1 << 20, "1048576", "validation/skeletons/streaming_fp64_1M.skel"},
                      {1 << 26, "67108864", "validation/skeletons/streaming_fp64_64M.skel"}};
    triads<double>(out, tsz, 2, si);
    const Sz hsz[] = {{1 << 20, "1048576", "validation/skeletons/compute_heavy_fp64_1M.skel"},
                      {1 << 24, "16777216", "validation/skeletons/compute_heavy_fp64_16M.skel"}};
    heavies<double>(out, hsz, 2, si);
  }
  out.finish(argv[1]);
  printf("streaming/compute_heavy (%s): %d verified, %d failed\n", which.c_str(), out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
