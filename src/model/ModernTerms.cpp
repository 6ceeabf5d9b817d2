// The terms of the `skelcast` model (docs/model.md, section 7), one function
// per term and step, and the table that names and orders them.
#include "skelcast/model/ModernTerms.h"

#include "skelcast/model/Model.h"

#include <algorithm>
#include <cmath>

namespace skelcast::model {
namespace {

constexpr TermMask kMlp = termBit(TermId::Mlp);
constexpr TermMask kCaches = termBit(TermId::Caches);
constexpr TermMask kResidency = termBit(TermId::Residency);
constexpr TermMask kWalk = termBit(TermId::Walk);
constexpr TermMask kLongest = termBit(TermId::Longest);
constexpr TermMask kRmw = termBit(TermId::Rmw);
constexpr TermMask kLines = termBit(TermId::Lines);
constexpr TermMask kBanks = termBit(TermId::Banks);
constexpr TermMask kOccupancy = termBit(TermId::Occupancy);
/// The unit a miss fills in L1 and L2: a 32-byte sector (CUDA C++ Programming
/// Guide, "Device Memory Accesses": global memory is accessed in 32-byte
/// transactions on compute capability 5.x and later; the `sector` coalescing rule).
constexpr double kSectorBytes = 32;

// --- schedulers (section 7) ---------------------------------------------------
// Hong & Kim's SM has one scheduler: Comp_cycles = Issue_cycles x Total_insts.
// S schedulers issue S warp instructions per Issue_cycles:
// Issue_cycles <- Issue_cycles / schedulers_per_sm.
void adjustSchedulers(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  a.hw.issueCycles = in.hw.issueCycles / std::max(1, in.hw.schedulersPerSM);
}

// --- fp64 (section 7) ---------------------------------------------------------
// An FP64 arithmetic instruction takes peak_sp / peak_dp issue slots of the
// FP32 rate; the rest of Comp_insts (integer, moves, FP32) issue as before:
// Comp_insts <- Comp_insts + Fp64_insts x (peak_sp / peak_dp - 1), Fp64_insts
// counted as GROPHECY's eq. 17 counts Func_insts. (A GPU without FP64,
// peak_dp_gflops 0, refuses such a kernel in projectKernel.)
void adjustFp64(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  if (in.hw.peakDpGflops > 0 && in.c.fp64Insts > 0) {
    double ratio = std::max(1.0, in.hw.peakSpGflops / in.hw.peakDpGflops);
    a.effects.fp64ExtraInsts = in.c.fp64Insts * (ratio - 1.0);
    a.workload.compInsts += a.effects.fp64ExtraInsts;
  }
}

std::vector<ExplainRow> explainFp64(const TermEffects &e) {
  return {{"fp64 extra issue", e.fp64ExtraInsts, 6, "fp64 insts x (peak SP / peak DP - 1)"}};
}

// --- jam (section 7) ---------------------------------------------------------
// A thread's folded tasks are jammed into one body, so where they read the same
// element (MatMul's A[i][k] for each j of a fold along j) the compiler computes
// its address once: Comp_insts <- Comp_insts - sum over the affine reads from
// shared memory of (F x one task's instructions - eq. 13's distinct
// instructions) x the one address instruction the skeleton counts per access
// (layout::Characterization::jammedAddressInsts). Eq. 17 counts it F times.
// Direct global loads are left out: with the saving, 64-task register tiles
// that load straight from global memory became MatMul 800's favourite and ran
// 15-21 times slower than projected (h100_emit10_kernels.json), since the
// loads they keep in flight are limited by registers, which no term counts.
void adjustJam(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  a.effects.jammedAddressInsts = in.c.jammedAddressInsts;
  a.workload.compInsts = std::max(0.0, a.workload.compInsts - in.c.jammedAddressInsts);
}

std::vector<ExplainRow> explainJam(const TermEffects &e) {
  return {{"addresses jammed tasks share", e.jammedAddressInsts, 6,
           "F x a task's address insts - eq. 13's distinct ones (jam)"}};
}

// --- registers (section 7) ----------------------------------------------------
// Blocks per SM limited by the register file: a fourth bound on
// Max_active_blocks_per_SM in GROPHECY's eq. 8, whole blocks of the warps
// the register file's sub-partitions hold (hw::HwSpec::warpsByRegisters).
// (The same rule, with eq. 8's reserved shared memory, gives the device's own
// count, cudaOccupancyMaxActiveBlocksPerMultiprocessor, for the 1,028 programs
// measured on the H200 with their ptxas registers: validation/occupancy_check.py.)
void adjustRegisters(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  const hw::HwSpec &hw = in.hw;
  // ptxas's count for the emitted kernel where the toolchain stage compiled it
  double count = in.l.compiledRegisters ? static_cast<double>(*in.l.compiledRegisters)
                                        : estimateRegisters(in.ki, in.l, in.c.serialTasks, in.c.sharedFoldLoads);
  double regs = std::min(count, static_cast<double>(hw.maxRegistersPerThread));
  a.effects.registersFromPtxas = in.l.compiledRegisters.has_value();
  double warps = hw.warpsByRegisters(regs);
  double blocks = std::max(1.0, std::floor(warps / std::ceil(a.workload.threadsPerBlock / hw.warpSize)));
  a.effects.registersPerThread = regs;
  a.effects.blocksByRegisters = blocks;
  a.hw.maxBlocksPerSM = static_cast<int>(std::min<double>(hw.maxBlocksPerSM, blocks));
}

std::vector<ExplainRow> explainRegisters(const TermEffects &e) {
  return {{e.registersFromPtxas ? "registers per thread (ptxas)" : "registers per thread (estimate)",
           e.registersPerThread, 6, "0 when switched off"},
          {"blocks per SM by registers", e.blocksByRegisters, 6, "warps the sub-partitions hold / warps per block"}};
}

// --- spills (section 7) --------------------------------------------------------
// Where ptxas spilled (Layout::compiledSpillBytes, read on the --counts path),
// each thread's spill stores and loads are local-memory accesses: 4 bytes a
// thread, one L1 wavefront a warp access. Their home is the thread's stack
// frame; an SM's resident threads hold threads x frame bytes of it. L1 writes
// every store through to L2, where the stores pass at l2_store_bandwidth_gbps
// (ncu on the H200, small_k_gemm's 1,024-thread 8 x 8 tile: 99% of the local
// loads and 91% of the local stores hit L1, and every stored byte reached L2,
// 4.4 TB/s of stores for the whole kernel; validation/results/
// h200_spills_ncu.txt). The loads stay in L1 when the frames fit what shared
// memory leaves of it (l1_cache_bytes less the SM's blocks' shared memory);
// else L2 serves them when every SM's share fits what L2 keeps
// (residentBytes()); else every spilled byte streams through DRAM too. ptxas
// counts the spill code's bytes, once: spill code inside a loop runs each
// iteration, so the traffic is a lower bound there. (conv2d 4096
// `block=i:2,j:512 fold=i:8,j:8`: 1,948 + 2,008 bytes a thread, a 1,456-byte
// frame at 2,048 threads an SM, 393 MB on 132 SMs: DRAM; measured 0.37 ms
// against 0.036 without spills.)
//
// Without ptxas's count, the spills no schedule can avoid: the accumulators a
// thread's jammed tasks carry across their loop (carriedRegisters) and
// kAddressRegisters are live at once, and emit's __launch_bounds__(threads)
// caps a thread at launchBoundRegisters. The S = carried + address - cap words
// beyond it live in the stack frame (4 S bytes), each loaded and stored once
// an iteration of the loop they are carried across: 4 S x carriedIterations
// bytes of stores a thread and as many of loads. (small_k_gemm's 8 x 8 tile
// in 1,024 threads: 64 + 16 - 64 = 16 words, 1,024 bytes of stores over its
// 16 iterations; ptxas took 64 registers, an 88-byte frame, and its k loop
// stores 1,535 bytes a thread, ncu's count. In 512 threads the cap is 128 and
// ptxas spills nothing: validation/results/h200_spills_ncu.txt.)
void adjustSpills(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  const hw::HwSpec &hw = in.hw;
  double spillBytes = static_cast<double>(in.l.compiledSpillBytes);
  double storeBytes = static_cast<double>(in.l.compiledSpillStoreBytes);
  double frameBytes = static_cast<double>(in.l.compiledStackBytes);
  if (!in.l.compiledRegisters) {
    double carried = layout::carriedRegisters(in.ki, in.l, in.c.serialTasks);
    double spilled = carried + layout::kAddressRegisters - layout::launchBoundRegisters(in.l, hw);
    if (carried <= 0 || spilled <= 0)
      return;
    spilled += in.c.hoistedLoadWords;
    a.effects.spilledRegisters = spilled;
    frameBytes = 4.0 * spilled;
    storeBytes = frameBytes * std::max(1.0, in.c.carriedIterations);
    spillBytes = 2.0 * storeBytes;
  }
  if (spillBytes <= 0)
    return;
  const hw::Workload &w = a.workload;
  double sms = activeSMs(w, a.hw);
  double threads = w.blocks * w.threadsPerBlock;
  double blocksPerSM = std::min(w.blocks / sms, activeBlocksPerSM(w, a.hw, sms));
  a.effects.spillBytesPerThread = spillBytes;
  a.effects.spillFootprintPerSM = blocksPerSM * w.threadsPerBlock * frameBytes;
  a.effects.spillStoreL2Bytes = storeBytes * threads;
  a.effects.spillL2Bytes = a.effects.spillStoreL2Bytes;
  double l1Left = static_cast<double>(hw.l1CacheBytes) - blocksPerSM * w.sharedMemBytesPerBlock;
  if (a.effects.spillFootprintPerSM <= l1Left)
    return;
  a.effects.spillL2Bytes = spillBytes * threads;
  if (a.effects.spillFootprintPerSM * sms > static_cast<double>(hw.residentBytes()))
    a.effects.spillDramBytes = spillBytes * threads;
}

std::vector<ExplainRow> explainSpills(const TermEffects &e) {
  if (e.spillBytesPerThread <= 0)
    return {};
  std::vector<ExplainRow> rows;
  if (e.spilledRegisters > 0)
    rows.push_back({"registers spilled (estimate)", e.spilledRegisters, 6,
                    "accumulators + address registers - launch bound's + loads unrolled ahead (spills)"});
  rows.push_back({e.spilledRegisters > 0 ? "spill bytes per thread (estimate)" : "spill bytes per thread (ptxas)",
                  e.spillBytesPerThread, 6,
                  e.spilledRegisters > 0 ? "8 x spilled x iterations carried across (spills)"
                                         : "spill stores + spill loads (spills)"});
  rows.push_back({"stack frames per SM (bytes)", e.spillFootprintPerSM, 6, "threads an SM holds x stack frame (spills)"});
  rows.push_back({"spill bytes through L2", e.spillL2Bytes, 6,
                  "the stores; the loads too when the frames exceed what shared memory leaves of L1 (spills)"});
  rows.push_back({"spill bytes through DRAM", e.spillDramBytes, 6, "when every SM's frames exceed what L2 keeps (spills)"});
  return rows;
}

// --- mlp (section 7) ----------------------------------------------------------
// Independent loads of one warp are in flight together; a warp waits out one
// latency per group, not per instruction: the exposed memory instructions
// replace Mem_insts in Mem_cycles of CWP (Hong & Kim eq. for CWP_full) and in
// case 1. With `caches`, the caches term also waits each group out at its
// slowest load (adjustCaches).
void adjustMlp(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  a.workload.exposedMemInsts = std::min(a.workload.memInsts(), in.c.loadGroups);
  a.effects.loadGroups = in.c.loadGroups;
  a.effects.loadGroupsFromSass = in.l.compiledRegistersPerWait.has_value();
  a.effects.loadRegistersPerWait = layout::loadRegistersPerWait(in.ki, in.l, in.hw, in.c.serialTasks);
}

std::vector<ExplainRow> explainMlp(const TermEffects &e) {
  if (e.loadRegistersPerWait <= 0)
    return {}; // the term is off
  return {{e.loadGroupsFromSass ? "load registers a wait (SASS)" : "load registers a wait (estimate)",
           e.loadRegistersPerWait, 6, "what a group of loads holds in flight"},
          {"load groups per thread", e.loadGroups, 6, "each waits one latency (mlp)"}};
}

// --- rmw (section 7) ------------------------------------------------------------
// The stores of a load's statement list into its array along the same walk
// (every subscript of both affine, with the same coefficients), which the
// rules below tell apart: `pred(sameElement, ahead)` for each, `ahead` the
// elements the store's address is past the load's (NaN where the array's
// strides do not match the subscripts); true when it holds for one.
template <class Pred>
bool anyStoreOfTheSameWalk(const layout::KernelInfo &ki, const layout::AccessInfo &ld, Pred pred) {
  if (ld.isStore)
    return false;
  const layout::ArrayInfo &arr = ki.arrays[static_cast<size_t>(ld.array)];
  bool strided = arr.strides.size() == ld.index.size();
  for (const auto &st : ki.accesses) {
    if (!st.isStore || st.array != ld.array || st.block != ld.block || st.index.size() != ld.index.size())
      continue;
    bool sameWalk = true, sameElement = true;
    double ahead = 0;
    for (size_t d = 0; d < ld.index.size() && sameWalk; ++d) {
      const auto &x = ld.index[d], &y = st.index[d];
      sameWalk = layout::sameCoefficients(x, y);
      sameElement = sameElement && x.constant == y.constant;
      if (strided)
        ahead += (static_cast<double>(y.constant) - static_cast<double>(x.constant)) * static_cast<double>(arr.strides[d]);
    }
    if (sameWalk && pred(sameElement, strided ? ahead : std::nan("")))
      return true;
  }
  return false;
}

// A load whose element does not move with its innermost loop (innerStepBytes
// 0) and that a store of the same statement list writes at the same affine
// subscript reads, from the second iteration on, what the previous iteration
// stored, unless the element never leaves a register in the loop
// (AccessInfo::heldInRegister: nvcc loads mvt's `x1[i]` of
// `x1[i] = x1[i] + A[i][j] * y1[j]` once before the j loop and stores it once
// after, the SASS of `skelcast emit validation/c/mvt.c --layout block=i:256`).
bool readsThePreviousStore(const layout::KernelInfo &ki, const layout::AccessInfo &ld) {
  return ld.innerStepBytes == 0 && !ld.heldInRegister &&
         anyStoreOfTheSameWalk(ki, ld, [](bool same, double) { return same; });
}

// A load that walks its row (0 < innerStepBytes < 32) of an array that a store
// of the same statement list writes along the same walk (the same affine
// coefficients), less than a sector away: the next iteration's load waits for
// the thread's store into the sector, kStoreToLoadCycles more than a walk
// without it, and still finds the sector in L1. A thread walking u[i][j] and
// v[i][j] ran 233 cycles an iteration alone and 385 with u[i][j] = v[i][j]
// after the loads on the H200 (232.7 and 385.4, 156 on the H100;
// validation/kernels/walkstore.cu, validation/results/h*_walkstore.txt), and
// row_norm's rolled in-place division `a[i][j] = a[i][j] / r` hit L1 for 3 of
// 4 sectors as a walk without stores does (Nsight Compute,
// validation/kernels/inplace.cu, validation/results/h200_inplace_ncu.txt):
// the store delays the load, it does not take the sector (which this rule
// said until 2026-11-30).
constexpr double kStoreToLoadCycles = 152;
// An element updated in place (`a[i][j] = a[i][j] / r`: the load and the store
// at the same subscript) in an unrolled walk whose division's branch closes
// each iteration: ptxas issues iteration j + 1's load before iteration j's
// store into its sector, and the load misses L1 (84% of the sectors, against
// 25% rolled) and comes back after about 3,800 cycles. row_norm's second loop,
// one thread a row of 2,048 doubles, ran 4,018 cycles an iteration unrolled by
// 16 and 459 rolled (4.156 and 0.475 ms at 1.98 GHz; with the 16 loads first,
// then the divisions and stores, 0.309 ms; validation/kernels/inplace.cu,
// validation/results/h200_inplace.txt and h200_inplace_ncu.txt): 4,018 less
// the rolled iteration's own 213 cycles of division and hits. Measured on
// this one shape, on the H200. A walk that loads what the previous iteration
// stored (adi's p[i][j - 1]) reads it from a register instead.
constexpr double kLoadBehindStoreCycles = 3800;
bool storesIntoItsWalkedSector(const layout::KernelInfo &ki, const layout::AccessInfo &ld) {
  if (!(ld.innerStepBytes > 0 && ld.innerStepBytes < kSectorBytes))
    return false;
  double elemBytes = ki.arrays[static_cast<size_t>(ld.array)].elemBytes;
  return anyStoreOfTheSameWalk(ki, ld, [&](bool, double ahead) { return std::abs(ahead) * elemBytes < kSectorBytes; });
}

/// A walking load and a store of the same statement list at the same affine
/// subscript: the element is updated in place.
bool updatesInPlace(const layout::KernelInfo &ki, const layout::AccessInfo &ld) {
  return anyStoreOfTheSameWalk(ki, ld, [](bool same, double) { return same; });
}

/// A walking load of the element a store of the same statement list wrote in
/// an earlier iteration (adi's p[i][j - 1] after st p[i][j]: the store runs
/// ahead of the load along the walk, less than a sector away). The compiler
/// keeps the stored value in a register.
bool readsAnEarlierIterationsStore(const layout::KernelInfo &ki, const layout::AccessInfo &ld) {
  if (ld.isStore || ld.loops.empty())
    return false;
  const layout::ArrayInfo &arr = ki.arrays[static_cast<size_t>(ld.array)];
  if (arr.strides.size() != ld.index.size())
    return false;
  int var = ki.loops[static_cast<size_t>(ld.loops.back())].var;
  double walk = 0; // elements the load moves an iteration of its innermost loop
  for (size_t d = 0; d < ld.index.size(); ++d) {
    if (ld.index[d].kind != layout::IndexForm::Kind::Affine)
      return false;
    walk += static_cast<double>(ld.index[d].coef[static_cast<size_t>(var)]) * static_cast<double>(arr.strides[d]);
  }
  walk *= static_cast<double>(ki.vars[static_cast<size_t>(var)].step);
  if (walk == 0)
    return false;
  double elemBytes = arr.elemBytes;
  return anyStoreOfTheSameWalk(ki, ld, [&](bool, double ahead) {
    return ahead != 0 && (ahead > 0) == (walk > 0) && std::fmod(ahead, walk) == 0 &&
           std::abs(ahead) * elemBytes < kSectorBytes;
  });
}

/// The latency of a load that misses L1 and hits L2 with probability r2, and
/// of one that also hits L1 with probability r1: the hit-weighted Mem_LD.
double missLatency(const hw::HwSpec &hw, double r2) {
  return r2 * hw.l2LatencyCycles + (1.0 - r2) * hw.dramLatencyCycles;
}
double hitLatency(const hw::HwSpec &hw, double r1, double r2) {
  return r1 * hw.l1LatencyCycles + (1.0 - r1) * missLatency(hw, r2);
}

/// The waves of blocks, the last one whole: ceil(Rep) (eq. 8's active blocks).
double wholeWaves(const hw::Workload &w, const hw::HwSpec &hw) {
  double sms = activeSMs(w, hw);
  return std::ceil(rep(w.blocks, activeBlocksPerSM(w, hw, sms), sms) - 1e-9);
}

/// Whether no store to `array` has a subscript that reads data (its warp's
/// sectors are then computed, not a stand-in guess).
bool storesReadNoData(const layout::KernelInfo &ki, int array) {
  for (const auto &acc : ki.accesses)
    if (acc.isStore && acc.array == array && acc.hasData())
      return false;
  return true;
}

// lines: the cycles an uncoalesced load's data waits for each 128-byte line
// past the first; a spec without l1_line_latency_cycles: the L1 passes one
// line per wavefront, 1 / l1_wavefronts_per_cycle.
double lineLatencyCycles(const hw::HwSpec &hw) {
  if (hw.l1LineLatencyCycles > 0)
    return hw.l1LineLatencyCycles;
  return hw.l1WavefrontsPerCycle > 0 ? 1.0 / hw.l1WavefrontsPerCycle : 0.0;
}

// --- caches and residency (sections 7 and 9) -----------------------------------
// Per access, reuse within a block hits L1 when the sliding windows of the SM's
// blocks fit beside shared memory, and reuse across blocks hits L2 when the
// windows of all blocks in flight fit in it; the rest is DRAM. Changes Mem_LD
// (the hit-weighted latency), Load_bytes_per_warp (eq. 11: only DRAM bytes draw
// on MWP_peak_BW) and Uncoal_per_mw (eq. 16: L1 hits do not depart).
void adjustCaches(const TermInputs &in, AdjustedInputs &a, TermScratch &scratch) {
  const layout::Characterization &c = in.c;
  const layout::KernelInfo &ki = in.ki;
  const hw::HwSpec &hw = in.hw;
  const TermMask on = in.on;
  hw::Workload &w = a.workload;
  if (!(hw.l1CacheBytes > 0 || hw.l2CacheBytes > 0))
    return;
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
  // A kernel launched again over the same arrays (KernelInfo::timing) finds
  // them in L2 from its last launch, wholly when everything it touches fits in
  // l2_resident_bytes, in part up to l2_thrash_bytes: its own footprint is
  // the reuse distance of each of its arrays. The share is measured on such
  // a repeated triad and applied to the reuse between a program's kernels too.
  double footprint = 0;
  for (const auto &au : c.arrays)
    footprint += ki.arrays[static_cast<size_t>(au.array)].elemBytes * std::max(au.kernelUnique, au.storeKernelUnique);
  a.effects.footprintBytes = footprint;
  a.effects.repeatedLaunch = ki.timing != layout::LaunchTiming::Once;
  if (a.effects.repeatedLaunch && (on & kResidency))
    a.effects.footprintResidentShare = hw.residentShare(footprint);
  // The share of an array's loads L2 still holds: 1 within l2_resident_bytes,
  // falling linearly to 0 at l2_thrash_bytes (hw::HwSpec::residentShare).
  auto residentShare = [&](int array) {
    double reuse = ki.arrays[static_cast<size_t>(array)].programReuseBytes;
    if (ki.timing != layout::LaunchTiming::Once)
      reuse = reuse >= 0 ? std::min(reuse, footprint) : footprint;
    return (on & kResidency) && reuse >= 0 ? hw.residentShare(reuse) : 0.0;
  };
  std::vector<double> &arrayLatency = scratch.arrayLatency;
  arrayLatency.assign(ki.arrays.size(), hw.dramLatencyCycles);
  std::vector<double> &arrayR2 = scratch.arrayR2;
  arrayR2.assign(ki.arrays.size(), 0.0);
  // Sector bytes each array's direct loads request, against those that leave
  // L1 (toL2 below): the share of its transactions that miss L1.
  std::vector<double> &arrayL1Miss = scratch.arrayL1Miss;
  arrayL1Miss.assign(ki.arrays.size(), 0.0);
  for (const auto &u : c.accesses) {
    const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
    if (!u.viaShared && !acc.isStore)
      arrayL1Miss[static_cast<size_t>(acc.array)] += u.bytesPerThread * threads;
  }
  double requested = 0, dram = 0, l1Bytes = 0, l2Bytes = 0, l2Traffic = 0, l2Stores = 0, l2StoreMiss = 0,
         latSum = 0, latInsts = 0;
  for (const auto &au : c.arrays) {
    double eb = ki.arrays[static_cast<size_t>(au.array)].elemBytes;
    // Stores pass L2 and are written back to DRAM sooner or later, resident or not.
    double stored = eb * au.storeInflation * au.storeKernelUnique;
    l2Traffic += stored;
    l2Stores += stored;
    // What L2 does not hold from the last launch (or an earlier kernel) it
    // allocates, a sector for each part a warp store writes; the parts past
    // one a sector take that slot even where L2 holds the sector
    // (storelines.cu: 8 MB in quarter and eighth sectors, repeated, at the
    // misses' rate). Where a store's subscript reads data its sectors are a
    // stand-in guess (SpinFlap's scatter through a permutation fills each
    // thread's sector over its own iterations and ran 1.9 times faster than
    // its guessed sectors allow), so only its bytes count.
    double parts = storesReadNoData(ki, au.array) ? au.storeInflation : 1.0;
    double held = residentShare(au.array);
    l2StoreMiss += eb * au.storeKernelUnique * (parts * (1.0 - held) + std::max(0.0, parts - 1.0) * held);
    // The same guess leaves DRAM: a scatter's sectors go back whole once
    // (SpinFlap 65536's eight 4-byte stores a sector: Nsight Compute counted
    // 55 MB written of its 69 MB array, where its 4 parts a sector made 277;
    // validation/results/h200_ncu_latency_layouts.txt).
    dram += eb * parts * au.storeKernelUnique;
    double &miss = arrayL1Miss[static_cast<size_t>(au.array)];
    if (au.loadRequests <= 0 || au.loadBlockUnique <= 0) {
      miss = 1.0;
      continue;
    }
    double r1 = l1Share * std::max(0.0, 1.0 - au.loadBlockUnique / au.loadRequests);
    double r2 = held + (1.0 - held) * l2Share *
                           std::max(0.0, 1.0 - au.kernelUnique / (au.loadBlockUnique * w.blocks));
    arrayLatency[static_cast<size_t>(au.array)] =
        hitLatency(hw, r1, r2);
    arrayR2[static_cast<size_t>(au.array)] = r2;
    double toL2 = eb * au.loadInflation * au.loadBlockUnique * w.blocks;
    miss = miss > 0 ? 1.0 - l1Share * std::max(0.0, 1.0 - toL2 / miss) : 1.0;
    dram += toL2 * (1.0 - r2);
    l2Bytes += toL2 * r2;
    l2Traffic += toL2;
  }
  std::vector<double> &latency = scratch.latency;
  latency.assign(ki.accesses.size(), hw.dramLatencyCycles);
  // Transactions of uncoalesced instructions that leave the SM (eq. 16's
  // Uncoal_per_mw without the L1 hits, which do not queue for the memory system).
  double uncoalTrans = 0, uncoalInsts = 0, walkInsts = 0;
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
    double lat = arrayLatency[static_cast<size_t>(acc.array)];
    // walk: L1 latency is what a thread sees re-reading the sector it fetched
    // itself. Its address moves `step` < 32 bytes per iteration of its
    // innermost loop: a share s1 x (1 - step / 32) of its loads hits L1. The
    // block's reuse across warps (r1) still moves no DRAM bytes, but those
    // warps run together and wait for the same fill: their latency is L2's or
    // DRAM's (the H100 counters of naive MatMul: one L2 round trip per
    // iteration at L1 hit rates of 81-96%, docs/validation.md).
    // Unrolled U times, U iterations go out together and wait for the same
    // fill: a group holds a new sector unless U x step stays inside the last
    // one, so the share that finds the sector filled is 1 - U x step / 32.
    if (on & kWalk) {
      double r2 = arrayR2[static_cast<size_t>(acc.array)];
      double unrolled = acc.loops.empty() ? 1.0 : static_cast<double>(in.l.unrollFactor(acc.loops.back()));
      double walk = acc.innerStepBytes >= 0 && acc.innerStepBytes < kSectorBytes
                        ? l1Share * std::max(0.0, 1.0 - unrolled * acc.innerStepBytes / kSectorBytes)
                        : 0.0;
      // rmw: the thread's own store into the sector it walks: its next load
      // waits for the store.
      bool afterStore = (on & kRmw) && walk > 0 && storesIntoItsWalkedSector(ki, acc);
      if (afterStore)
        a.effects.storeTakenLoads += u.insts;
      lat = hitLatency(hw, walk, r2) + (afterStore ? kStoreToLoadCycles : 0.0);
      walkInsts += u.insts * walk;
    }
    // lines: an uncoalesced load returns its data l1_line_latency_cycles
    // later for each line past the first, hit or miss (the H100's chases:
    // 39.1 -> 108.0 cycles for 1 -> 32 lines on an L1 hit, 287.9 -> 366.0 from
    // L2; validation/kernels/walkstore.cu).
    if ((on & kLines) && !u.pattern.coalesced)
      lat += std::max(0.0, u.pattern.lines - 1.0) * lineLatencyCycles(hw);
    // rmw: the store went through to L2 (L1 is write-through) and the load
    // reads it back from there: two L2 round trips, every iteration.
    if ((on & kRmw) && readsThePreviousStore(ki, acc)) {
      lat = 2.0 * hw.l2LatencyCycles;
      a.effects.rmwLoads += u.insts;
    }
    latency[static_cast<size_t>(u.access)] = lat;
    latSum += u.insts * lat;
    latInsts += u.insts;
  }
  if (latInsts > 0)
    a.effects.walkHitFraction = walkInsts / latInsts;
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
    double held = residentShare(au.array);
    double r2 = held + (1.0 - held) *
                           (toL2 > 0 ? l2Share * std::max(0.0, 1.0 - au.kernelUnique / toL2) : 0.0);
    requested += bytes;
    dram += bytes * (1.0 - r2);
    l2Bytes += bytes * r2;
    l2Traffic += bytes;
    double cachingLatency = missLatency(hw, r2);
    fillLatency += au.cachingInsts * cachingLatency;
    latSum += au.cachingInsts * cachingLatency;
    latInsts += au.cachingInsts;
  }
  a.effects.l2TrafficBytes = l2Traffic;
  a.effects.l2StoreBytes = l2Stores;
  a.effects.l2StoreMissBytes = l2StoreMiss;
  if (requested > 0) {
    a.effects.l1HitFraction = l1Bytes / requested;
    a.effects.l2HitFraction = l2Bytes / requested;
    a.effects.dramBytesPerThread = dram / threads;
    a.effects.dramCounted = true;
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
    // lines: the uncoalesced loads of a group pass the L1 one after another,
    // so the group waits for each one's lines, not only the slowest's (the
    // H100's walk of two arrays: 57 cycles an iteration above the walk of one).
    scratch.passage.assign(ki.blocks.size() * levels, 0.0);
    scratch.longestPassage.assign(ki.blocks.size() * levels, 0.0);
    // A load held in a register across its innermost loop is loaded before
    // the loop (AccessUse::heldLoads times: each stage of a staged loop, after
    // the barrier, unless the loop writes it): a group of its own each time,
    // none in the loop.
    scratch.heldSlowest.assign(ki.loops.size(), 0.0);
    for (const auto &u : c.accesses) {
      const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
      if (u.viaShared || acc.isStore)
        continue;
      if (u.heldLoads > 0) {
        double &h = scratch.heldSlowest[static_cast<size_t>(acc.loops.back())];
        h = std::max(h, u.heldLoads * latency[static_cast<size_t>(u.access)]);
        continue;
      }
      size_t at = static_cast<size_t>(acc.block) * levels + static_cast<size_t>(acc.level);
      scratch.present[at] = 1;
      double &m = scratch.slowest[at];
      m = std::max(m, latency[static_cast<size_t>(u.access)]);
      if ((on & kLines) && !u.pattern.coalesced && u.insts > 0) {
        const auto &blk = ki.blocks[static_cast<size_t>(acc.block)];
        double unroll = blk.innermostLoop >= 0 ? static_cast<double>(in.l.unrollFactor(blk.innermostLoop)) : 1.0;
        double groups = blk.execs / unroll * c.serialTasks; // the group's executions per thread
        double one = std::max(0.0, u.pattern.lines - 1.0) * lineLatencyCycles(hw);
        scratch.passage[at] += groups > 0 ? u.insts / groups * one : 0.0;
        scratch.longestPassage[at] = std::max(scratch.longestPassage[at], one);
      }
    }
    double exposed = 0;
    for (size_t b = 0; b < ki.blocks.size(); ++b) {
      const auto &blk = ki.blocks[b];
      double unroll = blk.innermostLoop >= 0 ? static_cast<double>(in.l.unrollFactor(blk.innermostLoop)) : 1.0;
      for (size_t lv = 0; lv < levels; ++lv)
        if (scratch.present[b * levels + lv]) {
          size_t at = b * levels + lv;
          double queued = std::max(0.0, scratch.passage[at] - scratch.longestPassage[at]);
          exposed += (scratch.slowest[at] + queued) * blk.execs / unroll * c.serialTasks;
        }
    }
    for (size_t lp = 0; lp < ki.loops.size(); ++lp)
      exposed += scratch.heldSlowest[lp] * ki.loops[lp].execs * c.serialTasks;
    w.exposedLatencyCycles = exposed + fillLatency;
  }
}

/// Rows only for a kernel launched again over its arrays (validate's cases,
/// explain --timing alone or back_to_back): what L2 keeps of it.
std::vector<ExplainRow> explainResidency(const TermEffects &e) {
  if (!e.repeatedLaunch)
    return {};
  return {{"footprint (bytes)", e.footprintBytes, 6, "every element the kernel loads or stores, once (residency)"},
          {"kept in L2 from the last launch", e.footprintResidentShare, 4,
           "1 up to l2_resident_bytes, 0 from l2_thrash_bytes (residency)"}};
}

std::vector<ExplainRow> explainCaches(const TermEffects &e) {
  return {{"L1 hit fraction", e.l1HitFraction, 4, "reuse within a block"},
          {"L2 hit fraction", e.l2HitFraction, 4, "reuse across blocks in flight"},
          {"effective Mem_LD", e.effectiveLatencyCycles, 6, "hit-weighted L1/L2/DRAM latency"},
          {"DRAM bytes per thread", e.dramBytesPerThread, 6, "after the caches"}};
}

std::vector<ExplainRow> explainRmw(const TermEffects &e) {
  return {{"read-after-store loads per thread", e.rmwLoads, 6, "each waits 2 x L2 latency (rmw)"},
          {"walked loads after a store", e.storeTakenLoads, 6,
           "per thread; each waits for its store, 152 cycles (rmw)"}};
}

std::vector<ExplainRow> explainWalk(const TermEffects &e) {
  return {{"walk hit fraction", e.walkHitFraction, 4, "of the direct loads, served by the thread's last sector (walk)"}};
}

// --- waves (section 7) --------------------------------------------------------
// Blocks start as others finish, so the Rep waves of an SM overlap: Hong &
// Kim's case 3, (Mem_L + Comp_cycles x N) x Rep, becomes Mem_L x min(1, Rep) +
// Comp_cycles x N x Rep (hongKim reads Workload::wavesOverlap).
void adjustWaves(const TermInputs &, AdjustedInputs &a, TermScratch &) { a.workload.wavesOverlap = true; }

// --- longest (section 7) ------------------------------------------------------
// A loop whose bounds depend on a parallel index (a triangle) runs longer in
// some tasks than the mean trip the core counts. The blocks of one wave start
// together and the kernel ends with its longest block, so the time is the
// longest task's: f = max over loops of longestTrip / trip. Over R waves an SM
// runs R blocks back to back, and the long ones pad out less:
// factor = max(1, f / max(1, R)), R = Blocks / (active SMs x active blocks per SM).
void adjustLongest(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  double f = 1;
  for (const auto &lp : in.ki.loops)
    if (lp.trip > 0 && lp.longestTrip > lp.trip)
      f = std::max(f, lp.longestTrip / lp.trip);
  const hw::Workload &w = a.workload;
  double sms = activeSMs(w, a.hw);
  double waves = w.blocks / (sms * std::max(1.0, activeBlocksPerSM(w, a.hw, sms)));
  a.effects.longestFactor = std::max(1.0, f / std::max(1.0, waves));
}

/// A floor's settle step: a floor above the time gives the time its bound,
/// and joins it as their larger, or with `overlap`'s p as the smooth maximum
/// (t^p + f^p)^(1/p): a resource at its limit and another near it are not
/// both kept busy all the time (validation/kernels/overlap_sides.cu: DRAM
/// and the FMA pipes at 64 warps an SM fit p = 6.0).
void applyFloor(double floorMs, const char *bound, const TermEffects &e, HongKimResult &r) {
  if (floorMs > r.timeMs)
    r.bound = bound;
  if (e.boundOverlapExponent > 0 && floorMs > 0 && r.timeMs > 0) {
    double p = e.boundOverlapExponent, hi = std::max(floorMs, r.timeMs), lo = std::min(floorMs, r.timeMs);
    // hi x (1 + (lo / hi)^p)^(1/p): the same sum, without overflow
    r.timeMs = hi * std::pow(1.0 + std::pow(lo / hi, p), 1.0 / p);
  } else if (floorMs > r.timeMs) {
    r.timeMs = floorMs;
  }
}

void settleLongest(const TermEffects &e, HongKimResult &r) {
  if (e.longestFactor > 1)
    r.timeMs *= e.longestFactor;
}

std::vector<ExplainRow> explainLongest(const TermEffects &e) {
  return {{"longest task factor", e.longestFactor, 4, "longest trip / mean trip over the waves (longest)"}};
}

// --- tail (section 7) ------------------------------------------------------------
// Hong & Kim's Rep spreads the blocks evenly over the SMs, a fraction of a wave
// costing that fraction of a wave. The kernel lasts as long as the SM given the
// most blocks, B = ceil(Blocks / Active_SMs), which holds A of them at once
// (eq. 8 without the grid's term) and starts the next as one ends. Two bounds
// on its time, in Hong & Kim's cycles for a wave of n warps (W(n) = the case's
// Exec_cycles / Rep, waveCycles):
//  - its issue: B blocks at the rate a full SM runs them, B / A' x W(A' x w),
//    A' = min(A, B), w the warps of a block;
//  - its slots: each of the A runs its blocks one after another, and a block
//    lasts at least what it takes alone, W(w): ceil(B / A) x W(w).
//   factor = max(issue, slots) / (Rep x W(N)), N the core's active warps.
// A latency-bound block lasts as long alone as among A, so the last, partial
// round counts whole (the 2^26 triad: 249 rounds for 248.2); a compute-bound
// SM is set by its share of the blocks (conv2d 1076 x 1916's 135 blocks of one
// per SM on 132 SMs: two blocks' time) until its blocks' own latency, which the
// other warps hid, shows (MatMul 800 `block=i:4,j:16 fold=i:4,j:2`: 10 blocks
// of 2 warps, 8 at a time; the last 2 run alone as long as the first 8 did).
void adjustTail(const TermInputs &, AdjustedInputs &a, TermScratch &) {
  const hw::Workload &w = a.workload;
  // The core on the inputs as they stand: no adjust step after this one
  // changes the workload or the spec (the floors act in settle steps).
  HongKimResult core = hongKim(w, a.hw);
  double held = std::floor(residentBlocksPerSM(w, a.hw) + 1e-9);
  double whole = core.rep * waveCycles(core, core.n);
  a.effects.tailFactor = 1.0;
  // Blocks / Active_SMs in floating point: an exact share stays exact.
  double busiest = std::ceil(w.blocks / core.activeSMs - 1e-9);
  double alone = waveCycles(core, core.warpsPerBlock);
  a.effects.tailBusiestBlocks = busiest;
  a.effects.tailBlockAloneCycles = alone;
  if (held < 1 || !(whole > 0))
    return;
  double together = std::min(held, busiest);
  double issue = busiest / together * waveCycles(core, together * core.warpsPerBlock);
  double slots = std::ceil(busiest / held - 1e-9) * alone;
  a.effects.tailFactor = std::max(1.0, std::max(issue, slots) / whole);
}

/// Only where the core's bound is `latency` or `compute`: a bandwidth-bound
/// GPU runs the blocks of a partial wave faster, and the floors act after this.
void settleTail(const TermEffects &e, HongKimResult &r) {
  if (e.tailFactor > 1 && (r.bound == "latency" || r.bound == "compute"))
    r.timeMs *= e.tailFactor;
}

std::vector<ExplainRow> explainTail(const TermEffects &e) {
  return {{"blocks on the busiest SM", e.tailBusiestBlocks, 4, "ceil(Blocks / Active_SMs) (tail)"},
          {"a block alone (cycles)", e.tailBlockAloneCycles, 6,
           "W(warps of a block): Hong & Kim's case for one block's warps (tail)"},
          {"tail factor", e.tailFactor, 4,
           "max(B / A' x W(A' x w), ceil(B / A) x W(w)) / (Rep x W(N)); applied when latency or compute bound (tail)"}};
}

/// The DRAM bandwidth S busy SMs draw with `bytesPerSM` in flight each, from
/// the spec's dram_gbps_by_bytes_in_flight (measured with every SM busy):
/// Little's law B = S x I / latency(B), where the latency at the curve's point
/// (x, y) is x x sm_count / y, linear in B between points. The loaded
/// latency grows with B, so S x I / latency(B) - B falls: bisection.
double dramGBpsDrawn(const hw::HwSpec &hw, double bytesPerSM, double sms) {
  const hw::Curve &c = hw.dramGBpsByBytesInFlight;
  double n = static_cast<double>(hw.smCount);
  if (sms >= n)
    return hw.dramGBpsAt(bytesPerSM);
  auto latency = [&](double b) { // bytes x SMs / (GB/s): in units of 1e-9 s
    if (b <= c.front().second)
      return c.front().first * n / c.front().second;
    for (size_t k = 1; k < c.size(); ++k)
      if (b <= c[k].second) {
        double l0 = c[k - 1].first * n / c[k - 1].second, l1 = c[k].first * n / c[k].second;
        double span = c[k].second - c[k - 1].second;
        return span > 0 ? l0 + (b - c[k - 1].second) / span * (l1 - l0) : l1;
      }
    return c.back().first * n / c.back().second;
  };
  double top = c.back().second;
  if (sms * bytesPerSM / latency(top) >= top)
    return top;
  double lo = 0, hi = top;
  for (int it = 0; it < 60; ++it) {
    double mid = 0.5 * (lo + hi);
    (sms * bytesPerSM / latency(mid) > mid ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// --- bandwidth (section 7): two floors ------------------------------------------
// DRAM bytes / Mem_Bandwidth (after `caches`, the bytes that leave L2; without
// it, the requested bytes), and an SM's global requests x their departure delay
// (Coal_Mem_insts x Departure_del_coal + Uncoal_Mem_insts x Uncoal_per_mw x
// Departure_del_uncoal per warp, times the warps of an SM).
void adjustBandwidth(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  const hw::HwSpec &hw = in.hw;
  const hw::Workload &w = a.workload;
  double threads = w.blocks * w.threadsPerBlock;
  double warps = w.blocks * std::ceil(w.threadsPerBlock / hw.warpSize);
  double dram = ((in.on & kCaches) && a.effects.dramCounted
                     ? a.effects.dramBytesPerThread * threads
                     : in.c.requestedBytesPerThread * threads) +
                a.effects.spillDramBytes; // 0 without `spills`
  double sms = activeSMs(w, a.hw);
  // occupancy: an SM draws from DRAM at most what its active warps keep in
  // flight, W x dram_bw_per_warp_gbps (measured on the H100 by
  // validation/kernels/inflight.cu: 455 GB/s from 132 SMs of one warp, 2,884
  // of 32); W = the warps per SM of a wave, min(Blocks / Active_SMs, eq. 8's
  // active blocks) x warps per block.
  //
  // Where the spec has dram_gbps_by_bytes_in_flight (measured with every SM
  // busy by validation/kernels/inflight_grid.cu), the warps draw what that
  // curve gives for the DRAM bytes they keep in flight: Little's law with the
  // latency the load itself raises. A warp's thread spends its life in waits:
  // its load groups (`mlp`; the fills of shared memory left out, the warps of
  // a block issue them together), each as long as the hit-weighted latency
  // (`caches`' Mem_LD; DRAM's without it). In DRAM latencies that is
  // waits = groups x Mem_LD / dram_latency_cycles, and the DRAM bytes a warp
  // holds in flight on average are its DRAM bytes over those waits (the store
  // counted with the group before it, as in the program that measured the
  // curve): I = W x warp_size x DRAM bytes per thread / max(1, waits). With S
  // of the GPU's SMs busy, the bandwidth B solves B = S x I / latency(B), the
  // latency at each point of the curve being x x sm_count / y
  // (dramGBpsDrawn): at S = sm_count, curve(I).
  double bandwidth = hw.memBandwidthGBps;
  if (in.on & kOccupancy) {
    double blocksPerSM = std::min(w.blocks / sms, std::max(1.0, activeBlocksPerSM(w, a.hw, sms)));
    double warpsPerSM = blocksPerSM * std::ceil(w.threadsPerBlock / hw.warpSize);
    if (!hw.dramGBpsByBytesInFlight.empty() || !hw.dramWarpWaitCyclesByRequests.empty()) {
      double fills = 0;
      for (const auto &au : in.c.arrays)
        if (au.cached)
          fills += au.cachingInsts;
      double groups = std::max(1.0, in.c.loadGroups - fills);
      double perThread = threads > 0 ? dram / threads : 0;
      double lat = (in.on & kCaches) ? a.effects.effectiveLatencyCycles : hw.dramLatencyCycles;
      double waits = std::max(1.0, groups * lat / hw.dramLatencyCycles);
      a.effects.bytesInFlightPerSM = warpsPerSM * hw.warpSize * perThread / waits;
      if (a.effects.bytesInFlightPerSM > 0 && !hw.dramGBpsByBytesInFlight.empty())
        bandwidth = std::min(bandwidth, dramGBpsDrawn(hw, a.effects.bytesInFlightPerSM, sms));
    }
    // A warp's own bandwidth (docs/model.md eq. 7.3): where the spec has
    // dram_warp_wait_cycles_by_requests, Little's law for one warp, the bytes
    // it holds in flight (I / W) over the wait of that many 128-byte requests
    // issued together, at least one: B_w = max(I / W, 128) /
    // wait(max(1, I / W / 128)) x clock. One warp's requests leave one after
    // another (validation/kernels/inflight_walk.cu), so a warp's bandwidth
    // grows with what it holds, where dram_bw_per_warp_gbps is one value.
    if (!hw.dramWarpWaitCyclesByRequests.empty() && a.effects.bytesInFlightPerSM > 0) {
      constexpr double kRequestBytes = 128; // the walk's request: a warp's 32 floats
      double perWarp = std::max(a.effects.bytesInFlightPerSM / warpsPerSM, kRequestBytes);
      a.effects.warpDramGBps = perWarp / hw.dramWarpWaitCycles(perWarp / kRequestBytes) * hw.clockGHz;
      bandwidth = std::min(bandwidth, sms * warpsPerSM * a.effects.warpDramGBps);
    } else if (hw.dramBwPerWarpGBps > 0) {
      bandwidth = std::min(bandwidth, sms * warpsPerSM * hw.dramBwPerWarpGBps);
    }
  }
  a.effects.drawnBandwidthGBps = bandwidth;
  a.effects.dramFloorMs = dram / (bandwidth * 1e6);
  double perSM = warps / sms * (w.coalMemInsts * hw.departureDelCoalCycles +
                                w.uncoalMemInsts * w.uncoalPerMw * hw.departureDelUncoalCycles);
  a.effects.departureFloorMs = perSM / (hw.clockGHz * 1e6);
}

/// When a floor is above the core's time it is the time, and the bound is `memory`.
void settleBandwidth(const TermEffects &e, HongKimResult &r) {
  applyFloor(std::max(e.dramFloorMs, e.departureFloorMs), "memory", e, r);
}

std::vector<ExplainRow> explainBandwidth(const TermEffects &e) {
  std::vector<ExplainRow> rows;
  if (e.bytesInFlightPerSM > 0)
    rows.push_back({"DRAM bytes in flight per SM", e.bytesInFlightPerSM, 6,
                    "warps per SM x warp size x DRAM bytes per thread / (load groups x Mem_LD / DRAM latency) (occupancy)"});
  if (e.warpDramGBps > 0)
    rows.push_back({"DRAM bandwidth a warp draws (GB/s)", e.warpDramGBps, 6,
                    "max(bytes in flight per SM / warps per SM, 128) / dram_warp_wait_cycles_by_requests at "
                    "those bytes / 128 x clock (occupancy)"});
  rows.push_back({"DRAM bandwidth drawn (GB/s)", e.drawnBandwidthGBps, 6,
                  e.warpDramGBps > 0
                      ? "min(Mem_Bandwidth, dram_gbps_by_bytes_in_flight at those bytes x active SMs / SMs where given, active SMs x warps per SM x a warp's) (occupancy)"
                  : e.bytesInFlightPerSM > 0
                      ? "min(Mem_Bandwidth, dram_gbps_by_bytes_in_flight at those bytes x active SMs / SMs) (occupancy)"
                      : "Mem_Bandwidth, or active SMs x warps per SM x dram_bw_per_warp_gbps when lower (occupancy)"});
  rows.push_back({"DRAM floor (ms)", e.dramFloorMs, 6, "DRAM bytes / the bandwidth drawn (bandwidth)"});
  rows.push_back({"departure floor (ms)", e.departureFloorMs, 6, "an SM's requests x departure delay (bandwidth)"});
  return rows;
}

// --- lsu (section 7): a floor ----------------------------------------------------
// A warp's shared-memory or coalesced global access takes one wavefront of the
// SM's L1/shared data pipe per 128 bytes (with `banks`, a shared read one per
// distinct 4-byte word of its most-used bank: a k-way conflict is k), a
// fill its load and its store, an uncoalesced access at least one per 4
// sectors (more when its sectors lie in more lines: a lower bound);
// floor = warps per SM x wavefronts / (l1_wavefronts_per_cycle x clock).
// With `lines`, any global access whose threads touch L lines is L wavefronts,
// coalesced or not: on an H200 a warp load hitting L1 took L cycles of the
// SM's L1 for L = 1 to 32 lines, whether the threads of a line read distinct
// words of it or one (validation/kernels/l1lines.cu, h200_l1lines.txt); a
// 2-D block narrower than a warp reads a row-indexed element in one line
// per row of the warp (MatMul's A[i][k] in `block=i:8,j:8`: 4 lines).
void adjustLsu(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  const hw::HwSpec &hw = in.hw;
  const layout::KernelInfo &ki = in.ki;
  const hw::Workload &w = a.workload;
  if (!(hw.l1WavefrontsPerCycle > 0))
    return;
  auto dense = [&](int array) {
    return std::max(1.0, std::ceil(ki.arrays[static_cast<size_t>(array)].elemBytes * hw.warpSize / 128.0));
  };
  double wavefronts = 0;
  for (const auto &u : in.c.accesses) {
    const auto &acc = ki.accesses[static_cast<size_t>(u.access)];
    if (u.viaShared) {
      // banks: the bank holding the most distinct words serves them one a cycle;
      // an LDS.128 moves 16 bytes a lane (sharedVectorElems)
      double conflicted = (in.on & kBanks) ? u.sharedWavefronts : 0.0;
      wavefronts += u.insts * std::max(dense(acc.array) * static_cast<double>(u.sharedVectorElems), conflicted);
      continue;
    }
    double global = u.pattern.coalesced ? dense(acc.array) : std::ceil(u.pattern.transactions / 4.0);
    // lines: the L1's tag stage takes one 128-byte line a cycle, so an
    // instruction whose threads touch L lines is L wavefronts.
    wavefronts += u.insts * ((in.on & kLines) ? std::max(global, u.pattern.lines) : global);
  }
  for (const auto &au : in.c.arrays)
    if (au.cached)
      wavefronts += 2.0 * au.cachingInsts * dense(au.array); // the load and the store
  // spills: a warp's 4-byte local access is one wavefront
  wavefronts += a.effects.spillBytesPerThread / 4.0;
  double warps = w.blocks * std::ceil(w.threadsPerBlock / hw.warpSize);
  a.effects.l1WavefrontsPerWarp = wavefronts;
  // With `longest`, the SM that runs the longest block runs its wavefronts too.
  double longest = (in.on & kLongest) && a.effects.longestFactor > 1 ? a.effects.longestFactor : 1.0;
  a.effects.lsuFloorMs = longest * warps / activeSMs(w, a.hw) * wavefronts /
                         (hw.l1WavefrontsPerCycle * hw.clockGHz * 1e6);
}

/// When the floor is above the time it is the time, and the bound is `l1`.
void settleLsu(const TermEffects &e, HongKimResult &r) { applyFloor(e.lsuFloorMs, "l1", e, r); }

std::vector<ExplainRow> explainLsu(const TermEffects &e) {
  return {{"L1 wavefronts per warp", e.l1WavefrontsPerWarp, 6, "shared, fill and global accesses (lsu)"},
          {"L1 floor (ms)", e.lsuFloorMs, 6, "warps per SM x wavefronts / l1_wavefronts_per_cycle (lsu)"}};
}

// --- l2 (section 7): a floor ------------------------------------------------------
// L2 serves the SMs at l2_bandwidth_gbps: every byte between the SMs and L2,
// the loads and fills that leave L1 and the stores, passes it; the stores
// alone pass at l2_store_bandwidth_gbps, about half the loads' rate (the
// H200: loads 7.6-8.6 TB/s, stores 4.2-4.5, a copy of both 6.9-7.6,
// validation/kernels/l2read.cu), and a kernel waits for the slower of the two.
// Stores to sectors L2 does not hold pass at l2_store_miss_bandwidth_gbps,
// a sector for each part a warp store writes, and the parts past one a sector
// take that slot where L2 holds it too (the H200: 51-71 billion sector writes
// a second, 2.0 TB/s of whole sectors, validation/kernels/storelines.cu): a
// transpose whose warps store half sectors waits for twice the sectors of one
// that stores whole ones. Needs `caches`, which counts those bytes.
void adjustL2(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  if (!(in.on & kCaches) || in.hw.l2BandwidthGBps <= 0)
    return;
  auto at = [](double bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e6) : 0.0; }; // ms
  a.effects.l2FloorMs =
      std::max({at(a.effects.l2TrafficBytes + a.effects.spillL2Bytes, in.hw.l2BandwidthGBps),
                at(a.effects.l2StoreBytes + a.effects.spillStoreL2Bytes, in.hw.l2StoreBandwidthGBps),
                at(a.effects.l2StoreMissBytes, in.hw.l2StoreMissBandwidthGBps)});
}

/// When the floor is above the time it is the time, and the bound is `memory`.
void settleL2(const TermEffects &e, HongKimResult &r) { applyFloor(e.l2FloorMs, "memory", e, r); }

std::vector<ExplainRow> explainL2(const TermEffects &e) {
  return {{"L2 traffic (bytes)", e.l2TrafficBytes, 6, "loads and fills that leave L1, and the stores (l2)"},
          {"L2 store bytes", e.l2StoreBytes, 6, "of the traffic, the stores (l2)"},
          {"L2 store bytes missed", e.l2StoreMissBytes, 6, "of the stores, to sectors L2 does not hold (l2)"},
          {"L2 floor (ms)", e.l2FloorMs, 6,
           "max(L2 traffic / l2_bandwidth_gbps, stores / l2_store_bandwidth_gbps, missed / "
           "l2_store_miss_bandwidth_gbps) (l2)"}};
}

// --- blocks (section 7): a floor --------------------------------------------------
// The GPU starts thread blocks at a rate that does not depend on their size (on
// the H100 1,664 a microsecond for 32 to 512 threads a block, grids of 2^18 and
// 2^20 blocks that do nothing: validation/kernels/blockrate.cu,
// validation/results/h100_blockrate.txt), so a kernel lasts at least
// Blocks / block_starts_per_us. It binds where many small blocks each do little.
void adjustBlocks(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  if (in.hw.blockStartsPerUs > 0)
    a.effects.blockStartFloorMs = a.workload.blocks / (in.hw.blockStartsPerUs * 1000.0);
}

/// When the floor is above the time it is the time, and the bound is `blocks`.
void settleBlocks(const TermEffects &e, HongKimResult &r) { applyFloor(e.blockStartFloorMs, "blocks", e, r); }

std::vector<ExplainRow> explainBlocks(const TermEffects &e) {
  return {{"block start floor (ms)", e.blockStartFloorMs, 6, "Blocks / block_starts_per_us (blocks)"}};
}

// --- chain (section 7): a floor ---------------------------------------------------
// A correctly rounded division or square root is a sequence with a slow-path
// branch (FCHK or a range test, then BRA around a CALL): a warp issues in
// order and does not start the work after it before the sequence is done, so
// a stretch that holds one takes its dependent chain's cycles however few
// instructions it issues, and folded tasks or unrolled iterations do not
// overlap across it. Each warp of a wave runs its thread's chains one after
// another: T_chain = ceil(Rep) x (Chain_cycles + Chain_waits x Load_lat) / Freq,
// Chain_cycles = F x sum_i Chain_i x LP_i and Chain_waits = F x sum_i Waits_i x
// LP_i (the skeleton's `comp N (chain:C, waits:L)`, C in cycles of the H200's
// latencies measured by validation/kernels/chain.cu: the sm_90 GPUs only), and
// Load_lat the mean latency of the kernel's loads as `caches` sees them (a
// shared-memory read an L1 hit's), DRAM's without that term: adi's row sweep
// waits a DRAM round trip for each column element after each division.
// It binds where few warps a scheduler leave the chain exposed (nbody's
// 512 warps on 132 SMs: a square root and a division each pair).
bool chainLatenciesApply(const hw::HwSpec &hw) { return hw.computeCapability.rfind("9.", 0) == 0; }

void adjustChain(const TermInputs &in, AdjustedInputs &a, TermScratch &scratch) {
  if ((in.c.chainCycles <= 0 && in.c.chainWaits <= 0) || !chainLatenciesApply(in.hw))
    return;
  const hw::HwSpec &hw = in.hw;
  bool cached = (in.on & kCaches) && scratch.latency.size() == in.ki.accesses.size() &&
                (hw.l1CacheBytes > 0 || hw.l2CacheBytes > 0);
  // The loads a chain waits for sit in the loops of its stretches (-1: the
  // parallel body): row_norm's division waits for its second loop's loads,
  // not for the first loop's, which no chain holds.
  std::set<int> chainLoops;
  for (const auto &cp : in.ki.comps)
    if (cp.chain > 0 || cp.chainWaits > 0)
      chainLoops.insert(cp.loops.empty() ? -1 : cp.loops.back());
  auto onAChain = [&](const layout::AccessInfo &acc) {
    return chainLoops.count(acc.loops.empty() ? -1 : acc.loops.back()) > 0;
  };
  bool anyOnAChain = false;
  for (const auto &u : in.c.accesses) {
    const layout::AccessInfo &acc = in.ki.accesses[static_cast<size_t>(u.access)];
    anyOnAChain = anyOnAChain || (!acc.isStore && u.insts > 0 && onAChain(acc));
  }
  double latSum = 0, insts = 0;
  for (const auto &u : in.c.accesses) {
    const layout::AccessInfo &acc = in.ki.accesses[static_cast<size_t>(u.access)];
    if (acc.isStore || u.insts <= 0 || (anyOnAChain && !onAChain(acc)))
      continue;
    // A recurrence's load of what an earlier iteration stored (adi's
    // p[i][j - 1] after p[i][j]) comes from a register: not a wait.
    if (!u.viaShared && readsAnEarlierIterationsStore(in.ki, acc))
      continue;
    double lat = u.viaShared ? hw.l1LatencyCycles
                 : cached    ? scratch.latency[static_cast<size_t>(u.access)]
                             : hw.dramLatencyCycles;
    // A chain issues its loads one iteration at a time, unrolled or not: a
    // walk (0 <= step < 32 bytes) finds the sector an earlier iteration
    // fetched, 1 - step / 32 of the time, after the thread's own store into
    // it where there is one (as in `caches`).
    if (cached && !u.viaShared && acc.innerStepBytes >= 0 && acc.innerStepBytes < kSectorBytes) {
      bool afterStore = (in.on & kRmw) && storesIntoItsWalkedSector(in.ki, acc);
      lat = hitLatency(hw, 1.0 - acc.innerStepBytes / kSectorBytes, scratch.arrayR2[static_cast<size_t>(acc.array)]) +
            (afterStore ? kStoreToLoadCycles : 0.0);
      // An element updated in place, unrolled: ptxas issues iteration j + 1's
      // load before iteration j's store into its sector (the chain's branch
      // closes each iteration), and the load waits behind the store.
      if (afterStore && updatesInPlace(in.ki, acc) && !acc.loops.empty() && onAChain(acc) &&
          in.l.unrollFactor(acc.loops.back()) > 1)
        lat = kLoadBehindStoreCycles;
    }
    // weighted by the elements read: the chain waits a skeleton iteration's
    // reads, whether ptxas joins them into LDS.128s or not
    double reads = u.insts * static_cast<double>(u.sharedVectorElems);
    latSum += reads * lat;
    insts += reads;
  }
  a.effects.chainLoadLatency = insts > 0 ? latSum / insts : hw.l1LatencyCycles;
  double waves = std::max(1.0, wholeWaves(a.workload, a.hw));
  a.effects.chainCyclesPerThread = in.c.chainCycles + in.c.chainWaits * a.effects.chainLoadLatency;
  a.effects.chainFloorMs = waves * a.effects.chainCyclesPerThread / (hw.clockGHz * 1e6);
}

/// When the floor is above the time it is the time, and the bound is `chain`.
void settleChain(const TermEffects &e, HongKimResult &r) { applyFloor(e.chainFloorMs, "chain", e, r); }

std::vector<ExplainRow> explainChain(const TermEffects &e) {
  if (e.chainCyclesPerThread <= 0)
    return {};
  return {{"chain load latency (cycles)", e.chainLoadLatency, 6, "the loads' mean latency as caches sees them (chain)"},
          {"dependent chain per thread (cycles)", e.chainCyclesPerThread, 6,
           "F x sum_i (Chain_i + Waits_i x load latency) x LP_i (chain)"},
          {"chain floor (ms)", e.chainFloorMs, 6, "ceil(Rep) x chain cycles / Freq (chain)"}};
}

// --- launch (section 7) -----------------------------------------------------------
// A kernel launched alone: time += launch_overhead_us (on the H100 an empty
// kernel timed alone with events, the way the hand-written validation programs
// time kernels). Queued back to back behind itself (LaunchTiming::BackToBack,
// as emit's programs time kernels), the next launch is ready when the kernel
// ends: time = max(launch_back_to_back_us, time + launch_gap_us), the host's
// rate or the kernel and the GPU's gap between two kernels (measured on the
// H100 with spin kernels, validation/kernels/launches.cu).
void adjustLaunch(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  if (in.ki.timing == layout::LaunchTiming::BackToBack && in.hw.launchGapUs > 0) {
    a.effects.queued = true;
    a.effects.launchMs = in.hw.launchGapUs / 1000.0;
    a.effects.queuedLaunchMs = in.hw.launchBackToBackUs / 1000.0;
  } else {
    a.effects.launchMs = in.hw.launchOverheadUs / 1000.0;
  }
}

// --- overlap (section 7) ---------------------------------------------------------
// The floors join the core's time as a smooth maximum, (t^p + f^p)^(1/p), p
// the spec's bound_overlap_exponent (applyFloor): measured on the H200 with a
// kernel whose DRAM side and FMA side were each timed alone and together
// (validation/kernels/overlap_sides.cu, validation/overlap_fit.py): at 64
// warps an SM together took up to 1.08 times the larger side, p = 6.0.
void adjustOverlap(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  a.effects.boundOverlapExponent = in.hw.boundOverlapExponent;
}

std::vector<ExplainRow> explainOverlap(const TermEffects &e) {
  if (e.boundOverlapExponent <= 0)
    return {};
  return {{"bound overlap exponent p", e.boundOverlapExponent, 4,
           "a floor f joins the time t as (t^p + f^p)^(1/p) (overlap)"}};
}

void settleLaunch(const TermEffects &e, HongKimResult &r) {
  r.timeMs = e.queued ? std::max(e.queuedLaunchMs, r.timeMs + e.launchMs) : r.timeMs + e.launchMs;
}

std::vector<ExplainRow> explainLaunch(const TermEffects &e) {
  if (e.queued)
    return {{"launch (ms)", e.launchMs, 6, "launch_gap_us / 1000: queued back to back"},
            {"queued launch floor (ms)", e.queuedLaunchMs, 6, "launch_back_to_back_us / 1000"}};
  return {{"launch (ms)", e.launchMs, 6, "launch_overhead_us / 1000"}};
}

// --- reduction (section 7, eq. 7.1) ------------------------------------------------
// A kernel's scalar reductions (`reduce(op: s)`) as a port combines them: each
// thread's partial in a register, then per block a tree in shared memory of
// S = ceil(log2(threads per block)) steps, each a shared store, __syncthreads,
// a shared load and the operator (the R reductions of the kernel move together:
// R operators per step), then one atomic per block and reduction to the
// result's one global address. The blocks of a wave run their trees together,
// so the trees cost ceil(Rep) x S x (2 x L1_lat + R x Issue_cycles) cycles
// (shared memory is the L1's SRAM: its latency, l1_latency_cycles, an upper
// bound). Atomics to one address serialize at its L2 slice, one per
// sameAddressAtomicCycles; they overlap the blocks still running, so the
// kernel lasts at least Blocks x that, and the last
// block's atomic adds an L2 round trip:
//   T <- max(T, Blocks x t_atom / f) + (ceil(Rep) x S x (2 L1_lat + R Issue) + L2_lat) / f
/// Cycles between two atomics to one global address: the spec's measured
/// atomic_same_address_ns (1.76 ns on the H100 and the H200,
/// validation/kernels/reductions.cu), else one per clock (NVIDIA, "Kepler GK110
/// architecture whitepaper" (2012), "Shuffle instruction and atomic
/// operations": atomic throughput to a common global address is one operation
/// per clock).
double sameAddressAtomicCycles(const hw::HwSpec &hw) {
  return hw.atomicSameAddressNs > 0 ? hw.atomicSameAddressNs * hw.clockGHz : 1.0;
}

void adjustReduction(const TermInputs &in, AdjustedInputs &a, TermScratch &) {
  const double reductions = static_cast<double>(in.ki.reductionBytes.size());
  if (reductions == 0)
    return;
  const hw::HwSpec &hw = in.hw;
  const hw::Workload &w = a.workload;
  double waves = wholeWaves(w, a.hw);
  double steps = std::ceil(std::log2(std::max(1.0, w.threadsPerBlock)) - 1e-9);
  double treeCycles = std::max(1.0, waves) * steps * (2.0 * hw.l1LatencyCycles + reductions * hw.issueCycles);
  a.effects.reductions = reductions;
  a.effects.reductionSteps = steps;
  a.effects.reductionTreeMs = (treeCycles + hw.l2LatencyCycles) / (hw.clockGHz * 1e6);
  a.effects.reductionAtomicsMs = w.blocks * sameAddressAtomicCycles(hw) / (hw.clockGHz * 1e6);
}

/// The atomics are a floor (bound `memory` when they set the time), the tree and
/// the last atomic's round trip come after the blocks' work.
void settleReduction(const TermEffects &e, HongKimResult &r) {
  if (e.reductions == 0)
    return;
  r.timeMs += e.reductionTreeMs;
  applyFloor(e.reductionAtomicsMs, "memory", e, r);
}

std::vector<ExplainRow> explainReduction(const TermEffects &e) {
  if (e.reductions == 0)
    return {};
  return {{"reductions", e.reductions, 6, "reduce(op: s) of the kernel (reduction)"},
          {"block tree steps", e.reductionSteps, 6, "ceil(log2(threads per block)) (reduction)"},
          {"reduction tree + last atomic (ms)", e.reductionTreeMs, 6,
           "(ceil(Rep) x steps x (2 x l1_latency + R x issue) + l2_latency) / clock (reduction)"},
          {"same-address atomics floor (ms)", e.reductionAtomicsMs, 6,
           "Blocks x 1 cycle / clock (reduction)"}};
}

} // namespace

const std::vector<Term> &skelcastTerms() {
  static const std::vector<Term> terms{
      {TermId::Schedulers, "schedulers", "S warp schedulers per SM issue S instructions per Issue_cycles",
       adjustSchedulers, nullptr, nullptr},
      {TermId::Fp64, "fp64", "FP64 instructions issue at the spec's FP64 rate (Comp_insts)", adjustFp64,
       nullptr, explainFp64},
      {TermId::Jam, "jam", "jammed folded tasks compute once the address of a shared-memory element they all read",
       adjustJam, nullptr, explainJam},
      {TermId::Registers, "registers", "a register estimate bounds active blocks (eq. 8)", adjustRegisters,
       nullptr, explainRegisters},
      {TermId::Spills, "spills",
       "spill stores and loads (ptxas's, or the accumulators beyond the launch bound's registers) move through L1, the stores on to L2, and the loads to L2 or DRAM beyond L1",
       adjustSpills, nullptr, explainSpills},
      {TermId::Mlp, "mlp", "a warp waits one latency per group of independent loads", adjustMlp, nullptr,
       explainMlp},
      {TermId::Caches, "caches", "L1 and L2 hits see their latency and move no DRAM bytes", adjustCaches,
       nullptr, explainCaches},
      {TermId::Residency, "residency",
       "(in caches) arrays an earlier kernel left in L2 are read from it", nullptr, nullptr, explainResidency},
      {TermId::Walk, "walk", "(in caches) a thread's next iterations hit the sector it just fetched", nullptr,
       nullptr, explainWalk},
      {TermId::Rmw, "rmw", "(in caches) a load of what the previous iteration stored waits 2 L2 round trips",
       nullptr, nullptr, explainRmw},
      {TermId::Waves, "waves", "an SM's waves of blocks overlap (case 3)", adjustWaves, nullptr, nullptr},
      {TermId::Longest, "longest", "in one wave the longest task (a triangle's long rows) sets the time",
       adjustLongest, settleLongest, explainLongest},
      {TermId::Tail, "tail", "the busiest SM's blocks set the time: at a full SM's rate, or in rounds of a block alone",
       adjustTail, settleTail, explainTail},
      {TermId::Bandwidth, "bandwidth", "floors: DRAM bytes / bandwidth, requests x departure delay",
       adjustBandwidth, settleBandwidth, explainBandwidth},
      {TermId::Lsu, "lsu", "floor: L1/shared-memory wavefronts over the data pipe's rate", adjustLsu,
       settleLsu, explainLsu},
      {TermId::Lines, "lines", "(in lsu, caches) a global access is one L1 wavefront per 128-byte line it touches", nullptr,
       nullptr, nullptr},
      {TermId::Banks, "banks",
       "(in lsu) a shared-memory read is one L1 wavefront per distinct word of its most-used bank", nullptr,
       nullptr, nullptr},
      {TermId::Occupancy, "occupancy",
       "(in bandwidth) the DRAM floor at the bandwidth the active warps draw", nullptr, nullptr,
       nullptr},
      {TermId::L2, "l2",
       "floor: the bytes between the SMs and L2 over L2's bandwidth, the stores and those past L2 at their own",
       adjustL2, settleL2, explainL2},
      {TermId::Blocks, "blocks", "floor: the GPU starts thread blocks at block_starts_per_us", adjustBlocks,
       settleBlocks, explainBlocks},
      {TermId::Chain, "chain",
       "floor: a warp runs the dependent chain of a division or square root before the work after it",
       adjustChain, settleChain, explainChain},
      {TermId::Reduction, "reduction",
       "a scalar reduction: a shared-memory tree per block, one atomic per block to one address",
       adjustReduction, settleReduction, explainReduction},
      {TermId::Overlap, "overlap",
       "the floors join the time as a smooth maximum, (t^p + f^p)^(1/p): bounds near each other overlap imperfectly",
       adjustOverlap, nullptr, explainOverlap},
      {TermId::Launch, "launch", "the launch overhead is added to the time (queued: the gap between kernels)",
       adjustLaunch, settleLaunch,
       explainLaunch},
  };
  return terms;
}

const std::vector<std::string> &modernTermNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Term &t : skelcastTerms())
      n.emplace_back(t.name);
    return n;
  }();
  return names;
}

double estimateRegisters(const layout::KernelInfo &ki, const layout::Layout &l, double serialTasks,
                         double sharedLoads) {
  // Indices, bounds and base pointers; then per task a value per load of the
  // innermost body (and per accumulator), multiplied by unrolling and folding.
  // An access in a branch's arm counts by the arm's probability: the arms of a
  // branch do not hold their values at once.
  double loadsInner = 0, stores = 0;
  for (const auto &a : ki.accesses)
    (a.isStore ? stores : loadsInner) += std::min(1.0, layout::branchFactor(ki, a));
  double unroll = 1;
  for (const auto &[loop, u] : l.unroll)
    unroll = std::max(unroll, static_cast<double>(u));
  double perTask = 2.0 + stores + loadsInner * std::min(unroll, 4.0);
  // Tasks that run one after another (layout::serialTasks) hold one task's
  // values at a time, and a loop over the tasks its index and bound: ptxas
  // gives HotSpot 4096's `fold=j:4` and `fold=j:8` 24-26 registers alike
  // (h200_emit13_kernels.json).
  double fold = static_cast<double>(l.foldProduct());
  // Jammed tasks hold a loaded value they share once (Characterization::
  // sharedFoldLoads): ptxas gives vstencil k8's `fold=i:16`, 24 rows for 16
  // tasks, 32 registers (h200_emit38b_kernels.json).
  double tasks = serialTasks > 1 ? perTask + 2.0 : std::max(perTask, perTask * fold - sharedLoads);
  // A base pointer per array of the file, as before kernels carried only their own arrays.
  return 16.0 + 2.0 * static_cast<double>(std::max(ki.declaredArrays, ki.arrays.size())) + tasks;
}

TermMask termMask(const std::set<std::string> &enabled) {
  TermMask m = 0;
  for (const Term &t : skelcastTerms())
    if (enabled.count(t.name))
      m |= termBit(t.id);
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
  // Hong & Kim's inputs first: the workload as characterized, the spec fields
  // a term changes reset from `hw` (keep this list in step with the terms).
  a.workload = c.workload;
  a.workload.wavesOverlap = false;
  a.effects = TermEffects{};
  a.hw.issueCycles = hw.issueCycles;
  a.hw.maxBlocksPerSM = hw.maxBlocksPerSM;
  a.hw.dramLatencyCycles = hw.dramLatencyCycles;
  a.effects.effectiveLatencyCycles = hw.dramLatencyCycles;
  const TermInputs in{c, ki, l, hw, on};
  for (const Term &t : skelcastTerms())
    if (t.adjust && (on & termBit(t.id)))
      t.adjust(in, a, scratch);
}

void settleModernTerms(const TermEffects &e, TermMask on, HongKimResult &r) {
  for (const Term &t : skelcastTerms())
    if (t.settle && (on & termBit(t.id)))
      t.settle(e, r);
}

// The `skelcast` model: the terms' adjust steps, the Hong-Kim core on what they
// give, then their settle steps (the floors, the launch) on its time.
void SkelcastModel::evaluate(const layout::Layout &l, const layout::Characterization &c, Evaluation &out) {
  out.roofline = roofline(c, hw_);
  applyModernTerms(c, ki_, l, hw_, on_, adjusted_, scratch_);
  out.result = hongKim(adjusted_.workload, adjusted_.hw);
  adjusted_.effects.coreMs = out.result.timeMs;
  settleModernTerms(adjusted_.effects, on_, out.result);
  out.effects = adjusted_.effects;
}

} // namespace skelcast::model
