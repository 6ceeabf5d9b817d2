// Hong & Kim's MWP/CWP model (ISCA'09 §3) with GROPHECY's equation 8.
#include "skelcast/model/HongKim.h"

#include "skelcast/model/Model.h"

#include <algorithm>
#include <cmath>

namespace skelcast::model {
namespace {

bool nearlyEqual(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

} // namespace

double warpsPerBlock(const hw::Workload &w, const hw::HwSpec &hw) {
  return std::ceil(w.threadsPerBlock / hw.warpSize);
}

double activeSMs(const hw::Workload &w, const hw::HwSpec &hw) {
  return std::max(1.0, std::min(static_cast<double>(hw.smCount), w.blocks));
}

double residentBlocksPerSM(const hw::Workload &w, const hw::HwSpec &hw) {
  double byWarps = std::floor(hw.maxWarpsPerSM / warpsPerBlock(w, hw));
  // A block holds its tiles and the driver's reserved shared memory
  // (cudaOccupancyMaxActiveBlocksPerMultiprocessor counts both).
  double bySharedMem =
      w.sharedMemBytesPerBlock > 0
          ? std::floor(static_cast<double>(hw.sharedMemPerSMBytes) /
                       (w.sharedMemBytesPerBlock + static_cast<double>(hw.reservedSharedMemPerBlockBytes)))
          : static_cast<double>(hw.maxBlocksPerSM);
  return std::min({byWarps, bySharedMem, static_cast<double>(hw.maxBlocksPerSM)});
}

double activeBlocksPerSM(const hw::Workload &w, const hw::HwSpec &hw, double activeSMs) {
  return std::min(residentBlocksPerSM(w, hw), w.blocks / activeSMs);
}

// Mem_L_Uncoal = Mem_LD + (Uncoal_per_mw - 1) x Departure_del_uncoal
double memLUncoal(double memLD, double uncoalPerMw, double ddUncoal) {
  return memLD + (uncoalPerMw - 1.0) * ddUncoal;
}

// Mem_L = Mem_L_Uncoal x Weight_uncoal + Mem_L_Coal x Weight_coal
double memL(double lUncoal, double lCoal, double weightUncoal) {
  return lUncoal * weightUncoal + lCoal * (1.0 - weightUncoal);
}

// Departure_delay = Departure_del_uncoal x Uncoal_per_mw x Weight_uncoal
//                 + Departure_del_coal x Weight_coal
double departureDelay(double ddUncoal, double uncoalPerMw, double weightUncoal, double ddCoal) {
  return ddUncoal * uncoalPerMw * weightUncoal + ddCoal * (1.0 - weightUncoal);
}

// MWP_Without_BW_full = Mem_L / Departure_delay
double mwpWithoutBW(double memL, double dd) { return dd > 0 ? memL / dd : memL; }

// BW_per_warp = Freq x Load_bytes_per_warp / Mem_L  (GB/s with Freq in GHz)
double bwPerWarp(double freqGHz, double loadBytesPerWarp, double memL) {
  return memL > 0 ? freqGHz * loadBytesPerWarp / memL : 0.0;
}

// MWP_peak_BW = Mem_Bandwidth / (BW_per_warp x #ActiveSM)
double mwpPeakBW(double bw, double perWarp, double activeSMs) {
  return perWarp > 0 ? bw / (perWarp * activeSMs) : INFINITY;
}

// Comp_cycles = #Issue_cycles x #total_insts
double compCycles(double issueCycles, double totalInsts) { return issueCycles * totalInsts; }

// Mem_cycles = Mem_L_Uncoal x #Uncoal_Mem_insts + Mem_L_Coal x #Coal_Mem_insts
double memCycles(double lUncoal, double uncoal, double lCoal, double coal) {
  return lUncoal * uncoal + lCoal * coal;
}

// CWP_full = (Mem_cycles + Comp_cycles) / Comp_cycles
double cwpFull(double memCyc, double compCyc) {
  return compCyc > 0 ? (memCyc + compCyc) / compCyc : INFINITY;
}

// Rep = #Blocks / (#Active_blocks_per_SM x #Active_SMs)
double rep(double blocks, double activeBlocks, double activeSMs) {
  return activeBlocks > 0 ? blocks / (activeBlocks * activeSMs) : 0.0;
}

// Synch_cost = Departure_delay x (MWP - 1) x #synch_insts x #Active_blocks_per_SM x Rep
double synchCost(double dd, double mwp, double synchInsts, double activeBlocks, double rep) {
  return dd * std::max(0.0, mwp - 1.0) * synchInsts * activeBlocks * rep;
}

HongKimResult hongKim(const hw::Workload &w, const hw::HwSpec &hw) {
  HongKimResult r;
  r.activeSMs = activeSMs(w, hw);
  r.warpsPerBlock = warpsPerBlock(w, hw);
  r.activeBlocksPerSM = activeBlocksPerSM(w, hw, r.activeSMs);
  r.n = r.activeBlocksPerSM * r.warpsPerBlock;

  double memInsts = w.memInsts();
  r.memInsts = memInsts;
  r.weightUncoal = memInsts > 0 ? w.uncoalMemInsts / memInsts : 0.0;
  r.memLCoal = hw.dramLatencyCycles;
  r.memLUncoal = memLUncoal(hw.dramLatencyCycles, w.uncoalPerMw, hw.departureDelUncoalCycles);
  r.memL = memInsts > 0 ? memL(r.memLUncoal, r.memLCoal, r.weightUncoal) : 0.0;
  r.departureDelay = departureDelay(hw.departureDelUncoalCycles, w.uncoalPerMw, r.weightUncoal,
                                    hw.departureDelCoalCycles);
  r.mwpWithoutBW = memInsts > 0 ? mwpWithoutBW(r.memL, r.departureDelay) : r.n;
  r.bwPerWarp = bwPerWarp(hw.clockGHz, w.loadBytesPerWarp, r.memL);
  r.mwpPeakBW = mwpPeakBW(hw.memBandwidthGBps, r.bwPerWarp, r.activeSMs);
  r.mwp = std::min({r.mwpWithoutBW, r.mwpPeakBW, r.n});

  r.compCycles = compCycles(hw.issueCycles, w.totalInsts());
  r.memCycles = memCycles(r.memLUncoal, w.uncoalMemInsts, r.memLCoal, w.coalMemInsts);
  // Latency a warp waits out in sequence (all of Mem_cycles in Hong & Kim).
  r.memCyclesExposed = w.exposedLatencyCycles >= 0 ? w.exposedLatencyCycles
                       : memInsts > 0 ? r.memCycles * std::min(1.0, w.exposedInsts() / memInsts)
                                      : 0.0;
  r.cwpFull = cwpFull(r.memCyclesExposed, r.compCycles);
  r.cwp = std::min(r.cwpFull, r.n);
  r.rep = rep(w.blocks, r.activeBlocksPerSM, r.activeSMs);

  if (memInsts <= 0) {
    // No global memory instruction: the 0/0 terms vanish and the SM only computes.
    r.execCase = 3;
    r.execCycles = r.compCycles * r.n * r.rep;
  } else if (nearlyEqual(r.mwp, r.n) && nearlyEqual(r.cwp, r.n)) {
    r.execCase = 1;
    r.execCycles =
        (r.memCyclesExposed + r.compCycles + r.compCycles / memInsts * (r.mwp - 1.0)) * r.rep;
  } else if (r.cwp >= r.mwp || r.compCycles > r.memCycles) {
    r.execCase = 2;
    r.execCycles =
        (r.memCycles * r.n / r.mwp + r.compCycles / memInsts * (r.mwp - 1.0)) * r.rep;
  } else {
    r.execCase = 3;
    // Hong & Kim: (Mem_L + Comp_cycles x N) x Rep. With overlapping waves the
    // next wave's loads run under this wave's computation: Mem_L is exposed once.
    r.execCycles = w.wavesOverlap ? r.memL * std::min(1.0, r.rep) + r.compCycles * r.n * r.rep
                                  : (r.memL + r.compCycles * r.n) * r.rep;
  }
  r.synchCost = synchCost(r.departureDelay, r.mwp, w.synchInsts, r.activeBlocksPerSM, r.rep);
  r.totalCycles = r.execCycles + r.synchCost;
  r.timeMs = r.totalCycles / (hw.clockGHz * 1e6);

  r.bound = coreBound(r);
  return r;
}

std::string coreBound(const HongKimResult &r) {
  double mwpOpen = std::min(r.mwpWithoutBW, r.mwpPeakBW);
  if (r.n <= mwpOpen && r.n <= r.cwpFull)
    return "latency";
  if (r.mwp < r.cwp - 1.0)
    return "memory";
  return "compute";
}

double waveCycles(const HongKimResult &r, double n) {
  double mwp = std::min({r.mwpWithoutBW, r.mwpPeakBW, n});
  double cwp = std::min(r.cwpFull, n);
  if (r.memInsts <= 0)
    return r.compCycles * n;
  if (nearlyEqual(mwp, n) && nearlyEqual(cwp, n))
    return r.memCyclesExposed + r.compCycles + r.compCycles / r.memInsts * (mwp - 1.0);
  if (cwp >= mwp || r.compCycles > r.memCycles)
    return r.memCycles * n / mwp + r.compCycles / r.memInsts * (mwp - 1.0);
  return r.memL + r.compCycles * n;
}

// The `hong-kim` model: the equations above on the characterized workload, as is.
void HongKimModel::evaluate(const layout::Layout &, const layout::Characterization &c, Evaluation &out) {
  out.roofline = roofline(c, hw_);
  out.result = hongKim(c.workload, hw_);
  out.effects = TermEffects{};
}

} // namespace skelcast::model
