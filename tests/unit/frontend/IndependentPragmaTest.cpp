// `#pragma skelcast independent` before a loop (issue 16, item 5: indirect
// stores "otherwise an OpenMP pragma or #pragma skelcast independent decides";
// docs/skeletonizer.md, "Parallel loops"): the programmer's word that the
// iterations are independent where skelcast cannot decide, trusted as an
// OpenMP loop directive is and no further. The shapes are written for the
// test: a scatter through a permutation, Floyd-Warshall's step. The traps: a
// dependence that is certain, and a shared scalar, stay refused under it.
#include "SkeletonizeText.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

using Out = testsupport::Skeletonized;
using testsupport::has;

Out run(const std::string &code) { return testsupport::skeletonizeText(code, "t.c"); }

std::string scatter(const std::string &pragma) {
  return "#define N 65536\nfloat in[N], out[N];\nint perm[N];\nvoid scatter(void) {\n" + pragma +
         "  for (int i = 0; i < N; i++)\n    out[perm[i]] = 2.0f * in[i];\n}\n";
}

} // namespace

TEST(IndependentPragma, AScatterThroughAPermutationPortsOnTheProgrammersWord) {
  Out refused = run(scatter(""));
  EXPECT_FALSE(refused.ok) << refused.text;
  Out o = run(scatter("#pragma skelcast independent\n"));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "// iterations independent: '#pragma skelcast independent'")) << o.text;
  EXPECT_TRUE(has(o.text, "parallel_for scatter(N) : i")) << o.text;
  EXPECT_TRUE(has(o.text, "st out[perm[i]]")) << o.text;
}

TEST(IndependentPragma, ACertainDependenceStaysRefused) {
  Out o = run(R"(#define N 65536
float a[N + 1];
void chain(void) {
#pragma skelcast independent
  for (int i = 0; i < N; i++)
    a[i + 1] = a[i] + 1.0f;
}
)");
  EXPECT_FALSE(o.ok) << o.text;
  EXPECT_TRUE(has(o.error + o.warnings, "'#pragma skelcast independent' declares the iterations "
                                        "independent, but they are not"))
      << o.error;
  EXPECT_TRUE(has(o.error + o.warnings, "a data race in a parallel port")) << o.error;

  // a scalar shared and carried from one iteration to the next
  Out s = run(R"(#define N 65536
float a[N], b[N];
void carry(void) {
  float last = 0.0f;
#pragma skelcast independent
  for (int i = 0; i < N; i++) {
    b[i] = a[i] + last;
    last = a[i];
  }
}
)");
  EXPECT_FALSE(s.ok) << s.text;
  EXPECT_TRUE(has(s.error + s.warnings, "they share 'last'")) << s.error;
}

TEST(IndependentPragma, FloydWarshallsStepPortsWithTheDependenceSaid) {
  Out o = run(R"(#define N 2800
int path[N][N];
void floyd(void) {
  for (int k = 0; k < N; k++)
#pragma skelcast independent
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.text, "repeat k = 0:N {")) << o.text;
  // the directive is not what ports it: the relaxation is (RelaxationTest)
  EXPECT_TRUE(has(o.warnings, "ported as parallel on an assumption about the values: isl finds a "
                              "dependence between some of its iterations"))
      << o.warnings;
}

TEST(IndependentPragma, BeforeAnIfItIsIgnoredWithAWarning) {
  Out o = run(R"(#define N 65536
float a[N];
void f(void) {
  for (int i = 0; i < N; i++) {
#pragma skelcast independent
    if (a[i] < 0.0f)
      a[i] = 0.0f;
  }
}
)");
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(has(o.warnings, "'#pragma skelcast independent' ignored: it applies to a 'for'"))
      << o.warnings;
}
