// Kernels in the shapes real code has (issue 19, item 3), each the port of a
// plain C file in validation/c/ (named in the case's "c" field) in 2-4 layouts,
// at sizes that fill an H100. No hand skeleton: skelcast projects them from
// the C files only. Layout semantics as in validation/README.md: the last
// parallel index is threadIdx.x, the one before threadIdx.y; a skeleton loop
// without an unroll= part carries `#pragma unroll 1`, with unroll=x:U
// `#pragma unroll U`.
#include "common.cuh"

#include <functional>

// ------------------------------------------------------------------ helpers
struct Buf {
  float* d = nullptr;
  std::vector<float> h;
  Buf(size_t n, float lo, float hi, uint64_t seed) : h(n) {
    fill_uniform(h, lo, hi, seed);
    CK(cudaMalloc(&d, n * 4));
    CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  }
  explicit Buf(size_t n) : h(n) { CK(cudaMalloc(&d, n * 4)); }
  ~Buf() { cudaFree(d); }
  size_t n() const { return h.size(); }
};

// One case: `launch` enqueues the kernel; the output `out` is checked against `ref`.
template <class KF, class L>
void shape_case(CaseOut& o, const char* kernel, const std::string& size, const std::string& cfile,
                const char* layout, KF kf, dim3 grid, dim3 block, L launch, Buf& out,
                const std::vector<double>& ref, const std::function<void()>& reset = {}) {
  auto check = [&] {
    if (reset) reset();
    else poison(out.d, out.n() * 4);
    launch(); CKL();
    CK(cudaMemcpy(out.h.data(), out.d, out.n() * 4, cudaMemcpyDeviceToHost));
    return rel_error(out.h.data(), ref.data(), out.n());
  };
  run_case(o, kernel, size, cfile, layout, kf, grid, block, launch, check);
}
static unsigned cdiv(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

// ------------------------------------------- matvec_rows: y[i] = sum_j A[i][j] x[j]
// One thread per row walks its row: each thread of a warp on its own line.
template <int B, int U>
__global__ void matvec_rows(const float* __restrict__ A, const float* __restrict__ x,
                            float* __restrict__ y, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
#pragma unroll U
  for (int j = 0; j < n; ++j) acc += A[(size_t)i * n + j] * x[j];
  y[i] = acc;
}
// ------------------------------------------- matvec_cols: y[j] = sum_i A[i][j] x[i]
template <int B, int U>
__global__ void matvec_cols(const float* __restrict__ A, const float* __restrict__ x,
                            float* __restrict__ y, int n) {
  const int j = blockIdx.x * B + threadIdx.x;
  if (j >= n) return;
  float acc = 0.f;
#pragma unroll U
  for (int i = 0; i < n; ++i) acc += A[(size_t)i * n + j] * x[i];
  y[j] = acc;
}
// ------------------------------------------- colmean: mean[j] = sum_i data[i][j] / rows
template <int B, int U>
__global__ void colmean(const float* __restrict__ d, float* __restrict__ mean, int rows, int cols) {
  const int j = blockIdx.x * B + threadIdx.x;
  if (j >= cols) return;
  float acc = 0.f;
#pragma unroll U
  for (int i = 0; i < rows; ++i) acc += d[(size_t)i * cols + j];
  mean[j] = acc / rows;
}
// ------------------------------------------- trmv: y[i] = sum_{j<=i} L[i][j] x[j] (triangular)
template <int B, int U>
__global__ void trmv(const float* __restrict__ L, const float* __restrict__ x, float* __restrict__ y,
                     int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i >= n) return;
  float acc = 0.f;
#pragma unroll U
  for (int j = 0; j <= i; ++j) acc += L[(size_t)i * n + j] * x[j];
  y[i] = acc;
}
// ------------------------------------------- syrk-like: C[i][j] = sum_k A[i][k] A[j][k]
// Thread (i, j) walks row j of A while its neighbours walk other rows.
template <int BI, int BJ>
__global__ void syrk(const float* __restrict__ A, float* __restrict__ C, int n, int kk) {
  const int j = blockIdx.x * BJ + threadIdx.x, i = blockIdx.y * BI + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < kk; ++k) acc += A[(size_t)i * kk + k] * A[(size_t)j * kk + k];
  C[(size_t)i * n + j] = acc;
}
// ------------------------------------------- mm_acc: tmp[i][j] = 0; tmp[i][j] += A[i][k] B[k][j]
// The accumulation stays in global memory (tmp may alias A and B as far as
// the compiler knows, as in PolyBench's 2mm): a read-modify-write per k.
template <int BI, int BJ>
__global__ void mm_acc(const float* A, const float* B, float* tmp, int n) {
  const int j = blockIdx.x * BJ + threadIdx.x, i = blockIdx.y * BI + threadIdx.y;
  if (i >= n || j >= n) return;
  tmp[(size_t)i * n + j] = 0.f;
#pragma unroll 1
  for (int k = 0; k < n; ++k) tmp[(size_t)i * n + j] += A[(size_t)i * n + k] * B[(size_t)k * n + j];
}
// ------------------------------------------- mm_ikj: for k { for j { C[i][j] += A[i][k] B[k][j] } }
// The i-k-j order, parallel over i only: each thread updates its row of C in global memory.
template <int B>
__global__ void mm_ikj(const float* __restrict__ A, const float* __restrict__ Bm, float* C, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i >= n) return;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    const float a = A[(size_t)i * n + k];
#pragma unroll 1
    for (int j = 0; j < n; ++j) C[(size_t)i * n + j] += a * Bm[(size_t)k * n + j];
  }
}
// ------------------------------------------- conv2d: out[i][j] = sum_{a,b<3} w[a][b] in[i+a][j+b]
template <int BI, int BJ>
__global__ void conv2d(const float* __restrict__ in, const float* __restrict__ w, float* __restrict__ out,
                       int n) {
  const int j = blockIdx.x * BJ + threadIdx.x, i = blockIdx.y * BI + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.f;
#pragma unroll 1
  for (int a = 0; a < 3; ++a)
#pragma unroll 1
    for (int b = 0; b < 3; ++b) acc += w[a * 3 + b] * in[(size_t)(i + a) * (n + 2) + j + b];
  out[(size_t)i * n + j] = acc;
}
// ------------------------------------------- jacobi2d: B = 0.2 (5-point) on the interior
template <int BI, int BJ>
__global__ void jacobi2d(const float* __restrict__ A, float* __restrict__ B, int n) {
  const int j = blockIdx.x * BJ + threadIdx.x + 1, i = blockIdx.y * BI + threadIdx.y + 1;
  if (i >= n - 1 || j >= n - 1) return;
  const size_t c = (size_t)i * n + j;
  B[c] = 0.2f * (A[c] + A[c - 1] + A[c + 1] + A[c + n] + A[c - n]);
}
// ------------------------------------------- stencil3d: 7 points of a plus b, parallel (i, j, k)
template <int BJ, int BK>
__global__ void stencil3d(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ o,
                          int n) {
  const int k = blockIdx.x * BK + threadIdx.x + 1, j = blockIdx.y * BJ + threadIdx.y + 1;
  const int i = blockIdx.z + 1;
  if (i >= n - 1 || j >= n - 1 || k >= n - 1) return;
  const size_t c = ((size_t)i * n + j) * n + k, p = (size_t)n * n;
  o[c] = 0.4f * a[c] + 0.1f * (a[c - 1] + a[c + 1] + a[c - n] + a[c + n] + a[c - p] + a[c + p]) + b[c];
}
// ------------------------------------------- gesummv: y = alpha A x + beta B x (two row walks)
template <int B>
__global__ void gesummv(const float* __restrict__ A, const float* __restrict__ Bm, const float* __restrict__ x,
                        float* __restrict__ y, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i >= n) return;
  float s = 0.f, t = 0.f;
#pragma unroll 1
  for (int j = 0; j < n; ++j) {
    s += A[(size_t)i * n + j] * x[j];
    t += Bm[(size_t)i * n + j] * x[j];
  }
  y[i] = 1.5f * s + 1.2f * t;
}
// ------------------------------------------- center: data[i][j] - mean[j] (a broadcast)
template <int BI, int BJ>
__global__ void center(const float* __restrict__ d, const float* __restrict__ mean, float* __restrict__ o,
                       int rows, int cols) {
  const int j = blockIdx.x * BJ + threadIdx.x, i = blockIdx.y * BI + threadIdx.y;
  if (i >= rows || j >= cols) return;
  o[(size_t)i * cols + j] = d[(size_t)i * cols + j] - mean[j];
}
// ------------------------------------------- axpy_small: sub-10-us launches, back to back
template <int B>
__global__ void axpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// ------------------------------------------- matvec_rows_fp64: the row walk in double precision
template <int B, int U>
__global__ void matvec_rows_fp64(const double* __restrict__ A, const double* __restrict__ x,
                                 double* __restrict__ y, int n) {
  const int i = blockIdx.x * B + threadIdx.x;
  if (i >= n) return;
  double acc = 0.0;
#pragma unroll U
  for (int j = 0; j < n; ++j) acc += A[(size_t)i * n + j] * x[j];
  y[i] = acc;
}
// ------------------------------------------- syr2k-like: C[i][j] = sum_k A[i][k] B[j][k] + B[i][k] A[j][k]
template <int BI, int BJ>
__global__ void syr2k(const float* __restrict__ A, const float* __restrict__ Bm, float* __restrict__ C,
                      int n, int kk) {
  const int j = blockIdx.x * BJ + threadIdx.x, i = blockIdx.y * BI + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < kk; ++k)
    acc += A[(size_t)i * kk + k] * Bm[(size_t)j * kk + k] + Bm[(size_t)i * kk + k] * A[(size_t)j * kk + k];
  C[(size_t)i * n + j] = acc;
}
// ------------------------------------------- lap3arr: out = a (4 neighbours of b) + c, interior
template <int BI, int BJ>
__global__ void lap3arr(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                        float* __restrict__ o, int n) {
  const int j = blockIdx.x * BJ + threadIdx.x + 1, i = blockIdx.y * BI + threadIdx.y + 1;
  if (i >= n - 1 || j >= n - 1) return;
  const size_t x = (size_t)i * n + j;
  o[x] = a[x] * (b[x - n] + b[x + n] + b[x - 1] + b[x + 1]) + c[x];
}

// ------------------------------------------------------------------ main
int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut o;
  uint64_t seed = run_seed() + 1000;
  const std::string C = "validation/c/";

  { // matvec_rows, matvec_cols, gesummv: n = 8192 (256 MB per matrix)
    const int n = 8192;
    Buf A((size_t)n * n, -1, 1, seed++), Bm((size_t)n * n, -1, 1, seed++), x(n, -1, 1, seed++), y(n);
    std::vector<double> rr(n), rc(n), rg(n);
    for (int i = 0; i < n; ++i) {
      double s = 0, t = 0;
      for (int j = 0; j < n; ++j) {
        s += (double)A.h[(size_t)i * n + j] * x.h[j];
        t += (double)Bm.h[(size_t)i * n + j] * x.h[j];
      }
      rr[i] = s;
      rg[i] = 1.5 * s + 1.2 * t;
    }
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += (double)A.h[(size_t)i * n + j] * x.h[i];
      rc[j] = s;
    }
    const std::string sz = "8192x8192";
#define MV(K, B, U, LAYOUT, REF, CF)                                                          \
    shape_case(o, #K, sz, C + CF, LAYOUT, K<B, U>, dim3(cdiv(n, B)), dim3(B),                 \
               [&] { K<B, U><<<cdiv(n, B), B>>>(A.d, x.d, y.d, n); }, y, REF)
    MV(matvec_rows, 128, 1, "block=i:128", rr, "matvec_rows.c");
    MV(matvec_rows, 32, 1, "block=i:32", rr, "matvec_rows.c");
    MV(matvec_rows, 128, 4, "block=i:128 unroll=j:4", rr, "matvec_rows.c");
    MV(matvec_cols, 128, 1, "block=j:128", rc, "matvec_cols.c");
    MV(matvec_cols, 256, 1, "block=j:256", rc, "matvec_cols.c");
    MV(matvec_cols, 64, 4, "block=j:64 unroll=i:4", rc, "matvec_cols.c");
#undef MV
    for (int b : {128, 64}) {
      auto go = [&] {
        if (b == 128) gesummv<128><<<cdiv(n, 128), 128>>>(A.d, Bm.d, x.d, y.d, n);
        else gesummv<64><<<cdiv(n, 64), 64>>>(A.d, Bm.d, x.d, y.d, n);
      };
      if (b == 128)
        shape_case(o, "gesummv", sz, C + "gesummv.c", "block=i:128", gesummv<128>, dim3(cdiv(n, 128)), dim3(128), go, y, rg);
      else
        shape_case(o, "gesummv", sz, C + "gesummv.c", "block=i:64", gesummv<64>, dim3(cdiv(n, 64)), dim3(64), go, y, rg);
    }
  }
  { // colmean and center: 16384 rows x 4096 columns
    const int rows = 16384, cols = 4096;
    Buf d((size_t)rows * cols, -1, 1, seed++), mean(cols), out((size_t)rows * cols);
    std::vector<double> rm(cols, 0.0), rcen((size_t)rows * cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) rm[j] += d.h[(size_t)i * cols + j];
    for (int j = 0; j < cols; ++j) rm[j] /= rows;
    const std::string sz = "16384x4096";
    shape_case(o, "colmean", sz, C + "colmean.c", "block=j:128", colmean<128, 1>, dim3(cdiv(cols, 128)), dim3(128),
               [&] { colmean<128, 1><<<cdiv(cols, 128), 128>>>(d.d, mean.d, rows, cols); }, mean, rm);
    shape_case(o, "colmean", sz, C + "colmean.c", "block=j:32", colmean<32, 1>, dim3(cdiv(cols, 32)), dim3(32),
               [&] { colmean<32, 1><<<cdiv(cols, 32), 32>>>(d.d, mean.d, rows, cols); }, mean, rm);
    shape_case(o, "colmean", sz, C + "colmean.c", "block=j:256 unroll=i:4", colmean<256, 4>, dim3(cdiv(cols, 256)), dim3(256),
               [&] { colmean<256, 4><<<cdiv(cols, 256), 256>>>(d.d, mean.d, rows, cols); }, mean, rm);
    // center reads the mean as the C program's second nest would: from its own input
    std::vector<float> mf(cols);
    for (int j = 0; j < cols; ++j) mf[j] = (float)rm[j];
    CK(cudaMemcpy(mean.d, mf.data(), cols * 4, cudaMemcpyHostToDevice));
    for (size_t k = 0; k < rcen.size(); ++k) rcen[k] = (double)d.h[k] - mf[k % cols];
    shape_case(o, "center", sz, C + "center.c", "block=i:1,j:256", center<1, 256>, dim3(cdiv(cols, 256), rows), dim3(256, 1),
               [&] { center<1, 256><<<dim3(cdiv(cols, 256), rows), dim3(256, 1)>>>(d.d, mean.d, out.d, rows, cols); }, out, rcen);
    shape_case(o, "center", sz, C + "center.c", "block=i:16,j:16", center<16, 16>, dim3(cdiv(cols, 16), cdiv(rows, 16)), dim3(16, 16),
               [&] { center<16, 16><<<dim3(cdiv(cols, 16), cdiv(rows, 16)), dim3(16, 16)>>>(d.d, mean.d, out.d, rows, cols); }, out, rcen);
  }
  { // trmv: n = 16384, lower triangle
    const int n = 16384;
    Buf L((size_t)n * n, -1, 1, seed++), x(n, -1, 1, seed++), y(n);
    std::vector<double> r(n);
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = 0; j <= i; ++j) s += (double)L.h[(size_t)i * n + j] * x.h[j];
      r[i] = s;
    }
    const std::string sz = "16384";
    shape_case(o, "trmv", sz, C + "trmv.c", "block=i:128", trmv<128, 1>, dim3(cdiv(n, 128)), dim3(128),
               [&] { trmv<128, 1><<<cdiv(n, 128), 128>>>(L.d, x.d, y.d, n); }, y, r);
    shape_case(o, "trmv", sz, C + "trmv.c", "block=i:32", trmv<32, 1>, dim3(cdiv(n, 32)), dim3(32),
               [&] { trmv<32, 1><<<cdiv(n, 32), 32>>>(L.d, x.d, y.d, n); }, y, r);
    shape_case(o, "trmv", sz, C + "trmv.c", "block=i:256 unroll=j:4", trmv<256, 4>, dim3(cdiv(n, 256)), dim3(256),
               [&] { trmv<256, 4><<<cdiv(n, 256), 256>>>(L.d, x.d, y.d, n); }, y, r);
  }
  { // syrk: n = 2048, k = 256
    const int n = 2048, kk = 256;
    Buf A((size_t)n * kk, -1, 1, seed++), Cm((size_t)n * n);
    std::vector<double> r((size_t)n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < kk; ++k) s += (double)A.h[(size_t)i * kk + k] * A.h[(size_t)j * kk + k];
        r[(size_t)i * n + j] = s;
      }
    const std::string sz = "2048x256";
#define SY(BI, BJ, LAYOUT)                                                                          \
    shape_case(o, "syrk", sz, C + "syrk.c", LAYOUT, syrk<BI, BJ>, dim3(cdiv(n, BJ), cdiv(n, BI)), dim3(BJ, BI), \
               [&] { syrk<BI, BJ><<<dim3(cdiv(n, BJ), cdiv(n, BI)), dim3(BJ, BI)>>>(A.d, Cm.d, n, kk); }, Cm, r)
    SY(16, 16, "block=i:16,j:16");
    SY(1, 256, "block=i:1,j:256");
    SY(8, 32, "block=i:8,j:32");
#undef SY
  }
  { // mm_acc (1024) and mm_ikj (1024)
    const int n = 1024;
    Buf A((size_t)n * n, -1, 1, seed++), Bm((size_t)n * n, -1, 1, seed++), T((size_t)n * n);
    std::vector<double> r((size_t)n * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        double a = A.h[(size_t)i * n + k];
        for (int j = 0; j < n; ++j) r[(size_t)i * n + j] += a * Bm.h[(size_t)k * n + j];
      }
    const std::string sz = "1024x1024x1024";
    shape_case(o, "mm_acc", sz, C + "mm_acc.c", "block=i:16,j:16", mm_acc<16, 16>, dim3(64, 64), dim3(16, 16),
               [&] { mm_acc<16, 16><<<dim3(64, 64), dim3(16, 16)>>>(A.d, Bm.d, T.d, n); }, T, r);
    shape_case(o, "mm_acc", sz, C + "mm_acc.c", "block=i:8,j:32", mm_acc<8, 32>, dim3(32, 128), dim3(32, 8),
               [&] { mm_acc<8, 32><<<dim3(32, 128), dim3(32, 8)>>>(A.d, Bm.d, T.d, n); }, T, r);
    auto zero = [&] { CK(cudaMemset(T.d, 0, T.n() * 4)); };
    shape_case(o, "mm_ikj", sz, C + "mm_ikj.c", "block=i:128", mm_ikj<128>, dim3(8), dim3(128),
               [&] { mm_ikj<128><<<8, 128>>>(A.d, Bm.d, T.d, n); }, T, r, zero);
    shape_case(o, "mm_ikj", sz, C + "mm_ikj.c", "block=i:32", mm_ikj<32>, dim3(32), dim3(32),
               [&] { mm_ikj<32><<<32, 32>>>(A.d, Bm.d, T.d, n); }, T, r, zero);
  }
  { // conv2d 3x3 and jacobi2d: 4096 x 4096
    const int n = 4096;
    Buf in((size_t)(n + 2) * (n + 2), -1, 1, seed++), w(9, -1, 1, seed++), out((size_t)n * n);
    std::vector<double> r((size_t)n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) s += (double)w.h[a * 3 + b] * in.h[(size_t)(i + a) * (n + 2) + j + b];
        r[(size_t)i * n + j] = s;
      }
    const std::string sz = "4096x4096";
#define CV(BI, BJ, LAYOUT)                                                                            \
    shape_case(o, "conv2d", sz, C + "conv2d.c", LAYOUT, conv2d<BI, BJ>, dim3(cdiv(n, BJ), cdiv(n, BI)), dim3(BJ, BI), \
               [&] { conv2d<BI, BJ><<<dim3(cdiv(n, BJ), cdiv(n, BI)), dim3(BJ, BI)>>>(in.d, w.d, out.d, n); }, out, r)
    CV(16, 16, "block=i:16,j:16");
    CV(1, 256, "block=i:1,j:256");
    CV(4, 64, "block=i:4,j:64");
#undef CV
    Buf A((size_t)n * n, -1, 1, seed++), B2((size_t)n * n);
    std::vector<double> rj((size_t)n * n);
    for (size_t k = 0; k < rj.size(); ++k) rj[k] = A.h[k]; // the border: B2 starts as a copy of A
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        size_t c = (size_t)i * n + j;
        rj[c] = 0.2 * ((double)A.h[c] + A.h[c - 1] + A.h[c + 1] + A.h[c + n] + A.h[c - n]);
      }
    auto border = [&] { CK(cudaMemcpy(B2.d, A.d, A.n() * 4, cudaMemcpyDeviceToDevice)); };
    shape_case(o, "jacobi2d", sz, C + "jacobi2d.c", "block=i:16,j:16", jacobi2d<16, 16>, dim3(cdiv(n - 2, 16), cdiv(n - 2, 16)), dim3(16, 16),
               [&] { jacobi2d<16, 16><<<dim3(cdiv(n - 2, 16), cdiv(n - 2, 16)), dim3(16, 16)>>>(A.d, B2.d, n); }, B2, rj, border);
    shape_case(o, "jacobi2d", sz, C + "jacobi2d.c", "block=i:1,j:256", jacobi2d<1, 256>, dim3(cdiv(n - 2, 256), n - 2), dim3(256, 1),
               [&] { jacobi2d<1, 256><<<dim3(cdiv(n - 2, 256), n - 2), dim3(256, 1)>>>(A.d, B2.d, n); }, B2, rj, border);
  }
  { // stencil3d: 256^3, two input arrays
    const int n = 256;
    const size_t nn = (size_t)n * n * n, p = (size_t)n * n;
    Buf a(nn, -1, 1, seed++), b(nn, -1, 1, seed++), out(nn);
    std::vector<double> r(nn);
    for (size_t k = 0; k < nn; ++k) r[k] = a.h[k]; // border: a copy of a
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j)
        for (int k = 1; k < n - 1; ++k) {
          size_t c = ((size_t)i * n + j) * n + k;
          r[c] = 0.4 * a.h[c] + 0.1 * ((double)a.h[c - 1] + a.h[c + 1] + a.h[c - n] + a.h[c + n] + a.h[c - p] + a.h[c + p]) + b.h[c];
        }
    auto border = [&] { CK(cudaMemcpy(out.d, a.d, nn * 4, cudaMemcpyDeviceToDevice)); };
    const std::string sz = "256x256x256";
#define ST(BJ, BK, LAYOUT)                                                                                  \
    shape_case(o, "stencil3d", sz, C + "stencil3d.c", LAYOUT, stencil3d<BJ, BK>, dim3(cdiv(n - 2, BK), cdiv(n - 2, BJ), n - 2), dim3(BK, BJ), \
               [&] { stencil3d<BJ, BK><<<dim3(cdiv(n - 2, BK), cdiv(n - 2, BJ), n - 2), dim3(BK, BJ)>>>(a.d, b.d, out.d, n); }, out, r, border)
    ST(8, 32, "block=i:1,j:8,k:32");
    ST(1, 256, "block=i:1,j:1,k:256");
    ST(4, 64, "block=i:1,j:4,k:64");
#undef ST
  }
  { // axpy on 2^14 elements: a sub-10-us kernel, as in a stream of launches
    const int n = 1 << 14;
    Buf x(n, -1, 1, seed++), y(n, -1, 1, seed++);
    std::vector<float> y0 = y.h;
    std::vector<double> r(n);
    // every launch adds a x once more; the check launches once from y0
    for (int i = 0; i < n; ++i) r[i] = 2.0 * x.h[i] + y0[i];
    auto reset = [&] { CK(cudaMemcpy(y.d, y0.data(), n * 4, cudaMemcpyHostToDevice)); };
    const std::string sz = "16384";
    shape_case(o, "axpy_small", sz, C + "axpy_small.c", "block=i:128", axpy<128>, dim3(cdiv(n, 128)), dim3(128),
               [&] { axpy<128><<<cdiv(n, 128), 128>>>(x.d, y.d, 2.0f, n); }, y, r, reset);
    shape_case(o, "axpy_small", sz, C + "axpy_small.c", "block=i:512", axpy<512>, dim3(cdiv(n, 512)), dim3(512),
               [&] { axpy<512><<<cdiv(n, 512), 512>>>(x.d, y.d, 2.0f, n); }, y, r, reset);
  }
  { // matvec_rows_fp64: n = 8192 doubles (512 MB)
    const int n = 8192;
    std::vector<float> af((size_t)n * n), xf(n);
    fill_uniform(af, -1, 1, seed++);
    fill_uniform(xf, -1, 1, seed++);
    std::vector<double> ah(af.begin(), af.end()), xh(xf.begin(), xf.end()), r(n);
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += ah[(size_t)i * n + j] * xh[j];
      r[i] = s;
    }
    double *dA, *dx, *dy;
    CK(cudaMalloc(&dA, ah.size() * 8)); CK(cudaMalloc(&dx, n * 8)); CK(cudaMalloc(&dy, n * 8));
    CK(cudaMemcpy(dA, ah.data(), ah.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, xh.data(), n * 8, cudaMemcpyHostToDevice));
    std::vector<double> yh(n);
    auto mv = [&](auto kf, int b, const char* layout) {
      auto launch = [&] { kf<<<cdiv(n, b), b>>>(dA, dx, dy, n); };
      auto check = [&] {
        poison(dy, n * 8);
        launch(); CKL();
        CK(cudaMemcpy(yh.data(), dy, n * 8, cudaMemcpyDeviceToHost));
        return rel_error(yh.data(), r.data(), n);
      };
      run_case(o, "matvec_rows_fp64", "8192x8192", C + "matvec_rows_fp64.c", layout, kf, dim3(cdiv(n, b)), dim3(b), launch, check);
    };
    mv(matvec_rows_fp64<128, 1>, 128, "block=i:128");
    mv(matvec_rows_fp64<128, 4>, 128, "block=i:128 unroll=j:4");
    CK(cudaFree(dA)); CK(cudaFree(dx)); CK(cudaFree(dy));
  }
  { // syr2k: n = 2048, k = 128
    const int n = 2048, kk = 128;
    Buf A((size_t)n * kk, -1, 1, seed++), Bm((size_t)n * kk, -1, 1, seed++), Cm((size_t)n * n);
    std::vector<double> r((size_t)n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < kk; ++k)
          s += (double)A.h[(size_t)i * kk + k] * Bm.h[(size_t)j * kk + k] + (double)Bm.h[(size_t)i * kk + k] * A.h[(size_t)j * kk + k];
        r[(size_t)i * n + j] = s;
      }
    const std::string sz = "2048x128";
    shape_case(o, "syr2k", sz, C + "syr2k.c", "block=i:16,j:16", syr2k<16, 16>, dim3(cdiv(n, 16), cdiv(n, 16)), dim3(16, 16),
               [&] { syr2k<16, 16><<<dim3(cdiv(n, 16), cdiv(n, 16)), dim3(16, 16)>>>(A.d, Bm.d, Cm.d, n, kk); }, Cm, r);
    shape_case(o, "syr2k", sz, C + "syr2k.c", "block=i:8,j:32", syr2k<8, 32>, dim3(cdiv(n, 32), cdiv(n, 8)), dim3(32, 8),
               [&] { syr2k<8, 32><<<dim3(cdiv(n, 32), cdiv(n, 8)), dim3(32, 8)>>>(A.d, Bm.d, Cm.d, n, kk); }, Cm, r);
  }
  { // lap3arr: 4096 x 4096, three input arrays
    const int n = 4096;
    Buf a((size_t)n * n, -1, 1, seed++), b((size_t)n * n, -1, 1, seed++), c((size_t)n * n, -1, 1, seed++), out((size_t)n * n);
    std::vector<double> r((size_t)n * n);
    for (size_t k = 0; k < r.size(); ++k) r[k] = 0; // the border stays 0 (set before each check)
    for (int i = 1; i < n - 1; ++i)
      for (int j = 1; j < n - 1; ++j) {
        size_t x = (size_t)i * n + j;
        r[x] = (double)a.h[x] * ((double)b.h[x - n] + b.h[x + n] + b.h[x - 1] + b.h[x + 1]) + c.h[x];
      }
    auto zero = [&] { CK(cudaMemset(out.d, 0, out.n() * 4)); };
    const std::string sz = "4096x4096";
#define L3(BI, BJ, LAYOUT)                                                                              \
    shape_case(o, "lap3arr", sz, C + "lap3arr.c", LAYOUT, lap3arr<BI, BJ>, dim3(cdiv(n - 2, BJ), cdiv(n - 2, BI)), dim3(BJ, BI), \
               [&] { lap3arr<BI, BJ><<<dim3(cdiv(n - 2, BJ), cdiv(n - 2, BI)), dim3(BJ, BI)>>>(a.d, b.d, c.d, out.d, n); }, out, r, zero)
    L3(16, 16, "block=i:16,j:16");
    L3(1, 256, "block=i:1,j:256");
    L3(8, 32, "block=i:8,j:32");
#undef L3
  }
  o.finish(argv[1]);
  printf("shapes: %d verified, %d failed\n", o.n_ok, o.n_fail);
  return o.n_fail ? 2 : 0;
}
