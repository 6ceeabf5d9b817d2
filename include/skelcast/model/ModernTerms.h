/// \file
/// What GPUs after 2008 need beyond Hong & Kim (docs/model.md, section 7): each
/// term is named, documented and switchable, and the paper-faithful model
/// (`--model hong-kim`) uses none of them.
///
/// - launch:     the kernel launch overhead is added to the time.
/// - waves:      an SM's successive waves of blocks overlap: Hong-Kim's case 3
///               exposes one memory latency per kernel, not one per wave.
/// - bandwidth:  the time is at least the DRAM bytes over the bandwidth and an
///               SM's memory requests times their departure delay.
/// - caches:     global accesses that hit in L1 or L2 (from the footprints of the
///               blocks in flight against the cache sizes) see their latency and
///               move no DRAM bytes.
/// - residency:  (with caches) in a program, an array an earlier kernel used is
///               read from L2 when the bytes touched since fit in it.
/// - lsu:        the time is at least an SM's L1/shared-memory wavefronts over
///               the rate its data pipe serves them.
/// - schedulers: several warp schedulers per SM issue in parallel.
/// - registers:  an estimate of registers per thread limits active blocks.
/// - mlp:        independent loads of a warp overlap their latencies.
/// - fp64:       double-precision arithmetic issues at the spec's FP64 rate.
#pragma once

#include "skelcast/layout/Characterize.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/hw/Workload.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace skelcast::model {

/// The names of the terms, in the order they are applied.
const std::vector<std::string> &modernTermNames();

struct TermEffects {
  double l1HitFraction = 0, l2HitFraction = 0; ///< of the requested bytes
  double effectiveLatencyCycles = 0;           ///< Mem_LD seen by the model
  double dramBytesPerThread = 0;
  double registersPerThread = 0;
  double blocksByRegisters = 0;
  double fp64ExtraInsts = 0;                   ///< issue slots the FP64 instructions add to Comp_insts
  double launchMs = 0;
  double dramFloorMs = 0;       ///< DRAM bytes / bandwidth
  double departureFloorMs = 0;  ///< an SM's requests x departure delay
  double l1WavefrontsPerWarp = 0; ///< shared-memory and L1 accesses, in wavefronts
  double lsuFloorMs = 0;        ///< an SM's wavefronts / l1_wavefronts_per_cycle
  double coreMs = 0;            ///< the Hong-Kim core's time, before the floors and the launch
};

/// Workload and spec as the Hong–Kim core sees them once the terms are applied.
struct AdjustedInputs {
  hw::Workload workload;
  hw::HwSpec hw;
  TermEffects effects;
};

AdjustedInputs applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                                const layout::Layout &l, const hw::HwSpec &hw,
                                const std::set<std::string> &enabled);

/// Enabled terms as bits: bit i is modernTermNames()[i].
using TermMask = uint32_t;
TermMask termMask(const std::set<std::string> &enabled);

/// Storage that applyModernTerms reuses from one layout to the next.
struct TermScratch {
  std::vector<double> arrayLatency, arrayL1Miss, latency, slowest;
  std::vector<char> present;
};

/// The same terms for the enumerator's loop: `a.hw` must be a copy of `hw` (the
/// fields the terms change are reset from `hw` first), and nothing is allocated
/// once `scratch` has grown.
void applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                      const layout::Layout &l, const hw::HwSpec &hw, TermMask enabled,
                      AdjustedInputs &a, TermScratch &scratch);

/// A register estimate per thread (docs/model.md, "registers").
double estimateRegisters(const layout::KernelInfo &ki, const layout::Layout &l);

} // namespace skelcast::model
