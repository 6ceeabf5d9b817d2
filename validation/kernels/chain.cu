// What a warp's dependent chain costs: the cycles from one instruction's issue
// to the issue of the next that reads its result, per instruction kind, and
// what the sequences that nvcc expands a correctly rounded division or square
// root into cost, with their slow-path check and branch. The `chain` term of
// the skelcast model (docs/model.md) walks a loop body's code in order with
// these latencies; a kernel with few warps a scheduler runs at that pace.
//
// Each case: one warp (<<<1, 32>>>), a loop of kIters iterations of 8
// dependent operations on one register (inline PTX, so the SASS is the
// operation named; `cuobjdump -sass` of this file shows it), the loop run
// twice and the second run's clock64() difference of lane 0 divided by
// kIters x 8. The loop's own counter and branch issue beside the chain and
// add about 3 cycles an iteration of 8 (< 0.4 cycles an operation). Where
// ptxas adds instructions to an operation (xor then add: LOP3 and IMAD.IADD;
// the chases' address arithmetic; add then rcp) the figure is the pair's.
//   nvcc -arch=sm_90 -O3 -std=c++17 validation/kernels/chain.cu -o /tmp/chain
//   /tmp/chain > validation/results/h200_chain.json
#include <cuda_runtime.h>

#include <cstdio>

#include "common.cuh" // CK, CKL

constexpr int kIters = 4096;

#define REP8(S) { S S S S S S S S }

template <int Op>
__global__ void chain(const float *in, const double *din, const int *idx, long long *cycles, float *out,
                      double *dout, int *iout) {
  __shared__ int sidx[256];
  for (int i = threadIdx.x; i < 256; i += 32)
    sidx[i] = idx[i];
  __syncthreads();
  float x = in[threadIdx.x], y = in[32 + threadIdx.x], z = in[64 + threadIdx.x];
  double dx = din[threadIdx.x], dy = din[32 + threadIdx.x], dz = din[64 + threadIdx.x];
  int ix = idx[threadIdx.x], iy = idx[32 + threadIdx.x];
  const int *__restrict__ gp = idx;
  long long t = 0;
  for (int run = 0; run < 2; ++run) {
    long long t0 = clock64();
#pragma unroll 1
    for (int it = 0; it < kIters; ++it) {
      if (Op == 0) REP8(asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(y));)
      if (Op == 1) REP8(asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(y), "f"(z));)
      if (Op == 2) REP8(asm volatile("xor.b32 %0, %0, %1;" : "+r"(ix) : "r"(iy)); asm volatile("add.s32 %0, %0, %1;" : "+r"(ix) : "r"(iy));)
      if (Op == 3) REP8(asm volatile("mad.lo.s32 %0, %0, %1, %0;" : "+r"(ix) : "r"(iy));)
      if (Op == 4) REP8(asm volatile("add.f64 %0, %0, %1;" : "+d"(dx) : "d"(dy));)
      if (Op == 5) REP8(asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(dx) : "d"(dy), "d"(dz));)
      if (Op == 6) REP8(asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x));)
      if (Op == 7) REP8(asm volatile("add.f32 %0, %0, %1;" : "+f"(x) : "f"(y)); asm volatile("rcp.approx.ftz.f32 %0, %0;" : "+f"(x));)
      if (Op == 8) REP8(asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x));)
      if (Op == 9) REP8(asm volatile("div.rn.f32 %0, %1, %0;" : "+f"(x) : "f"(y));)
      if (Op == 10) REP8(asm volatile("sqrt.rn.f32 %0, %0;" : "+f"(x));)
      if (Op == 11) REP8(asm volatile("div.rn.f64 %0, %1, %0;" : "+d"(dx) : "d"(dy));)
      if (Op == 12) REP8(asm volatile("sqrt.rn.f64 %0, %0;" : "+d"(dx));)
      if (Op == 13) REP8(ix = sidx[ix & 255];)
      if (Op == 14) REP8(ix = gp[ix & 255];)
      if (Op == 15) REP8(asm volatile("{ .reg .pred p; fma.rn.f32 %0, %0, %1, %2; setp.eq.f32 p, %0, 0f4640E400;"
                                      " @p bra.uni SLOW%=; bra.uni DONE%=; SLOW%=: add.f32 %0, %0, %1;"
                                      " DONE%=: }"
                                      : "+f"(x) : "f"(y), "f"(z));)
      if (Op == 16) REP8(asm volatile("cvt.f64.f32 %0, %1;" : "=d"(dx) : "f"(x));
                         asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(x) : "d"(dx));)
    }
    t = clock64() - t0;
  }
  if (threadIdx.x == 0)
    cycles[Op] = t;
  out[threadIdx.x] = x;
  dout[threadIdx.x] = dx;
  iout[threadIdx.x] = ix;
}

template <int Op>
void run(const float *in, const double *din, const int *idx, long long *cycles, float *out, double *dout,
         int *iout) {
  chain<Op><<<1, 32>>>(in, din, idx, cycles, out, dout, iout);
  CKL();
}

int main() {
  float hin[96];
  double hdin[96];
  int hidx[256];
  for (int i = 0; i < 96; ++i) {
    hin[i] = 1.0f + 0.001f * i;
    hdin[i] = 1.0 + 0.001 * i;
  }
  for (int i = 0; i < 256; ++i)
    hidx[i] = (i * 97 + 13) & 255; // a permutation: the chase visits every slot
  float *in, *out;
  double *din, *dout;
  int *idx, *iout;
  long long *cycles;
  CK(cudaMalloc(&in, sizeof hin));
  CK(cudaMalloc(&din, sizeof hdin));
  CK(cudaMalloc(&idx, sizeof hidx));
  CK(cudaMalloc(&out, 32 * sizeof(float)));
  CK(cudaMalloc(&dout, 32 * sizeof(double)));
  CK(cudaMalloc(&iout, 32 * sizeof(int)));
  CK(cudaMalloc(&cycles, 32 * sizeof(long long)));
  CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(din, hdin, sizeof hdin, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(idx, hidx, sizeof hidx, cudaMemcpyHostToDevice));
  run<0>(in, din, idx, cycles, out, dout, iout);
  run<1>(in, din, idx, cycles, out, dout, iout);
  run<2>(in, din, idx, cycles, out, dout, iout);
  run<3>(in, din, idx, cycles, out, dout, iout);
  run<4>(in, din, idx, cycles, out, dout, iout);
  run<5>(in, din, idx, cycles, out, dout, iout);
  run<6>(in, din, idx, cycles, out, dout, iout);
  run<7>(in, din, idx, cycles, out, dout, iout);
  run<8>(in, din, idx, cycles, out, dout, iout);
  run<9>(in, din, idx, cycles, out, dout, iout);
  run<10>(in, din, idx, cycles, out, dout, iout);
  run<11>(in, din, idx, cycles, out, dout, iout);
  run<12>(in, din, idx, cycles, out, dout, iout);
  run<13>(in, din, idx, cycles, out, dout, iout);
  run<14>(in, din, idx, cycles, out, dout, iout);
  run<15>(in, din, idx, cycles, out, dout, iout);
  run<16>(in, din, idx, cycles, out, dout, iout);
  CK(cudaDeviceSynchronize());
  long long h[32];
  CK(cudaMemcpy(h, cycles, sizeof h, cudaMemcpyDeviceToHost));
  const char *names[] = {"fadd_f32",     "ffma_f32",     "xor_then_add_s32",      "imad_s32",        "dadd_f64",
                         "dfma_f64",     "rsqrt_approx", "fadd_then_rcp_approx",    "ex2_approx",      "div_rn_f32",
                         "sqrt_rn_f32",  "div_rn_f64",   "sqrt_rn_f64",   "lds_chase",       "ldg_l1_chase",
                         "ffma_setp_branch", "cvt_f64_f32_and_back"};
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("{\n  \"device\": \"%s\",\n  \"iterations\": %d,\n  \"ops_per_iteration\": 8,\n"
         "  \"cycles_per_op\": {\n",
         p.name, kIters);
  for (int i = 0; i <= 16; ++i)
    printf("    \"%s\": %.3f%s\n", names[i], double(h[i]) / (kIters * 8.0), i < 16 ? "," : "");
  printf("  }\n}\n");
  return 0;
}
