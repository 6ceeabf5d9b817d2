// Scalar reductions (docs/skeletonizer.md, "Reductions"): a scalar updated
// only as `s = s op e` / `s op= e` (op + - *, or a max/min form) and read
// nowhere else in the loop becomes `reduce(op: s)` of the kernel when the
// nest is otherwise parallel, and an OpenMP `reduction(op: s)` clause gives the
// same; the result is a one-element array the host code around the kernel
// writes (its initial value) and reads. The traps stay refused: a scalar read
// inside the loop (a prefix sum), two reductions feeding each other, the
// update's value used, a histogram into an array, a reduction feeding the
// loop's bound, mixed operators.
#include "SkeletonizeText.h"

#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

using namespace skelcast;
using testsupport::has;
using testsupport::skeletonizeText;

namespace {

/// The printed skeleton reads back the same.
void roundTrips(const std::string &text) {
  skeleton::SkeletonFile f = skeleton::parseSkeleton(text, "r.skel");
  EXPECT_EQ(skeleton::printSkeleton(f), text);
}

} // namespace

TEST(Reductions, DotProductWithoutClause) {
  auto o = skeletonizeText(R"(#define N 4096
float dot(float a[N], float b[N]) {
  float s = 0.0f;
  for (int i = 0; i < N; i++)
    s += a[i] * b[i];
  return s;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for dot(N) : i reduce(+: s) {")) << o.text;
  EXPECT_TRUE(has(o.text, "float s[1]")) << o.text;
  EXPECT_TRUE(has(o.text, "host reads s")) << o.text;   // `return s`
  EXPECT_TRUE(has(o.text, "host writes s")) << o.text;  // `s = 0.0f`: its initial value
  EXPECT_TRUE(has(o.warnings, "t.c:4:3: note: 's' is a reduction (+) across the iterations: "
                              "ported as a GPU reduction"))
      << o.warnings;
  roundTrips(o.text);
}

TEST(Reductions, NormInsideASequentialLoopLikeGramschmidt) {
  auto o = skeletonizeText(R"(#include <math.h>
#define M 512
#define N 256
void kernel_gs(double A[M][N], double R[N][N], double Q[M][N]) {
  double nrm;
  for (int k = 0; k < N; k++) {
    nrm = 0.0;
    for (int i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (int i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (int j = k + 1; j < N; j++) {
      R[k][j] = 0.0;
      for (int i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "repeat k = 0:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "reduce(+: nrm)")) << o.text;
  EXPECT_TRUE(has(o.text, "double nrm[1]")) << o.text;
  // the host zeroes it before the kernel and reads the sum after it
  size_t writes = o.text.find("host writes nrm"), kernel = o.text.find("reduce(+: nrm)"),
         reads = o.text.find("host reads nrm");
  ASSERT_NE(writes, std::string::npos) << o.text;
  ASSERT_NE(reads, std::string::npos) << o.text;
  EXPECT_LT(writes, kernel);
  EXPECT_LT(kernel, reads);
  roundTrips(o.text);
}

TEST(Reductions, MaxAndMinForms) {
  auto o = skeletonizeText(R"(#include <math.h>
#define N 4096
#define MAX(a, b) ((a) > (b) ? (a) : (b))
float top(float a[N], float b[N], float c[N]) {
  float m = -1e30f, lo = 1e30f, hi = -1e30f;
  for (int i = 0; i < N; i++) {
    m = fmaxf(m, a[i]);
    lo = b[i] < lo ? b[i] : lo;
    hi = MAX(hi, c[i]);
  }
  return m + lo + hi;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "reduce(max: m) reduce(min: lo) reduce(max: hi)")) << o.text;
  roundTrips(o.text);
}

TEST(Reductions, OpenMPClauseGivesTheSameForm) {
  auto o = skeletonizeText(R"(#define N 4096
double sum(double a[N]) {
  double s = 0;
#pragma omp parallel for reduction(+:s)
  for (int i = 0; i < N; i++)
    s += a[i];
  return s;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "reduce(+: s)")) << o.text;
  EXPECT_TRUE(has(o.text, "(OpenMP 'reduction' clause)")) << o.text;
  EXPECT_FALSE(has(o.text, "not modelled")) << o.text;
}

TEST(Reductions, TwoDimensionalSpaceReducesOverBoth) {
  auto o = skeletonizeText(R"(#define N 512
double total(double a[N][N]) {
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += a[i][j];
  return s;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "(N, N) : i, j reduce(+: s)")) << o.text;
}

TEST(Reductions, PerRowSumStaysPrivateToTheRow) {
  // s is zeroed per row: the rows are parallel, the inner loop is no reduction
  // of the kernel (it would add every row into one value)
  auto o = skeletonizeText(R"(#define N 512
void rows(double a[N][N], double r[N]) {
  double s;
  for (int i = 0; i < N; i++) {
    s = 0;
    for (int j = 0; j < N; j++)
      s += a[i][j];
    r[i] = s;
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for rows(N) : i {")) << o.text;
  EXPECT_FALSE(has(o.text, "reduce(")) << o.text;
}

// --- traps: each must stay refused -------------------------------------------------

TEST(Reductions, PrefixSumIsRefused) {
  auto o = skeletonizeText(R"(#define N 4096
void scan(float a[N], float b[N]) {
  float s = 0;
  for (int i = 0; i < N; i++) {
    s += a[i];
    b[i] = s;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "'s' carries a value from one iteration to the next")) << o.error;
}

TEST(Reductions, TwoReductionsMixedInOneStatementAreRefused) {
  auto o = skeletonizeText(R"(#define N 4096
float mixed(float a[N]) {
  float s = 0, t = 0;
  for (int i = 0; i < N; i++)
    s += t += a[i];
  return s + t;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "cannot port this loop")) << o.error;
}

TEST(Reductions, OneFeedingAnotherIsRefused) {
  auto o = skeletonizeText(R"(#define N 4096
float feed(float a[N]) {
  float s = 0, t = 0;
  for (int i = 0; i < N; i++) {
    t += a[i];
    s += t;
  }
  return s + t;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "'t' carries a value")) << o.error;
}

TEST(Reductions, HistogramStaysRefused) {
  auto o = skeletonizeText(R"(#define N 4096
#define B 64
void hist(int idx[N], int h[B]) {
  for (int i = 0; i < N; i++)
    h[idx[i]]++;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "cannot port this loop")) << o.error;
}

TEST(Reductions, ValueFeedingTheBoundIsRefused) {
  auto o = skeletonizeText(R"(#define N 4096
float grow(float a[N], float b[N]) {
  float s = 1;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < s; j++)
      b[j] = 0;
    s += a[i];
  }
  return s;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_FALSE(has(o.text, "reduce(")) << o.text;
}

TEST(Reductions, MixedOperatorsAreRefused) {
  auto o = skeletonizeText(R"(#define N 4096
float mix(float a[N], float b[N]) {
  float s = 1;
  for (int i = 0; i < N; i++) {
    s += a[i];
    s *= b[i];
  }
  return s;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error, "its updates mix '+' and '*'")) << o.error;
}

TEST(Reductions, ConditionalMaxIsRefusedAsWritten) {
  // `if (a[i] > m) m = a[i];` reads m in the condition: not one of the forms
  auto o = skeletonizeText(R"(#define N 4096
float top(float a[N]) {
  float m = 0;
  for (int i = 0; i < N; i++)
    if (a[i] > m)
      m = a[i];
  return m;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
}
