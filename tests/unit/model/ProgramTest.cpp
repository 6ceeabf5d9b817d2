// Programs: dataflow, transfers and fusion on cases worked by hand.
#include "skelcast/model/Program.h"
#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Fuse.h"
#include "skelcast/skeleton/Parser.h"
#include "skelcast/skeleton/Printer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace skelcast;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

model::ProgramProjection program(const std::string &text, model::ProgramOptions po = {},
                                 const model::ModelOptions &mo = {}) {
  auto f = skeleton::parseSkeleton(text, "p.skel");
  std::vector<model::KernelProjection> kps;
  for (const auto &ki : model::analyzeProgram(f))
    kps.push_back(model::projectKernel(ki, h100(), {}, mo));
  return model::projectProgram(f, kps, h100(), {}, mo, po);
}

double reuseOf(const layout::KernelInfo &ki, const std::string &array) {
  return ki.arrays[static_cast<size_t>(ki.arrayIndex(array))].programReuseBytes;
}

const char *kChain = R"(#define N 1048576
float a[N]
float c[N]
float o[N]

parallel_for first(N) : i {
  ld a[i]
  comp 10
  st c[i]
}

parallel_for second(N) : k {
  ld c[k]
  comp 5
  st o[k]
}
)";

/// repeat 4 { k0: a -> b; k1: b -> c } with b a temporary: a pair that fuses
/// inside its repeat.
const char *kFusablePair = R"(#define N 262144
in float a[N]
float b[N]
out float c[N]
repeat 4 {
  parallel_for k0(N) : i {
    ld a[i]
    comp 8
    st b[i]
  }
  parallel_for k1(N) : i {
    ld b[i]
    comp 8
    st c[i]
  }
}
)";

} // namespace

TEST(Program, TransferIsLatencyPlusBytesOverBandwidth) {
  auto hw = h100();
  hw.hostLink->h2dPageableCurve.clear();
  const auto &h = *hw.hostLink;
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 4e6, true, false), h.latencyUs / 1000 + 4e6 / (h.h2dPageableGBps * 1e6));
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 4e6, false, true), h.latencyUs / 1000 + 4e6 / (h.d2hPinnedGBps * 1e6));
}

TEST(Program, PageableCopiesFollowTheMeasuredCurve) {
  // Points (1 MB, 0.1 ms), (4 MB, 0.4 ms), (16 MB, 2 ms): 2.5 MB lies half way
  // between the first two (0.25 ms); 32 MB is twice the last (4 ms); below the
  // curve, and for pinned memory, the fit applies.
  auto hw = h100();
  auto &h = *hw.hostLink;
  h.h2dPageableCurve = {{1e6, 0.1}, {4e6, 0.4}, {16e6, 2.0}};
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 2.5e6, true, false), 0.25);
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 4e6, true, false), 0.4);
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 32e6, true, false), 4.0);
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 1e5, true, false), h.latencyUs / 1000 + 1e5 / (h.h2dPageableGBps * 1e6));
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 4e6, true, true), h.latencyUs / 1000 + 4e6 / (h.h2dPinnedGBps * 1e6));
  h.d2hPageableCurve.clear();
  EXPECT_DOUBLE_EQ(model::transferMs(hw, 4e6, false, false), h.latencyUs / 1000 + 4e6 / (h.d2hPageableGBps * 1e6));
}

TEST(Program, DataflowWithoutMarks) {
  // a is read before any kernel writes it: it goes to the GPU; c and o are
  // written: both come back (without marks every array written is needed).
  auto p = program(kChain);
  ASSERT_EQ(p.h2d.size(), 1u);
  EXPECT_EQ(p.h2d[0].array, "a");
  EXPECT_DOUBLE_EQ(p.h2d[0].bytes, 4.0 * 1048576);
  ASSERT_EQ(p.d2h.size(), 2u);
  EXPECT_EQ(p.d2h[0].array, "c");
  EXPECT_EQ(p.d2h[1].array, "o");
  EXPECT_NEAR(p.totalMs, p.h2dMs + p.kernelsMs + p.d2hMs, 1e-12);
}

TEST(Program, MarksNarrowWhatCrosses) {
  std::string marked = kChain;
  marked.replace(marked.find("float a"), 7, "in float a");
  marked.replace(marked.find("float o"), 7, "out float o");
  auto p = program(marked);
  ASSERT_EQ(p.d2h.size(), 1u); // c is a device temporary now
  EXPECT_EQ(p.d2h[0].array, "o");
  // c is dead after the pair: the fused kernel never writes it.
  ASSERT_EQ(p.fusion.size(), 1u);
  EXPECT_EQ(p.fusion[0].kernels, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(p.fusion[0].launchesSaved, 1);
  EXPECT_NEAR(p.fusion[0].bytesSaved, 2 * 4.0 * 1048576, 1.0); // c written and read back
}

TEST(Program, FusionKeepsIntermediatesInRegistersAndDropsDeadStores) {
  auto f = skeleton::parseSkeleton(kChain, "p.skel");
  auto r = skeleton::fuseKernels(f, f.kernels[0], f.kernels[1], {"c"});
  ASSERT_TRUE(r.fused) << r.whyNot;
  EXPECT_EQ(r.registerLoads, std::vector<std::string>{"c"});
  EXPECT_EQ(r.droppedStores, std::vector<std::string>{"c"});
  // The consumer's index k became the producer's i.
  std::string body;
  for (const auto &s : r.fused->body)
    if (s.kind == skeleton::Stmt::Kind::Mem)
      body += (s.mem.isStore ? "st " : "ld ") + s.mem.array + "[" + skeleton::printExpr(s.mem.index[0]) + "] ";
  EXPECT_EQ(body, "ld a[i] st o[i] ");
}

TEST(Program, FusionRecomputesAHalo) {
  auto f = skeleton::parseSkeleton(R"(#define N 1024
float a[N]
float c[N]
float o[N]
parallel_for p(N) : i {
  ld a[i]
  comp 4
  st c[i]
}
parallel_for q(1:N - 1) : i {
  ld c[i - 1]
  ld c[i + 1]
  comp 2
  st o[i]
}
)",
                                   "h.skel");
  auto r = skeleton::fuseKernels(f, f.kernels[0], f.kernels[1], {"c"});
  ASSERT_TRUE(r.fused) << r.whyNot;
  EXPECT_EQ(r.recomputedCopies, 2); // the producer's body at i - 1 and at i + 1
  // The consumer covers 1022 of the producer's 1024 points: a branch of that probability.
  ASSERT_EQ(r.fused->body.back().kind, skeleton::Stmt::Kind::Branch);
  EXPECT_DOUBLE_EQ(r.fused->body.back().branch.prob, 1022.0 / 1024.0);
}

TEST(Program, FusionRefusesWhatItCannotDo) {
  auto f = skeleton::parseSkeleton(R"(#define N 1024
float a[N]
float c[N]
float o[N][N]
parallel_for p(N) : i {
  ld a[i]
  st c[i]
}
parallel_for q(N, N) : i, j {
  ld c[j]
  st o[i][j]
}
)",
                                   "r.skel");
  auto r = skeleton::fuseKernels(f, f.kernels[0], f.kernels[1], {});
  EXPECT_FALSE(r.fused);
  EXPECT_EQ(r.whyNot, "the loop spaces have different dimensions");
}

TEST(Program, VerdictAndBreakEven) {
  const char *steps = R"(#define N 4096
#define T 100
in float t[N][N]
out float r[N][N]
repeat T {
  parallel_for step(N, N) : i, j {
    ld t[i][j]
    comp 20
    st r[i][j]
  }
}
)";
  model::ProgramOptions po;
  po.cpuMs = 1e4; // a slow CPU: the port pays
  auto fast = program(steps, po);
  EXPECT_EQ(fast.verdict, "port");
  EXPECT_NEAR(*fast.speedup, 1e4 / fast.totalMs, 1e-9);
  po.cpuMs = fast.totalMs * 0.5; // the CPU wins this run ...
  auto slow = program(steps, po);
  EXPECT_EQ(slow.verdict, "do not port");
  EXPECT_NE(slow.reason.find("transfers dominate"), std::string::npos) << slow.reason;
  // ... but the transfers are paid once: per repeat the GPU is faster.
  ASSERT_TRUE(slow.breakEvenRepeats.has_value());
  double perRepeatCpu = *po.cpuMs / 100, perRepeatGpu = slow.kernels[0].timeMs;
  EXPECT_DOUBLE_EQ(*slow.breakEvenRepeats,
                   std::ceil((slow.h2dMs + slow.d2hMs) / (perRepeatCpu - perRepeatGpu)));
}

TEST(Program, ReuseDistancesInFileOrder) {
  // first: a -> c; second: c -> o (4 MB each). c was last used by `first`,
  // which touched a and c; `second` touches c and o: 12 MB in all. a and o
  // have no earlier user.
  auto infos = model::analyzeProgram(skeleton::parseSkeleton(kChain, "p.skel"));
  const double mb4 = 4.0 * 1048576;
  EXPECT_EQ(reuseOf(infos[0], "a"), -1);
  EXPECT_EQ(reuseOf(infos[0], "c"), -1);
  EXPECT_DOUBLE_EQ(reuseOf(infos[1], "c"), 3 * mb4);
  EXPECT_EQ(reuseOf(infos[1], "o"), -1);
}

TEST(Program, ReuseDistancesWrapRoundARepeat) {
  // Stepped twice or more, the kernel follows itself: t, p and o (1 MB each)
  // are all reused at a distance of 3 MB. Stepped once, nothing is reused.
  const char *steps = R"(#define N 262144
#define T %s
in float t[N]
in float p[N]
out float o[N]
repeat T {
  parallel_for(N) : i {
    ld t[i]
    ld p[i]
    comp 4
    st o[i]
  }
}
)";
  char text[512];
  std::snprintf(text, sizeof text, steps, "10");
  auto ten = model::analyzeProgram(skeleton::parseSkeleton(text, "p.skel"));
  for (const char *a : {"t", "p", "o"})
    EXPECT_DOUBLE_EQ(reuseOf(ten[0], a), 3.0 * 1048576) << a;
  std::snprintf(text, sizeof text, steps, "1");
  auto once = model::analyzeProgram(skeleton::parseSkeleton(text, "p.skel"));
  EXPECT_EQ(reuseOf(once[0], "t"), -1);
}

TEST(Program, ReuseDistancesInARepeatOfSeveralKernelsAndAfterIt) {
  // repeat 5 { k0: a -> b; k1: b -> c }, then k2: c -> d (1 MB each). In the
  // steady state k0's a was last used by k0 one pass earlier: a, b (k0) and c
  // (k1) lie between: 3 MB; k1's b comes from k0: a, b, c = 3 MB; k2's c from
  // k1's last pass: b, c, d = 3 MB; d has no earlier user.
  const char *text = R"(#define N 262144
in float a[N]
float b[N]
float c[N]
out float d[N]
repeat 5 {
  parallel_for k0(N) : i {
    ld a[i]
    st b[i]
  }
  parallel_for k1(N) : i {
    ld b[i]
    st c[i]
  }
}
parallel_for k2(N) : i {
  ld c[i]
  st d[i]
}
)";
  auto f = skeleton::parseSkeleton(text, "p.skel");
  auto infos = model::analyzeProgram(f);
  const double mb = 1048576;
  EXPECT_DOUBLE_EQ(reuseOf(infos[0], "a"), 3 * mb);
  EXPECT_DOUBLE_EQ(reuseOf(infos[0], "b"), 3 * mb); // k1 reads b, then k0 writes it again
  EXPECT_DOUBLE_EQ(reuseOf(infos[1], "b"), 3 * mb);
  EXPECT_DOUBLE_EQ(reuseOf(infos[2], "c"), 3 * mb);
  EXPECT_EQ(reuseOf(infos[2], "d"), -1);
  // One kernel analyzed alone gets the same distances.
  EXPECT_DOUBLE_EQ(reuseOf(model::analyzeProgramKernel(f, 2), "c"), 3 * mb);
}

TEST(Program, ResidentArraysMoveNoDramBytes) {
  // kChain's `second` on the H100: c (4 MB, reuse distance 12 MB) is in the
  // 50 MB L2, so only the store of o moves DRAM bytes: 4 per thread, against
  // 8 when c's load is also counted (term residency off).
  auto f = skeleton::parseSkeleton(kChain, "p.skel");
  auto infos = model::analyzeProgram(f);
  auto hw = h100();
  auto l = layout::parseLayout(infos[1], "block=k:256", hw);
  model::ModelOptions on, off;
  off.model = model::parseModelSpec("skelcast", {"residency"});
  auto with = model::projectLayout(infos[1], l, hw, on);
  auto without = model::projectLayout(infos[1], l, hw, off);
  EXPECT_DOUBLE_EQ(with.effects.dramBytesPerThread, 4.0);
  EXPECT_DOUBLE_EQ(without.effects.dramBytesPerThread, 8.0);
  EXPECT_DOUBLE_EQ(with.effects.effectiveLatencyCycles, hw.l2LatencyCycles);
  // Beyond the L2 the distance does not help.
  infos[1].arrays[static_cast<size_t>(infos[1].arrayIndex("c"))].programReuseBytes =
      static_cast<double>(hw.l2CacheBytes) + 1;
  EXPECT_DOUBLE_EQ(model::projectLayout(infos[1], l, hw, on).effects.dramBytesPerThread, 8.0);
}

TEST(Program, LaunchesAfterTheFirstAreQueued) {
  // Two kernels, each launched once: the second launch costs the back-to-back
  // time, so kernels_ms = t_first + t_second - (launch alone - back to back).
  auto hw = h100();
  ASSERT_LT(hw.launchBackToBackUs, hw.launchOverheadUs);
  auto f = skeleton::parseSkeleton(kChain, "p.skel");
  std::vector<model::KernelProjection> kps;
  for (const auto &ki : model::analyzeProgram(f))
    kps.push_back(model::projectKernel(ki, hw, {}, {}));
  model::ProgramOptions po;
  auto p = model::projectProgram(f, kps, hw, {}, {}, po);
  double x = (hw.launchOverheadUs - hw.launchBackToBackUs) / 1000;
  double alone = kps[0].layouts.front().result.timeMs + kps[1].layouts.front().result.timeMs;
  EXPECT_NEAR(p.kernelsUnfusedMs, alone - x, 1e-12);
  EXPECT_NEAR(p.kernels[1].timeMs, kps[1].layouts.front().result.timeMs - x, 1e-12);
  EXPECT_NEAR(p.kernels[1].launchMs, hw.launchBackToBackUs / 1000, 1e-12);
  // The fusion group's unfused pass runs alone: its first launch is not queued.
  ASSERT_EQ(p.fusion.size(), 1u);
  EXPECT_NEAR(p.fusion[0].unfusedMs, alone - x, 1e-12);
}

TEST(Program, TheFusedKernelKeepsItsRepeat) {
  // repeat 4 { k0: a -> b; k1: b -> c } with b a temporary: the fused kernel
  // replaces both inside the repeat, so in its steady state it reads a (1 MB)
  // from L2, and its projection is faster with the residency term than without.
  const char *text = kFusablePair;
  model::ModelOptions off;
  off.model = model::parseModelSpec("skelcast", {"residency"});
  auto with = program(text), without = program(text, {}, off);
  ASSERT_EQ(with.fusion.size(), 1u);
  ASSERT_EQ(without.fusion.size(), 1u);
  EXPECT_LT(with.fusion[0].fusedMs, without.fusion[0].fusedMs);
}

TEST(Program, TheFusedKernelsReuseDistancesAreThoseOfTheFusedProgram) {
  // The fused kernel is projected in the program with the group replaced by
  // it: repeat 4 { fused: a -> c }. Built here by hand from fuseKernels, its
  // steady state re-reads a after touching a and c (1 MB each): 2 MB, and its
  // projection is the fused time projectProgram reports.
  const char *text = kFusablePair;
  auto f = skeleton::parseSkeleton(text, "p.skel");
  auto r = skeleton::fuseKernels(f, f.kernels[0], f.kernels[1], {"b"});
  ASSERT_TRUE(r.fused) << r.whyNot;
  skeleton::SkeletonFile byHand = f;
  byHand.kernels = {*r.fused};
  byHand.repeats[0].kernels = {0};
  auto infos = model::analyzeProgram(byHand);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_DOUBLE_EQ(reuseOf(infos[0], "a"), 2 * 4.0 * 262144);
  auto p = program(text);
  ASSERT_EQ(p.fusion.size(), 1u);
  auto kp = model::projectKernel(infos[0], h100(), {}, {});
  ASSERT_FALSE(kp.layouts.empty());
  EXPECT_DOUBLE_EQ(p.fusion[0].fusedMs, kp.layouts.front().result.timeMs);
}

namespace {
// A time-step loop whose host code reads a small array every step (a
// convergence test) and, in a second form, updates the input every step.
const char *kHostReads = R"(#define N 1048576
in float a[N]
out float b[N]
float e[4]
repeat 10 {
  parallel_for k(N) : i {
    ld a[i]
    comp 4
    st b[i]
    st e[i % 4]
  }
  host reads e
}
)";
} // namespace

TEST(Program, AHostStepInARepeatCopiesEachPass) {
  // a: to the GPU once, before its first use. e: the kernel writes it each
  // pass and the host reads it: back each pass (10 x 16 B); e is no output,
  // so nothing more at the end. b: back once at the end.
  auto hw = h100();
  auto p = program(kHostReads);
  ASSERT_EQ(p.h2d.size(), 1u);
  EXPECT_EQ(p.h2d[0].array, "a");
  EXPECT_EQ(p.h2d[0].count, 1);
  EXPECT_FALSE(p.h2d[0].byHost);
  ASSERT_EQ(p.d2h.size(), 2u);
  EXPECT_EQ(p.d2h[0].array, "e");
  EXPECT_EQ(p.d2h[0].count, 10);
  EXPECT_TRUE(p.d2h[0].byHost);
  EXPECT_TRUE(p.d2h[0].eachRepeat);
  EXPECT_DOUBLE_EQ(p.d2h[0].bytes, 16);
  EXPECT_EQ(p.d2h[1].array, "b");
  EXPECT_EQ(p.d2h[1].count, 1);
  const double mb4 = 4.0 * 1048576;
  EXPECT_DOUBLE_EQ(p.h2dMs, model::transferMs(hw, mb4, true, false));
  EXPECT_DOUBLE_EQ(p.d2hMs, 10 * model::transferMs(hw, 16, false, false) +
                                model::transferMs(hw, mb4, false, false));
  // The break-even counts e's copy in each repeat: once = a in + b out (and
  // the first launch's extra time), per repeat = the kernel + e back.
  model::ProgramOptions po;
  po.cpuMs = p.totalMs * 0.5;
  auto slow = program(kHostReads, po);
  ASSERT_TRUE(slow.breakEvenRepeats.has_value());
  double once = model::transferMs(hw, mb4, true, false) + model::transferMs(hw, mb4, false, false) +
                (hw.launchOverheadUs - hw.launchBackToBackUs) / 1000;
  double perRepeatGpu = slow.kernels[0].timeMs + model::transferMs(hw, 16, false, false);
  EXPECT_DOUBLE_EQ(*slow.breakEvenRepeats, std::ceil(once / (*po.cpuMs / 10 - perRepeatGpu)));
}

TEST(Program, AHostUpdateInARepeatCopiesTheArrayBackToTheGpu) {
  // `host writes a` after the kernel: the kernel never wrote a, so the host
  // needs nothing back; the next pass's kernel needs the host's a: 9 copies
  // for the host, after the first one before the loop. The last update is
  // followed by no kernel: no copy.
  std::string text = kHostReads;
  text.replace(text.find("host reads e"), 12, "host writes a");
  auto p = program(text);
  ASSERT_EQ(p.h2d.size(), 2u);
  EXPECT_EQ(p.h2d[0].array, "a");
  EXPECT_EQ(p.h2d[0].count, 1);
  EXPECT_FALSE(p.h2d[0].byHost);
  EXPECT_EQ(p.h2d[1].array, "a");
  EXPECT_EQ(p.h2d[1].count, 9);
  EXPECT_TRUE(p.h2d[1].byHost);
  EXPECT_TRUE(p.h2d[1].eachRepeat);
  ASSERT_EQ(p.d2h.size(), 1u);
  EXPECT_EQ(p.d2h[0].array, "b");
}

TEST(Program, AHostUpdateOfAnArrayTheGpuWroteFetchesItFirst) {
  // `host writes b` between two kernels, b written by the first: the host
  // needs the device's b first (the update changes some elements), and the
  // second kernel, which reads b, needs the host's b after it.
  const char *text = R"(#define N 1024
in float a[N]
out float c[N]
float b[N]
parallel_for k0(N) : i {
  ld a[i]
  st b[i]
}
host writes b
parallel_for k1(N) : i {
  ld b[i]
  st c[i]
}
)";
  auto p = program(text);
  ASSERT_EQ(p.h2d.size(), 2u);
  EXPECT_EQ(p.h2d[1].array, "b");
  EXPECT_TRUE(p.h2d[1].byHost);
  ASSERT_EQ(p.d2h.size(), 2u);
  EXPECT_EQ(p.d2h[0].array, "b");
  EXPECT_TRUE(p.d2h[0].byHost);
  EXPECT_EQ(p.d2h[1].array, "c");
  // The host step stands between the kernels: they are not fused.
  EXPECT_TRUE(p.fusion.empty());
  ASSERT_EQ(p.notFused.size(), 1u);
  EXPECT_NE(p.notFused[0].find("the host writes 'b' between them"), std::string::npos) << p.notFused[0];
}

TEST(Program, AHostReadAfterTheLastWriteSavesTheCopyAtTheEnd) {
  // Without marks o is an output; the host step already brought it back after
  // its last write, so the end copies nothing more.
  std::string text = kChain;
  text += "host reads o\n";
  auto p = program(text);
  // In the order of the copies: o for the host step, then c at the end.
  ASSERT_EQ(p.d2h.size(), 2u);
  EXPECT_EQ(p.d2h[0].array, "o");
  EXPECT_TRUE(p.d2h[0].byHost);
  EXPECT_EQ(p.d2h[0].count, 1);
  EXPECT_EQ(p.d2h[1].array, "c");
  EXPECT_FALSE(p.d2h[1].byHost);
}

namespace {

/// A program of `n` kernels over 12 arrays, with repeats (of 1 and of 3) and
/// fusable neighbours, the same text for the same seed.
std::string generatedProgram(size_t n, unsigned seed) {
  unsigned x = seed;
  auto next = [&](unsigned m) {
    x = x * 1103515245u + 12345u;
    return (x >> 16) % m;
  };
  std::string t = "#define N 4096\n";
  for (int a = 0; a < 12; ++a)
    t += "float A" + std::to_string(a) + "[N]\n";
  size_t k = 0;
  auto kernel = [&] {
    std::string s = "parallel_for k" + std::to_string(k++) + "(N) : i {\n";
    for (unsigned l = 0, loads = 1 + next(3); l < loads; ++l)
      s += "  ld A" + std::to_string(next(12)) + "[i]\n";
    return s + "  comp 2\n  st A" + std::to_string(next(12)) + "[i]\n}\n";
  };
  while (k < n) {
    if (next(6) == 0) {
      t += "repeat " + std::to_string(next(2) ? 3 : 1) + " {\n";
      for (unsigned m = 0, len = 2 + next(4); m < len && k < n; ++m)
        t += kernel();
      t += "}\n";
    } else {
      t += kernel();
    }
  }
  return t;
}

/// The reuse distances as section 9 of docs/model.md defines them, walked back
/// kernel by kernel (what analyzeProgram did before it swept once, issue 17).
std::vector<std::map<std::string, double>> reuseByWalking(const skeleton::SkeletonFile &f) {
  skeleton::MacroTable macros = skeleton::evalMacros(f);
  std::map<std::string, double> bytes;
  for (const auto &a : f.arrays)
    bytes[a.name] = static_cast<double>(skeleton::evalConstExpr(a.extents[0], macros, f.path)) * 4;
  std::vector<std::set<std::string>> used;
  for (const auto &k : f.kernels) {
    used.emplace_back();
    for (const auto &[a, st] : skeleton::memTouches(k.body))
      used.back().insert(a);
  }
  std::vector<int> loop(f.kernels.size(), -1);
  for (size_t r = 0; r < f.repeats.size(); ++r)
    if (skeleton::evalConstExpr(f.repeats[r].count, macros, f.path) >= 2)
      for (size_t k : f.repeats[r].kernels)
        loop[k] = static_cast<int>(r);
  std::vector<std::map<std::string, double>> out(f.kernels.size());
  for (size_t k = 0; k < f.kernels.size(); ++k) {
    std::vector<size_t> before;
    if (loop[k] >= 0) {
      const auto &body = f.repeats[static_cast<size_t>(loop[k])].kernels;
      size_t pos = static_cast<size_t>(std::find(body.begin(), body.end(), k) - body.begin());
      for (size_t d = 1; d <= body.size(); ++d)
        before.push_back(body[(pos + body.size() - d) % body.size()]);
    } else {
      for (size_t j = k; j-- > 0;)
        before.push_back(j);
    }
    for (const auto &array : used[k]) {
      std::set<std::string> touched = used[k];
      for (size_t j : before) {
        touched.insert(used[j].begin(), used[j].end());
        if (!used[j].count(array))
          continue;
        double d = 0;
        for (const auto &a : touched)
          d += bytes[a];
        out[k][array] = d;
        break;
      }
    }
  }
  return out;
}

} // namespace

// The one-pass reuse distances (issue 17, item 2: the walk back made a program of
// n kernels cost n^2) are the walked ones, kernel by kernel and array by array.
TEST(Program, SweptReuseDistancesAreTheWalkedOnes) {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    auto f = skeleton::parseSkeleton(generatedProgram(120, seed), "gen.skel");
    auto walked = reuseByWalking(f);
    auto infos = model::analyzeProgram(f);
    ASSERT_EQ(infos.size(), f.kernels.size());
    size_t compared = 0;
    for (size_t k = 0; k < infos.size(); ++k)
      for (const auto &arr : infos[k].arrays) {
        auto it = walked[k].find(arr.name);
        EXPECT_EQ(arr.programReuseBytes, it == walked[k].end() ? -1 : it->second)
            << "seed " << seed << ", kernel " << k << ", array " << arr.name;
        compared += it != walked[k].end();
      }
    EXPECT_GT(compared, 100u) << "seed " << seed;
    // analyzeProgramKernel, one kernel at a time, agrees.
    EXPECT_EQ(model::analyzeProgramKernel(f, 77).arrays.size(), infos[77].arrays.size());
  }
}

// Device memory (issue 17, item 7): `#define N 9999999999999999` projected two
// 40,000,000,000 MB arrays on an 80 GB H100. A kernel whose arrays do not fit is
// an error (docs/errors.md); a program whose kernels each fit but whose arrays
// together do not gets "do not port" with the figures, whatever the speedup.
TEST(Program, ArraysBeyondTheDeviceMemoryAreNotPorted) {
  std::string text = kSrc.empty() ? "" : std::string(R"(#define N 7500000000
float A[N]
float B[N]
float C[N]
float D[N]
parallel_for first(N) : i {
  ld A[i]
  st B[i]
}
parallel_for second(N) : i {
  ld C[i]
  st D[i]
}
)");
  model::ProgramOptions po;
  po.cpuMs = 1e9;
  model::ProgramProjection p = program(text, po);
  EXPECT_EQ(p.verdict, "do not port");
  EXPECT_EQ(p.reason, "the program needs 120 GB of device memory for its arrays (A 30 GB, B 30 GB, "
                      "C 30 GB, D 30 GB); h100 has 85.02 GB (mem_capacity_bytes)");
  // Half the size fits.
  std::string half = text;
  half.replace(half.find("7500000000"), 10, "3750000000");
  EXPECT_EQ(program(half, po).verdict, "port");
}

TEST(Program, AReductionsResultCrossesTheLinkAndItsKernelIsNotFused) {
  // `host writes s` sets the initial value, the kernel adds into it, `host
  // reads s` brings the sum back: one element each way. The next kernel over
  // the same space is not fused with the reduction.
  const char *text = R"(#define N 1024
in float a[N]
out float c[N]
double s[1]
host writes s
parallel_for sum(N) : i reduce(+: s) {
  ld a[i]
  comp 1
}
host reads s
parallel_for scale(N) : i {
  ld a[i]
  st c[i]
}
parallel_for again(N) : i reduce(max: s) {
  ld c[i]
  comp 1
}
)";
  auto p = program(text);
  bool upS = false, downS = false;
  for (const auto &t : p.h2d)
    upS = upS || t.array == "s";
  for (const auto &t : p.d2h)
    downS = downS || t.array == "s";
  EXPECT_TRUE(upS);
  EXPECT_TRUE(downS);
  EXPECT_TRUE(p.fusion.empty());
  ASSERT_EQ(p.notFused.size(), 2u);
  EXPECT_NE(p.notFused[0].find("sum and scale: 'sum' reduces into 's', complete only when its "
                               "kernel ends"),
            std::string::npos)
      << p.notFused[0];
  EXPECT_NE(p.notFused[1].find("scale and again: 'again' reduces into 's', complete only when its "
                               "kernel ends"),
            std::string::npos)
      << p.notFused[1];
}
