// GROPHECY's findings (SC'11 §9, Figures 2-3) reproduced with the paper-faithful model.
#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

/// The paper-faithful model reproduces the paper's findings.
model::ModelOptions paperModel() {
  model::ModelOptions m;
  m.model = model::parseModelSpec("hong-kim");
  return m;
}

hw::HwSpec spec(const std::string &n) { return hw::resolveHwSpec(n, kSrc + "/hwspecs"); }

layout::KernelInfo bundled(const std::string &name) {
  return layout::analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/skeletons/" + name + ".skel"), 0);
}

model::LayoutProjection one(const layout::KernelInfo &ki, const std::string &l,
                            const hw::HwSpec &hw) {
  return model::projectLayout(ki, layout::parseLayout(ki, l, hw), hw, paperModel());
}

} // namespace

TEST(PaperFindings, MatMulWithoutStagingIsMemoryBoundOnFX5600) {
  auto ki = bundled("matmul");
  auto fx = spec("fx5600");
  for (const char *l : {"block=i:16,j:16", "block=i:16,j:16 unroll=k:16", "block=i:8,j:32"}) {
    auto p = one(ki, l, fx);
    EXPECT_LT(p.result.mwp, p.result.cwp - 1) << l;
    EXPECT_EQ(p.result.bound, "memory") << l;
  }
}

TEST(PaperFindings, MatMulBestLayoutStagesKAndCachesAAndB) {
  auto ki = bundled("matmul");
  auto fx = spec("fx5600");
  auto kp = model::projectKernel(ki, fx, {}, paperModel());
  ASSERT_FALSE(kp.layouts.empty());
  const auto &best = kp.layouts.front();
  EXPECT_NE(best.layoutString.find("stage=k:"), std::string::npos) << best.layoutString;
  EXPECT_NE(best.layoutString.find("cache=A,B"), std::string::npos) << best.layoutString;
  EXPECT_GT(best.result.mwp, best.result.cwp - 1) << best.layoutString;
  EXPECT_EQ(best.result.bound, "compute");
  // and it beats the naive layout by a wide margin
  EXPECT_LT(best.result.timeMs * 5, one(ki, "block=i:16,j:16", fx).result.timeMs);
}

TEST(PaperFindings, MatMulWithoutUnrollingComputationNearlyDoubles) {
  auto ki = bundled("matmul");
  auto fx = spec("fx5600");
  double rolled = one(ki, "block=i:16,j:16 stage=k:16 cache=A,B", fx)
                      .characterization.workload.compInsts;
  double unrolled = one(ki, "block=i:16,j:16 stage=k:16 cache=A,B unroll=k:16", fx)
                        .characterization.workload.compInsts;
  // The paper: "almost doubles". With skelcast's instruction conventions
  // (3 loop-control instructions per iteration as in Hopper SASS, an address
  // per rolled shared-memory read, none for a global pointer once the data is
  // in shared memory) the rolled stage loop needs 2.3x the instructions.
  EXPECT_GT(rolled / unrolled, 1.6) << rolled << " vs " << unrolled;
  EXPECT_LT(rolled / unrolled, 2.5) << rolled << " vs " << unrolled;
}

TEST(PaperFindings, HotSpotNaiveMemoryBoundOnFX5600ComputeBoundOnC1060) {
  auto ki = bundled("hotspot");
  auto fx = one(ki, "block=i:16,j:16", spec("fx5600"));
  EXPECT_LT(fx.result.mwp, fx.result.cwp - 1);
  EXPECT_EQ(fx.result.bound, "memory");
  // The neighbours one word off alignment: 32 transactions per warp on cc 1.0 ...
  EXPECT_DOUBLE_EQ(fx.characterization.workload.uncoalPerMw, 32);
  auto c = one(ki, "block=i:16,j:16", spec("c1060"));
  EXPECT_GT(c.result.mwp, c.result.cwp - 1);
  EXPECT_EQ(c.result.bound, "compute");
  // ... but only 4 on cc 1.3's segment rule.
  EXPECT_DOUBLE_EQ(c.characterization.workload.uncoalPerMw, 4);
}

// ---- degenerate cases never crash or print NaN ------------------------------------

namespace {

void expectSane(const std::string &text, const std::string &hwName) {
  auto f = skeleton::parseSkeleton(text, "t.skel");
  auto ki = layout::analyzeKernel(f, 0);
  hw::HwSpec hw = spec(hwName);
  hw.memCapacityBytes = 0; // the model's arithmetic, not the device memory check
  for (const auto &name : model::modelNames()) {
    model::ModelOptions mo;
    mo.model = model::parseModelSpec(name);
    auto kp = model::projectKernel(ki, hw, {}, mo);
    ASSERT_FALSE(kp.layouts.empty()) << text;
    for (const auto &l : kp.layouts) {
      EXPECT_TRUE(std::isfinite(l.result.timeMs)) << name << ": " << l.layoutString;
      EXPECT_GE(l.result.timeMs, 0) << name << ": " << l.layoutString;
      EXPECT_TRUE(std::isfinite(l.result.mwp) && std::isfinite(l.result.cwp)) << l.layoutString;
    }
  }
}

} // namespace

TEST(Degenerate, LoopSpaceSmallerThanAWarp) {
  expectSane("float A[5]\nparallel_for(5) : i {\n  ld A[i]\n  comp 2\n  st A[i]\n}\n", "h100");
}

TEST(Degenerate, StreamingLoopWithHintZero) {
  expectSane("int J[65]\nfloat X[64][64]\nparallel_for(64, 64) : j, i {\n  b = J[j]\n"
             "  stream n = b:b (hint:0) {\n    ld X[n][i]\n    comp 3\n  }\n  st X[j][i]\n}\n",
             "fx5600");
}

TEST(Degenerate, KernelWithoutMemoryAccesses) {
  expectSane("parallel_for(4096) : i {\n  comp 100\n}\n", "c1060");
}

TEST(Degenerate, SharedMemoryCannotHoldAnyStage) {
  // 16 KB of shared memory cannot hold a 64-wide double stage of two arrays
  // for large blocks: such layouts are pruned, the others still rank.
  expectSane("#define N 4096\ndouble A[N][N]\ndouble B[N][N]\ndouble C[N][N]\n"
             "parallel_for(N, N) : i, j {\n  stream k = 0:N {\n    ld A[i][k]\n    ld B[k][j]\n"
             "    comp 2\n  }\n  st C[i][j]\n}\n",
             "fx5600");
}

TEST(Degenerate, LoopSpaceOf2To40Iterations) {
  expectSane("#define N 1048576\nfloat A[N][N]\nparallel_for(N, N) : i, j {\n  ld A[i][j]\n"
             "  comp 1\n  st A[i][j]\n}\n",
             "h100");
}
