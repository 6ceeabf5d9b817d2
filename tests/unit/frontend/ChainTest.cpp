// The dependent chain of a stretch (src/frontend/Chain.h, docs/skeletonizer.md
// "Dependent chains"): where a loop body holds a correctly rounded division or
// square root, its `comp` carries `chain:C`, the cycles its operations take
// one after another on the H200's latencies, and `waits:L` the loads on that
// path (whose latency the layout decides: the model's `chain` term). Each case
// is worked by hand below with ChainLatency's numbers (ALU 4, FP64 8, a load
// 35 while walking, div.rn.f32 58, sqrt.rn.f32 56, div.rn.f64 125,
// sqrt.rn.f64 93); C is the path's cycles less 35 a wait.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

#include <regex>

using namespace skelcast;

namespace {

using testsupport::has;

/// The `chain:C` values of the printed skeleton, in order, each with its `waits:L`.
std::vector<std::pair<long, long>> chains(const std::string &text) {
  std::vector<std::pair<long, long>> out;
  std::regex re("chain:([0-9]+)(, waits:([0-9]+))?");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.emplace_back(std::stol((*it)[1]), (*it)[3].matched ? std::stol((*it)[3]) : 0L);
  return out;
}
using Chains = std::vector<std::pair<long, long>>;

testsupport::Skeletonized skel(const std::string &code) {
  auto o = testsupport::skeletonizeText(code);
  EXPECT_TRUE(o.ok) << o.error;
  return o;
}

} // namespace

// An all-pairs force sum, as n-body codes write it. Per iteration of j:
// x[j], x[i] loaded (35), dx = 39 (and dy, dz); dx*dx 43, + dy*dy (FMA) 47,
// + dz*dz 51, + e 55; sqrtf 55 + 56 = 111 (serial: what follows starts
// there); r2 * s 115; 1.0f / (...) 115 + 58 = 173 (serial); m[j] loaded after
// it, 208; * dx 212; fx += ... * inv (FMA) 216: two loads on the path (x[j],
// m[j]), 216 - 70 = 146. Measured on the H200 with one warp a scheduler: 233
// cycles an iteration (h200_unseen33, nbody's staged layouts, 1.93 ms for
// 16,384 iterations at 1.98 GHz).
TEST(Chain, AForceSumWaitsOutItsSquareRootAndDivisionInOrder) {
  auto o = skel("#include <math.h>\n#define N 1024\n"
                "float x[N], y[N], z[N], m[N], ax[N];\n"
                "void f(float e) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++) {\n"
                "    float fx = 0.0f;\n"
                "    for (int j = 0; j < N; j++) {\n"
                "      float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];\n"
                "      float r2 = dx * dx + dy * dy + dz * dz + e;\n"
                "      float inv = 1.0f / (r2 * sqrtf(r2));\n"
                "      fx += m[j] * dx * inv;\n"
                "    }\n"
                "    ax[i] = fx;\n"
                "  }\n}\n");
  EXPECT_EQ(chains(o.text), (Chains{{146, 2}})) << o.text;
}

// Without a correctly rounded division or square root the compiler overlaps
// the iterations: no chain. A division by a power of two is a multiplication.
TEST(Chain, ABodyWithoutADivisionOrSquareRootHasNone) {
  auto o = skel("#define N 1024\nfloat a[N], b[N];\n"
                "void f(float s) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++)\n"
                "    a[i] = b[i] * s + b[i] / 2.0f;\n}\n");
  EXPECT_FALSE(has(o.text, "chain:")) << o.text;
}

// The parallel body's own statements: b[i] loaded (35), / 3.0f: 35 + 58 = 93,
// a wait and 58; in double, sqrt(x[i]): 35 + 93 = 128; both: the division
// waits for the root (serial): 35 + 93 = 128, then / s: 128 + 125 = 253.
TEST(Chain, DivisionsAndSquareRootsOfFloatAndDouble) {
  auto f = skel("#define N 1024\nfloat a[N], b[N];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++)\n    a[i] = b[i] / 3.0f;\n}\n");
  EXPECT_EQ(chains(f.text), (Chains{{58, 1}})) << f.text;
  auto d = skel("#include <math.h>\n#define N 1024\ndouble x[N], y[N];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++)\n    y[i] = sqrt(x[i]);\n}\n");
  EXPECT_EQ(chains(d.text), (Chains{{93, 1}})) << d.text;
  auto both = skel("#include <math.h>\n#define N 1024\ndouble x[N], y[N];\n"
                   "void f(double s) {\n#pragma omp parallel for\n"
                   "  for (int i = 0; i < N; i++)\n    y[i] = sqrt(x[i]) / s;\n}\n");
  EXPECT_EQ(chains(both.text), (Chains{{218, 1}})) << both.text;
}

// A row normalized in place (Gram-Schmidt's step): the root once per row, in
// the parallel body (the sum s is ready when the loop before it ends: 0 here,
// its own stretch), 0 + 93 = 93, no load; each element's division in the
// second loop: a[i][j] loaded 35, / r 35 + 125 = 160, a wait and 125. The
// first loop has none.
TEST(Chain, EachLoopBodyIsItsOwnStretch) {
  auto o = skel("#include <math.h>\n#define R 64\n#define C 256\ndouble a[R][C];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < R; i++) {\n"
                "    double s = 0.0;\n"
                "    for (int j = 0; j < C; j++)\n      s += a[i][j] * a[i][j];\n"
                "    double r = sqrt(s);\n"
                "    for (int j = 0; j < C; j++)\n      a[i][j] = a[i][j] / r;\n"
                "  }\n}\n");
  EXPECT_EQ(chains(o.text), (Chains{{93, 0}, {125, 1}})) << o.text;
}

// What the compiler moves or leaves out: a division of values the loop does
// not change is computed before the loop (none in it); a recurrence through a
// scalar is not: q / t waits for the last iteration's q (58), A[i][j] is
// loaded after it (93, a wait), the sum 97: {62, 1}. An arm that leaves the
// loop (a search's `break`) runs once, not each iteration: no chain.
TEST(Chain, HoistedDivisionsRecurrencesAndExits) {
  auto inv = skel("#define N 512\nfloat A[N][N], y[N];\n"
                  "void f(float s, float t) {\n#pragma omp parallel for\n"
                  "  for (int i = 0; i < N; i++) {\n    float sum = 0.0f;\n"
                  "    for (int j = 0; j < N; j++)\n      sum += A[i][j] * (s / t);\n"
                  "    y[i] = sum;\n  }\n}\n");
  EXPECT_EQ(chains(inv.text), Chains{}) << inv.text;
  auto rec = skel("#define N 512\nfloat A[N][N], x[N], y[N];\n"
                  "void f(float t) {\n#pragma omp parallel for\n"
                  "  for (int i = 0; i < N; i++) {\n    float q = x[i];\n"
                  "    for (int j = 0; j < N; j++)\n      q = q / t + A[i][j];\n"
                  "    y[i] = q;\n  }\n}\n");
  EXPECT_EQ(chains(rec.text), (Chains{{62, 1}})) << rec.text;
  auto exit = skel("#define N 512\ndouble A[N][N], x[N], y[N];\n"
                   "void f(void) {\n#pragma omp parallel for\n"
                   "  for (int i = 0; i < N; i++) {\n    y[i] = 0.0;\n"
                   "    for (int j = 0; j < N; j++) {\n"
                   "      if (A[i][j] > 100.0) { y[i] = A[i][j] / x[j]; break; }\n"
                   "      y[i] = y[i] + A[i][j];\n    }\n  }\n}\n");
  EXPECT_EQ(chains(exit.text), Chains{}) << exit.text;
}

// The arms of an `if` start together: an arm without a division is not timed
// after the other's. Where the stretch's work all sits in the arms, a `comp 0`
// before them carries the chain (it runs each time the stretch does): x[i]
// loaded 35, / t 93 in the else arm, {58, 1}; the then arm's 39 is below it.
TEST(Chain, ArmsStartTogetherAndTheChainRunsWithTheStretch) {
  auto o = skel("#define N 512\nfloat x[N], y[N];\n"
                "void f(float t, int flag) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++) {\n"
                "    if (flag) y[i] = x[i] * 2.0f; else y[i] = x[i] / t;\n  }\n}\n");
  EXPECT_EQ(chains(o.text), (Chains{{58, 1}})) << o.text;
  EXPECT_TRUE(has(o.text, "  comp 0 (chain:58, waits:1)\n")) << o.text;
  auto two = skel("#define N 512\nfloat x[N], y[N], z[N];\n"
                  "void f(float t, int flag) {\n#pragma omp parallel for\n"
                  "  for (int i = 0; i < N; i++) {\n"
                  "    if (flag) y[i] = x[i] / t; else y[i] = x[i] * 2.0f;\n"
                  "    z[i] = x[i] / t;\n  }\n}\n");
  // the division after the `if` starts when the then arm's is done: 93 + 58 = 151
  EXPECT_EQ(chains(two.text), (Chains{{116, 1}})) << two.text;
}
