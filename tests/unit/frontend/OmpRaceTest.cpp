// OpenMP directives are trusted where skelcast cannot decide (subscripts that
// are not affine, pointers of unknown origin), never against a dependence that
// is certain (docs/skeletonizer.md, "OpenMP directives"): a loop whose pragma
// says `parallel for` but whose iterations carry a value is a data race in the
// OpenMP code, and porting it as parallel is the worst error skelcast can
// make. These traps are written in the shapes of DataRaceBench's micro-
// benchmarks (LLNL, a suite of racy and race-free OpenMP loops; none of its
// code is here): each racy loop must be refused with its reason, and each
// race-free one still ported.
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

bool has(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

/// The kernels' count and every warning, one a line (the file's error too
/// when nothing is ported).
struct Result {
  size_t kernels = 0;
  std::string text, warnings;
};

Result run(const std::string &code) {
  std::ostringstream d;
  Result out;
  try {
    SkeletonizeResult r = skeletonizeCode(code, "race.c", {}, d);
    out.kernels = r.file.kernels.size();
    out.text = skeleton::printSkeleton(r.file);
    for (const auto &w : r.warnings)
      out.warnings += w.str() + "\n";
  } catch (const InputError &e) {
    out.warnings += d.str() + e.what();
  }
  return out;
}

/// The one kernel of `code` that sits at `line`, if ported.
bool portedAt(const Result &r, int line) {
  return has(r.text, "race.c:" + std::to_string(line) + ",");
}

} // namespace

TEST(OmpRace, AFlowDependenceUnderParallelForIsRefused) {
  Result r = run("void f(int n, float *restrict x) {\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 1000; i++)\n"
                 "    x[i + 1] = x[i] * 2.0f;\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:3:3")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "OpenMP 'parallel for' declares the iterations independent")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "'x[i + 1]' (written) and 'x[i]' (read)")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "data race")) << r.warnings;
}

TEST(OmpRace, ADependenceAlongTheFirstDimensionIsRefused) {
  Result r = run("double u[200][300];\n"
                 "void f(void) {\n"
                 "  int i, j;\n"
                 "#pragma omp parallel for private(j)\n"
                 "  for (i = 1; i < 200; i++)\n"
                 "    for (j = 0; j < 300; j++)\n"
                 "      u[i][j] = u[i - 1][j] + 1.0;\n"
                 "}\n");
  // the i loop is the sequential one, the j loop a kernel launched per i
  EXPECT_EQ(r.kernels, 1u) << r.text;
  EXPECT_TRUE(has(r.text, "repeat i = 1:200")) << r.text;
  EXPECT_TRUE(has(r.text, "parallel_for f(300) : j")) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:5:3")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "the OpenMP loop is not the parallel one")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "data race")) << r.warnings;
}

TEST(OmpRace, ACollapsedInnerLoopThatCarriesADependenceIsRefused) {
  Result r = run("double a[100][101];\n"
                 "void f(void) {\n"
                 "#pragma omp parallel for collapse(2)\n"
                 "  for (int i = 0; i < 100; i++)\n"
                 "    for (int j = 0; j < 100; j++)\n"
                 "      a[i][j + 1] = a[i][j] * 0.5;\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:4:3")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "(line 5)")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "data race")) << r.warnings;
}

TEST(OmpRace, ASharedAccumulatorWithoutAReductionClauseIsRefused) {
  Result r = run("float v[4096];\n"
                 "float total(void) {\n"
                 "  float s = 0.0f;\n"
                 "  int i;\n"
                 "#pragma omp parallel for\n"
                 "  for (i = 0; i < 4096; i++)\n"
                 "    s += v[i] * v[i];\n"
                 "  return s;\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "they share 's' (no private or reduction clause)")) << r.warnings;
}

TEST(OmpRace, AnArrayElementSummedWithoutAReductionClauseIsRefused) {
  Result r = run("float v[4096], h[1];\n"
                 "void f(void) {\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 4096; i++)\n"
                 "    h[0] += v[i];\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "data race")) << r.warnings;
}

TEST(OmpRace, ALastValueUsedAfterTheLoopWithoutLastprivateIsRefused) {
  Result r = run("float v[4096], w[4096];\n"
                 "float f(void) {\n"
                 "  float last;\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 4096; i++) {\n"
                 "    last = v[i] * 2.0f;\n"
                 "    w[i] = last;\n"
                 "  }\n"
                 "  return last;\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "OpenMP needs 'lastprivate'")) << r.warnings;
}

TEST(OmpRace, RaceFreeDirectivesAreStillPorted) {
  // a reduction clause; a private temporary; a local of the enclosing
  // parallel region; a flag every writer sets to the same constant; an
  // indirect store the pragma vouches for (skelcast cannot decide it)
  Result r = run("float v[4096], w[4096]; int idx[4096];\n"
                 "float f(void) {\n"
                 "  float s = 0.0f, t;\n"
                 "  int found = 0;\n"
                 "#pragma omp parallel for reduction(+:s)\n"
                 "  for (int i = 0; i < 4096; i++)\n"
                 "    s += v[i];\n"
                 "#pragma omp parallel for private(t)\n"
                 "  for (int i = 0; i < 4096; i++) {\n"
                 "    t = v[i] + 1.0f;\n"
                 "    w[i] = t * t;\n"
                 "  }\n"
                 "#pragma omp parallel\n"
                 "  {\n"
                 "    float acc;\n"
                 "#pragma omp for\n"
                 "    for (int i = 0; i < 4096; i++) {\n"
                 "      acc = w[i] * 0.5f;\n"
                 "      v[i] = acc;\n"
                 "    }\n"
                 "  }\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 4096; i++)\n"
                 "    if (v[i] > 1.0f)\n"
                 "      found = 1;\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 4096; i++)\n"
                 "    w[idx[i]] = v[i];\n"
                 "  return s + found;\n"
                 "}\n");
  EXPECT_FALSE(has(r.warnings, "data race")) << r.warnings;
  EXPECT_TRUE(portedAt(r, 9)) << r.text << r.warnings;
  EXPECT_TRUE(portedAt(r, 17)) << r.text << r.warnings;
  EXPECT_TRUE(portedAt(r, 23)) << r.text << r.warnings;
  EXPECT_TRUE(portedAt(r, 27)) << r.text << r.warnings;
}

TEST(OmpRace, AMinRelaxationOfThePivotRowPortsOnItsAssumption) {
  // the pivot row is read by every j and written where j = p, with
  // min(x, x + d[p][p]) of its own element: unchanged while d[p][p] >= 0
  // (Floyd-Warshall's row k), which the warning names (RelaxationTest)
  Result r = run("#define N 256\n"
                 "void relax(int d[N][N], int p) {\n"
                 "#pragma omp parallel for\n"
                 "  for (int j = 0; j < N; j++)\n"
                 "    d[p][j] = d[p][j] < d[p][p] + d[p][j] ? d[p][j] : d[p][p] + d[p][j];\n"
                 "}\n"
                 "int main(void) { static int d[N][N]; relax(d, 3); return 0; }\n");
  EXPECT_EQ(r.kernels, 1u) << r.text << r.warnings;
  EXPECT_TRUE(has(r.warnings, "race.c:4:3: warning: ported as parallel on an assumption about the "
                              "values"))
      << r.warnings;
  EXPECT_TRUE(has(r.warnings, "min(x, x + d[p][p])")) << r.warnings;
}

// A value read between some iterations only, whose writes change it: the
// directive is not trusted against it (DataRaceBench's truedeplinear and
// truedepsingleelement shapes).
TEST(OmpRace, ADependenceBetweenSomeIterationsIsRefused) {
  Result r = run("int a[2000];\n"
                 "void f(void) {\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 1000; i++)\n"
                 "    a[2 * i + 1] = a[i] + 1;\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 1000; i++)\n"
                 "    a[i] = a[i] + a[0];\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:4:3: warning: cannot port this loop")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "race.c:7:3: warning: cannot port this loop")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "'a[0]' (read)")) << r.warnings;
  EXPECT_FALSE(has(r.warnings, "assumption")) << r.warnings;
}

// A temporary the threads share: each writes it before reading it, but
// another may write it in between (OpenMP makes it shared: declared outside
// the loop, in no clause; a `static` local of the region is one for all).
// Declared in the loop, or named in `private`, it is ported (the race-free
// test above).
TEST(OmpRace, ASharedTemporaryIsRefused) {
  Result r = run("int a[100], b[100];\n"
                 "void f(void) {\n"
                 "  int tmp;\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 100; i++) {\n"
                 "    tmp = a[i] + i;\n"
                 "    a[i] = tmp;\n"
                 "  }\n"
                 "#pragma omp parallel\n"
                 "  {\n"
                 "    static int s;\n"
                 "#pragma omp for\n"
                 "    for (int i = 0; i < 100; i++) {\n"
                 "      s = b[i] + i;\n"
                 "      b[i] = s;\n"
                 "    }\n"
                 "  }\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:5:3: warning: cannot port this loop: OpenMP 'parallel for' "
                              "declares the iterations independent, but they share 'tmp'"))
      << r.warnings;
  EXPECT_TRUE(has(r.warnings, "'private(tmp)'")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "race.c:13:5: warning: cannot port this loop")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "share 's' (declared outside the loop or 'static'")) << r.warnings;
}

// b[i][j] = b[i][j-1] for j from 0: b[i][-1] is the last element of the row
// above (DataRaceBench's outofbounds shape). Each row looks independent; in
// C's layout they are not.
TEST(OmpRace, ASubscriptLeavingItsRowIsRefused) {
  Result r = run("void f(void) {\n"
                 "  int n = 100, m = 100;\n"
                 "  double b[n][m];\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 1; i < n; i++)\n"
                 "    for (int j = 0; j < m; j++)\n"
                 "      b[i][j] = b[i][j - 1];\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "race.c:5:3: warning: cannot port this loop")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "a subscript leaving its row's range to reach another row")) << r.warnings;
}

TEST(OmpRace, TwoIterationsWritingOneElementAreRefused) {
  Result r = run("float v[4096], last[1];\n"
                 "void f(void) {\n"
                 "#pragma omp parallel for\n"
                 "  for (int i = 0; i < 4096; i++)\n"
                 "    last[0] = v[i];\n"
                 "}\n");
  EXPECT_EQ(r.kernels, 0u) << r.text;
  EXPECT_TRUE(has(r.warnings, "'last[0]' (written) and 'last[0]' (written)")) << r.warnings;
  EXPECT_TRUE(has(r.warnings, "data race")) << r.warnings;
}
