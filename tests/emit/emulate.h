// A CPU stand-in for the CUDA runtime, for tests only: an emitted file built
// with `clang++ -std=c++20 -pthread -x c++ -include tests/emit/emulate.h`
// runs its kernel on the host, each block in turn with one OS thread per CUDA
// thread, __syncthreads() a std::barrier and the block's shared memory one
// buffer. It checks what the kernel computes (the driver compares it with the
// C nest), never how fast: the times it prints are the CPU's.
#pragma once
#define SKELCAST_EMULATE 1

#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline thread_local std::barrier<> *sk_block_barrier = nullptr;
inline void __syncthreads() { sk_block_barrier->arrive_and_wait(); }
extern "C" {
alignas(16) unsigned char sk_smem[256 * 1024]; // the running block's
}

/// Without barriers (SKELCAST_BARRIERS 0) the threads run one after another;
/// with them, each block's threads run at once and meet at the barriers.
template <bool Barriers, class F> void sk_emulate(F kernel, dim3 g, dim3 b) {
  const unsigned T = b.x * b.y * b.z;
  if (!Barriers) {
    blockDim = b;
    gridDim = g;
    for (unsigned z = 0; z < g.z; ++z)
      for (unsigned y = 0; y < g.y; ++y)
        for (unsigned x = 0; x < g.x; ++x)
          for (unsigned t = 0; t < T; ++t) {
            blockIdx = dim3(x, y, z);
            threadIdx = dim3(t % b.x, t / b.x % b.y, t / (b.x * b.y));
            kernel();
          }
    return;
  }
  std::barrier<> bar(T);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < T; ++t)
    threads.emplace_back([&, t] {
      threadIdx = dim3(t % b.x, t / b.x % b.y, t / (b.x * b.y));
      blockDim = b;
      gridDim = g;
      sk_block_barrier = &bar;
      for (unsigned z = 0; z < g.z; ++z)
        for (unsigned y = 0; y < g.y; ++y)
          for (unsigned x = 0; x < g.x; ++x) {
            blockIdx = dim3(x, y, z);
            kernel();
            bar.arrive_and_wait(); // the next block starts when all are done
          }
    });
  for (auto &th : threads)
    th.join();
}
#define SK_LAUNCH(kernel, grid, block, smem, ...) \
  sk_emulate<SKELCAST_BARRIERS>([&] { kernel(__VA_ARGS__); }, grid, block)

// A kernel's reductions add one value per block (docs/emit.md, "Reductions").
inline std::mutex sk_atomic_mutex;
template <class T> T atomicAdd(T *p, T v) {
  std::lock_guard<std::mutex> g(sk_atomic_mutex);
  T old = *p;
  *p = old + v;
  return old;
}
template <class T> T atomicMax(T *p, T v) {
  std::lock_guard<std::mutex> g(sk_atomic_mutex);
  T old = *p;
  *p = old > v ? old : v;
  return old;
}
template <class T> T atomicMin(T *p, T v) {
  std::lock_guard<std::mutex> g(sk_atomic_mutex);
  T old = *p;
  *p = old < v ? old : v;
  return old;
}
template <class T> T atomicCAS(T *p, T compare, T v) {
  std::lock_guard<std::mutex> g(sk_atomic_mutex);
  T old = *p;
  if (old == compare)
    *p = v;
  return old;
}

typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };
inline const char *cudaGetErrorString(cudaError_t) { return "emulated"; }
template <class T> cudaError_t cudaMalloc(T **p, size_t n) {
  *p = static_cast<T *>(std::malloc(n));
  return *p ? 0 : 1;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  std::memcpy(d, s, n);
  return 0;
}
typedef std::chrono::steady_clock::time_point *cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new std::chrono::steady_clock::time_point();
  return 0;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e) {
  *e = std::chrono::steady_clock::now();
  return 0;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(*b - *a).count();
  return 0;
}
inline cudaError_t cudaGetLastError() { return 0; }
inline cudaError_t cudaDeviceSynchronize() { return 0; }
struct cudaFuncAttributes {
  int numRegs = 0;
  size_t sharedSizeBytes = 0, localSizeBytes = 0;
};
template <class F> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F) {
  *a = {};
  return 0;
}
template <class F> cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int) { return 0; }
template <class F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t) {
  *n = 1;
  return 0;
}
struct cudaDeviceProp {
  char name[64] = "CPU emulation (tests/emit/emulate.h)";
  int major = 0, minor = 0;
};
inline cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return 0;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int) {
  *p = {};
  return 0;
}
inline cudaError_t cudaDriverGetVersion(int *v) {
  *v = 0;
  return 0;
}
