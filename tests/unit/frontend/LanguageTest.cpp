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
