// Shared helpers for the skelcast validation kernels: error checking, timing
// with CUDA events, verification against a double-precision CPU reference and
// a tiny JSON writer.  Every CUDA call is checked; every launch is followed by
// a cudaGetLastError() check.
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      fprintf(stderr, "CUDA error '%s' at %s:%d in %s\n",                     \
              cudaGetErrorString(e_), __FILE__, __LINE__, #call);             \
      exit(1);                                                                \
    }                                                                         \
  } while (0)
#define CKL() CK(cudaGetLastError())

static inline bool quick_mode() {
  const char* q = getenv("QUICK");
  return q && q[0] == '1';
}

// PROFILE=1: time_launches launches once, untimed, for a profiler (ncu) to
// read that one launch (validation/profile.sh); the times it returns are NaN.
static inline bool profile_mode() {
  const char* q = getenv("PROFILE");
  return q && q[0] == '1';
}

static inline double now_s() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static inline double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Seed for the "fresh random" inputs: time based unless SEED is set; the
// programs print it into their JSON so a run can be repeated.
static inline uint64_t run_seed() {
  const char* s = getenv("SEED");
  if (s) return strtoull(s, nullptr, 10);
  static uint64_t seed = (uint64_t)std::chrono::system_clock::now().time_since_epoch().count();
  return seed;
}

// Uniform in [lo, hi), never exactly zero (resampled).  Filled in chunks of
// 2^20 elements, each from its own generator seeded with seed + chunk, so the
// result does not depend on the number of OpenMP threads.
static inline void fill_uniform(std::vector<float>& v, float lo, float hi, uint64_t seed) {
  const size_t CH = 1 << 20, nch = (v.size() + CH - 1) / CH;
#pragma omp parallel for schedule(dynamic)
  for (long long c = 0; c < (long long)nch; ++c) {
    std::mt19937_64 g(seed * 1000003ull + (uint64_t)c);
    std::uniform_real_distribution<float> d(lo, hi);
    const size_t e = std::min(v.size(), (size_t)(c + 1) * CH);
    for (size_t k = (size_t)c * CH; k < e; ++k) {
      float x;
      do { x = d(g); } while (x == 0.0f);
      v[k] = x;
    }
  }
}

struct Timing {
  double med_ms = NAN, min_ms = NAN, max_ms = NAN, batch_ms = NAN;
  int reps = 0;
};

// Times launch() (which must enqueue exactly one kernel launch on the default
// stream).  Warm-up, then `reps` repeats, each bracketed by its own pair of
// events with a synchronisation after it; the median, min and max of these
// are reported.  batch_ms is the per-launch time of `reps` back-to-back
// launches between one pair of events (throughput view, launch gaps hidden).
// The same buffers are used for every repeat (no rotation), as a user running
// the kernel repeatedly would.
template <class F>
Timing time_launches(F&& launch) {
  if (profile_mode()) {
    launch(); CKL();
    CK(cudaDeviceSynchronize());
    Timing once;
    once.reps = 1;
    return once;
  }
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < 5; ++w) { launch(); CKL(); }
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(a));
  launch(); CKL();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float est = 0;
  CK(cudaEventElapsedTime(&est, a, b));
  int reps;
  if (est < 0.1f) reps = 200;
  else reps = std::max(30, std::min(200, (int)(300.0f / est)));
  if (quick_mode()) reps = 5;
  std::vector<double> t(reps);
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CKL();
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t[r] = ms;
  }
  CK(cudaEventRecord(a));
  for (int r = 0; r < reps; ++r) launch();
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CKL();
  float tot;
  CK(cudaEventElapsedTime(&tot, a, b));
  Timing res;
  res.med_ms = median_of(t);
  res.min_ms = *std::min_element(t.begin(), t.end());
  res.max_ms = *std::max_element(t.begin(), t.end());
  res.batch_ms = tot / reps;
  res.reps = reps;
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return res;
}

// Writes n floats of a scratch buffer larger than L2 (the programs pass
// 256 MB), so that L2 keeps none of the next timed kernel's data.
__global__ void flush(float *b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    b[i] = float(i & 7);
}

// Launches timed alone: `warmups + reps` launches, each launch(r) (one kernel
// launch, r its index: it may vary its arguments) between its own pair of
// events after before(r) (untimed: a flush of L2, or nothing); the median of
// the last `reps`, in milliseconds.
template <class F, class B>
double median_alone_ms(F&& launch, int reps, int warmups, B&& before) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < warmups + reps; ++r) {
    before(r);
    CK(cudaEventRecord(a));
    launch(r);
    CKL();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= warmups)
      t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median_of(t);
}

// Back to back: `batch` launches of launch() (one kernel launch each) between
// one pair of events, per launch, as emit's programs time kernels (and a
// program's kernels run: the next launch queued while one runs); after
// `warmups` launches (5 unless given), the median of `reps` batches, in
// microseconds.
template <class F>
double back_to_back_us(F&& launch, int batch, int reps, int warmups = 5) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < warmups; ++w) launch();
  CKL();
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    for (int k = 0; k < batch; ++k) launch();
    CK(cudaEventRecord(b));
    CKL();
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(1000.0 * ms / batch);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median_of(t);
}

// ||out - ref|| / ||ref||; any NaN/Inf in out (e.g. an element never written
// after NaN poisoning) makes the result NaN, which fails every check.
template <class T>
static inline double rel_error(const T* out, const double* ref, size_t n, size_t* bad = nullptr) {
  double num = 0, den = 0;
  size_t nb = 0;
  for (size_t k = 0; k < n; ++k) {
    double o = out[k];
    if (!std::isfinite(o)) { ++nb; continue; }
    double d = o - ref[k];
    num += d * d;
    den += ref[k] * ref[k];
  }
  if (bad) *bad = nb;
  if (nb) return NAN;
  return std::sqrt(num / den);
}
static inline bool error_ok(double e) { return std::isfinite(e) && e < 1e-4; }

// Poison a float buffer with NaN (all bytes 0xFF is a quiet NaN).
static inline void poison(void* p, size_t bytes) { CK(cudaMemset(p, 0xFF, bytes)); }

// ------------------------------------------------------------- JSON writer
struct Json {
  std::string s;
  bool first = true;
  void open(char c) { sep(); s += c; first = true; }
  void close(char c) { s += c; first = false; }
  void sep() { if (!first) s += ", "; first = false; }
  void key(const std::string& k) { sep(); s += "\"" + k + "\": "; first = true; }
  void str(const std::string& k, const std::string& v) { key(k); first = false; s += "\"" + esc(v) + "\""; }
  void num(const std::string& k, double v) { key(k); first = false; s += fmt(v); }
  void integer(const std::string& k, long long v) { key(k); first = false; s += std::to_string(v); }
  void boolean(const std::string& k, bool v) { key(k); first = false; s += v ? "true" : "false"; }
  void nums(const std::string& k, const std::vector<double>& v) {
    key(k); first = false; s += "[";
    for (size_t i = 0; i < v.size(); ++i) { if (i) s += ", "; s += fmt(v[i]); }
    s += "]";
  }
  static std::string fmt(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64]; snprintf(b, sizeof b, "%.10g", v); return b;
  }
  static std::string esc(const std::string& v) {
    std::string o;
    for (char c : v) { if (c == '"' || c == '\\') o += '\\'; if (c == '\n') { o += "\\n"; continue; } o += c; }
    return o;
  }
  void write(const char* path) {
    FILE* f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fputs(s.c_str(), f); fputc('\n', f); fclose(f);
  }
};

// ----------------------------------------------------------- case driver
struct CaseOut {
  Json j;
  int n_fail = 0, n_ok = 0;
  CaseOut() { j.open('['); }
  void finish(const char* path) { j.close(']'); j.write(path); }
};

// One kernel case: verify (poison, launch, compare), time, verify again.
// func: the kernel (for its attributes); launch(): enqueues one launch;
// check(): poisons the output, launches once, copies back, returns rel error.
template <class KF, class L, class C>
void run_case(CaseOut& out, const std::string& kernel, const std::string& size,
              const std::string& skel, const std::string& layout, KF func,
              dim3 grid, dim3 block, L&& launch, C&& check) {
  cudaFuncAttributes attr;
  CK(cudaFuncGetAttributes(&attr, (const void*)func));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, (const void*)func,
                                                   block.x * block.y * block.z, 0));
  double e1 = check();
  bool ok1 = error_ok(e1);
  Timing t;
  double e2 = NAN;
  if (ok1) {
    t = time_launches(launch);
    e2 = check();
  }
  bool ok = ok1 && error_ok(e2);
  double err = ok ? std::max(e1, e2) : (ok1 ? e2 : e1);
  Json& j = out.j;
  j.open('{');
  j.str("kernel", kernel);
  j.str("size", size);
  // A case of validation/c/ only (issue 19: kernels written from C, with no
  // hand skeleton counted from their SASS) names its C file.
  if (skel.size() > 2 && skel.compare(skel.size() - 2, 2, ".c") == 0) j.str("c", skel);
  else j.str("skeleton", skel);
  j.str("layout", layout);
  if (ok) {
    j.num("time_ms", t.med_ms);
    j.num("min_ms", t.min_ms);
    j.num("max_ms", t.max_ms);
    j.integer("repeats", t.reps);
    j.num("batch_ms_per_launch", t.batch_ms);
  }
  j.num("rel_error", err);
  j.boolean("verified", ok);
  j.nums("grid", {(double)grid.x, (double)grid.y, (double)grid.z});
  j.nums("block", {(double)block.x, (double)block.y, (double)block.z});
  j.integer("regs_per_thread", attr.numRegs);
  j.integer("static_smem_bytes", (long long)attr.sharedSizeBytes);
  j.integer("local_bytes_per_thread", (long long)attr.localSizeBytes);
  j.integer("max_active_blocks_per_sm", occ);
  j.close('}');
  if (ok) ++out.n_ok; else ++out.n_fail;
  printf("%-14s %-16s %-58s %s %10.4f ms (min %.4f max %.4f, n=%d, batch %.4f) err=%.2e regs=%d\n",
         kernel.c_str(), size.c_str(), layout.c_str(), ok ? "OK  " : "FAIL",
         t.med_ms, t.min_ms, t.max_ms, t.reps, t.batch_ms, err, attr.numRegs);
  fflush(stdout);
}
