// Why do pageable copies of the same size take different times?  A diagnostic
// for docs/validation.md ("Pageable copies"): the same cudaMemcpy of 1, 4, 16
// and 64 MiB, host->device and device->host, from host memory prepared five
// ways, measured in rounds that cycle through every configuration, so that a
// drift of the machine over the run shows in every configuration alike:
//   slice      the first bytes of one 1 GiB malloc, memset once (transfers.cu's
//              pageable series)
//   own        a malloc of exactly the size, filled by memcpy from a vector
//              (how hotspot_steps.cu and a ported program hold an array)
//   own_huge   as own, madvise(MADV_HUGEPAGE) before the first touch
//   own_small  as own, madvise(MADV_NOHUGEPAGE) before the first touch
//   fresh      a new malloc of the size each round, filled, copied, freed (the
//              driver meets pages it has not seen)
// Each round times 7 copies per configuration (after one untimed copy) with
// host wall time around cudaMemcpy + cudaDeviceSynchronize and keeps their
// median.  Output: per configuration the round medians, in round order.
#include <sys/mman.h>
#include <fstream>
#include <sstream>
#include "common.cuh"

static std::string file_line(const char* path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

static void* own_alloc(size_t b, int advice) {
  // mmap so that the advice applies to the whole buffer from its first touch
  void* p = mmap(nullptr, b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  if (advice >= 0 && madvise(p, b, advice) != 0) perror("madvise");
  return p;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s out.json\n", argv[0]); return 1; }
  const bool Q = quick_mode();
  const int rounds = Q ? 2 : 12, per_round = 7;
  const std::vector<size_t> sizes = {(size_t)1 << 20, (size_t)4 << 20, (size_t)16 << 20, (size_t)64 << 20};
  const size_t maxb = (size_t)1 << 30;
  const char* modes[] = {"slice", "own", "own_huge", "own_small", "fresh"};
  const int nmodes = 5;
  void* dev; CK(cudaMalloc(&dev, maxb));
  CK(cudaMemset(dev, 1, maxb));
  char* slice = (char*)malloc(maxb);
  if (!slice) { fprintf(stderr, "malloc failed\n"); return 1; }
  memset(slice, 3, maxb);
  std::vector<char> fill(sizes.back(), 5);
  // own buffers: [mode 1..3][size]
  std::vector<std::vector<void*>> own(4, std::vector<void*>(sizes.size(), nullptr));
  for (int m = 1; m <= 3; ++m)
    for (size_t k = 0; k < sizes.size(); ++k) {
      own[m][k] = own_alloc(sizes[k], m == 2 ? MADV_HUGEPAGE : m == 3 ? MADV_NOHUGEPAGE : -1);
      memcpy(own[m][k], fill.data(), sizes[k]);
    }
  // med[mode][size][dir] = round medians (us)
  std::vector<std::vector<std::vector<std::vector<double>>>> med(
      nmodes, std::vector<std::vector<std::vector<double>>>(sizes.size(), std::vector<std::vector<double>>(2)));
  std::vector<double> round_start;
  const double t_begin = now_s();
  for (int r = 0; r < rounds; ++r) {
    round_start.push_back(now_s() - t_begin);
    for (size_t k = 0; k < sizes.size(); ++k)
      for (int m = 0; m < nmodes; ++m)
        for (int dir = 0; dir < 2; ++dir) {
          const size_t s = sizes[k];
          void* host = m == 0 ? (void*)slice : m == 4 ? own_alloc(s, -1) : own[m][k];
          if (m == 4) memcpy(host, fill.data(), s);
          std::vector<double> t;
          for (int i = -1; i < per_round; ++i) {
            const double t0 = now_s();
            if (dir == 0) CK(cudaMemcpy(dev, host, s, cudaMemcpyHostToDevice));
            else CK(cudaMemcpy(host, dev, s, cudaMemcpyDeviceToHost));
            CK(cudaDeviceSynchronize());
            if (i >= 0) t.push_back((now_s() - t0) * 1e6);
          }
          if (m == 4) munmap(host, s);
          med[m][k][dir].push_back(median_of(t));
        }
  }
  Json j;
  j.open('{');
  j.integer("schema_version", 1);
  j.str("method", "cudaMemcpy + cudaDeviceSynchronize, host wall time; rounds cycle through every (size, host memory, direction); each round: 1 untimed + 7 timed copies, their median kept (us)");
  j.str("thp_enabled", file_line("/sys/kernel/mm/transparent_hugepage/enabled"));
  j.str("thp_defrag", file_line("/sys/kernel/mm/transparent_hugepage/defrag"));
  j.nums("round_start_s", round_start);
  j.key("series");
  j.open('[');
  for (int m = 0; m < nmodes; ++m)
    for (size_t k = 0; k < sizes.size(); ++k)
      for (int dir = 0; dir < 2; ++dir) {
        j.open('{');
        j.str("memory", modes[m]);
        j.integer("bytes", (long long)sizes[k]);
        j.str("direction", dir == 0 ? "h2d" : "d2h");
        j.nums("round_median_us", med[m][k][dir]);
        j.num("median_us", median_of(med[m][k][dir]));
        j.close('}');
        const auto& v = med[m][k][dir];
        printf("%-9s %3zu MiB %s median %9.1f us  rounds min %9.1f max %9.1f\n", modes[m], sizes[k] >> 20,
               dir == 0 ? "h2d" : "d2h", median_of(v), *std::min_element(v.begin(), v.end()),
               *std::max_element(v.begin(), v.end()));
      }
  j.close(']');
  j.close('}');
  j.write(argv[1]);
  return 0;
}
