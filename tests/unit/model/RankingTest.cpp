// projectKernel with keepTop = N holds only the N best while enumerating; the
// result must be the first N of the full ranking (model::rankedBefore), ties
// (equal times at 12 digits, broken by core time, then the layout string) included, and each kept projection must be what
// projectLayout computes for that layout alone.
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec spec(const std::string &n) { return hw::resolveHwSpec(n, kSrc + "/hwspecs"); }

layout::KernelInfo fileKernel(const std::string &rel) {
  return layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/" + rel), 0);
}

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

TEST(Ranking, KeepTopIsTheHeadOfTheFullRanking) {
  for (const char *f : {"skeletons/matmul.skel", "skeletons/hotspot.skel", "skeletons/spinflap.skel"})
    for (const char *g : {"h100", "c1060"})
      for (const char *m : {"skelcast", "hong-kim", "roofline"}) {
        SCOPED_TRACE(std::string(f) + " " + g + " " + m);
        auto ki = fileKernel(f);
        auto hw = spec(g);
        model::ModelOptions all;
        all.model = model::parseModelSpec(m);
        auto full = model::projectKernel(ki, hw, {}, all);
        for (size_t n : {size_t{1}, size_t{7}, size_t{100}, full.layouts.size() + 5}) {
          model::ModelOptions top = all;
          top.keepTop = n;
          auto kp = model::projectKernel(ki, hw, {}, top);
          EXPECT_EQ(kp.layoutsExplored, full.layoutsExplored);
          EXPECT_EQ(kp.layoutsPruned, full.layoutsPruned);
          ASSERT_EQ(kp.layouts.size(), std::min(n, full.layouts.size()));
          for (size_t i = 0; i < kp.layouts.size(); ++i) {
            EXPECT_EQ(kp.layouts[i].layoutString, full.layouts[i].layoutString) << "rank " << i + 1;
            EXPECT_TRUE(same(kp.layouts[i].result.timeMs, full.layouts[i].result.timeMs));
          }
        }
      }
}

TEST(Ranking, RooflineTiesAreBrokenByTheLayoutString) {
  // The roofline gives many layouts the same time: the kept ones must be the
  // lexicographically first among the tied.
  auto ki = fileKernel("skeletons/hotspot.skel");
  auto hw = spec("h100");
  model::ModelOptions mo;
  mo.model = model::parseModelSpec("roofline");
  auto full = model::projectKernel(ki, hw, {}, mo);
  ASSERT_GT(full.layouts.size(), 20u);
  size_t ties = 0;
  for (size_t i = 1; i < full.layouts.size(); ++i)
    if (full.layouts[i].result.timeMs == full.layouts[i - 1].result.timeMs) {
      ++ties;
      EXPECT_LT(full.layouts[i - 1].layoutString, full.layouts[i].layoutString);
    }
  EXPECT_GT(ties, 0u);
}

TEST(Ranking, EachProjectionEqualsProjectLayoutAlone) {
  // The enumerator's model state (the adjusted spec, the terms' scratch) is
  // reused across layouts; a layout projected alone must give the same values.
  for (const char *f : {"skeletons/matmul.skel", "skeletons/ispinex_complex.skel"})
    for (const char *m : {"skelcast", "hong-kim"}) {
      SCOPED_TRACE(std::string(f) + " " + m);
      auto ki = fileKernel(f);
      auto hw = spec("h100");
      model::ModelOptions mo;
      mo.model = model::parseModelSpec(m);
      auto full = model::projectKernel(ki, hw, {}, mo);
      for (size_t i = 0; i < full.layouts.size(); i += 13) {
        const auto &p = full.layouts[i];
        auto q = model::projectLayout(ki, p.layout, hw, mo);
        EXPECT_EQ(q.layoutString, p.layoutString);
        EXPECT_TRUE(same(q.result.timeMs, p.result.timeMs)) << p.layoutString;
        EXPECT_TRUE(same(q.result.totalCycles, p.result.totalCycles));
        EXPECT_TRUE(same(q.result.mwp, p.result.mwp));
        EXPECT_TRUE(same(q.result.cwp, p.result.cwp));
        EXPECT_EQ(q.result.bound, p.result.bound);
        EXPECT_TRUE(same(q.effects.dramFloorMs, p.effects.dramFloorMs));
        EXPECT_TRUE(same(q.effects.effectiveLatencyCycles, p.effects.effectiveLatencyCycles));
        EXPECT_TRUE(same(q.effects.l2HitFraction, p.effects.l2HitFraction));
        EXPECT_TRUE(same(q.roofline.timeMs, p.roofline.timeMs));
      }
    }
}

TEST(Ranking, TiesGoToTheLowerFloorsThenTheLowerCore) {
  // Two layouts held at one DRAM floor (0.61 ms): the one whose L1 floor
  // leaves more headroom ranks first, whatever their core times; with equal
  // floors the lower core time does; with both equal, the layout string.
  model::LayoutProjection a, b;
  a.result.timeMs = b.result.timeMs = 0.61;
  a.layoutString = "block=i:128";
  b.layoutString = "block=i:32";
  a.effects.dramFloorMs = b.effects.dramFloorMs = 0.60;
  a.effects.lsuFloorMs = 0.56; // 64 SMs
  b.effects.lsuFloorMs = 0.27; // 132 SMs
  a.effects.coreMs = 0.30;
  b.effects.coreMs = 0.61;
  EXPECT_TRUE(model::rankedBefore(b, a)) << "F = 0.87 ms ranks before F = 1.16 ms";
  EXPECT_FALSE(model::rankedBefore(a, b));
  b.effects.lsuFloorMs = 0.56;
  EXPECT_TRUE(model::rankedBefore(a, b)) << "equal floors: the lower core time first";
  b.effects.coreMs = 0.30;
  EXPECT_TRUE(model::rankedBefore(a, b)) << "all equal: the layout string";
  // a shorter time wins whatever the floors
  a.result.timeMs = 0.62;
  EXPECT_TRUE(model::rankedBefore(b, a));
}
