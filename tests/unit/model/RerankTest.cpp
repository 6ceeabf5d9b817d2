// The ranking redone with ptxas's registers (docs/model.md, "Registers from
// ptxas"): the counts come in as values, so no nvcc is needed here. A count
// above the estimate takes the estimate's favourite below the others; layouts
// without a count keep the estimate and say why.
#include "skelcast/model/Program.h"
#include "skelcast/model/Project.h"
#include "skelcast/model/Rerank.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;
hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

} // namespace

TEST(Rerank, CandidatesAreTwiceTheShownAndAtLeastTen) {
  EXPECT_EQ(model::rerankCandidates(1), 10u);
  EXPECT_EQ(model::rerankCandidates(5), 10u);
  EXPECT_EQ(model::rerankCandidates(8), 16u);
}

TEST(Rerank, OnlyTheModelWithTheRegistersTermReadsThem) {
  EXPECT_TRUE(model::readsRegisters({model::parseModelSpec("skelcast")}));
  EXPECT_FALSE(model::readsRegisters({model::parseModelSpec("skelcast", {"registers"})}));
  EXPECT_FALSE(model::readsRegisters({model::parseModelSpec("hong-kim")}));
  EXPECT_FALSE(model::readsRegisters({model::parseModelSpec("roofline")}));
}

TEST(Rerank, PtxasCountAboveTheEstimateMovesTheLayoutDown) {
  skeleton::SkeletonFile f = skeleton::parseSkeletonFile(kSrc + "/skeletons/matmul.skel");
  model::ProgramAnalysis analysis(f);
  hw::HwSpec hw = h100();
  model::ModelOptions mo{model::parseModelSpec("skelcast")};
  mo.keepTop = model::rerankCandidates(3);
  model::KernelProjection kp = model::projectProgramKernel(analysis, 0, hw, {}, mo);
  ASSERT_EQ(kp.layouts.size(), 10u);
  // The best-ranked layout whose estimate is below 128 registers: ptxas "says"
  // 255 for it (two warps a sub-partition where the estimate allows more), the
  // estimate's count for the others but the last, which the emitter "could not
  // write".
  size_t s = 0;
  while (s < kp.layouts.size() && kp.layouts[s].effects.registersPerThread >= 128)
    ++s;
  ASSERT_LT(s + 1, kp.layouts.size()) << "expected a layout of fewer than 128 estimated registers";
  const std::string subject = kp.layouts[s].layoutString;
  const double estimateMs = kp.layouts[s].result.timeMs;
  ASSERT_FALSE(kp.layouts[s].effects.registersFromPtxas);
  std::vector<model::CompiledCounts> counts(kp.layouts.size());
  for (size_t i = 0; i + 1 < kp.layouts.size(); ++i)
    counts[i].registers = static_cast<int>(kp.layouts[i].effects.registersPerThread);
  counts[s].registers = 255;
  counts.back().why = "not emitted: a test";
  const std::string last = kp.layouts.back().layoutString;

  model::KernelProjection re = model::rerankWithCompiled(analysis, 0, hw, {}, mo, kp, counts, 3);
  ASSERT_EQ(re.layouts.size(), 3u) << "cut to the shown";
  EXPECT_EQ(re.layoutsExplored, kp.layoutsExplored);
  for (size_t i = 0; i + 1 < re.layouts.size(); ++i)
    EXPECT_FALSE(model::rankedBefore(re.layouts[i + 1], re.layouts[i])) << "ranked at " << i;
  for (const auto &p : re.layouts) {
    ASSERT_TRUE(p.registers.has_value()) << p.layoutString;
    EXPECT_TRUE(p.registers->ptxas) << p.layoutString;
    EXPECT_TRUE(p.effects.registersFromPtxas) << p.layoutString;
  }

  // All kept: the subject, re-projected at 255 registers, is slower than by
  // the estimate, ranks lower and is marked ptxas's; the others keep their
  // times; the last keeps the estimate and says why.
  model::KernelProjection all = model::rerankWithCompiled(analysis, 0, hw, {}, mo, kp, counts, 0);
  ASSERT_EQ(all.layouts.size(), 10u);
  auto at = [&](const std::string &str) {
    return std::find_if(all.layouts.begin(), all.layouts.end(),
                        [&](const model::LayoutProjection &p) { return p.layoutString == str; });
  };
  auto moved = at(subject);
  ASSERT_NE(moved, all.layouts.end());
  EXPECT_GT(moved->result.timeMs, estimateMs);
  EXPECT_GT(static_cast<size_t>(moved - all.layouts.begin()), s)
      << "expected " << subject << " to rank below place " << s << " with 255 registers";
  EXPECT_DOUBLE_EQ(moved->effects.registersPerThread, 255);
  EXPECT_EQ(moved->layout.compiledRegisters, 255);
  for (size_t i = 0; i + 1 < kp.layouts.size(); ++i)
    if (i != s) {
      auto same = at(kp.layouts[i].layoutString);
      ASSERT_NE(same, all.layouts.end());
      EXPECT_DOUBLE_EQ(same->result.timeMs, kp.layouts[i].result.timeMs) << kp.layouts[i].layoutString;
    }
  // the cut to 3 is the head of the whole ranking
  for (size_t i = 0; i < re.layouts.size(); ++i)
    EXPECT_EQ(re.layouts[i].layoutString, all.layouts[i].layoutString) << "place " << i;
  auto kept = at(last);
  ASSERT_NE(kept, all.layouts.end());
  ASSERT_TRUE(kept->registers.has_value());
  EXPECT_FALSE(kept->registers->ptxas);
  EXPECT_EQ(kept->registers->why, "not emitted: a test");
  EXPECT_FALSE(kept->effects.registersFromPtxas);
}
