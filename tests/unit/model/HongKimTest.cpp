#include "skelcast/model/HongKim.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace skelcast::model;
namespace hw = skelcast::hw;

namespace {

/// The worked example of Hong & Kim (ISCA'09), as re-implementations encode it.
hw::HwSpec isca09Gpu() {
  hw::HwSpec h;
  h.name = "isca09";
  h.smCount = 16;
  h.clockGHz = 1.0;
  h.warpSize = 32;
  h.maxThreadsPerBlock = 512;
  h.maxWarpsPerSM = 32;
  h.maxBlocksPerSM = 8;
  h.sharedMemPerSMBytes = 16384;
  h.sharedMemPerBlockBytes = 16384;
  h.issueCycles = 4;
  h.memBandwidthGBps = 80;
  h.dramLatencyCycles = 420;
  h.departureDelCoalCycles = 4;
  h.departureDelUncoalCycles = 10;
  return h;
}

hw::Workload isca09Workload() {
  hw::Workload w;
  w.threadsPerBlock = 128;
  w.blocks = 80;
  w.compInsts = 27;
  w.uncoalMemInsts = 6;
  w.coalMemInsts = 0;
  w.synchInsts = 6;
  w.uncoalPerMw = 32;
  w.loadBytesPerWarp = 128;
  return w;
}

} // namespace

TEST(HongKim, EachEquationOnTheIsca09Example) {
  EXPECT_DOUBLE_EQ(memLUncoal(420, 32, 10), 730);
  EXPECT_DOUBLE_EQ(memL(730, 420, 1.0), 730);
  EXPECT_DOUBLE_EQ(memL(730, 420, 0.5), 575);
  EXPECT_DOUBLE_EQ(departureDelay(10, 32, 1.0, 4), 320);
  EXPECT_DOUBLE_EQ(departureDelay(10, 32, 0.0, 4), 4);
  EXPECT_DOUBLE_EQ(mwpWithoutBW(730, 320), 2.28125);
  EXPECT_NEAR(bwPerWarp(1.0, 128, 730), 0.175342, 1e-6);
  EXPECT_NEAR(mwpPeakBW(80, 128.0 / 730, 16), 28.515625, 1e-6);
  EXPECT_DOUBLE_EQ(compCycles(4, 33), 132);
  EXPECT_DOUBLE_EQ(memCycles(730, 6, 420, 0), 4380);
  EXPECT_DOUBLE_EQ(cwpFull(4380, 132), (4380.0 + 132) / 132);
  EXPECT_DOUBLE_EQ(rep(80, 5, 16), 1);
  EXPECT_DOUBLE_EQ(synchCost(320, 2.28125, 6, 5, 1), 12300);
}

TEST(HongKim, Isca09ExampleWholeModel) {
  hw::HwSpec h = isca09Gpu();
  h.maxBlocksPerSM = 5; // the example's 5 active blocks per SM
  HongKimResult r = hongKim(isca09Workload(), h);
  EXPECT_DOUBLE_EQ(r.activeSMs, 16);
  EXPECT_DOUBLE_EQ(r.activeBlocksPerSM, 5);
  EXPECT_DOUBLE_EQ(r.n, 20);
  EXPECT_DOUBLE_EQ(r.memL, 730);
  EXPECT_DOUBLE_EQ(r.departureDelay, 320);
  EXPECT_DOUBLE_EQ(r.mwp, 2.28125);
  EXPECT_DOUBLE_EQ(r.cwp, 20);
  EXPECT_EQ(r.execCase, 2);
  EXPECT_NEAR(r.execCycles, 38428.19, 0.01);
  EXPECT_NEAR(r.synchCost, 12300, 1e-6);
  EXPECT_NEAR(r.totalCycles, 50728.19, 0.01);
  EXPECT_NEAR(r.timeMs, 0.05072819, 1e-8);
  EXPECT_EQ(r.bound, "memory");
}

TEST(HongKim, ActiveBlocksEquation8) {
  hw::HwSpec h = isca09Gpu();
  hw::Workload w = isca09Workload();
  // 4 warps per block, 32 warps per SM: 8 by warps; 8 by the block limit; 5 by the grid.
  EXPECT_DOUBLE_EQ(warpsPerBlock(w, h), 4);
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 5);
  w.blocks = 8000;
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 8);
  w.sharedMemBytesPerBlock = 5000; // floor(16384 / 5000) = 3
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 3);
  // The driver's reserve counts with each block's tiles: floor(16384 / (4500
  // + 1024)) = 2, where floor(16384 / 4500) = 3 (MatMul 800's cache=A tile of
  // 25,600 bytes: 8 blocks an SM on the H200, not 9).
  w.sharedMemBytesPerBlock = 4500;
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 3);
  h.reservedSharedMemPerBlockBytes = 1024;
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 2);
  h.reservedSharedMemPerBlockBytes = 0;
  w.threadsPerBlock = 33; // 2 warps per block
  w.sharedMemBytesPerBlock = 0;
  EXPECT_DOUBLE_EQ(warpsPerBlock(w, h), 2);
}

TEST(HongKim, ResidentBlocksAreEquation8WithoutTheGrid) {
  hw::HwSpec h = isca09Gpu();
  hw::Workload w = isca09Workload();
  // 80 blocks on 16 SMs: 5 active by the grid, 8 held by warps and the limit.
  EXPECT_DOUBLE_EQ(residentBlocksPerSM(w, h), 8);
  EXPECT_DOUBLE_EQ(activeBlocksPerSM(w, h, 16), 5);
  w.sharedMemBytesPerBlock = 5000;
  EXPECT_DOUBLE_EQ(residentBlocksPerSM(w, h), 3);
}

TEST(HongKim, AWaveOfNWarpsIsTheCaseItsMwpAndCwpSelect) {
  // By hand: MWP_Without_BW 10, MWP_peak_BW 100, CWP_full 5, 4 memory
  // instructions, Comp_cycles 100, Mem_cycles 400 (all exposed), Mem_L 100.
  HongKimResult r;
  r.mwpWithoutBW = 10;
  r.mwpPeakBW = 100;
  r.cwpFull = 5;
  r.memInsts = 4;
  r.compCycles = 100;
  r.memCycles = 400;
  r.memCyclesExposed = 400;
  r.memL = 100;
  // 4 warps: MWP = CWP = N = 4, case 1: 400 + 100 + 100 / 4 x 3.
  EXPECT_DOUBLE_EQ(waveCycles(r, 4), 575);
  // 8 warps: MWP 8 > CWP 5, case 3: Mem_L + Comp_cycles x 8.
  EXPECT_DOUBLE_EQ(waveCycles(r, 8), 900);
  // 16 warps with CWP_full 20: MWP 10 <= CWP 16, case 2: 400 x 16 / 10 + 100 / 4 x 9.
  r.cwpFull = 20;
  EXPECT_DOUBLE_EQ(waveCycles(r, 16), 865);
  // No memory instruction: the warps only issue.
  r.memInsts = 0;
  EXPECT_DOUBLE_EQ(waveCycles(r, 16), 1600);
}

TEST(HongKim, RepWavesOfTheActiveWarpsAreTheCoresExecCycles) {
  // waveCycles is the core's own case, without Rep: the ISCA'09 example (case
  // 2) and, with 1000 instructions, case 3 (Comp_cycles 4024 < Mem_cycles
  // 4380, CWP_full 2.09 < MWP 2.28) give Exec_cycles back, and so does a
  // kernel without memory instructions.
  hw::HwSpec h = isca09Gpu();
  for (double comp : {27.0, 1000.0}) {
    hw::Workload w = isca09Workload();
    w.blocks = 8000;
    w.compInsts = comp;
    HongKimResult r = hongKim(w, h);
    EXPECT_EQ(r.execCase, comp > 100 ? 3 : 2);
    EXPECT_NEAR(waveCycles(r, r.n) * r.rep, r.execCycles, 1e-9 * r.execCycles) << "comp " << comp;
  }
  hw::Workload w;
  w.threadsPerBlock = 128;
  w.blocks = 1000;
  w.compInsts = 100;
  HongKimResult r = hongKim(w, h);
  EXPECT_NEAR(waveCycles(r, r.n) * r.rep, r.execCycles, 1e-9 * r.execCycles);
  EXPECT_EQ(coreBound(r), r.bound);
}

TEST(HongKim, ComputeOnlyKernelIsFiniteAndComputeBound) {
  hw::HwSpec h = isca09Gpu();
  hw::Workload w;
  w.threadsPerBlock = 128;
  w.blocks = 1000;
  w.compInsts = 100;
  HongKimResult r = hongKim(w, h);
  EXPECT_TRUE(std::isfinite(r.timeMs));
  EXPECT_GT(r.timeMs, 0);
  EXPECT_EQ(r.bound, "compute");
}

TEST(HongKim, MwpAboveCwpUsesTheComputeCase) {
  hw::HwSpec h = isca09Gpu();
  hw::Workload w = isca09Workload();
  w.blocks = 8000;
  w.uncoalMemInsts = 0;
  w.coalMemInsts = 2;
  w.compInsts = 2000;
  HongKimResult r = hongKim(w, h);
  // Comp_cycles > Mem_cycles selects the second case in Hong & Kim's rule.
  EXPECT_EQ(r.execCase, 2);
  EXPECT_EQ(r.bound, "compute");
}

TEST(HongKim, ThirdCaseWhenMwpExceedsCwpAndMemoryDominates) {
  hw::HwSpec h = isca09Gpu();
  hw::Workload w;
  w.threadsPerBlock = 256;
  w.blocks = 8000;
  w.coalMemInsts = 10;
  w.compInsts = 1000;
  w.loadBytesPerWarp = 128;
  HongKimResult r = hongKim(w, h);
  // Mem_cycles 4200 > Comp_cycles 4040; MWP = min(105, 16.4, 32) > CWP = 2.04.
  EXPECT_EQ(r.execCase, 3);
  EXPECT_NEAR(r.execCycles, (420 + 4040.0 * 32) * (8000.0 / (4 * 16)), 1e-6);
}
