// The enumerator's Characterizer reuses what depends only on the kernel, the
// block shape, the block tile or (B, F) across layouts; these tests check that
// no cached value leaks from one layout to another: every enumerated layout's
// characterization equals the one characterize() computes from nothing, bit for
// bit. (tests/identity/check.sh compares whole outputs with the build before
// the caches.)
#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Enumerate.h"
#include "skelcast/layout/Footprint.h"
#include "skelcast/skeleton/Parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace skelcast;
using namespace skelcast::layout;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec spec(const std::string &n) { return hw::resolveHwSpec(n, kSrc + "/hwspecs"); }

KernelInfo fileKernel(const std::string &rel) {
  return analyzeKernel(skeleton::parseSkeletonFile(kSrc + "/" + rel), 0);
}

/// A small 3-D loop space with three streaming loops (subscripts that sum two
/// variables, as in bench/skeletons/conv3d.skel).
const char *kConv3d = R"(#define N 32
#define R 3
float in[N + R - 1][N + R - 1][N + R - 1]
float w[R][R][R]
float out[N][N][N]
parallel_for conv3d(N, N, N) : z, y, x {
  comp 8
  stream i = 0:R {
    stream j = 0:R {
      stream k = 0:R {
        ld in[z + i][y + j][x + k]
        ld w[i][j][k]
        comp 1
      }
    }
  }
  st out[z][y][x]
}
)";

bool same(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

#define EXPECT_SAME(a, b) EXPECT_TRUE(same((a), (b))) << #a << ": " << (a) << " vs " << (b)

void expectSame(const WarpAccess &a, const WarpAccess &b) {
  EXPECT_EQ(a.coalesced, b.coalesced);
  EXPECT_SAME(a.transactions, b.transactions);
  EXPECT_SAME(a.distinct, b.distinct);
}

void expectSame(const Characterization &a, const Characterization &b) {
  const auto &w = a.workload, &v = b.workload;
  EXPECT_SAME(w.threadsPerBlock, v.threadsPerBlock);
  EXPECT_SAME(w.blocks, v.blocks);
  EXPECT_SAME(w.sharedMemBytesPerBlock, v.sharedMemBytesPerBlock);
  EXPECT_SAME(w.compInsts, v.compInsts);
  EXPECT_SAME(w.coalMemInsts, v.coalMemInsts);
  EXPECT_SAME(w.uncoalMemInsts, v.uncoalMemInsts);
  EXPECT_SAME(w.synchInsts, v.synchInsts);
  EXPECT_SAME(w.uncoalPerMw, v.uncoalPerMw);
  EXPECT_SAME(w.loadBytesPerWarp, v.loadBytesPerWarp);
  EXPECT_SAME(w.exposedMemInsts, v.exposedMemInsts);
  EXPECT_SAME(w.exposedLatencyCycles, v.exposedLatencyCycles);
  ASSERT_EQ(a.arrays.size(), b.arrays.size());
  for (size_t i = 0; i < a.arrays.size(); ++i) {
    const auto &x = a.arrays[i], &y = b.arrays[i];
    EXPECT_EQ(x.array, y.array);
    EXPECT_SAME(x.shrDegree, y.shrDegree);
    EXPECT_EQ(x.cacheable, y.cacheable);
    EXPECT_EQ(x.cached, y.cached);
    EXPECT_SAME(x.shMemElems, y.shMemElems);
    EXPECT_SAME(x.shMemBytes, y.shMemBytes);
    EXPECT_SAME(x.dataReqs, y.dataReqs);
    EXPECT_SAME(x.cachingInsts, y.cachingInsts);
    expectSame(x.cachingPattern, y.cachingPattern);
    EXPECT_SAME(x.kernelUnique, y.kernelUnique);
    EXPECT_SAME(x.loadRequests, y.loadRequests);
    EXPECT_SAME(x.loadBlockUnique, y.loadBlockUnique);
    EXPECT_SAME(x.loadInflation, y.loadInflation);
    EXPECT_SAME(x.storeInflation, y.storeInflation);
    EXPECT_SAME(x.storeKernelUnique, y.storeKernelUnique);
  }
  ASSERT_EQ(a.accesses.size(), b.accesses.size());
  for (size_t i = 0; i < a.accesses.size(); ++i) {
    const auto &x = a.accesses[i], &y = b.accesses[i];
    EXPECT_EQ(x.access, y.access);
    EXPECT_EQ(x.viaShared, y.viaShared);
    EXPECT_SAME(x.insts, y.insts);
    expectSame(x.pattern, y.pattern);
    EXPECT_SAME(x.bytesPerThread, y.bytesPerThread);
    EXPECT_SAME(x.sharedWavefronts, y.sharedWavefronts);
  }
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t i = 0; i < a.stages.size(); ++i) {
    EXPECT_EQ(a.stages[i].loop, b.stages[i].loop);
    EXPECT_EQ(a.stages[i].stageSize, b.stages[i].stageSize);
    EXPECT_SAME(a.stages[i].numStages, b.stages[i].numStages);
  }
  EXPECT_SAME(a.funcInsts, b.funcInsts);
  EXPECT_SAME(a.loopControlInsts, b.loopControlInsts);
  EXPECT_SAME(a.literalMoveInsts, b.literalMoveInsts);
  EXPECT_SAME(a.sharedReadInsts, b.sharedReadInsts);
  EXPECT_SAME(a.cachingCompInsts, b.cachingCompInsts);
  EXPECT_SAME(a.avgElemBytes, b.avgElemBytes);
  EXPECT_EQ(a.fits, b.fits);
  EXPECT_SAME(a.compulsoryBytes, b.compulsoryBytes);
  EXPECT_SAME(a.blockFootprintBytes, b.blockFootprintBytes);
  EXPECT_SAME(a.requestedBytesPerThread, b.requestedBytesPerThread);
  EXPECT_SAME(a.fp64Insts, b.fp64Insts);
  EXPECT_SAME(a.loadGroups, b.loadGroups);
  EXPECT_SAME(a.windowFootprintBytes, b.windowFootprintBytes);
  EXPECT_SAME(a.serialTasks, b.serialTasks);
  EXPECT_SAME(a.sharedFoldLoads, b.sharedFoldLoads);
  EXPECT_SAME(a.jammedAddressInsts, b.jammedAddressInsts);
  EXPECT_SAME(a.carriedIterations, b.carriedIterations);
  EXPECT_SAME(a.hoistedLoadWords, b.hoistedLoadWords);
}

/// Every `stride`-th enumerated layout against characterize() from nothing; the
/// enumerator's stage sizes against paperStageSize (or a power of two) and its ShrDegrees against
/// shareDegrees.
void checkKernel(const KernelInfo &ki, const std::string &hwName, int64_t stride) {
  SCOPED_TRACE(ki.name + " on " + hwName);
  hw::HwSpec hw = spec(hwName);
  int64_t n = 0, checked = 0;
  enumerateLayouts(ki, hw, {}, [&](const Layout &l, const Characterization &c) {
    if (n++ % stride != 0 || ::testing::Test::HasFailure())
      return;
    ++checked;
    SCOPED_TRACE(layoutString(ki, l));
    expectSame(c, characterize(ki, l, hw));
    auto shr = shareDegrees(ki, l);
    for (size_t d = 0; d < shr.size(); ++d)
      EXPECT_SAME(c.arrays[d].shrDegree, shr[d]);
    // The paper's StageSize, or one of the powers of two from 8 (docs/model.md, section 2).
    for (const auto &[loop, size] : l.stages) {
      bool pow2 = size >= 8 && (size & (size - 1)) == 0;
      EXPECT_TRUE(size == paperStageSize(ki, l, loop, l.cached) || pow2)
          << "stage size " << size << ", the paper's " << paperStageSize(ki, l, loop, l.cached);
    }
  });
  EXPECT_GT(checked, 0);
}

} // namespace

TEST(Characterizer, EnumeratedEqualsFreshOnBundledSkeletons) {
  for (const char *f : {"skeletons/matmul.skel", "skeletons/hotspot.skel", "skeletons/spinflap.skel",
                        "validation/skeletons/transpose_1024.skel"})
    for (const char *g : {"h100", "fx5600", "c1060"})
      checkKernel(fileKernel(f), g, 3);
  for (const char *f : {"skeletons/ispinex_complex.skel", "skeletons/ispinex_real.skel"})
    for (const char *g : {"h100", "c1060"})
      checkKernel(fileKernel(f), g, 11);
}

TEST(Characterizer, EnumeratedEqualsFreshOnThreeStreamingLoops) {
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(kConv3d, "conv3d.skel"), 0);
  checkKernel(ki, "h100", 23);
  checkKernel(ki, "fx5600", 23);
}

TEST(Characterizer, CountsDoNotDependOnTheCaches) {
  // The same enumeration twice gives the same counts and the same layouts.
  KernelInfo ki = fileKernel("skeletons/matmul.skel");
  hw::HwSpec hw = spec("h100");
  std::vector<std::string> first, second;
  auto a = enumerateLayouts(ki, hw, {}, [&](const Layout &l, const Characterization &) {
    first.push_back(layoutString(ki, l));
  });
  auto b = enumerateLayouts(ki, hw, {}, [&](const Layout &l, const Characterization &) {
    second.push_back(layoutString(ki, l));
  });
  EXPECT_EQ(a.explored, b.explored);
  EXPECT_EQ(a.pruned, b.pruned);
  EXPECT_EQ(first, second);
  EXPECT_EQ(static_cast<int64_t>(first.size()), a.explored - a.pruned);
}

namespace {

/// Distinct element offsets of one access over an iteration set, by brute force.
double bruteForceOffsets(const KernelInfo &ki, const AccessInfo &a, const IterSet &set) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  std::set<int64_t> seen;
  std::vector<int64_t> t(set.size(), 0), vals(set.size());
  for (;;) {
    for (size_t v = 0; v < set.size(); ++v)
      vals[v] = set[v].start + t[v] * set[v].stride;
    int64_t off = 0;
    for (size_t d = 0; d < a.index.size(); ++d)
      off += *evalIndex(ki, a.index[d].expr, vals) * arr.strides[d];
    seen.insert(off);
    size_t v = 0;
    while (v < set.size() && ++t[v] >= set[v].count) {
      t[v] = 0;
      ++v;
    }
    if (v == set.size())
      break;
  }
  return static_cast<double>(seen.size());
}

} // namespace

TEST(Footprint, SumsOfVariablesCountedAsTheirProduct) {
  // ld in[z + i][y + j][x + k]: each subscript sums two progressions; the count
  // must be the number of distinct offsets the enumeration would find.
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(kConv3d, "conv3d.skel"), 0);
  const AccessInfo &in = ki.accesses[0];
  ASSERT_EQ(ki.arrays[in.array].name, "in");
  std::mt19937 rng(8);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    IterSet s(ki.vars.size());
    for (size_t v = 0; v < 3; ++v) { // z, y, x in [0, 32): a thread's or a block's tasks
      int64_t count = pick(1, 6), stride = pick(1, 5);
      if (stride * (count - 1) > 31)
        count = 1;
      s[v] = {pick(0, 31 - stride * (count - 1)), count, stride};
    }
    for (size_t v = 3; v < ki.vars.size(); ++v) // i, j, k: a stage or the whole loop
      s[v] = {0, pick(1, 3), 1};
    SCOPED_TRACE(trial);
    EXPECT_DOUBLE_EQ(footprint(ki, {&in}, s).size, bruteForceOffsets(ki, in, s));
    EXPECT_DOUBLE_EQ(footprintSize(ki, std::vector<const AccessInfo *>{&in}.data(), 1, s),
                     bruteForceOffsets(ki, in, s));
  }
}

TEST(Footprint, SeparableFastPathMatchesBruteForce) {
  // A five-point stencil's union over random thread and block sets: all inside
  // the array, so distinct coordinates are distinct offsets.
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(R"(#define N 64
float t[N][N]
parallel_for(1:N - 1, 1:N - 1) : i, j {
  ld t[i][j]
  ld t[i - 1][j]
  ld t[i + 1][j]
  ld t[i][j - 1]
  ld t[i][j + 1]
}
)", "t.skel"), 0);
  std::vector<const AccessInfo *> all;
  for (const auto &a : ki.accesses)
    all.push_back(&a);
  std::mt19937 rng(3);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 300; ++trial) {
    IterSet s(ki.vars.size());
    for (size_t v = 0; v < 2; ++v) {
      int64_t stride = pick(1, 8), count = pick(1, 62 / stride);
      s[v] = {pick(1, 62 - stride * (count - 1)), count, stride};
    }
    std::set<int64_t> seen;
    for (const auto *a : all)
      for (int64_t p = 0; p < s[0].count; ++p)
        for (int64_t q = 0; q < s[1].count; ++q) {
          std::vector<int64_t> vals{s[0].start + p * s[0].stride, s[1].start + q * s[1].stride};
          seen.insert(*evalIndex(ki, a->index[0].expr, vals) * 64 + *evalIndex(ki, a->index[1].expr, vals));
        }
    SCOPED_TRACE(trial);
    EXPECT_DOUBLE_EQ(footprint(ki, all, s).size, static_cast<double>(seen.size()));
    EXPECT_DOUBLE_EQ(footprintSize(ki, all.data(), all.size(), s), static_cast<double>(seen.size()));
  }
}

// Eq. 13 inside a rolled loop (docs/model.md section 2, after equation 13).
// Worked by hand: one thread's 4 tasks i0..i0+3 (block=i:1 fold=i:4) read
// a[i + p] for p = 0..2. Over all iterations they read 6 distinct elements
// (i0..i0+5): eq. 13's count when the layout unrolls p (unroll=p:3), since
// the compiler then loads task f's a[i0 + f + 1] at p = 0 once for task f + 1
// at p = 1 too. Rolled, each iteration loads its 4 distinct elements again:
// 4 x 3 = 12. b[p] moves with p but not with i: the tasks share it in every
// iteration, 1 x 3 = 3 either way.
TEST(Characterizer, JammedTasksShareLoadsAcrossARolledLoopsIterationsOnlyWhenItIsUnrolled) {
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(R"(#define N 1024
float a[N + 2]
float b[3]
float c[N]
parallel_for win(N) : i {
  for p = 0:3 {
    ld a[i + p]
    ld b[p]
    comp 1
  }
  st c[i]
}
)", "win.skel"), 0);
  hw::HwSpec hw = spec("h100");
  auto loadsOf = [&](const std::string &layout) {
    Characterization c = characterize(ki, parseLayout(ki, layout, hw), hw);
    std::map<std::string, double> n;
    for (const AccessUse &u : c.accesses) {
      const AccessInfo &acc = ki.accesses[static_cast<size_t>(u.access)];
      if (!acc.isStore)
        n[ki.arrays[static_cast<size_t>(acc.array)].name] = u.insts;
    }
    return n;
  };
  auto rolled = loadsOf("block=i:1 fold=i:4");
  EXPECT_DOUBLE_EQ(rolled["a"], 12.0) << "rolled p: each iteration loads the 4 tasks' elements";
  EXPECT_DOUBLE_EQ(rolled["b"], 3.0) << "b[p] is one element an iteration for all tasks";
  auto unrolled = loadsOf("block=i:1 fold=i:4 unroll=p:3");
  EXPECT_DOUBLE_EQ(unrolled["a"], 6.0) << "unrolled p: eq. 13's distinct elements";
  EXPECT_DOUBLE_EQ(unrolled["b"], 3.0);
  auto single = loadsOf("block=i:32");
  EXPECT_DOUBLE_EQ(single["a"], 3.0) << "one task a thread: nothing to share";
}

// Worked by hand: a vertical stencil, out[i + 1][j] = in[i][j] + in[i + 1][j]
// + in[i + 2][j], each thread 4 tasks down a column (block=i:1,j:32
// fold=i:4). Each access alone reads 4 rows (eq. 13: 4 + 4 + 4 = 12), but
// the three accesses differ only in their constants, so the tasks' rows are
// i0 .. i0 + 5: 6 loads in all (4 for the first access, then 1 and 1 new
// rows), and 6 loaded values held once (sharedFoldLoads). With N = 66 rows
// the tiles of 4 are partial: emit guards each task of the loop-free body on
// its own and the compiler shares nothing, 12 (stencil27 254^3's SASS). The
// same array's transpose, in[j][i], is not a shift of in[i][j]: not shared.
// A load in a branch's arm makes the tasks run one after another (serial):
// nothing shared either.
TEST(Characterizer, FoldedTasksLoadTheRowsTheyShareAcrossAccessesOnce) {
  auto kernel = [](int n) {
    return analyzeKernel(skeleton::parseSkeleton(fmt::format(R"(float in[{0} + 2][64]
float out[{0} + 2][64]
parallel_for vs({0}, 64) : i, j {{
  ld in[i][j]
  ld in[i + 1][j]
  ld in[i + 2][j]
  comp 2
  st out[i + 1][j]
}}
)", n), "vs.skel"), 0);
  };
  hw::HwSpec hw = spec("h200");
  auto loads = [&](const KernelInfo &ki, const std::string &layout, double *shared = nullptr) {
    Characterization c = characterize(ki, parseLayout(ki, layout, hw), hw);
    if (shared)
      *shared = c.sharedFoldLoads;
    double n = 0;
    for (const AccessUse &u : c.accesses)
      if (!ki.accesses[static_cast<size_t>(u.access)].isStore)
        n += u.insts;
    return n;
  };
  KernelInfo whole = kernel(64);
  double shared = -1;
  EXPECT_DOUBLE_EQ(loads(whole, "block=i:1,j:32 fold=i:4", &shared), 6.0)
      << "rows i0 .. i0+5 once, not 4 for each of the 3 accesses";
  EXPECT_DOUBLE_EQ(shared, 6.0) << "12 values a thread held as 6";
  EXPECT_DOUBLE_EQ(loads(whole, "block=i:1,j:32 fold=j:2"), 6.0)
      << "a fold along j shares no row: 2 tasks x 3 accesses";
  EXPECT_DOUBLE_EQ(loads(kernel(66), "block=i:1,j:32 fold=i:4"), 12.0)
      << "partial tiles: each task under its own guard loads its 3 rows";
  KernelInfo tr = analyzeKernel(skeleton::parseSkeleton(R"(float a[64][64]
float b[64][64]
parallel_for tr(64, 64) : i, j {
  ld a[i][j]
  ld a[j][i]
  comp 1
  st b[i][j]
}
)", "tr.skel"), 0);
  EXPECT_DOUBLE_EQ(loads(tr, "block=i:4,j:8 fold=i:2,j:2"), 8.0)
      << "a[i][j] and a[j][i] are not shifts of each other: 4 + 4";
  KernelInfo armed = analyzeKernel(skeleton::parseSkeleton(R"(float in[66][64]
float w[64][64]
float out[66][64]
parallel_for vs(64, 64) : i, j {
  ld in[i][j]
  ld in[i + 1][j]
  if (p=0.5) {
    ld w[i][j]
    comp 1
  }
  comp 1
  st out[i][j]
}
)", "armed.skel"), 0);
  shared = -1;
  EXPECT_DOUBLE_EQ(loads(armed, "block=i:1,j:32 fold=i:4", &shared), 4 * 2 + 4 * 0.5)
      << "tasks in sequence (a load in a branch's arm): each its own rows";
  EXPECT_DOUBLE_EQ(shared, 0.0);
}

// Worked by hand: the double `heavy` of validation/c/compute_heavy_fp64_16M.c,
// 64 rounds of four DFMA with eight 64-bit literals (lit64:8). Its loop left
// rolled, ptxas builds each literal with two moves in every iteration (the
// H200's SASS: 23 instructions an iteration, 16 of them moves; Nsight Compute
// 780,664,832 warp instructions for 134,217,728 DFMA, issue-bound at 0.856 ms):
// 2 x 8 x 64 = 1,024 a thread. Unrolled by 16 it hoists them: 2 x 8 = 16, once
// per entry of the loop. Folded tasks share them (the same literal).
TEST(Characterizer, SixtyFourBitLiteralsAreBuiltInEveryIterationOfARolledLoop) {
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(R"(#define N 16777216
double in[N]
double out[N]
parallel_for heavy(N) : i {
  ld in[i]
  comp 1
  for n = 0:64 {
    comp 4 (fp64:4, lit64:8)
  }
  comp 1
  st out[i]
}
)", "heavy.skel"), 0);
  hw::HwSpec hw = spec("h200");
  auto at = [&](const std::string &layout) { return characterize(ki, parseLayout(ki, layout, hw), hw); };
  Characterization rolled = at("block=i:256");
  EXPECT_DOUBLE_EQ(rolled.literalMoveInsts, 1024.0) << "2 moves x 8 literals x 64 iterations";
  EXPECT_DOUBLE_EQ(rolled.workload.compInsts, rolled.funcInsts + rolled.loopControlInsts + 1024.0)
      << "the moves are Comp_insts (no shared memory here)";
  EXPECT_DOUBLE_EQ(at("block=i:256 unroll=n:16").literalMoveInsts, 16.0) << "hoisted: once per entry";
  EXPECT_DOUBLE_EQ(at("block=i:32 fold=i:8").literalMoveInsts, 1024.0) << "the 8 folded tasks share them";
  // A staged loop enters its unrolled part once a stage: k over 1,024 in
  // stages of 256 unrolled by 16 builds the literal 4 times, 2 x 4 = 8 moves
  // (rolled, 2 x 1,024).
  KernelInfo st = analyzeKernel(skeleton::parseSkeleton(R"(#define N 65536
#define K 1024
double A[K]
double y[N]
parallel_for row(N) : i {
  stream k = 0:K {
    ld A[k]
    comp 2 (fp64:1, lit64:1)
  }
  st y[i]
}
)", "staged.skel"), 0);
  auto stAt = [&](const std::string &layout) { return characterize(st, parseLayout(st, layout, hw), hw); };
  EXPECT_DOUBLE_EQ(stAt("block=i:256").literalMoveInsts, 2048.0);
  EXPECT_DOUBLE_EQ(stAt("block=i:256 stage=k:256 cache=A unroll=k:16").literalMoveInsts, 8.0)
      << "once a stage: 4 stages";
  EXPECT_DOUBLE_EQ(stAt("block=i:256 unroll=k:16").literalMoveInsts, 2.0) << "once: one entry";
}

namespace {

/// A 5-point stencil over one cached array of `elem` (emit's tile: the block's
/// B x F range plus the halo, 16 + 2 = 18 elements a row for 16 columns).
KernelInfo stencil5(const std::string &elem, int n = 1026) {
  return analyzeKernel(
      skeleton::parseSkeleton("#define N " + std::to_string(n) + "\n" + elem + " t[N][N]\n" + elem +
                                  " o[N][N]\nparallel_for(1:N - 1, 1:N - 1) : i, j {\n  ld t[i][j]\n"
                                  "  ld t[i - 1][j]\n  ld t[i + 1][j]\n  ld t[i][j - 1]\n  ld t[i][j + 1]\n"
                                  "  comp 10\n  st o[i][j]\n}\n",
                              "t.skel"),
      0);
}

/// Each shared read's wavefronts (0 for the other accesses).
std::vector<double> wavesOf(const KernelInfo &ki, const std::string &layoutText, const hw::HwSpec &hw) {
  auto l = parseLayout(ki, layoutText, hw);
  auto c = characterize(ki, l, hw);
  std::vector<double> w;
  for (const auto &u : c.accesses) {
    if (hw.sharedMemBanks > 0)
      EXPECT_EQ(u.viaShared, u.sharedWavefronts > 0) << layoutText << ": access " << u.access;
    w.push_back(u.sharedWavefronts);
  }
  return w;
}

/// The stencil's five reads of t each take `n` wavefronts (the store of o none).
std::vector<double> fiveReads(double n) { return {n, n, n, n, n, 0}; }

} // namespace

TEST(SharedWavefronts, AWarpOverTwoTileRowsConflictsWhereTheRowsShareBanks) {
  // block=i:2,j:16: the warp's lanes read t[i][j] at tile words 18 i + j, rows
  // 0-15 and 18-33: banks 0-15, then 18-31 and 0-1. Banks 0 and 1 each hold two
  // distinct words: 2 wavefronts, not the dense 1 (4 bytes x 32 lanes = 128).
  auto hw = spec("h100");
  ASSERT_EQ(hw.sharedMemBanks, 32);
  auto ki = stencil5("float");
  EXPECT_EQ(wavesOf(ki, "block=i:2,j:16 cache=t", hw), fiveReads(2));
  // One row of 32 lanes: banks 0-31 once each.
  EXPECT_EQ(wavesOf(ki, "block=i:1,j:32 cache=t", hw), fiveReads(1));
  // Lanes down a column (block=i:32,j:1): words 3 i apart (the tile is 32 + 2
  // rows of 1 + 2): 3 i mod 32 is a permutation of the banks, no conflict.
  EXPECT_EQ(wavesOf(ki, "block=i:32,j:1 cache=t", hw), fiveReads(1));
  // Down a column 18 words apart (block=i:32 with j folded by 16, tile rows of
  // 16 + 2): 18 i mod 32 takes the 16 even banks, two words each.
  EXPECT_EQ(wavesOf(ki, "block=i:32,j:1 fold=j:16 cache=t", hw), fiveReads(2));
  // Without the spec's banks, nothing is counted (lsu takes the dense count).
  hw::HwSpec without = hw;
  without.sharedMemBanks = 0;
  EXPECT_EQ(wavesOf(ki, "block=i:2,j:16 cache=t", without), std::vector<double>(6, 0.0));
}

TEST(SharedWavefronts, EightByteReadsAreServedAHalfWarpAtATime) {
  // Doubles, block=i:4,j:8, tile rows of 8 + 2 doubles (20 words): the first
  // half-warp reads rows 0 and 1, words 0-15 and 20-35, banks 0-3 twice; the
  // second rows 2 and 3, words 40-55 and 60-75, banks 8-11 twice: 2 + 2 = 4
  // (Nsight Compute on the H200 counted 4.0 for this pattern); over the whole
  // warp at once the busiest bank would hold only 2.
  auto hw = spec("h100");
  EXPECT_EQ(wavesOf(stencil5("double"), "block=i:4,j:8 cache=t", hw), fiveReads(4));
  // Two rows of 16 doubles: each half-warp reads one row, 32 words: 1 + 1 = 2,
  // the dense count. The floats of the same layout: rows 10 words apart, the
  // warp's four rows wrap onto banks 0-5: 2.
  EXPECT_EQ(wavesOf(stencil5("double"), "block=i:2,j:16 cache=t", hw), fiveReads(2));
  EXPECT_EQ(wavesOf(stencil5("float"), "block=i:4,j:8 cache=t", hw), fiveReads(2));
}

TEST(SharedWavefronts, TheTileIsTheBlocksWholeRangeAsEmitWritesIt) {
  // 30 interior columns (N = 32) and block=i:32,j:1 fold=j:32: emit's tile
  // takes B x F = 32 columns plus the halo, rows of 34 words (not the 30 + 2
  // the block's clipped footprint has): lanes down a column 34 words apart
  // take the 16 even banks twice: 2, not the 32 rows of 32 words in one bank.
  auto hw = spec("h100");
  EXPECT_EQ(wavesOf(stencil5("float", 32), "block=i:32,j:1 fold=j:32 cache=t", hw), fiveReads(2));
  // Shorts, block=i:4,j:8 fold=j:9: tile rows of 74 shorts (37 words), and
  // words are counted from the tile's start, so each of the five reads (the
  // first element at an odd or even short) finds 4 or 5 words a row, rows 5
  // banks apart: 1 each.
  EXPECT_EQ(wavesOf(stencil5("short"), "block=i:4,j:8 fold=j:9 cache=t", hw), fiveReads(1));
}

// The tile emit writes (layout::sharedTile, which Emitter::planTiles builds
// its code from), worked by hand: the 5-point stencil of N = 1026 in
// block=i:4,j:8 fold=j:9 reads rows i - 1 .. i + 1 and columns j - 1 .. j + 1
// over the block's 4 x 72 tasks from i = j = 1: 6 x 74 elements, the first
// at [0][0]; each dimension moves with its own parallel index.
TEST(SharedWavefronts, TheTileEmitWritesWorkedByHand) {
  auto hw = spec("h100");
  auto ki = stencil5("float");
  auto l = parseLayout(ki, "block=i:4,j:8 fold=j:9 cache=t", hw);
  std::vector<const AccessInfo *> reads;
  for (const auto &a : ki.accesses)
    if (!a.isStore)
      reads.push_back(&a);
  SharedTile t = sharedTile(ki, reads, l, -1);
  EXPECT_EQ(t.refusal, "");
  EXPECT_EQ(t.extent, (std::vector<int64_t>{6, 74}));
  EXPECT_EQ(t.base, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.lo, (std::vector<int64_t>{-1, -1}));
  ASSERT_EQ(t.vars.size(), 2u);
  ASSERT_EQ(t.vars[0].size(), 1u);
  EXPECT_EQ(ki.vars[static_cast<size_t>(t.vars[0][0].var)].name, "i");
  EXPECT_EQ(t.vars[0][0].coef, 1);
  EXPECT_EQ(t.vars[0][0].count, 4);
  EXPECT_EQ(t.vars[0][0].span, 3);
  ASSERT_EQ(t.vars[1].size(), 1u);
  EXPECT_EQ(ki.vars[static_cast<size_t>(t.vars[1][0].var)].name, "j");
  EXPECT_EQ(t.vars[1][0].count, 72);
  EXPECT_EQ(t.vars[1][0].span, 71);
  // A read down a column beside one along a row moves differently with i:
  // no tile, and why, which emit reports as its refusal of the cache.
  auto both = analyzeKernel(skeleton::parseSkeleton("#define N 64\nfloat a[N][N]\nfloat o[N][N]\n"
                                                    "parallel_for(N, N) : i, j {\n  ld a[i][j]\n"
                                                    "  ld a[j][i]\n  comp 1\n  st o[i][j]\n}\n",
                                                    "t.skel"),
                            0);
  auto lb = parseLayout(both, "block=i:8,j:8", hw);
  std::vector<const AccessInfo *> ab{&both.accesses[0], &both.accesses[1]};
  SharedTile none = sharedTile(both, ab, lb, -1);
  EXPECT_TRUE(none.extent.empty());
  EXPECT_EQ(none.refusal, "its accesses move differently with 'i'");
}

TEST(SharedWavefronts, AStagedTilesRowsAreTheStagesLength) {
  // MatMul 800 x 400 x 800, block=i:4,j:16 fold=i:4,j:4 cache=A: the warp's 16
  // lanes of a row of the block read one element of A (a broadcast), its two
  // rows two elements of one column. Staged by 64, the tile's rows are 64
  // words apart and the two share a bank: 2. Unstaged, the rows are K = 400
  // words apart, banks 16 apart: 1. B[k][j] is read along a row: 1.
  auto hw = spec("h100");
  auto ki = fileKernel("validation/skeletons/matmul_800.skel");
  // Unrolled by 2, A[i][k] is read an element at a time (sharedVectorElems 1).
  auto staged = wavesOf(ki, "block=i:4,j:16 fold=i:4,j:4 stage=k:64 cache=A,B unroll=k:2", hw);
  auto whole = wavesOf(ki, "block=i:4,j:16 fold=i:4,j:4 cache=A unroll=k:2", hw);
  ASSERT_EQ(ki.accesses[0].isStore, false);
  EXPECT_EQ(staged[0], 2) << "A[i][k], staged";
  EXPECT_EQ(staged[1], 1) << "B[k][j], staged";
  EXPECT_EQ(whole[0], 1) << "A[i][k], unstaged";
  // Unrolled by 32 or 16 it is walked four k a read (an LDS.128), served a
  // quarter-warp at a time: 8 lanes of one row, one 16-byte group a pass, 4
  // passes, staged or not.
  EXPECT_EQ(wavesOf(ki, "block=i:4,j:16 fold=i:4,j:4 stage=k:64 cache=A,B unroll=k:32", hw)[0], 4);
  EXPECT_EQ(wavesOf(ki, "block=i:4,j:16 fold=i:4,j:4 cache=A unroll=k:16", hw)[0], 4);
}

namespace {

/// Each access's elements a shared read instruction loads, and its count per thread.
std::vector<std::pair<int64_t, double>> vectorsOf(const KernelInfo &ki, const std::string &layoutText,
                                                  const hw::HwSpec &hw) {
  auto l = parseLayout(ki, layoutText, hw);
  auto c = characterize(ki, l, hw);
  std::vector<std::pair<int64_t, double>> v;
  for (const auto &u : c.accesses)
    v.emplace_back(u.sharedVectorElems, u.insts);
  return v;
}

KernelInfo rowTimesColumn(const std::string &elem, const std::string &aRead) {
  return analyzeKernel(skeleton::parseSkeleton("#define N 1024\n" + elem + " A[N][N]\n" + elem + " B[N][N]\n" +
                                                   elem + " C[N][N]\nparallel_for(N, N) : i, j {\n"
                                                   "  stream k = 0:N - 4 {\n    ld " + aRead +
                                                   "\n    ld B[k][j]\n    comp 2\n  }\n  st C[i][j]\n}\n",
                                               "rc.skel"),
                       0);
}

} // namespace

TEST(SharedWavefronts, ARowWalkedFourFloatsAReadIsOneLds128) {
  // As mm_acc's `block=i:32,j:8 stage=k:64 cache=A,B` (the H200's SASS:
  // A[i][k] as 16 LDS.128 a stage, B[k][j] as 64 LDS), staged by 68. A warp
  // is 8 j x 4 i. A[i][k]: k walks the tile's rows, 4 floats a read: 1020 / 4
  // = 255 reads a thread; each quarter-warp pass reads one row's 16 bytes (a
  // broadcast): 4 passes, 4 wavefronts (scalar: 1020 reads of 1, the 4 rows
  // 68 words apart in 4 banks). B[k][j]: k moves the row: scalar, 1020 reads, 1.
  auto hw = spec("h200");
  auto ki = rowTimesColumn("float", "A[i][k]");
  const std::string staged = "block=i:32,j:8 stage=k:68 cache=A,B";
  auto v = vectorsOf(ki, staged, hw);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].first, 4) << "A[i][k]";
  EXPECT_DOUBLE_EQ(v[0].second, 255);
  EXPECT_EQ(v[1].first, 1) << "B[k][j]";
  EXPECT_DOUBLE_EQ(v[1].second, 1020);
  auto w = wavesOf(ki, staged, hw);
  EXPECT_EQ(w[0], 4);
  EXPECT_EQ(w[1], 1);
  // Doubles: two a read, a half-warp a pass (2 x 1): 510 reads of 2 wavefronts.
  auto d = vectorsOf(rowTimesColumn("double", "A[i][k]"), staged, hw);
  EXPECT_EQ(d[0].first, 2);
  EXPECT_DOUBLE_EQ(d[0].second, 510);
  // A[i][k + 1] alone: the tile starts at the first element read, so it is
  // aligned alike. Not joined: beside A[i][k] it widens the tile's rows to 69
  // floats, which do not start on 16 bytes (and its lanes start one element
  // off); a loop the layout unrolls by 2 (the body holds no 4 iterations); a
  // stage of 66 (not a whole number of vectors).
  EXPECT_EQ(vectorsOf(rowTimesColumn("float", "A[i][k + 1]"), staged, hw)[0].first, 4);
  auto both = vectorsOf(rowTimesColumn("float", "A[i][k]\n    ld A[i][k + 1]"), staged, hw);
  EXPECT_EQ(both[0].first, 1);
  EXPECT_EQ(both[1].first, 1);
  EXPECT_EQ(vectorsOf(ki, "block=i:32,j:8 stage=k:68 cache=A,B unroll=k:2", hw)[0].first, 1);
  EXPECT_EQ(vectorsOf(ki, "block=i:32,j:8 stage=k:66 cache=A,B", hw)[0].first, 1);
  // Unstaged and not unrolled: emit keeps the loop rolled (`#pragma unroll 1`),
  // one LDS an iteration.
  EXPECT_EQ(vectorsOf(ki, "block=i:32,j:8 cache=A", hw)[0].first, 1);
  EXPECT_EQ(vectorsOf(ki, "block=i:32,j:8 cache=A unroll=k:4", hw)[0].first, 4);
  // An outer loop in the last subscript, A[i][k + r]: its r = 1 moves every
  // read one element off 16 bytes.
  auto outer = analyzeKernel(skeleton::parseSkeleton("#define N 1024\nfloat A[N][N]\nfloat C[N][N]\n"
                                                     "parallel_for(N, N) : i, j {\n  for r = 0:4 {\n"
                                                     "    stream k = 0:N - 4 {\n      ld A[i][k + r]\n"
                                                     "      comp 2\n    }\n  }\n  st C[i][j]\n}\n",
                                                     "outer.skel"),
                             0);
  EXPECT_EQ(vectorsOf(outer, "block=i:32,j:8 stage=k:68 cache=A", hw)[0].first, 1);
}

namespace {

// A blocked LU factorization's interior update, as the skeletonizer writes
// it from C: the block's row and column from the chunk index by `/` and `%`
// (not affine), its tiles read along i and j. Its footprints are enumerated
// point by point.
const char *kBlockedLu = R"(#define S 96
#define BS 16
#define C 5
#define OFF 16
float a[S][S]
parallel_for(C * C) : c {
  for i = 0:BS {
    for j = 0:BS {
      ld a[i + OFF][j + (OFF + BS * (1 + c % C))]
      ld a[i + (OFF + BS * (1 + c / C))][OFF + j]
    }
  }
  for i = 0:BS {
    for j = 0:BS {
      ld a[i + (OFF + BS * (1 + c / C))][j + (OFF + BS * (1 + c % C))]
      st a[i + (OFF + BS * (1 + c / C))][j + (OFF + BS * (1 + c % C))]
    }
  }
}
)";

} // namespace

// The enumeration moves the variable that the fewest parts of the subscripts
// depend on fastest and recomputes only what depends on a moved variable
// (CompiledIndex::update): the counts must be those of evaluating every point
// whole, over random chunk sets and tiles.
TEST(Footprint, DivisionAndModuloSubscriptsMatchBruteForce) {
  KernelInfo ki = analyzeKernel(skeleton::parseSkeleton(kBlockedLu, "lu.skel"), 0);
  ASSERT_EQ(ki.accesses.size(), 4u);
  for (const auto &a : ki.accesses)
    ASSERT_TRUE(a.index[0].kind == IndexForm::Kind::Computable || a.index[1].kind == IndexForm::Kind::Computable)
        << "a subscript with / or % is computed at each point, not bounded";
  std::mt19937 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 200; ++trial) {
    IterSet s(ki.vars.size());
    int64_t stride = pick(1, 3), count = pick(1, 25 / stride);
    s[0] = {pick(0, 25 - stride * count), count, stride}; // chunks
    for (size_t v = 1; v < ki.vars.size(); ++v)
      s[v] = {pick(0, 8), pick(1, 8), 1}; // a tile's rows and columns
    SCOPED_TRACE(trial);
    std::vector<const AccessInfo *> all;
    std::set<int64_t> seen;
    for (const auto &a : ki.accesses) {
      EXPECT_DOUBLE_EQ(footprint(ki, {&a}, s).size, bruteForceOffsets(ki, a, s));
      all.push_back(&a);
    }
    // The union of all four, by brute force over every variable.
    std::vector<int64_t> t(s.size(), 0), vals(s.size());
    for (;;) {
      for (size_t v = 0; v < s.size(); ++v)
        vals[v] = s[v].start + t[v] * s[v].stride;
      for (const auto *a : all)
        seen.insert(*evalIndex(ki, a->index[0].expr, vals) * 96 + *evalIndex(ki, a->index[1].expr, vals));
      size_t v = 0;
      while (v < s.size() && ++t[v] >= s[v].count)
        t[v++] = 0;
      if (v == s.size())
        break;
    }
    EXPECT_DOUBLE_EQ(footprint(ki, all, s).size, static_cast<double>(seen.size()));
  }
}
