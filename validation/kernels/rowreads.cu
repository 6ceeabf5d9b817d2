// Reads of other rows in a memory-bound kernel (H200, 2026-11-30), the shape
// of validation/c/vstencil_k*.c written by hand: the model takes the time of a memory-bound layout as the
// largest of its DRAM, L2 and L1 floors, and projects stencils and
// transposes 20-35% fast where those floors are close together (docs/validation.md,
// "Memory-bound layouts projected fast"). This kernel holds the DRAM bytes
// fixed (a 4096-wide matrix of floats, 256 MB, read once and written once)
// and adds K reads of other rows (i +- 1, i +- 2, ...: a thread walks its 16
// rows in turn, so these are mostly the rows it read a few iterations before
// or reads a few after, L1 hits; at a block's first and last rows those of
// the neighbouring block, L2 or DRAM) and R reads of the same row (j +- 1,
// ...: the neighbouring threads' elements, L1 hits), so that the load
// instructions and the L1 traffic grow while the DRAM bytes stay.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/rowreads.cu -o /tmp/rowreads && /tmp/rowreads > OUT.json
// Per point: the median of 7 event-timed launches, L2 flushed before each
// (a 512 MB buffer read), blocks of 256 threads along a row, each thread
// 16 rows in turn.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

constexpr int W = 4096, H = 16384;

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e = (x);                                                                           \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));              \
      return 2;                                                                                    \
    }                                                                                              \
  } while (0)

// Each thread runs kRows rows one after another (a one-element thread would
// be bound by the block starts: 262,144 blocks at about 1,664 a microsecond).
constexpr int kRows = 16;

// Spread: a thread's rows are H / kRows apart (row blockIdx.y of each of the
// 16 bands), so the other rows it reads are those the neighbouring blocks
// read at the same time: L2 hits, not L1.
template <int K, int R, bool Store, bool Spread = false>
__global__ void __launch_bounds__(256) rowreads(const float *__restrict__ in, float *__restrict__ out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 4
  for (int q = 0; q < kRows; ++q) {
  int i = Spread ? q * (H / kRows) + blockIdx.y : blockIdx.y * kRows + q;
  float s = in[size_t(i) * W + j];
#pragma unroll
  for (int d = 1; d <= K / 2; ++d) { // rows above and below, clamped
    int up = max(i - d, 0), dn = min(i + d, H - 1);
    s += in[size_t(up) * W + j] + in[size_t(dn) * W + j];
  }
#pragma unroll
  for (int d = 1; d <= R / 2; ++d) { // the same row, left and right, clamped
    int l = max(j - d, 0), r = min(j + d, W - 1);
    s += in[size_t(i) * W + l] + in[size_t(i) * W + r];
  }
  if (Store)
    out[size_t(i) * W + j] = s;
  else if (s == -1.2345f) // never: keeps the loads
    out[0] = s;
  }
}

// Reads the 512 MB buffer: L2 left holding clean lines of it, so no write-back
// of an earlier kernel's stores runs during the timed one.
__global__ void flushRead(const float4 *__restrict__ b, size_t n, float *sink) {
  float4 s = make_float4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    float4 v = b[i];
    s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
  }
  if (s.x + s.y + s.z + s.w == -1.2345f)
    *sink = s.x;
}

struct Point {
  int k, r;
  bool store, spread;
  float ms;
};

template <int K, int R, bool Store, bool Spread = false>
int measure(const float *in, float *out, char *flush, std::vector<Point> &pts) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 8; ++rep) {
    flushRead<<<132 * 8, 256>>>(reinterpret_cast<const float4 *>(flush), (size_t(512) << 20) / 16,
                                reinterpret_cast<float *>(flush));
    CHECK(cudaEventRecord(a));
    rowreads<K, R, Store, Spread><<<dim3(W / 256, H / kRows), 256>>>(in, out);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (rep > 0) // the first is a warm-up
      t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  pts.push_back({K, R, Store, Spread, t[t.size() / 2]});
  return 0;
}

int main() {
  float *in, *out;
  char *flush;
  size_t n = size_t(W) * H;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&flush, size_t(512) << 20));
  CHECK(cudaMemset(in, 0, n * sizeof(float)));
  CHECK(cudaMemset(flush, 1, size_t(512) << 20));
  std::vector<Point> p;
  int rc = 0;
  rc |= measure<0, 0, true>(in, out, flush, p);
  rc |= measure<2, 0, true>(in, out, flush, p);
  rc |= measure<4, 0, true>(in, out, flush, p);
  rc |= measure<6, 0, true>(in, out, flush, p);
  rc |= measure<8, 0, true>(in, out, flush, p);
  rc |= measure<12, 0, true>(in, out, flush, p);
  rc |= measure<0, 2, true>(in, out, flush, p);
  rc |= measure<0, 4, true>(in, out, flush, p);
  rc |= measure<0, 8, true>(in, out, flush, p);
  rc |= measure<2, 2, true>(in, out, flush, p);
  rc |= measure<4, 4, true>(in, out, flush, p);
  rc |= measure<0, 0, false>(in, out, flush, p);
  rc |= measure<2, 0, false>(in, out, flush, p);
  rc |= measure<4, 0, false>(in, out, flush, p);
  rc |= measure<8, 0, false>(in, out, flush, p);
  rc |= measure<0, 0, true, true>(in, out, flush, p);
  rc |= measure<2, 0, true, true>(in, out, flush, p);
  rc |= measure<4, 0, true, true>(in, out, flush, p);
  rc |= measure<8, 0, true, true>(in, out, flush, p);
  rc |= measure<8, 0, false, true>(in, out, flush, p);
  if (rc)
    return rc;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\n \"gpu\": \"%s\",\n \"method\": \"validation/kernels/rowreads.cu: a %d x %d float matrix read once "
              "(and written once where store), each element: K reads of other rows (i +- 1 .. K/2; a thread walks "
              "its 16 rows in turn, so mostly rows it reads in other iterations: L1 hits) and R of its own row "
              "(j +- 1 .. R/2, L1 hits); spread: a thread's 16 rows 1024 apart, so the other rows are the neighbouring "
              "blocks' of the same time, L2 hits; blocks of 256 along a row, each thread 16 rows in turn (unrolled by 4); median of 7 "
              "event-timed launches after a warm-up, L2 flushed (512 MB read) before each\",\n \"points\": [\n",
              prop.name, H, W);
  for (size_t i = 0; i < p.size(); ++i) {
    double dram = double(n) * 4 * (p[i].store ? 2 : 1); // compulsory: the matrix read (and written)
    std::printf("  {\"k\": %d, \"r\": %d, \"store\": %s, \"spread\": %s, \"loads_per_element\": %d, \"ms\": %.5f, "
                "\"compulsory_gbps\": %.1f}%s\n",
                p[i].k, p[i].r, p[i].store ? "true" : "false", p[i].spread ? "true" : "false", 1 + p[i].k + p[i].r, p[i].ms,
                dram / (p[i].ms * 1e6), i + 1 < p.size() ? "," : "");
  }
  std::printf(" ]\n}\n");
  return 0;
}
