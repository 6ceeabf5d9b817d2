// skelcast_trmm: kernel 'trmm' of trmm_cols.c in layout 'block=j:32 unroll=i:16,k:4'
// Written by 'skelcast emit' (docs/emit.md). Build: nvcc -O3 -arch=sm_90 FILE.cu;
// run: ./a.out [--repeats N] [--warmups N] [--tolerance T] prints a measurement record.
// Device-only without the CUDA headers: clang -x cuda --cuda-device-only -nocudainc.
#if defined(__CUDA__) && !defined(__CUDACC__) // clang without the CUDA headers
#include <__clang_cuda_builtin_vars.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define __host__ __attribute__((host))
#endif
#define restrict __restrict__
#define SKELCAST_BARRIERS 0 // the kernel calls __syncthreads

extern "C" __global__ void __launch_bounds__(32) skelcast_trmm(const double (*restrict A)[1024], double (*restrict B)[8192], double alpha) {
  int i; // private: written in the nest, declared outside it
  int k; // private: written in the nest, declared outside it
  const long long sk_t0 = (long long)blockIdx.x * 32 + threadIdx.x;
  const long long sk_n0 = ((long long)(8192) - (0) + 0) / 1; // trips of 'j'
  int j = (0) + sk_t0;
  if (!(sk_t0 < sk_n0)) return; // outside the loop space

#pragma unroll 16
for (i = 0; i < 1024; i++)
{

#pragma unroll 4
for (k = i + 1; k < 1024; k++)
    B[i][j] += A[k][i] * B[k][j];
    B[i][j] = alpha * B[i][j];
}
}

#ifndef __CUDA_ARCH__ // the host driver
#ifndef SKELCAST_EMULATE // tests/emit/emulate.h runs the kernel on the CPU
#include <cuda_runtime.h>
#define SK_LAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void skelcast_reference(double (*A)[1024], double (*B)[8192], double alpha) {
  int i;
  int k;
  int j;
  for (i = 0; i < 1024; i++) {
    for (j = 0; j < 8192; j++) {
        for (k = i + 1; k < 1024; k++)
            B[i][j] += A[k][i] * B[k][j];
        B[i][j] = alpha * B[i][j];
    }
  }
}

#define SK_CHECK(call)                                                              \
  do {                                                                             \
    cudaError_t sk_e = (call);                                                     \
    if (sk_e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                   cudaGetErrorString(sk_e));                                      \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

// Deterministic pseudo-random numbers (splitmix64), the same on every run.
static uint64_t sk_next(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
template <class T> static void sk_fill(std::vector<T> &v, uint64_t seed, double lo, double hi,
                                       bool integral) {
  uint64_t s = seed;
  for (auto &x : v) {
    double u = (double)(sk_next(s) >> 11) / 9007199254740992.0;
    x = integral ? (T)(int64_t)(lo + u * (hi - lo)) : (T)(lo + u * (hi - lo));
  }
}
// max |d - h| / max |h|: the norm-wise relative error (infinity norm). An
// element whose sum nearly cancels is judged against the array's scale, not
// its own: fused multiply-adds round such sums differently from the host.
template <class T> static double sk_rel_error(const std::vector<T> &d, const std::vector<T> &h) {
  double big = 0, err = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    double a = (double)d[i], b = (double)h[i];
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    big = std::max(big, std::fabs(b));
    err = std::max(err, std::fabs(a - b));
  }
  return err / std::max(big, 1e-30);
}
static double sk_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
  int repeats = 30, warmups = 5;
  double tolerance = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmups")) warmups = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--tolerance")) tolerance = std::atof(argv[i + 1]);
  }
  std::vector<double> h_A(1048576LL);
  sk_fill(h_A, 1, 0.5, 1.5, false);
  double *d_A;
  SK_CHECK(cudaMalloc(&d_A, h_A.size() * sizeof(double)));
  SK_CHECK(cudaMemcpy(d_A, h_A.data(), h_A.size() * sizeof(double), cudaMemcpyHostToDevice));
  std::vector<double> h_B(8388608LL);
  sk_fill(h_B, 2, 0.5, 1.5, false);
  double *d_B;
  SK_CHECK(cudaMalloc(&d_B, h_B.size() * sizeof(double)));
  SK_CHECK(cudaMemcpy(d_B, h_B.data(), h_B.size() * sizeof(double), cudaMemcpyHostToDevice));
  const double sk_terms = 523776; // summed into an element at most
  if (tolerance < 0) tolerance = 1e-09; // max(1e-9, 4 u L), u = 2^-53
  skelcast_reference((double (*)[1024])h_A.data(), (double (*)[8192])h_B.data(), 0.5); // the C nest, on the host
  const dim3 grid(256, 1, 1), block(32, 1, 1);
  const size_t smem = 0; // the cached arrays' tiles
  auto launch = [&] { SK_LAUNCH(skelcast_trmm, grid, block, smem, (const double (*)[1024])d_A, (double (*)[8192])d_B, 0.5); };
  cudaEvent_t a, b;
  SK_CHECK(cudaEventCreate(&a));
  SK_CHECK(cudaEventCreate(&b));
  SK_CHECK(cudaEventRecord(a));
  launch(); // the cold launch, also the one checked
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  SK_CHECK(cudaGetLastError());
  float cold_ms = 0;
  SK_CHECK(cudaEventElapsedTime(&cold_ms, a, b));
  double rel_error = 0;
  {
    std::vector<double> g(h_B.size());
    SK_CHECK(cudaMemcpy(g.data(), d_B, g.size() * sizeof(double), cudaMemcpyDeviceToHost));
    rel_error = std::max(rel_error, sk_rel_error(g, h_B));
  }
  const bool verified = rel_error <= tolerance;
  std::fprintf(stderr, "norm-wise relative error max|d - h| / max|h| = %g (tolerance %g, %.0f terms "
               "an element): %s\n", rel_error, tolerance, sk_terms, verified ? "ok" : "WRONG");
  std::vector<double> t;
  double total = 0;
  int batch = 1;
  if (repeats <= 0) { // --repeats 0: the check alone, the cold launch as the time
    t.push_back(cold_ms);
    total = cold_ms;
    repeats = 0;
  } else {
  for (int w = 0; w < warmups; ++w) launch();
  SK_CHECK(cudaDeviceSynchronize());
  // each repeat: back-to-back launches between one pair of events, per launch
  SK_CHECK(cudaEventRecord(a));
  launch();
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  float one = 0;
  SK_CHECK(cudaEventElapsedTime(&one, a, b));
  batch = std::max(1, std::min(100, (int)(1.0 / std::max(one, 1e-3f))));
  for (int r = 0; r < repeats; ++r) {
    SK_CHECK(cudaEventRecord(a));
    for (int k = 0; k < batch; ++k) launch();
    SK_CHECK(cudaEventRecord(b));
    SK_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SK_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / batch);
    total += ms;
  }
  }
  SK_CHECK(cudaGetLastError());
  cudaFuncAttributes attr;
  SK_CHECK(cudaFuncGetAttributes(&attr, skelcast_trmm));
  int active = 0;
  SK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, skelcast_trmm, block.x * block.y * block.z, smem));
  cudaDeviceProp prop;
  int dev = 0;
  SK_CHECK(cudaGetDevice(&dev));
  SK_CHECK(cudaGetDeviceProperties(&prop, dev));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("{\n \"schema_version\": 1,\n \"skeleton_root\": \".\",\n");
  std::printf(" \"gpu\": {\"name\": \"%s\", \"driver_api\": %d, \"compute_capability\": \"%d.%d\"},\n",
              prop.name, driver, prop.major, prop.minor);
  std::printf(" \"method\": \"skelcast emit: one cold launch (checked), 5 warm-ups, then %d repeats of "
              "%d back-to-back launches between one pair of CUDA events; time_ms is the median "
              "per-launch time of the repeats\",\n", repeats, batch);
  std::printf(" \"timing\": \"%s\",\n", repeats > 0 ? "back_to_back" : "once");
  std::printf(" \"cases\": [{\n");
  std::printf("  \"kernel\": \"trmm\", \"size\": \"8192\", \"skeleton\": \"trmm_layout.skel\",\n");
  std::printf("  \"layout\": \"block=j:32 unroll=i:16,k:4\",\n");
  std::printf("  \"time_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, \"repeats\": %d, "
              "\"batch_ms_per_launch\": %.6g, \"cold_ms\": %.6g,\n",
              sk_median(t), *std::min_element(t.begin(), t.end()),
              *std::max_element(t.begin(), t.end()), repeats, total / std::max(1, repeats * batch), cold_ms);
  std::printf("  \"rel_error\": %.6g, \"tolerance\": %.3g, \"verified\": %s,\n", rel_error, tolerance,
              verified ? "true" : "false");
  std::printf("  \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", grid.x, grid.y, grid.z,
              block.x, block.y, block.z);
  std::printf("  \"regs_per_thread\": %d, \"static_smem_bytes\": %zu, \"dynamic_smem_bytes\": %zu, "
              "\"local_bytes_per_thread\": %zu, \"max_active_blocks_per_sm\": %d\n }]\n}\n",
              attr.numRegs, attr.sharedSizeBytes, smem, attr.localSizeBytes, active);
  return verified ? 0 : 3;
}
#endif // __CUDA_ARCH__
