// emit (docs/emit.md): the CUDA of a layout from the C nest's AST. What the
// kernels compute is checked by tests/emit/emulate_examples.sh (they run on
// the CPU against the C nest); these tests pin the mapping of each layout
// element and the refusals.
#include "skelcast/emit/Emit.h"

#include "../support/TempDir.h"
#include "ValidateRun.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/layout/KernelInfo.h"

#include <gtest/gtest.h>

#include <sstream>

namespace {

using skelcast::InputError;
namespace emit = skelcast::emit;
namespace layout = skelcast::layout;

const std::string kMatmul = R"(#define N 64
#define K 32
float A[N][K], B[K][N], C[N][N];
void matmul(void) {
  int i, j, k;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j) {
      float sum = 0;
      for (k = 0; k < K; ++k)
        sum += A[i][k] * B[k][j];
      C[i][j] = sum;
    }
}
)";

/// Emit kernel `kernel` of `code` in the layout `text` ("naive" for the naive
/// one); its warnings go to `warned` when given.
std::string emitOne(const std::string &code, const std::string &text, size_t kernel = 0,
                    std::vector<skelcast::Warning> *warned = nullptr,
                    const skelcast::frontend::SkeletonizeOptions &so = {}) {
  skelcast::testsupport::TempDir dir("skelcast-emit");
  std::string path = dir.write("k.c", code);
  skelcast::hw::HwSpec hw = skelcast::hw::resolveHwSpec("h100", SKELCAST_SOURCE_DIR "/hwspecs");
  std::ostringstream diag;
  std::vector<skelcast::Warning> warnings;
  emit::EmitResult r = emit::emitCuda(
      path, so, {},
      [&](const skelcast::frontend::SkeletonizeResult &res) {
        emit::KernelChoice c;
        c.kernel = kernel;
        layout::KernelInfo ki = layout::analyzeKernel(res.file, kernel);
        c.layout = text == "naive" ? emit::naiveLayout(ki) : layout::parseLayout(ki, text, hw);
        c.tag = "t";
        return std::vector<emit::KernelChoice>{c};
      },
      diag, warnings);
  EXPECT_EQ(r.kernels.size(), 1u);
  if (warned)
    *warned = warnings;
  return r.kernels.empty() ? "" : r.kernels[0].cuda;
}

TEST(Emit, NaiveLayoutIsOneTaskPerThreadWithTheUsersStatements) {
  std::string cu = emitOne(kMatmul, "naive");
  // 16 x 16 threads, j (the last index) on threadIdx.x
  // arrays only read are `const`; each is its own allocation: `restrict`
  EXPECT_NE(cu.find("__launch_bounds__(256) skelcast_matmul(const float (*restrict A)[32], "
                    "const float (*restrict B)[64], float (*restrict C)[64])"),
            std::string::npos)
      << cu;
  // the C indices are `int` and the space is small: 32-bit task coordinates
  EXPECT_NE(cu.find("const int sk_t1 = (int)blockIdx.x * 16 + (int)threadIdx.x;"), std::string::npos)
      << cu;
  EXPECT_NE(cu.find("const int sk_t0 = (int)blockIdx.y * 16 + (int)threadIdx.y;"), std::string::npos);
  // the C statements, macros folded; k is private (declared outside the nest)
  EXPECT_NE(cu.find("sum += A[i][k] * B[k][j];"), std::string::npos);
  EXPECT_NE(cu.find("int k; // private"), std::string::npos);
  EXPECT_EQ(cu.find("comp "), std::string::npos);
  EXPECT_EQ(cu.find("__syncthreads();"), std::string::npos);
  EXPECT_NE(cu.find("#define SKELCAST_BARRIERS 0"), std::string::npos);
  // the host runs the C nest for reference; grid 4 x 4
  EXPECT_NE(cu.find("static void skelcast_reference("), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(4, 4, 1), block(16, 16, 1);"), std::string::npos) << cu;
  EXPECT_NE(cu.find("\"layout\\\": \\\"block=i:16,j:16\\\""), std::string::npos);
}

TEST(Emit, AnElementPairIsOneAccessWhereItsOrderCannotMatter) {
  // complex numbers as [..][2] (tests/data/emit/complex_pairs.c has them all)
  const std::string head = R"(#define N 256
double x[N][2], y[N][2];
float f[N][2];
)";
  auto kernelOf = [](const std::string &cu) {
    return cu.substr(0, cu.find("#ifndef __CUDA_ARCH__ // the host driver"));
  };
  // two stores of one pair, the second reading only its own element: one
  // 16-byte store; x's reads: members of its pair
  std::string cu = kernelOf(emitOne(head + R"(void k(void) {
  for (int i = 0; i < N; i++) {
    double re = 2 * x[i][0] - x[i][1];
    y[i][0] = y[i][0] + re;
    y[i][1] = y[i][1] + x[i][0];
  }
})",
                                    "naive"));
  EXPECT_NE(cu.find("struct __align__(16) sk_double2 { double x, y; };"), std::string::npos) << cu;
  EXPECT_NE(cu.find("*(sk_double2 *)&y[i][0] = sk_double2{(double)(y[i][0] + re), "
                    "(double)(y[i][1] + ((const sk_double2 *)&x[i][0])->x)};"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("double re = 2 * ((const sk_double2 *)&x[i][0])->x - "
                    "((const sk_double2 *)&x[i][0])->y;"),
            std::string::npos)
      << cu;
  EXPECT_EQ(cu.find("sk_float2"), std::string::npos) << cu;
  // the second store reads what the first wrote: two stores, as written
  cu = kernelOf(emitOne(head + R"(void k(void) {
  for (int i = 0; i < N; i++) {
    f[i][0] = 2.0f * i;
    f[i][1] = f[i][0] + 1.0f;
  }
})",
                        "naive"));
  EXPECT_NE(cu.find("f[i][0] = 2.F * i;\n  f[i][1] = f[i][0] + 1.F;"), std::string::npos) << cu;
  EXPECT_EQ(cu.find("sk_float2"), std::string::npos) << cu;
  // ... or another element of the array, which, to the text, may be the first's
  cu = kernelOf(emitOne(head + R"(void k(void) {
  for (int i = 0; i < N / 2; i++) {
    f[2 * i][0] = 1.0f;
    f[2 * i][1] = f[2 * i + 1][0];
  }
})",
                        "naive"));
  EXPECT_EQ(cu.find("sk_float2"), std::string::npos) << cu;
  // written [1] first: one store, its members in their order; a compound
  // assignment reads its element: left as written
  cu = kernelOf(emitOne(head + R"(void k(void) {
  for (int i = 0; i < N; i++) {
    f[i][1] = 1.0f;
    f[i][0] = 2.0f;
    y[i][0] += 1.0;
    y[i][1] += 2.0;
  }
})",
                        "naive"));
  EXPECT_NE(cu.find("*(sk_float2 *)&f[i][0] = sk_float2{(float)(2.F), (float)(1.F)};"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("y[i][0] += 1.;\n  y[i][1] += 2.;"), std::string::npos) << cu;
  EXPECT_EQ(cu.find("sk_double2"), std::string::npos) << cu;
  // through pointer parameters (the read-only one `const` on its elements);
  // a read in the declaration of an unnamed enum stays as written
  cu = kernelOf(emitOne(head + R"(void k(double (*d)[2], double (*s)[2]) {
  for (int i = 0; i < N; i++) {
    enum { KEEP, FLIP } how = s[i][0] > s[i][1] ? FLIP : KEEP;
    d[i][0] = how == FLIP ? s[i][1] : s[i][0];
    d[i][1] = how == FLIP ? s[i][0] : s[i][1];
  }
}
void run(void) { k(y, x); })",
                        "naive"));
  EXPECT_NE(cu.find("skelcast_k(double (*restrict d)[2], const double (*restrict s)[2])"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("} how = s[i][0] > s[i][1] ? FLIP : KEEP;"), std::string::npos) << cu;
  EXPECT_NE(cu.find("*(sk_double2 *)&d[i][0] = sk_double2{"), std::string::npos) << cu;
}

TEST(Emit, TaskCoordinatesAre64BitWhereTheCIndexOrTheArraysNeedIt) {
  // a `long` index: the C loop may count past 2^31, so the task does too
  std::string code = kMatmul;
  code.replace(code.find("int i, j, k;"), 12, "long i; int j, k;");
  std::string cu = emitOne(code, "naive");
  EXPECT_NE(cu.find("const long long sk_t0 = (long long)blockIdx.y * 16 + (long long)threadIdx.y;"),
            std::string::npos)
      << cu;
  // a tile of an array of 2^30 elements or more: its flat offsets need 64 bits
  std::string big = R"(#define N 32768
float a[N][N], b[N][N];
void f(void) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      b[i][j] = a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1];
}
)";
  cu = emitOne(big, "block=i:16,j:16 cache=a");
  EXPECT_NE(cu.find("const long long sk_a_b0 = "), std::string::npos) << cu;
  cu = emitOne(big, "naive");
  EXPECT_NE(cu.find("const int sk_t0 = (int)blockIdx.y * 16 + (int)threadIdx.y;"), std::string::npos)
      << cu;
  // a tile of a smaller array: its bases are int too
  std::string small = big;
  small.replace(small.find("32768"), 5, "4096");
  cu = emitOne(small, "block=i:16,j:16 cache=a");
  EXPECT_NE(cu.find("const int sk_a_b0 = -1 + 1 * (1 + (int)blockIdx.y * 16 * 1);"), std::string::npos)
      << cu;
  // few trips, but index values past 2^31 with a step of a million (the trip
  // arithmetic and init + task x step would wrap), and a first value near
  // INT_MAX (the padding tasks' indices would): 64 bits
  for (std::string code : {"float s;\nvoid f(void) {\n  float t = 0;\n"
                           "#pragma omp parallel for reduction(+ : t)\n"
                           "  for (int i = -2000000000; i < 2000000000; i += 1000000)\n"
                           "    t += 1.0f;\n  s = t;\n}\n",
                           "float x[4000];\nvoid f(void) {\n"
                           "  for (int i = 2147483000; i < 2147483647; i++)\n"
                           "    x[i - 2147483000] = 2.0f;\n}\n"}) {
    cu = emitOne(code, "naive");
    EXPECT_NE(cu.find("const long long sk_t0 = (long long)blockIdx.x * 256 + (long long)threadIdx.x;"),
              std::string::npos)
        << cu;
  }
}

TEST(Emit, FoldIsCyclicInsideTheBlockTile) {
  std::string cu = emitOne(kMatmul, "block=i:4,j:16 fold=i:2,j:2");
  EXPECT_NE(cu.find("for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0) { // fold=i:2"), std::string::npos);
  EXPECT_NE(cu.find("(int)blockIdx.x * 32 + sk_f1 * 16 + (int)threadIdx.x"), std::string::npos)
      << cu;
  // 64 = 8 tiles of 8 along i, 2 of 32 along j: no task outside the space
  EXPECT_NE(cu.find("// 'i': 64 trips, 8 whole tiles of 8: every task in range"), std::string::npos);
  EXPECT_EQ(cu.find("continue; // outside the loop space"), std::string::npos);
  EXPECT_NE(cu.find("const dim3 grid(2, 8, 1), block(16, 4, 1);"), std::string::npos);
}

TEST(Emit, AFlatArraysTileIsIndexedInTheSkeletonsDimensions) {
  // `u[(i - 1) * N + j]` is `u[i - 1][j]` in the skeleton: the tile read
  // takes those coordinates, with no division of the flat subscript by N on
  // every read (which nvcc cannot remove: jacobi_residual ran 1.2x slower)
  std::string code = R"(#define N 96
void f(const float *u, float *v) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      v[i * N + j] = u[(i - 1) * N + j] + u[i * N + (j + 1)] + u[(i + 1) * N + j - 1];
}
)";
  std::string cu = emitOne(code, "block=i:8,j:32 cache=u");
  EXPECT_NE(cu.find("sk_u_tile[(((int)(i) - 1) - sk_u_b0) * 34 + (((int)(j)) - sk_u_b1)]"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("sk_u_tile[(((int)(i)) - sk_u_b0) * 34 + (((int)(j) + 1) - sk_u_b1)]"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("sk_u_tile[(((int)(i) + 1) - sk_u_b0) * 34 + (((int)(j) - 1) - sk_u_b1)]"),
            std::string::npos)
      << cu;
  EXPECT_EQ(cu.find(" / 96"), std::string::npos) << cu;
}

TEST(Emit, AFlatArrayReadAcrossItsRowsFillsItsTileByTheFlatOffset) {
  // `u[i * N + j - 1]` at j = 0 is the row before's last element in C; the
  // skeleton's split puts it at column -1 of row i, so the fill must take
  // that slot by its flat offset, not skip it as outside the row
  std::string code = R"(#define N 96
void f(const float *u, float *v) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 0; j < N; j++)
      v[i * N + j] = u[i * N + j - 1] + u[(i + 1) * N - 1 + j];
}
)";
  std::string cu = emitOne(code, "block=i:8,j:32 cache=u");
  EXPECT_NE(cu.find("if (sk_g1 * 1 + sk_g0 * 96 >= 0 && sk_g1 * 1 + sk_g0 * 96 < 9216)"),
            std::string::npos)
      << cu;
  // reads that stay in their rows keep the test of each coordinate
  std::string inRows = R"(#define N 96
void f(const float *u, float *v) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      v[i * N + j] = u[i * N + j - 1] + u[(i + 1) * N + j + 1];
}
)";
  cu = emitOne(inRows, "block=i:8,j:32 cache=u");
  EXPECT_NE(cu.find("if (sk_g1 >= 0 && sk_g1 < 96 && sk_g0 >= 0 && sk_g0 < 96)"), std::string::npos)
      << cu;
}

/// Where `what` is in `cu` after `from`, failing the test when it is not.
size_t at(const std::string &cu, const std::string &what, size_t from = 0) {
  size_t p = cu.find(what, from);
  EXPECT_NE(p, std::string::npos) << "expected '" << what << "' after offset " << from
                                  << " in:\n" << cu;
  return p == std::string::npos ? from : p;
}

TEST(Emit, AFoldedLayoutIsARegisterTileInsideTheStreamingLoop) {
  // eq. 13's register tile: the 8 tasks run inside `for k`, so B[k][j] is one
  // load for the 4 rows of a thread; `sum` is one register per task
  std::string cu = emitOne(kMatmul, "block=i:2,j:16 fold=i:4,j:2 unroll=k:8");
  at(cu, "// Folding: a register tile, the thread's 8 tasks run inside the streaming loop 'k'");
  at(cu, "float sum[8]; // one per task of the thread");
  size_t init = at(cu, "sum[sk_fl] = 0;");
  size_t loop = at(cu, "#pragma unroll 8\n  for (k = 0; k < 32; ++k) { // the thread's tasks run "
                       "inside\n",
                   init);
  size_t f0 = at(cu, "#pragma unroll\n      for (int sk_f0 = 0; sk_f0 < 4; ++sk_f0)", loop);
  size_t f1 = at(cu, "#pragma unroll\n        for (int sk_f1 = 0; sk_f1 < 2; ++sk_f1)", f0);
  size_t body = at(cu, "sum[sk_fl] += A[i][k] * B[k][j];", f1);
  at(cu, "C[i][j] = sum[sk_fl];", body);
  // one k loop in the kernel (the next is the host's reference nest)
  EXPECT_GT(cu.find("for (k = 0;", body), cu.find("static void skelcast_reference")) << cu;
}

TEST(Emit, PartialTilesClampTheTasksPastTheEndBesideAFastPath) {
  std::string code = kMatmul;
  code.replace(code.find("#define N 64"), 12, "#define N 60");
  std::string cu = emitOne(code, "block=i:2,j:16 fold=i:4,j:2 unroll=k:8");
  // the threads whose last tasks are in range run the tile without guards
  size_t fast = at(cu, "if ((int)blockIdx.y * 8 + 6 + (int)threadIdx.y < ((int)(60) - (0) + "
                       "0) / 1 && (int)blockIdx.x * 32 + 16 + (int)threadIdx.x < ((int)(60) "
                       "- (0) + 0) / 1) { // every task of the thread in range");
  // the others, whose first task is in range, run every task: the ones past
  // the end at the last task's coordinates, their loads together, not one
  // task's load after another's under its guard
  size_t slow = at(cu, "} else if ((int)blockIdx.y * 8 + 0 + (int)threadIdx.y < ((int)(60) - (0) "
                       "+ 0) / 1 && (int)blockIdx.x * 32 + 0 + (int)threadIdx.x < ((int)(60) - "
                       "(0) + 0) / 1) { // the tasks past the end clamped to the last",
                   fast);
  EXPECT_EQ(cu.substr(fast, slow - fast).find("continue;"), std::string::npos) << cu;
  // the stores after the loops stay guarded: a clamped task's slot is never written back
  size_t store = at(cu, "if (!(sk_t0 < sk_n0 && sk_t1 < sk_n1)) continue; // outside the loop space",
                    slow);
  at(cu, "C[i][j] = sum[sk_fl];", store);
  std::string partial = cu.substr(slow, store - slow);
  size_t i = at(partial, "int i = (0) + (sk_t0 < sk_n0 ? sk_t0 : sk_n0 - 1);");
  size_t j = at(partial, "int j = (0) + (sk_t1 < sk_n1 ? sk_t1 : sk_n1 - 1);", i);
  at(partial, "sum[sk_fl] += A[i][k] * B[k][j];", j);
  EXPECT_EQ(partial.find("sk_active"), std::string::npos) << partial;
}

TEST(Emit, PartialTilesKeepEachTasksGuardWhenTheBodyDoesMoreThanFillItsSlots) {
  // a branch in the body: a clamped task would branch on its slot's value
  std::string code = kMatmul;
  code.replace(code.find("#define N 64"), 12, "#define N 60");
  code.replace(code.find("sum += A[i][k] * B[k][j];"), 25,
               "if (A[i][k] > 0) sum += A[i][k] * B[k][j];");
  std::string cu = emitOne(code, "block=i:2,j:16 fold=i:4,j:2 unroll=k:8");
  size_t fast = at(cu, "// every task of the thread in range");
  size_t slow = at(cu, "} else {", fast);
  size_t guard = at(cu, "if (!(sk_t0 < sk_n0 && sk_t1 < sk_n1)) continue; // outside the loop space",
                    slow);
  at(cu, "sum[sk_fl] += A[i][k] * B[k][j];", guard);
  EXPECT_EQ(cu.find("clamped to the last"), std::string::npos) << cu;
}

TEST(Emit, AFoldedStageRunsTheTasksInsideEachIterationOfTheStage) {
  std::string cu = emitOne(kMatmul, "block=i:4,j:16 fold=i:2,j:2 stage=k:16 cache=A,B unroll=k:16");
  size_t stage = at(cu, "for (int sk_k0 = 0; sk_k0 < 32; sk_k0 += 16)");
  size_t sync = at(cu, "__syncthreads();", stage);
  size_t k = at(cu, "#pragma unroll 16\n    for (k = sk_k0; k < sk_k0 + 16; k += 1) { // "
                    "the thread's tasks run inside",
                sync);
  size_t f0 = at(cu, "for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0)", k);
  at(cu, "sum[sk_fl] += sk_A_tile[", f0);
  at(cu, "__syncthreads();", f0);
}

TEST(Emit, AFoldedBodyThatIsNoTileSaysWhyInTheFile) {
  const std::string two = R"(#define N 64
float A[N][N], B[N][N], C[N][N];
void two(void) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;
      for (int k = 0; k < N; ++k)
        s += A[i][k];
      for (int k = 0; k < N; ++k)
        s += B[k][j];
      C[i][j] = s;
    }
}
)";
  std::string cu = emitOne(two, "block=i:4,j:16 fold=i:2,j:2");
  at(cu, "// Folding: a loop over the thread's 4 tasks, not a register tile: several loops side "
         "by side at the top of the nest's body");
  size_t f0 = at(cu, "for (int sk_f0 = 0; sk_f0 < 2; ++sk_f0)");
  at(cu, "float s = 0;", f0); // the task's own local, in the loop over tasks
  const std::string tri = R"(#define N 64
float A[N][N], C[N];
void tri(void) {
  for (int i = 0; i < N; ++i) {
    float s = 0;
    for (int k = 0; k <= i; ++k)
      s += A[i][k];
    C[i] = s;
  }
}
)";
  cu = emitOne(tri, "block=i:32 fold=i:2");
  at(cu, "not a register tile: the bounds of the streaming loop differ from task to task");
}

TEST(Emit, AFoldedLoopFreeBodyUnrollsItsTasks) {
  const std::string add = R"(#define N 256
float x[N], y[N];
void add(void) {
  for (int i = 0; i < N; ++i)
    y[i] = x[i] + 1;
}
)";
  std::string cu = emitOne(add, "block=i:32 fold=i:4");
  at(cu, "// Folding: the thread's 4 tasks, unrolled (the body has no loop).");
  at(cu, "#pragma unroll\n  for (int sk_f0 = 0; sk_f0 < 4; ++sk_f0)");
}

TEST(Emit, UnrollIsAPragmaOnTheCLoop) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 unroll=k:8");
  EXPECT_NE(cu.find("#pragma unroll 8\nfor (k = 0; k < 32; ++k)"), std::string::npos) << cu;
}

TEST(Emit, StageLoadsTilesOfTheCachedArraysBetweenBarriers) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
  EXPECT_NE(cu.find("cache=A: 16 x 16 elements per stage of 'k'"), std::string::npos) << cu;
  EXPECT_NE(cu.find("cache=B: 16 x 16 elements per stage of 'k'"), std::string::npos);
  EXPECT_NE(cu.find("for (int sk_k0 = 0; sk_k0 < 32; sk_k0 += 16)"), std::string::npos);
  EXPECT_NE(cu.find("sk_A_tile[((i) - sk_A_b0) * 16 + ((k) - sk_A_b1)]"), std::string::npos);
  EXPECT_NE(cu.find("#pragma unroll 16"), std::string::npos);
  EXPECT_NE(cu.find("__syncthreads();"), std::string::npos);
  EXPECT_NE(cu.find("const size_t smem = 2048;"), std::string::npos); // 2 x 256 floats
  // threads outside the space still meet the barriers: no early return
  EXPECT_EQ(cu.find("return; // outside"), std::string::npos);
}

TEST(Emit, AWholeStageRunsAConstantTripCount) {
  // the stage's first index has the C index's type and a whole stage no
  // test of the loop's end: `k < sk_k0 + 16` is 16 iterations to the
  // compiler, which unrolls them with their loads issued together
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
  size_t stage = at(cu, "for (int sk_k0 = 0; sk_k0 < 32; sk_k0 += 16) { // stages of 16 iterations");
  size_t whole = at(cu, "// every stage whole: 32 iterations = 2 stages of 16", stage);
  at(cu, "#pragma unroll 16\n        for (k = sk_k0; k < sk_k0 + 16; k += 1)\n", whole);
  EXPECT_EQ(cu.find("&& k < 32"), std::string::npos) << cu;
  // 40 = 2 whole stages of 16 and 8 more: the whole ones keep the constant
  // trip count, one test per stage picks the last one's loop
  std::string code = kMatmul;
  code.replace(code.find("#define K 32"), 12, "#define K 40");
  cu = emitOne(code, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
  size_t test = at(cu, "if (sk_k0 + 16 <= 40) { // a whole stage");
  size_t fast = at(cu, "for (k = sk_k0; k < sk_k0 + 16; k += 1)", test);
  size_t last = at(cu, "} else { // the last stage: 8 of 16 iterations", fast);
  at(cu, "for (k = sk_k0; k < 40; k += 1)", last);
}

TEST(Emit, ATileLoadIsRoundsOfTheBlockWithoutTestsWhenItLiesInsideTheArray) {
  // A's 16 x 16 tile of a stage is inside A for every block and stage: one
  // element per thread, no test; a tile at the array's edge is tested once,
  // and only a tile that crosses it tests its elements
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16");
  size_t a = at(cu, "// the tile lies inside A for every block and stage\n");
  at(cu, "for (int sk_r = 0; sk_r < 1; ++sk_r) { // 256 elements, 256 threads\n"
         "      const int sk_q = sk_tid + sk_r * 256;\n",
     a);
  EXPECT_EQ(cu.find("if (sk_g1 >= 0"), std::string::npos) << cu;
  const std::string stencil = R"(#define N 64
float in[N][N], out[N][N];
void jacobi(void) {
  for (int i = 1; i < N - 1; ++i)
    for (int j = 1; j < N - 1; ++j)
      out[i][j] = 0.25f * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
)";
  cu = emitOne(stencil, "block=i:8,j:32 cache=in");
  size_t test = at(cu, "if (sk_in_b0 >= 0 && sk_in_b0 + 10 <= 64 && sk_in_b1 >= 0 && sk_in_b1 + "
                       "34 <= 64) { // the whole tile inside in");
  size_t rounds = at(cu, "for (int sk_r = 0; sk_r < 1; ++sk_r) { // 340 elements, 256 threads", test);
  size_t rest = at(cu, "if (sk_tid < 84) { // the last 84 elements", rounds);
  size_t slow = at(cu, "} else {", rest);
  at(cu, "if (sk_g1 >= 0 && sk_g1 < 64 && sk_g0 >= 0 && sk_g0 < 64)", slow);
}

TEST(Emit, ReadsInADeclarationsInitialValueReadTheTile) {
  // clang prints a declaration's initial value without the printer helper:
  // `float c = in[i][j];` must still read the tile in a `cache=in` layout
  // (SpinFlap's `int c = M[i][n];`), each declarator of a list included,
  // and a for-loop's start (IspinEx's `for (int n = J[j]; ...)`) too
  const std::string stencil = R"(#define N 64
float in[N][N], out[N][N];
int J[N + 1];
void jacobi(void) {
  for (int i = 1; i < N - 1; ++i)
    for (int j = 1; j < N - 1; ++j) {
      float c = in[i][j];
      float l = in[i][j - 1] + in[i][j + 1], u = in[i - 1][j] + in[i + 1][j];
      out[i][j] = c + 0.25f * (l + u);
    }
}
)";
  std::string cu = emitOne(stencil, "block=i:8,j:32 cache=in");
  at(cu, "float c = sk_in_tile[((i) - sk_in_b0) * 34 + ((j) - sk_in_b1)];");
  at(cu, "float l = sk_in_tile[((i) - sk_in_b0) * 34 + ((j - 1) - sk_in_b1)] + "
         "sk_in_tile[((i) - sk_in_b0) * 34 + ((j + 1) - sk_in_b1)];");
  at(cu, "float u = sk_in_tile[((i - 1) - sk_in_b0) * 34 + ((j) - sk_in_b1)] + "
         "sk_in_tile[((i + 1) - sk_in_b0) * 34 + ((j) - sk_in_b1)];");
  size_t kernelEnd = at(cu, "#ifndef __CUDA_ARCH__ // the host driver");
  size_t global = cu.find("in[i][j]");
  EXPECT_TRUE(global == std::string::npos || global > kernelEnd)
      << "the kernel reads in[i][j] from global memory:\n" << cu;
  const std::string csr = R"(#define N 64
float x[N], y[N], v[4 * N];
int J[N + 1], I[4 * N];
void spmv(void) {
  for (int j = 0; j < N; ++j) {
    float s = 0;
    for (int n = J[j]; n < J[j + 1]; n++)
      s += v[n] * x[I[n]];
    y[j] = s;
  }
}
)";
  cu = emitOne(csr, "block=j:32 cache=J");
  at(cu, "for (int n = sk_J_tile[((j) - sk_J_b0)]; n < sk_J_tile[((j + 1) - sk_J_b0)]; n++)");
  // a declaration that also defines its type: the type first, then the
  // variable, whose initial value reads the element's register (a stale
  // global read here is a wrong result, not only a slow one)
  const std::string tagged = R"(#define N 64
float A[N][N], B[N][N], tmp[N][N];
void mm_acc(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < N; k++) {
        enum E { Z0 } t = (enum E)(int)tmp[i][j];
        tmp[i][j] = (int)t + A[i][k] * B[k][j];
      }
    }
}
)";
  cu = emitOne(tagged, "block=i:4,j:16 fold=i:2,j:2");
  size_t type = at(cu, "enum E {");
  at(cu, "enum E t = (enum E)(int)sk_tmp_reg[sk_fl];", type);
  // an unnamed type cannot be named in the variable's own declaration: refused
  std::string unnamed = tagged;
  unnamed.replace(unnamed.find("enum E { Z0 } t = (enum E)"), 26, "enum { Z0 } t = ");
  try {
    emitOne(unnamed, "block=i:4,j:16 fold=i:2,j:2");
    FAIL() << "an unnamed enum whose variable reads a register was emitted";
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, 8);
    EXPECT_NE(e.message().find("a declaration of an unnamed struct, union or enum"), std::string::npos)
        << e.message();
  }
}

TEST(Emit, AnElementAccumulatedInTheStreamingLoopIsARegister) {
  // PolyBench's tmp[i][j] = 0; tmp[i][j] += ...: in a staged register tile
  // the element is one register per task, stored once after the loop
  const std::string acc = R"(#define N 64
float A[N][N], B[N][N], tmp[N][N];
void mm_acc(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      tmp[i][j] = 0.0f;
      for (int k = 0; k < N; k++)
        tmp[i][j] += A[i][k] * B[k][j];
    }
}
)";
  std::string cu = emitOne(acc, "block=i:4,j:16 fold=i:2,j:2 stage=k:16 cache=A,B unroll=k:16");
  size_t decl = at(cu, "float sk_tmp_reg[4]; // tmp[i][j] of each task, in a register across "
                       "the streaming loop");
  size_t init = at(cu, "sk_tmp_reg[sk_fl] = 0.F;", decl); // the first use stores it: no load
  EXPECT_EQ(cu.find("= tmp[i][j]; // in a register"), std::string::npos) << cu;
  size_t k = at(cu, "for (int k = sk_k0; k < sk_k0 + 16; k += 1)", init);
  size_t body = at(cu, "sk_tmp_reg[sk_fl] += sk_A_tile[", k);
  size_t store = at(cu, "tmp[i][j] = sk_tmp_reg[sk_fl];", body);
  // in the kernel, tmp is touched by that store alone
  size_t kernelEnd = cu.find("static void skelcast_reference");
  EXPECT_EQ(cu.substr(0, kernelEnd).find("tmp[i][j] +="), std::string::npos);
  EXPECT_EQ(cu.substr(store + 1, kernelEnd - store - 1).find("tmp[i][j]"), std::string::npos);
  // read before it is written: loaded first
  std::string more = acc;
  more.replace(more.find("tmp[i][j] = 0.0f;"), 17, "tmp[i][j] *= 0.5f;");
  cu = emitOne(more, "block=i:4,j:16 fold=i:2,j:2 stage=k:16 cache=A,B unroll=k:16");
  size_t load = at(cu, "sk_tmp_reg[sk_fl] = tmp[i][j]; // in a register across the streaming loop");
  at(cu, "sk_tmp_reg[sk_fl] *= 0.5F;", load);
  // subscripts written otherwise (here the same element, which emit does not
  // prove): tmp stays in memory
  std::string other = acc;
  other.replace(other.find("tmp[i][j] +="), 12, "tmp[i][j + 0] +=");
  cu = emitOne(other, "block=i:4,j:16 fold=i:2,j:2 unroll=k:16");
  EXPECT_EQ(cu.find("sk_tmp_reg"), std::string::npos) << cu;
  at(cu, "tmp[i][j + 0] += A[i][k] * B[k][j];");
}

TEST(Emit, AnElementAccumulatedInAnInnerLoopBesideItsArraysOtherRowsIsARegister) {
  // trmm by columns: B[i][j] accumulates over k while the loop reads B[k][j];
  // k > i in every iteration, so the element is a register across the k loop
  // (nvcc cannot tell the two apart and keeps it in memory)
  const std::string trmm = R"(#define M 64
#define N 96
double A[M][M], B[M][N];
void trmm(double alpha) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      for (int k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}
)";
  std::string cu = emitOne(trmm, "block=j:32 unroll=k:4");
  size_t load = at(cu, "double sk_B_acc0 = B[i][j]; // in a register across the loop 'k'");
  size_t loop = at(cu, "for (int k = i + 1; k < 64; k++)", load);
  size_t body = at(cu, "sk_B_acc0 += A[k][i] * B[k][j];", loop);
  at(cu, "B[i][j] = sk_B_acc0;", body);
  // k = 0 .. i - 1 and k > i walked downwards: apart as well
  for (const char *header : {"for (int k = 0; k < i; k++)", "for (int k = M - 1; k > i; k--)"}) {
    std::string other = trmm;
    other.replace(other.find("for (int k = i + 1; k < M; k++)"), 31, header);
    at(emitOne(other, "naive"), "double sk_B_acc0 = B[i][j];");
  }
  // k meets i (every row, its own included): the element stays in memory
  std::string every = trmm;
  every.replace(every.find("k = i + 1"), 9, "k = 0");
  cu = emitOne(every, "naive");
  EXPECT_EQ(cu.find("sk_B_acc"), std::string::npos) << cu;
  at(cu, "B[i][j] += A[k][i] * B[k][j];");
  // what a review found (each kept the element in a register wrongly):
  // a variable of the loop named like one of the element's subscripts (another
  // `i` naming rows 0 and 1), the loop's index written in the body (the header
  // no longer says which rows it visits), and no access of the element beside
  // the loop (the loop may run zero times, or touch the element under a test:
  // the load before it would read memory the C never touches)
  for (const char *body :
       {"for (int k = i + 1; k < M; k++) {\n        B[i][j] += A[k][i] * B[k][j];\n"
        "        for (int i = 0; i < 2; i++) B[i][j] += 0.001 * A[k][i];\n      }",
        "for (int k = i + 1; k < M; k++) {\n        B[i][j] += A[k][i] * B[k][j];\n"
        "        if (k == M - 1 && i > 0) k = i - 1;\n      }"}) {
    std::string bad = trmm;
    size_t from = bad.find("for (int k = i + 1; k < M; k++)");
    size_t to = bad.find("B[i][j] = alpha");
    bad.replace(from, to - from, std::string(body) + "\n      ");
    cu = emitOne(bad, "naive");
    EXPECT_EQ(cu.find("sk_B_acc"), std::string::npos) << cu;
  }
  std::string alone = trmm;
  alone.replace(alone.find("      B[i][j] = alpha * B[i][j];\n"), 33, "");
  cu = emitOne(alone, "naive");
  EXPECT_EQ(cu.find("sk_B_acc"), std::string::npos) << cu;
  std::string guarded = trmm;
  guarded.replace(guarded.find("      B[i][j] = alpha * B[i][j];\n"), 33,
                  "      if (i > 0) B[i][j] = alpha * B[i][j];\n");
  cu = emitOne(guarded, "naive");
  EXPECT_EQ(cu.find("sk_B_acc"), std::string::npos) << cu;
  // the only access of its array in the loop: left to the compiler
  cu = emitOne(R"(#define N 64
float A[N][N], B[N][N], C[N][N];
void mm(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}
)",
               "naive");
  EXPECT_EQ(cu.find("sk_C_acc"), std::string::npos) << cu;
}

TEST(Emit, TheFilesOwnTypedefsAreWrittenBeforeTheKernel) {
  // PolyBench's nussinov names its element type `base`; a typedef naming
  // another comes after it; those of system headers are the headers' business
  std::string cu = emitOne(R"(#include <stddef.h>
#define N 64
typedef float real;
typedef real pair[2];
pair p[N];
real y[N];
void f(void) {
  for (size_t i = 0; i < N; i++)
    y[i] = (real)i * p[i][0];
}
)",
                           "naive");
  size_t real = at(cu, "typedef float real; // as k.c declares it");
  size_t pair = at(cu, "typedef real pair[2]; // as k.c declares it", real);
  at(cu, "__global__", pair);
  EXPECT_EQ(cu.find("typedef unsigned long size_t"), std::string::npos) << cu;
  at(cu, "#include <stdint.h>"); // size_t's header, before the file's typedefs
  // a typedef C++ keeps for itself is not written (the kernel uses C++'s bool)
  cu = emitOne(R"(#define N 64
typedef int bool;
bool on[N];
float y[N];
void g(void) {
  for (int i = 0; i < N; i++)
    y[i] = on[i] ? 1.0f : 0.0f;
}
)",
               "naive");
  EXPECT_EQ(cu.find("typedef int bool"), std::string::npos) << cu;
}

TEST(Emit, ATypedefOfAnEnumIsRefusedAtTheTypedef) {
  // emit writes no struct, union or enum definitions: the kernel is refused,
  // positioned at the typedef, instead of a file nvcc cannot build
  skelcast::testsupport::TempDir dir("skelcast-emit");
  std::string path = dir.write("k.c", R"(#define N 64
typedef enum { LOW, HIGH } level_t;
double x[N], y[N];
void h(void) {
  for (int i = 0; i < N; i++) {
    level_t l = x[i] > 0.5 ? HIGH : LOW;
    y[i] = l == HIGH ? 1.0 : x[i];
  }
}
)");
  skelcast::hw::HwSpec hw = skelcast::hw::resolveHwSpec("h100", SKELCAST_SOURCE_DIR "/hwspecs");
  std::ostringstream diag;
  std::vector<skelcast::Warning> warnings;
  try {
    emit::emitCuda(
        path, {}, {},
        [&](const skelcast::frontend::SkeletonizeResult &res) {
          emit::KernelChoice c;
          c.kernel = 0;
          c.layout = emit::naiveLayout(layout::analyzeKernel(res.file, 0));
          c.tag = "t";
          return std::vector<emit::KernelChoice>{c};
        },
        diag, warnings);
    FAIL() << "emitted a kernel naming an enum typedef";
  } catch (const skelcast::InputError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("k.c:2:28"), std::string::npos) << what;
    EXPECT_NE(what.find("the type 'level_t', which emit cannot write"), std::string::npos) << what;
  }
}

TEST(Emit, ATileOverADataBoundLoopSharesTheUnfoldedIndex) {
  // CSR times dense (IspinEx): the n loop's bounds read J at j; with j not
  // folded they are the same for the thread's tasks, which run inside it
  const std::string csr = R"(#define ROWS 16
#define COLS 256
#define ELEMS 64
int J[ROWS + 1], I[ELEMS];
float T[ELEMS], B[ROWS][COLS], C[ROWS][COLS];
void spmm(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float sum = 0.0f;
      for (int n = J[j]; n < J[j + 1]; n++)
        sum += T[n] * B[I[n]][i];
      C[j][i] = sum;
    }
}
)";
  std::string cu = emitOne(csr, "block=j:4,i:8 fold=i:8 unroll=n:4");
  at(cu, "// Folding: a register tile, the thread's 8 tasks run inside the streaming loop 'n'");
  size_t j = at(cu, "const int sk_t0 = (int)blockIdx.y * 4 + (int)threadIdx.y;\n"
                    "    int j = (0) + sk_t0;\n"
                    "    // the streaming loop's bounds read 'j', the same for all of the "
                    "thread's tasks\n");
  size_t n = at(cu, "for (int n = J[j]; n < J[j + 1]; n++) { // the thread's tasks run inside", j);
  size_t f = at(cu, "for (int sk_f1 = 0; sk_f1 < 8; ++sk_f1) { // fold=i:8", n);
  at(cu, "sum[sk_fl] += T[n] * B[I[n]][i];", f);
  // j folded: its tasks' bounds differ, the tasks stay a loop
  cu = emitOne(csr, "block=j:2,i:8 fold=j:2,i:4 unroll=n:4");
  at(cu, "not a register tile: the bounds of the streaming loop differ from task to task");
  // the bounds in locals (examples/ispinex_complex.c): computed once per thread
  std::string locals = csr;
  locals.replace(locals.find("      for (int n = J[j]; n < J[j + 1]; n++)"), 44,
                 "      int begin = J[j];\n      int end = J[j + 1];\n"
                 "      for (int n = begin; n < end; n++)");
  cu = emitOne(locals, "block=j:4,i:8 fold=i:8 unroll=n:4");
  size_t decl = at(cu, "    int begin = J[j];\n    int end = J[j + 1];\n");
  at(cu, "for (int n = begin; n < end; n++) { // the thread's tasks run inside", decl);
  EXPECT_EQ(cu.find("begin[sk_fl]"), std::string::npos) << cu;
  // a local the statements after the loop read stays the task's: no tile
  std::string after = locals;
  after.replace(after.find("C[j][i] = sum;"), 14, "C[j][i] = sum / (end - begin + 1);");
  cu = emitOne(after, "block=j:4,i:8 fold=i:8 unroll=n:4");
  at(cu, "not a register tile: the bounds of the streaming loop differ from task to task");
}

TEST(Emit, CacheWithoutStageLoadsTheWholeBlockFootprintOnce) {
  std::string cu = emitOne(kMatmul, "block=i:16,j:16 cache=A");
  EXPECT_NE(cu.find("cache=A: 16 x 32 elements of the block's footprint"), std::string::npos)
      << cu;
}

TEST(Emit, AReductionIsAPartialABlockTreeAndOneAtomicPerBlock) {
  const std::string dot = R"(#define N 1024
float x[N], y[N];
float dot(void) {
  float s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < N; ++i)
    s += x[i] * y[i];
  return s;
}
)";
  std::string cu = emitOne(dot, "block=i:128 fold=i:2");
  for (const char *part :
       {"#define SKELCAST_BARRIERS 1", "float *sk_red_s)", "float s = 0; // the thread's partial of reduce(+: s)",
        "extern __shared__ __align__(16) unsigned char sk_smem[];",
        "float *const sk_red = (float *)(sk_smem + 0);", "sk_red[sk_tid] = s;",
        "for (int sk_w = 1; sk_w < sk_threads; sk_w *= 2) {", "if (sk_tid == 0)",
        "atomicAdd(sk_red_s, sk_red[0]);", "const size_t smem = 512;",
        "#pragma omp parallel for reduction(+:s)", "*sk_result_s = s;",
        "SK_CHECK(cudaMemcpy(d_sk_s, &sk_start, sizeof(float), cudaMemcpyHostToDevice));"})
    EXPECT_NE(cu.find(part), std::string::npos) << part << "\n" << cu;
  // max of doubles: a compare-and-swap loop from -INFINITY
  std::string top = dot;
  top.replace(top.find("float s = 0;"), 12, "double s = 0;");
  top.replace(top.find("reduction(+:s)"), 14, "reduction(max:s)");
  top.replace(top.find("s += x[i] * y[i];"), 17, "s = s > x[i] ? s : x[i];");
  cu = emitOne(top, "naive");
  for (const char *part : {"double s = -INFINITY;", "sk_atomic_cas(sk_red_s, sk_red[0], [](const double a, "
                                                      "const double b) { return a > b ? a : b; });"})
    EXPECT_NE(cu.find(part), std::string::npos) << part << "\n" << cu;
}

TEST(Emit, AReductionWithoutAGpuOperatorIsRefusedAtTheVariable) {
  const std::string bits = R"(#define N 1024
int x[N];
int all(void) {
  int m = ~0;
#pragma omp parallel for reduction(&:m)
  for (int i = 0; i < N; ++i)
    m &= x[i];
  return m;
}
)";
  try {
    emitOne(bits, "naive");
    FAIL() << "a reduction with '&' was emitted";
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, 4);
    EXPECT_NE(e.message().find("cannot emit kernel 'all': the reduction into 'm' (its operator has "
                               "no GPU reduction that emit writes)"),
              std::string::npos)
        << e.message();
  }
}

TEST(Emit, LaunchShapeAndNaiveLayout) {
  layout::KernelInfo ki;
  ki.dimSize = {1000, 3};
  layout::Layout l = emit::naiveLayout(ki);
  EXPECT_EQ(l.block, (std::vector<int64_t>{16, 4})); // capped by the dimension, rounded up
  l.fold = {2, 1};
  emit::LaunchShape s = emit::launchShape(ki, l);
  EXPECT_EQ(s.block[0], 4);   // x: the last dimension
  EXPECT_EQ(s.block[1], 16);
  EXPECT_EQ(s.grid[0], 1);
  EXPECT_EQ(s.grid[1], 32);   // ceil(1000 / 32)
}

TEST(ValidateRun, ArchitectureFromTheSpec) {
  skelcast::hw::HwSpec hw = skelcast::hw::resolveHwSpec("h100", SKELCAST_SOURCE_DIR "/hwspecs");
  EXPECT_EQ(skelcast::cli::cudaArch(hw), "sm_90");
  hw.computeCapability.clear();
  EXPECT_THROW(skelcast::cli::cudaArch(hw), InputError);
}

TEST(ValidateRun, ANvccThatIsNotAnExecutableIsAnError) {
  EXPECT_THROW(skelcast::cli::findNvcc("/no/such/nvcc"), InputError);
}

TEST(ValidateRun, RecordsMergeIntoOneMeasurementFile) {
  auto rec = [](const char *layout) {
    return nlohmann::json::parse(std::string(R"({"schema_version": 1, "gpu": {"name": "G"},
      "method": "m", "cases": [{"kernel": "k", "layout": ")") + layout + R"("}]})");
  };
  nlohmann::json m = nlohmann::json::parse(skelcast::cli::mergeRecords({rec("a"), rec("b")}, "."));
  EXPECT_EQ(m["gpu"]["name"], "G");
  ASSERT_EQ(m["cases"].size(), 2u);
  EXPECT_EQ(m["cases"][1]["layout"], "b");
  // each case keeps how its program timed the launches
  nlohmann::json queued = rec("q");
  queued["timing"] = "back_to_back";
  nlohmann::json withTiming = nlohmann::json::parse(skelcast::cli::mergeRecords({queued, rec("a")}, "."));
  EXPECT_EQ(withTiming["cases"][0]["timing"], "back_to_back");
  EXPECT_FALSE(withTiming["cases"][1].contains("timing"));
  nlohmann::json other = rec("c");
  other["gpu"]["name"] = "H";
  EXPECT_THROW(skelcast::cli::mergeRecords({rec("a"), other}, "."), InputError);
}

// A record names the C file it was emitted from and the options it was read
// with, relative to the working directory, so validate projects it from C
// again (the user's path), not from the emitted skeleton.
TEST(ValidateRun, ARecordNamesItsCFileAndOptions) {
  nlohmann::json c = {{"kernel", "matvec"}, {"skeleton", "matvec_naive.skel"}};
  skelcast::frontend::SkeletonizeOptions so;
  so.clangArgs = {"-DN=4096"};
  so.extents["m"] = {64};
  so.trips["k"] = 9;
  so.function = "kernel_matvec";
  auto cwd = std::filesystem::current_path();
  skelcast::cli::nameCFile(c, (cwd / "examples" / "matvec.c").string(), so);
  EXPECT_FALSE(c.contains("skeleton")) << c.dump();
  EXPECT_EQ(c["c"], "examples/matvec.c") << c.dump();
  EXPECT_EQ(c["c_kernel"], "matvec");
  EXPECT_EQ(c["c_args"], nlohmann::json::array({"-DN=4096"}));
  EXPECT_EQ(c["c_extent"]["m"], nlohmann::json::array({64}));
  EXPECT_EQ(c["c_trip"]["k"], 9);
  EXPECT_EQ(c["c_function"], "kernel_matvec");
  nlohmann::json outside = {{"kernel", "k"}};
  skelcast::cli::nameCFile(outside, "/elsewhere/x.c", {});
  EXPECT_EQ(outside["c"], "/elsewhere/x.c");
  EXPECT_FALSE(outside.contains("c_args"));
}

} // namespace

TEST(Emit, ALoopTheLayoutDoesNotUnrollRunsRolled) {
  // "no unroll=" means a rolled loop, as the model projects it: without the
  // pragma nvcc unrolls a constant-trip loop by up to 32 and issues its loads
  // together (colmean's naive layout ran 10x faster than projected)
  std::string cu = emitOne(kMatmul, "naive");
  EXPECT_NE(cu.find("#pragma unroll 1\nfor (k = 0; k < 32; ++k)"), std::string::npos) << cu;
  // a loop that indexes an array of the thread is left to the compiler:
  // rolled, the array would go to local memory
  const std::string privateArray = R"(#define N 256
float a[N][8], out[N];
void f(void) {
  for (int i = 0; i < N; i++) {
    float t[8];
    for (int k = 0; k < 8; k++)
      t[k] = a[i][k] * 2.0f;
    float s = 0.0f;
    for (int k = 0; k < 8; k++)
      s += t[k];
    out[i] = s;
  }
}
)";
  std::string cu2 = emitOne(privateArray, "naive");
  EXPECT_EQ(cu2.find("#pragma unroll 1"), std::string::npos) << cu2;
}

TEST(Emit, AShortSampleOfAnIndexArrayIsRepeatedAndSaysSo) {
  // A sample of fewer values than its array repeats cyclically: the program's
  // M then names only the sampled columns, which a permutation past the sample
  // is not (SpinFlap 65536's M.txt of 2048 values once did this unnoticed).
  const std::string scatter = R"(#define COLS 64
int M[COLS];
float A[COLS], C[COLS];
void scatter(void) {
#pragma omp parallel for
  for (int i = 0; i < COLS; i++)
    C[M[i]] = 2 * A[i];
}
)";
  skelcast::testsupport::TempDir dir("skelcast-emit-sample");
  std::string shortSample, fullSample;
  for (int i = 0; i < 64; ++i)
    (i < 16 ? shortSample : fullSample) += std::to_string(i ^ 1) + " ";
  std::string shortFile = dir.write("short.txt", shortSample);
  std::string fullFile = dir.write("full.txt", shortSample + fullSample);
  auto emitWith = [&](const std::string &sample, std::vector<skelcast::Warning> &warnings) {
    skelcast::frontend::SkeletonizeOptions so;
    so.samples["M"] = sample; // an absolute path: the C file is in emitOne's own directory
    return emitOne(scatter, "naive", 0, &warnings, so);
  };
  std::vector<skelcast::Warning> warned, quiet;
  std::string cu = emitWith(shortFile, warned);
  EXPECT_NE(cu.find("h_M[k] = (int)s[k % 16]; } // the sample"), std::string::npos) << cu;
  bool said = false;
  for (const auto &w : warned)
    if (w.message.find("fills 'M' by repeating its sample's 16 values over its 64 elements") !=
        std::string::npos) {
      said = true;
      EXPECT_EQ(w.loc.line, 2) << "the warning is not at M's declaration: " << w.str();
    }
  EXPECT_TRUE(said) << "no warning that the program repeats M's 16 sampled values";
  emitWith(fullFile, quiet);
  for (const auto &w : quiet)
    EXPECT_EQ(w.message.find("by repeating its sample"), std::string::npos)
        << "a sample of every element warned: " << w.str();
}

TEST(Emit, TheHostFillsTheArraysThatBoundALoopSoItRunsItsTripHint) {
  // A streaming loop whose bounds read an array runs the trips the model
  // projects (`#pragma skelcast trip(N)`): row pointers as the ramp N x k
  // (IspinEx's J, once filled at random: each row its own trip count), counts
  // as lo + N; an index read through a scalar (`int r = I[n]; B[r][i]`) stays
  // within the extent it subscripts
  const std::string csr = R"(#define ROWS 16
#define COLS 64
int J[ROWS + 1], I[ROWS * 6], cnt[ROWS];
float T[ROWS * 6], B[ROWS][COLS], C[ROWS][COLS], D[ROWS][COLS];
void spmm(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float s = 0;
#pragma skelcast trip(6)
      for (int n = J[j]; n < J[j + 1]; n++) {
        int r = I[n];
        s += T[n] * B[r][i];
      }
      C[j][i] = s;
    }
}
void counted(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float s = 0;
#pragma skelcast trip(40)
      for (int n = 0; n < cnt[j]; n++)
        s += B[n][i];
      D[j][i] = s;
    }
}
)";
  std::string cu = emitOne(csr, "naive");
  at(cu, "for (size_t k = 0; k < h_J.size(); ++k) h_J[k] = (int)(k * 6); // row pointers: 6 trips "
         "of 'n' a row (the trip hint)");
  at(cu, "sk_fill(h_I, 2, 0, 16, true); // an index: within [0, 16)");
  // a count past what its index reads is capped there: B has 16 rows, not 40
  std::vector<skelcast::Warning> warnings;
  std::string counted = emitOne(csr, "naive", 1, &warnings);
  ASSERT_FALSE(counted.empty());
  at(counted, "std::fill(h_cnt.begin(), h_cnt.end(), (int)16); // the bound of 'n': its "
              "trip hint");
  // and says so: the measured program is not the projected one
  bool said = false;
  for (const auto &w : warnings)
    if (w.message.find("runs 16 trips of 'n': 40 would pass the arrays its index reads") !=
        std::string::npos) {
      said = true;
      EXPECT_EQ(w.loc.line, 22) << "the warning is not at the loop's `for`: " << w.str();
    }
  EXPECT_TRUE(said) << "no warning that the program runs 16 trips, not 40";
  // row pointers the element type cannot hold (100 rows of 1000 in a short:
  // 99,000) keep the usual fill rather than wrap
  const std::string wide = R"(#define ROWS 100
short P[ROWS + 1];
float v[ROWS * 1000], y[ROWS];
void rows(void) {
  for (int j = 0; j < ROWS; j++) {
    float s = 0;
#pragma skelcast trip(1000)
    for (int n = P[j]; n < P[j + 1]; n++)
      s += v[n];
    y[j] = s;
  }
}
)";
  std::string cw = emitOne(wide, "naive");
  EXPECT_EQ(cw.find("row pointers"), std::string::npos) << cw;
  at(cw, "sk_fill(h_P, 1, 0, 64, true);");
  // bounds read through locals (examples/ispinex_complex.c: `int begin = J[j],
  // end = J[j + 1]; for (n = begin; n < end; n++)`) are row pointers too:
  // filled at random, its rows ran 0-63 trips, not 6, and 2.8 times as long
  const std::string locals = R"(#define ROWS 16
#define COLS 64
int J[ROWS + 1], I[ROWS * 6];
float T[ROWS * 6], B[ROWS][COLS], C[ROWS][COLS];
void spmm(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float s = 0;
      int begin = J[j];
      int end = J[j + 1];
#pragma skelcast trip(6)
      for (int n = begin; n < end; n++) {
        int r = I[n];
        s += T[n] * B[r][i];
      }
      C[j][i] = s;
    }
}
)";
  at(emitOne(locals, "naive"), "for (size_t k = 0; k < h_J.size(); ++k) h_J[k] = (int)(k * 6); // row "
                               "pointers: 6 trips of 'n' a row (the trip hint)");
}

TEST(Emit, TwoSiblingLoopsBoundedByOneArrayKeepBothWithinTheirArrays) {
  // Two loops over n with the same row pointers: the first reads T[n] (96
  // elements), the second S[n] (20). Each n binds its own loop (the second is
  // n#2 to the analysis), so the second loop's S bounds the fill too: 1 trip a
  // row (16 rows x 1 < 20), not the 6 that T allows, and the warning points
  // at the second loop's `for` (line 12), the one that limits it.
  const std::string two = R"(#define ROWS 16
#define COLS 64
int J[ROWS + 1];
float T[ROWS * 6], S[20], C[ROWS][COLS];
void two(void) {
  for (int j = 0; j < ROWS; j++)
    for (int i = 0; i < COLS; i++) {
      float s = 0;
#pragma skelcast trip(6)
      for (int n = J[j]; n < J[j + 1]; n++)
        s += T[n];
#pragma skelcast trip(6)
      for (int n = J[j]; n < J[j + 1]; n++)
        s += S[n];
      C[j][i] = s;
    }
}
)";
  std::vector<skelcast::Warning> warnings;
  std::string cu = emitOne(two, "naive", 0, &warnings);
  at(cu, "for (size_t k = 0; k < h_J.size(); ++k) h_J[k] = (int)(k * 1); // row pointers: 1 trips "
         "of 'n' a row (the trip hint)");
  bool said = false;
  for (const auto &w : warnings)
    if (w.message.find("runs 1 trips of 'n' a row") != std::string::npos) {
      said = true;
      EXPECT_EQ(w.loc.line, 13) << "the warning is not at the second loop's `for`: " << w.str();
    }
  EXPECT_TRUE(said) << "no warning that the program runs 1 trip a row";
}

// The fingerprint a record carries (field "program", docs/validation.md): the
// whole program, the kernel and the host driver that launches it and fills its
// arrays, without its comments, its blank space and the line that prints it.
TEST(Emit, TheProgramFingerprintIsTheCodeWithoutCommentsOrItsOwnLine) {
  const std::string code = "__global__ void k(float *a) {\n  a[0] = 1.0f; // one store\n}\n"
                           "int main() {\n  fill(a, 7); /* the fill */\n"
                           "  std::printf(\"  \\\"program\\\": \\\"SKPROGRAM\\\",\\n\");\n}\n";
  const std::string fp = emit::programFingerprint(code);
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(fp, emit::programFingerprint("// another comment\n__global__  void k(float *a)\n{ a[0] = 1.0f;\n}\n"
                                         "int main() { fill(a, 7);\n}\n"))
      << "comments, blank space and the fingerprint's own line are not code";
  EXPECT_NE(fp, emit::programFingerprint("__global__ void k(float *a) {\n  a[0] = 2.0f;\n}\n"
                                         "int main() {\n  fill(a, 7);\n}\n"))
      << "the kernel's code";
  EXPECT_NE(fp, emit::programFingerprint("__global__ void k(float *a) {\n  a[0] = 1.0f;\n}\n"
                                         "int main() {\n  fill(a, 8);\n}\n"))
      << "the host's fill: what the kernel reads";
  EXPECT_NE(fp, emit::programFingerprint("__global__ void k(float *a) {\n#pragma unroll 4\n  a[0] = 1.0f;\n}\n"
                                         "int main() {\n  fill(a, 7);\n}\n"))
      << "a pragma is code";
}

// A cached array's tile (layout::sharedTile, which emit writes) is refused
// for the first reason its reads give, in the order of the subscripts, the
// reads and the loop variables, each named in the layout's error.
TEST(Emit, ACachedTileIsRefusedForTheFirstReasonItsReadsGive) {
  auto refusal = [](const std::string &code, const std::string &layoutText) -> std::string {
    try {
      emitOne(code, layoutText);
    } catch (const InputError &e) {
      return e.message();
    }
    return "(emitted)";
  };
  const std::string head = "#define N 1024\nfloat a[N], out[N];\nint idx[N];\nvoid kern(void) {\n"
                           "  for (int i = 0; i < N; i++) {\n    float s = 0;\n"
                           "    for (int k = 0; k < idx[i]; k++)\n";
  const std::string tail = "    out[i] = s;\n  }\n}\n";
  // the first read's subscript reads data: not affine, before the loop's trip
  std::string m = refusal(head + "      s += a[idx[k]] + a[k];\n" + tail, "block=i:32 cache=a");
  EXPECT_NE(m.find("a subscript is not affine in the loop indices"), std::string::npos) << m;
  // the first read is affine in a loop whose trip reads data
  m = refusal(head + "      s += a[k] + a[idx[k]];\n" + tail, "block=i:32 cache=a");
  EXPECT_NE(m.find("loop 'k' around a read has no constant trip count"), std::string::npos) << m;
  // a row read beside a column read
  m = refusal("#define N 256\nfloat A[N][N], B[N][N];\nvoid k(void) {\n  for (int i = 0; i < N; i++)\n"
              "    for (int j = 0; j < N; j++)\n      B[i][j] = A[i][j] + A[j][i];\n}\n",
              "block=i:16,j:16 cache=A");
  EXPECT_NE(m.find("its accesses move differently with 'i'"), std::string::npos) << m;
}
