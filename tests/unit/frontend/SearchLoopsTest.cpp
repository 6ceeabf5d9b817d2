// Searches and indices the data decides (issue 16, item 5; docs/skeletonizer.md,
// "Loops and branches"): an inner loop that `if (c) { ...; break; }` ends, as
// a particle filter's resampling walks its CDF; the scalar that search sets,
// used as a subscript after it; an index computed from a loaded value (a bin,
// `(int)(x[i] * 10)`); and a callee with early returns, inlined. The shapes
// are written for the test. Traps: a loop that a `break` ends is never part of
// the loop space, and a store through an index the data decides is refused
// unless a directive vouches for it.
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

// Systematic resampling: each new particle j takes the first CDF entry at or
// above its threshold u[j].
const char *kResample = R"(#define NP 100000
double CDF[NP], u[NP], ax[NP], xj[NP];
void resample(void) {
  int j;
#pragma omp parallel for
  for (j = 0; j < NP; j++) {
    int idx = -1, x;
    for (x = 0; x < NP; x++) {
      if (CDF[x] >= u[j]) {
        idx = x;
        break;
      }
    }
    if (idx == -1)
      idx = NP - 1;
    xj[j] = ax[idx];
  }
}
)";

} // namespace

TEST(SearchLoops, ASearchCountsItsWholeRangeAndSaysSo) {
  Out o = run(kResample);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for resample(NP) : j")) << o.text;
  // the whole range, an upper bound, and a warning that names the loop and the way to the mean
  EXPECT_TRUE(has(o.text, "stream x = 0:NP {")) << o.text;
  EXPECT_TRUE(has(o.text, "// ends at the 'break' at line 9: its whole range counted, an upper bound"))
      << o.text;
  EXPECT_TRUE(has(o.warnings, "t.c:8:5: warning: loop 'x' ends at the 'break' at line 9")) << o.warnings;
  EXPECT_TRUE(has(o.warnings, "--trip x=N")) << o.warnings;
  // the exit is taken once in a run of the loop
  EXPECT_TRUE(has(o.text, "if (p=1e-05) {")) << o.text;
  // where it stopped is an index the data decides: bound to the load of its condition in scope
  EXPECT_TRUE(has(o.text, "idx = u[j]\n  ld ax[idx]")) << o.text;
}

TEST(SearchLoops, APragmaOrTripGivesTheMeanTripOfASearch) {
  std::string code = kResample;
  std::string marked = code;
  marked.replace(marked.find("    for (x = 0;"), 0, "#pragma skelcast trip(500)\n");
  Out o = run(marked);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "stream x = 0:NP (hint:500) {")) << o.text;
  EXPECT_TRUE(has(o.text, "if (p=0.002) {")) << o.text;
  EXPECT_FALSE(has(o.warnings, "whole range")) << o.warnings;

  SkeletonizeOptions opts;
  opts.trips["x"] = 250;
  Out t = run(code, opts);
  ASSERT_TRUE(t.ok) << t.error;
  EXPECT_TRUE(has(t.text, "stream x = 0:NP (hint:250) {")) << t.text;
  EXPECT_TRUE(has(t.text, "// ends at the 'break' at line 9: trip count from --trip x=250")) << t.text;
  EXPECT_TRUE(has(t.text, "if (p=0.004) {")) << t.text;
}

TEST(SearchLoops, ACalleeWithEarlyReturnsIsInlined) {
  // Rodinia's particle filter calls such a search through a pointer argument
  Out o = run(R"(#include <stdlib.h>
int find_index(double *cdf, int n, double value) {
  int index = -1;
  int x;
  for (x = 0; x < n; x++) {
    if (cdf[x] >= value) {
      index = x;
      break;
    }
  }
  if (index == -1) {
    return n - 1;
  }
  return index;
}
void resample(int np) {
  double *cdf = (double *)malloc(sizeof(double) * np);
  double *u = (double *)malloc(sizeof(double) * np);
  double *ax = (double *)malloc(sizeof(double) * np);
  double *xj = (double *)malloc(sizeof(double) * np);
  int i, j;
#pragma omp parallel for private(i)
  for (j = 0; j < np; j++) {
    i = find_index(cdf, np, u[j]);
    if (i == -1)
      i = np - 1;
    xj[j] = ax[i];
  }
}
int main(void) { resample(65536); return 0; }
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for resample(np) : j")) << o.text;
  EXPECT_TRUE(has(o.text, "stream find_index_x = 0:np {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld cdf[find_index_x]")) << o.text;
  // the callee's `value` holds u[j]: the load its result is bound to
  EXPECT_TRUE(has(o.text, "find_index_index = u[j]\n  ld ax[find_index_index]")) << o.text;
  // the search as a function of its own is no loop space: its own reason
  EXPECT_TRUE(has(o.warnings, "t.c:5:3: warning: cannot port this loop: a 'break' leaves the loop early"))
      << o.warnings;
}

TEST(SearchLoops, ALoopThatABreakEndsIsNeverInTheLoopSpace) {
  // the first zero of each row: i is parallel, j is a search of the thread
  Out o = run(R"(#define R 4096
#define C 4096
float a[R][C];
int first[R];
void zeros(void) {
#pragma omp parallel for
  for (int i = 0; i < R; i++) {
    first[i] = C;
    for (int j = 0; j < C; j++)
      if (a[i][j] == 0.0f) {
        first[i] = j;
        break;
      }
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for zeros(R) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream j = 0:C {")) << o.text;
  EXPECT_FALSE(has(o.text, ": i, j")) << o.text;

  // an outer loop that a `break` ends is refused with that reason
  Out b = run(R"(#define N 4096
float a[N], b[N];
void until_negative(void) {
  for (int i = 0; i < N; i++) {
    if (a[i] < 0.0f)
      break;
    b[i] = 2.0f * a[i];
  }
}
)");
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(has(b.diag + b.warnings + b.error, "a 'break' leaves the loop early")) << b.error;
}

TEST(SearchLoops, AnIndexComputedFromALoadIsBoundToIt) {
  Out o = run(R"(#define N 100000
#define BINS 64
float x[N], w[BINS], y[N];
void weigh(void) {
  for (int i = 0; i < N; i++) {
    double t = x[i];
    int k = (int)(t * 10.0);
    y[i] = w[k];
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for weigh(N) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "// line 7: 'k' is computed from this load: an index the data decides\n"
                          "  k = x[i]\n  ld w[k]"))
      << o.text;
}

TEST(SearchLoops, AStoreThroughAnIndexTheDataDecidesStaysRefused) {
  // a histogram: two iterations may hit the same bin
  Out o = run(R"(#define N 100000
#define BINS 64
float x[N];
int hist[BINS];
void histogram(void) {
  for (int i = 0; i < N; i++) {
    int k = (int)(x[i] * 10.0f);
    hist[k] += 1;
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  // and a search's result used to store, without a directive
  Out s = run(R"(#define N 4096
float cdf[N], u[N];
int count[N];
void tally(void) {
  for (int j = 0; j < N; j++) {
    int idx = 0;
    for (int x = 0; x < N; x++)
      if (cdf[x] >= u[j]) {
        idx = x;
        break;
      }
    count[idx] += 1;
  }
}
)");
  EXPECT_FALSE(s.ok) << s.text;
}

TEST(SearchLoops, AResultKeptFromTheLastIterationWhenTheSearchFailsIsCarried) {
  // `idx` is declared outside: when a search finds nothing it keeps the
  // previous iteration's value, a value carried from one iteration to the next
  Out o = run(R"(#define N 4096
float cdf[N], u[N], a[N], out[N];
void f(void) {
  int idx = 0;
  for (int j = 0; j < N; j++) {
    for (int x = 0; x < N; x++)
      if (cdf[x] >= u[j]) {
        idx = x;
        break;
      }
    out[j] = a[idx];
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.diag + o.warnings + o.error, "'idx' carries a value from one iteration to the next"))
      << o.error;
}

TEST(SearchLoops, ABindingMadeInAnInnerLoopIsNotReadAfterIt) {
  // k is computed from x[j] inside the j loop: after it, x[j] names nothing
  // (review of 6c516ea: the skeleton read a binding whose block had closed)
  Out o = run(R"(#define N 1024
#define M 64
float x[M], a[N], out[N];
void f(void) {
  for (int i = 0; i < N; i++) {
    int k = 0;
    for (int j = 0; j < M; j++)
      k = (int)(x[j] * 10.0f);
    out[i] = a[k];
  }
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_FALSE(has(o.error, "internal error")) << o.error;
  EXPECT_TRUE(has(o.diag + o.warnings + o.error, "'k' holds a value the skeleton cannot express"))
      << o.error;
}
