// The loop order (issue 16, item 4): `for i { for j S1; for k { for j S2 } }`
// becomes the loop space (i, j) with k inside, after distributing the j loops
// out of i and interchanging them with k, when no two values of j touch one
// element that either writes. Shapes written for the test; traps where the
// reordering would be wrong must keep the j loops inside each thread.
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

// A scaled matrix product written row by row, as PolyBench 4.2 writes gemm.
const char *kScaledProduct = R"(
#define R 300
#define S 400
#define T 500
void scaled(int r, int s, int t, double alpha, double beta, double out[R][S],
            double x[R][T], double y[T][S]) {
  int i, j, k;
  for (i = 0; i < r; i++) {
    for (j = 0; j < s; j++)
      out[i][j] *= beta;
    for (k = 0; k < t; k++) {
      for (j = 0; j < s; j++)
        out[i][j] += alpha * x[i][k] * y[k][j];
    }
  }
}
int main(void) {
  static double out[R][S], x[R][T], y[T][S];
  scaled(R, S, T, 1.5, 1.2, out, x, y);
  return 0;
}
)";

} // namespace

TEST(LoopOrder, DistributedAndInterchangedIntoTheFullLoopSpace) {
  Out o = run(kScaledProduct);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for scaled(R, S) : i, j")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 0:T")) << o.text;
  EXPECT_TRUE(has(o.text, "ld y[k][j]")) << o.text;
  EXPECT_TRUE(has(o.text, "st out[i][j]")) << o.text;
  // the comment says what was reordered
  EXPECT_TRUE(has(o.text, "// loops reordered: the 2 'j' loops (lines 9, 12) distributed out "
                          "of 'i' (line 8) and interchanged with 'k' (line 11)"))
      << o.text;
}

TEST(LoopOrder, LoopsWithIndicesOfTheirOwnAreNotJoined) {
  Out o = run(R"(
#define N 512
void two(float a[N][N], float b[N][N], float c[N][N]) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++)
      a[i][j] = b[i][j] * 2.0f;
    for (int j = 0; j < N; j++)
      c[i][j] = a[i][j] + 1.0f;
  }
}
)");
  // two distinct `int j` declarations: not one index, no reordering
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for two(N) : i")) << o.text;
  EXPECT_FALSE(has(o.text, "loops reordered")) << o.text;
}

// Traps: a reordering here would change the result.
TEST(LoopOrder, ANeighbourInTheNextLoopKeepsTheOrder) {
  // the second loop reads a[i][j + 1], written by another j in the first
  Out o = run(R"(
#define N 512
void nb(float a[N][N + 1], float b[N][N], float c[N][N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      a[i][j] = b[i][j] * 2.0f;
    for (j = 0; j < N; j++)
      c[i][j] = a[i][j + 1];
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for nb(N) : i {")) << o.text; // i alone
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;
  EXPECT_FALSE(has(o.text, "loops reordered")) << o.text;
}

TEST(LoopOrder, ARowAccumulatorSharedByAllJKeepsTheOrder) {
  // out[i][0] is written by every j: a reduction over j, not a loop space
  Out o = run(R"(
#define N 512
void acc(double out[N][N], double x[N][N]) {
  int i, j, k;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      out[i][j] = 0;
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        out[i][0] += x[k][j];
  }
}
)");
  EXPECT_TRUE(has(o.text, "parallel_for acc(N) : i {")) << o.text; // i alone
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;
}

TEST(LoopOrder, ScalarSharedAcrossTheJLoopsKeepsTheOrder) {
  Out o = run(R"(
#define N 512
void sh(double out[N][N], double x[N][N]) {
  int i, j, k;
  double s;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      s = x[i][j];
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        out[i][j] = s;
  }
}
)");
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;
}

TEST(LoopOrder, DifferentBoundsKeepTheOrder) {
  Out o = run(R"(
#define N 512
void db(double out[N][N], double x[N][N]) {
  int i, j, k;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N - 1; j++)
      out[i][j] = 0;
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        out[i][j] += x[k][j];
  }
}
)");
  EXPECT_TRUE(has(o.text, "parallel_for db(N) : i {")) << o.text; // i alone
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;
}

TEST(LoopOrder, PointersThatMayOverlapKeepTheOrder) {
  // q is p shifted by one: q[r + j] is p[r + j + 1], which the first loop
  // writes for j + 1 of the same i (rows of 2N elements: the i are apart)
  Out o = run(R"(
#define N 512
void ov(double *p, double *x) {
  int i, j, k;
  double *q = p + 1;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      p[i * 2 * N + j] = 0;
    for (k = 0; k < N; k++)
      for (j = 0; j < N; j++)
        q[i * 2 * N + j] += x[k * N + j];
  }
}
)");
  EXPECT_TRUE(has(o.text, "parallel_for ov(N) : i")) << o.text << o.diag;
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;
}
