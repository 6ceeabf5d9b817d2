// HotSpot one-step kernel cases (see hotspot_kernels.cuh for the layouts).
#include "hotspot_kernels.cuh"

struct HS {
  int R, C;
  float *dt, *dp, *dout;
  std::vector<float> hout;
  std::vector<double> ref;
  std::string size, skel;
};

template <int BI, int BJ, int FI, bool CACHED>
void hs_case(CaseOut& out, HS& p, const char* layout) {
  dim3 block(BJ, BI), grid((p.C + BJ - 1) / BJ, (p.R + BI * FI - 1) / (BI * FI));
  void (*kf)(const float*, const float*, float*, int, int, HsCoef);
  if constexpr (CACHED) kf = hs_cached<BI, BJ, FI>; else kf = hs_naive<BI, BJ, FI>;
  HsCoef k = hs_coef();
  auto launch = [&] { kf<<<grid, block>>>(p.dt, p.dp, p.dout, p.R, p.C, k); };
  auto check = [&] {
    poison(p.dout, p.hout.size() * 4);
    launch(); CKL();
    CK(cudaMemcpy(p.hout.data(), p.dout, p.hout.size() * 4, cudaMemcpyDeviceToHost));
    return rel_error(p.hout.data(), p.ref.data(), p.hout.size());
  };
  run_case(out, "hotspot", p.size, p.skel, layout, kf, grid, block, launch, check);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  CaseOut out;
  struct Sz { int n; const char* size; const char* skel; };
  Sz sizes[] = {{512, "512x512", "validation/skeletons/hotspot_512.skel"},
                {4096, "4096x4096", "validation/skeletons/hotspot_4096.skel"}};
  int si = 0;
  for (auto& s : sizes) {
    HS p;
    p.R = p.C = s.n; p.size = s.size; p.skel = s.skel;
    size_t n = (size_t)s.n * s.n;
    std::vector<float> t(n), pw(n);
    fill_uniform(t, 0.5f, 1.5f, run_seed() + 21 + si);
    fill_uniform(pw, 0.01f, 1.0f, run_seed() + 22 + si);
    ++si;
    std::vector<double> td(t.begin(), t.end()), pd(pw.begin(), pw.end());
    p.ref.resize(n);
    hs_ref_step(td.data(), pd.data(), p.ref.data(), p.R, p.C, hs_coef());
    p.hout.resize(n);
    CK(cudaMalloc(&p.dt, n * 4)); CK(cudaMalloc(&p.dp, n * 4)); CK(cudaMalloc(&p.dout, n * 4));
    CK(cudaMemcpy(p.dt, t.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(p.dp, pw.data(), n * 4, cudaMemcpyHostToDevice));

    hs_case<16, 16, 1, false>(out, p, "block=i:16,j:16");
    hs_case<8, 32, 1, false>(out, p, "block=i:8,j:32");
    hs_case<4, 64, 1, false>(out, p, "block=i:4,j:64");
    hs_case<1, 256, 1, false>(out, p, "block=i:1,j:256");
    hs_case<16, 16, 1, true>(out, p, "block=i:16,j:16 cache=t");
    hs_case<16, 16, 2, false>(out, p, "block=i:16,j:16 fold=i:2");
    hs_case<16, 16, 4, true>(out, p, "block=i:16,j:16 fold=i:4 cache=t");

    CK(cudaFree(p.dt)); CK(cudaFree(p.dp)); CK(cudaFree(p.dout));
  }
  out.finish(argv[1]);
  printf("hotspot: %d verified, %d failed\n", out.n_ok, out.n_fail);
  return out.n_fail ? 2 : 0;
}
