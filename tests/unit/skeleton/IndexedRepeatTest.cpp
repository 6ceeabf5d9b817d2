// `repeat k = lo:hi[:step] { ... }`: the IR, the canonical form, the checks,
// and the launches' loop spaces (docs/skeleton-language.md, "Programs").
#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/support/Diagnostic.h"

#include <gtest/gtest.h>

using namespace skelcast;
using namespace skelcast::skeleton;

namespace {

const char *kLu = R"(#define N 4

float A[N][N]

repeat k = 0:N {
  parallel_for lu_div(k + 1:N) : i {
    ld A[i][k]
    ld A[k][k]
    comp 1
    st A[i][k]
  }

  parallel_for lu_update(k + 1:N, k + 1:N) : i, j {
    stream m = k:N:2 {
      ld A[i][m]
    }
    st A[i][j]
  }

  host reads A
}
)";

void expectError(const std::string &t, int line, int col, const std::string &msg) {
  try {
    parseSkeleton("#define N 4\nfloat A[N][N]\n" + t, "t.skel");
    ADD_FAILURE() << "no error for: " << t;
  } catch (const InputError &e) {
    EXPECT_EQ(e.loc().line, line) << e.what();
    EXPECT_EQ(e.loc().col, col) << e.what();
    EXPECT_EQ(e.message(), msg);
  }
}

} // namespace

TEST(IndexedRepeat, ParsesIntoTheRepeatsIndexAndRange) {
  SkeletonFile f = parseSkeleton(kLu, "lu.skel");
  ASSERT_EQ(f.repeats.size(), 1u);
  const Repeat &r = f.repeats[0];
  EXPECT_TRUE(r.indexed());
  EXPECT_EQ(r.index, "k");
  EXPECT_EQ(r.lo, Expr::lit(0));
  EXPECT_EQ(r.hi, Expr::ref("N"));
  EXPECT_FALSE(r.step);
  EXPECT_EQ(r.kernels, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(r.hostSteps, (std::vector<size_t>{0}));
  EXPECT_EQ(f.repeatOf(1), &f.repeats[0]);
  EXPECT_EQ(*f.kernels[0].dims[0].lo, Expr::binary('+', Expr::ref("k"), Expr::lit(1)));
}

TEST(IndexedRepeat, CanonicalFormRoundTrips) {
  SkeletonFile f = parseSkeleton(kLu, "lu.skel");
  std::string printed = printSkeleton(f);
  EXPECT_EQ(printed, kLu);
  EXPECT_EQ(parseSkeleton(printed, "again.skel"), f);
  // with a step, and the old form beside it
  std::string stepped = "#define N 8\n\nfloat A[N]\n\nrepeat k = 1:N - 1:3 {\n"
                        "  parallel_for f(k:N) : i {\n    ld A[i]\n  }\n}\n\nrepeat 2 {\n"
                        "  parallel_for g(N) : i {\n    st A[i]\n  }\n}\n";
  SkeletonFile s = parseSkeleton(stepped, "s.skel");
  EXPECT_EQ(printSkeleton(s), stepped);
  EXPECT_EQ(*s.repeats[0].step, Expr::lit(3));
  EXPECT_FALSE(s.repeats[1].indexed());
}

TEST(IndexedRepeat, RangeAndLaunchesWithAnEmptyLastSpace) {
  SkeletonFile f = parseSkeleton(kLu, "lu.skel");
  MacroTable m = evalMacros(f);
  RepeatRange rr = repeatRange(f.repeats[0], m, f.path);
  EXPECT_EQ(rr.first, 0);
  EXPECT_EQ(rr.trips, 4);
  // k = 0..3: 3, 2, 1, 0 rows; k = 3 launches nothing
  LaunchInterval li = launchInterval(f.kernels[0], f.repeats[0], m, f.path);
  EXPECT_EQ(li.first, 0);
  EXPECT_EQ(li.last, 2);
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < 4; ++k) {
    MacroTable env = m;
    env["k"] = k;
    sizes.push_back(loopSpaceSize(f.kernels[1], env, f.path));
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{9, 4, 1, 0}));
  // a space that grows with k starts launching later
  SkeletonFile g = parseSkeleton("#define N 10\nrepeat k = 0:N:3 { parallel_for f(2:k) : i { comp 1 } }",
                                 "g.skel");
  RepeatRange gr = repeatRange(g.repeats[0], evalMacros(g), g.path);
  EXPECT_EQ(gr.trips, 4); // 0, 3, 6, 9
  LaunchInterval gi = launchInterval(g.kernels[0], g.repeats[0], evalMacros(g), g.path);
  EXPECT_EQ(gi.first, 1); // k = 3: 2:3 holds one
  EXPECT_EQ(gi.last, 3);
}

TEST(IndexedRepeat, BoundsNotAffineInTheIndexAreEvaluatedAtEachPass) {
  // a blocked LU's interior: n = (N - k - 4)/4 blocks a side, n*n of them
  SkeletonFile f = parseSkeleton("#define N 18\n#define B 4\nfloat A[N][N]\n"
                                 "repeat k = 0:N - B:B {\n"
                                 "  parallel_for f((N - k - B)/B * ((N - k - B)/B)) : c { ld A[k][c] }\n"
                                 "}\n",
                                 "blocks.skel");
  MacroTable m = evalMacros(f);
  EXPECT_FALSE(affineSpace(f.kernels[0], "k"));
  // k = 0, 4, 8, 12: n = 3, 2, 1, 0 (C's division: 2/4 = 0); 9, 4, 1, 0 blocks
  LaunchInterval li = launchInterval(f.kernels[0], f.repeats[0], m, f.path);
  EXPECT_FALSE(li.affine);
  EXPECT_EQ(li.first, 0);
  EXPECT_EQ(li.last, 2);
  EXPECT_EQ(li.count(), 3);
  EXPECT_TRUE(li.monotone);
  EXPECT_EQ(li.largest, 0);
  // a size that goes down and up again: launches still one interval, not monotone
  SkeletonFile g = parseSkeleton("#define N 8\nrepeat k = 0:N { parallel_for g(1 + (k - 4)*(k - 4)) : i { comp 1 } }",
                                 "g.skel");
  LaunchInterval gi = launchInterval(g.kernels[0], g.repeats[0], evalMacros(g), g.path);
  EXPECT_EQ(gi.count(), 8);
  EXPECT_FALSE(gi.monotone);
  EXPECT_EQ(gi.largest, 0); // 17 threads at k = 0
}

TEST(IndexedRepeat, BindIndexSubstitutesEveryUse) {
  SkeletonFile f = parseSkeleton(kLu, "lu.skel");
  Kernel k2 = bindIndex(f.kernels[1], "k", 2);
  EXPECT_EQ(printExpr(*k2.dims[0].lo), "2 + 1");
  EXPECT_EQ(printExpr(k2.body[0].loop.lo), "2");
  Kernel d = bindIndex(f.kernels[0], "k", 1);
  EXPECT_EQ(printExpr(d.body[1].mem.index[0]), "1");
  EXPECT_EQ(printExpr(d.body[0].mem.index[0]), "i");
}

TEST(IndexedRepeat, Errors) {
  expectError("repeat k = 0:N { parallel_for f(N) : k { comp 1 } }", 3, 18,
              "index 'k' shadows the index of the enclosing repeat");
  expectError("repeat k = 0:N { parallel_for f(N) : i { for k = 0:2 { comp 1 } } }", 3, 42,
              "index 'k' shadows the index of the enclosing repeat");
  expectError("repeat k = 0:N { parallel_for f(N) : i { k = A[i][0] } }", 3, 42,
              "index 'k' shadows the index of the enclosing repeat");
  expectError("parallel_for g(N) : i { ld A[k][i] }\nrepeat k = 0:N { parallel_for f(N) : i { comp 1 } }",
              3, 30, "'k' is the index of the repeat at 4:8 and is not visible here");
  expectError("repeat k = 3:3 { parallel_for f(N) : i { comp 1 } }", 3, 12,
              "repeat range 3:3 of 'k' is empty");
  expectError("repeat k = 0:N:0 { parallel_for f(N) : i { comp 1 } }", 3, 16,
              "repeat step must be positive, is 0");
  expectError("repeat k = 0:N { parallel_for f(k*A[0][0]:N) : i { comp 1 } }", 3, 34,
              "loop space bound must be an integer expression of the repeat index 'k' and macros");
  // bounds not affine in k: every pass evaluated, the launches one interval
  expectError("repeat k = 0:N { parallel_for f(k%2:1) : i { comp 1 } }", 3, 18,
              "the passes that launch kernel 'f' do not form one interval of 'k' (1 empty loop "
              "spaces between 0 and 2)");
  expectError("repeat k = 0:100000 { parallel_for f(k/2:N) : i { comp 1 } }", 3, 23,
              "a loop-space bound that is not affine in the repeat index 'k' is evaluated at "
              "every pass: at most 65536 passes, the repeat has 100000");
  expectError("repeat k = 0:N { parallel_for f(k+N:N) : i { comp 1 } }", 3, 18,
              "loop space of kernel 'f' is empty for every value of 'k'");
  expectError("repeat k = 0:N { repeat j = 0:k { parallel_for f(N) : i { comp 1 } } }", 3, 18,
              "'repeat' inside 'repeat' is not supported: one level of repeats");
  expectError("repeat N = 0:4 { parallel_for f(4) : i { comp 1 } }", 3, 8,
              "repeat index 'N' is already declared");
  expectError("repeat k = 0:j { parallel_for f(4) : i { comp 1 } }", 3, 14,
              "'j' is not a constant here");
}
