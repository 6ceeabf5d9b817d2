// Model terms for modern GPUs (docs/model.md, section 7).
#include "skelcast/model/ModernTerms.h"

#include "skelcast/model/HongKim.h"

#include <algorithm>
#include <cmath>

namespace skelcast::model {

const std::vector<std::string> &modernTermNames() {
  static const std::vector<std::string> names{"schedulers", "fp64", "registers", "caches", "launch"};
  return names;
}

double estimateRegisters(const layout::KernelInfo &ki, const layout::Layout &l) {
  // Indices, bounds and base pointers; then per task a value per load of the
  // innermost body (and per accumulator), multiplied by unrolling and folding.
  double loadsInner = 0, stores = 0;
  for (const auto &a : ki.accesses)
    (a.isStore ? stores : loadsInner) += 1;
  double unroll = 1;
  for (const auto &[loop, u] : l.unroll)
    unroll = std::max(unroll, static_cast<double>(u));
  double perTask = 2.0 + stores + loadsInner * std::min(unroll, 4.0);
  return 16.0 + 2.0 * static_cast<double>(ki.arrays.size()) +
         perTask * static_cast<double>(l.foldProduct());
}

AdjustedInputs applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                                const layout::Layout &l, const HwSpec &hw,
                                const std::set<std::string> &on) {
  AdjustedInputs a{c.workload, hw, {}};
  a.effects.effectiveLatencyCycles = hw.dramLatencyCycles;
  Workload &w = a.workload;

  // schedulers: S schedulers issue S warp instructions per Issue_cycles.
  if (on.count("schedulers"))
    a.hw.issueCycles = hw.issueCycles / std::max(1, hw.schedulersPerSM);

  // fp64: arithmetic on double data issues at the FP64 rate.
  if (on.count("fp64") && hw.peakDpGflops > 0 && c.fp64Fraction > 0) {
    double ratio = std::max(1.0, hw.peakSpGflops / hw.peakDpGflops);
    a.effects.fp64Factor = 1.0 + c.fp64Fraction * (ratio - 1.0);
    w.compInsts *= a.effects.fp64Factor;
  }

  // registers: blocks per SM limited by the register file (allocated per warp
  // in units of 8 registers per thread).
  if (on.count("registers")) {
    double regs = std::min(estimateRegisters(ki, l), static_cast<double>(hw.maxRegistersPerThread));
    double perThread = std::ceil(regs / 8.0) * 8.0;
    double perBlock = perThread * std::ceil(w.threadsPerBlock / hw.warpSize) * hw.warpSize;
    double blocks = std::max(1.0, std::floor(static_cast<double>(hw.registersPerSM) / perBlock));
    a.effects.registersPerThread = regs;
    a.effects.blocksByRegisters = blocks;
    a.hw.maxBlocksPerSM = static_cast<int>(std::min<double>(hw.maxBlocksPerSM, blocks));
  }

  // caches: reuse within a block hits L1 when the SM's blocks fit beside shared
  // memory; reuse across the blocks in flight hits L2 when they fit in it.
  if (on.count("caches") && (hw.l1CacheBytes > 0 || hw.l2CacheBytes > 0)) {
    double sms = activeSMs(w, a.hw);
    double blocksPerSM = std::max(1.0, activeBlocksPerSM(w, a.hw, sms));
    double threads = w.blocks * w.threadsPerBlock;
    double requested = c.requestedBytesPerThread * threads;
    if (requested > 0) {
      double blockTraffic = std::min(requested, w.blocks * c.blockFootprintBytes);
      double perSM = blocksPerSM * c.blockFootprintBytes;
      double l1Avail = std::max(0.0, static_cast<double>(hw.l1CacheBytes) -
                                         blocksPerSM * w.sharedMemBytesPerBlock);
      double l1Share = perSM <= l1Avail ? 1.0 : (perSM > 0 ? l1Avail / perSM : 0.0);
      double afterL1 = requested - (requested - blockTraffic) * l1Share;
      double inflight = blocksPerSM * sms * c.blockFootprintBytes;
      double compulsory = std::min(c.compulsoryBytes, afterL1);
      double l2Share = hw.l2CacheBytes <= 0 ? 0.0
                       : inflight <= static_cast<double>(hw.l2CacheBytes)
                           ? 1.0
                           : static_cast<double>(hw.l2CacheBytes) / inflight;
      double dram = afterL1 - (afterL1 - compulsory) * l2Share;
      a.effects.l1HitFraction = (requested - afterL1) / requested;
      a.effects.l2HitFraction = (afterL1 - dram) / requested;
      double miss = dram / requested;
      a.effects.effectiveLatencyCycles = a.effects.l1HitFraction * hw.l1LatencyCycles +
                                         a.effects.l2HitFraction * hw.l2LatencyCycles +
                                         miss * hw.dramLatencyCycles;
      a.effects.dramBytesPerThread = dram / threads;
      a.hw.dramLatencyCycles = std::max(1.0, a.effects.effectiveLatencyCycles);
      // Only DRAM bytes draw on the memory bandwidth (MWP_peak_BW).
      w.loadBytesPerWarp *= miss;
    }
  }

  if (on.count("launch"))
    a.effects.launchMs = hw.launchOverheadUs / 1000.0;
  return a;
}

} // namespace skelcast::model
