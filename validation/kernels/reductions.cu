// What a GPU reduction costs beyond its loads: the numbers the skelcast model's
// `reduction` term needs (docs/model.md), measured rather than taken from a
// guess.
//  - atomics to one address: a kernel where each of B blocks adds one value to
//    one global float (thread 0 of the block), B from 1,024 to 262,144: the time
//    grows by B x (ns per atomic at one address), the rate the L2 slice that owns
//    the address retires them; the same for double and with every thread adding
//    (the per-thread case is what a port without a block reduction does);
//  - a whole reduction: the sum of n floats, one element a thread, each block's
//    partials combined in shared memory (a tree of log2(256) = 8 steps with
//    __syncthreads) or with warp shuffles, then one atomicAdd per block; against
//    a copy of the same n floats (the bytes alone), so the difference is the
//    combination's cost.
// Times are per launch, back to back (time_launches' batch_ms) and alone (med_ms).
// Not a measurement file of cases:
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/reductions.cu -o /tmp/reductions
//   /tmp/reductions > validation/results/h100_reductions.json     (about 15 s on an H100)
#include "common.cuh"

__global__ void atomic_per_block(float *sum, float v) {
  if (threadIdx.x == 0) atomicAdd(sum, v);
}
__global__ void atomic_per_block_d(double *sum, double v) {
  if (threadIdx.x == 0) atomicAdd(sum, v);
}
__global__ void atomic_per_thread(float *sum, float v) { atomicAdd(sum, v); }
// the same launch shape with a plain store per block: the launch and block
// scheduling without the atomics
__global__ void store_per_block(float *out, float v) {
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void copy(const float *__restrict__ in, float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// one element a thread; the block's 256 partials in a shared tree; one atomic
__global__ void sum_tree(const float *__restrict__ in, float *sum, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, s[0]);
}

// the same with warp shuffles, then the 8 warps' partials through shared memory
__global__ void sum_shfl(const float *__restrict__ in, float *sum, int n) {
  __shared__ float s[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? s[threadIdx.x] : 0.0f;
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) atomicAdd(sum, v);
  }
}

static void print_timing(const char *key, const Timing &t) {
  printf("\"%s\": {\"alone_ms\": %.6f, \"back_to_back_ms\": %.6f}", key, t.med_ms, t.batch_ms);
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  float *sum, *out, *in;
  double *sumd;
  const int maxBlocks = 262144, maxN = 1 << 26;
  CK(cudaMalloc(&sum, sizeof(float)));
  CK(cudaMalloc(&sumd, sizeof(double)));
  CK(cudaMalloc(&out, sizeof(float) * std::max(maxBlocks, maxN)));
  CK(cudaMalloc(&in, sizeof(float) * maxN));
  CK(cudaMemset(in, 0, sizeof(float) * maxN));
  printf("{\n\"device\": \"%s\",\n\"sm_count\": %d,\n\"block_threads\": 256,\n", p.name,
         p.multiProcessorCount);
  printf("\"one_address\": [\n");
  bool first = true;
  for (int blocks = 1024; blocks <= maxBlocks; blocks *= 4) {
    Timing st = time_launches([&] { store_per_block<<<blocks, 256>>>(out, 1.0f); });
    Timing af = time_launches([&] { atomic_per_block<<<blocks, 256>>>(sum, 1.0f); });
    Timing ad = time_launches([&] { atomic_per_block_d<<<blocks, 256>>>(sumd, 1.0); });
    printf("%s  {\"blocks\": %d, ", first ? "" : ",\n", blocks);
    print_timing("store_per_block", st);
    printf(", ");
    print_timing("atomic_per_block_float", af);
    printf(", ");
    print_timing("atomic_per_block_double", ad);
    if (blocks <= 16384) {
      Timing at = time_launches([&] { atomic_per_thread<<<blocks, 256>>>(sum, 1.0f); });
      printf(", ");
      print_timing("atomic_per_thread_float", at);
    }
    printf("}");
    first = false;
  }
  printf("\n],\n\"sum_of_n\": [\n");
  first = true;
  for (int n = 1 << 20; n <= maxN; n *= 4) {
    int blocks = (n + 255) / 256;
    Timing cp = time_launches([&] { copy<<<blocks, 256>>>(in, out, n); });
    Timing tr = time_launches([&] { sum_tree<<<blocks, 256>>>(in, sum, n); });
    Timing sh = time_launches([&] { sum_shfl<<<blocks, 256>>>(in, sum, n); });
    printf("%s  {\"n\": %d, \"blocks\": %d, ", first ? "" : ",\n", n, blocks);
    print_timing("copy", cp);
    printf(", ");
    print_timing("tree_then_atomic", tr);
    printf(", ");
    print_timing("shuffle_then_atomic", sh);
    printf("}");
    first = false;
  }
  printf("\n]\n}\n");
  // a sanity check that the sums add: n ones from the tree kernel
  const int n = 1 << 20;
  std::vector<float> ones(n, 1.0f);
  CK(cudaMemcpy(in, ones.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  CK(cudaMemset(sum, 0, sizeof(float)));
  sum_tree<<<n / 256, 256>>>(in, sum, n);
  CKL();
  float h = 0;
  CK(cudaMemcpy(&h, sum, sizeof(float), cudaMemcpyDeviceToHost));
  if (h != static_cast<float>(n)) {
    fprintf(stderr, "reductions: the tree summed %g, not %d\n", h, n);
    return 1;
  }
  return 0;
}
