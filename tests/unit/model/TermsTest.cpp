// The table of the skelcast model's terms (ModernTerms.h, docs/model.md
// section 7): its order and names, each term's explain rows, and each term
// alone, switched on by itself, on a case worked by hand. (The terms' sums on
// real kernels are in ModernTermsTest.cpp.)
#include "skelcast/layout/Characterize.h"
#include "skelcast/model/ModernTerms.h"
#include "skelcast/skeleton/Parser.h"

#include <gtest/gtest.h>

#include <set>

using namespace skelcast;
using model::TermId;
using model::termBit;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

hw::HwSpec h100() { return hw::resolveHwSpec("h100", kSrc + "/hwspecs"); }

layout::KernelInfo kernelOf(const std::string &text) {
  return layout::analyzeKernel(skeleton::parseSkeleton(text, "t.skel"), 0);
}

// a = b + c over 2^26 floats: no reuse, every access coalesced.
const char *kTriad = "#define N 67108864\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";

struct Alone {
  layout::Characterization c;
  model::AdjustedInputs a;
};

/// The adjust steps of exactly the terms of `on` on layout `text` of `ki`.
Alone applyOnly(const layout::KernelInfo &ki, const std::string &text, model::TermMask on,
                const hw::HwSpec &hw = h100()) {
  auto l = layout::parseLayout(ki, text, hw);
  Alone r{layout::characterize(ki, l, hw), {{}, hw, {}}};
  model::TermScratch scratch;
  model::applyModernTerms(r.c, ki, l, hw, on, r.a, scratch);
  return r;
}

/// The same with ptxas's registers, stack frame and spill bytes (half of them
/// stores) on the layout.
Alone applySpilled(const layout::KernelInfo &ki, const std::string &text, int registers, int64_t frame,
                   int64_t spill, model::TermMask on, const hw::HwSpec &hw = h100()) {
  auto l = layout::parseLayout(ki, text, hw);
  l.compiledRegisters = registers;
  l.compiledStackBytes = frame;
  l.compiledSpillBytes = spill;
  l.compiledSpillStoreBytes = spill / 2;
  Alone r{layout::characterize(ki, l, hw), {{}, hw, {}}};
  model::TermScratch scratch;
  model::applyModernTerms(r.c, ki, l, hw, on, r.a, scratch);
  return r;
}

model::HongKimResult coreAt(double ms, const std::string &bound) {
  model::HongKimResult r;
  r.timeMs = ms;
  r.bound = bound;
  return r;
}

} // namespace

TEST(Terms, TheTableIsInTermIdOrderWithTheDocumentedNames) {
  const auto &terms = model::skelcastTerms();
  ASSERT_EQ(terms.size(), static_cast<size_t>(TermId::Count));
  const std::vector<std::string> names{"schedulers", "fp64", "jam", "registers", "spills", "mlp", "caches",
                                       "residency",  "walk", "rmw",       "waves",    "longest",
                                       "tail",       "bandwidth", "lsu",    "lines",    "banks", "occupancy", "l2",
                                       "blocks", "chain", "reduction", "overlap", "launch"};
  EXPECT_EQ(model::modernTermNames(), names);
  for (size_t i = 0; i < terms.size(); ++i) {
    EXPECT_EQ(terms[i].id, static_cast<TermId>(i));
    EXPECT_EQ(terms[i].name, names[i]);
    EXPECT_NE(std::string(terms[i].summary), "");
  }
  EXPECT_EQ(model::termMask({"caches", "launch", "no such term"}),
            termBit(TermId::Caches) | termBit(TermId::Launch));
  EXPECT_EQ(model::termMask(std::set<std::string>(names.begin(), names.end())), model::kAllTerms);
}

TEST(Terms, OnlyTheFloorsTheLongestTaskAndTheLaunchActAfterTheCore) {
  std::vector<std::string> settling;
  for (const auto &t : model::skelcastTerms())
    if (t.settle)
      settling.push_back(t.name);
  // longest scales the core's time before the floors compare with it.
  // tail counts the last wave whole, also before the floors.
  EXPECT_EQ(settling, (std::vector<std::string>{"longest", "tail", "bandwidth", "lsu", "l2",
                                                "blocks", "chain", "reduction", "launch"}));
}

TEST(Terms, ExplainRowsComeFromEachTermInTableOrder) {
  model::TermEffects e;
  e.fp64ExtraInsts = 1;
  e.launchMs = 0.005;
  e.lsuFloorMs = 0.25;
  e.loadRegistersPerWait = 16; // mlp on (its rows are absent when it is off)
  std::vector<std::string> rows;
  for (const auto &t : model::skelcastTerms())
    if (t.explain)
      for (const auto &r : t.explain(e))
        rows.push_back(std::string(t.name) + ": " + r.name);
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "fp64: fp64 extra issue", "jam: addresses jammed tasks share", "registers: registers per thread (estimate)",
                      "registers: blocks per SM by registers", "mlp: load registers a wait (estimate)",
      "mlp: load groups per thread", "caches: L1 hit fraction",
                      "caches: L2 hit fraction", "caches: effective Mem_LD",
                      "caches: DRAM bytes per thread", "walk: walk hit fraction",
                      "rmw: read-after-store loads per thread", "rmw: walked loads after a store",
                      "longest: longest task factor",
                      "tail: blocks on the busiest SM", "tail: a block alone (cycles)", "tail: tail factor",
                      "bandwidth: DRAM bandwidth drawn (GB/s)",
                      "bandwidth: DRAM floor (ms)",
                      "bandwidth: departure floor (ms)", "lsu: L1 wavefronts per warp",
                      "lsu: L1 floor (ms)", "l2: L2 traffic (bytes)", "l2: L2 store bytes",
                      "l2: L2 store bytes missed", "l2: L2 floor (ms)",
                      "blocks: block start floor (ms)", "launch: launch (ms)"}));
  auto launch = model::skelcastTerms()[static_cast<size_t>(TermId::Launch)].explain(e);
  ASSERT_EQ(launch.size(), 1u);
  EXPECT_EQ(launch[0].value, 0.005);
  EXPECT_EQ(launch[0].digits, 6);
  auto lsu = model::skelcastTerms()[static_cast<size_t>(TermId::Lsu)].explain(e);
  EXPECT_EQ(lsu[1].value, 0.25);
}

// --- each term alone, before the core ------------------------------------------

TEST(Terms, NoTermLeavesHongKimsInputs) {
  auto ki = kernelOf(kTriad);
  auto r = applyOnly(ki, "block=i:256", 0);
  auto hw = h100();
  EXPECT_EQ(r.a.hw.issueCycles, hw.issueCycles);
  EXPECT_EQ(r.a.hw.maxBlocksPerSM, hw.maxBlocksPerSM);
  EXPECT_EQ(r.a.hw.dramLatencyCycles, hw.dramLatencyCycles);
  EXPECT_EQ(r.a.workload.compInsts, r.c.workload.compInsts);
  EXPECT_EQ(r.a.workload.loadBytesPerWarp, r.c.workload.loadBytesPerWarp);
  EXPECT_EQ(r.a.workload.exposedMemInsts, -1);
  EXPECT_EQ(r.a.workload.exposedLatencyCycles, -1);
  EXPECT_FALSE(r.a.workload.wavesOverlap);
  EXPECT_EQ(r.a.effects.launchMs, 0);
  EXPECT_EQ(r.a.effects.dramFloorMs, 0);
  EXPECT_EQ(r.a.effects.lsuFloorMs, 0);
  EXPECT_EQ(r.a.effects.tailFactor, 0);
}

TEST(Terms, TailAloneWeighsTheBusiestSmsIssueAgainstItsRoundsOfBlocksAlone) {
  // 2^26 / 256 = 262144 blocks of 8 warps, 8 held by an SM (64 warps): the
  // busiest of 132 SMs runs ceil(262144 / 132) = 1986 blocks, where Rep =
  // 262144 / 1056 = 248.24 waves. The triad alone draws its full SM's loads
  // at MWP < N (case 2), so its issue, 1986 / 8 full waves, outlasts its 249
  // rounds of one block alone (W(8) = E + C + C / M x 7, case 1): factor
  // 1986 x 1056 / (8 x 262144). Nothing else of Hong & Kim's inputs moves.
  auto ki = kernelOf(kTriad);
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Tail));
  auto core = model::hongKim(r.a.workload, r.a.hw);
  ASSERT_EQ(core.execCase, 2) << "MWP " << core.mwp << ", CWP " << core.cwp << ", N " << core.n;
  double e = core.memCyclesExposed, c = core.compCycles, m = core.memInsts;
  EXPECT_EQ(r.a.effects.tailBusiestBlocks, 1986);
  EXPECT_DOUBLE_EQ(r.a.effects.tailBlockAloneCycles, e + c + c / m * 7);
  EXPECT_LT(249 * r.a.effects.tailBlockAloneCycles, 1986.0 / 8.0 * model::waveCycles(core, 64));
  EXPECT_DOUBLE_EQ(r.a.effects.tailFactor, 1986.0 * 1056.0 / (8.0 * 262144.0));
  EXPECT_EQ(r.a.workload.compInsts, r.c.workload.compInsts);
  EXPECT_EQ(r.a.hw.maxBlocksPerSM, h100().maxBlocksPerSM);
}

TEST(Terms, TailIsAppliedWhenTheCoreIsLatencyOrComputeBound) {
  model::TermEffects e;
  e.tailFactor = 2112.0 / 1057.0;
  auto latency = coreAt(1.0, "latency");
  model::settleModernTerms(e, termBit(TermId::Tail), latency);
  EXPECT_DOUBLE_EQ(latency.timeMs, 2112.0 / 1057.0);
  auto compute = coreAt(1.0, "compute");
  model::settleModernTerms(e, termBit(TermId::Tail), compute);
  EXPECT_DOUBLE_EQ(compute.timeMs, 2112.0 / 1057.0);
  auto memory = coreAt(1.0, "memory");
  model::settleModernTerms(e, termBit(TermId::Tail), memory);
  EXPECT_EQ(memory.timeMs, 1.0);
}

TEST(Terms, TailOfAComputeBoundSmIsTheMostBlocksAnSmIsGiven) {
  // 2^17 threads in blocks of 256 folded by 4: 2^17 / 1024 = 128 blocks on 132
  // SMs: one each, factor 1. 2^19 / 1024 = 512 blocks: 512 / 132 = 3.8788 a
  // SM, all held at once (N = 31.03 warps, Rep 1); the SM given 4 sets the
  // time. Compute bound (case 3: W(n) = Mem_L + Comp_cycles x n), its issue
  // W(32) is the bound: factor (Mem_L + 32 C) / (Mem_L + 31.03 C), a little
  // under 4 x 132 / 512 = 1.03125 (1.0276).
  auto small = "#define N 131072\nfloat a[N]\nparallel_for(N) : i {\n  comp 40\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(small), "block=i:256 fold=i:4", termBit(TermId::Tail));
  EXPECT_DOUBLE_EQ(r.a.effects.tailFactor, 1.0);
  auto large = "#define N 524288\nfloat a[N]\nparallel_for(N) : i {\n  comp 40\n  st a[i]\n}\n";
  auto q = applyOnly(kernelOf(large), "block=i:256 fold=i:4", termBit(TermId::Tail));
  auto core = model::hongKim(q.a.workload, q.a.hw);
  ASSERT_EQ(core.execCase, 3);
  EXPECT_EQ(q.a.effects.tailBusiestBlocks, 4);
  double n = 512.0 / 132.0 * 8.0;
  EXPECT_NEAR(q.a.effects.tailFactor, (core.memL + 32 * core.compCycles) / (core.memL + n * core.compCycles),
              1e-12);
  EXPECT_LT(q.a.effects.tailFactor, 4.0 * 132.0 / 512.0);
  EXPECT_GT(q.a.effects.tailFactor, 1.02);
}

TEST(Terms, TailOfAComputeBoundSmShowsTheLatencyOfItsLastBlocksAlone) {
  // Blocks of 2 warps, 32 held by an SM (H100's block limit): 132 x 33 blocks
  // give the busiest SM 33, one full round of 32 and one block alone. With a
  // long exposed latency a full SM is compute bound (CWP_full < 64 warps) but
  // a block alone waits it out: W(2) = E + C + C / M, and 2 x W(2) outweighs
  // the issue of 33 / 32 x W(64) = 33 / 32 x (Mem_L + 64 C).
  std::string k = "#define N " + std::to_string(132 * 33 * 64) +
                  "\nfloat a[N]\nfloat b[N]\nparallel_for(N) : i {\n  ld b[i]\n  comp 27\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(k), "block=i:64", termBit(TermId::Tail));
  auto core = model::hongKim(r.a.workload, r.a.hw);
  ASSERT_EQ(core.execCase, 3) << "MWP " << core.mwp << ", CWP " << core.cwp << ", N " << core.n;
  EXPECT_EQ(r.a.effects.tailBusiestBlocks, 33);
  double alone = core.memCyclesExposed + core.compCycles + core.compCycles / core.memInsts;
  double issue = 33.0 / 32.0 * (core.memL + 64 * core.compCycles);
  ASSERT_GT(2 * alone, issue);
  EXPECT_NEAR(r.a.effects.tailFactor, 2 * alone / (core.rep * (core.memL + 64 * core.compCycles)), 1e-12);
}

TEST(Terms, OverlapJoinsAFloorAsTheSmoothMaximum) {
  // p = 6: a core of 1 ms and an L1 floor of 0.9 ms take (1 + 0.9^6)^(1/6) =
  // 1.531441^(1/6) = 1.07362 ms, the core's bound kept; a floor of 2 ms takes
  // 2 x (1 + 0.5^6)^(1/6) = 2 x 1.015625^(1/6) = 2.00517 ms and its bound.
  // Without the exponent (or the term), the larger.
  model::TermEffects e;
  e.boundOverlapExponent = 6;
  e.lsuFloorMs = 0.9;
  auto near = coreAt(1.0, "compute");
  model::settleModernTerms(e, termBit(TermId::Lsu), near);
  EXPECT_NEAR(near.timeMs, 1.07362, 1e-5);
  EXPECT_EQ(near.bound, "compute");
  e.lsuFloorMs = 2.0;
  auto above = coreAt(1.0, "compute");
  model::settleModernTerms(e, termBit(TermId::Lsu), above);
  EXPECT_NEAR(above.timeMs, 2.00517, 1e-5);
  EXPECT_EQ(above.bound, "l1");
  e.boundOverlapExponent = 0;
  auto larger = coreAt(1.0, "compute");
  model::settleModernTerms(e, termBit(TermId::Lsu), larger);
  EXPECT_EQ(larger.timeMs, 2.0);
  // The exponent comes from the spec, only with the term on.
  auto ki = kernelOf(kTriad);
  auto h200 = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  EXPECT_EQ(applyOnly(ki, "block=i:256", termBit(TermId::Overlap), h200).a.effects.boundOverlapExponent, 6.0);
  EXPECT_EQ(applyOnly(ki, "block=i:256", 0, h200).a.effects.boundOverlapExponent, 0.0);
  EXPECT_EQ(applyOnly(ki, "block=i:256", termBit(TermId::Overlap)).a.effects.boundOverlapExponent, 0.0); // h100: absent
}

TEST(Terms, SchedulersAloneDivideOnlyTheIssueCycles) {
  auto hw = h100();
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Schedulers));
  EXPECT_DOUBLE_EQ(r.a.hw.issueCycles, hw.issueCycles / hw.schedulersPerSM);
  EXPECT_EQ(r.a.workload.compInsts, r.c.workload.compInsts);
}

TEST(Terms, RegistersAloneBoundTheBlocksPerSm) {
  // Triad, block=i:256: 16 + 2 x 3 arrays + (2 + 1 store + 2 loads) = 27
  // registers, allocated as 32: a block of 256 threads takes 8192 of the
  // H100's 65536, so 8 blocks.
  auto hw = h100();
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Registers));
  EXPECT_DOUBLE_EQ(r.a.effects.registersPerThread, 27);
  EXPECT_DOUBLE_EQ(r.a.effects.blocksByRegisters, 65536.0 / (32 * 256));
  EXPECT_EQ(r.a.hw.maxBlocksPerSM, std::min(hw.maxBlocksPerSM, 8));
  // A warp's registers sit in one of the 4 sub-partitions (16,384 each): 40
  // registers a thread are 1,280 a warp, 12 warps a sub-partition, 48 an SM:
  // 24 blocks of 64 threads, where the whole file would hold 25 (the device's
  // count for such a program: validation/occupancy_check.py).
  ASSERT_EQ(hw.schedulersPerSM, 4);
  auto quarter = applySpilled(kernelOf(kTriad), "block=i:64", 40, 0, 0, termBit(TermId::Registers));
  EXPECT_DOUBLE_EQ(quarter.a.effects.blocksByRegisters, 24);
}

TEST(Terms, WavesAloneOnlyLetTheWavesOverlap) {
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Waves));
  EXPECT_TRUE(r.a.workload.wavesOverlap);
  EXPECT_EQ(r.a.workload.compInsts, r.c.workload.compInsts);
  EXPECT_EQ(r.a.effects.launchMs, 0);
}

TEST(Terms, ResidencyAloneDoesNothingWithoutCaches) {
  auto ki = kernelOf(kTriad);
  for (auto &arr : ki.arrays)
    arr.programReuseBytes = 1e6;
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Residency));
  EXPECT_EQ(r.a.hw.dramLatencyCycles, h100().dramLatencyCycles);
  EXPECT_EQ(r.a.effects.dramBytesPerThread, 0);
}

TEST(Terms, ResidencyReadsAnArrayAnEarlierKernelLeftInL2FromIt) {
  // The triad with b and c left in L2 by an earlier kernel (reuse distance
  // 1 MB, below the H100's 50 MB): with caches alone every load goes to DRAM,
  // 12 bytes per thread (b, c and the store of a); with residency the loads
  // have r2 = 1 (L2 latency, no DRAM bytes) and only the store's 4 remain.
  auto ki = kernelOf(kTriad);
  for (auto &arr : ki.arrays)
    if (arr.name != "a")
      arr.programReuseBytes = 1e6;
  auto hw = h100();
  auto cachesOnly = applyOnly(ki, "block=i:256", termBit(TermId::Caches));
  EXPECT_DOUBLE_EQ(cachesOnly.a.effects.dramBytesPerThread, 12);
  EXPECT_DOUBLE_EQ(cachesOnly.a.effects.l2HitFraction, 0);
  EXPECT_DOUBLE_EQ(cachesOnly.a.effects.effectiveLatencyCycles, hw.dramLatencyCycles);
  auto resident = applyOnly(ki, "block=i:256", termBit(TermId::Caches) | termBit(TermId::Residency));
  EXPECT_DOUBLE_EQ(resident.a.effects.dramBytesPerThread, 4);
  EXPECT_DOUBLE_EQ(resident.a.effects.l2HitFraction, 8.0 / 12.0);
  EXPECT_DOUBLE_EQ(resident.a.effects.effectiveLatencyCycles, hw.l2LatencyCycles);
  EXPECT_DOUBLE_EQ(resident.a.hw.dramLatencyCycles, hw.l2LatencyCycles);
}

TEST(Terms, BandwidthAloneComputesBothFloors) {
  // Triad without caches: 12 requested bytes per thread over the bandwidth;
  // per SM, warps / SMs x 3 coalesced instructions x Departure_del_coal cycles.
  auto hw = h100();
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Bandwidth));
  double threads = 67108864.0, warps = threads / 32;
  EXPECT_NEAR(r.a.effects.dramFloorMs, 12 * threads / (hw.memBandwidthGBps * 1e6), 1e-12);
  EXPECT_NEAR(r.a.effects.departureFloorMs,
              warps / hw.smCount * 3 * hw.departureDelCoalCycles / (hw.clockGHz * 1e6), 1e-12);
}

TEST(Terms, OccupancyDrawsWhatTheActiveWarpsDraw) {
  // A triad of 2^17 elements in blocks of one warp folded by 8: 512 blocks,
  // fewer than a wave (132 SMs x 32 blocks), so 512 / 132 blocks of one warp
  // per SM: 132 x (512 / 132) x 1 x 3.449 = 512 x 3.449 = 1,765.888 GB/s
  // drawn, below the 3,030.4 of mem_bandwidth_gbps; the floor moves the
  // triad's 12 bytes per element at that rate.
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.dramBwPerWarpGBps, 3.449);
  const char *small = "#define N 131072\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(small), "block=i:32 fold=i:8",
                     termBit(TermId::Bandwidth) | termBit(TermId::Occupancy));
  EXPECT_NEAR(r.a.effects.drawnBandwidthGBps, 1765.888, 1e-9);
  EXPECT_NEAR(r.a.effects.dramFloorMs, 12.0 * 131072 / (1765.888 * 1e6), 1e-12);
  // without the term, the spec's bandwidth
  auto off = applyOnly(kernelOf(small), "block=i:32 fold=i:8", termBit(TermId::Bandwidth));
  EXPECT_DOUBLE_EQ(off.a.effects.drawnBandwidthGBps, hw.memBandwidthGBps);
  // 2^26 elements in blocks of 256: 8 blocks of 8 warps per SM draw
  // 132 x 64 x 3.449 = 29,137 GB/s, above the spec's: the spec's stays
  auto full = applyOnly(kernelOf(kTriad), "block=i:256",
                        termBit(TermId::Bandwidth) | termBit(TermId::Occupancy));
  EXPECT_DOUBLE_EQ(full.a.effects.drawnBandwidthGBps, hw.memBandwidthGBps);
}

TEST(Terms, OccupancyReadsTheBandwidthOfTheBytesInFlightFromTheSpecsCurve) {
  // The H200's dram_gbps_by_bytes_in_flight. The triad of 2^26 floats in
  // blocks of 256: 8 blocks of 8 warps per SM, one load group a thread (b and
  // c) and its store: 64 x 32 x 12 = 24,576 bytes in flight per SM, a point
  // of the curve: 3,615 GB/s, the floor 12 x 2^26 / 3,615e6 ms.
  auto hw = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  ASSERT_FALSE(hw.dramGBpsByBytesInFlight.empty());
  ASSERT_DOUBLE_EQ(hw.dramGBpsAt(24576), 3615);
  auto on = termBit(TermId::Bandwidth) | termBit(TermId::Occupancy);
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", on, hw);
  EXPECT_DOUBLE_EQ(r.a.effects.bytesInFlightPerSM, 24576);
  EXPECT_DOUBLE_EQ(r.a.effects.drawnBandwidthGBps, 3615);
  EXPECT_NEAR(r.a.effects.dramFloorMs, 12.0 * 67108864 / (3615 * 1e6), 1e-12);
  // Between two points, linear: 20,480 bytes (the points 16,384 -> 3,041 and
  // 24,576 -> 3,615) give 3,041 + 0.5 x 574 = 3,328; below the first point, in
  // proportion (one latency): 512 bytes give 304 / 2.
  // With `caches` the waits are in DRAM latencies: the triad hits nowhere, so
  // Mem_LD is DRAM's and one group is one wait, the same 24,576 bytes.
  auto withCaches = applyOnly(kernelOf(kTriad), "block=i:256", on | termBit(TermId::Caches), hw);
  EXPECT_DOUBLE_EQ(withCaches.a.effects.effectiveLatencyCycles, hw.dramLatencyCycles);
  EXPECT_DOUBLE_EQ(withCaches.a.effects.bytesInFlightPerSM, 24576);
  // A 3-point stencil, b[i-1] + b[i] + b[i+1]: its neighbours hit L1, so its
  // one group waits less than a DRAM latency, and the DRAM bytes a warp holds
  // are its DRAM bytes over groups x Mem_LD / dram_latency_cycles.
  const char *stencil = "#define N 67108864\nfloat a[N]\nfloat b[N]\n"
                        "parallel_for(1:N-1) : i {\n  ld b[i-1]\n  ld b[i]\n  ld b[i+1]\n  comp 4\n  st a[i]\n}\n";
  auto st = applyOnly(kernelOf(stencil), "block=i:256", on | termBit(TermId::Caches) | termBit(TermId::Mlp), hw);
  double lat = st.a.effects.effectiveLatencyCycles;
  ASSERT_LT(lat, hw.dramLatencyCycles);
  ASSERT_GT(st.c.loadGroups, 0);
  EXPECT_NEAR(st.a.effects.bytesInFlightPerSM,
              64 * 32 * st.a.effects.dramBytesPerThread / std::max(1.0, st.c.loadGroups * lat / hw.dramLatencyCycles),
              1e-6);
  EXPECT_DOUBLE_EQ(hw.dramGBpsAt(20480), 3328);
  EXPECT_DOUBLE_EQ(hw.dramGBpsAt(512), 152);
  EXPECT_DOUBLE_EQ(hw.dramGBpsAt(1e6), 4213);
  // Folded by 8 in blocks of 32 over 2^17 elements: 512 blocks of one warp on
  // 132 SMs, 3.88 warps per SM with 8 x 12 bytes a thread in flight: 11,916
  // bytes per SM. Every SM is busy: the curve gives 1,856 + (11,916 - 8,192) /
  // 4,096 x 651 = 2,448 GB/s; a spec without dram_warp_wait_cycles_by_requests
  // caps a warp at dram_bw_per_warp_gbps, 512 warps x 3.707 = 1,898: the
  // lower is drawn.
  const char *small = "#define N 131072\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto flat = hw;
  flat.dramWarpWaitCyclesByRequests.clear();
  auto f = applyOnly(kernelOf(small), "block=i:32 fold=i:8", on, flat);
  double inflight = 512.0 / 132.0 * 32 * 96;
  EXPECT_NEAR(f.a.effects.bytesInFlightPerSM, inflight, 1e-9);
  double curve = 1856 + (inflight - 8192) / 4096 * (2507 - 1856);
  EXPECT_NEAR(f.a.effects.drawnBandwidthGBps, std::min(curve, 512 * 3.707), 1e-9);
  EXPECT_EQ(f.a.effects.warpDramGBps, 0);
}

TEST(Terms, OccupancyTakesAWarpsBandwidthFromTheWaitOfItsRequestsInFlight) {
  // Eq. 7.3 on the H200's dram_warp_wait_cycles_by_requests: [[1, 726], [2, 856], [4,
  // 938], [8, 1077], [16, 1286]]. The folded triad above: each warp holds 32 x
  // 96 = 3,072 bytes in flight, 24 requests of 128 bytes, past the last point:
  // 1,286 + 8 x (1,286 - 1,077) / 8 = 1,495 cycles; the warp draws 3,072 /
  // 1,495 x 1.9787 = 4.066 GB/s, its 512 warps 2,081.7 GB/s, below the
  // curve's 2,448 (the test above): that is drawn.
  auto hw = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  ASSERT_EQ(hw.dramWarpWaitCyclesByRequests.size(), 5u);
  ASSERT_DOUBLE_EQ(hw.dramWarpWaitCycles(24), 1495);
  auto on = termBit(TermId::Bandwidth) | termBit(TermId::Occupancy);
  const char *small = "#define N 131072\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto f = applyOnly(kernelOf(small), "block=i:32 fold=i:8", on, hw);
  double perWarp = 32.0 * 96;
  EXPECT_NEAR(f.a.effects.warpDramGBps, perWarp / 1495 * hw.clockGHz, 1e-12);
  EXPECT_NEAR(f.a.effects.drawnBandwidthGBps, 512 * perWarp / 1495 * hw.clockGHz, 1e-9);
  EXPECT_NEAR(f.a.effects.drawnBandwidthGBps, 2081.7, 0.1);
  // A spec with the wait but not the whole GPU's curve: the same bytes in
  // flight, the same warp's bandwidth, nothing else drawn from.
  auto waitOnly = hw;
  waitOnly.dramGBpsByBytesInFlight.clear();
  auto wo = applyOnly(kernelOf(small), "block=i:32 fold=i:8", on, waitOnly);
  EXPECT_NEAR(wo.a.effects.bytesInFlightPerSM, f.a.effects.bytesInFlightPerSM, 1e-9);
  EXPECT_NEAR(wo.a.effects.drawnBandwidthGBps, 512 * perWarp / 1495 * hw.clockGHz, 1e-9);
  // Unfolded, a warp holds 32 x 12 = 384 bytes, 3 requests: 856 + 0.5 x 82 =
  // 897 cycles, 0.847 GB/s a warp; 2^17 / 32 = 4,096 warps, 31 an SM: 3,469
  // GB/s, above the bytes-in-flight curve's 2,448 at 31 x 384 = 11,916 bytes
  // (the same bytes an SM as folded): the curve's is drawn.
  auto u = applyOnly(kernelOf(small), "block=i:32", on, hw);
  EXPECT_NEAR(u.a.effects.warpDramGBps, 384.0 / 897 * hw.clockGHz, 1e-12);
  EXPECT_NEAR(u.a.effects.drawnBandwidthGBps, hw.dramGBpsAt(u.a.effects.bytesInFlightPerSM), 1e-9);
}

TEST(Terms, OccupancyWithFewSmsBusySolvesLittlesLawAtTheLatencyOfTheirLoad) {
  // 66 of 132 SMs busy (66 blocks of 1,024 threads, 2^16 threads) with 32
  // warps x 12 bytes x 32 = 12,288 bytes in flight each. On the curve the
  // latency at B GB/s is x x 132 / y ns: 1,024 x 132 / 304 = 444.6 ns at the
  // first point. Half the SMs draw less than the whole GPU would, 2,507 x
  // 66 / 132, at a latency no higher: B = 66 x 12,288 / latency(B), which the
  // bisection solves to within 1e-6 of itself.
  auto hw = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  const char *half = "#define N 67584\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(half), "block=i:1024", termBit(TermId::Bandwidth) | termBit(TermId::Occupancy), hw);
  ASSERT_DOUBLE_EQ(r.a.effects.bytesInFlightPerSM, 12288);
  double b = r.a.effects.drawnBandwidthGBps;
  EXPECT_GT(b, 2507.0 * 66 / 132);
  EXPECT_LT(b, 2507.0);
  // the latency at b, read off the curve's points by hand (b between which two?)
  const auto &c = hw.dramGBpsByBytesInFlight;
  size_t k = 1;
  while (c[k].second < b)
    ++k;
  double l0 = c[k - 1].first * 132 / c[k - 1].second, l1 = c[k].first * 132 / c[k].second;
  double lat = l0 + (b - c[k - 1].second) / (c[k].second - c[k - 1].second) * (l1 - l0);
  EXPECT_NEAR(b, 66 * 12288 / lat, 1e-6);
}

TEST(Terms, SpillsMoveThroughL1AndThroughL2OrDramWhereTheStackFramesDoNotFit) {
  // The 2^26 triad in blocks of 256 (8 blocks, 2,048 threads an SM) as if
  // ptxas had spilled 1,000 bytes a thread, 500 of them stores. A 64-byte
  // frame: 2,048 x 64 = 131,072 bytes an SM, within the H100's 262,144 of L1
  // (no shared memory): the loads stay in L1, the stores go on to L2 (L1
  // writes them through); 1,000 / 4 = 250 more wavefronts a warp.
  auto on = termBit(TermId::Spills) | termBit(TermId::Caches) | termBit(TermId::Bandwidth) |
            termBit(TermId::L2) | termBit(TermId::Lsu);
  auto ki = kernelOf(kTriad);
  double threads = 67108864.0;
  auto l1 = applySpilled(ki, "block=i:256", 32, 64, 1000, on);
  EXPECT_DOUBLE_EQ(l1.a.effects.spillFootprintPerSM, 2048.0 * 64);
  EXPECT_DOUBLE_EQ(l1.a.effects.spillStoreL2Bytes, 500 * threads);
  EXPECT_DOUBLE_EQ(l1.a.effects.spillL2Bytes, 500 * threads);
  EXPECT_EQ(l1.a.effects.spillDramBytes, 0);
  auto none = applySpilled(ki, "block=i:256", 32, 0, 0, on);
  EXPECT_DOUBLE_EQ(l1.a.effects.l1WavefrontsPerWarp, none.a.effects.l1WavefrontsPerWarp + 250);
  // they pass L2 beside the triad's own 12 bytes an element (the H100's spec
  // has no store rate of its own: every byte at l2_bandwidth_gbps)
  ASSERT_EQ(h100().l2StoreBandwidthGBps, 0);
  EXPECT_NEAR(l1.a.effects.l2FloorMs, (12 + 500) * threads / (h100().l2BandwidthGBps * 1e6), 1e-9);
  // A 256-byte frame: 524,288 bytes an SM, 69 MB on 132 SMs, over the 31.5 MB
  // L2 keeps: every spilled byte through L2 and DRAM, on both floors.
  auto dram = applySpilled(ki, "block=i:256", 32, 256, 1000, on);
  EXPECT_DOUBLE_EQ(dram.a.effects.spillDramBytes, 1000 * threads);
  EXPECT_DOUBLE_EQ(dram.a.effects.spillL2Bytes, 1000 * threads);
  EXPECT_NEAR(dram.a.effects.dramFloorMs - none.a.effects.dramFloorMs,
              1000 * threads / (h100().memBandwidthGBps * 1e6), 1e-9);
  // 64 blocks of 1,024 (2^16 threads) with a 300-byte frame: 307,200 bytes on
  // each of 64 SMs, over L1; 19.7 MB in all, within L2: through L2 only.
  const char *small = "#define N 65536\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto l2 = applySpilled(kernelOf(small), "block=i:1024", 32, 300, 1000, on);
  EXPECT_DOUBLE_EQ(l2.a.effects.spillFootprintPerSM, 1024.0 * 300);
  EXPECT_DOUBLE_EQ(l2.a.effects.spillL2Bytes, 1000 * 65536.0);
  EXPECT_EQ(l2.a.effects.spillDramBytes, 0);
  // Switched off, nothing of it.
  auto off = applySpilled(ki, "block=i:256", 32, 256, 1000, on & ~termBit(TermId::Spills));
  EXPECT_EQ(off.a.effects.spillDramBytes, 0);
  EXPECT_DOUBLE_EQ(off.a.effects.dramFloorMs, none.a.effects.dramFloorMs);
}

TEST(Terms, SpillsWithoutPtxasAreTheAccumulatorsTheLaunchBoundLeavesNoRegisterFor) {
  // small_k_gemm's skeleton (validation/c/small_k_gemm.c): an 8 x 8 register
  // tile carries 64 accumulators across the k loop's 16 iterations. In 1,024
  // threads __launch_bounds__ leaves 65,536 / 1,024 = 64 registers a thread:
  // 64 + 16 address registers - 64 = 16 words spilled, a 64-byte frame; each
  // iteration stores and loads them, 16 x 64 = 1,024 bytes of stores and as
  // many of loads. With the term alone (no `registers`) eq. 8 keeps 2 blocks an
  // SM (2,048 threads): 131,072 bytes of frames beside 2 x 32,768 bytes of
  // shared tiles, within L1: the loads stay there, the stores, 1,024 bytes x
  // 2^20 threads, go on to L2.
  const char *gemm = "#define M 8192\n#define N 8192\n#define K 16\nfloat A[M][K]\nfloat B[K][N]\n"
                     "float C[M][N]\nparallel_for(M, N) : i, j {\n  comp 1\n  for k = 0:K {\n"
                     "    ld A[i][k]\n    ld B[k][j]\n    comp 3\n  }\n  comp 1\n  st C[i][j]\n}\n";
  auto ki = kernelOf(gemm);
  auto on = termBit(TermId::Spills) | termBit(TermId::Caches) | termBit(TermId::L2);
  auto hw = h100();
  double threads = 8192.0 * 8192.0 / 64;
  auto bound = [&](const std::string &text) {
    return layout::launchBoundRegisters(layout::parseLayout(ki, text, hw), hw);
  };
  EXPECT_DOUBLE_EQ(bound("block=i:32,j:32 fold=i:8,j:8"), 64);
  EXPECT_DOUBLE_EQ(bound("block=i:16,j:32 fold=i:8,j:8"), 128);
  EXPECT_DOUBLE_EQ(bound("block=i:16,j:16 fold=i:8,j:8"), 255); // 256 less max_registers_per_thread
  EXPECT_DOUBLE_EQ(bound("block=i:1,j:100"), 255);              // 4 warps
  EXPECT_DOUBLE_EQ(bound("block=i:24,j:32"), 80);               // 65,536 / 768 = 85.3: 80
  auto r = applyOnly(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B", on);
  EXPECT_DOUBLE_EQ(r.c.carriedIterations, 16);
  EXPECT_DOUBLE_EQ(r.c.hoistedLoadWords, 0);
  EXPECT_DOUBLE_EQ(r.a.effects.spilledRegisters, 16);
  EXPECT_DOUBLE_EQ(r.a.effects.spillBytesPerThread, 2048);
  EXPECT_DOUBLE_EQ(r.a.effects.spillStoreL2Bytes, 1024 * threads);
  EXPECT_DOUBLE_EQ(r.a.effects.spillL2Bytes, 1024 * threads);
  EXPECT_EQ(r.a.effects.spillDramBytes, 0);
  // Unrolled by 16, nvcc loads the 16 iterations' A and B (8 + 8 words each,
  // from shared memory) ahead: 15 x 16 = 240 more words in the frame, 1,024
  // bytes stored and loaded once. 2,048 threads hold 2 MB of frames, past
  // L1, and 132 SMs 277 MB, past what L2 keeps: loads and stores through L2
  // and DRAM, 2,048 bytes a thread.
  auto u = applyOnly(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B unroll=k:16", on);
  EXPECT_DOUBLE_EQ(u.c.carriedIterations, 1);
  EXPECT_DOUBLE_EQ(u.c.hoistedLoadWords, 240);
  EXPECT_DOUBLE_EQ(u.a.effects.spilledRegisters, 256);
  EXPECT_DOUBLE_EQ(u.a.effects.spillStoreL2Bytes, 1024 * threads);
  EXPECT_DOUBLE_EQ(u.a.effects.spillL2Bytes, 2048 * threads);
  EXPECT_DOUBLE_EQ(u.a.effects.spillDramBytes, 2048 * threads);
  // The frames share L1 with the shared tiles: 2 blocks of cache=A,B hold 2 x
  // (256 x 16 + 16 x 256) x 4 = 65,536 bytes of tiles, leaving 196,608 of
  // the 262,144. ptxas's 80-byte frame, 2 x 1,024 x 80 = 163,840 bytes, fits:
  // only the stores (half of the 1,000 spilled bytes) leave L1; a 112-byte
  // frame, 229,376 bytes, would fit the whole L1 but not what the tiles leave:
  // the loads go too.
  ASSERT_EQ(hw.l1CacheBytes, 262144);
  auto fit = applySpilled(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B", 64, 80, 1000, on);
  ASSERT_DOUBLE_EQ(fit.c.workload.sharedMemBytesPerBlock, 32768);
  EXPECT_DOUBLE_EQ(fit.a.effects.spillFootprintPerSM, 2 * 1024 * 80.0);
  EXPECT_DOUBLE_EQ(fit.a.effects.spillL2Bytes, 500 * threads);
  auto past = applySpilled(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B", 64, 112, 1000, on);
  EXPECT_DOUBLE_EQ(past.a.effects.spillL2Bytes, 1000 * threads);
  EXPECT_EQ(past.a.effects.spillDramBytes, 0); // 30 MB on 132 SMs: within what L2 keeps
  // On the H200, whose L2 takes stores at their own rate (4,311 GB/s), the
  // spill stores wait there beside the kernel's own.
  auto h200 = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  ASSERT_GT(h200.l2StoreBandwidthGBps, 0);
  auto st = applyOnly(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B", on, h200);
  ASSERT_GT(st.a.effects.spillStoreL2Bytes, 0);
  EXPECT_NEAR(st.a.effects.l2FloorMs,
              std::max((st.a.effects.l2TrafficBytes + st.a.effects.spillL2Bytes) / (h200.l2BandwidthGBps * 1e6),
                       (st.a.effects.l2StoreBytes + st.a.effects.spillStoreL2Bytes) /
                           (h200.l2StoreBandwidthGBps * 1e6)),
              1e-12);
  EXPECT_GT(st.a.effects.l2FloorMs, (st.a.effects.l2StoreBytes) / (h200.l2StoreBandwidthGBps * 1e6));
  // In 512 threads 128 registers hold the tile: no spills (ptxas: 128, none).
  auto fits = applyOnly(ki, "block=i:16,j:32 fold=i:8,j:8 cache=A,B unroll=k:16", on);
  EXPECT_EQ(fits.a.effects.spilledRegisters, 0);
  EXPECT_EQ(fits.a.effects.spillBytesPerThread, 0);
  // ptxas's count, where it was read, replaces the estimate: none spilled.
  auto ptxas = applySpilled(ki, "block=i:32,j:32 fold=i:8,j:8 cache=A,B", 64, 0, 0, on);
  EXPECT_EQ(ptxas.a.effects.spilledRegisters, 0);
  EXPECT_EQ(ptxas.a.effects.spillBytesPerThread, 0);
  // A nest without loops carries nothing: no estimate.
  EXPECT_EQ(applyOnly(kernelOf(kTriad), "block=i:1024 fold=i:64", on).a.effects.spillBytesPerThread, 0);
}

TEST(Terms, LaunchAloneRecordsTheOverhead) {
  auto r = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Launch));
  EXPECT_DOUBLE_EQ(r.a.effects.launchMs, h100().launchOverheadUs / 1000.0);
}

TEST(Terms, L2FloorMovesEveryByteBetweenTheSmsAndL2AtItsBandwidth) {
  // The triad of 2^21 floats measured by validation/kernels/launches.cu: each
  // element's two loads leave L1 (no reuse) and its store passes L2, 12 bytes
  // an element: 25,165,824 bytes / 4,570 GB/s = 0.0055067 ms.
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.l2BandwidthGBps, 4570);
  const char *triad = "#define N 2097152\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                      "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(triad), "block=i:256", termBit(TermId::Caches) | termBit(TermId::L2));
  EXPECT_NEAR(r.a.effects.l2TrafficBytes, 12.0 * 2097152, 1e-6);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 12.0 * 2097152 / (4570 * 1e6), 1e-12);
  // without `caches` nothing counts the traffic: no floor
  auto off = applyOnly(kernelOf(triad), "block=i:256", termBit(TermId::L2));
  EXPECT_EQ(off.a.effects.l2FloorMs, 0);
}

TEST(Terms, L2FloorWaitsForTheStoresAtTheirOwnRate) {
  // Stores pass L2 at about half its rate for loads (the H200: 4,311 against
  // 8,178 GB/s, validation/kernels/l2read.cu). A copy of 2^21 floats: 8 bytes
  // an element, 4 of them stored: max(16,777,216 / 8,178, 8,388,608 / 4,311)
  // = max(2.052, 1.946) us, the loads' side; a fill of 2^21 floats stores
  // 8,388,608 bytes: 1.946 us at the stores' rate where all traffic alone
  // gives 1.026; without the field the stores go at l2_bandwidth_gbps.
  auto hw = h100();
  hw.l2BandwidthGBps = 8178;
  hw.l2StoreBandwidthGBps = 4311;
  const char *copy = "#define N 2097152\nfloat a[N]\nfloat b[N]\n"
                     "parallel_for(N) : i {\n  ld b[i]\n  st a[i]\n}\n";
  auto r = applyOnly(kernelOf(copy), "block=i:256", termBit(TermId::Caches) | termBit(TermId::L2), hw);
  EXPECT_NEAR(r.a.effects.l2StoreBytes, 4.0 * 2097152, 1e-6);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 8.0 * 2097152 / (8178 * 1e6), 1e-12);
  const char *fill = "#define N 2097152\nfloat a[N]\n"
                     "parallel_for(N) : i {\n  comp 2\n  st a[i]\n}\n";
  r = applyOnly(kernelOf(fill), "block=i:256", termBit(TermId::Caches) | termBit(TermId::L2), hw);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 4.0 * 2097152 / (4311 * 1e6), 1e-12);
  hw.l2StoreBandwidthGBps = 0;
  r = applyOnly(kernelOf(fill), "block=i:256", termBit(TermId::Caches) | termBit(TermId::L2), hw);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 4.0 * 2097152 / (8178 * 1e6), 1e-12);
}

TEST(Terms, L2FloorWaitsForEverySectorAStoreAllocatesPastL2) {
  // Stores to sectors L2 does not hold pass at l2_store_miss_bandwidth_gbps,
  // a sector for each part a warp store writes (the H200: 2,009 GB/s,
  // validation/kernels/storelines.cu). A fill of 2^21 floats launched once:
  // 8,388,608 bytes / 2,009 GB/s = 4.1755 us, above the stores' 1.946 at
  // L2's rate for hits. Every other float (st a[2i]): each warp store uses
  // half of each sector it writes, 16,777,216 sector bytes, 8.351 us.
  // Repeated over 8 MB that L2 holds: the fill allocates nothing (the hits'
  // rate); the parts past one a sector take a slot all the same.
  auto hw = h100();
  hw.l2BandwidthGBps = 8178;
  hw.l2StoreBandwidthGBps = 4311;
  hw.l2StoreMissBandwidthGBps = 2009;
  const auto on = termBit(TermId::Caches) | termBit(TermId::Residency) | termBit(TermId::L2);
  auto fill = kernelOf("#define N 2097152\nfloat a[N]\nparallel_for(N) : i {\n  comp 2\n  st a[i]\n}\n");
  auto r = applyOnly(fill, "block=i:256", on, hw);
  EXPECT_NEAR(r.a.effects.l2StoreMissBytes, 4.0 * 2097152, 1e-6);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 4.0 * 2097152 / (2009 * 1e6), 1e-12);
  auto strided =
      kernelOf("#define N 2097152\nfloat a[2 * N]\nparallel_for(N) : i {\n  comp 2\n  st a[2 * i]\n}\n");
  r = applyOnly(strided, "block=i:256", on, hw);
  EXPECT_NEAR(r.a.effects.l2StoreMissBytes, 8.0 * 2097152, 1e-6);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 8.0 * 2097152 / (2009 * 1e6), 1e-12);
  fill.timing = layout::LaunchTiming::RepeatedAlone;
  r = applyOnly(fill, "block=i:256", on, hw);
  EXPECT_EQ(r.a.effects.l2StoreMissBytes, 0);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 4.0 * 2097152 / (4311 * 1e6), 1e-12);
  // held there too, the second part of each sector still takes a slot:
  // 8,388,608 bytes at 2,009 GB/s (4.1755 us), above 16,777,216 / 4,311 (3.892)
  strided.timing = layout::LaunchTiming::RepeatedAlone;
  r = applyOnly(strided, "block=i:256", on, hw);
  EXPECT_NEAR(r.a.effects.l2StoreMissBytes, 4.0 * 2097152, 1e-6);
  EXPECT_NEAR(r.a.effects.l2FloorMs, 4.0 * 2097152 / (2009 * 1e6), 1e-12);
  // without the field: no such floor
  hw.l2StoreMissBandwidthGBps = 0;
  fill.timing = layout::LaunchTiming::Once;
  EXPECT_NEAR(applyOnly(fill, "block=i:256", on, hw).a.effects.l2FloorMs, 4.0 * 2097152 / (4311 * 1e6), 1e-12);
}

TEST(Terms, AStoreThroughDataAllocatesItsBytesNotAGuessOfItsSectors) {
  // A scatter's sectors are a guess (each thread's stand-in row): SpinFlap's
  // permutation fills each thread's sector over its own iterations. Its bytes
  // count: 2^21 floats stored through p, 8,388,608 bytes at 2,009 GB/s.
  auto hw = h100();
  hw.l2BandwidthGBps = 8178;
  hw.l2StoreMissBandwidthGBps = 2009;
  auto ki = kernelOf("#define N 2097152\nfloat a[N]\nint p[N]\n"
                     "parallel_for(N) : i {\n  ld p[i]\n  st a[p[i]]\n}\n");
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Caches) | termBit(TermId::L2), hw);
  EXPECT_GT(r.a.effects.l2StoreBytes, 4.0 * 2097152); // the L2 traffic keeps the guess
  EXPECT_NEAR(r.a.effects.l2StoreMissBytes, 4.0 * 2097152, 1e-6);
  // and DRAM takes the sectors back once, whole: a thread's 4 bytes of p
  // and its 4 bytes of a, not the guess (Nsight Compute on SpinFlap 65536:
  // 55 MB written of its 69 MB array, where the guess made 277)
  EXPECT_NEAR(r.a.effects.dramBytesPerThread, 8.0, 1e-9);
}

// Worked by hand: the transpose of validation/c/transpose_2000x3000 shape in
// one-warp blocks `block=i:8,j:4 fold=j:2`: 2,000 x 3,000 / (32 x 2) = 93,750
// blocks; at the H100's 1,664 block starts a microsecond (blockrate.cu) the
// kernel lasts at least 93,750 / 1,664 = 56.34 us (measured: 59.6 us back to
// back, h100_emit9_kernels.json). Above the core's time the floor is the time
// and the bound `blocks`; below it, nothing changes.
TEST(Terms, BlocksFloorIsTheBlocksOverTheStartRate) {
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.blockStartsPerUs, 1664);
  auto ki = kernelOf("#define R 2000\n#define C 3000\nfloat A[R][C]\nfloat B[C][R]\n"
                     "parallel_for(R, C) : i, j {\n  ld A[i][j]\n  st B[j][i]\n}\n");
  auto r = applyOnly(ki, "block=i:8,j:4 fold=j:2", termBit(TermId::Blocks));
  ASSERT_DOUBLE_EQ(r.a.workload.blocks, 93750);
  EXPECT_NEAR(r.a.effects.blockStartFloorMs, 93750.0 / 1664 / 1000, 1e-12);
  auto core = coreAt(0.02, "memory");
  model::settleModernTerms(r.a.effects, termBit(TermId::Blocks), core);
  EXPECT_NEAR(core.timeMs, 0.0563401, 1e-7);
  EXPECT_EQ(core.bound, "blocks");
  core = coreAt(0.1, "memory");
  model::settleModernTerms(r.a.effects, termBit(TermId::Blocks), core);
  EXPECT_EQ(core.timeMs, 0.1);
  EXPECT_EQ(core.bound, "memory");
  hw.blockStartsPerUs = 0; // a spec without the field: no floor
  EXPECT_EQ(applyOnly(ki, "block=i:8,j:4 fold=j:2", termBit(TermId::Blocks), hw).a.effects.blockStartFloorMs, 0);
}

TEST(Terms, ResidencyReadsARepeatedKernelsArraysFromItsLastLaunch) {
  // The same triad repeated over its arrays (the validation programs time it
  // so): its footprint, 25,165,824 bytes, fits in l2_resident_bytes, so its
  // loads come from L2 and only the stores reach DRAM (4 of the 12 bytes).
  auto ki = kernelOf("#define N 2097152\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n");
  const auto on = termBit(TermId::Caches) | termBit(TermId::Residency);
  auto once = applyOnly(ki, "block=i:256", on);
  EXPECT_DOUBLE_EQ(once.a.effects.dramBytesPerThread, 12);
  ki.timing = layout::LaunchTiming::RepeatedAlone;
  auto again = applyOnly(ki, "block=i:256", on);
  EXPECT_DOUBLE_EQ(again.a.effects.footprintBytes, 12.0 * 2097152);
  EXPECT_DOUBLE_EQ(again.a.effects.dramBytesPerThread, 4);
  EXPECT_DOUBLE_EQ(again.a.effects.l2HitFraction, 8.0 / 12); // of the requested bytes, stores included
  // 2^26 floats (768 MiB) do not fit: every byte from DRAM again
  auto big = kernelOf(kTriad);
  big.timing = layout::LaunchTiming::RepeatedAlone;
  EXPECT_DOUBLE_EQ(applyOnly(big, "block=i:256", on).a.effects.dramBytesPerThread, 12);
  // and without the term, a repeated kernel is read from DRAM
  EXPECT_DOUBLE_EQ(applyOnly(ki, "block=i:256", termBit(TermId::Caches)).a.effects.dramBytesPerThread, 12);
}

TEST(Terms, ResidencyKeepsAShareOfAFootprintBetweenTheResidentAndTheThrashBytes) {
  // The H100's triad kept L2's rate up to 31,457,280 bytes and ran at DRAM's
  // from 44,040,192 (validation/results/h100_launches2.json); between them the
  // share L2 keeps falls linearly. A triad of 3,145,728 floats repeated:
  // footprint 37,748,736 bytes, share (44,040,192 - 37,748,736) /
  // (44,040,192 - 31,457,280) = 6,291,456 / 12,582,912 = 0.5, so its two loads
  // bring 8 x 0.5 = 4 DRAM bytes a thread beside the store's 4.
  auto hw = h100();
  ASSERT_EQ(hw.l2ResidentBytes, 31457280);
  ASSERT_EQ(hw.l2ThrashBytes, 44040192);
  EXPECT_DOUBLE_EQ(hw.residentShare(31457280), 1.0);
  EXPECT_DOUBLE_EQ(hw.residentShare(37748736), 0.5);
  EXPECT_DOUBLE_EQ(hw.residentShare(44040192), 0.0);
  auto ki = kernelOf("#define N 3145728\nfloat a[N]\nfloat b[N]\nfloat c[N]\n"
                     "parallel_for(N) : i {\n  comp 13\n  ld b[i]\n  ld c[i]\n  comp 4\n  st a[i]\n}\n");
  ki.timing = layout::LaunchTiming::RepeatedAlone;
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Caches) | termBit(TermId::Residency));
  EXPECT_DOUBLE_EQ(r.a.effects.footprintBytes, 37748736);
  EXPECT_DOUBLE_EQ(r.a.effects.dramBytesPerThread, 8);
  // a spec without l2_thrash_bytes keeps the step at l2_resident_bytes
  hw.l2ThrashBytes = 0;
  EXPECT_DOUBLE_EQ(hw.residentShare(31457281), 0.0);
}

TEST(Terms, AQueuedLaunchCostsTheGapBetweenKernelsOrTheHostsRate) {
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.launchGapUs, 1.76);
  auto ki = kernelOf(kTriad);
  ki.timing = layout::LaunchTiming::BackToBack;
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Launch));
  EXPECT_TRUE(r.a.effects.queued);
  EXPECT_DOUBLE_EQ(r.a.effects.launchMs, 0.00176);
  EXPECT_DOUBLE_EQ(r.a.effects.queuedLaunchMs, hw.launchBackToBackUs / 1000.0);
  // a 1 us kernel: 1 + 1.76 us is below the host's rate, 4.16 us a launch
  // (the spin kernels of validation/kernels/launches.cu: 4.1-4.3 us at D = 0 to 2 us)
  auto t = coreAt(0.001, "latency");
  model::settleModernTerms(r.a.effects, termBit(TermId::Launch), t);
  EXPECT_DOUBLE_EQ(t.timeMs, 0.00416);
  // a 30 us kernel: 30 + 1.76 us (there: D + 1.74 to 1.99 us)
  t = coreAt(0.030, "latency");
  model::settleModernTerms(r.a.effects, termBit(TermId::Launch), t);
  EXPECT_DOUBLE_EQ(t.timeMs, 0.030 + 0.00176);
  // repeated alone, or once, the launch overhead is added as before
  ki.timing = layout::LaunchTiming::RepeatedAlone;
  auto alone = applyOnly(ki, "block=i:256", termBit(TermId::Launch));
  EXPECT_FALSE(alone.a.effects.queued);
  EXPECT_DOUBLE_EQ(alone.a.effects.launchMs, hw.launchOverheadUs / 1000.0);
}

// --- the settle steps, after the core ------------------------------------------

TEST(Terms, TheBandwidthFloorIsTheTimeWhenAboveIt) {
  model::TermEffects e;
  e.dramFloorMs = 3;
  e.departureFloorMs = 2;
  auto r = coreAt(1, "compute");
  model::settleModernTerms(e, termBit(TermId::Bandwidth), r);
  EXPECT_EQ(r.timeMs, 3);
  EXPECT_EQ(r.bound, "memory");
  r = coreAt(5, "compute");
  model::settleModernTerms(e, termBit(TermId::Bandwidth), r);
  EXPECT_EQ(r.timeMs, 5);
  EXPECT_EQ(r.bound, "compute");
}

TEST(Terms, TheLsuFloorIsTheTimeWhenAboveIt) {
  model::TermEffects e;
  e.lsuFloorMs = 2;
  auto r = coreAt(1, "latency");
  model::settleModernTerms(e, termBit(TermId::Lsu), r);
  EXPECT_EQ(r.timeMs, 2);
  EXPECT_EQ(r.bound, "l1");
}

TEST(Terms, TheLaunchIsAddedAfterTheFloors) {
  model::TermEffects e;
  e.dramFloorMs = 3;
  e.lsuFloorMs = 4;
  e.launchMs = 0.5;
  auto r = coreAt(1, "compute");
  model::settleModernTerms(e, model::kAllTerms, r);
  EXPECT_EQ(r.timeMs, 4.5);
  EXPECT_EQ(r.bound, "l1");
  // Switched off, a settle step does nothing, whatever the effects hold.
  r = coreAt(1, "compute");
  model::settleModernTerms(e, model::kAllTerms & ~termBit(TermId::Lsu) & ~termBit(TermId::Launch), r);
  EXPECT_EQ(r.timeMs, 3);
  EXPECT_EQ(r.bound, "memory");
  r = coreAt(1, "compute");
  model::settleModernTerms(e, 0, r);
  EXPECT_EQ(r.timeMs, 1);
  EXPECT_EQ(r.bound, "compute");
}

// --- reduction (docs/model.md, eq. 7.1) ----------------------------------------------

TEST(Terms, ReductionWorkedByHand) {
  // A dot product of 2^26 floats into a double, blocks of 256: 262,144 blocks;
  // 8 blocks of 8 warps fill an SM's 64 warps, a wave is 132 x 8 = 1,056
  // blocks, Rep = 248.24, ceil(Rep) = 249 waves. The block tree has
  // log2(256) = 8 steps of 2 x l1_latency 43.1 + 1 x issue 1.041 = 87.241
  // cycles: 249 x 8 x 87.241 = 173,784.072 cycles, plus the last atomic's L2
  // round trip 282.4: 174,066.472 cycles / 1.9786 GHz = 0.0879746 ms. The
  // 262,144 atomics to one address, one each 1.76 ns (atomic_same_address_ns,
  // measured): 0.4613734 ms, the floor of the kernel's time (the H100 ran
  // this sum in 0.4795 ms, validation/results/h100_reductions.json).
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.l1LatencyCycles, 43.1);
  ASSERT_DOUBLE_EQ(hw.l2LatencyCycles, 282.4);
  ASSERT_DOUBLE_EQ(hw.issueCycles, 1.041);
  ASSERT_DOUBLE_EQ(hw.clockGHz, 1.9786);
  const char *dot = "#define N 67108864\nfloat a[N]\nfloat b[N]\ndouble s[1]\n"
                    "parallel_for dot(N) : i reduce(+: s) {\n  ld a[i]\n  ld b[i]\n  comp 2\n}\n";
  auto ki = kernelOf(dot);
  ASSERT_EQ(ki.reductionBytes, std::vector<int>{8});
  auto r = applyOnly(ki, "block=i:256", termBit(TermId::Reduction));
  const model::TermEffects &e = r.a.effects;
  EXPECT_EQ(e.reductions, 1);
  EXPECT_EQ(e.reductionSteps, 8);
  EXPECT_NEAR(e.reductionTreeMs, (249.0 * 8 * (2 * 43.1 + 1.041) + 282.4) / 1.9786e6, 1e-12);
  EXPECT_NEAR(e.reductionTreeMs, 0.0879746, 1e-7);
  ASSERT_DOUBLE_EQ(hw.atomicSameAddressNs, 1.76);
  EXPECT_NEAR(e.reductionAtomicsMs, 262144 * 1.76e-6, 1e-12);
  // after the core: the tree added, the atomics a floor under the whole
  auto fast = coreAt(0.1, "memory");
  model::settleModernTerms(e, termBit(TermId::Reduction), fast);
  EXPECT_NEAR(fast.timeMs, 0.46137344, 1e-9);
  EXPECT_EQ(fast.bound, "memory");
  auto slow = coreAt(1.0, "compute");
  model::settleModernTerms(e, termBit(TermId::Reduction), slow);
  EXPECT_NEAR(slow.timeMs, 1.0 + e.reductionTreeMs, 1e-12);
  EXPECT_EQ(slow.bound, "compute");
  // switched off, or a kernel without a reduction: nothing
  auto off = coreAt(0.1, "memory");
  model::settleModernTerms(e, model::kAllTerms & ~termBit(TermId::Reduction), off);
  EXPECT_EQ(off.timeMs, 0.1);
  auto none = applyOnly(kernelOf(kTriad), "block=i:256", termBit(TermId::Reduction));
  EXPECT_EQ(none.a.effects.reductions, 0);
  EXPECT_TRUE(model::skelcastTerms()[static_cast<size_t>(TermId::Reduction)].explain(none.a.effects).empty());
  EXPECT_EQ(model::skelcastTerms()[static_cast<size_t>(TermId::Reduction)].explain(e).size(), 4u);
}

TEST(Terms, TheRooflineCountsTheReductionsBytes) {
  // the result's element read (the host's initial value) and written: 2 x 8 bytes
  const char *with = "#define N 1024\nfloat a[N]\ndouble s[1]\n"
                     "parallel_for(N) : i reduce(+: s) {\n  ld a[i]\n  comp 1\n}\n";
  const char *without = "#define N 1024\nfloat a[N]\ndouble s[1]\n"
                        "parallel_for(N) : i {\n  ld a[i]\n  comp 1\n}\n";
  auto a = applyOnly(kernelOf(with), "block=i:256", 0);
  auto b = applyOnly(kernelOf(without), "block=i:256", 0);
  EXPECT_DOUBLE_EQ(a.c.compulsoryBytes, b.c.compulsoryBytes + 16);
}

// chain (docs/model.md, section 7): a thread's chains, F x sum_i Chain_i x
// LP_i, one after another, once a wave. 16,384 threads of 16,384 iterations
// of a 216-cycle chain (an n-body force sum): in blocks of 32, 512 blocks on
// 132 SMs are one wave (3.9 blocks an SM), so 16,384 x 216 = 3,538,944 cycles
// = 1.78861 ms at the H100 spec's 1.9786 GHz; four tasks a thread (fold=i:4) run their chains one
// after another: 4 x as long, still one wave of 128 blocks. Above the core's
// time the floor is the time, bound `chain`. A GPU of another architecture
// than the latencies' (sm_90) gets no floor.
TEST(Terms, ChainFloorIsAThreadsChainsOnceAWave) {
  auto hw = h100();
  ASSERT_DOUBLE_EQ(hw.clockGHz, 1.9786);
  auto ki = kernelOf("#define N 16384\nfloat x[N]\nfloat a[N]\n"
                     "parallel_for(N) : i {\n  stream j = 0:N {\n    ld x[j]\n    comp 41 (chain:216)\n  }\n"
                     "  st a[i]\n}\n");
  auto r = applyOnly(ki, "block=i:32", termBit(TermId::Chain));
  EXPECT_DOUBLE_EQ(r.c.chainCycles, 16384.0 * 216);
  EXPECT_DOUBLE_EQ(r.a.effects.chainCyclesPerThread, 3538944);
  EXPECT_NEAR(r.a.effects.chainFloorMs, 3538944 / 1.9786e6, 1e-12);
  auto folded = applyOnly(ki, "block=i:32 fold=i:4", termBit(TermId::Chain));
  EXPECT_NEAR(folded.a.effects.chainFloorMs, 4 * 3538944 / 1.9786e6, 1e-12);
  auto core = coreAt(0.5, "memory");
  model::settleModernTerms(r.a.effects, termBit(TermId::Chain), core);
  EXPECT_NEAR(core.timeMs, 1.788610, 1e-6);
  EXPECT_EQ(core.bound, "chain");
  core = coreAt(2.0, "compute");
  model::settleModernTerms(r.a.effects, termBit(TermId::Chain), core);
  EXPECT_EQ(core.timeMs, 2.0);
  EXPECT_EQ(core.bound, "compute");
  auto c1060 = hw::resolveHwSpec("c1060", kSrc + "/hwspecs");
  EXPECT_EQ(applyOnly(ki, "block=i:32", termBit(TermId::Chain), c1060).a.effects.chainFloorMs, 0);
  // Switched off, nothing: the effects stay 0.
  EXPECT_EQ(applyOnly(ki, "block=i:32", termBit(TermId::Blocks)).a.effects.chainFloorMs, 0);
}

// The loads a chain waits for (`waits:L`) each wait the latency of the
// kernel's loads: without `caches`, DRAM's (dram_latency_cycles); a load from
// shared memory (a staged array) an L1 hit's. The force sum's 146 cycles and
// 2 waits: 16,384 x (146 + 2 x dram) cycles; with x staged in shared memory,
// 16,384 x (146 + 2 x l1).
TEST(Terms, ChainWaitsAreTheLoadsLatency) {
  auto hw = h100();
  auto ki = kernelOf("#define N 16384\nfloat x[N]\nfloat a[N]\n"
                     "parallel_for(N) : i {\n  stream j = 0:N {\n    ld x[j]\n    comp 41 (chain:146, waits:2)\n  }\n"
                     "  st a[i]\n}\n");
  auto r = applyOnly(ki, "block=i:32", termBit(TermId::Chain));
  EXPECT_DOUBLE_EQ(r.c.chainWaits, 16384.0 * 2);
  EXPECT_DOUBLE_EQ(r.a.effects.chainLoadLatency, hw.dramLatencyCycles);
  EXPECT_NEAR(r.a.effects.chainCyclesPerThread, 16384.0 * (146 + 2 * hw.dramLatencyCycles), 1e-6);
  EXPECT_NEAR(r.a.effects.chainFloorMs, 16384.0 * (146 + 2 * hw.dramLatencyCycles) / (hw.clockGHz * 1e6), 1e-12);
  auto staged = applyOnly(ki, "block=i:32 stage=j:512 cache=x", termBit(TermId::Chain));
  EXPECT_DOUBLE_EQ(staged.a.effects.chainLoadLatency, hw.l1LatencyCycles);
  EXPECT_NEAR(staged.a.effects.chainCyclesPerThread, 16384.0 * (146 + 2 * hw.l1LatencyCycles), 1e-6);
}

// The loads a chain waits for are those of its own loop: row_norm (docs/model.md,
// `chain`). Its first loop sums a row (no chain), its second divides the row in
// place (`a[i][j] = a[i][j] / r`, chain 125, one wait). With `caches`, `walk`
// and `rmw` the chain's load latency is the second loop's load alone (the same
// as the kernel without the first loop), which waits 152 cycles for the
// thread's store (152 more than without `rmw`). Unrolled, the next iteration's
// load goes out before the store into its sector and waits 3,800 cycles
// (inplace.cu). A recurrence's load of the element the previous iteration
// stored (p[i][j - 1] after p[i][j]) comes from a register and is no wait:
// the latency is the kernel's without that load.
TEST(Terms, ChainWaitsForItsOwnLoopsLoadsAndAnInPlaceUpdate) {
  auto hw = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  const std::string head = "#define R 8192\n#define C 2048\ndouble a[R][C]\nparallel_for(R) : i {\n";
  const std::string sum = "  stream j = 0:C {\n    ld a[i][j]\n    comp 2 (fp64:1)\n  }\n";
  const std::string scale = "  stream j = 0:C {\n    ld a[i][j]\n    comp 17 (fp64:16, chain:125, waits:1)\n"
                            "    st a[i][j]\n  }\n}\n";
  auto ki = kernelOf(head + sum + scale);
  ASSERT_EQ(ki.loops.size(), 2u);
  ASSERT_EQ(ki.accesses[1].innerStepBytes, 8) << "the second loop's a[i][j] walks its own j";
  model::TermMask noRmw = termBit(TermId::Chain) | termBit(TermId::Caches) | termBit(TermId::Walk);
  model::TermMask on = noRmw | termBit(TermId::Rmw);
  auto rolled = applyOnly(ki, "block=i:32", on, hw);
  auto alone = applyOnly(kernelOf(head + scale), "block=i:32", on, hw);
  EXPECT_DOUBLE_EQ(rolled.a.effects.chainLoadLatency, alone.a.effects.chainLoadLatency)
      << "the first loop's loads are on no chain";
  auto unstored = applyOnly(ki, "block=i:32", noRmw, hw);
  EXPECT_NEAR(rolled.a.effects.chainLoadLatency, unstored.a.effects.chainLoadLatency + 152, 1e-9);
  EXPECT_NEAR(rolled.a.effects.chainCyclesPerThread, 2048.0 * (125 + rolled.a.effects.chainLoadLatency), 1e-6);
  auto unrolled = applyOnly(ki, "block=i:32 unroll=j#1:16,j#2:16", on, hw);
  EXPECT_DOUBLE_EQ(unrolled.a.effects.chainLoadLatency, 3800);
  EXPECT_NEAR(unrolled.a.effects.chainCyclesPerThread, 2048.0 * (125 + 3800), 1e-6);
  auto rolledU = applyOnly(ki, "block=i:32 unroll=j#1:16", on, hw);
  EXPECT_DOUBLE_EQ(rolledU.a.effects.chainLoadLatency, rolled.a.effects.chainLoadLatency)
      << "unrolling the first loop leaves the second rolled";
  const std::string rhead = "#define N 4096\nfloat p[N][N]\nfloat u[N][N]\nparallel_for(N) : i {\n"
                            "  stream j = 1:N {\n";
  const std::string rtail = "    ld u[j][i]\n    comp 9 (chain:60, waits:1)\n    st p[i][j]\n  }\n}\n";
  auto rec = applyOnly(kernelOf(rhead + "    ld p[i][j - 1]\n" + rtail), "block=i:32", on, hw);
  auto noP = applyOnly(kernelOf(rhead + rtail), "block=i:32", on, hw);
  EXPECT_DOUBLE_EQ(rec.a.effects.chainLoadLatency, noP.a.effects.chainLoadLatency)
      << "p[i][j - 1] comes from a register";
}

// The register-forwarded load is the one behind its store along the walk: a
// load of a[i][j + 1] before st a[i][j] reads what no iteration has stored yet
// and waits like any walking load (152 cycles behind the store, like
// a[i][j - 1]'s would not). And the 3,800 cycles of an element updated in
// place belong to a loop that holds a chain: an unrolled in-place loop without
// one, beside a chained loop elsewhere, leaves the chain's latency alone.
TEST(Terms, ChainForwardsOnlyAStoreBehindTheLoadAndPlacesTheInPlaceWaitOnItsChain) {
  auto hw = hw::resolveHwSpec("h200", kSrc + "/hwspecs");
  model::TermMask on = termBit(TermId::Chain) | termBit(TermId::Caches) | termBit(TermId::Walk) |
                       termBit(TermId::Rmw);
  const std::string head = "#define N 4096\nfloat a[N][N + 1]\nfloat b[N][N + 1]\nparallel_for(N) : i {\n"
                           "  stream j = 0:N {\n";
  const std::string tail = "    comp 9 (chain:60, waits:1)\n    st a[i][j]\n  }\n}\n";
  auto ahead = applyOnly(kernelOf(head + "    ld a[i][j + 1]\n" + tail), "block=i:32", on, hw);
  auto other = applyOnly(kernelOf(head + "    ld b[i][j + 1]\n" + tail), "block=i:32", on, hw);
  EXPECT_NEAR(ahead.a.effects.chainLoadLatency, other.a.effects.chainLoadLatency + 152, 1e-9)
      << "a[i][j + 1] is not yet stored: a wait, 152 cycles behind the store";
  const std::string mixed = "#define N 4096\nfloat a[N][N]\nfloat x[N]\nparallel_for(N) : i {\n  ld x[i]\n"
                            "  stream j = 0:N {\n    ld a[i][j]\n    comp 2\n    st a[i][j]\n  }\n"
                            "  for k = 0:64 {\n    comp 17 (chain:125, waits:1)\n  }\n}\n";
  auto rolled = applyOnly(kernelOf(mixed), "block=i:32", on, hw);
  auto unrolled = applyOnly(kernelOf(mixed), "block=i:32 unroll=j:16", on, hw);
  EXPECT_LT(unrolled.a.effects.chainLoadLatency, 3800) << "the in-place loop holds no chain";
  EXPECT_GT(rolled.a.effects.chainLoadLatency, 0);
}
