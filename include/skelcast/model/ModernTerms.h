/// \file
/// The terms of the `skelcast` model: what GPUs after 2008 need beyond Hong &
/// Kim (docs/model.md, section 7). Each term is one named unit of the ordered
/// table skelcastTerms(): what it changes in the inputs of the Hong–Kim core
/// (`adjust`, before it), what it does to the core's time (`settle`, after it:
/// the floors and the launch), the rows `explain` prints for it, and its bit,
/// which `--without NAME` clears. The paper-faithful model (`--model hong-kim`)
/// uses none of them. In table order (which is the order they are applied in):
///
/// | term       | step   | what it does                                                  |
/// | ---------- | ------ | ------------------------------------------------------------- |
/// | schedulers | adjust | several warp schedulers per SM issue in parallel (Issue_cycles) |
/// | fp64       | adjust | double-precision arithmetic issues at the FP64 rate (Comp_insts) |
/// | jam        | adjust | jammed folded tasks share the address of an element they all read from shared memory (Comp_insts) |
/// | registers  | adjust | an estimate of registers per thread limits eq. 8's blocks       |
/// | spills     | (bandwidth, l2, lsu) | ptxas's spill stores and loads (or, without ptxas, the accumulators the launch bound leaves no register for) move through L1, and L2 or DRAM where the stack frames do not fit |
/// | mlp        | adjust | independent loads of a warp overlap their latencies (CWP)        |
/// | caches     | adjust | L1/L2 hits see their latency, move no DRAM bytes (Mem_LD, eq. 11, 16) |
/// | residency  | (caches) | in a program, arrays an earlier kernel left in L2 hit there    |
/// | walk       | (caches) | a thread's next iterations hit the sector it just fetched in L1 |
/// | rmw        | (caches) | a load of what the previous iteration stored waits for the store's round trip through L2; a walking load loses its sector to the thread's store |
/// | waves      | adjust | an SM's waves of blocks overlap (case 3 of Exec_cycles)          |
/// | longest    | both   | in one wave, the longest task (a triangle's long rows) sets the time |
/// | tail       | both   | the busiest SM sets the time: its issue, or its rounds of a block alone, whichever is longer (a latency-bound last round counts whole) |
/// | bandwidth  | settle | floors: DRAM bytes / bandwidth, an SM's requests x departure delay |
/// | lsu        | settle | floor: an SM's L1/shared-memory wavefronts over its data pipe's rate |
/// | lines      | (lsu)  | an uncoalesced access takes one wavefront per 128-byte line it touches |
/// | occupancy  | (bandwidth) | the DRAM floor at the bandwidth the active warps draw (dram_bw_per_warp_gbps or dram_warp_wait_cycles_by_requests, dram_gbps_by_bytes_in_flight) |
/// | l2         | settle | floor: the bytes between the SMs and L2 at its rates (all, the stores, the stores to sectors it does not hold) |
/// | blocks     | settle | floor: the GPU starts block_starts_per_us thread blocks a microsecond |
/// | chain      | settle | floor: a warp runs the dependent chain of a correctly rounded division or square root before the work after it |
/// | reduction  | settle | a kernel's scalar reductions: block tree in shared memory, one atomic per block |
/// | overlap    | (the floors) | a floor joins the time as (t^p + f^p)^(1/p), not max(t, f): bounds near each other overlap imperfectly (bound_overlap_exponent) |
/// | launch     | settle | the launch overhead is added to the time                         |
#pragma once

#include "skelcast/hw/HwSpec.h"
#include "skelcast/hw/Workload.h"
#include "skelcast/layout/Characterize.h"
#include "skelcast/model/HongKim.h"
#include "skelcast/model/ModelSpec.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace skelcast::model {

/// The terms, in table order (skelcastTerms()[static_cast<size_t>(id)]).
enum class TermId : unsigned {
  Schedulers, Fp64, Jam, Registers, Spills, Mlp, Caches, Residency, Walk, Rmw, Waves, Longest, Tail, Bandwidth, Lsu, Lines, Banks, Occupancy, L2, Blocks, Chain, Reduction, Overlap, Launch, Count
};

constexpr TermMask termBit(TermId t) { return TermMask{1} << static_cast<unsigned>(t); }
/// Every term on: the default `skelcast` model.
constexpr TermMask kAllTerms = (TermMask{1} << static_cast<unsigned>(TermId::Count)) - 1;

/// The names of the terms, in table order (what `--without` accepts).
const std::vector<std::string> &modernTermNames();

/// What the terms computed for one layout (`explain` prints them; 0 when off).
struct TermEffects {
  double l1HitFraction = 0, l2HitFraction = 0; ///< of the requested bytes
  double effectiveLatencyCycles = 0;           ///< Mem_LD seen by the model
  double dramBytesPerThread = 0;
  bool dramCounted = false; ///< `caches` counted dramBytesPerThread (0 when every byte is served by L1 or L2)
  double registersPerThread = 0;
  bool registersFromPtxas = false; ///< registersPerThread is ptxas's count, not the estimate
  double blocksByRegisters = 0;
  double loadGroups = 0;              ///< per thread: groups of global loads in flight together (mlp)
  double loadRegistersPerWait = 0;    ///< what bounds a group: the SASS's, else layout::loadRegistersPerWait's estimate
  bool loadGroupsFromSass = false;    ///< loadRegistersPerWait is the layout's SASS's (--load-groups sass)
  double fp64ExtraInsts = 0;                   ///< issue slots the FP64 instructions add to Comp_insts
  double jammedAddressInsts = 0;               ///< address instructions jammed folded tasks share (taken from Comp_insts)
  double launchMs = 0;
  double dramFloorMs = 0;       ///< DRAM bytes / bandwidth
  double departureFloorMs = 0;  ///< an SM's requests x departure delay
  double l1WavefrontsPerWarp = 0; ///< shared-memory and L1 accesses, in wavefronts
  double lsuFloorMs = 0;        ///< an SM's wavefronts / l1_wavefronts_per_cycle
  double coreMs = 0;            ///< the Hong-Kim core's time, before the floors and the launch
  double walkHitFraction = 0;   ///< of the direct loads' instructions, the share a thread's walk serves from L1
  double rmwLoads = 0;          ///< loads per thread that read what the previous iteration stored (rmw)
  double storeTakenLoads = 0;   ///< walking loads per thread that wait for the thread's store into their sector (rmw)
  double longestFactor = 0;     ///< longest task's iterations / the mean's, when the blocks run in one wave (else 1)
  double boundOverlapExponent = 0; ///< p by which a floor joins the time, (t^p + f^p)^(1/p); 0: the larger (overlap)
  double tailFactor = 0;        ///< the busiest SM's waves over Rep's, in Hong & Kim's cycles (applied when latency or compute bound)
  double tailBusiestBlocks = 0; ///< ceil(Blocks / Active_SMs): the blocks the busiest SM runs (tail)
  double tailBlockAloneCycles = 0; ///< W(w): Hong & Kim's cycles for one block's warps alone on an SM (tail)
  double spillBytesPerThread = 0;  ///< ptxas's spill stores and loads, or the estimate's (spills)
  /// Without ptxas's count: the accumulators and address registers beyond
  /// what the launch bound allows, and the loads an unrolled body takes ahead,
  /// which live in the stack frame (spills)
  double spilledRegisters = 0;
  double spillFootprintPerSM = 0;  ///< stack frame x the threads an SM holds (spills)
  double spillL2Bytes = 0;         ///< spill traffic that leaves L1 (spills; l2 adds it)
  double spillStoreL2Bytes = 0;    ///< of spillL2Bytes, the stores: all of them (spills; l2 adds it)
  double spillDramBytes = 0;       ///< spill traffic that leaves L2 (spills; bandwidth adds it)
  double drawnBandwidthGBps = 0; ///< the DRAM bandwidth the DRAM floor uses (occupancy: what the active warps draw)
  double bytesInFlightPerSM = 0; ///< DRAM bytes an SM's warps keep in flight (occupancy, with dram_gbps_by_bytes_in_flight)
  double warpDramGBps = 0;       ///< what one warp draws from DRAM (occupancy, with dram_warp_wait_cycles_by_requests)
  double footprintBytes = 0;    ///< every element the kernel loads or stores, once (residency of a repeated kernel)
  /// A kernel launched again over its arrays (KernelInfo::timing not Once),
  /// and the share of its footprint L2 keeps from the last launch (residency)
  bool repeatedLaunch = false;
  double footprintResidentShare = 0;
  double l2TrafficBytes = 0;    ///< bytes between the SMs and L2: what leaves L1 for loads and fills, and the stores
  double l2StoreBytes = 0;      ///< of l2TrafficBytes, the stores
  double l2StoreMissBytes = 0;  ///< of the stores, those to sectors L2 does not hold (allocated, then written back)
  double l2FloorMs = 0;         ///< max(l2TrafficBytes / l2_bandwidth_gbps, l2StoreBytes / l2_store_bandwidth_gbps, l2StoreMissBytes / l2_store_miss_bandwidth_gbps) (l2)
  double blockStartFloorMs = 0; ///< Blocks / block_starts_per_us (blocks)
  double chainLoadLatency = 0;  ///< the latency of a load on a chain: the loads' mean as caches sees them (chain)
  double chainCyclesPerThread = 0; ///< F x sum_i (Chain_i + Waits_i x chainLoadLatency) x LP_i (chain; 0 when off or none)
  double chainFloorMs = 0;      ///< ceil(Rep) x chainCyclesPerThread / Freq (chain)
  bool queued = false;          ///< launched back to back: the launch is max(queuedLaunchMs, time + launchMs)
  double queuedLaunchMs = 0;    ///< launch_back_to_back_us / 1000, when queued
  double reductions = 0;        ///< the kernel's scalar reductions (`reduce(op: s)`), 0 for none
  double reductionSteps = 0;    ///< ceil(log2(threads per block)): the block tree's steps
  double reductionTreeMs = 0;   ///< the trees of the waves of blocks (reduction)
  double reductionAtomicsMs = 0; ///< Blocks atomics to one address, serialized at L2 (reduction)
};

/// Workload and spec as the Hong–Kim core sees them once the terms are applied.
struct AdjustedInputs {
  hw::Workload workload;
  hw::HwSpec hw;
  TermEffects effects;
};

/// Storage that the terms reuse from one layout to the next.
struct TermScratch {
  std::vector<double> arrayLatency, arrayL1Miss, arrayR2, latency, slowest, passage, longestPassage;
  std::vector<double> heldSlowest; ///< per loop: the slowest load held in a register across it (mlp)
  std::vector<char> present;
};

/// What a term reads: the layout, its characterization, the kernel, the spec
/// as given, and which terms are on (a term may depend on another: `residency`
/// acts inside `caches`, `caches` waits out `mlp`'s groups, `bandwidth` reads
/// the DRAM bytes of `caches`).
struct TermInputs {
  const layout::Characterization &c;
  const layout::KernelInfo &ki;
  const layout::Layout &l;
  const hw::HwSpec &hw;
  TermMask on;
};

/// One row of `explain` for a term (the report formats the value to `digits`
/// significant digits).
struct ExplainRow {
  std::string name;
  double value = 0;
  int digits = 6;
  std::string where;
};

/// A term of the `skelcast` model.
struct Term {
  TermId id;
  const char *name;    ///< as `--without` takes it
  const char *summary; ///< one line: what it changes
  /// Before the core: changes the core's inputs (`a.workload`, `a.hw`) and
  /// records its effects. Null for a term without one.
  void (*adjust)(const TermInputs &in, AdjustedInputs &a, TermScratch &scratch);
  /// After the core: the floors and the launch act on its time and bound.
  /// Null for a term without one.
  void (*settle)(const TermEffects &e, HongKimResult &r);
  /// The rows `explain` prints for the term (whether it is on or not).
  std::vector<ExplainRow> (*explain)(const TermEffects &e);
};

/// The table, in the order the terms are applied (TermId order).
const std::vector<Term> &skelcastTerms();

/// The adjust steps of the terms in `on`, in table order. `a.hw` must be a
/// copy of `in.hw` (the fields the terms change are reset from it first), and
/// nothing is allocated once `scratch` has grown.
void applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                      const layout::Layout &l, const hw::HwSpec &hw, TermMask enabled,
                      AdjustedInputs &a, TermScratch &scratch);

/// The same for a test or a one-off: terms by name.
AdjustedInputs applyModernTerms(const layout::Characterization &c, const layout::KernelInfo &ki,
                                const layout::Layout &l, const hw::HwSpec &hw,
                                const std::set<std::string> &enabled);

/// The settle steps of the terms in `on`, in table order, on the core's result
/// `r` (whose timeMs is the core's time): the floors, then the launch.
void settleModernTerms(const TermEffects &e, TermMask on, HongKimResult &r);

/// Enabled terms as bits: bit i is modernTermNames()[i]; unknown names are ignored.
TermMask termMask(const std::set<std::string> &enabled);

/// A register estimate per thread (docs/model.md, "registers"), for a layout
/// whose folded tasks run `serialTasks` at a time one after another
/// (layout::serialTasks, the characterization's), less the loaded values its
/// jammed tasks share (Characterization::sharedFoldLoads).
double estimateRegisters(const layout::KernelInfo &ki, const layout::Layout &l, double serialTasks,
                         double sharedLoads);

} // namespace skelcast::model
