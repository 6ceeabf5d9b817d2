// SpinFlap (GROPHECY Listing 6): irregular exchange inside groups of 4 columns.
//   parallel_for(ROWS, COLS/4) : j, i
//     for n = 0:4 { c = M[i][n]; a = A[j][c]; b = B[j][c]; ~56 flops }   (4-point
//                   DFT accumulated with running twiddles)
//     ~210-228 flops: five scaled 4-point butterfly rounds with twiddles
//     for n = 0:4 { C[j][M[i][n]] = s_n }
// M[i][n] = 4i + perm[(i+n)%4] (each group of 4 consecutive columns permuted).
// A, B, C complex (float2).  i = threadIdx.x, j = threadIdx.y.
//   unroll=n:4 unrolls both n loops (#pragma unroll 4); otherwise #pragma unroll 1.
//   Without unrolling, the second n loop picks s_n by selects (no local-memory array)
//   and re-reads M[i][n].
#include "common.cuh"

constexpr int ROWS = 132;
static const int PERM[4] = {2, 0, 3, 1};

template <typename R> struct cx { R x, y; };
template <typename R> __host__ __device__ __forceinline__ cx<R> cmul(cx<R> a, cx<R> b) {
  return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <typename R> __host__ __device__ __forceinline__ cx<R> cadd(cx<R> a, cx<R> b) { return {a.x + b.x, a.y + b.y}; }
template <typename R> __host__ __device__ __forceinline__ cx<R> csub(cx<R> a, cx<R> b) { return {a.x - b.x, a.y - b.y}; }

template <typename R> struct SFState {
  cx<R> s0, s1, s2, s3, rot, tw1, tw2, tw3;
  __host__ __device__ void init() {
    s0 = s1 = s2 = s3 = {R(0), R(0)};
    rot = tw1 = tw2 = tw3 = {R(1), R(0)};
  }
  // per-n combination of a and b (about 56 flops)
  __host__ __device__ __forceinline__ void first(cx<R> a, cx<R> b) {
    const cx<R> W8 = {R(0.92387953251128674), R(0.38268343236508978)};
    const cx<R> p = cmul(a, b);
    const cx<R> q = cmul(a, cx<R>{b.x, -b.y});
    const cx<R> r = cmul(p, rot);
    const cx<R> x = {r.x + R(0.5) * q.x, r.y + R(0.5) * q.y};
    rot = cmul(rot, W8);
    s0 = cadd(s0, x);
    s1 = cadd(s1, cmul(x, tw1));
    s2 = cadd(s2, cmul(x, tw2));
    s3 = cadd(s3, cmul(x, tw3));
    tw1 = {tw1.y, -tw1.x};   // * (-i)
    tw2 = {-tw2.x, -tw2.y};  // * (-1)
    tw3 = {-tw3.y, tw3.x};   // * (+i)
  }
  // the middle part (about 210 flops): 5 scaled butterfly rounds with twiddles
  __host__ __device__ __forceinline__ void middle() {
    const R h = R(0.5);
    const cx<R> Wa = {R(0.8), R(0.6)}, Wb = {R(0.6), R(-0.8)}, Wc = {R(-0.28), R(0.96)};
#pragma unroll
    for (int rr = 0; rr < 5; ++rr) {
      const cx<R> u0 = cadd(s0, s2), u1 = csub(s0, s2), u2 = cadd(s1, s3), u3 = csub(s1, s3);
      s0 = {h * (u0.x + u2.x), h * (u0.y + u2.y)};
      s2 = {h * (u0.x - u2.x), h * (u0.y - u2.y)};
      s1 = {h * (u1.x + u3.y), h * (u1.y - u3.x)};
      s3 = {h * (u1.x - u3.y), h * (u1.y + u3.x)};
      s1 = cmul(s1, Wa);
      s2 = cmul(s2, Wb);
      s3 = cmul(s3, Wc);
    }
  }
  __host__ __device__ __forceinline__ cx<R> pick(int n) const {
    return n == 0 ? s0 : n == 1 ? s1 : n == 2 ? s2 : s3;
  }
};

template <int BJ, int BI, int U>
__global__ void spinflap(const int* __restrict__ M, const float2* __restrict__ A,
                         const float2* __restrict__ B, float2* __restrict__ C, int cols) {
  const int i = blockIdx.x * BI + threadIdx.x;
  const int j = blockIdx.y * BJ + threadIdx.y;
  if (i >= cols / 4 || j >= ROWS) return;
  SFState<float> st;
  st.init();
  const size_t row = (size_t)j * cols;
#pragma unroll U
  for (int n = 0; n < 4; ++n) {
    const int c = M[i * 4 + n];
    const float2 a = A[row + c], b = B[row + c];
    st.first(cx<float>{a.x, a.y}, cx<float>{b.x, b.y});
  }
  st.middle();
#pragma unroll U
  for (int n = 0; n < 4; ++n) {
    const int c = M[i * 4 + n];
    const cx<float> y = st.pick(n);
    C[row + c] = make_float2(y.x, y.y);
  }
}

struct SF {
  int cols;
  int* dM;
  float2 *dA, *dB, *dC;
  std::vector<float> hC;
  std::vector<double> ref;
  std::string size, skel;
};

template <int BJ, int BI, int U>
void sf_case(CaseOut& out, SF& p, const char* layout) {
  dim3 block(BI, BJ), grid((p.cols / 4 + BI - 1) / BI, (ROWS + BJ - 1) / BJ);
  auto kf = spinflap<BJ, BI, U>;
  auto launch = [&] { kf<<<grid, block>>>(p.dM, p.dA, p.dB, p.dC, p.cols); };
  auto check = [&] {
    poison(p.dC, p.hC.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.hC.data(), p.dC, p.hC.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.hC.data(), p.ref.data(), p.hC.size());
  };
  run_case(out, "spinflap", p.size, p.skel, layout, kf, grid, block, launch, check);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut out;
  struct Sz { int cols; const char* size; const char* skel; };
  Sz sizes[] = {{2048, "132x2048", "validation/skeletons/spinflap_2048.skel"},
                {65536, "132x65536", "validation/skeletons/spinflap_65536.skel"}};
  int si = 0;
  for (auto& s : sizes) {
    SF p;
    p.cols = s.cols; p.size = s.size; p.skel = s.skel;
    const int G = s.cols / 4;
    std::vector<int> M((size_t)G * 4);
    for (int i = 0; i < G; ++i)
      for (int n = 0; n < 4; ++n) M[i * 4 + n] = 4 * i + PERM[(i + n) % 4];
    const size_t nf = (size_t)ROWS * s.cols * 2;
    std::vector<float> A(nf), B(nf);
    fill_uniform(A, -1.f, 1.f, run_seed() + 41 + si);
    fill_uniform(B, -1.f, 1.f, run_seed() + 42 + si);
    ++si;
    p.ref.assign(nf, NAN);
#pragma omp parallel for schedule(static)
    for (int j = 0; j < ROWS; ++j)
      for (int i = 0; i < G; ++i) {
        SFState<double> st;
        st.init();
        const size_t row = (size_t)j * s.cols;
        for (int n = 0; n < 4; ++n) {
          const size_t c = row + M[i * 4 + n];
          st.first(cx<double>{A[2 * c], A[2 * c + 1]}, cx<double>{B[2 * c], B[2 * c + 1]});
        }
        st.middle();
        for (int n = 0; n < 4; ++n) {
          const size_t c = row + M[i * 4 + n];
          const cx<double> y = st.pick(n);
          p.ref[2 * c] = y.x;
          p.ref[2 * c + 1] = y.y;
        }
      }
    p.hC.resize(nf);
    CK(cudaMalloc(&p.dM, M.size() * 4));
    CK(cudaMalloc(&p.dA, nf * 4)); CK(cudaMalloc(&p.dB, nf * 4)); CK(cudaMalloc(&p.dC, nf * 4));
    CK(cudaMemcpy(p.dM, M.data(), M.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dA, A.data(), nf * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dB, B.data(), nf * 4, cudaMemcpyHostToDevice));

    sf_case<1, 64, 1>(out, p, "block=j:1,i:64");
    sf_case<1, 128, 1>(out, p, "block=j:1,i:128");
    sf_case<1, 256, 1>(out, p, "block=j:1,i:256");
    sf_case<4, 64, 1>(out, p, "block=j:4,i:64");
    sf_case<1, 128, 4>(out, p, "block=j:1,i:128 unroll=n:4");

    CK(cudaFree(p.dM)); CK(cudaFree(p.dA)); CK(cudaFree(p.dB)); CK(cudaFree(p.dC));
  }
  out.finish(argv[1]);
  printf("spinflap: %d verified, %d failed\n", out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
