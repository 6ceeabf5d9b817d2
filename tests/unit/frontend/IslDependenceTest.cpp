// The skeletonizer's array dependence test on isl (Dependence.cpp,
// PolyNestBuilder.cpp): C nests in PolyBench's shapes, decided exactly.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code) { return testsupport::skeletonizeText(code); }

} // namespace

TEST(IslDependence, SymmetricTriangularWritesAreIndependent) {
  // PolyBench's correlation: iteration i writes corr[i][j] and corr[j][i] for j > i
  Out o = run(R"(
#define M 240
double corr[M][M], data[M][M];
void kernel_corr(void) {
  for (int i = 0; i < M - 1; i++) {
    corr[i][i] = 1.0;
    for (int j = i + 1; j < M; j++) {
      corr[i][j] = 0.0;
      for (int k = 0; k < M; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "// iterations independent: the dependence test (isl: no dependence carried)\n"
                          "parallel_for kernel_corr(M - 1) : i {"))
      << o.text;
}

TEST(IslDependence, AScratchArrayWrittenBeforeItIsReadIsPrivatized) {
  // PolyBench's doitgen: sum[p] is written, then read, in every iteration of r and q
  Out o = run(R"(
#define NR 50
#define NQ 40
#define NP 60
double A[NR][NQ][NP], C4[NP][NP], sum[NP];
void kernel_doitgen(void) {
  for (int r = 0; r < NR; r++)
    for (int q = 0; q < NQ; q++) {
      for (int p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "(isl: independent once 'sum' is private to each iteration)")) << o.text;
  // q stays inside: the liveness scan sees the next iteration of r read sum
  // (after writing it), which it cannot tell from a use of the last value
  EXPECT_TRUE(has(o.text, "parallel_for kernel_doitgen(NR) : r {")) << o.text;
}

TEST(IslDependence, AScratchArrayReadAfterTheLoopIsNotPrivatized) {
  Out o = run(R"(
#define NQ 40
#define NP 60
double A[NQ][NP], sum[NP], out;
void f(int nq) { // nq unknown: the p loop cannot launch once per q
  for (int q = 0; q < nq; q++)
    for (int p = 0; p < NP; p++) {
      sum[p] = A[q][p];
      A[q][p] = 2 * sum[p];
    }
  out = sum[0];
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for f(NQ")) << o.text;
  EXPECT_TRUE(has(o.warnings + o.error, "'sum' would have to be private to each iteration, but its "
                                        "values are used after the loop"))
      << o.warnings << o.error;
}

TEST(IslDependence, DependencesAreRefusedWithTheAccessPair) {
  // traps a port must never run in parallel: a recurrence at distance 2, a
  // swap of mirrored elements, a write read back by the next iteration
  for (const char *body : {"for (int i = 2; i < N; i++) a[i] = a[i - 2] * 0.5f;",
                           "for (int i = 0; i < N; i++) { float t = a[i]; a[i] = a[N - 1 - i]; "
                           "a[N - 1 - i] = t; }",
                           "for (int i = 0; i < N - 1; i++) { a[i + 1] = b[i]; b[i] = a[i]; }"}) {
    std::string code = std::string("#define N 64\nfloat a[N], b[N];\nvoid f(void) {\n") + body + "\n}\n";
    Out o = run(code);
    EXPECT_FALSE(o.ok) << body << "\n" << o.text;
    EXPECT_TRUE(has(o.error, "the iterations are not independent")) << body << "\n" << o.error;
  }
}
