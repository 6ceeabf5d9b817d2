// The dependent chain of a stretch (src/frontend/Chain.h, docs/skeletonizer.md
// "Dependent chains"): where a loop body holds a correctly rounded division or
// square root, its `comp` carries `chain:C`, the cycles its operations take
// one after another on the H200's latencies. Each case is worked by hand
// below with ChainLatency's numbers (ALU 4, FP64 8, L1 load 35, div.rn.f32 58,
// sqrt.rn.f32 56, div.rn.f64 125, sqrt.rn.f64 93).
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

#include <regex>

using namespace skelcast;

namespace {

using testsupport::has;

/// The `chain:C` values of the printed skeleton, in order.
std::vector<long> chains(const std::string &text) {
  std::vector<long> out;
  std::regex re("chain:([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stol((*it)[1]));
  return out;
}

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
// it, 208; * dx 212; fx += ... * inv (FMA) 216. Measured on the H200 with one
// warp a scheduler: 233 cycles an iteration (h200_unseen33, nbody's staged
// layouts, 1.93 ms for 16,384 iterations at 1.98 GHz).
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
  EXPECT_EQ(chains(o.text), std::vector<long>{216}) << o.text;
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

// The parallel body's own statements: b[i] loaded (35), / 3.0f: 35 + 58 = 93;
// in double, sqrt(x[i]): 35 + 93 = 128; both: the division waits for the root
// (serial): 35 + 93 = 128, then / s: 128 + 125 = 253.
TEST(Chain, DivisionsAndSquareRootsOfFloatAndDouble) {
  auto f = skel("#define N 1024\nfloat a[N], b[N];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++)\n    a[i] = b[i] / 3.0f;\n}\n");
  EXPECT_EQ(chains(f.text), std::vector<long>{93}) << f.text;
  auto d = skel("#include <math.h>\n#define N 1024\ndouble x[N], y[N];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < N; i++)\n    y[i] = sqrt(x[i]);\n}\n");
  EXPECT_EQ(chains(d.text), std::vector<long>{128}) << d.text;
  auto both = skel("#include <math.h>\n#define N 1024\ndouble x[N], y[N];\n"
                   "void f(double s) {\n#pragma omp parallel for\n"
                   "  for (int i = 0; i < N; i++)\n    y[i] = sqrt(x[i]) / s;\n}\n");
  EXPECT_EQ(chains(both.text), std::vector<long>{253}) << both.text;
}

// A row normalized in place (Gram-Schmidt's step): the root once per row, in
// the parallel body (the sum s is ready when the loop before it ends: 0 here,
// its own stretch), 0 + 93 = 93; each element's division in the second loop:
// a[i][j] loaded 35, / r 35 + 125 = 160. The first loop has none.
TEST(Chain, EachLoopBodyIsItsOwnStretch) {
  auto o = skel("#include <math.h>\n#define R 64\n#define C 256\ndouble a[R][C];\n"
                "void f(void) {\n#pragma omp parallel for\n"
                "  for (int i = 0; i < R; i++) {\n"
                "    double s = 0.0;\n"
                "    for (int j = 0; j < C; j++)\n      s += a[i][j] * a[i][j];\n"
                "    double r = sqrt(s);\n"
                "    for (int j = 0; j < C; j++)\n      a[i][j] = a[i][j] / r;\n"
                "  }\n}\n");
  EXPECT_EQ(chains(o.text), (std::vector<long>{93, 160})) << o.text;
}
