// Model terms for modern GPUs (docs/model.md, section 7).
#include "skelcast/model/ModernTerms.h"

#include "skelcast/model/HongKim.h"

#include <algorithm>
#include <cmath>

namespace skelcast::model {

const std::vector<std::string> &modernTermNames() {
  static const std::vector<std::string> names{"schedulers", "fp64", "registers", "mlp", "caches", "residency", "waves", "bandwidth", "lsu", "launch"};
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
  // A base pointer per array of the file, as before kernels carried only their own arrays.
  return 16.0 + 2.0 * static_cast<double>(std::max(ki.declaredArrays, ki.arrays.size())) +
         perTask * static_cast<double>(l.foldProduct());
}

namespace {

enum TermBit : TermMask {
  kSchedulers = 1u << 0,
  kFp64 = 1u << 1,
  kRegisters = 1u << 2,
  kMlp = 1u << 3,
  kCaches = 1u << 4,
  kResidency = 1u << 5,
  kWaves = 1u << 6,
  kBandwidth = 1u << 7,
  kLsu = 1u << 8,
  kLaunch = 1u << 9,
};

} // namespace

TermMask termMask(const std::set<std::string> &enabled) {
  TermMask m = 0;
  const auto &names = modernTermNames();
  for (size_t i = 0; i < names.size(); ++i)
    if (enabled.count(names[i]))
      m |= TermMask{1} << i;
  return m;
}

AdjustedInputs applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                                const layout::Layout &l, const hw::HwSpec &hw,
                                const std::set<std::string> &on) {
  AdjustedInputs a{c.workload, hw, {}};
  TermScratch scratch;
  applyModernTerms(c, ki, l, hw, termMask(on), a, scratch);
  return a;
}

void applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                      const layout::Layout &l, const hw::HwSpec &hw, TermMask on,
                      AdjustedInputs &a, TermScratch &scratch) {
  a.workload = c.workload;
  a.effects = TermEffects{};
  // The spec fields a term below changes (keep this list in step with them).
  a.hw.issueCycles = hw.issueCycles;
  a.hw.maxBlocksPerSM = hw.maxBlocksPerSM;
  a.hw.dramLatencyCycles = hw.dramLatencyCycles;
  a.effects.effectiveLatencyCycles = hw.dramLatencyCycles;
  hw::Workload &w = a.workload;

  // schedulers: S schedulers issue S warp instructions per Issue_cycles.
  if (on & kSchedulers)
    a.hw.issueCycles = hw.issueCycles / std::max(1, hw.schedulersPerSM);

  // fp64: an FP64 arithmetic instruction takes peak_sp / peak_dp issue slots of
  // the FP32 rate; the rest of Comp_insts (integer, moves, FP32) issue as before.
  // (A GPU without FP64, peak_dp_gflops 0, refuses such a kernel in projectKernel.)
  if ((on & kFp64) && hw.peakDpGflops > 0 && c.fp64Insts > 0) {
    double ratio = std::max(1.0, hw.peakSpGflops / hw.peakDpGflops);
    a.effects.fp64ExtraInsts = c.fp64Insts * (ratio - 1.0);
    w.compInsts += a.effects.fp64ExtraInsts;
  }

  // registers: blocks per SM limited by the register file (allocated per warp
  // in units of 8 registers per thread).
  if (on & kRegisters) {
    double regs = std::min(estimateRegisters(ki, l), static_cast<double>(hw.maxRegistersPerThread));
    double perThread = std::ceil(regs / 8.0) * 8.0;
    double perBlock = perThread * std::ceil(w.threadsPerBlock / hw.warpSize) * hw.warpSize;
    double blocks = std::max(1.0, std::floor(static_cast<double>(hw.registersPerSM) / perBlock));
    a.effects.registersPerThread = regs;
    a.effects.blocksByRegisters = blocks;
    a.hw.maxBlocksPerSM = static_cast<int>(std::min<double>(hw.maxBlocksPerSM, blocks));
  }

  // mlp: independent loads of one warp are in flight together; a warp waits
  // out one latency per group, not per instruction.
  if (on & kMlp)
    w.exposedMemInsts = std::min(w.memInsts(), c.loadGroups);

  // caches: per access, reuse within a block hits L1 when the sliding windows
  // of the SM's blocks fit beside shared memory, and reuse across blocks hits L2
  // when the windows of all blocks in flight fit in it; the rest is DRAM.
  if ((on & kCaches) && (hw.l1CacheBytes > 0 || hw.l2CacheBytes > 0)) {
    double sms = activeSMs(w, a.hw);
    double blocksPerSM = std::max(1.0, activeBlocksPerSM(w, a.hw, sms));
    double threads = w.blocks * w.threadsPerBlock;
    double perSM = blocksPerSM * c.windowFootprintBytes;
    double l1Avail = std::max(0.0, static_cast<double>(hw.l1CacheBytes) -
                                       blocksPerSM * w.sharedMemBytesPerBlock);
    double l1Share = perSM <= l1Avail ? 1.0 : (perSM > 0 ? l1Avail / perSM : 0.0);
    double inflight = sms * perSM;
    double l2Share = hw.l2CacheBytes <= 0 ? 0.0
                     : inflight <= static_cast<double>(hw.l2CacheBytes)
                         ? 1.0
                         : static_cast<double>(hw.l2CacheBytes) / inflight;
    // Per array: L1 catches the block's repeated requests, L2 the blocks'
    // shared elements; what leaves L2 is DRAM traffic, in whole sectors.
    // residency: an array an earlier kernel of the program used is still in L2
    // when the bytes touched since fit in it (docs/model.md, section 9).
    auto resident = [&](int array) {
      double reuse = ki.arrays[static_cast<size_t>(array)].programReuseBytes;
      return (on & kResidency) && reuse >= 0 && reuse <= static_cast<double>(hw.l2CacheBytes);
    };
    std::vector<double> &arrayLatency = scratch.arrayLatency;
    arrayLatency.assign(ki.arrays.size(), hw.dramLatencyCycles);
    // Sector bytes each array's direct loads request, against those that leave
    // L1 (toL2 below): the share of its transactions that miss L1.
    std::vector<double> &arrayL1Miss = scratch.arrayL1Miss;
    arrayL1Miss.assign(ki.arrays.size(), 0.0);
    for (const auto &u : c.accesses) {
      const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
      if (!u.viaShared && !acc.isStore)
        arrayL1Miss[static_cast<size_t>(acc.array)] += u.bytesPerThread * threads;
    }
    double requested = 0, dram = 0, l1Bytes = 0, l2Bytes = 0, latSum = 0, latInsts = 0;
    for (const auto &au : c.arrays) {
      double eb = ki.arrays[static_cast<size_t>(au.array)].elemBytes;
      dram += eb * au.storeInflation * au.storeKernelUnique;
      double &miss = arrayL1Miss[static_cast<size_t>(au.array)];
      if (au.loadRequests <= 0 || au.loadBlockUnique <= 0) {
        miss = 1.0;
        continue;
      }
      double r1 = l1Share * std::max(0.0, 1.0 - au.loadBlockUnique / au.loadRequests);
      double r2 = resident(au.array)
                      ? 1.0
                      : l2Share * std::max(0.0, 1.0 - au.kernelUnique / (au.loadBlockUnique * w.blocks));
      arrayLatency[static_cast<size_t>(au.array)] =
          r1 * hw.l1LatencyCycles + (1.0 - r1) * (r2 * hw.l2LatencyCycles + (1.0 - r2) * hw.dramLatencyCycles);
      double toL2 = eb * au.loadInflation * au.loadBlockUnique * w.blocks;
      miss = miss > 0 ? 1.0 - l1Share * std::max(0.0, 1.0 - toL2 / miss) : 1.0;
      dram += toL2 * (1.0 - r2);
      l2Bytes += toL2 * r2;
    }
    std::vector<double> &latency = scratch.latency;
    latency.assign(ki.accesses.size(), hw.dramLatencyCycles);
    // Transactions of uncoalesced instructions that leave the SM (eq. 16's
    // Uncoal_per_mw without the L1 hits, which do not queue for the memory system).
    double uncoalTrans = 0, uncoalInsts = 0;
    for (const auto &u : c.accesses) {
      if (u.viaShared)
        continue;
      const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
      requested += u.bytesPerThread * threads;
      if (!u.pattern.coalesced && u.insts > 0) {
        double miss = acc.isStore ? 1.0 : arrayL1Miss[static_cast<size_t>(acc.array)];
        uncoalTrans += u.insts * u.pattern.transactions * miss;
        uncoalInsts += u.insts;
      }
      if (acc.isStore)
        continue;
      latency[static_cast<size_t>(u.access)] = arrayLatency[static_cast<size_t>(acc.array)];
      latSum += u.insts * latency[static_cast<size_t>(u.access)];
      latInsts += u.insts;
    }
    l1Bytes = std::max(0.0, requested - l2Bytes - dram);
    if (uncoalInsts > 0)
      w.uncoalPerMw = std::max(1.0, uncoalTrans / uncoalInsts);
    // Loads that fill shared memory: reuse across blocks only. fillLatency sums
    // each fill instruction's latency (the `mlp` term waits them out one by one).
    double fillLatency = 0;
    for (const auto &au : c.arrays) {
      if (!au.cached)
        continue;
      double bytes = au.cachingInsts * w.threadsPerBlock * w.blocks *
                     ki.arrays[static_cast<size_t>(au.array)].elemBytes;
      double toL2 = au.cachingInsts * w.threadsPerBlock * w.blocks;
      double r2 = resident(au.array) ? 1.0
                  : toL2 > 0    ? l2Share * std::max(0.0, 1.0 - au.kernelUnique / toL2)
                                : 0.0;
      requested += bytes;
      dram += bytes * (1.0 - r2);
      l2Bytes += bytes * r2;
      double cachingLatency = r2 * hw.l2LatencyCycles + (1.0 - r2) * hw.dramLatencyCycles;
      fillLatency += au.cachingInsts * cachingLatency;
      latSum += au.cachingInsts * cachingLatency;
      latInsts += au.cachingInsts;
    }
    if (requested > 0) {
      a.effects.l1HitFraction = l1Bytes / requested;
      a.effects.l2HitFraction = l2Bytes / requested;
      a.effects.dramBytesPerThread = dram / threads;
      if (latInsts > 0)
        a.effects.effectiveLatencyCycles = latSum / latInsts;
      a.hw.dramLatencyCycles = std::max(1.0, a.effects.effectiveLatencyCycles);
      // Only DRAM bytes draw on the memory bandwidth (MWP_peak_BW).
      w.loadBytesPerWarp *= std::min(1.0, dram / requested);
    }
    if (on & kMlp) {
      // A warp waits, per group of independent loads, for the slowest of them.
      // slowest[block x levels + level], levels in increasing order.
      size_t levels = 1;
      for (const auto &acc : ki.accesses)
        levels = std::max(levels, static_cast<size_t>(std::max(acc.level, 0)) + 1);
      scratch.slowest.assign(ki.blocks.size() * levels, 0.0);
      scratch.present.assign(ki.blocks.size() * levels, 0);
      for (const auto &u : c.accesses) {
        const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
        if (u.viaShared || acc.isStore)
          continue;
        size_t at = static_cast<size_t>(acc.block) * levels + static_cast<size_t>(acc.level);
        scratch.present[at] = 1;
        double &m = scratch.slowest[at];
        m = std::max(m, latency[static_cast<size_t>(u.access)]);
      }
      double exposed = 0;
      for (size_t b = 0; b < ki.blocks.size(); ++b) {
        const auto &blk = ki.blocks[b];
        double unroll = blk.innermostLoop >= 0 ? static_cast<double>(l.unrollFactor(blk.innermostLoop)) : 1.0;
        for (size_t lv = 0; lv < levels; ++lv)
          if (scratch.present[b * levels + lv])
            exposed += scratch.slowest[b * levels + lv] * blk.execs / unroll;
      }
      w.exposedLatencyCycles = exposed + fillLatency;
    }
  }

  // waves: blocks start as others finish, so the waves of an SM overlap.
  w.wavesOverlap = (on & kWaves) != 0;

  if (on & kBandwidth) {
    double threads = w.blocks * w.threadsPerBlock;
    double warps = w.blocks * std::ceil(w.threadsPerBlock / hw.warpSize);
    double dram = (on & kCaches) && a.effects.dramBytesPerThread > 0
                      ? a.effects.dramBytesPerThread * threads
                      : c.requestedBytesPerThread * threads;
    a.effects.dramFloorMs = dram / (hw.memBandwidthGBps * 1e6);
    double sms = activeSMs(w, a.hw);
    double perSM = warps / sms * (w.coalMemInsts * hw.departureDelCoalCycles +
                                  w.uncoalMemInsts * w.uncoalPerMw * hw.departureDelUncoalCycles);
    a.effects.departureFloorMs = perSM / (hw.clockGHz * 1e6);
  }
  // lsu: a warp's shared-memory or coalesced global access takes one wavefront
  // of the SM's L1/shared data pipe per 128 bytes (bank conflicts are not
  // counted), a fill its load and its store, an uncoalesced access at least one
  // per 4 sectors (more when its sectors lie in more lines: a lower bound).
  if ((on & kLsu) && hw.l1WavefrontsPerCycle > 0) {
    auto dense = [&](int array) {
      return std::max(1.0, std::ceil(ki.arrays[static_cast<size_t>(array)].elemBytes * hw.warpSize / 128.0));
    };
    double wavefronts = 0;
    for (const auto &u : c.accesses) {
      const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
      if (u.viaShared || u.pattern.coalesced)
        wavefronts += u.insts * dense(acc.array);
      else
        wavefronts += u.insts * std::ceil(u.pattern.transactions / 4.0);
    }
    for (const auto &au : c.arrays)
      if (au.cached)
        wavefronts += 2.0 * au.cachingInsts * dense(au.array); // the load and the store
    double warps = w.blocks * std::ceil(w.threadsPerBlock / hw.warpSize);
    a.effects.l1WavefrontsPerWarp = wavefronts;
    a.effects.lsuFloorMs = warps / activeSMs(w, a.hw) * wavefronts /
                           (hw.l1WavefrontsPerCycle * hw.clockGHz * 1e6);
  }
  if (on & kLaunch)
    a.effects.launchMs = hw.launchOverheadUs / 1000.0;
}

} // namespace skelcast::model
