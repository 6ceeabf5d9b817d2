// The skeletonizer's programs: a time-step loop around nests becomes
// `repeat T { ... }`, host marks come from whose the arrays are (parameters,
// globals, local arrays, malloc/free), swapped pointers are one buffer pair,
// `#pragma skelcast out` narrows what is read back, and what cannot be counted
// is a positioned warning.
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

struct Out {
  skeleton::SkeletonFile f;
  std::string text, warnings;
};

Out skel(const std::string &code, SkeletonizeOptions opts = {}) {
  std::ostringstream d;
  SkeletonizeResult r = skeletonizeCode(code, "p.c", opts, d);
  Out o{r.file, skeleton::printSkeleton(r.file), {}};
  for (const auto &w : r.warnings)
    o.warnings += w.str() + "\n";
  return o;
}

skeleton::HostMark markOf(const skeleton::SkeletonFile &f, const std::string &a) {
  const skeleton::Array *x = f.findArray(a);
  EXPECT_NE(x, nullptr) << a;
  return x ? x->mark : skeleton::HostMark::None;
}

bool has(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

/// A Jacobi step and a copy back, STEPS times: the usual two-nest time loop.
const char *kCopyBack = R"(#define N 256
#define STEPS 50
void jacobi(float *restrict a, const float *restrict src) {
  float tmp[N];
  for (int t = 0; t < STEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      tmp[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f + src[i];
    for (int i = 1; i < N - 1; i++)
      a[i] = tmp[i];
  }
}
)";

} // namespace

TEST(SkeletonizerProgram, TimeLoopBecomesRepeat) {
  Out o = skel(kCopyBack);
  ASSERT_EQ(o.f.kernels.size(), 2u);
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(o.f.repeats[0].kernels, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(skeleton::printExpr(o.f.repeats[0].count), "STEPS");
  EXPECT_TRUE(has(o.text, "repeat STEPS {")) << o.text;
  // the local array is a device temporary; `a` is read first and written
  EXPECT_EQ(markOf(o.f, "tmp"), skeleton::HostMark::None);
  EXPECT_EQ(markOf(o.f, "a"), skeleton::HostMark::InOut);
  EXPECT_EQ(markOf(o.f, "src"), skeleton::HostMark::In);
  // the printed program reads back the same (what `skelcast fmt` relies on)
  EXPECT_EQ(skeleton::parseSkeleton(o.text, "p.skel"), o.f);
  EXPECT_EQ(skeleton::printSkeleton(skeleton::parseSkeleton(o.text, "p.skel")), o.text);
}

TEST(SkeletonizerProgram, SwappedPointersAreOnePair) {
  Out o = skel(R"(#define N 128
void heat(float *a, float *b, int steps) {
  for (int t = 0; t < steps; ++t) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      b[i] = 0.5f * (a[i - 1] + a[i + 1]);
    float *tmp = a;
    a = b;
    b = tmp;
  }
}
)",
               [] {
                 SkeletonizeOptions so;
                 so.extents["steps"] = {20};
                 return so;
               }());
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(skeleton::printExpr(o.f.repeats[0].count), "steps");
  // the host gives the first grid and takes the last one: one copy each way
  EXPECT_EQ(markOf(o.f, "a"), skeleton::HostMark::In);
  EXPECT_EQ(markOf(o.f, "b"), skeleton::HostMark::Out);
  EXPECT_TRUE(has(o.text, "swapped with 'b' (one buffer pair)")) << o.text;
  EXPECT_TRUE(o.warnings.empty()) << o.warnings;
}

TEST(SkeletonizerProgram, MallocFreedIsDeviceTemporary) {
  Out o = skel(R"(#include <stdlib.h>
#define N 128
void smooth(float *restrict out, const float *restrict in) {
  float *restrict mid = malloc(N * sizeof(float));
  for (int i = 0; i < N; i++)
    mid[i] = in[i] * 2.0f;
  for (int i = 0; i < N; i++)
    out[i] = mid[i] + 1.0f;
  free(mid);
}
)",
               [] {
                 SkeletonizeOptions so;
                 so.extents["mid"] = {128};
                 return so;
               }());
  EXPECT_TRUE(o.f.repeats.empty());
  EXPECT_EQ(markOf(o.f, "mid"), skeleton::HostMark::None);
  EXPECT_EQ(markOf(o.f, "out"), skeleton::HostMark::Out);
  EXPECT_EQ(markOf(o.f, "in"), skeleton::HostMark::In);
}

TEST(SkeletonizerProgram, MallocNotFreedIsTheHosts) {
  Out o = skel(R"(#include <stdlib.h>
#define N 128
float *make(const float *restrict in) {
  float *restrict r = malloc(N * sizeof(float));
  float *restrict s = malloc(N * sizeof(float));
  for (int i = 0; i < N; i++)
    s[i] = in[i] * 2.0f;
  for (int i = 0; i < N; i++)
    r[i] = s[i];
  free(s);
  return r;
}
)",
               [] {
                 SkeletonizeOptions so;
                 so.extents["r"] = {128};
                 so.extents["s"] = {128};
                 return so;
               }());
  EXPECT_EQ(markOf(o.f, "r"), skeleton::HostMark::Out);
  EXPECT_EQ(markOf(o.f, "s"), skeleton::HostMark::None);
}

TEST(SkeletonizerProgram, OutPragmaNarrowsReadBack) {
  Out o = skel(R"(#define N 64
float x[N], y[N], z[N];
void two(void) {
#pragma skelcast out(z)
  for (int i = 0; i < N; i++)
    y[i] = x[i] + 1.0f;
  for (int i = 0; i < N; i++)
    z[i] = y[i] * 2.0f;
}
)");
  EXPECT_EQ(markOf(o.f, "x"), skeleton::HostMark::In);
  EXPECT_EQ(markOf(o.f, "y"), skeleton::HostMark::None); // written, not read back
  EXPECT_EQ(markOf(o.f, "z"), skeleton::HostMark::Out);
  EXPECT_TRUE(o.warnings.empty()) << o.warnings;
}

TEST(SkeletonizerProgram, OutPragmaUnknownNameWarns) {
  Out o = skel(R"(#define N 64
float x[N], y[N];
void one(void) {
#pragma skelcast out(w)
  for (int i = 0; i < N; i++)
    y[i] = x[i];
}
)");
  EXPECT_TRUE(has(o.warnings, "p.c:4:22: warning: '#pragma skelcast out': no array 'w' in the "
                              "kernels of 'one'"))
      << o.warnings;
}

TEST(SkeletonizerProgram, UnknownTripCountWarnsAndCountsOnce) {
  const char *code = R"(#define N 64
float x[N], y[N];
void run(int steps) {
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < N; i++)
      y[i] = x[i] + 1.0f;
}
)";
  Out o = skel(code);
  EXPECT_TRUE(o.f.repeats.empty());
  EXPECT_TRUE(has(o.warnings, "p.c:4:3: warning: the trip count of loop 't' around kernels is "
                              "unknown"))
      << o.warnings;
  // --trip names the loop's index
  SkeletonizeOptions so;
  so.trips["t"] = 7;
  Out g = skel(code, so);
  ASSERT_EQ(g.f.repeats.size(), 1u);
  EXPECT_EQ(skeleton::printExpr(g.f.repeats[0].count), "7");
  EXPECT_TRUE(g.warnings.empty()) << g.warnings;
}

TEST(SkeletonizerProgram, WhileAroundKernelsWarns) {
  Out o = skel(R"(#define N 64
float x[N], y[N];
void run(int steps) {
  while (steps-- > 0)
    for (int i = 0; i < N; i++)
      y[i] = x[i] + 1.0f;
}
)");
  EXPECT_TRUE(o.f.repeats.empty());
  EXPECT_TRUE(has(o.warnings, "p.c:4:3: warning: the kernels inside this loop are counted once"))
      << o.warnings;
}

TEST(SkeletonizerProgram, NestedTimeLoopsMultiply) {
  Out o = skel(R"(#define N 64
float x[N], y[N];
void run(void) {
  for (int s = 0; s < 4; s++)
#pragma skelcast trip(10)
    for (int t = 0; t < 10; t++) {
      for (int i = 0; i < N; i++)
        y[i] = x[i] + 1.0f;
      for (int i = 0; i < N; i++)
        x[i] = y[i] * 0.5f;
    }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(skeleton::printExpr(o.f.repeats[0].count), "4*10");
}

TEST(SkeletonizerProgram, SingleNestsKeepUnmarkedArrays) {
  // no repeat, no temporary, no `out`: the dataflow rule gives the same
  // transfers, so nothing is marked (and the single-kernel outputs stay)
  Out o = skel("#define N 64\nfloat x[N], y[N];\nvoid f(void) {\n"
               "  for (int i = 0; i < N; i++)\n    y[i] = x[i];\n}\n");
  EXPECT_EQ(markOf(o.f, "x"), skeleton::HostMark::None);
  EXPECT_EQ(markOf(o.f, "y"), skeleton::HostMark::None);
}

TEST(SkeletonizerProgram, HostCodeBetweenKernelsBecomesHostSteps) {
  // Inside the time loop the host reads the residual and updates one cell of
  // the grid: `host reads res`, `host writes a, b`, in that repeat, after the
  // kernel. The pointer swap and free() touch no elements: no steps.
  Out o = skel(R"(#include <stdlib.h>
#define N 256
#define STEPS 40
void relax(float *a, float *res) {
  float *b = (float *)malloc(sizeof(float) * N);
  for (int t = 0; t < STEPS; t++) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++) {
      b[i] = 0.5f * (a[i - 1] + a[i + 1]);
      res[i] = b[i] - a[i];
    }
    if (res[1] < 0.001f)
      break;
    a[0] = 1.0f;
    float *tmp = a;
    a = b;
    b = tmp;
  }
  free(b);
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u);
  ASSERT_EQ(o.f.hostSteps.size(), 2u) << o.text;
  EXPECT_FALSE(o.f.hostSteps[0].writes);
  EXPECT_EQ(o.f.hostSteps[0].arrays, std::vector<std::string>{"res"});
  EXPECT_TRUE(o.f.hostSteps[1].writes);
  // a and b are swapped (one buffer pair): a touch of either names both
  EXPECT_EQ(o.f.hostSteps[1].arrays, (std::vector<std::string>{"a", "b"}));
  for (const auto &h : o.f.hostSteps) {
    EXPECT_EQ(h.repeat, 0);
    EXPECT_EQ(h.beforeKernel, 1u); // after the one kernel, in its pass
    EXPECT_EQ(h.loc.line, 12);     // the `if`: the first host statement after the kernel
  }
  EXPECT_EQ(o.f.repeats[0].hostSteps, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(has(o.text, "// from p.c:12: host code reads this array\n  host reads res")) << o.text;
  EXPECT_EQ(skeleton::parseSkeleton(o.text, "p.skel"), o.f);
  EXPECT_EQ(skeleton::printSkeleton(skeleton::parseSkeleton(o.text, "p.skel")), o.text);
}

TEST(SkeletonizerProgram, HostCodeBeforeTheKernelsKeepsOnlyTheFunctionsArrays) {
  // Before the first kernel the host fills its own buffer w (a device
  // temporary otherwise) and reads the parameter a: a's mark already says the
  // host provides it, so only `host writes w` remains; the copy w needs is its
  // step's. Host code after the last kernel that reads the parameter is the
  // `out` mark's business: no step.
  Out o = skel(R"(#define N 256
float checksum;
void scale(float *a) {
  float w[N];
  for (int i = 0; i < N; i++)
    w[i] = w[i > 0 ? i - 1 : 0] + 1.0f;
  checksum = a[0];
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    a[i] = a[i] * w[i];
  checksum += a[1];
}
)");
  ASSERT_EQ(o.f.kernels.size(), 1u) << o.text << o.warnings;
  ASSERT_EQ(o.f.hostSteps.size(), 1u) << o.text;
  EXPECT_TRUE(o.f.hostSteps[0].writes);
  EXPECT_EQ(o.f.hostSteps[0].arrays, std::vector<std::string>{"w"});
  EXPECT_EQ(o.f.hostSteps[0].beforeKernel, 0u);
  EXPECT_EQ(o.f.hostSteps[0].repeat, -1);
  EXPECT_EQ(markOf(o.f, "w"), skeleton::HostMark::None);
  EXPECT_EQ(markOf(o.f, "a"), skeleton::HostMark::InOut);
  EXPECT_EQ(skeleton::parseSkeleton(o.text, "p.skel"), o.f);
}

TEST(SkeletonizerProgram, HostTouchesThroughSubscriptsCallsAndAliases) {
  // What host code touches, each in the time loop after the kernel:
  //   b[0][0] = 1   a write of a 2-D array
  //   g(c + 1)      a buffer passed to a function (from an offset): a write
  //   *p = 2        p = &d[3]: a write of d (a pointer into it)
  //   sizeof e[0]   not evaluated: no touch
  //   while (r[k] > 0.5f) ...   the condition of a host loop: a read of r
  Out o = skel(R"(#define N 64
#define STEPS 8
void g(float *p);
void f(float a[N][N], float b[N][N], float *c, float *d, float *e, float *r) {
  for (int t = 0; t < STEPS; t++) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        b[i][j] = a[i][j] + c[j] + d[j] + e[j];
        r[i] = b[i][j];
      }
    b[0][0] = 1.0f;
    g(c + 1);
    float *p = &d[3];
    *p = 2.0f;
    int n = sizeof e[0];
    int k = n;
    while (r[k] > 0.5f && k < N - 1)
      k++;
  }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text << o.warnings;
  ASSERT_EQ(o.f.hostSteps.size(), 2u) << o.text;
  EXPECT_FALSE(o.f.hostSteps[0].writes);
  EXPECT_EQ(o.f.hostSteps[0].arrays, std::vector<std::string>{"r"});
  EXPECT_TRUE(o.f.hostSteps[1].writes);
  EXPECT_EQ(o.f.hostSteps[1].arrays, (std::vector<std::string>{"b", "c", "d"}));
}

TEST(SkeletonizerProgram, HostTouchesAfterASwapNameThePair) {
  // After `tmp = a; a = b; b = tmp;` the name a holds what the kernel wrote
  // as b: skelcast does not follow which buffer a name holds, so a touch of
  // either names both (a wrong guess costs a transfer, never drops one).
  Out o = skel(R"(#define N 128
void heat(float *a, float *b) {
  for (int t = 0; t < 50; ++t) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      b[i] = 0.5f * (a[i - 1] + a[i + 1]);
    float *tmp = a;
    a = b;
    b = tmp;
    a[0] = 1.0f;
  }
}
)");
  ASSERT_EQ(o.f.hostSteps.size(), 1u) << o.text;
  EXPECT_TRUE(o.f.hostSteps[0].writes);
  EXPECT_EQ(o.f.hostSteps[0].arrays, (std::vector<std::string>{"a", "b"}));
}

TEST(SkeletonizerProgram, HostCodeInAnOuterTimeLoopKeepsItCountedOnce) {
  // Two time loops around the same kernel would multiply (repeat 4*10), but
  // the outer one has host code of its own, which would then run 40 times:
  // the outer loop is counted once, with a warning, and its host code stays
  // outside the inner repeat.
  Out o = skel(R"(#define N 1024
void f(float *a, float *b) {
  float w[N];
  for (int s = 0; s < 4; s++) {
    w[0] = 1;
    for (int t = 0; t < 10; t++) {
#pragma omp parallel for
      for (int i = 1; i < N - 1; i++)
        b[i] = 0.5f * (a[i - 1] + a[i + 1]) + w[i];
    }
  }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u);
  EXPECT_EQ(skeleton::printExpr(o.f.repeats[0].count), "10");
  ASSERT_EQ(o.f.hostSteps.size(), 1u) << o.text;
  EXPECT_EQ(o.f.hostSteps[0].repeat, -1);
  EXPECT_TRUE(has(o.warnings, "p.c:4:3: warning: this loop around a time-step loop is counted once"))
      << o.warnings;
}

TEST(SkeletonizerProgram, HostCodeOnOtherMemoryKeepsTheCountsMultiplied) {
  // The outer loop's host code writes a global no kernel uses: no copy, so
  // the time loops still multiply.
  Out o = skel(R"(#define N 1024
float hist[4];
void f(float *a, float *b) {
  for (int s = 0; s < 4; s++) {
    for (int t = 0; t < 10; t++) {
#pragma omp parallel for
      for (int i = 1; i < N - 1; i++)
        b[i] = 0.5f * (a[i - 1] + a[i + 1]);
    }
    hist[s] = 1.0f;
  }
}
)");
  ASSERT_EQ(o.f.repeats.size(), 1u) << o.text;
  EXPECT_EQ(skeleton::printExpr(o.f.repeats[0].count), "4*10");
  EXPECT_TRUE(o.f.hostSteps.empty()) << o.text;
  EXPECT_TRUE(o.warnings.empty()) << o.warnings;
}

TEST(SkeletonizerProgram, RowsOfTwoDimensionalArraysInHostCode) {
  // init_row(b[0]) may write row 0 of b; row = a[N - 1] points into a, and a
  // write through it writes a; neither row expression reads anything.
  Out o = skel(R"(#define N 64
void init_row(float *r, int n);
void f(float a[N][N], float b[N][N]) {
  for (int t = 0; t < 8; t++) {
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        b[i][j] = a[i][j] * 0.5f;
    init_row(b[0], N);
    float *row = a[N - 1];
    row[0] = 1.0f;
  }
}
)");
  ASSERT_EQ(o.f.hostSteps.size(), 1u) << o.text;
  EXPECT_TRUE(o.f.hostSteps[0].writes);
  EXPECT_EQ(o.f.hostSteps[0].arrays, (std::vector<std::string>{"a", "b"}));
}
