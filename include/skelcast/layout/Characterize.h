/// \file
/// The characterization of one layout into the model's inputs: GROPHECY's
/// equations 1-17 (SC'11 §7). Every intermediate quantity is kept so that
/// `skelcast explain` can print it; docs/model.md gives each equation.
#pragma once

#include "skelcast/layout/Coalescing.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/hw/Workload.h"

#include <memory>
#include <string>
#include <vector>

namespace skelcast::layout {

/// Instruction-count conventions of the characterization (docs/model.md, §7.3).
constexpr double kLoopControlInsts = 3; ///< increment, compare, branch per iteration (IADD3, ISETP, BRA in Hopper SASS)
/// The moves that build one 64-bit literal (its two words: UMOV or MOV pairs in
/// Hopper SASS; validation/results/h200_sass_lit64.txt).
constexpr double kLiteralMoveInsts = 2;
constexpr double kSharedAddrInsts = 1;  ///< address of a shared-memory read in a rolled loop
/// The address arithmetic a skeleton's `comp` counts for each global access
/// (a pointer increment); a read served from shared memory no longer needs it.
constexpr double kGlobalAddrInsts = 1;
constexpr double kCachingCompInsts = 2; ///< st.shared + its address per caching load

struct ArrayUse {
  int array = -1;
  double shrDegree = 0;    ///< equation 1
  bool cacheable = false;  ///< read-only, affine, ShrDegree > 1
  bool cached = false;
  double shMemElems = 0;   ///< sum over k of size(ShMem(D, k)), equation 5
  double shMemBytes = 0;   ///< ShMemAlloc(D), equation 6
  double dataReqs = 0;     ///< equation 9
  double cachingInsts = 0; ///< caching_mem_insts(D), equation 12
  WarpAccess cachingPattern;
  double kernelUnique = 0; ///< elements the whole kernel touches
  // Direct (not shared-memory) global traffic of this array, for the cache term.
  double loadRequests = 0;    ///< element loads per block
  double loadBlockUnique = 0; ///< distinct elements among them: size(H(D, B-hat))
  double loadInflation = 1, storeInflation = 1; ///< sectorInflation of the loads / stores
  double storeKernelUnique = 0; ///< distinct elements the kernel stores
};

struct AccessUse {
  int access = -1;
  bool viaShared = false; ///< reads data cached in shared memory (an A-bar access)
  double insts = 0;       ///< direct_mem_insts (equation 13) or shared reads per thread
  WarpAccess pattern;
  double bytesPerThread = 0; ///< sector bytes its instructions move per thread
  /// A shared read's wavefronts per warp instruction, bank conflicts counted
  /// (sharedWavefronts; term `banks`); 0 for a global access, or without the
  /// spec's shared_mem_banks.
  double sharedWavefronts = 0;
  /// A shared read's elements per instruction (sharedVectorElems: 4 floats
  /// or 2 doubles an `LDS.128`, else 1); `insts` counts the instructions.
  int64_t sharedVectorElems = 1;
  /// A direct load held in a register across its innermost loop
  /// (AccessInfo::heldInRegister): the times a thread loads it each time the
  /// loop starts, 1, or NumStages in a staged loop unless heldWritten (term
  /// `mlp`); 0 for any other access.
  double heldLoads = 0;
};

struct StageUse {
  int loop = -1;
  int64_t stageSize = 0; ///< equation 3 (or as given)
  double numStages = 1;  ///< equation 4
};

struct Characterization {
  hw::Workload workload;
  std::vector<ArrayUse> arrays;
  std::vector<AccessUse> accesses;
  std::vector<StageUse> stages;
  double funcInsts = 0;        ///< equation 17
  double loopControlInsts = 0;
  double literalMoveInsts = 0; ///< building the 64-bit literals (`lit64`)
  double sharedReadInsts = 0;
  double cachingCompInsts = 0;
  double avgElemBytes = 0;     ///< equation 10
  bool fits = true;            ///< shared memory per block within the spec's limit

  // Traffic, for the cache term and the roofline (docs/model.md, section 7).
  double compulsoryBytes = 0;   ///< every element the kernel touches, once: sum_D ElemBytes x H(D, all)
  double blockFootprintBytes = 0; ///< sum_D ElemBytes x H(D, B-hat) of the global accesses
  double requestedBytesPerThread = 0; ///< bytes moved per thread by its global instructions (sectors)
  double fp64Insts = 0;         ///< of funcInsts, the FP64 arithmetic ones: F x sum_i Fp64_i x LP_i
  /// Cycles a thread's dependent chains take issued alone: F x sum_i Chain_i x
  /// LP_i (the `chain` term; folded tasks and unrolled iterations do not
  /// overlap across the slow-path branch of a division or square root)
  double chainCycles = 0;
  /// The loads waited for on those chains: F x sum_i Waits_i x LP_i (each at
  /// its access's latency, which the model's `caches` term knows)
  double chainWaits = 0;
  /// Of funcInsts, the address instructions that jammed folded tasks share
  /// (term `jam`, docs/model.md section 7): sum over the affine reads from
  /// shared memory of F x the per-task count - the distinct count of eq. 13.
  double jammedAddressInsts = 0;
  double loadGroups = 0;        ///< per thread: groups of global loads in flight together
  /// Per thread: the loads of eq. 13 that folded tasks share across accesses
  /// of a read-only array (in[i - 1][j] of task f is in[i][j] of task f - 1),
  /// each loaded once: the sum of the accesses' own counts - their union's
  double sharedFoldLoads = 0;
  /// Folded tasks that run one after another (serialTasks()): 1 when they are
  /// jammed into one register tile, the fold's product otherwise.
  double serialTasks = 1;
  /// Iterations a thread runs of the loop around its loads, the one its
  /// tasks' accumulators are carried across (its executions / unrolling, x
  /// serialTasks); 0 for a nest without loops (`spills`, docs/model.md).
  double carriedIterations = 0;
  /// Of the words one iteration of that loop loads (global and shared), the
  /// ones of the unrolled copies past the first: (U - 1) / U of them, which
  /// nvcc loads ahead together (`spills`).
  double hoistedLoadWords = 0;
  double windowFootprintBytes = 0; ///< a block's footprint over a few iterations of its loops
};

/// The registers of loaded values a thread keeps in flight between two waits
/// in nvcc's code (-O3, sm_90) at ptxas's register target of 32: 4-byte loads
/// come in groups of 14 to 17 in the SASS of jammed straight-line tasks at
/// 30-32 registers (HotSpot-like 3-D and 2-D stencils folded 8 to 64 tasks a
/// thread), though the layout would put every task's loads in one group
/// (`mlp`, docs/model.md; validation/results/h200_sass_load_groups.txt).
inline constexpr double kLoadRegistersPerWait = 16;
/// The registers a thread may use where an SM holds the most threads of `l`'s
/// block size, which ptxas aims at under `__launch_bounds__(threads)`:
/// registers_per_sm / min(max warps, max blocks x the block's warps) threads,
/// 64 for blocks of 32 threads (32 of them an SM), 32 from 64 threads on.
double ptxasRegisterTarget(const Layout &l, const hw::HwSpec &hw);
/// The registers a thread spends on indices, bounds and addresses, not on
/// loaded values (loadRegistersPerWait).
inline constexpr double kAddressRegisters = 16;
/// The registers a thread may use under the `__launch_bounds__(threads)` that
/// emit writes: one block of `l`'s warps must fit the register file, spread
/// over its S = schedulers_per_sm sub-partitions, registers_per_sm / S /
/// (ceil(warps / S) x warp_size), in ptxas's allocation unit of 8, at most
/// max_registers_per_thread: 64 for 1,024 threads, 128 for 512, 255 from 256
/// down (CUDA C++ Programming Guide, "Launch Bounds").
double launchBoundRegisters(const Layout &l, const hw::HwSpec &hw);
/// The registers a thread's tasks carry across their loops: one a store of a
/// nest with loops (its accumulator), times the tasks jammed into the thread;
/// 0 for a nest without loops.
double carriedRegisters(const KernelInfo &ki, const Layout &l, double serialTasks);
/// The registers of loads a group holds in `l`: its SASS's where it was read
/// (`--load-groups sass`), else what ptxas's register target leaves after
/// kAddressRegisters and one a value the thread's tasks carry across their
/// loops, between kLoadRegistersPerWait and twice it: 16 from blocks of 64
/// threads on, up to 32 in blocks of 32 (whose SASS keeps 1.5 to 3.6 times
/// the loads a wait of the same kernel in blocks of 64: validation/results/
/// sass_block_size_load_groups.txt). `serialTasks` is serialTasks(ki, l),
/// which the characterization already holds.
double loadRegistersPerWait(const KernelInfo &ki, const Layout &l, const hw::HwSpec &hw,
                            double serialTasks);

/// How many of a thread's folded tasks run one after another: the fold's
/// product when a loop's bounds read a folded parallel index (each task has
/// its own trip count, so the tasks cannot share the loop: IspinEx's CSR row
/// with `j` folded, a triangle folded along its bound) or when a load sits in
/// a branch's arm (each task's branch closes before the next task's loads go
/// out: HotSpot's edge cases), else 1 (the tasks are jammed inside the loops
/// and their loads go out together; docs/model.md, term `mlp`).
double serialTasks(const KernelInfo &ki, const Layout &l);

/// Whether emit runs a loop over the thread's tasks around the whole body
/// (planTile, docs/emit.md "Folding"): several loops at the body's top
/// outside any branch, or none there but some under an `if`. Otherwise the
/// tasks are jammed inside the one top loop, or the loop-free body is
/// unrolled over them.
bool taskLoopAroundBody(const KernelInfo &ki);

/// Branch probability of an access: its executions over its loops' trips.
double branchFactor(const KernelInfo &ki, const AccessInfo &a);

/// ShrDegree (equation 1) of every array for a block shape and fold.
std::vector<double> shareDegrees(const KernelInfo &ki, const Layout &l);

/// StageSize(k) of equation 3: the minimum over the cached arrays read in k.
int64_t paperStageSize(const KernelInfo &ki, const Layout &l, int loop,
                       const std::vector<int> &cached);

Characterization characterize(const KernelInfo &ki, const Layout &l, const hw::HwSpec &hw);

/// Characterizes many layouts of one kernel on one GPU (the enumerator's loop),
/// with the numbers characterize() gives. What depends only on the kernel is
/// computed once; what depends only on the block shape B (the representative
/// warp's coalescing, sector inflation) once per B; what depends only on the
/// block tile min(B_d x F_d, dimension) (footprints over B-hat, stage sizes,
/// shared-memory fills) once per tile; the rest once per (B, F). A layout's own
/// part (cached data, stages, unrolling) is arithmetic that reuses the output's
/// storage: no allocation per layout once the caches are warm.
class Characterizer {
public:
  Characterizer(const KernelInfo &ki, const hw::HwSpec &hw);
  ~Characterizer();
  Characterizer(const Characterizer &) = delete;
  Characterizer &operator=(const Characterizer &) = delete;

  /// Selects B and F (one value per parallel dimension) for the calls below.
  void setShape(const std::vector<int64_t> &block, const std::vector<int64_t> &fold);
  /// Equation 1 for the current shape, per array.
  const std::vector<double> &shareDegrees() const;
  /// StageSize(k) of equation 3 for the current shape (see paperStageSize).
  int64_t stageSize(int loop, const std::vector<int> &cached);
  /// The characterization of `l`, whose B and F must be the current shape,
  /// into `out` (its vectors keep their capacity).
  void characterize(const Layout &l, Characterization &out);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace skelcast::layout
