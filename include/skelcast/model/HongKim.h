/// \file
/// The MWP/CWP model of Hong and Kim ("An Analytical Model for a GPU
/// Architecture with Memory-level and Thread-level Parallelism Awareness",
/// ISCA 2009, §3-4), as GROPHECY uses it (SC'11 §7.4), one function per
/// equation, and GROPHECY's equation 8 (active blocks per SM). All quantities
/// are per SM and in cycles of the SM clock; docs/model.md lists each with its
/// source and the decisions where the papers leave room.
#pragma once

#include "skelcast/hw/HwSpec.h"
#include "skelcast/hw/Workload.h"

#include <string>

namespace skelcast::model {

/// GROPHECY eq. 8: min(Max_warps / warps_per_block, floor(SharedMem_size /
/// SharedMem_per_block), Max_blocks, Blocks / Active_SMs).
double activeBlocksPerSM(const hw::Workload &w, const hw::HwSpec &hw, double activeSMs);
/// Eq. 8 without its last term: the blocks an SM holds at once, whatever the grid.
double residentBlocksPerSM(const hw::Workload &w, const hw::HwSpec &hw);
/// warps_per_block = ceil(Thread_per_block / warp_size).
double warpsPerBlock(const hw::Workload &w, const hw::HwSpec &hw);
/// Active_SMs = min(SMs, Blocks): SMs that receive at least one block.
double activeSMs(const hw::Workload &w, const hw::HwSpec &hw);

// Hong & Kim, ISCA'09, §3: one function per equation, named after the quantity.
double memLUncoal(double memLD, double uncoalPerMw, double departureDelUncoal);
double memL(double memLUncoal, double memLCoal, double weightUncoal);
double departureDelay(double departureDelUncoal, double uncoalPerMw, double weightUncoal,
                      double departureDelCoal);
double mwpWithoutBW(double memL, double departureDelay);
double bwPerWarp(double freqGHz, double loadBytesPerWarp, double memL); // GB/s
double mwpPeakBW(double memBandwidthGBps, double bwPerWarp, double activeSMs);
double compCycles(double issueCycles, double totalInsts);
double memCycles(double memLUncoal, double uncoalMemInsts, double memLCoal,
                 double coalMemInsts);
double cwpFull(double memCycles, double compCycles);
double rep(double blocks, double activeBlocksPerSM, double activeSMs);
double synchCost(double departureDelay, double mwp, double synchInsts,
                 double activeBlocksPerSM, double rep);

/// Every intermediate quantity of one projection.
struct HongKimResult {
  double activeSMs = 0, activeBlocksPerSM = 0, warpsPerBlock = 0;
  double n = 0; ///< active warps per SM
  double memLCoal = 0, memLUncoal = 0, weightUncoal = 0, memL = 0, departureDelay = 0;
  double mwpWithoutBW = 0, bwPerWarp = 0, mwpPeakBW = 0, mwp = 0;
  double compCycles = 0, memCycles = 0, memCyclesExposed = 0, cwpFull = 0, cwp = 0;
  int execCase = 0; ///< 1: MWP = N = CWP; 2: CWP >= MWP or Comp > Mem; 3: MWP > CWP
  double memInsts = 0; ///< #Mem_insts = #Coal_Mem_insts + #Uncoal_Mem_insts
  double rep = 0, execCycles = 0, synchCost = 0, totalCycles = 0;
  double timeMs = 0;
  std::string bound; ///< memory | compute | latency
};

/// The whole model for one workload on one GPU.
HongKimResult hongKim(const hw::Workload &w, const hw::HwSpec &hw);

/// The core's bound from its quantities: `latency` where N is at most MWP
/// without its N cap and CWP_full, `memory` where MWP < CWP - 1, else
/// `compute` (what hongKim() writes to `bound`; the settle steps of the
/// modern terms overwrite that one where a floor raises the time).
std::string coreBound(const HongKimResult &r);

/// One wave of `n` warps on an SM: Exec_cycles / Rep of the case that MWP =
/// min(MWP_Without_BW, MWP_peak_BW, n) and CWP = min(CWP_full, n) select, the
/// other quantities `r`'s. The tail term weighs a last wave of fewer warps
/// against a full one with it.
double waveCycles(const HongKimResult &r, double n);

} // namespace skelcast::model
