// MatMul C[i][j] = sum_k A[i][k] * B[k][j] (float), GROPHECY Listing 1/2.
// Loop space parallel_for(N, M) : i, j  -> j = threadIdx.x, i = threadIdx.y.
// Layout semantics (shared with the projection tool):
//   block=i:BI,j:BJ     blockDim = (BJ, BI)
//   fold=i:FI           each thread owns rows i = blockIdx.y*BI*FI + threadIdx.y + m*BI,
//                       m = 0..FI-1; the m-copies are jammed into the innermost level
//                       (B[k][j] is loaded once per k and used FI times).
//   stage=k:S cache=A,B per chunk of S k-iterations the block loads A[rows][k0:k0+S]
//                       and B[k0:k0+S][cols] into shared memory, __syncthreads(),
//                       computes, __syncthreads().
//   unroll=k:U          #pragma unroll U on the k loop (the in-stage loop when staged);
//                       without it #pragma unroll 1.
// Out-of-range rows/columns: loads clamp the index, stores are guarded; staged
// loads past K are filled with zeros.
#include "common.cuh"

template <int BI, int BJ, int FI, int U>
__global__ void mm_naive(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int N, int K, int M) {
  const int j = blockIdx.x * BJ + threadIdx.x;
  const int i0 = blockIdx.y * BI * FI + threadIdx.y;
  const int jc = min(j, M - 1);
  const float* arow[FI];
#pragma unroll
  for (int m = 0; m < FI; ++m) arow[m] = A + (size_t)min(i0 + m * BI, N - 1) * K;
  float sum[FI];
#pragma unroll
  for (int m = 0; m < FI; ++m) sum[m] = 0.f;
#pragma unroll U
  for (int k = 0; k < K; ++k) {
    const float b = B[(size_t)k * M + jc];
#pragma unroll
    for (int m = 0; m < FI; ++m) sum[m] += arow[m][k] * b;
  }
#pragma unroll
  for (int m = 0; m < FI; ++m) {
    const int i = i0 + m * BI;
    if (i < N && j < M) C[(size_t)i * M + j] = sum[m];
  }
}

template <int BI, int BJ, int FI, int S, int U>
__global__ void mm_tiled(const float* __restrict__ A, const float* __restrict__ B,
                         float* __restrict__ C, int N, int K, int M) {
  constexpr int NT = BI * BJ;
  constexpr int TR = BI * FI;  // rows of the block tile
  __shared__ float As[TR][S];
  __shared__ float Bs[S][BJ];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BJ + tx;
  const int j0 = blockIdx.x * BJ, i0 = blockIdx.y * TR;
  float sum[FI];
#pragma unroll
  for (int m = 0; m < FI; ++m) sum[m] = 0.f;
  for (int k0 = 0; k0 < K; k0 += S) {
#pragma unroll
    for (int it = 0; it < (TR * S + NT - 1) / NT; ++it) {
      const int e = tid + it * NT;
      if ((TR * S) % NT != 0 && e >= TR * S) break;
      const int r = e / S, c = e % S, gi = i0 + r, gk = k0 + c;
      As[r][c] = (gi < N && gk < K) ? A[(size_t)gi * K + gk] : 0.f;
    }
#pragma unroll
    for (int it = 0; it < (S * BJ + NT - 1) / NT; ++it) {
      const int e = tid + it * NT;
      if ((S * BJ) % NT != 0 && e >= S * BJ) break;
      const int r = e / BJ, c = e % BJ, gk = k0 + r, gj = j0 + c;
      Bs[r][c] = (gk < K && gj < M) ? B[(size_t)gk * M + gj] : 0.f;
    }
    __syncthreads();
#pragma unroll U
    for (int kk = 0; kk < S; ++kk) {
      const float b = Bs[kk][tx];
#pragma unroll
      for (int m = 0; m < FI; ++m) sum[m] += As[ty + m * BI][kk] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < FI; ++m) {
    const int i = i0 + ty + m * BI, j = j0 + tx;
    if (i < N && j < M) C[(size_t)i * M + j] = sum[m];
  }
}

struct MM {
  int N, K, M;
  float *dA, *dB, *dC;
  std::vector<float> hC;
  std::vector<double> ref;
  std::string size, skel;
};

template <int BI, int BJ, int FI, int U>
void naive_case(CaseOut& out, MM& p, const char* layout) {
  dim3 block(BJ, BI), grid((p.M + BJ - 1) / BJ, (p.N + BI * FI - 1) / (BI * FI));
  auto launch = [&] { mm_naive<BI, BJ, FI, U><<<grid, block>>>(p.dA, p.dB, p.dC, p.N, p.K, p.M); };
  auto check = [&] {
    poison(p.dC, p.hC.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.hC.data(), p.dC, p.hC.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.hC.data(), p.ref.data(), p.hC.size());
  };
  run_case(out, "matmul", p.size, p.skel, layout, mm_naive<BI, BJ, FI, U>, grid, block, launch, check);
}

template <int BI, int BJ, int FI, int S, int U>
void tiled_case(CaseOut& out, MM& p, const char* layout) {
  dim3 block(BJ, BI), grid((p.M + BJ - 1) / BJ, (p.N + BI * FI - 1) / (BI * FI));
  auto launch = [&] { mm_tiled<BI, BJ, FI, S, U><<<grid, block>>>(p.dA, p.dB, p.dC, p.N, p.K, p.M); };
  auto check = [&] {
    poison(p.dC, p.hC.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.hC.data(), p.dC, p.hC.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.hC.data(), p.ref.data(), p.hC.size());
  };
  run_case(out, "matmul", p.size, p.skel, layout, mm_tiled<BI, BJ, FI, S, U>, grid, block, launch, check);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut out;
  struct Sz { int N, K, M; const char* size; const char* skel; };
  Sz sizes[] = {{800, 400, 800, "800x400x800", "validation/skeletons/matmul_800.skel"},
                {2048, 2048, 2048, "2048x2048x2048", "validation/skeletons/matmul_2048.skel"}};
  int si = 0;
  for (auto& s : sizes) {
    MM p;
    p.N = s.N; p.K = s.K; p.M = s.M; p.size = s.size; p.skel = s.skel;
    std::vector<float> A((size_t)s.N * s.K), B((size_t)s.K * s.M);
    fill_uniform(A, -1.f, 1.f, run_seed() + 11 + si);
    fill_uniform(B, -1.f, 1.f, run_seed() + 12 + si);
    ++si;
    p.ref.assign((size_t)s.N * s.M, 0.0);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < s.N; ++i) {
      double* c = &p.ref[(size_t)i * s.M];
      for (int k = 0; k < s.K; ++k) {
        const double a = A[(size_t)i * s.K + k];
        const float* b = &B[(size_t)k * s.M];
        for (int j = 0; j < s.M; ++j) c[j] += a * b[j];
      }
    }
    p.hC.resize((size_t)s.N * s.M);
    CK(cudaMalloc(&p.dA, A.size() * 4));
    CK(cudaMalloc(&p.dB, B.size() * 4));
    CK(cudaMalloc(&p.dC, p.hC.size() * 4));
    CK(cudaMemcpy(p.dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));

    naive_case<16, 16, 1, 1>(out, p, "block=i:16,j:16");
    naive_case<8, 32, 1, 1>(out, p, "block=i:8,j:32");
    naive_case<32, 32, 1, 1>(out, p, "block=i:32,j:32");
    naive_case<4, 64, 1, 1>(out, p, "block=i:4,j:64");
    naive_case<16, 16, 1, 4>(out, p, "block=i:16,j:16 unroll=k:4");
    tiled_case<16, 16, 1, 16, 1>(out, p, "block=i:16,j:16 stage=k:16 cache=A,B");
    tiled_case<16, 16, 1, 16, 16>(out, p, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
    tiled_case<32, 32, 1, 32, 32>(out, p, "block=i:32,j:32 stage=k:32 cache=A,B unroll=k:32");
    naive_case<16, 16, 2, 1>(out, p, "block=i:16,j:16 fold=i:2");
    naive_case<8, 32, 4, 1>(out, p, "block=i:8,j:32 fold=i:4");
    tiled_case<16, 16, 4, 16, 16>(out, p, "block=i:16,j:16 fold=i:4 stage=k:16 cache=A,B unroll=k:16");

    CK(cudaFree(p.dA)); CK(cudaFree(p.dB)); CK(cudaFree(p.dC));
  }
  out.finish(argv[1]);
  printf("matmul: %d verified, %d failed\n", out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
