// A parallel nest inside a sequential loop whose index it uses becomes a kernel
// launched once per iteration: `repeat k = LO:HI[:STEP] { ... }` with `k` in
// the kernels' loop spaces, bounds and subscripts (docs/skeletonizer.md,
// "Programs"), in the shapes real code has: PolyBench's lu, floyd-warshall and
// fdtd-2d, a wavefront, a triangular inner loop; and the refusals, with their
// reasons at the outer loop.
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include "../support/CliRun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

struct Out {
  skeleton::SkeletonFile f;
  std::string text, warnings;
};

Out skel(const std::string &code, const std::string &file = "s.c") {
  std::ostringstream d;
  SkeletonizeResult r = skeletonizeCode(code, file, {}, d);
  Out o{r.file, skeleton::printSkeleton(r.file), {}};
  for (const auto &w : r.warnings)
    o.warnings += w.str() + "\n";
  return o;
}

/// The warnings of a file with no portable nest.
std::string refused(const std::string &code) {
  std::ostringstream d;
  try {
    skeletonizeCode(code, "s.c", {}, d);
  } catch (const InputError &e) {
    return d.str() + e.what();
  }
  ADD_FAILURE() << "expected no portable nest in:\n" << code;
  return {};
}

bool has(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

/// The printed program reads back the same (`skelcast fmt`, the selfCheck).
void roundTrips(const Out &o) {
  EXPECT_EQ(skeleton::parseSkeleton(o.text, "s.skel"), o.f) << o.text;
  EXPECT_EQ(skeleton::printSkeleton(skeleton::parseSkeleton(o.text, "s.skel")), o.text);
}

/// PolyBench's lu (the two nests of one k step), as its source writes it.
const char *kLu = R"(#define N 1024
void kernel_lu(int n, double A[N][N]) {
  int i, j, k;
  for (k = 0; k < N; k++) {
    for (j = k + 1; j < N; j++)
      A[k][j] = A[k][j] / A[k][k];
    for (i = k + 1; i < N; i++)
      for (j = k + 1; j < N; j++)
        A[i][j] = A[i][j] - A[i][k] * A[k][j];
  }
}
)";

} // namespace

TEST(SequentialLoops, LuIsTwoKernelsInAnIndexedRepeat) {
  Out o = skel(kLu, "lu.c");
  ASSERT_EQ(o.f.kernels.size(), 2u) << o.text << o.warnings;
  ASSERT_EQ(o.f.repeats.size(), 1u);
  const skeleton::Repeat &r = o.f.repeats[0];
  EXPECT_TRUE(r.indexed());
  EXPECT_EQ(r.index, "k");
  EXPECT_EQ(skeleton::printExpr(r.lo), "0");
  EXPECT_EQ(skeleton::printExpr(r.hi), "N");
  EXPECT_FALSE(r.step);
  EXPECT_EQ(r.kernels, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(has(o.text, "repeat k = 0:N {")) << o.text;
  // the loop spaces start at k + 1; the subscripts use k
  EXPECT_TRUE(has(o.text, "parallel_for kernel_lu(k + 1:N) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for kernel_lu_1(k + 1:N, k + 1:N) : i, j {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld A[k][k]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld A[i][k]")) << o.text;
  // the comment says why each runs once per iteration, and where the loop is
  EXPECT_TRUE(has(o.text, "// launched once per iteration of 'k' (lu.c:4)")) << o.text;
  // isl decided the nests with k a parameter
  EXPECT_TRUE(has(o.text, "(isl: no dependence carried)")) << o.text;
  EXPECT_EQ(o.warnings, "");
  roundTrips(o);
}

TEST(SequentialLoops, FloydWarshallIsOneTwoDimensionalKernelPerK) {
  // the update of row k at step k leaves it unchanged (path[k][k] is 0), which
  // no dependence test can know: the OpenMP versions say so, and are trusted
  Out o = skel(R"(#define N 512
void kernel_floyd_warshall(int path[N][N]) {
  for (int k = 0; k < N; k++) {
#pragma omp parallel for collapse(2)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
  }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "repeat k = 0:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for kernel_floyd_warshall(N, N) : i, j {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld path[i][k]")) << o.text;
  EXPECT_TRUE(has(o.text, "ld path[k][j]")) << o.text;
  roundTrips(o);
  // without the pragma it ports as a min relaxation, on the assumption a
  // warning names (RelaxationTest); keeping the wrong operand is refused for
  // the true reason
  Out plain = skel(R"(#define N 512
void fw(int path[N][N]) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}
)");
  EXPECT_TRUE(has(plain.text, "parallel_for fw(N, N) : i, j {")) << plain.text << plain.warnings;
  EXPECT_TRUE(has(plain.warnings, "ported as parallel on an assumption about the values")) << plain.warnings;
  std::string w = refused(R"(#define N 512
void fw(int path[N][N]) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][k] : path[i][k] + path[k][j];
}
)");
  EXPECT_TRUE(has(w, "s.c:3:3: warning: cannot port this loop: the iterations are not independent"))
      << w;
}

TEST(SequentialLoops, FdtdTimeLoopIndexReachesTheFirstKernel) {
  Out o = skel(R"(#define TMAX 100
#define NX 200
#define NY 240
void kernel_fdtd_2d(double ex[NX][NY], double ey[NX][NY], double hz[NX][NY],
                    double _fict_[TMAX]) {
  int t, i, j;
  for (t = 0; t < TMAX; t++) {
    for (j = 0; j < NY; j++)
      ey[0][j] = _fict_[t];
    for (i = 1; i < NX; i++)
      for (j = 0; j < NY; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < NX; i++)
      for (j = 1; j < NY; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < NX - 1; i++)
      for (j = 0; j < NY - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}
)", "fdtd-2d.c");
  ASSERT_EQ(o.f.kernels.size(), 4u) << o.text << o.warnings;
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(o.f.repeats[0].kernels, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(has(o.text, "repeat t = 0:TMAX {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld _fict_[t]")) << o.text;
  // only the kernel that uses t says so
  EXPECT_TRUE(has(o.text, "// launched once per iteration of 't' (fdtd-2d.c:7)")) << o.text;
  EXPECT_EQ(o.text.find("launched once per iteration"),
            o.text.rfind("launched once per iteration"));
  EXPECT_EQ(o.warnings, "");
  roundTrips(o);
}

TEST(SequentialLoops, WavefrontLoopSpaceFollowsTheIndex) {
  // row k + 1 from row k, right of the diagonal: loop space k+1:N; then a
  // stepped, inclusive header as the language writes it
  Out o = skel(R"(#define N 300
void wave(float A[N][N]) {
  for (int k = 0; k < N - 1; k++)
    for (int i = k + 1; i < N; i++)
      A[k + 1][i] = A[k][i - 1] + A[k][i];
  for (int k = 2; k <= N - 1; k += 2)
    for (int i = 1; i < N; i++)
      A[k][i] = A[k - 2][i - 1] + 1.0f;
}
)");
  ASSERT_EQ(o.f.repeats.size(), 2u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "repeat k = 0:N - 1 {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for wave(k + 1:N) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld A[k][i - 1]")) << o.text;
  EXPECT_TRUE(has(o.text, "st A[k + 1][i]")) << o.text;
  EXPECT_TRUE(has(o.text, "repeat k = 2:N:2 {")) << o.text;
  EXPECT_TRUE(has(o.text, "ld A[k - 2][i - 1]")) << o.text;
  roundTrips(o);
}

TEST(SequentialLoops, NeedlemanWunschAntiDiagonals) {
  // Rodinia's nw: one launch per anti-diagonal d, whose length is d (`i <= d`)
  Out o = skel(R"(#define N 2049
int maximum(int a, int b, int c) { int k = a > b ? a : b; return k > c ? k : c; }
void nw(int score[N][N], int ref[N][N], int penalty) {
  for (int d = 1; d < N; d++)
    for (int i = 1; i <= d; i++) {
      int j = d - i + 1;
      score[i][j] = maximum(score[i - 1][j - 1] + ref[i][j], score[i][j - 1] - penalty,
                            score[i - 1][j] - penalty);
    }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "repeat d = 1:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for nw(1:d + 1) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "st score[i][d - i + 1]")) << o.text;
  roundTrips(o);
}

TEST(SequentialLoops, GramSchmidtKeepsItsHostStepsInTheRepeat) {
  // the norm is a reduction without OpenMP: host code between the launches
  Out o = skel(R"(#include <math.h>
#define M 200
#define N 240
void kernel_gramschmidt(double A[M][N], double R[N][N], double Q[M][N]) {
  int i, j, k;
  double nrm;
  for (k = 0; k < N; k++) {
    nrm = 0.0;
    for (i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < N; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text << o.warnings;
  const skeleton::Repeat &r = o.f.repeats[0];
  EXPECT_EQ(r.index, "k");
  // the norm is a reduction kernel now (docs/skeletonizer.md, "Reductions"): the
  // host zeroes nrm, reads it back, and writes R[k][k]
  EXPECT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.hostSteps.size(), 3u);
  EXPECT_TRUE(has(o.text, "parallel_for kernel_gramschmidt(M) : i reduce(+: nrm) {")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for kernel_gramschmidt_2(k + 1:N) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "st Q[i][k]")) << o.text;
  roundTrips(o);
}

TEST(SequentialLoops, TriangularInnerLoopStreamsToTheIndex) {
  // a forward substitution: row k takes the rows above it, 0:k
  Out o = skel(R"(#define N 256
void trisolve(float L[N][N], float B[N][N]) {
  for (int k = 0; k < N; k++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int i = 0; i < k; i++)
        s += L[k][i] * B[i][j];
      B[k][j] = B[k][j] - s;
    }
}
)");
  // each column j is solved on its own: j is the loop space, and each
  // thread runs the rows k in order (LoopOrderTest: the interchange)
  EXPECT_TRUE(o.f.repeats.empty()) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "parallel_for trisolve(N) : j {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream k = 0:N {")) << o.text;
  EXPECT_TRUE(has(o.text, "stream i = 0:k {")) << o.text;
  EXPECT_TRUE(has(o.text, "st B[k][j]")) << o.text;
  roundTrips(o);
}

TEST(SequentialLoops, TwoNestedSequentialLoopsAreRefusedAtTheOuterOne) {
  // the nest uses t and k: one launch per (t, k) would need a repeat in a repeat
  std::string w = refused(R"(#define T 10
#define N 256
void nested(float A[N][N], float B[T][N]) {
  for (int t = 0; t < T; t++)
    for (int k = 1; k < N; k++)
      for (int i = 1; i < N; i++)
        A[k][i] = A[k - 1][i - 1] + B[t][i];
}
)");
  EXPECT_TRUE(has(w, "s.c:4:3: warning: cannot port this loop: the iterations are not "
                     "independent: 'A[k][i]' (written) and 'A[k - 1][i - 1]' (read); the nest at "
                     "line 6 uses its index 't' inside the sequential loop 'k' (line 5): launches "
                     "per iteration of two nested loops cannot be written"))
      << w;
}

TEST(SequentialLoops, DecreasingLoopIsRefusedWithTheReason) {
  std::string w = refused(R"(#define N 256
void down(float A[N][N]) {
  for (int k = N - 1; k > 0; k--)
    for (int i = 1; i < N; i++)
      A[k - 1][i] = A[k - 1][i] + A[k][i - 1];
}
)");
  EXPECT_TRUE(has(w, "s.c:3:3: warning: cannot port this loop:")) << w;
  EXPECT_TRUE(has(w, "the nest at line 4 uses its index 'k', and it cannot launch that nest once "
                     "per iteration: it counts down, and an indexed 'repeat' counts up"))
      << w;
}

TEST(SequentialLoops, AnOpenMPLoopInALoopOfNoCanonicalHeaderKeepsItsReason) {
  // a frame loop counting in a struct field, an OpenMP loop inside bounded by
  // another field: the frame loop's warning names the OpenMP loop and its own
  // reason (it was dropped without a word)
  std::string w = refused(R"(struct state { int points; int frame; } st;
float a[1024], b[1024];
void frames(void) {
  for (st.frame = 0; st.frame < 10; st.frame++) {
#pragma omp parallel for
    for (int i = 0; i < st.points; i++)
      a[i] = 2 * b[i];
  }
}
)");
  EXPECT_TRUE(has(w, "s.c:4:3: warning: cannot port this loop: the header of this 'for' is not "
                     "canonical"))
      << w;
  EXPECT_TRUE(has(w, "; the OpenMP loop at line 6 inside it: the loop bound 'st.points' is not "
                     "a known constant"))
      << w;
}

TEST(SequentialLoops, TimeLoopAroundAnIndexedRepeatIsCountedOnce) {
  Out o = skel(R"(#define T 10
#define N 256
void f(float A[N][N], float B[N]) {
  for (int t = 0; t < T; t++)
    for (int k = 1; k < N; k++)
      for (int i = 1; i < N; i++)
        A[k][i] = A[k - 1][i - 1] + B[i];
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text;
  EXPECT_TRUE(has(o.text, "repeat k = 1:N {")) << o.text;
  EXPECT_TRUE(has(o.warnings, "s.c:4:3: warning: the kernels inside this loop are counted once: "
                              "they are launched once per iteration of 'k', an indexed 'repeat'"))
      << o.warnings;
  roundTrips(o);
}

TEST(SequentialLoops, IndexBesideAnInnerRepeatIsNotVisible) {
  // the t loop holds a kernel that uses t and an inner sequential loop of its
  // own launches: the t kernel is refused, the k kernels keep their repeat
  Out o = skel(R"(#define T 10
#define N 256
void f(float A[N][N], float B[T][N], float C[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N; i++)
      C[i] = B[t][i];
    for (int k = 1; k < N; k++)
      for (int i = 1; i < N; i++)
        A[k][i] = A[k - 1][i - 1] + C[i];
  }
}
)");
  ASSERT_EQ(o.f.kernels.size(), 1u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "repeat k = 1:N {")) << o.text;
  EXPECT_TRUE(has(o.warnings, "s.c:5:5: warning: cannot port this loop: the subscript 't' cannot "
                              "be written in the skeleton: it uses 't', the index of an enclosing "
                              "loop that is not ported, and that loop cannot launch it once per "
                              "iteration: a loop inside it launches kernels once per pass of its "
                              "own"))
      << o.warnings;
  roundTrips(o);
}

TEST(SequentialLoops, ProjectSumsTheLaunchesOfLu) {
  std::string path = ::testing::TempDir() + "seqk_lu.c";
  {
    std::ofstream c(path);
    c << kLu;
  }
  auto r = skelcast::testsupport::run({"project", path, "--hw", "h100", "--format", "json"});
  std::remove(path.c_str());
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["kernels"].size(), 2u);
  for (const auto &k : j["kernels"]) {
    const auto &rep = k["repeat"];
    EXPECT_EQ(rep["index"], "k");
    EXPECT_EQ(rep["iterations"], 1024);
    // at k = N - 1 the loop space k + 1:N is empty: no launch
    EXPECT_EQ(rep["launches"], 1023);
    EXPECT_EQ(rep["skipped"], 1);
    EXPECT_GT(rep["total_ms"].get<double>(), 0.0);
  }
  const auto &prog = j["program"];
  ASSERT_EQ(prog["kernels"].size(), 2u);
  EXPECT_EQ(prog["kernels"][0]["launches"], 1023.0);
  EXPECT_EQ(prog["kernels"][1]["launches"], 1023.0);
}
