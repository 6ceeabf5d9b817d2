// The Model interface (include/skelcast/model/Model.h): makeModel picks the
// implementation a ModelSpec names, and each implementation times a layout as
// docs/model.md says (sections 5, 7 and 8), layout after layout.
#include "skelcast/model/Model.h"
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

using namespace skelcast;
using model::ModelKind;
using model::TermId;
using model::termBit;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

layout::KernelInfo matmul() {
  return layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/matmul.skel"), 0);
}

struct Case {
  layout::Layout l;
  layout::Characterization c;
};

Case layoutOf(const layout::KernelInfo &ki, const hw::HwSpec &hw, const std::string &text) {
  auto l = layout::parseLayout(ki, text, hw);
  return {l, layout::characterize(ki, l, hw)};
}

const char *kTiled = "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16";
const char *kNaive = "block=i:8,j:32";

} // namespace

TEST(Model, MakeModelPicksTheImplementationTheSpecNames) {
  auto ki = matmul();
  auto hw = h100();
  for (ModelKind k : {ModelKind::Skelcast, ModelKind::HongKim, ModelKind::Roofline}) {
    auto m = model::makeModel(model::parseModelSpec(model::modelName(k)), ki, hw);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->kind(), k);
  }
  EXPECT_NE(dynamic_cast<model::SkelcastModel *>(model::makeModel({}, ki, hw).get()), nullptr);
  EXPECT_NE(dynamic_cast<model::HongKimModel *>(
                model::makeModel(model::parseModelSpec("hong-kim"), ki, hw).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<model::RooflineModel *>(
                model::makeModel(model::parseModelSpec("roofline"), ki, hw).get()),
            nullptr);
}

TEST(Model, HongKimIsThePapersEquationsOnTheCharacterizedWorkload) {
  auto ki = matmul();
  auto hw = h100();
  auto x = layoutOf(ki, hw, kTiled);
  model::HongKimModel m(hw);
  model::Evaluation ev;
  m.evaluate(x.l, x.c, ev);
  model::HongKimResult hk = model::hongKim(x.c.workload, hw);
  EXPECT_EQ(ev.result.timeMs, hk.timeMs);
  EXPECT_EQ(ev.result.bound, hk.bound);
  EXPECT_EQ(ev.result.mwp, hk.mwp);
  EXPECT_EQ(ev.effects.coreMs, 0); // no terms
  EXPECT_EQ(ev.effects.launchMs, 0);
  EXPECT_EQ(ev.roofline.timeMs, model::roofline(x.c, hw).timeMs);
}

TEST(Model, RooflineRanksByItsTimeAndStillReportsMwpAndCwp) {
  auto ki = matmul();
  auto hw = h100();
  auto x = layoutOf(ki, hw, kNaive);
  model::RooflineModel m(hw);
  model::Evaluation ev;
  m.evaluate(x.l, x.c, ev);
  model::RooflineResult rl = model::roofline(x.c, hw);
  EXPECT_EQ(ev.result.timeMs, rl.timeMs);
  EXPECT_EQ(ev.result.bound, rl.memoryMs >= rl.computeMs ? "memory" : "compute");
  model::HongKimResult hk = model::hongKim(x.c.workload, hw);
  EXPECT_EQ(ev.result.mwp, hk.mwp);
  EXPECT_EQ(ev.result.cwp, hk.cwp);
  EXPECT_EQ(ev.effects.coreMs, 0);
}

TEST(Model, SkelcastWithEveryTermOffIsHongKim) {
  auto ki = matmul();
  auto hw = h100();
  for (const char *text : {kTiled, kNaive}) {
    auto x = layoutOf(ki, hw, text);
    model::Evaluation none, hk;
    model::SkelcastModel(ki, hw, 0).evaluate(x.l, x.c, none);
    model::HongKimModel(hw).evaluate(x.l, x.c, hk);
    EXPECT_EQ(none.result.timeMs, hk.result.timeMs) << text;
    EXPECT_EQ(none.result.bound, hk.result.bound) << text;
    EXPECT_EQ(none.effects.coreMs, hk.result.timeMs) << text;
  }
}

TEST(Model, SkelcastIsTheCoreOnTheAdjustedInputsThenTheSettleSteps) {
  auto ki = matmul();
  auto hw = h100();
  auto x = layoutOf(ki, hw, kTiled);
  model::Evaluation ev;
  model::SkelcastModel(ki, hw, model::kAllTerms).evaluate(x.l, x.c, ev);
  model::AdjustedInputs a{x.c.workload, hw, {}};
  model::TermScratch scratch;
  model::applyModernTerms(x.c, ki, x.l, hw, model::kAllTerms, a, scratch);
  model::HongKimResult core = model::hongKim(a.workload, a.hw);
  EXPECT_EQ(ev.effects.coreMs, core.timeMs);
  model::settleModernTerms(a.effects, model::kAllTerms, core);
  EXPECT_EQ(ev.result.timeMs, core.timeMs);
  EXPECT_EQ(ev.result.bound, core.bound);
  EXPECT_EQ(ev.effects.launchMs, hw.launchOverheadUs / 1000.0);
  // One term off: its effect is gone, the others stay.
  model::Evaluation noLaunch;
  model::SkelcastModel(ki, hw, model::kAllTerms & ~termBit(TermId::Launch)).evaluate(x.l, x.c, noLaunch);
  EXPECT_EQ(noLaunch.effects.launchMs, 0);
  EXPECT_NEAR(ev.result.timeMs - noLaunch.result.timeMs, hw.launchOverheadUs / 1000.0, 1e-12);
}

TEST(Model, EachModelTimesALayoutTheSameAfterAnother) {
  // A model keeps storage from one layout to the next: nothing of the first
  // layout may leak into the second.
  auto ki = matmul();
  auto hw = h100();
  auto tiled = layoutOf(ki, hw, kTiled), naive = layoutOf(ki, hw, kNaive);
  for (ModelKind k : {ModelKind::Skelcast, ModelKind::HongKim, ModelKind::Roofline}) {
    auto fresh = model::makeModel(model::parseModelSpec(model::modelName(k)), ki, hw);
    model::Evaluation alone;
    fresh->evaluate(naive.l, naive.c, alone);
    auto reused = model::makeModel(model::parseModelSpec(model::modelName(k)), ki, hw);
    model::Evaluation after;
    reused->evaluate(tiled.l, tiled.c, after);
    reused->evaluate(naive.l, naive.c, after);
    EXPECT_EQ(after.result.timeMs, alone.result.timeMs) << model::modelName(k);
    EXPECT_EQ(after.effects.coreMs, alone.effects.coreMs) << model::modelName(k);
    EXPECT_EQ(after.effects.l1HitFraction, alone.effects.l1HitFraction) << model::modelName(k);
  }
}

TEST(Model, AProjectionRecordsTheModelThatMadeIt) {
  auto ki = matmul();
  auto hw = h100();
  auto l = layout::parseLayout(ki, kTiled, hw);
  for (ModelKind k : {ModelKind::Skelcast, ModelKind::HongKim, ModelKind::Roofline}) {
    model::ModelOptions mo{model::parseModelSpec(model::modelName(k))};
    EXPECT_EQ(model::projectLayout(ki, l, hw, mo).model, k);
  }
}

// A layout named by --layout must hold its tiles beside the driver's reserve;
// the refusal names what a block may hold: the per-block limit, or the SM's
// less the reserve where that is less (a spec whose two limits are equal).
TEST(Model, ALayoutsTilesMustFitBesideTheDriversReserve) {
  auto ki = matmul();
  auto hw = h100();
  hw.sharedMemPerBlockBytes = hw.sharedMemPerSMBytes = 2048; // kTiled's two 16 x 16 float tiles
  hw.reservedSharedMemPerBlockBytes = 0;
  auto l = layout::parseLayout(ki, kTiled, hw);
  EXPECT_NO_THROW(model::requireSharedMemoryFits(ki, l, hw));
  hw.reservedSharedMemPerBlockBytes = 1024;
  try {
    model::requireSharedMemoryFits(ki, l, hw);
    FAIL() << "2,048 bytes of tiles and a 1,024-byte reserve fit an SM of 2,048";
  } catch (const InputError &e) {
    EXPECT_EQ(e.message(), "layout 'block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16' needs 2048 bytes of "
                           "shared memory per block; h100 allows 1024");
  }
}
