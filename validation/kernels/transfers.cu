// Host<->device copies with cudaMemcpy: pinned (cudaMallocHost) and pageable
// (malloc, touched beforehand), host->device and device->host, sizes 4 KiB *
// 4^k up to 1 GiB.  Each time is host wall time of cudaMemcpy followed by
// cudaDeviceSynchronize (the copy is complete when it returns), median of
// repeats after 2 warm-ups.  Fit t = latency + bytes/bandwidth by least squares
// on relative residuals (weights 1/t^2), per direction and memory kind.
// "pageable_cold" repeats the pageable copies with the CPU caches flushed before
// each one (a 512 MiB buffer written in between, untimed): a program copies an
// array it filled long before, or one larger than the last-level cache, from
// DRAM, while the warm series re-copies a buffer that may sit in the cache.
#include "common.cuh"

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const bool Q = quick_mode();
  const size_t maxb = Q ? ((size_t)64 << 20) : ((size_t)1 << 30);
  std::vector<size_t> sizes;
  for (size_t s = 4096; s <= maxb; s *= 4) sizes.push_back(s);
  void* dev; CK(cudaMalloc(&dev, maxb));
  CK(cudaMemset(dev, 1, maxb));
  void* pinned; CK(cudaMallocHost(&pinned, maxb));
  void* pageable = malloc(maxb);
  if (!pageable) { fprintf(stderr, "malloc failed\n"); return 1; }
  memset(pinned, 2, maxb);
  memset(pageable, 3, maxb);
  const size_t flushb = (size_t)512 << 20;
  char* flush = (char*)malloc(flushb);
  if (!flush) { fprintf(stderr, "malloc failed\n"); return 1; }
  Json j;
  j.open('{');
  j.integer("schema_version", 1);
  j.str("method", "cudaMemcpy (synchronous) + cudaDeviceSynchronize, host steady_clock wall time, median of repeats (50 for <=16 MiB, 10 for <=256 MiB, 5 above; pageable_cold 15/6/3) after 2 warm-ups; pageable = malloc'd and memset before timing; pageable_cold = the same buffer with a 512 MiB buffer written (untimed) before each copy, so the host side comes from DRAM; fit t = latency + bytes/bandwidth, least squares on relative residuals over all sizes");
  j.nums("sizes_bytes", std::vector<double>(sizes.begin(), sizes.end()));
  j.key("series");
  j.open('[');
  for (int kind = 0; kind < 3; ++kind)
    for (int dir = 0; dir < 2; ++dir) {
      void* host = kind == 0 ? pinned : pageable;
      std::vector<double> med, mn, mx;
      for (size_t s : sizes) {
        const bool cold = kind == 2;
        const int reps = Q ? 3 : cold ? (s <= (16u << 20) ? 15 : (s <= (256u << 20) ? 6 : 3))
                                      : (s <= (16u << 20) ? 50 : (s <= (256u << 20) ? 10 : 5));
        std::vector<double> t;
        for (int r = -2; r < reps; ++r) {
          if (cold) memset(flush, r & 0xff, flushb);
          double t0 = now_s();
          if (dir == 0) CK(cudaMemcpy(dev, host, s, cudaMemcpyHostToDevice));
          else CK(cudaMemcpy(host, dev, s, cudaMemcpyDeviceToHost));
          CK(cudaDeviceSynchronize());
          double dt = (now_s() - t0) * 1e6;
          if (r >= 0) t.push_back(dt);
        }
        med.push_back(median_of(t));
        mn.push_back(*std::min_element(t.begin(), t.end()));
        mx.push_back(*std::max_element(t.begin(), t.end()));
      }
      // weighted LS: minimise sum ((a + b s - t)/t)^2
      double S00 = 0, S01 = 0, S11 = 0, R0 = 0, R1 = 0;
      for (size_t k = 0; k < sizes.size(); ++k) {
        const double w = 1.0 / (med[k] * med[k]), s = (double)sizes[k];
        S00 += w; S01 += w * s; S11 += w * s * s; R0 += w * med[k]; R1 += w * s * med[k];
      }
      const double det = S00 * S11 - S01 * S01;
      const double a = (R0 * S11 - R1 * S01) / det, b = (S00 * R1 - S01 * R0) / det;  // us, us/byte
      const double bw = 1.0 / (b * 1e3);  // bytes/us -> GB/s: (1/b) bytes/us = 1/b * 1e6 B/s
      const double bw_gbps = (1.0 / b) * 1e6 / 1e9;
      (void)bw;
      const double big_gbps = sizes.back() / (med.back() * 1e-6) / 1e9;
      j.open('{');
      const char* memory = kind == 0 ? "pinned" : kind == 1 ? "pageable" : "pageable_cold";
      j.str("memory", memory);
      j.str("direction", dir == 0 ? "h2d" : "d2h");
      j.nums("time_us", med);
      j.nums("min_us", mn);
      j.nums("max_us", mx);
      j.num("latency_us", a);
      j.num("bandwidth_gbps", bw_gbps);
      j.num("largest_size_gbps", big_gbps);
      j.num("smallest_size_us", med.front());
      j.close('}');
      printf("%-8s %s: latency %.2f us, bandwidth %.2f GB/s (largest size %.2f GB/s, 4KiB %.2f us)\n",
             memory, dir == 0 ? "h2d" : "d2h", a, bw_gbps, big_gbps, med.front());
      fflush(stdout);
    }
  j.close(']');
  j.close('}');
  j.write(argv[1]);
  CK(cudaFree(dev)); CK(cudaFreeHost(pinned)); free(pageable); free(flush);
  return 0;
}
