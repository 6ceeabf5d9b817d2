// Naive transpose out[j][i] = in[i][j] (float).  parallel_for(N, N) : i, j ->
// j = threadIdx.x (reads coalesced along j, writes strided by N), i = threadIdx.y.
#include "common.cuh"

template <int BI, int BJ>
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int j = blockIdx.x * BJ + threadIdx.x;
  const int i = blockIdx.y * BI + threadIdx.y;
  if (i < n && j < n) out[(size_t)j * n + i] = in[(size_t)i * n + j];
}

struct TP {
  int n;
  float *din, *dout;
  std::vector<float> h;
  std::vector<double> ref;
  std::string size, skel;
};

template <int BI, int BJ>
void tp_case(CaseOut& out, TP& p, const char* layout) {
  dim3 block(BJ, BI), grid((p.n + BJ - 1) / BJ, (p.n + BI - 1) / BI);
  auto kf = transpose<BI, BJ>;
  auto launch = [&] { kf<<<grid, block>>>(p.din, p.dout, p.n); };
  auto check = [&] {
    poison(p.dout, p.h.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.h.data(), p.dout, p.h.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.h.data(), p.ref.data(), p.h.size());
  };
  run_case(out, "transpose", p.size, p.skel, layout, kf, grid, block, launch, check);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut out;
  struct Sz { int n; const char* size; const char* skel; };
  Sz sizes[] = {{4096, "4096x4096", "validation/skeletons/transpose_4096.skel"},
                {1024, "1024x1024", "validation/skeletons/transpose_1024.skel"}};
  int si = 0;
  for (auto& s : sizes) {
    TP p;
    p.n = s.n; p.size = s.size; p.skel = s.skel;
    const size_t nn = (size_t)s.n * s.n;
    std::vector<float> in(nn);
    fill_uniform(in, -1.f, 1.f, run_seed() + 61 + si);
    ++si;
    p.ref.resize(nn);
    for (int i = 0; i < s.n; ++i)
      for (int j = 0; j < s.n; ++j) p.ref[(size_t)j * s.n + i] = in[(size_t)i * s.n + j];
    p.h.resize(nn);
    CK(cudaMalloc(&p.din, nn * 4)); CK(cudaMalloc(&p.dout, nn * 4));
    CK(cudaMemcpy(p.din, in.data(), nn * 4, cudaMemcpyHostToDevice));
    tp_case<1, 256>(out, p, "block=i:1,j:256");
    tp_case<8, 32>(out, p, "block=i:8,j:32");
    tp_case<16, 16>(out, p, "block=i:16,j:16");
    tp_case<32, 8>(out, p, "block=i:32,j:8");
    tp_case<32, 32>(out, p, "block=i:32,j:32");
    CK(cudaFree(p.din)); CK(cudaFree(p.dout));
  }
  out.finish(argv[1]);
  printf("transpose: %d verified, %d failed\n", out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
