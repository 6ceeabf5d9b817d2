// Relaxations (docs/skeletonizer.md, "Relaxations"): a statement that moves its
// own element toward a candidate, `d[i][j] = min(d[i][j], d[i][k] + d[k][j])`,
// whose iterations meet only where the candidate reads the element being
// written. Floyd-Warshall's step k is the case (PolyBench's floyd-warshall, as
// shipped, has no directive): there the write is min(x, x + d[k][k]), which
// leaves x unchanged while d[k][k] >= 0, so the step ports as parallel on that
// assumption, said in a warning. The shapes are written for the test, in the
// forms real code has (a ternary, an `if`, `fmin`, a max); the traps are
// relaxations whose writes change what another iteration reads.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code) { return testsupport::skeletonizeText(code, "t.c", {}); }

} // namespace

TEST(Relaxation, FloydWarshallsStepPortsOnTheAssumptionItNames) {
  Out o = run(R"(#define N 2000
int path[N][N];
void floyd(void) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "repeat k = 0:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for floyd(N, N) : i, j")) << o.text;
  EXPECT_TRUE(has(o.warnings, "t.c:5:5: warning: ported as parallel on an assumption about the values"))
      << o.warnings;
  EXPECT_TRUE(has(o.warnings, "min(x, x + path[")) << o.warnings;
  EXPECT_TRUE(has(o.warnings, ">= 0")) << o.warnings;
}

TEST(Relaxation, TheIfAndFminFormsAreRelaxationsToo) {
  Out o = run(R"(#include <math.h>
#define N 1024
void step_if(float d[N][N], int k) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (d[i][k] + d[k][j] < d[i][j])
        d[i][j] = d[i][k] + d[k][j];
}
void step_fmin(double d[N][N], int k) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      d[i][j] = fmin(d[i][j], d[i][k] + d[k][j]);
}
void longest(float d[N][N], int k) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      if (d[i][j] < d[i][k] + d[k][j])
        d[i][j] = d[i][k] + d[k][j];
}
int main(void) {
  static float f[N][N];
  static double g[N][N];
  step_if(f, 3);
  step_fmin(g, 3);
  longest(f, 3);
  return 0;
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step_if(N, N) : i, j")) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "parallel_for step_fmin(N, N) : i, j")) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "parallel_for longest(N, N) : i, j")) << o.text << o.warnings;
  EXPECT_TRUE(has(o.warnings, "max(x, x + d[")) << o.warnings;
  EXPECT_TRUE(has(o.warnings, "<= 0")) << o.warnings;
}

// Traps: each write changes what another iteration reads.
TEST(Relaxation, RelaxationsThatChangeWhatOthersReadAreRefused) {
  Out o = run(R"(#define N 1024
int d[N][N], a[N], c[N];
void wrong_branch(int k) {
  // the ternary keeps d[i][k], not d[i][j]: no min of the element
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      d[i][j] = d[i][j] < d[i][k] + d[k][j] ? d[i][k] : d[i][k] + d[k][j];
}
void chain(void) {
  // each element relaxed from its neighbour's new value: a recurrence
  for (int i = 1; i < N; i++)
    a[i] = a[i] < a[i - 1] + c[i] ? a[i] : a[i - 1] + c[i];
}
void next_row(void) {
  // the candidate reads the next row, which the next i rewrites
  for (int i = 0; i < N - 1; i++)
    for (int j = 0; j < N; j++)
      d[i][j] = d[i][j] < d[i + 1][j] + 1 ? d[i][j] : d[i + 1][j] + 1;
}
)");
  EXPECT_FALSE(has(o.text, "parallel_for wrong_branch")) << o.text;
  EXPECT_FALSE(has(o.text, "parallel_for chain")) << o.text;
  EXPECT_FALSE(has(o.text, "parallel_for next_row(N - 1, N) : i, j")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for next_row(N) : j")) << o.text; // j alone is parallel
  EXPECT_FALSE(has(o.warnings, "assumption about the values")) << o.warnings;
}

// Two relaxations in one nest: both conditions are said. Through a macro
// (PolyBench's min), the condition names the addend, not the macro's text.
TEST(Relaxation, EveryAssumptionIsSaidInTheWordsOfTheCode) {
  Out o = run(R"(#define N 64
#define MIN(a, b) ((a) < (b) ? (a) : (b))
double fmax(double, double);
void two(double a[N][N], double b[N][N], double w[N][N], double v[N][N]) {
  int i, j, k;
  for (k = 0; k < N; k++)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++) {
        a[i][j] = MIN(a[i][j], a[k][j] + w[i][k]);
        b[i][j] = fmax(b[i][j], b[k][j] + v[i][k]);
      }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.warnings, "min(x, x + w[i][k]) of the element x it writes, x while w[i][k] >= 0"))
      << o.warnings;
  EXPECT_TRUE(has(o.warnings, "max(x, x + v[i][k]) of the element x it writes, x while v[i][k] <= 0"))
      << o.warnings;
}
