// Does a pageable copy take the time transfers.cu measures when a program makes
// it?  transfers.cu copies one buffer back to back; a program (hotspot_steps.cu)
// copies each of its arrays once per run, between other copies and GPU work.
// Part 1 times the copies of HotSpot's arrays (t, power in; the result out; 4 MiB
// and 64 MiB each) in five contexts, the contexts taking turns round by round:
//   program  hotspot_steps.cu's sequence: poison the device buffers, t and power
//            to the GPU, one HotSpot step, the result back
//   copies   the same three copies, nothing in between
//   hot      each copy made twice in a row, the second one timed
//   cold     a 512 MiB host buffer written before each copy
//   idle     1 ms of sleep before each copy
// Part 2 ("sequence") times every size of transfers.cu, 4 KiB to 1 GiB, in the
// copies context with device memsets standing for the GPU work: per repeat two
// buffers to the GPU and a third back, each a malloc of the size, filled.
// Host wall time of cudaMemcpy + cudaDeviceSynchronize; medians.
#include <unistd.h>
#include "hotspot_kernels.cuh"

static double timed_copy(void* dst, const void* src, size_t b, cudaMemcpyKind k) {
  const double t0 = now_s();
  CK(cudaMemcpy(dst, src, b, k));
  CK(cudaDeviceSynchronize());
  return (now_s() - t0) * 1e3;
}

static void* filled(size_t b, int v) {
  void* p = malloc(b);
  if (!p) { fprintf(stderr, "malloc failed\n"); exit(1); }
  memset(p, v, b);
  return p;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const bool Q = quick_mode();
  const char* ctx[] = {"program", "copies", "hot", "cold", "idle"};
  const int nctx = 5, rounds = Q ? 2 : 15;
  const size_t flushb = (size_t)512 << 20;
  char* flush = (char*)filled(flushb, 1);
  Json j;
  j.open('{');
  j.integer("schema_version", 1);
  j.str("method", "host wall time of cudaMemcpy + cudaDeviceSynchronize (ms); part 1: contexts take turns, one pass of each per round, h2d pools t and power; part 2: per repeat two buffers h2d and a third d2h, device memsets before, medians of repeats (21 up to 16 MiB, 9 up to 256 MiB, 5 above) after 2 warm-up repeats");
  j.key("contexts");
  j.open('[');
  for (int N : {1024, 4096}) {
    const size_t B = (size_t)N * N * 4;
    float* t = (float*)filled(B, 0x3f);
    float* pw = (float*)filled(B, 0x3e);
    float* res = (float*)filled(B, 0);
    float *d0, *d1, *dp;
    CK(cudaMalloc(&d0, B)); CK(cudaMalloc(&d1, B)); CK(cudaMalloc(&dp, B));
    const dim3 blk(16, 16), grd(N / 16, N / 16);
    std::vector<std::vector<double>> h2d(nctx), d2h(nctx);
    for (int r = 0; r < rounds; ++r)
      for (int q = 0; q < nctx; ++q) {
        const int c = (q + r) % nctx;  // the contexts take turns at going first
        auto before = [&] {
          if (c == 3) memset(flush, r & 0xff, flushb);
          if (c == 4) usleep(1000);
        };
        auto copy = [&](void* dst, const void* src, cudaMemcpyKind k) {
          if (c == 2) timed_copy(dst, src, B, k);
          before();
          return timed_copy(dst, src, B, k);
        };
        if (c == 0) { poison(d0, B); poison(d1, B); CK(cudaDeviceSynchronize()); }
        h2d[c].push_back(copy(d0, t, cudaMemcpyHostToDevice));
        h2d[c].push_back(copy(dp, pw, cudaMemcpyHostToDevice));
        if (c == 0) {
          hs_naive<16, 16, 1><<<grd, blk>>>(d0, dp, d1, N, N, hs_coef()); CKL();
          CK(cudaDeviceSynchronize());
        }
        d2h[c].push_back(copy(res, c == 0 ? d1 : d0, cudaMemcpyDeviceToHost));
      }
    for (int c = 0; c < nctx; ++c) {
      j.open('{');
      j.integer("bytes", (long long)B);
      j.str("context", ctx[c]);
      j.num("h2d_ms", median_of(h2d[c]));
      j.num("d2h_ms", median_of(d2h[c]));
      j.nums("h2d_samples_ms", h2d[c]);
      j.nums("d2h_samples_ms", d2h[c]);
      j.close('}');
      printf("context %-8s %3zu MiB  h2d %8.3f ms  d2h %8.3f ms\n", ctx[c], B >> 20, median_of(h2d[c]),
             median_of(d2h[c]));
    }
    fflush(stdout);
    free(t); free(pw); free(res);
    CK(cudaFree(d0)); CK(cudaFree(d1)); CK(cudaFree(dp));
  }
  j.close(']');
  // Part 2: the sizes of transfers.cu in the copies context.
  const size_t maxb = Q ? ((size_t)64 << 20) : ((size_t)1 << 30);
  std::vector<double> sizes, h2d_med, d2h_med;
  for (size_t s = 4096; s <= maxb; s *= 4) {
    void* a = filled(s, 1); void* b = filled(s, 2); void* o = filled(s, 0);
    void *da, *db, *dout;
    CK(cudaMalloc(&da, s)); CK(cudaMalloc(&db, s)); CK(cudaMalloc(&dout, s));
    const int reps = Q ? 3 : (s <= (16u << 20) ? 21 : (s <= (256u << 20) ? 9 : 5));
    std::vector<double> th, td;
    for (int r = -2; r < reps; ++r) {
      CK(cudaMemset(da, 0xff, s)); CK(cudaMemset(db, 0xff, s)); CK(cudaDeviceSynchronize());
      const double x = timed_copy(da, a, s, cudaMemcpyHostToDevice);
      const double y = timed_copy(db, b, s, cudaMemcpyHostToDevice);
      CK(cudaMemset(dout, r & 0xff, s)); CK(cudaDeviceSynchronize());
      const double z = timed_copy(o, dout, s, cudaMemcpyDeviceToHost);
      if (r >= 0) { th.push_back(x); th.push_back(y); td.push_back(z); }
    }
    sizes.push_back((double)s);
    h2d_med.push_back(median_of(th));
    d2h_med.push_back(median_of(td));
    printf("sequence %10zu B  h2d %9.4f ms  d2h %9.4f ms\n", s, h2d_med.back(), d2h_med.back());
    fflush(stdout);
    free(a); free(b); free(o);
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dout));
  }
  j.key("sequence");
  j.open('{');
  j.nums("sizes_bytes", sizes);
  j.nums("h2d_ms", h2d_med);
  j.nums("d2h_ms", d2h_med);
  j.close('}');
  j.close('}');
  j.write(argv[1]);
  free(flush);
  return 0;
}
