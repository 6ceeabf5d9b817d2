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

// A^T (A x) written row by row (PolyBench's atax): the row loop computes
// tmp[i] and adds row i's share to every y[j], a sum over i. No loop of it
// is parallel as written; split into one loop per group of statements (what
// one writes, the other reads only in the same i: `tmp[i]`), the first is
// parallel over i and the second, interchanged, over j, each thread walking
// the rows: the two kernels a port writes.
TEST(LoopOrder, RowsThenColumnsSplitAndInterchanged) {
  Out o = run(R"(
#define M 1900
#define N 2100
void at_a_x(double A[M][N], double x[N], double y[N], double tmp[M]) {
  int i, j;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(has(o.text, "repeat")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for at_a_x(M) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for at_a_x_1(N) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream i = 0:M {")) << o.text;
  EXPECT_TRUE(has(o.text, "// loop 'i' (line 6) split into loops of its own (a fission): this "
                          "kernel is its statements at lines 7, 8"))
      << o.text;
  EXPECT_TRUE(has(o.text, "// loops reordered: 'j' (line 10) interchanged with 'i' (line 6)"))
      << o.text;
  EXPECT_TRUE(has(o.warnings, "t.c:6:3: note: loop 'i' split into 2 loops")) << o.warnings;
}

// A column recurrence: each column on its own, its rows in order.
TEST(LoopOrder, AColumnRecurrenceIsInterchanged) {
  Out o = run(R"(
#define N 512
void sweep(float g[N][N]) {
  for (int k = 1; k < N; k++)
    for (int j = 0; j < N; j++)
      g[k][j] = g[k - 1][j] * 0.5f + g[k][j];
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for sweep(N) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 1:N {")) << o.text;
}

// Traps: a diagonal recurrence (thread j would read what thread j-1 has not
// yet written), a row whose length is the outer index (the loop space would
// change with i), a group that reads what a later group wrote in the
// previous iteration (the split would run all of the first group before any
// of the second), and a scalar carried from one group to the next.
TEST(LoopOrder, ReorderingsThatWouldChangeTheResultAreRefused) {
  Out o = run(R"(
#define N 512
float g[N][N], y[N], t[N], b[N], A[N][N];
void diagonal(void) {
  for (int k = 1; k < N; k++)
    for (int j = 1; j < N; j++)
      g[k][j] = g[k - 1][j - 1] * 0.5f;
}
void triangle(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++)
      y[j] = y[j] + A[i][j];
}
void previous(void) {
  int i, j;
  for (i = 1; i < N; i++) {
    for (j = 0; j < N; j++)
      t[i] = t[i] + A[i][j] * b[i - 1];
    for (j = 0; j < N; j++)
      b[i] = b[i] + A[j][i];
  }
}
void carried(void) {
  int i, j;
  float s = 0.0f;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      s = s + A[i][j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + s;
  }
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for diagonal(N - 1) : j")) << o.text;
  EXPECT_FALSE(has(o.text, "interchanged")) << o.text;
  EXPECT_FALSE(has(o.text, "fission")) << o.text;
  EXPECT_FALSE(has(o.warnings, "split into")) << o.warnings;
  EXPECT_FALSE(has(o.text, "parallel_for previous(N - 1) : i")) << o.text;
  EXPECT_FALSE(has(o.text, "parallel_for triangle(N) : j")) << o.text;
}

// syrk written row by row (PolyBench 4.2): its j loops run to i. The loop
// space is the bounding box (N, N) with the triangle as a guard, taken by
// the share of the box inside: sum over i of (i + 1) = N(N+1)/2 of N*N
// points, (N + 1) / 2N = 1201/2400 = 0.5004 at N = 1200.
TEST(LoopOrder, ATriangleIsItsBoundingBoxWithAGuard) {
  Out o = run(R"(
#define N 1200
#define M 1000
void syrk(double alpha, double beta, double C[N][N], double A[N][M]) {
  int i, j, k;
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
void upper(double S[N][N], double B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++)
      S[i][j] = B[i][j] + B[j][i];
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for syrk(N, N) : i, j {")) << o.text;
  EXPECT_TRUE(has(o.text, "if (p=0.5004) {")) << o.text;
  EXPECT_TRUE(has(o.text, "// a triangle in its bounding box ('j' from 0 to <= i)")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 0:M {")) << o.text;
  // above the diagonal: 1:N, sum over i of (N - 1 - i) = N(N-1)/2 of N(N-1) points
  EXPECT_TRUE(has(o.text, "parallel_for upper(N, 1:N) : i, j {")) << o.text;
  EXPECT_TRUE(has(o.text, "if (p=0.5) {")) << o.text;
}

// Bounds a box cannot take: read from data, or using two outer indices of
// the loop space: the loop stays inside each thread.
TEST(LoopOrder, BoundsFromDataOrTwoIndicesStayInTheThread) {
  Out o = run(R"(
#define N 256
int len[N];
float a[N][N], b[N][N][N];
void ragged(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < len[i]; j++)
      a[i][j] = 0.0f;
}
void two(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < i + j && k < N; k++)
        b[i][j][k] = 1.0f;
}
)");
  EXPECT_FALSE(has(o.text, "a triangle in its bounding box")) << o.text;
  EXPECT_FALSE(has(o.text, ") : i, j, k")) << o.text;
}

// Two products in one loop (PolyBench's bicg): `s = A^T r` and `q = A p`
// share the row loop and its inner loop. The inner loop's two statements
// are distributed between the groups (they share nothing it writes), the
// initialisation of q[i] joins the group that reads it: s over j with the
// rows walked by each thread, q over i.
TEST(LoopOrder, TwoProductsInOneLoopAreSplitThroughTheInnerLoop) {
  Out o = run(R"(
#define M 1900
#define N 2100
void bicg(double A[N][M], double s[M], double q[N], double p[M], double r[N]) {
  int i, j;
  for (i = 0; i < N; i++) {
    q[i] = 0.0;
    for (j = 0; j < M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(has(o.text, "repeat")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for bicg(M) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream i = 0:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "this kernel is its statements at line 9\n")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for bicg_1(N) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "this kernel is its statements at lines 7, 10\n")) << o.text;
  // the s kernel loads no q, the q kernel no s
  size_t second = o.text.find("parallel_for bicg_1");
  EXPECT_EQ(o.text.substr(0, second).find("ld q["), std::string::npos) << o.text;
  EXPECT_EQ(o.text.substr(second).find("ld s["), std::string::npos) << o.text;
}

// A statement of the inner loop that reads what the other writes at another
// j keeps the loop whole: distributing it would run every s before any t.
TEST(LoopOrder, AnInnerLoopWhoseStatementsMeetAcrossItsIterationsStaysWhole) {
  Out o = run(R"(
#define N 512
double A[N][N], s[N], t[N];
void f(void) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 1; j < N; j++) {
      s[j] = s[j] + A[i][j];
      t[j] = t[j] + s[j - 1];
    }
}
)");
  EXPECT_FALSE(has(o.warnings, "split into")) << o.warnings;
  EXPECT_FALSE(has(o.text, "fission")) << o.text;
}

// Traps a review found (2026-11-27): a `continue` in the body (each group
// would need its test), statements from one macro (one place in the
// source: the AST tells them apart), a subscript leaving its row (a[i][j-M]
// is a[i-1][j]; a[j][i-1] at i = 0 is the row above's last element), all
// refused; pointer parameters a fission assumes apart are said.
TEST(LoopOrder, ReorderingTrapsAReviewFoundAreRefused) {
  Out o = run(R"(
#define N 64
#define M 32
#define BODY(i, j) t[i][j] = x[i - 1][j + 1] * 2.0; x[i][j] = t[i][j] + A[i][j]
void skip(double A[N][M], double x[N], double y[N], double s[M]) {
  int i, j;
  for (i = 0; i < N; i++) {
    for (j = 0; j < M; j++)
      y[i] += A[i][j];
    if (y[i] < 0.0)
      continue;
    for (j = 0; j < M; j++)
      s[j] += A[i][j] * x[i];
  }
}
void macro(double A[N][M], double t[N][M], double x[N][M]) {
  int i, j;
  for (i = 1; i < N; i++)
    for (j = 0; j < M - 1; j++) {
      BODY(i, j);
    }
}
void rows(double a[N][M], double b[N][M]) {
  int i, j;
  for (i = 1; i < N; i++) {
    for (j = 0; j < M; j++)
      b[i][j] = a[i][j - M] * 2.0;
    for (j = 0; j < M; j++)
      a[i][j] = b[i][j] + 1.0;
  }
}
void wrap(double a[M][N], double b[M][N]) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 1; j < M; j++)
      a[j][i] = a[j][i - 1] * 0.5 + b[j][i];
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(has(o.warnings, "split into")) << o.warnings;
  EXPECT_FALSE(has(o.text, "fission")) << o.text;
  EXPECT_FALSE(has(o.text, "interchanged")) << o.text;
  for (const char *f : {"skip", "macro", "rows", "wrap"})
    EXPECT_TRUE(has(o.text, std::string("parallel_for ") + f + "(") && has(o.text, "repeat i = "))
        << f << "\n" << o.text;

  Out p = run(R"(
#define N 64
#define M 32
void apart(double A[N][M], double *x, double *y, double s[M]) {
  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = 0.0;
    for (j = 0; j < M; j++)
      x[i] += A[i][j];
    for (j = 0; j < M; j++)
      s[j] += A[i][j] * y[i];
  }
}
)");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(has(p.warnings, "split into 2 loops")) << p.warnings;
  EXPECT_TRUE(has(p.warnings, "'apart' assumes its pointer parameters 'x', 'y' do not overlap"))
      << p.warnings;
}
