// Kernels in a stream of launches: what a kernel costs when it is launched
// back to back with itself (as `skelcast emit`'s programs time it, and as a
// program's kernels run), against the same kernel launched alone between an
// event pair (as the hand-written validation programs time it). Measures what
// the skelcast model's `launch` and `resident` terms need:
//  - spin kernels of known length D on every SM: alone, the event pair sees
//    D + the launch overhead; back to back, the GPU starts the next kernel
//    while the host is still queueing, so a launch costs max(host rate,
//    D + the gap between two kernels on the GPU);
//  - a triad a[i] = b[i] + s * c[i] of n floats, launched alone and back to
//    back with no flush between launches: while its 12n bytes fit in L2 the
//    repeats read what the previous launch left there.
// Not a measurement file of cases (run_all.sh's step `launches` keeps its output):
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/launches.cu -o /tmp/launches
//   /tmp/launches > validation/results/h100_launches.json     (about 20 s on an H100)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common.cuh" // CK, back_to_back_us

__global__ void spin(long long cycles, int *out) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
  if (cycles < 0) out[0] = 1; // never: keeps the kernel
}

__global__ void triad(float *__restrict__ a, const float *__restrict__ b, const float *__restrict__ c,
                      float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Alone: an event pair around one launch, synchronised before the next (the
// hand-written programs' time_launches); median of `reps`, in us.
template <class F> float alone(F launch, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < 5; ++w) launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3f);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int *out = nullptr;
  CK(cudaMalloc(&out, sizeof(int)));
  // the SM clock, from one long spin, to turn D into cycles
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const long long probe = 200000000LL;
  spin<<<1, 32>>>(1000, out);
  CK(cudaEventRecord(e0));
  spin<<<1, 32>>>(probe, out);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float probeMs = 0;
  CK(cudaEventElapsedTime(&probeMs, e0, e1));
  const double ghz = probe / (probeMs * 1e6);

  std::printf("{\n \"gpu\": \"%s\", \"sm_count\": %d, \"l2_cache_bytes\": %d, \"clock_ghz\": %.4f,\n",
              prop.name, sms, prop.l2CacheSize, ghz);
  std::printf(" \"method\": \"validation/kernels/launches.cu: alone = an event pair around one launch, "
              "synchronised (median of 200); back_to_back = 100 launches between one event pair, per "
              "launch (median of 20); spin: %d blocks of 128 threads spinning D us by clock64 at the "
              "measured clock; triad: n floats, a = b + s * c, blocks of 256, no flush between "
              "launches\",\n \"spin\": [\n", sms);
  bool first = true;
  for (double d : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0}) {
    long long cyc = (long long)(d * 1e3 * ghz);
    auto launch = [&] { spin<<<sms, 128>>>(cyc, out); };
    float a = alone(launch, 200), b = back_to_back_us(launch, 100, 20);
    std::printf("%s  {\"spin_us\": %.1f, \"alone_us\": %.3f, \"back_to_back_us\": %.3f, "
                "\"alone_minus_spin_us\": %.3f, \"back_to_back_minus_spin_us\": %.3f}",
                first ? "" : ",\n", d, a, b, a - d, b - d);
    first = false;
  }
  std::printf("\n ],\n \"triad\": [\n");
  const int maxN = 1 << 25;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  CK(cudaMalloc(&a, sizeof(float) * maxN));
  CK(cudaMalloc(&b, sizeof(float) * maxN));
  CK(cudaMalloc(&c, sizeof(float) * maxN));
  CK(cudaMemset(b, 0, sizeof(float) * maxN));
  CK(cudaMemset(c, 0, sizeof(float) * maxN));
  first = true;
  // powers of two from 2^14, and between 2^21 and 2^22 (25 and 50 MB, around
  // where the footprint stops fitting the H100's 50 MB L2) in steps of 2^18,
  // between 2^22 and 2^23 (50 and 100 MB, the H200's 60 MB L2) in steps of 2^19
  std::vector<int> sizes;
  for (int lg = 14; lg <= 25; ++lg) {
    sizes.push_back(1 << lg);
    if (lg == 21)
      for (int k = 1; k < 8; ++k)
        sizes.push_back((1 << 21) + k * (1 << 18));
    if (lg == 22)
      for (int k = 1; k < 8; ++k)
        sizes.push_back((1 << 22) + k * (1 << 19));
  }
  for (int n : sizes) {
    auto launch = [&] { triad<<<(n + 255) / 256, 256>>>(a, b, c, 2.0f, n); };
    float t1 = alone(launch, 200), t2 = back_to_back_us(launch, 100, 20);
    const double bytes = 12.0 * n;
    std::printf("%s  {\"n\": %d, \"bytes\": %.0f, \"alone_us\": %.3f, \"back_to_back_us\": %.3f, "
                "\"back_to_back_gbps\": %.1f}",
                first ? "" : ",\n", n, bytes, t1, t2, bytes / (t2 * 1e3));
    first = false;
  }
  std::printf("\n ]\n}\n");
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
  CK(cudaFree(out));
  return 0;
}
