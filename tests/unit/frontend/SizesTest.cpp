// Sizes that are parameters: values followed from the file's calls (PolyBench's
// `main` → `kernel_gemm(ni, nj, nk, ...)`), and the one message that asks for
// those read at run time.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code, const SkeletonizeOptions &opts = {}) {
  return testsupport::skeletonizeText(code, "t.c", opts);
}

// PolyBench 4.2's shape: sizes as macros copied into locals of main, passed to
// the kernel, arrays declared with the macros.
const char *kGemm = R"(
#define NI 200
#define NJ 220
#define NK 240
static void kernel_gemm(int ni, int nj, int nk, float alpha, float beta,
                        float C[NI][NJ], float A[NI][NK], float B[NK][NJ]) {
  int i, j, k;
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
float C[NI][NJ], A[NI][NK], B[NK][NJ];
int main(int argc, char **argv) {
  int ni = NI;
  int nj = NJ;
  int nk = NK;
  kernel_gemm(ni, nj, nk, 1.5f, 1.2f, C, A, B);
  return 0;
}
)";

} // namespace

TEST(Sizes, ParametersTakeTheMacroTheCallerPasses) {
  Out o = run(kGemm);
  ASSERT_TRUE(o.ok) << o.error;
  // the loop space is ni, written as the macro main passes
  EXPECT_TRUE(has(o.text, "parallel_for kernel_gemm(NI")) << o.text;
  EXPECT_FALSE(has(o.warnings, "not a known constant")) << o.warnings;
}

TEST(Sizes, ALiteralArgumentNamesTheParameter) {
  Out o = run(R"(
void scale(int n, float *restrict a, const float *restrict b) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * b[i];
}
float x[1000], y[1000];
int main(void) { scale(1000, x, y); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "#define n 1000")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for scale(n)")) << o.text;
  EXPECT_TRUE(has(o.text, "passed by 'main' (t.c:7:")) << o.text;
}

TEST(Sizes, ThroughAChainOfCallers) {
  Out o = run(R"(
#define LEN 4096
void axpy(int n, float s, float *restrict y, const float *restrict x) {
  for (int i = 0; i < n; i++)
    y[i] += s * x[i];
}
void run(int m, float *restrict y, const float *restrict x) { axpy(m, 2.0f, y, x); }
float X[LEN], Y[LEN];
int main(void) { const int len = LEN; run(len, Y, X); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for axpy(LEN)")) << o.text;
}

TEST(Sizes, CallsThatDisagreeGiveNoValueAndSaySo) {
  Out o = run(R"(
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[1000];
int main(void) { scale(100, x); scale(1000, x); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'scale' is called with 100 (t.c:7:18) and 1000 (t.c:7:33)")) << o.error;
  EXPECT_TRUE(has(o.error, "--extent n=VALUE")) << o.error;
}

TEST(Sizes, AValueReadAtRunTimeIsNamedWithItsPosition) {
  Out o = run(R"(
#include <stdlib.h>
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[1000];
int main(int argc, char **argv) { int n = atoi(argv[1]); scale(n, x); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'scale' is called at t.c:8:58 with 'atoi(argv[1])', known only at run time")) << o.error;
  // --extent supplies it
  SkeletonizeOptions opts;
  opts.extents["n"] = {1000};
  Out g = run(R"(
#include <stdlib.h>
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[1000];
int main(int argc, char **argv) { int n = atoi(argv[1]); scale(n, x); return 0; }
)",
              opts);
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_TRUE(has(g.text, "parallel_for scale(n)")) << g.text;
}

TEST(Sizes, ALocalAssignedAgainIsNotAValue) {
  Out o = run(R"(
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[4096];
int main(void) {
  int n = 16;
  for (; n <= 4096; n *= 2)
    scale(n, x);
  return 0;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'scale' is called at t.c:10:5 with 'n', which 'main' assigns again")) << o.error;
}

TEST(Sizes, AFunctionCalledThroughAPointerHasNoKnownArguments) {
  Out o = run(R"(
void scale(int n, float *restrict a) {
  for (int i = 0; i < n; i++)
    a[i] = 2.0f * a[i];
}
float x[64];
void (*op)(int, float *restrict) = scale;
int main(void) { scale(64, x); op(32, x); return 0; }
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "'scale' is called through a pointer")) << o.error;
}

TEST(Sizes, TimeStepCountsFromTheCaller) {
  // PolyBench's stencils: `kernel_jacobi_1d(tsteps, n, A, B)`
  Out o = run(R"(
#define TSTEPS 100
#define N 4000
static void kernel_jacobi_1d(int tsteps, int n, double A[N], double B[N]) {
  int t, i;
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i-1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
  }
}
double A[N], B[N];
int main(void) { int n = N; int tsteps = TSTEPS; kernel_jacobi_1d(tsteps, n, A, B); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "repeat TSTEPS")) << o.text;
  EXPECT_FALSE(has(o.warnings, "trip count")) << o.warnings;
}

TEST(Sizes, EveryMissingSizeIsAskedForInOneMessage) {
  // Rodinia's shape: sizes read from the command line, used by two nests
  Out o = run(R"(
#include <stdlib.h>
float out[4096][4096], in[4096][4096], v[4096];
void step(int rows, int cols) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      out[r][c] = 0.5f * in[r][c];
  for (int r = 0; r < rows; r++)
    v[r] += 1.0f;
}
int main(int argc, char **argv) {
  int rows = atoi(argv[1]), cols = atoi(argv[2]);
  step(rows, cols);
  return 0;
}
)");
  EXPECT_FALSE(o.ok);
  EXPECT_TRUE(has(o.error, "sizes not known at compile time: 'rows' (the loops at 5:3, 8:3); "
                           "give them with --extent rows=VALUE"))
      << o.error;
}
