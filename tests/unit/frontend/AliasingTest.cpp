// The aliasing rule (docs/skeletonizer.md, "Parallel loops: the dependence
// test", Aliasing): where pointers come from decides whether two names of a
// loop may overlap. Fresh allocations and declared arrays never do; a pointer
// set into another array overlaps it at its offset, which isl decides; pointer
// parameters no call of the file joins are assumed apart, with one warning per
// function; `--assume-aliasing` restores the strict rule. The traps must all
// be refused (never ported as parallel).
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

struct Out {
  SkeletonizeResult r;
  std::string text;     ///< the printed skeleton
  std::string warnings; ///< one a line
};

Out skel(const std::string &code, SkeletonizeOptions opts = {}) {
  std::ostringstream d;
  Out o{skeletonizeCode(code, "t.c", opts, d), {}, {}};
  o.text = skeleton::printSkeleton(o.r.file);
  for (const auto &w : o.r.warnings)
    o.warnings += w.str() + "\n";
  return o;
}

/// The warnings of code that must not port (printed to the diagnostics stream).
std::string refusedWarnings(const std::string &code, SkeletonizeOptions opts = {}) {
  std::ostringstream d;
  try {
    skeletonizeCode(code, "t.c", opts, d);
  } catch (const InputError &e) {
    return d.str() + e.what();
  }
  ADD_FAILURE() << "expected no portable nest in:\n" << code;
  return {};
}

bool has(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }

int count(const std::string &s, const std::string &sub) {
  int n = 0;
  for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + 1))
    ++n;
  return n;
}

SkeletonizeOptions strict() {
  SkeletonizeOptions o;
  o.assumeAliasing = true;
  return o;
}

} // namespace

// ---------------------------------------------------------------------------
// Must port

TEST(Aliasing, ChainedMallocTemporariesArePortedWithoutWarning) {
  const char *code = "#include <stdlib.h>\n"
                     "#define N 1024\n"
                     "float in[N], out[N];\n"
                     "void f(void) {\n"
                     "  float *t1 = (float *)malloc(N * sizeof(float));\n"
                     "  float *t2;\n"
                     "  t2 = malloc(N * sizeof(float));\n"
                     "  for (int i = 0; i < N; i++) t1[i] = in[i] * 2;\n"
                     "  for (int i = 0; i < N; i++) t2[i] = t1[i] + 1;\n"
                     "  for (int i = 0; i < N; i++) out[i] = t2[i];\n"
                     "  free(t1); free(t2);\n"
                     "}\n";
  Out o = skel(code);
  EXPECT_EQ(o.r.file.kernels.size(), 3u) << o.text << o.warnings;
  EXPECT_FALSE(has(o.warnings, "assumes")) << o.warnings;
}

TEST(Aliasing, CallocAndLocalArraysNeverAliasAParameter) {
  Out o = skel("#include <stdlib.h>\n"
               "void f(float *x, int n) {\n"
               "  float *t = calloc(n, sizeof(float));\n"
               "  float loc[256];\n"
               "  for (int i = 0; i < 256; i++) t[i] = x[i] + 1;\n"
               "  for (int i = 0; i < 256; i++) loc[i] = t[i];\n"
               "  for (int i = 0; i < 256; i++) x[i] = loc[i];\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 3u) << o.text << o.warnings;
  EXPECT_FALSE(has(o.warnings, "assumes")) << o.warnings;
}

TEST(Aliasing, RodiniaNwWithPlainPointerParametersIsPortedWithOneWarning) {
  // nw's shape: a score matrix updated from a reference matrix, both plain
  // `int *`, in two nests of one function
  Out o = skel("#define MAXC 2049\n"
               "void nw_init(int *input_itemsets, int *referrence, int penalty) {\n"
               "  for (int i = 1; i < MAXC; i++)\n"
               "    input_itemsets[i * MAXC] = -i * penalty + referrence[i * MAXC];\n"
               "  for (int j = 1; j < MAXC; j++)\n"
               "    input_itemsets[j] = -j * penalty + referrence[j];\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 2u) << o.text << o.warnings;
  EXPECT_EQ(count(o.warnings, "assumes"), 1) << o.warnings;
  EXPECT_TRUE(has(o.warnings, "t.c:2:6: warning: 'nw_init' assumes its pointer parameters "
                              "'input_itemsets', 'referrence' do not overlap (a port must "
                              "guarantee it; --assume-aliasing refuses instead)"))
      << o.warnings;
}

TEST(Aliasing, RodiniaSradWithPlainFloatPointersIsPortedWithOneWarning) {
  Out o = skel("void srad(float *J, float *c, float *dN, float *dS, int rows, int cols,\n"
               "          float q0) {\n"
               "  for (int i = 1; i < rows - 1; i++)\n"
               "    for (int j = 1; j < cols - 1; j++) {\n"
               "      int k = i * cols + j;\n"
               "      float Jc = J[k];\n"
               "      dN[k] = J[k - cols] - Jc;\n"
               "      dS[k] = J[k + cols] - Jc;\n"
               "      c[k] = 1.0f / (1.0f + (dN[k] * dN[k] + dS[k] * dS[k]) / (Jc * Jc * q0));\n"
               "    }\n"
               "}\n"
               "float gJ[100], gc[100], gN[100], gS[100];\n"
               "void run(void) { srad(gJ, gc, gN, gS, 10, 10, 0.5f); }\n");
  EXPECT_EQ(o.r.file.kernels.size(), 1u) << o.text << o.warnings;
  EXPECT_EQ(count(o.warnings, "assumes"), 1) << o.warnings;
  EXPECT_TRUE(has(o.warnings, "t.c:1:6: warning: 'srad' assumes its pointer parameters 'J', "
                              "'c', 'dN', 'dS' do not overlap"))
      << o.warnings;
}

TEST(Aliasing, AnAliasAtAnOffsetThatCarriesNothingIsParallel) {
  // xx = flat + N: the two halves of one allocation; isl sees they never meet
  Out o = skel("#include <stdlib.h>\n"
               "#define N 512\n"
               "void f(float *a) {\n"
               "  float *flat = malloc(2 * N * sizeof(float));\n"
               "  float *xx = flat + N;\n"
               "  for (int i = 0; i < N; i++) xx[i] = flat[i] + a[i];\n"
               "  free(flat);\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 1u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.text, "isl: no dependence carried")) << o.text;
}

TEST(Aliasing, AssumeAliasingRestoresTheStrictRule) {
  std::string w = refusedWarnings("void step(float *a, const float *b) {\n"
                                  "  for (int i = 0; i < 100; i++) a[i] = b[i] + 1;\n"
                                  "}\n",
                                  strict());
  EXPECT_TRUE(has(w, "'a' and 'b' may point to the same memory (declare the pointers "
                     "'restrict')"))
      << w;
  // restrict still ports under the strict rule
  Out o = skel("void step(float *restrict a, const float *b) {\n"
               "  for (int i = 0; i < 100; i++) a[i] = b[i] + 1;\n"
               "}\n",
               strict());
  EXPECT_EQ(o.r.file.kernels.size(), 1u);
  EXPECT_FALSE(has(o.warnings, "assumes")) << o.warnings;
}

TEST(Aliasing, RestrictParametersNeedNoWarning) {
  Out o = skel("void step(float *restrict a, const float *restrict b) {\n"
               "  for (int i = 0; i < 100; i++) a[i] = b[i] + 1;\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 1u);
  EXPECT_FALSE(has(o.warnings, "assumes")) << o.warnings;
}

// ---------------------------------------------------------------------------
// Traps: must be refused

TEST(Aliasing, TrapRecurrenceThroughAnAlias) {
  std::string w = refusedWarnings("void f(float *a, int n) {\n"
                                  "  float *p = a + 1;\n"
                                  "  for (int i = 0; i < n - 1; i++) p[i] = a[i] * 2;\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "cannot port this loop")) << w;
  EXPECT_TRUE(has(w, "not independent")) << w;
}

TEST(Aliasing, TrapOffsetIntoAMallocdArray) {
  std::string w = refusedWarnings("#include <stdlib.h>\n"
                                  "#define N 256\n"
                                  "float a[N];\n"
                                  "void f(void) {\n"
                                  "  float *flat = malloc(3 * N * sizeof(float));\n"
                                  "  float *xx = flat + 4;\n"
                                  "  for (int i = 0; i < N; i++) xx[i] = flat[i + 8] + a[i];\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "not independent")) << w;
}

TEST(Aliasing, TrapACopyOfAnAlias) {
  std::string w = refusedWarnings("#define N 256\n"
                                  "void f(float *flat) {\n"
                                  "  float *xx = flat + 4;\n"
                                  "  float *yy;\n"
                                  "  yy = xx;\n"
                                  "  for (int i = 0; i < N; i++) xx[i] = yy[i + 1];\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "not independent")) << w;
}

TEST(Aliasing, TrapAnAddressIntoTheArray) {
  std::string w = refusedWarnings("#define N 256\n"
                                  "float a[2 * N];\n"
                                  "void f(void) {\n"
                                  "  float *p = &a[3];\n"
                                  "  for (int i = 0; i < N; i++) p[i] = a[i] + 1;\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "not independent")) << w;
}

TEST(Aliasing, TrapAnOffsetThatChangesIsRefused) {
  std::string w = refusedWarnings("void f(float *a, int n, int k) {\n"
                                  "  k = k * 3;\n"
                                  "  float *p = a + k;\n"
                                  "  for (int i = 0; i < n; i++) p[i] = a[i] * 2;\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "'p' and 'a' point to the same memory: 'p' points into 'a' at an offset "
                     "skelcast cannot follow"))
      << w;
}

TEST(Aliasing, TrapASwapOfTwoPointerNamesAroundTheNest) {
  std::string w = refusedWarnings("#define N 256\n"
                                  "void f(float *a, float *b, int steps) {\n"
                                  "  float *tmp;\n"
                                  "  for (int t = 0; t < steps; t++) {\n"
                                  "    for (int i = 1; i < N; i++) b[i] = a[i] + a[i - 1];\n"
                                  "    tmp = a; a = b; b = tmp;\n"
                                  "  }\n"
                                  "}\n");
  // (the inner loop's reason is folded into the outer loop's warning)
  EXPECT_TRUE(has(w, "cannot port this loop")) << w;
  // with restrict (the programmer's promise) the inner nest ports: aliasing was the reason
  Out o = skel("#define N 256\n"
               "void f(float *restrict a, float *restrict b, int steps) {\n"
               "  float *tmp;\n"
               "  for (int t = 0; t < steps; t++) {\n"
               "    for (int i = 1; i < N; i++) b[i] = a[i] + a[i - 1];\n"
               "    tmp = a; a = b; b = tmp;\n"
               "  }\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 1u) << o.text << o.warnings;
  // the same with malloc'd buffers: the names no longer hold one allocation each
  std::string w2 = refusedWarnings("#include <stdlib.h>\n"
                                   "#define N 256\n"
                                   "void f(int steps) {\n"
                                   "  float *a = malloc(N * 4), *b = malloc(N * 4), *tmp;\n"
                                   "  for (int t = 0; t < steps; t++) {\n"
                                   "    for (int i = 1; i < N; i++) b[i] = a[i] + a[i - 1];\n"
                                   "    tmp = a; a = b; b = tmp;\n"
                                   "  }\n"
                                   "}\n");
  EXPECT_TRUE(has(w2, "cannot port this loop")) << w2;
}

TEST(Aliasing, TrapAParameterPassedTwice) {
  std::string w = refusedWarnings("#define N 256\n"
                                  "void scale(float *dst, const float *src) {\n"
                                  "  for (int i = 0; i < N - 1; i++) dst[i] = src[i + 1] * 2;\n"
                                  "}\n"
                                  "float x[N];\n"
                                  "void run(void) { scale(x, x); }\n");
  EXPECT_TRUE(has(w, "'dst' and 'src' point to the same memory: the call on line 6 passes 'x' "
                     "for both 'dst' and 'src'"))
      << w;
}

TEST(Aliasing, TrapOverlappingPartsPassedByTheCaller) {
  std::string w = refusedWarnings("#include <stdlib.h>\n"
                                  "#define N 256\n"
                                  "void scale(float *dst, const float *src) {\n"
                                  "  for (int i = 0; i < N; i++) dst[i] = src[i] * 2;\n"
                                  "}\n"
                                  "void run(void) {\n"
                                  "  float *buf = malloc(2 * N * sizeof(float));\n"
                                  "  scale(buf + 1, buf);\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "passes 'buf' for both 'dst' and 'src'")) << w;
}

TEST(Aliasing, TrapAGlobalPassedForAParameter) {
  std::string w = refusedWarnings("#define N 256\n"
                                  "float g[N + 1];\n"
                                  "void f(float *p) {\n"
                                  "  for (int i = 0; i < N; i++) p[i] = g[i + 1];\n"
                                  "}\n"
                                  "void run(void) { f(g); }\n");
  EXPECT_TRUE(has(w, "the call on line 6 passes 'g' for 'p'")) << w;
}

TEST(Aliasing, TrapAPointerFromACall) {
  std::string w = refusedWarnings("float *get(void);\n"
                                  "void f(float *a) {\n"
                                  "  float *p = get();\n"
                                  "  for (int i = 0; i < 100; i++) p[i] = a[i] * 2;\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "may point to the same memory ('p' is set from 'get()'")) << w;
}

TEST(Aliasing, TrapACallerPassingAnUntracedPointer) {
  // the caller's pointer is swapped: which array reaches 'src' is unknown
  std::string w = refusedWarnings("#define N 256\n"
                                  "void scale(float *dst, const float *src) {\n"
                                  "  for (int i = 0; i < N; i++) dst[i] = src[i] * 2;\n"
                                  "}\n"
                                  "void run(float *a, float *b) {\n"
                                  "  float *t = a; a = b; b = t;\n"
                                  "  scale(a, b);\n"
                                  "}\n");
  EXPECT_TRUE(has(w, "the call on line 7 passes 'a' for 'dst', whose origin skelcast cannot "
                     "follow"))
      << w;
}

TEST(Aliasing, CallersPassingDistinctArraysKeepTheAssumption) {
  Out o = skel("#include <stdlib.h>\n"
               "#define N 256\n"
               "void scale(float *dst, const float *src) {\n"
               "  for (int i = 0; i < N; i++) dst[i] = src[i + 1] * 2;\n"
               "}\n"
               "float x[N + 1];\n"
               "void run(void) {\n"
               "  float *y = malloc(N * sizeof(float));\n"
               "  scale(y, x);\n"
               "  free(y);\n"
               "}\n");
  EXPECT_EQ(o.r.file.kernels.size(), 1u) << o.text << o.warnings;
  EXPECT_TRUE(has(o.warnings, "t.c:3:6: warning: 'scale' assumes its pointer parameters 'dst', "
                              "'src' do not overlap"))
      << o.warnings;
}
