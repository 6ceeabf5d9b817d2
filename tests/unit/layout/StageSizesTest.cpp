// The stage sizes of the layout space (docs/model.md, section 2): a staged loop
// takes the paper's StageSize (equation 3) or a power of two from 8 up to its trip
// (and the shared memory of a block), and the bound on the space counts them.
// Worked by hand on a 1-D kernel of 1024 tasks whose 48-iteration streaming loop
// reads one array shared by every thread.
#include "skelcast/layout/Enumerate.h"
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

using namespace skelcast;

namespace {

const char *kSkeleton = "float A[48]\n"
                        "float Y[1024]\n"
                        "parallel_for v(1024) : i {\n"
                        "  stream k = 0:48 {\n"
                        "    ld A[k]\n"
                        "    comp 1\n"
                        "  }\n"
                        "  st Y[i]\n"
                        "}\n";

layout::KernelInfo kernel() {
  return layout::analyzeKernel(skeleton::parseSkeleton(kSkeleton, "stage.skel"), 0);
}

hw::HwSpec h100() { return hw::loadHwSpec(std::string(SKELCAST_SOURCE_DIR) + "/hwspecs/h100.json"); }

} // namespace

TEST(StageSizes, BoundCountsThePowersOfTwoBesideThePapersSize) {
  // Blocks of 32..1024 threads (6 shapes), folds 1, 2, 4, 8 with B x F <= 1024:
  // 4 + 4 + 4 + 3 + 2 + 1 = 18 (B, F) pairs fit, 6 do not. c = 1 (A), s = 1 (k).
  // k's powers of two from 8 to its trip 48: 8, 16, 32 (P = 3), so k is unstaged or
  // staged at one of 3 + 1 sizes: 2 + P = 5 choices.
  // Bound: 18 x (1 + (2^1 - 1) x 5) x 2 + 6 = 222 (the paper's size alone: 114).
  layout::SpaceBound b = layout::spaceBound(kernel(), h100(), {});
  EXPECT_EQ(b.cacheable, 1);
  EXPECT_EQ(b.stageable, 1);
  EXPECT_FALSE(b.reduced());
  EXPECT_EQ(b.candidates, 222);
}

TEST(StageSizes, StagedLoopTakesThePapersSizeAndEachPowerOfTwo) {
  layout::KernelInfo ki = kernel();
  hw::HwSpec hw = h100();
  std::map<int64_t, std::set<int64_t>> sizes; // threads per block -> stage sizes of k
  int64_t staged = 0;
  layout::EnumerationStats st =
      layout::enumerateLayouts(ki, hw, {}, [&](const layout::Layout &l, const layout::Characterization &) {
        if (l.stages.empty())
          return;
        ++staged;
        ASSERT_EQ(l.stages.size(), 1u);
        int64_t s = l.stages.front().second;
        sizes[l.threadsPerBlock()].insert(s);
        // "Maximize L" unrolls a staged loop by its stage size up to 32, a longer
        // stage by the largest power of two up to 32 dividing it (48: 16)
        if (!l.unroll.empty())
          EXPECT_EQ(l.unrollFactor(l.stages.front().first), s <= 32 ? s : s == 48 ? 16 : 32)
              << "stage " << s;
      });
  // StageSize(A, k) = size(B) x StageShrDegree / h1 = size(B) x (1 x 48 / 48) / 1 = size(B),
  // at most the trip: 32 for blocks of 32 threads (one of the powers), 48 otherwise.
  ASSERT_EQ(sizes.size(), 6u);
  EXPECT_EQ(sizes[32], (std::set<int64_t>{8, 16, 32}));
  for (int64_t tpb : {64, 128, 256, 512, 1024})
    EXPECT_EQ(sizes[tpb], (std::set<int64_t>{8, 16, 32, 48})) << tpb << " threads";
  // Staged candidates: blocks of 32 with 4 folds x 3 sizes, the other 14 fitting
  // (B, F) x 4 sizes, each with and without unrolling: (12 + 56) x 2 = 136; with
  // the unstaged ones (18 x 2 x 2 = 72) and the 6 beyond the loop space, 214
  // explored, within the bound of 222 (blocks of 32 have one size fewer).
  EXPECT_EQ(staged, 136);
  EXPECT_EQ(st.explored, 214);
  EXPECT_EQ(st.pruned, 6);
}

TEST(StageSizes, MatMulsBoundInTheDocs) {
  // skeletons/matmul.skel on h100 (docs/model.md's table): 51 block shapes x 16 folds, 736
  // of them within the tile rule and the fold bound (maxFold), 80 not; c = 2 (A, B), s = 1
  // (k, 400 iterations: powers 8 ... 256, P = 6).
  // 736 x (1 + 3 x (2 + 6)) x 2 + 80 = 36,880 (the paper's size alone: 736 x 7 x 2 + 80 = 10,384).
  layout::KernelInfo ki = layout::analyzeKernel(
      skeleton::parseSkeletonFile(std::string(SKELCAST_SOURCE_DIR) + "/skeletons/matmul.skel"), 0);
  layout::SpaceBound b = layout::spaceBound(ki, h100(), {});
  EXPECT_EQ(b.candidates, 36'880);
  layout::EnumerationStats st = layout::enumerateLayouts(
      ki, h100(), {}, [](const layout::Layout &, const layout::Characterization &) {});
  EXPECT_EQ(st.explored, 31'237);
  EXPECT_EQ(st.pruned, 3'010);
}
