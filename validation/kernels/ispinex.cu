// IspinEx (GROPHECY Listings 4 and 5): sparse (CSR-like) times dense.
//   C[j][i] = sum_{n=J[j]}^{J[j+1]-1} T[n] * B[I[n]][i]
// J[ROWS+1] row pointers, I[ELEMS] column indices (rows of B), T[ELEMS] values.
// Complex form: B and C are complex (float2, one 8-byte access per element
// instead of the skeleton's two 4-byte ones); real form: float.
// ROWS=132, ELEMS=1848 (14 per row, deterministic pseudo-random sorted columns).
// Loop space parallel_for(ROWS, COLS) : j, i -> i = threadIdx.x, j = threadIdx.y.
//   fold=i:F   columns i = blockIdx.x*BI*F + threadIdx.x + m*BI (m jammed: T[n], I[n]
//              loaded once per n, F loads of B)
//   unroll=n:U #pragma unroll U on the data-dependent n loop (runtime trip count:
//              the compiler adds a remainder loop); otherwise #pragma unroll 1.
#include "common.cuh"

constexpr int ROWS = 132, NNZ_ROW = 14, ELEMS = ROWS * NNZ_ROW;

template <typename V> struct VOps;
template <> struct VOps<float> {
  __host__ __device__ static float zero() { return 0.f; }
  __device__ static void fma(float& s, float t, float b) { s += t * b; }
};
template <> struct VOps<float2> {
  __host__ __device__ static float2 zero() { return make_float2(0.f, 0.f); }
  __device__ static void fma(float2& s, float t, float2 b) { s.x += t * b.x; s.y += t * b.y; }
};

template <int BJ, int BI, int FI, int U, typename V>
__global__ void ispinex(const int* __restrict__ J, const int* __restrict__ I,
                        const float* __restrict__ T, const V* __restrict__ B,
                        V* __restrict__ C, int cols) {
  const int j = blockIdx.y * BJ + threadIdx.y;
  if (j >= ROWS) return;
  const int i0 = blockIdx.x * BI * FI + threadIdx.x;
  int ic[FI];
  V sum[FI];
#pragma unroll
  for (int m = 0; m < FI; ++m) { ic[m] = min(i0 + m * BI, cols - 1); sum[m] = VOps<V>::zero(); }
  const int begin = J[j], end = J[j + 1];
#pragma unroll U
  for (int n = begin; n < end; ++n) {
    const float t = T[n];
    const int r = I[n];
#pragma unroll
    for (int m = 0; m < FI; ++m) VOps<V>::fma(sum[m], t, B[(size_t)r * cols + ic[m]]);
  }
#pragma unroll
  for (int m = 0; m < FI; ++m) {
    const int i = i0 + m * BI;
    if (i < cols) C[(size_t)j * cols + i] = sum[m];
  }
}

struct ISP {
  int cols;
  bool cplx;
  int *dJ, *dI;
  float* dT;
  void *dB, *dC;
  std::vector<float> hC;
  std::vector<double> ref;
  std::string kernel, size, skel;
};

template <int BJ, int BI, int FI, int U, typename V>
void isp_case(CaseOut& out, ISP& p, const char* layout) {
  dim3 block(BI, BJ), grid((p.cols + BI * FI - 1) / (BI * FI), (ROWS + BJ - 1) / BJ);
  auto kf = ispinex<BJ, BI, FI, U, V>;
  auto launch = [&] { kf<<<grid, block>>>(p.dJ, p.dI, p.dT, (const V*)p.dB, (V*)p.dC, p.cols); };
  auto check = [&] {
    poison(p.dC, p.hC.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.hC.data(), p.dC, p.hC.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.hC.data(), p.ref.data(), p.hC.size());
  };
  run_case(out, p.kernel, p.size, p.skel, layout, kf, grid, block, launch, check);
}

template <typename V>
void all_layouts(CaseOut& out, ISP& p) {
  isp_case<1, 64, 1, 1, V>(out, p, "block=j:1,i:64");
  isp_case<1, 128, 1, 1, V>(out, p, "block=j:1,i:128");
  isp_case<1, 256, 1, 1, V>(out, p, "block=j:1,i:256");
  isp_case<2, 128, 1, 1, V>(out, p, "block=j:2,i:128");
  isp_case<1, 256, 2, 1, V>(out, p, "block=j:1,i:256 fold=i:2");
  isp_case<1, 128, 1, 2, V>(out, p, "block=j:1,i:128 unroll=n:2");
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut out;
  // Sparsity structure: fixed seed (deterministic), 14 distinct sorted columns per row.
  std::vector<int> J(ROWS + 1), I(ELEMS);
  {
    std::mt19937 g(20111112u);
    for (int r = 0; r < ROWS; ++r) {
      std::vector<int> cols(ROWS);
      for (int c = 0; c < ROWS; ++c) cols[c] = c;
      std::shuffle(cols.begin(), cols.end(), g);
      std::sort(cols.begin(), cols.begin() + NNZ_ROW);
      J[r] = r * NNZ_ROW;
      for (int q = 0; q < NNZ_ROW; ++q) I[r * NNZ_ROW + q] = cols[q];
    }
    J[ROWS] = ELEMS;
  }
  struct Sz { bool cplx; int cols; const char* kernel; const char* size; const char* skel; };
  Sz sizes[] = {
      {true, 2048, "ispinex_complex", "132x2048", "validation/skeletons/ispinex_complex_2048.skel"},
      {true, 65536, "ispinex_complex", "132x65536", "validation/skeletons/ispinex_complex_65536.skel"},
      {false, 4096, "ispinex_real", "132x4096", "validation/skeletons/ispinex_real_4096.skel"},
      {false, 65536, "ispinex_real", "132x65536", "validation/skeletons/ispinex_real_65536.skel"}};
  int si = 0;
  for (auto& s : sizes) {
    ISP p;
    p.cols = s.cols; p.cplx = s.cplx; p.kernel = s.kernel; p.size = s.size; p.skel = s.skel;
    const int w = s.cplx ? 2 : 1;  // floats per element
    std::vector<float> T(ELEMS), B((size_t)ROWS * s.cols * w);
    fill_uniform(T, -1.f, 1.f, run_seed() + 31 + si);
    fill_uniform(B, -1.f, 1.f, run_seed() + 32 + si);
    ++si;
    p.ref.assign((size_t)ROWS * s.cols * w, 0.0);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < ROWS; ++j)
      for (int n = J[j]; n < J[j + 1]; ++n)
        for (size_t x = 0; x < (size_t)s.cols * w; ++x)
          p.ref[(size_t)j * s.cols * w + x] += (double)T[n] * B[(size_t)I[n] * s.cols * w + x];
    p.hC.resize(p.ref.size());
    CK(cudaMalloc(&p.dJ, J.size() * 4)); CK(cudaMalloc(&p.dI, I.size() * 4));
    CK(cudaMalloc(&p.dT, T.size() * 4)); CK(cudaMalloc(&p.dB, B.size() * 4));
    CK(cudaMalloc(&p.dC, p.hC.size() * 4));
    CK(cudaMemcpy(p.dJ, J.data(), J.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dI, I.data(), I.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dT, T.data(), T.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    if (s.cplx) all_layouts<float2>(out, p); else all_layouts<float>(out, p);
    CK(cudaFree(p.dJ)); CK(cudaFree(p.dI)); CK(cudaFree(p.dT)); CK(cudaFree(p.dB)); CK(cudaFree(p.dC));
  }
  out.finish(argv[1]);
  printf("ispinex: %d verified, %d failed\n", out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
