// Branch probabilities over large loop spaces (issue 17, item 5): sampled
// beyond 2^18 points, borders exact, continuous in the size.
#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

using namespace skelcast;
using namespace skelcast::frontend;

namespace {

/// The probabilities written for the file's branches, in order.
std::vector<double> probabilities(int n, const char *cond) {
  std::string code = "#define N " + std::to_string(n) + "\nfloat a[N][N], b[N][N];\n"
                     "void f(void) {\n  for (int r = 0; r < N; r++)\n    for (int c = 0; c < N; c++)\n"
                     "      if (" + cond + ") a[r][c] = b[r][c]; else a[r][c] = 2 * b[r][c] + b[c][r];\n}\n";
  std::ostringstream d;
  std::string text = skeleton::printSkeleton(skeletonizeCode(code, "t.c", {}, d).file);
  std::vector<double> out;
  std::regex re("p=([0-9.e+-]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

} // namespace

TEST(BranchProbability, BordersAreExactBeyondTheCountingBudget) {
  // 4096^2 = 2^24 points, above the budget: the border row is still 1/4096
  auto p = probabilities(4096, "r == 0 || c == N - 1");
  ASSERT_EQ(p.size(), 1u);
  double exact = (2.0 * 4096 - 1) / (4096.0 * 4096);
  EXPECT_NEAR(p[0], exact, exact * 1e-3);
}

TEST(BranchProbability, ContinuousInTheSize) {
  // a triangle: (N - 1) / (2N) exactly; 4096 and 4104 must not jump (they
  // were 0.5 assumed above 2^24 points)
  for (int n : {4000, 4096, 4104, 6000}) {
    auto p = probabilities(n, "c < r");
    ASSERT_EQ(p.size(), 1u) << n;
    double exact = (n - 1.0) / (2.0 * n);
    EXPECT_NEAR(p[0], exact, 2e-3) << "N = " << n;
  }
}
