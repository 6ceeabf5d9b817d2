// The bound on the layout space (docs/model.md, "The bound on the space"): a
// worst-case kernel (3-D, eleven cacheable arrays, five stageable streaming
// loops in the nest's body; 2^11 x 2^5 subsets unbounded) explores at most
// EnumerateOptions::maxCandidates candidates, and kernels within the bound
// are enumerated in full.
#include "skelcast/layout/Enumerate.h"
#include "skelcast/layout/KernelInfo.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>

using namespace skelcast;

namespace {

/// Ten weight arrays indexed only by the streaming loops (shared by every
/// thread of a block), a 3-D input read through a sliding window, and five
/// constant-trip streaming loops one after another in the nest's body (a stage
/// covers a loop of the body itself, as emit writes it).
std::string worstCase() {
  std::string s = "float in[264][264][264]\nfloat out[256][256][256]\n";
  for (int a = 0; a < 10; ++a)
    s += "float w" + std::to_string(a) + "[4][4][4][4][2]\n";
  s += "parallel_for worst(256, 256, 256) : z, y, x {\n";
  const char *loops[] = {"i", "j", "k", "m", "n"};
  for (int l = 0; l < 5; ++l) {
    std::string at[5] = {"0", "0", "0", "0", "0"};
    at[l] = loops[l];
    s += std::string("  stream ") + loops[l] + (l == 4 ? " = 0:2 {\n" : " = 0:4 {\n");
    s += std::string("    ld in[z][y][x + ") + loops[l] + "]\n";
    for (int a = 0; a < 10; ++a)
      s += "    ld w" + std::to_string(a) + "[" + at[0] + "][" + at[1] + "][" + at[2] + "][" + at[3] + "][" + at[4] + "]\n";
    s += "    comp 1\n  }\n";
  }
  s += "  st out[z][y][x]\n}\n";
  return s;
}

layout::KernelInfo kernel(const std::string &text) {
  return layout::analyzeKernel(skeleton::parseSkeleton(text, "worst.skel"), 0);
}

layout::KernelInfo kernelFile(const std::string &path) {
  return layout::analyzeKernel(skeleton::parseSkeletonFile(std::string(SKELCAST_SOURCE_DIR) + "/" + path), 0);
}

hw::HwSpec h100() { return hw::loadHwSpec(std::string(SKELCAST_SOURCE_DIR) + "/hwspecs/h100.json"); }

struct Explored {
  layout::EnumerationStats stats;
  size_t mostCached = 0, mostStaged = 0;
};

Explored explore(const layout::KernelInfo &ki, const hw::HwSpec &hw, const layout::EnumerateOptions &o) {
  Explored e;
  e.stats = layout::enumerateLayouts(ki, hw, o, [&](const layout::Layout &l, const layout::Characterization &) {
    e.mostCached = std::max(e.mostCached, l.cached.size());
    e.mostStaged = std::max(e.mostStaged, l.stages.size());
  });
  return e;
}

} // namespace

TEST(SpaceBound, WorstCaseStaysWithinTheDefaultBound) {
  layout::KernelInfo ki = kernel(worstCase());
  hw::HwSpec hw = h100();
  layout::EnumerateOptions o;
  layout::SpaceBound b = layout::spaceBound(ki, hw, o);
  EXPECT_EQ(b.cacheable, 11);
  EXPECT_EQ(b.stageable, 5);
  EXPECT_TRUE(b.reduced());
  // Arrays are dropped while more arrays than loops are kept, then loops and
  // arrays in turn: 11/5 -> 5/5 -> 4/4 -> ... until the count fits.
  EXPECT_LE(b.stageCap, b.cacheCap);
  EXPECT_LE(b.cacheCap - b.stageCap, 1);
  EXPECT_LE(b.candidates, o.maxCandidates);
  // One cap more of either kind would exceed it: the bound takes no more
  // than it needs.
  layout::EnumerateOptions tighter = o;
  tighter.maxCandidates = b.candidates - 1;
  layout::SpaceBound t = layout::spaceBound(ki, hw, tighter);
  EXPECT_LT(t.cacheCap + t.stageCap, b.cacheCap + b.stageCap);

  Explored e = explore(ki, hw, o);
  EXPECT_GT(e.stats.explored, 0);
  EXPECT_LE(e.stats.explored, b.candidates);
  EXPECT_LE(e.mostCached, static_cast<size_t>(b.cacheCap));
  EXPECT_LE(e.mostStaged, static_cast<size_t>(b.stageCap));
}

TEST(SpaceBound, ASmallerBoundShrinksTheSpaceFurther) {
  layout::KernelInfo ki = kernel(worstCase());
  hw::HwSpec hw = h100();
  layout::EnumerateOptions o;
  o.maxCandidates = 100'000;
  layout::SpaceBound b = layout::spaceBound(ki, hw, o);
  EXPECT_LE(b.candidates, o.maxCandidates);
  Explored e = explore(ki, hw, o);
  EXPECT_LE(e.stats.explored, o.maxCandidates);
  EXPECT_LE(e.mostCached, static_cast<size_t>(b.cacheCap));
  EXPECT_LE(e.mostStaged, static_cast<size_t>(b.stageCap));
}

TEST(SpaceBound, KernelsWithinTheBoundAreEnumeratedInFull) {
  hw::HwSpec hw = h100();
  layout::EnumerateOptions unbounded;
  unbounded.maxCandidates = std::numeric_limits<int64_t>::max();
  for (const char *path : {"skeletons/matmul.skel", "skeletons/hotspot.skel"}) {
    SCOPED_TRACE(path);
    layout::KernelInfo ki = kernelFile(path);
    layout::SpaceBound b = layout::spaceBound(ki, hw, {});
    EXPECT_FALSE(b.reduced());
    Explored e = explore(ki, hw, {}), all = explore(ki, hw, unbounded);
    EXPECT_LE(e.stats.explored, b.candidates);
    EXPECT_EQ(e.stats.explored, all.stats.explored);
    EXPECT_EQ(e.stats.pruned, all.stats.pruned);
  }
}

TEST(SpaceBound, CountsOfTheBundledConvolution) {
  // bench/skeletons/conv3d.skel: 3-D, in and w cacheable, three nested
  // streaming loops, of which only the outermost, a statement of the nest's
  // body, can be staged (docs/model.md's table: 181,072 candidates on h100).
  layout::SpaceBound b = layout::spaceBound(kernelFile("bench/skeletons/conv3d.skel"), h100(), {});
  EXPECT_EQ(b.cacheable, 2);
  EXPECT_EQ(b.stageable, 1);
  EXPECT_EQ(b.cacheCap, 2);
  EXPECT_EQ(b.stageCap, 1);
  EXPECT_EQ(b.candidates, 181'072);
}

// An array is offered to the cache only when emit can stage it: every access
// moving alike with each parallel index. HotSpot's corner case reads t[0][0]
// where the interior reads t[r][c]: no `cache=t`. The same stencil without the
// corner caches t, and never `power` (read once a task, ShrDegree 1).
TEST(SpaceBound, AnArrayIsCachedOnlyWhenItsAccessesMoveAlikeWithTheParallelIndices) {
  const std::string arrays = "float t[512][512]\nfloat o[512][512]\n";
  const std::string body = "  ld t[r - 1][c]\n  ld t[r + 1][c]\n  ld t[r][c - 1]\n  ld t[r][c + 1]\n  ld t[r][c]\n"
                           "  comp 9\n  st o[r][c]\n}\n";
  auto cachedT = [&](const std::string &text) {
    bool any = false;
    layout::enumerateLayouts(kernel(text), h100(), {}, [&](const layout::Layout &l, const layout::Characterization &) {
      any = any || !l.cached.empty();
    });
    return any;
  };
  std::string uniform = arrays + "parallel_for s(1:511, 1:511) : r, c {\n" + body;
  std::string corner = arrays + "parallel_for s(1:511, 1:511) : r, c {\n  if (p=0.001) {\n    ld t[0][0]\n  }\n" + body;
  EXPECT_TRUE(cachedT(uniform)) << "a stencil whose reads all move with (r, c) should be offered cache=t";
  EXPECT_FALSE(cachedT(corner)) << "t[0][0] does not move with (r, c): cache=t cannot be emitted";
}

// Emit stages one loop (src/emit/EmitPlan.cpp), so the enumerator stages one
// at most: the worst case has five stageable loops and caches eleven arrays,
// yet no layout stages two loops.
TEST(SpaceBound, OneLoopIsStagedAtMost) {
  Explored e = explore(kernel(worstCase()), h100(), {});
  EXPECT_EQ(e.mostStaged, 1u) << "every layout stages at most one loop, and some stage one";
  EXPECT_GE(e.mostCached, 2u);
}

// Emit stages a loop of the nest's body itself, where it can put the stage's
// barriers: mm_ikj's j loop, inside the k loop, is never staged (its five
// favourites staged j and none could be emitted, 2026-11-29); k is.
TEST(SpaceBound, OnlyALoopOfTheNestsBodyIsStaged) {
  const char *ikj = "#define N 256\nfloat A[N][N]\nfloat B[N][N]\nfloat C[N][N]\n"
                    "parallel_for mm(N) : i {\n  stream k = 0:N {\n    ld A[i][k]\n"
                    "    stream j = 0:N {\n      ld B[k][j]\n      ld C[i][j]\n      comp 2\n      st C[i][j]\n    }\n  }\n}\n";
  layout::KernelInfo ki = kernel(ikj);
  std::set<std::string> staged;
  layout::enumerateLayouts(ki, h100(), {}, [&](const layout::Layout &l, const layout::Characterization &) {
    for (const auto &[loop, size] : l.stages)
      staged.insert(ki.loops[static_cast<size_t>(loop)].index);
  });
  EXPECT_EQ(staged, (std::set<std::string>{"k"}));
}
