// `reduce(op: s)` after a kernel's index names (docs/skeleton-language.md,
// "Reductions"): what the parser builds, the canonical form `fmt` prints and
// reads back, the program's dataflow through the result, and the checks with
// their positions.
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::skeleton;

namespace {

SkeletonFile parse(const std::string &text) { return parseSkeleton(text, "t.skel"); }

/// `t` is refused at line:col with a message holding `msg`.
void expectError(const std::string &t, int line, int col, const std::string &msg) {
  try {
    parse(t);
    FAIL() << t;
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, line) << e.what();
    EXPECT_EQ(e.loc().col, col) << e.what();
    EXPECT_NE(e.message().find(msg), std::string::npos) << e.what();
  }
}

const char *kDot = R"(#define N 4096

float a[N]
float b[N]
double s[1]

parallel_for dot(N) : i reduce(+: s) {
  ld a[i]
  ld b[i]
  comp 2
}
)";

} // namespace

TEST(Reduction, ParsesTheClause) {
  SkeletonFile f = parse(kDot);
  ASSERT_EQ(f.kernels.size(), 1u);
  ASSERT_EQ(f.kernels[0].reductions.size(), 1u);
  const Reduction &r = f.kernels[0].reductions[0];
  EXPECT_EQ(r.op, ReduceOp::Add);
  EXPECT_EQ(r.target, "s");
  EXPECT_EQ(r.loc.line, 7);
  EXPECT_EQ(r.loc.col, 35);
  EXPECT_EQ(reductionType(f, r), ElemType::Double);
}

TEST(Reduction, CanonicalFormRoundTrips) {
  EXPECT_EQ(printSkeleton(parse(kDot)), kDot);
  // several clauses; one operator's consecutive targets share a clause
  const char *many = "parallel_for(8, 8) : i, j reduce( max :m) reduce(+: s) reduce(+: t) "
                     "reduce(min: lo) reduce(*: p) {\n  comp 1\n}\n";
  SkeletonFile f = parse(many);
  ASSERT_EQ(f.kernels[0].reductions.size(), 5u);
  std::string text = printSkeleton(f);
  EXPECT_EQ(text, "parallel_for(8, 8) : i, j reduce(max: m) reduce(+: s, t) reduce(min: lo) "
                  "reduce(*: p) {\n  comp 1\n}\n");
  EXPECT_EQ(parse(text), f);
  // an undeclared target is a float on the device
  EXPECT_EQ(reductionType(f, f.kernels[0].reductions[0]), ElemType::Float);
}

TEST(Reduction, TheResultJoinsTheProgramsDataflow) {
  SkeletonFile f = parse(kDot);
  auto t = kernelTouches(f, f.kernels[0]);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[2].array, "s");
  EXPECT_FALSE(t[2].isStore);
  EXPECT_EQ(t[3].array, "s");
  EXPECT_TRUE(t[3].isStore);
  // undeclared: on the device only, no transfer
  SkeletonFile g = parse("parallel_for(8) : i reduce(+: q) {\n  comp 1\n}\n");
  EXPECT_TRUE(kernelTouches(g, g.kernels[0]).empty());
}

TEST(Reduction, Errors) {
  expectError("parallel_for(8) : i reduce(-: s) {\n  comp 1\n}\n", 1, 28,
              "expected a reduction operator ('+', '*', 'min' or 'max')");
  expectError("parallel_for(8) : i reduce(+ s) {\n  comp 1\n}\n", 1, 30,
              "expected ':' after the reduction operator");
  expectError("parallel_for(8) : i reduce(+: s {\n  comp 1\n}\n", 1, 33,
              "expected ')' or ',' to close 'reduce('");
  expectError("parallel_for(8) : i reduce(+: i) {\n  comp 1\n}\n", 1, 31,
              "reduction variable 'i' is already declared as a loop index");
  expectError("#define N 8\nparallel_for(N) : i reduce(+: N) {\n  comp 1\n}\n", 2, 31,
              "reduction variable 'N' is already declared as a macro");
  expectError("parallel_for(8) : i reduce(+: s) reduce(max: s) {\n  comp 1\n}\n", 1, 46,
              "'s' is reduced twice in one kernel");
  expectError("float s[2]\nparallel_for(8) : i reduce(+: s) {\n  comp 1\n}\n", 2, 31,
              "reduction variable 's' must hold one element, the array has 2 (declare it 's[1]')");
  expectError("float s[1]\nparallel_for(8) : i reduce(+: s) {\n  ld s[0]\n}\n", 3, 3,
              "'s' is the kernel's reduction variable");
  expectError("repeat k = 0:4 {\n  parallel_for(8) : i reduce(+: k) {\n    comp 1\n  }\n}\n", 2, 33,
              "shadows");
}
