// The languages real code comes in: C-style C++ (`.cpp`) and pre-C99 C, as
// GCC takes them.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code, const std::string &path) {
  return testsupport::skeletonizeText(code, path);
}

} // namespace

TEST(Language, CStyleCxxIsCompiledAsCxx) {
  // Rodinia's hotspot_openmp.cpp shape: `using namespace`, functional and named casts,
  // a function in extern "C", a template (skipped with a warning)
  Out o = run(R"(
#include <cstdlib>
using namespace std;
#define N 512
float in[N][N], out[N][N];
template <typename T> void tscale(T *a, int n) { for (int i = 0; i < n; i++) a[i] *= 2; }
extern "C" {
void step(float k) {
#pragma omp parallel for
  for (int r = 1; r < N - 1; r++)
    for (int c = 1; c < N - 1; c++) {
      float centre = in[r][c];
      out[r][c] = centre + k * float(in[r - 1][c] + in[r + 1][c] - 2 * centre) + static_cast<float>(c);
    }
}
}
)",
              "t.cpp");
  ASSERT_TRUE(o.ok) << o.diag << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step(1:N - 1, 1:N - 1) : r, c {")) << o.text;
  EXPECT_TRUE(has(o.warnings, "t.cpp:6:28: warning: function template 'tscale' skipped")) << o.warnings;
}

TEST(Language, PreC99ImplicitIntAndDeclarationsAreWarnings) {
  // Rodinia's backprop.c: K&R definitions with implicit int, calls to
  // undeclared functions
  Out o = run(R"(
#define N 1024
float a[N], b[N];
scale(k)
float k;
{
  int i;
  for (i = 0; i < N; i++)
    a[i] = k * b[i];
  report(a);
}
)",
              "t.c");
  ASSERT_TRUE(o.ok) << o.diag << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for scale(N)")) << o.text;
  EXPECT_TRUE(has(o.diag, "warning: type specifier missing, defaults to 'int'")) << o.diag;
  EXPECT_TRUE(has(o.diag, "warning: call to undeclared function 'report'")) << o.diag;
}

TEST(Language, AFunctionTemplateIsAnalysedThroughItsInstantiations) {
  // a generic copy under 'omp parallel for', called with explicit and deduced
  // template arguments: each instantiation is a kernel named by its arguments;
  // a template the file never calls is skipped with a warning, its loop named
  Out o = run(R"(
#define NV 5
#define NEL 4096
float va[NEL * NV], vb[NEL * NV];
double da[NEL], db[NEL];
template <typename T>
void dup(T *to, const T *from, int n)
{
#pragma omp parallel for default(shared) schedule(static)
  for (int i = 0; i < n; i++)
    to[i] = from[i];
}
template <typename T> void unused(T *a, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}
int main() {
  dup<float>(vb, va, NEL * NV);
  dup(db, da, NEL);
  return 0;
}
)",
              "t.cpp");
  ASSERT_TRUE(o.ok) << o.diag << o.error;
  EXPECT_TRUE(has(o.text, "// from t.cpp:10, function 'dup<float>'")) << o.text;
  EXPECT_TRUE(has(o.text, "// from t.cpp:10, function 'dup<double>'")) << o.text;
  EXPECT_TRUE(has(o.text, "(NEL*NV) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "(NEL) : i {")) << o.text;
  EXPECT_TRUE(has(o.text, "float to[NEL*NV]")) << o.text;
  EXPECT_TRUE(has(o.text, "double to_2[NEL]")) << o.text;
  EXPECT_TRUE(has(o.warnings, "t.cpp:13:28: warning: function template 'unused' skipped: the "
                              "file never instantiates it"))
      << o.warnings;
}

TEST(Language, CxxStringLiteralFollowedByAMacroIsAWarningAsInGcc) {
  // C++98 code: a format macro written right after a string literal, without
  // a space; C++11 reads it as an unknown literal suffix, an error in Clang, a
  // warning in GCC that expands the macro
  Out o = run(R"(
#include <stdio.h>
#define FMT_ID "%d"
#define N 2048
float a[N], b[N];
void step(float k) {
  printf("step ("FMT_ID")\n", 1);
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    a[i] = k * b[i];
}
)",
              "t.cpp");
  ASSERT_TRUE(o.ok) << o.diag << o.error;
  EXPECT_TRUE(has(o.text, "parallel_for step(N) : i {")) << o.text;
  EXPECT_TRUE(has(o.diag, "warning: invalid suffix on literal")) << o.diag;
}
