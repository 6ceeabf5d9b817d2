// A whole naive HotSpot program: pageable (malloc) and then pinned
// (cudaMallocHost) host arrays, H2D of t and power,
// `steps` time steps of the one-step kernel (layout block=i:16,j:16) with
// ping-pong device buffers, D2H of the result.  Each phase is timed
// separately (host wall time around cudaMemcpy + sync; CUDA events around the
// kernel loop) and the total wall time H2D..D2H (cudaMalloc excluded, reported
// once separately).  Median of 5 repeats; the result is checked against a
// double CPU reference after the same number of steps.
#include "hotspot_kernels.cuh"

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const bool Q = quick_mode();
  Json j;
  j.open('{');
  j.str("program", "hotspot_steps");
  j.str("layout", "block=i:16,j:16");
  j.str("method", "host buffers pageable (malloc) or pinned (cudaMallocHost), case field host_memory; h2d_t/h2d_power/d2h: host wall time of cudaMemcpy + cudaDeviceSynchronize; kernels_ms: CUDA events around all steps (back-to-back launches, ping-pong buffers); total_ms: host wall time from the first H2D to the end of the D2H; medians of 11 repeats (5 before run 5); cudaMalloc/cudaFree not included (malloc_ms reported once per size)");
  j.key("cases");
  j.open('[');
  const int ns[] = {1024, 4096};
  const int steps_list[] = {1, 10, 100};
  for (int N : ns) {
    const size_t n = (size_t)N * N, B = n * 4;
    std::vector<float> tv(n), pv(n);
    fill_uniform(tv, 0.5f, 1.5f, run_seed() + 81 + N);
    fill_uniform(pv, 0.01f, 1.0f, run_seed() + 82 + N);
    // references after 1, 10, 100 steps
    std::vector<double> r0(tv.begin(), tv.end()), r1(n), pd(pv.begin(), pv.end());
    std::vector<std::vector<double>> refs;
    for (int s = 1; s <= 100; ++s) {
      hs_ref_step(r0.data(), pd.data(), r1.data(), N, N, hs_coef());
      std::swap(r0, r1);
      if (s == 1 || s == 10 || s == 100) refs.push_back(r0);
    }
    double m0 = now_s();
    float *d0, *d1, *dp;
    CK(cudaMalloc(&d0, B)); CK(cudaMalloc(&d1, B)); CK(cudaMalloc(&dp, B));
    CK(cudaDeviceSynchronize());
    const double malloc_ms = (now_s() - m0) * 1e3;
    const dim3 blk(16, 16), grd(N / 16, N / 16);
    cudaEvent_t ea, eb; CK(cudaEventCreate(&ea)); CK(cudaEventCreate(&eb));
    // warm-up (module load etc.)
    hs_naive<16, 16, 1><<<grd, blk>>>(d0, dp, d1, N, N, hs_coef()); CKL();
    CK(cudaDeviceSynchronize());
    for (int pinned = 0; pinned < 2; ++pinned) {
    float *t, *pw, *res;
    if (pinned) {
      CK(cudaMallocHost(&t, B)); CK(cudaMallocHost(&pw, B)); CK(cudaMallocHost(&res, B));
    } else {
      t = (float*)malloc(B); pw = (float*)malloc(B); res = (float*)malloc(B);
      if (!t || !pw || !res) { fprintf(stderr, "malloc failed\n"); return 1; }
    }
    memcpy(t, tv.data(), B); memcpy(pw, pv.data(), B); memset(res, 0, B);
    for (int si = 0; si < 3; ++si) {
      const int steps = steps_list[si];
      std::vector<double> th, tp, tk, td, tt, tkw;
      double err = NAN;
      const int reps = Q ? 2 : 11;
      for (int r = 0; r < reps; ++r) {
        poison(d0, B); poison(d1, B);
        CK(cudaDeviceSynchronize());
        const double t0 = now_s();
        CK(cudaMemcpy(d0, t, B, cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
        const double t1 = now_s();
        CK(cudaMemcpy(dp, pw, B, cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
        const double t2 = now_s();
        CK(cudaEventRecord(ea));
        float* src = d0; float* dst = d1;
        for (int s = 0; s < steps; ++s) {
          hs_naive<16, 16, 1><<<grd, blk>>>(src, dp, dst, N, N, hs_coef());
          std::swap(src, dst);
        }
        CK(cudaEventRecord(eb));
        CK(cudaEventSynchronize(eb)); CKL();
        const double t3 = now_s();
        CK(cudaMemcpy(res, src, B, cudaMemcpyDeviceToHost)); CK(cudaDeviceSynchronize());
        const double t4 = now_s();
        float kms; CK(cudaEventElapsedTime(&kms, ea, eb));
        th.push_back((t1 - t0) * 1e3); tp.push_back((t2 - t1) * 1e3); tk.push_back(kms);
        tkw.push_back((t3 - t2) * 1e3); td.push_back((t4 - t3) * 1e3); tt.push_back((t4 - t0) * 1e3);
        if (r == 0) err = rel_error(res, refs[si].data(), n);
      }
      const bool ok = error_ok(err);
      j.open('{');
      j.integer("n", N);
      j.str("size", std::to_string(N) + "x" + std::to_string(N));
      j.integer("steps", steps);
      j.str("host_memory", pinned ? "pinned" : "pageable");
      j.str("skeleton", std::string("validation/skeletons/hotspot_") + std::to_string(N) + ".skel");
      if (ok) {
        j.num("h2d_t_ms", median_of(th));
        j.num("h2d_power_ms", median_of(tp));
        j.num("kernels_ms", median_of(tk));
        j.num("kernels_host_wall_ms", median_of(tkw));
        j.num("d2h_ms", median_of(td));
        j.num("total_ms", median_of(tt));
        j.num("total_min_ms", *std::min_element(tt.begin(), tt.end()));
        j.num("total_max_ms", *std::max_element(tt.begin(), tt.end()));
        j.integer("repeats", reps);
      }
      j.num("malloc_ms", malloc_ms);
      j.num("rel_error", err);
      j.boolean("verified", ok);
      j.close('}');
      printf("hotspot_steps %s %dx%d steps=%3d %s h2d_t %.3f h2d_p %.3f kern %.3f d2h %.3f total %.3f ms err %.2e\n",
             pinned ? "pinned  " : "pageable", N, N, steps, ok ? "OK  " : "FAIL", median_of(th), median_of(tp), median_of(tk), median_of(td),
             median_of(tt), err);
      fflush(stdout);
    }
    if (pinned) {
      CK(cudaFreeHost(t)); CK(cudaFreeHost(pw)); CK(cudaFreeHost(res));
    } else {
      free(t); free(pw); free(res);
    }
    }
    CK(cudaFree(d0)); CK(cudaFree(d1)); CK(cudaFree(dp));
    CK(cudaEventDestroy(ea)); CK(cudaEventDestroy(eb));
  }
  j.close(']');
  j.close('}');
  j.write(argv[1]);
  return 0;
}
