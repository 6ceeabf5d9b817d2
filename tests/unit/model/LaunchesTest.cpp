// The launches of an indexed repeat (docs/model.md, section 9, "Launches of an
// indexed repeat"), on cases worked by hand.
#include "skelcast/model/Launches.h"
#include "skelcast/model/Program.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

std::string column(const std::string &range) {
  return "#define N 4\nfloat A[N][N]\n" + range +
         " {\n  parallel_for f(k + 1:N) : i {\n    ld A[i][k]\n    ld A[k][k]\n    comp 1\n"
         "    st A[i][k]\n  }\n}\n";
}

/// The launch at k written out by hand: `repeat 2` so that it follows itself
/// in L2 as the launches of the indexed repeat do.
double handLaunchMs(int64_t k, const std::string &layout) {
  std::string text = "#define N 4\nfloat A[N][N]\nrepeat 2 {\n  parallel_for f(" +
                     std::to_string(k + 1) + ":N) : i {\n    ld A[i][" + std::to_string(k) +
                     "]\n    ld A[" + std::to_string(k) + "][" + std::to_string(k) +
                     "]\n    comp 1\n    st A[i][" + std::to_string(k) + "]\n  }\n}\n";
  auto f = skeleton::parseSkeleton(text, "hand.skel");
  layout::KernelInfo ki = model::analyzeProgramKernel(f, 0);
  return model::projectLayout(ki, layout::parseLayout(ki, layout, h100()), h100(), {}).result.timeMs;
}

} // namespace

TEST(Launches, PiecewiseLinearWeights) {
  // every position: weight 1 each
  auto all = model::samplePositions(3, 6, 17);
  ASSERT_EQ(all.size(), 4u);
  for (const auto &[n, w] : all)
    EXPECT_DOUBLE_EQ(w, 1.0);
  EXPECT_EQ(all.front().first, 3);
  // 0..8 at 3 points 0, 4, 8: segments of L = 4 give (L+1)/2 = 2.5 and
  // (L-1)/2 = 1.5; the last one more: 2.5, 1.5 + 2.5, 1.5 + 1 = 2.5, 4, 2.5
  auto three = model::samplePositions(0, 8, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[1].first, 4);
  EXPECT_DOUBLE_EQ(three[0].second, 2.5);
  EXPECT_DOUBLE_EQ(three[1].second, 4.0);
  EXPECT_DOUBLE_EQ(three[2].second, 2.5);
  // a linear time t(n) = n is summed exactly: 0 x 2.5 + 4 x 4 + 8 x 2.5 = 36 = 0 + ... + 8
  double sum = 0;
  for (const auto &[n, w] : three)
    sum += static_cast<double>(n) * w;
  EXPECT_DOUBLE_EQ(sum, 36.0);
  EXPECT_TRUE(model::samplePositions(5, 4, 17).empty());
}

TEST(Launches, FourValuesOfKThreeLaunchesByHand) {
  // repeat k = 0:4 { parallel_for f(k+1:4) }: k = 0, 1, 2 launch 3, 2, 1
  // threads; k = 3 has an empty loop space and is skipped (costs nothing).
  auto f = skeleton::parseSkeleton(column("repeat k = 0:N"), "col.skel");
  model::KernelProjection kp = model::projectProgramKernel(f, 0, h100(), {}, {});
  ASSERT_TRUE(kp.launches);
  const model::RepeatedLaunches &l = *kp.launches;
  EXPECT_EQ(l.iterations, 4);
  EXPECT_EQ(l.launches, 3);
  EXPECT_EQ(l.characterizedAt, 0); // the largest launch
  EXPECT_TRUE(l.exact);
  EXPECT_EQ(l.errorBoundMs, 0);
  ASSERT_EQ(l.ranking.size(), 3u);
  EXPECT_EQ(l.ranking[0].threads, 3);
  EXPECT_EQ(l.ranking[1].threads, 2);
  EXPECT_EQ(l.ranking[2].threads, 1);
  const std::string best = kp.layouts.front().layoutString;
  double t0 = handLaunchMs(0, best), t1 = handLaunchMs(1, best), t2 = handLaunchMs(2, best);
  EXPECT_NEAR(l.ranking[0].timeMs, t0, 1e-12);
  EXPECT_NEAR(l.ranking[2].timeMs, t2, 1e-12);
  EXPECT_NEAR(l.totalMs, t0 + t1 + t2, 1e-12);
  EXPECT_NEAR(*kp.layouts.front().launchesMs, t0 + t1 + t2, 1e-12); // ranked on every launch
  // The layouts are ranked by that sum.
  for (size_t i = 1; i < kp.layouts.size(); ++i)
    EXPECT_LE(*kp.layouts[i - 1].launchesMs, *kp.layouts[i].launchesMs * (1 + 1e-11));

  // In the program: 3 launches queued back to back, the first with the full
  // overhead: kernels_ms = (t0 + t1 + t2) - 2x, x = overhead - back-to-back.
  hw::HwSpec hw = h100();
  model::ProgramProjection pp = model::projectProgram(f, {kp}, hw, {}, {}, {});
  ASSERT_EQ(pp.kernels.size(), 1u);
  EXPECT_EQ(pp.kernels[0].count, 3);
  double x = (hw.launchOverheadUs - hw.launchBackToBackUs) / 1000.0;
  EXPECT_NEAR(pp.kernelsMs, t0 + t1 + t2 - 2 * x, 1e-12);
  EXPECT_NEAR(pp.launchMs, 3 * kp.layouts.front().effects.launchMs - 2 * x, 1e-12);
  EXPECT_EQ(pp.repeats, 1); // an indexed repeat has no time steps for the break-even
}

TEST(Launches, AStepSkipsValues) {
  // k = 0, 2: 3 and 1 threads
  auto f = skeleton::parseSkeleton(column("repeat k = 0:N:2"), "col.skel");
  model::KernelProjection kp = model::projectProgramKernel(f, 0, h100(), {}, {});
  ASSERT_TRUE(kp.launches);
  EXPECT_EQ(kp.launches->iterations, 2);
  EXPECT_EQ(kp.launches->launches, 2);
  ASSERT_EQ(kp.launches->ranking.size(), 2u);
  EXPECT_EQ(kp.launches->ranking[1].value, 2);
  const std::string best = kp.layouts.front().layoutString;
  EXPECT_NEAR(kp.launches->totalMs, handLaunchMs(0, best) + handLaunchMs(2, best), 1e-12);
}

TEST(Launches, BeyondTheExactLimitTheSumIsWithinItsBound) {
  // 5000 launches of a shrinking column (more than kExactLaunches): the
  // piecewise-linear sum against every launch projected.
  auto f = skeleton::parseSkeleton("#define N 5001\nfloat A[N][N]\nrepeat k = 0:N {\n"
                                   "  parallel_for f(k + 1:N) : i {\n    ld A[i][k]\n"
                                   "    ld A[k][k]\n    comp 1\n    st A[i][k]\n  }\n}\n",
                                   "big.skel");
  hw::HwSpec hw = h100();
  model::KernelProjection kp = model::projectProgramKernel(f, 0, hw, {}, {});
  ASSERT_TRUE(kp.launches);
  const model::RepeatedLaunches &l = *kp.launches;
  EXPECT_EQ(l.launches, 5000);
  EXPECT_FALSE(l.exact);
  EXPECT_EQ(l.summed.size(), static_cast<size_t>(model::kSumPoints));
  EXPECT_EQ(l.ranking.size(), static_cast<size_t>(model::kRankingPoints));
  double w = 0;
  for (const auto &s : l.summed)
    w += s.weight;
  EXPECT_DOUBLE_EQ(w, 5000.0);
  double exact = 0;
  const layout::Layout &best = kp.layouts.front().layout;
  for (int64_t k = 0; k < 5000; ++k)
    exact += model::projectLayout(model::analyzeProgramKernel(f, 0, k), best, hw, {}).result.timeMs;
  EXPECT_LE(std::fabs(l.totalMs - exact), l.errorBoundMs + 1e-9);
  EXPECT_LT(l.errorBoundMs, 0.01 * exact);
}

namespace {

/// One launch of the blocks kernel below written out by hand with its count
/// of blocks (`repeat 2`: it follows itself in L2 as the launches do).
double handBlocksMs(int64_t row, int64_t blocks, const std::string &layout) {
  std::string text = "#define N 12\n#define B 4\nfloat A[N][N]\nrepeat 2 {\n  parallel_for f(" +
                     std::to_string(blocks) + ") : c {\n    ld A[" + std::to_string(row) +
                     "][c]\n    comp 1\n    st A[" + std::to_string(row) + "][c]\n  }\n}\n";
  auto f = skeleton::parseSkeleton(text, "hand.skel");
  layout::KernelInfo ki = model::analyzeProgramKernel(f, 0);
  return model::projectLayout(ki, layout::parseLayout(ki, layout, h100()), h100(), {}).result.timeMs;
}

} // namespace

TEST(Launches, BoundsNotAffineInKAreEvaluatedAtEachPassByHand) {
  // A blocked factorization's interior: m = (N - k - B)/B blocks a side, m*m
  // blocks, C's division. k = 0, 4 (k < N - B = 8): m = 2, 1, so 4 and 1
  // threads; the sum is t(4 threads at k = 0) + t(1 thread at k = 4).
  auto f = skeleton::parseSkeleton(
      "#define N 12\n#define B 4\nfloat A[N][N]\nrepeat k = 0:N - B:B {\n"
      "  parallel_for f((N - k - B)/B * ((N - k - B)/B)) : c {\n    ld A[k][c]\n    comp 1\n"
      "    st A[k][c]\n  }\n}\n",
      "blocks.skel");
  model::KernelProjection kp = model::projectProgramKernel(f, 0, h100(), {}, {});
  ASSERT_TRUE(kp.launches);
  const model::RepeatedLaunches &l = *kp.launches;
  EXPECT_EQ(l.iterations, 2);
  EXPECT_EQ(l.launches, 2);
  EXPECT_EQ(l.characterizedAt, 0);
  EXPECT_TRUE(l.exact);
  ASSERT_EQ(l.ranking.size(), 2u);
  EXPECT_EQ(l.ranking[0].threads, 4);
  EXPECT_EQ(l.ranking[1].value, 4);
  EXPECT_EQ(l.ranking[1].threads, 1);
  const std::string best = kp.layouts.front().layoutString;
  double t0 = handBlocksMs(0, 4, best), t4 = handBlocksMs(4, 1, best);
  EXPECT_NEAR(l.ranking[0].timeMs, t0, 1e-12);
  EXPECT_NEAR(l.ranking[1].timeMs, t4, 1e-12);
  EXPECT_NEAR(l.totalMs, t0 + t4, 1e-12);
}

TEST(Launches, BoundsNotAffineInKAndMonotoneAreSampled) {
  // 5000 launches whose size (N - k)/2 + 1 falls by steps of C's division:
  // monotone in k, so the piecewise-linear sum and its bound hold.
  auto f = skeleton::parseSkeleton("#define N 5000\nfloat A[N][N]\nrepeat k = 0:N {\n"
                                   "  parallel_for f((N - k)/2 + 1) : i {\n    ld A[i][k]\n"
                                   "    comp 1\n    st A[i][k]\n  }\n}\n",
                                   "steps.skel");
  hw::HwSpec hw = h100();
  model::KernelProjection kp = model::projectProgramKernel(f, 0, hw, {}, {});
  ASSERT_TRUE(kp.launches);
  const model::RepeatedLaunches &l = *kp.launches;
  EXPECT_EQ(l.launches, 5000);
  EXPECT_FALSE(l.exact);
  EXPECT_EQ(l.characterizedAt, 0);
  double exact = 0;
  const layout::Layout &best = kp.layouts.front().layout;
  for (int64_t k = 0; k < 5000; ++k)
    exact += model::projectLayout(model::analyzeProgramKernel(f, 0, k), best, hw, {}).result.timeMs;
  EXPECT_LE(std::fabs(l.totalMs - exact), l.errorBoundMs + 1e-9);
}

TEST(Launches, BoundsNotMonotoneInKProjectEveryLaunch) {
  // a size that falls and rises again ((k - 2500)^2/1000 + 1): no sample
  // bounds the launches between, so each of the 5000 is projected
  auto f = skeleton::parseSkeleton("#define N 5000\n#define M 6400\nfloat A[M][N]\n"
                                   "repeat k = 0:N {\n"
                                   "  parallel_for f((k - 2500)*(k - 2500)/1000 + 1) : i {\n"
                                   "    ld A[i][k]\n    comp 1\n    st A[i][k]\n  }\n}\n",
                                   "bowl.skel");
  model::KernelProjection kp = model::projectProgramKernel(f, 0, h100(), {}, {});
  ASSERT_TRUE(kp.launches);
  EXPECT_EQ(kp.launches->launches, 5000);
  EXPECT_TRUE(kp.launches->exact);
  EXPECT_TRUE(kp.launches->summed.empty());
  EXPECT_EQ(kp.launches->errorBoundMs, 0);
  EXPECT_EQ(kp.launches->characterizedAt, 0); // 6251 threads, the largest (k = 4999: 6246)
}

// An indexed repeat's launches time every layout at each representative
// launch with one characterizer of that launch's kernel (its whole
// footprints and each block's tiles computed once). Each projection must be
// the one a fresh characterizer gives, whatever layouts came before it: a
// blocked LU's chunks (subscripts of / and %), and a row reduction with a
// cacheable, stageable w (cache=, stage= and a scalar reduction's bytes,
// which the characterizer once added to its own total on every layout), in
// every model.
TEST(Launches, OneCharacterizerForManyLayoutsProjectsAsAFreshOne) {
  const char *lu = "#define S 256\n#define BS 16\nfloat a[S][S]\nrepeat offset = 0:S - BS:BS {\n"
                   "  parallel_for lu((S - offset - BS)/BS*((S - offset - BS)/BS)) : c {\n"
                   "    for i = 0:BS {\n      for j = 0:BS {\n"
                   "        ld a[i + offset][j + (offset + BS*(1 + c%((S - offset - BS)/BS)))]\n"
                   "        ld a[i + (offset + BS*(1 + c/((S - offset - BS)/BS)))][offset + j]\n        comp 4\n"
                   "        st a[i + (offset + BS*(1 + c/((S - offset - BS)/BS)))][j + (offset + BS*(1 + c%((S - offset - BS)/BS)))]\n"
                   "      }\n    }\n  }\n}\n";
  const char *rows = "#define N 4096\n#define K 256\nfloat a[N][K]\nfloat w[K]\ndouble s[1]\n"
                     "parallel_for(N) : i reduce(+: s) {\n  stream k = 0:K {\n    ld a[i][k]\n    ld w[k]\n"
                     "    comp 2\n  }\n}\n";
  hw::HwSpec hw = h100();
  for (const char *text : {lu, rows}) {
    auto f = skeleton::parseSkeleton(text, "k.skel");
    layout::KernelInfo ki = model::analyzeProgramKernel(f, 0, f.repeatOf(0) ? std::optional<int64_t>(32) : std::nullopt);
    std::vector<layout::Layout> layouts;
    layout::enumerateLayouts(ki, hw, {}, [&](const layout::Layout &l, const layout::Characterization &) {
      layouts.push_back(l);
    });
    ASSERT_GE(layouts.size(), 4u);
    std::reverse(layouts.begin() + 1, layouts.end()); // shapes in another order than the enumerator's
    bool cached = false, staged = false;
    for (const auto &l : layouts) {
      cached = cached || !l.cached.empty();
      staged = staged || !l.stages.empty();
    }
    if (text == rows)
      EXPECT_TRUE(cached && staged) << "the row reduction's layouts cache w and stage k";
    for (const char *m : {"skelcast", "roofline"}) {
      model::ModelOptions mo;
      mo.model = model::parseModelSpec(m);
      layout::Characterizer z(ki, hw);
      for (const auto &l : layouts) {
        model::LayoutProjection shared = model::projectLayout(z, ki, l, hw, mo);
        model::LayoutProjection fresh = model::projectLayout(ki, l, hw, mo);
        SCOPED_TRACE(std::string(m) + " " + shared.layoutString);
        EXPECT_EQ(shared.result.timeMs, fresh.result.timeMs);
        EXPECT_EQ(shared.characterization.compulsoryBytes, fresh.characterization.compulsoryBytes);
        EXPECT_EQ(shared.characterization.blockFootprintBytes, fresh.characterization.blockFootprintBytes);
        EXPECT_EQ(shared.characterization.funcInsts, fresh.characterization.funcInsts);
        EXPECT_EQ(shared.characterization.loadGroups, fresh.characterization.loadGroups);
        EXPECT_EQ(shared.characterization.workload.sharedMemBytesPerBlock,
                  fresh.characterization.workload.sharedMemBytesPerBlock);
        EXPECT_EQ(shared.characterization.workload.compInsts, fresh.characterization.workload.compInsts);
      }
    }
  }
}
