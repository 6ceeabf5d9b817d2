// GROPHECY's characterization of a code layout (SC'11 §7, equations 1-17).
//
// One implementation serves both the single layout (`characterize`, used by
// explain and validate) and the enumerator (`Characterizer`): the quantities
// are computed at the level they depend on (kernel, block shape, block tile,
// shape, layout) and summed per layout in the order of the equations, so the
// doubles are the same however many layouts share the cached parts.
#include "skelcast/layout/Characterize.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace skelcast::layout {
namespace {

int64_t tripCount(const Var &v) {
  if (!(v.trip > 0))
    return 0;
  return std::max<int64_t>(1, std::llround(v.trip));
}

/// Every sequential loop over its whole range.
IterSet fullLoops(const KernelInfo &ki) {
  IterSet s(ki.vars.size());
  for (size_t v = 0; v < ki.vars.size(); ++v)
    s[v] = {ki.vars[v].lo, tripCount(ki.vars[v]), ki.vars[v].step};
  return s;
}

/// F-hat: one thread's tasks (Fd values spaced Bd apart in each dimension).
void threadSet(const KernelInfo &ki, const std::vector<int64_t> &block,
               const std::vector<int64_t> &fold, IterSet &s) {
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    s[d] = {ki.dimLo[d], std::min(fold[d], ki.dimSize[d]), block[d]};
}

/// B-hat: one block's tile of Bd x Fd tasks in each dimension.
void blockSet(const KernelInfo &ki, const std::vector<int64_t> &block,
              const std::vector<int64_t> &fold, IterSet &s) {
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    s[d] = {ki.dimLo[d], std::min(block[d] * fold[d], ki.dimSize[d]), 1};
}

std::vector<const AccessInfo *> accessesOf(const KernelInfo &ki, int array, bool loadsOnly) {
  std::vector<const AccessInfo *> v;
  for (const auto &a : ki.accesses)
    if (a.array == array && (!loadsOnly || !a.isStore))
      v.push_back(&a);
  return v;
}

bool inLoop(const AccessInfo &a, int loop) {
  return std::find(a.loops.begin(), a.loops.end(), loop) != a.loops.end();
}

/// B-hat restricted to `count` iterations of loop k, with the loops around k at
/// their first iteration (a stage is loaded per iteration of those).
void stageSet(const KernelInfo &ki, const IterSet &blockHat, int k, int64_t count, IterSet &s) {
  s = blockHat;
  const LoopInfo &lk = ki.loops[static_cast<size_t>(k)];
  for (int p = lk.parent; p >= 0; p = ki.loops[static_cast<size_t>(p)].parent)
    s[static_cast<size_t>(ki.loops[static_cast<size_t>(p)].var)].count = 1;
  VarRange &r = s[static_cast<size_t>(lk.var)];
  r.count = std::min(count, tripCount(ki.vars[static_cast<size_t>(lk.var)]));
}

/// The innermost staged loop around an access, or -1.
int stagedLoopOf(const AccessInfo &a, const Layout &l) {
  for (auto it = a.loops.rbegin(); it != a.loops.rend(); ++it)
    if (l.stageSize(*it) > 0)
      return *it;
  return -1;
}

/// Re-reads no register holds (docs/model.md, section 2, after equation 13): a
/// thread reads the same elements again in every iteration of an enclosing
/// loop the access does not move with, when a loop inside that one moves it
/// (mm_ikj's C[i][j] in `for k { for j ... }`: the thread's row of 1,024
/// elements, read again for every k). Equation 13 counts each element once, as
/// if a register kept it from one iteration of k to the next; a register keeps
/// a value the access does not move with inside the loop (`x[i]` in `for k`),
/// not a row a rolled loop walks. The product of those loops' trips; 1 where
/// a subscript is not affine.
/// Whether loop `loop`'s index appears in the subscripts of `a` (of `vars`, a.vars()).
bool movesWith(const KernelInfo &ki, const std::vector<int> &vars, int loop) {
  int v = ki.loops[static_cast<size_t>(loop)].var;
  return std::find(vars.begin(), vars.end(), v) != vars.end();
}

double rereadFactor(const KernelInfo &ki, const AccessInfo &a) {
  for (const auto &f : a.index)
    if (f.kind != IndexForm::Kind::Affine)
      return 1.0;
  std::vector<int> vars = a.vars();
  auto moves = [&](int loop) { return movesWith(ki, vars, loop); };
  double factor = 1;
  bool movedInside = false;
  for (auto it = a.loops.rbegin(); it != a.loops.rend(); ++it) {
    if (moves(*it))
      movedInside = true;
    else if (movedInside)
      factor *= ki.loops[static_cast<size_t>(*it)].trip;
  }
  return factor;
}

/// The loops whose iterations a thread's jammed tasks cannot share loads
/// across when they run rolled (docs/model.md section 2, after equation 13):
/// the access's enclosing loops down to the innermost one it moves with, as
/// an index into a.loops; -1 when no enclosing loop moves it. Inside a rolled
/// loop the compiler loads each task's element in every iteration (conv2d's
/// img[y+p][x+q]: task f at p+1 reads what task f+1 read at p, loaded again),
/// so eq. 13's distinct elements over all iterations hold only when the
/// layout unrolls those loops fully.
int rolledDepth(const KernelInfo &ki, const AccessInfo &a) {
  std::vector<int> vars = a.vars();
  int m = -1;
  for (size_t q = 0; q < a.loops.size(); ++q)
    if (movesWith(ki, vars, a.loops[q]))
      m = static_cast<int>(q);
  return m;
}

// Equation 1: ShrDegree(D) = size(H(D, F)) x size(B) / size(H(D, B))
double shrDegree(double hThread, double sizeB, double hBlock) {
  return hBlock > 0 ? hThread * sizeB / hBlock : 0.0;
}

/// Equations 2 and 3 for one array: StageSize(D, k) from size(H(D, B ^ k:<0,1,1>))
/// (h1) and size(H(D, B ^ k)) (hAll).
double stageSizeOf(double h1, double hAll, int64_t trip, double sizeB) {
  // Equation 2: StageShrDegree = size(H(D, B ^ k:<0,1,1>)) x size(k) / size(H(D, B ^ k))
  double stageShr = h1 * static_cast<double>(trip) / hAll;
  // Equation 3: StageSize(D, k) = size(B) x StageShrDegree / size(H(D, B ^ k:<0,1,1>))
  return sizeB * stageShr / h1;
}

/// StageSize(k): the minimum over the arrays, at least 1 and at most the trip.
int64_t finishStageSize(double best, int64_t trip) {
  if (best < 1)
    return 1;
  return std::min<int64_t>(trip, static_cast<int64_t>(std::floor(best)));
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (auto x : v)
    p *= x;
  return p;
}

struct VecHash {
  size_t operator()(const std::vector<int64_t> &v) const {
    uint64_t h = 1469598103934665603ull;
    for (auto x : v)
      h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

} // namespace

double branchFactor(const KernelInfo &ki, const AccessInfo &a) {
  double trips = 1;
  for (int lp : a.loops)
    trips *= ki.loops[static_cast<size_t>(lp)].trip;
  return trips > 0 ? a.execs / trips : 0.0;
}

/// The reasons a fold's tasks run one after another that its block and fold
/// alone decide (equation 13 counts their loads before the layout's stages and
/// unrolling are known).
static bool serialByFold(const KernelInfo &ki, const Layout &l) {
  // A load in a branch's arm: each task's branch closes before the next
  // task's loads go out (the SASS of hotspot_steps' fold=r:4,c:2 on the H200,
  // validation/results/h200_ncu_branch_folds.txt).
  for (const AccessInfo &a : ki.accesses)
    if (!a.isStore && a.block >= 0 && ki.blocks[static_cast<size_t>(a.block)].branchArm)
      return true;
  for (const LoopInfo &li : ki.loops)
    for (int d : li.boundDims)
      if (d >= 0 && static_cast<size_t>(d) < l.fold.size() && l.fold[static_cast<size_t>(d)] > 1)
        return true;
  return false;
}

double serialTasks(const KernelInfo &ki, const Layout &l) {
  if (serialByFold(ki, l))
    return static_cast<double>(l.foldProduct());
  // The tasks run inside one streaming loop where the body has exactly one
  // loop at its top outside any branch (statements beside it, a loop under an
  // `if` among them, run in phases over the tasks), or a staged loop to run
  // them in; several such loops side by side (softmax's max, sum and scale),
  // or none but under an `if`, keep a loop over the tasks around the whole
  // body (emit's planTile, docs/emit.md "Folding"). Where every loop is
  // unrolled whole the jammed count stands: SpinFlap 65536's fold=i:4 keeps
  // the task loop rolled in its SASS, one group of 8 loads a task, which the
  // jammed count's register bound gives (4 groups), where one after another
  // would add each task's index level; a loop left rolled runs each task's
  // iterations after the last task's (softmax_rows 16384's `block=i:32
  // fold=i:2` ran 0.85 ms, the unfolded 0.52, on the H200, h200_emit39).
  if (l.stages.empty() && taskLoopAroundBody(ki)) {
    bool rolled = false;
    for (size_t lp = 0; lp < ki.loops.size(); ++lp) {
      const LoopInfo &li = ki.loops[lp];
      rolled = rolled || !li.constTrip || static_cast<double>(l.unrollFactor(static_cast<int>(lp))) < li.trip;
    }
    if (rolled)
      return static_cast<double>(l.foldProduct());
  }
  return 1.0;
}

bool taskLoopAroundBody(const KernelInfo &ki) {
  int top = 0;
  bool branched = false;
  for (const LoopInfo &li : ki.loops)
    if (li.parent < 0) {
      top += li.inBranch ? 0 : 1;
      branched = branched || li.inBranch;
    }
  return top > 1 || (top == 0 && branched);
}

std::vector<double> shareDegrees(const KernelInfo &ki, const Layout &l) {
  IterSet th = fullLoops(ki), bl = fullLoops(ki);
  threadSet(ki, l.block, l.fold, th);
  blockSet(ki, l.block, l.fold, bl);
  std::vector<double> out(ki.arrays.size(), 0);
  double sizeB = static_cast<double>(l.threadsPerBlock());
  for (size_t d = 0; d < ki.arrays.size(); ++d) {
    auto acc = accessesOf(ki, static_cast<int>(d), false);
    if (acc.empty())
      continue;
    double hb = footprint(ki, acc, bl).size;
    out[d] = shrDegree(footprint(ki, acc, th).size, sizeB, hb);
  }
  return out;
}

int64_t paperStageSize(const KernelInfo &ki, const Layout &l, int loop,
                       const std::vector<int> &cached) {
  const Var &kv = ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(loop)].var)];
  int64_t trip = tripCount(kv);
  IterSet bl = fullLoops(ki), set;
  blockSet(ki, l.block, l.fold, bl);
  double best = 0;
  for (int d : cached) {
    std::vector<const AccessInfo *> acc;
    for (const auto *a : accessesOf(ki, d, true))
      if (inLoop(*a, loop))
        acc.push_back(a);
    if (acc.empty())
      continue;
    stageSet(ki, bl, loop, 1, set);
    double h1 = footprint(ki, acc, set).size;
    stageSet(ki, bl, loop, trip, set);
    double hAll = footprint(ki, acc, set).size;
    if (h1 <= 0 || hAll <= 0)
      continue;
    double s = stageSizeOf(h1, hAll, trip, static_cast<double>(l.threadsPerBlock()));
    best = best == 0 ? s : std::min(best, s);
  }
  return finishStageSize(best, trip);
}

// ---------------------------------------------------------------------------
struct Characterizer::Impl {
  /// Footprints over B-hat and what follows from them: one per block tile.
  struct Tile {
    std::vector<double> accessBlock;  ///< per access: size(P(A, B-hat))
    std::vector<double> arrayBlock;   ///< per array: size(H(D, B-hat))
    std::vector<double> loadsBlock;   ///< per array: size(H(loads of D, B-hat))
    std::vector<double> window;       ///< per array: H over the block's sliding window
    double blockFootprintBytes = 0;
    struct Stage {
      bool done = false, any = false;
      double h1 = 0, hAll = 0;
    };
    std::vector<Stage> stage; ///< [loop x arrays + array], filled on first use
    /// ShMem(D, k) of equation 5 for one group of loads of D.
    struct Fill {
      int array = -1, loop = -1;
      int64_t stageSize = 0;
      uint64_t members = 0; ///< positions in the array's loads
      double size = 0;
      FootprintBox box;
      int64_t warp = -1; ///< the warp size `pattern` was computed for
      WarpAccess pattern;
      /// Per position in the array's loads: a member read's wavefronts
      /// (sharedWavefronts), for the block, fold and unrolling in `wavesKey`.
      std::vector<double> waves;
      /// Per position: a member read's elements per instruction (sharedVectorElems; 0 for others).
      std::vector<int64_t> vectors;
      std::vector<int64_t> wavesKey;
    };
    std::vector<Fill> fills;
  };

  const KernelInfo &ki;
  const hw::HwSpec &hw;
  size_t nDims, nArrays, nAccesses;

  // Kernel level.
  std::vector<std::vector<const AccessInfo *>> all, loads, stores; // per array
  std::vector<std::vector<const AccessInfo *>> loadsInLoop;        // [loop x arrays + array]
  std::vector<int> loadPos;              ///< per access: position among its array's loads, or -1
  std::vector<char> readOnlyAffine;      ///< per array
  std::vector<char> dataLoads;           ///< per array: a load depends on data
  std::vector<double> kernelUnique, storeKernelUnique;
  double compulsoryBytes = 0;
  IterSet full;

  // Block-shape level.
  std::vector<int64_t> block;
  bool haveBlock = false;
  std::vector<WarpAccess> pattern;       ///< per access: directAccessPattern
  std::vector<double> loadInflation, storeInflation; ///< per array, of the block (fold 1)
  std::vector<double> shapeLoadInflation;            ///< per array, with the shape's fold

  // Shape level.
  std::vector<int64_t> fold;
  int64_t tpbInt = 0;
  double tpb = 0, foldProduct = 0, blocks = 0, funcInsts = 0, fp64Insts = 0, chainCycles = 0, chainWaits = 0;
  IterSet th, bl, tmp;
  std::vector<int64_t> tileKey;
  std::unordered_map<std::vector<int64_t>, Tile, VecHash> tiles;
  Tile *tile = nullptr;
  std::vector<double> shr, insts, bytesPerThread, loadRequests, loadBlockUnique;
  /// Per access: equation 13's instructions of one task (fold 1); 0 for a
  /// data-dependent access (it counts every execution, so no task shares it).
  std::vector<double> taskInsts;
  /// Per access: the address instructions its jammed folded tasks share.
  std::vector<double> jammedAddress;
  /// Per access: eq. 13's instructions when the loops down to the innermost
  /// one it moves with run rolled (rolledDepth): the distinct elements of one
  /// iteration of them, times their trips; insts where that is no more.
  std::vector<double> rolledInsts;
  /// Per access: rolledDepth, which depends on the kernel alone.
  std::vector<int> rolledDepths;

  // Layout level scratch.
  std::vector<int> maxLevel, groupLoops;
  std::vector<uint64_t> levelsPresent, heldLevels; ///< per block: bit v set when a direct (held) load of level v is in it
  std::vector<double> heldGroups;      ///< per loop: groups of its held loads each time it starts
  std::vector<double> registerGroups; ///< per block: groups its direct loads' registers fill per thread
  std::vector<double> rolledScale; ///< per access: rolled insts / eq. 13's

  Impl(const KernelInfo &k, const hw::HwSpec &h);
  void setBlock(const std::vector<int64_t> &b);
  void setShape(const std::vector<int64_t> &b, const std::vector<int64_t> &f);
  Tile &makeTile();
  const Tile::Stage &stageOf(int loop, int array);
  Tile::Fill computeFill(int array, int loop, int64_t stageSize, uint64_t members,
                         const std::vector<const AccessInfo *> &grp);
  /// The fill of the loads of `array` at positions `members`, remembered per tile.
  Tile::Fill &fill(int array, int loop, int64_t stageSize, uint64_t members);
  /// The wavefronts of the fill's member reads (term `banks`), kept in it.
  void fillWaves(Tile::Fill &f, const std::vector<const AccessInfo *> &ld, const Layout &l, int loop);
  std::vector<double> sharedWaves; ///< per access, this layout's (0: not a shared read)
  std::vector<int64_t> sharedVectors; ///< per access, elements a shared read instruction loads
  int64_t stageSize(int loop, const std::vector<int> &cached);
  /// Groups of two or more loads that folded tasks may share across
  /// accesses (shareFoldedLoads), which depend on the kernel alone.
  std::vector<std::vector<size_t>> shiftedLoads;
  void shareFoldedLoads(const std::vector<int64_t> &blk, const std::vector<int64_t> &f, bool serial);
  double sharedLoads = 0; ///< this shape's loads shared by shareFoldedLoads
  void run(const Layout &l, Characterization &c);

  size_t indexOf(const AccessInfo *a) const { return static_cast<size_t>(a - ki.accesses.data()); }
  double bytesPerWarpInst(const WarpAccess &p, int eb) const {
    return p.coalesced ? static_cast<double>(eb) * std::min<double>(hw.warpSize, tpb)
                       : p.transactions * 32.0;
  }
};

Characterizer::Impl::Impl(const KernelInfo &k, const hw::HwSpec &h)
    : ki(k), hw(h), nDims(k.dimNames.size()), nArrays(k.arrays.size()),
      nAccesses(k.accesses.size()) {
  full = fullLoops(ki);
  th = bl = full;
  loadPos.assign(nAccesses, -1);
  all.resize(nArrays);
  loads.resize(nArrays);
  stores.resize(nArrays);
  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo &a = ki.accesses[i];
    size_t d = static_cast<size_t>(a.array);
    all[d].push_back(&a);
    if (a.isStore) {
      stores[d].push_back(&a);
    } else {
      loadPos[i] = static_cast<int>(loads[d].size());
      loads[d].push_back(&a);
    }
  }
  loadsInLoop.resize(ki.loops.size() * nArrays);
  for (size_t lp = 0; lp < ki.loops.size(); ++lp)
    for (size_t d = 0; d < nArrays; ++d)
      for (const auto *a : loads[d])
        if (inLoop(*a, static_cast<int>(lp)))
          loadsInLoop[lp * nArrays + d].push_back(a);
  readOnlyAffine.assign(nArrays, 0);
  dataLoads.assign(nArrays, 0);
  for (size_t d = 0; d < nArrays; ++d) {
    bool readOnly = loads[d].size() == all[d].size() && !loads[d].empty();
    bool affine = std::none_of(loads[d].begin(), loads[d].end(),
                               [](const AccessInfo *a) { return a->hasData(); });
    readOnlyAffine[d] = readOnly && affine;
    dataLoads[d] = !affine;
  }
  // The whole kernel's footprints (compulsory traffic, stores).
  IterSet whole = full;
  for (size_t d = 0; d < nDims; ++d)
    whole[d] = {ki.dimLo[d], ki.dimSize[d], 1};
  kernelUnique.assign(nArrays, 0);
  storeKernelUnique.assign(nArrays, 0);
  for (size_t d = 0; d < nArrays; ++d) {
    if (all[d].empty())
      continue;
    double eb = ki.arrays[d].elemBytes;
    kernelUnique[d] = std::min(footprint(ki, all[d], whole).size, ki.arrays[d].elements);
    compulsoryBytes += eb * kernelUnique[d];
    if (!stores[d].empty())
      storeKernelUnique[d] = std::min(ki.arrays[d].elements, footprint(ki, stores[d], whole).size);
  }
  pattern.resize(nAccesses);
  loadInflation.assign(nArrays, 1.0);
  storeInflation.assign(nArrays, 1.0);
  shr.assign(nArrays, 0);
  loadRequests.assign(nArrays, 0);
  loadBlockUnique.assign(nArrays, 0);
  insts.assign(nAccesses, 0);
  bytesPerThread.assign(nAccesses, 0);
  maxLevel.assign(ki.blocks.size(), 0);
  levelsPresent.assign(ki.blocks.size(), 0);
  heldLevels.assign(ki.blocks.size(), 0);
  registerGroups.assign(ki.blocks.size(), 0);
  rolledScale.assign(nAccesses, 1.0);
  // One task's instructions per access: the thread set with every fold 1 (its
  // dimensions' count 1, so the block's step does not matter).
  taskInsts.assign(nAccesses, 0);
  jammedAddress.assign(nAccesses, 0);
  rolledInsts.assign(nAccesses, 0);
  rolledDepths.resize(nAccesses);
  for (size_t i = 0; i < nAccesses; ++i)
    rolledDepths[i] = rolledDepth(ki, ki.accesses[i]);
  // shareFoldedLoads' groups: loads of one read-only array in the same
  // straight-line block and loops, outside branches and rereads, that no
  // enclosing loop moves and whose subscripts differ only in their constants;
  // none where emit runs a loop over the tasks around the body.
  if (!taskLoopAroundBody(ki)) {
    auto eligible = [&](size_t i) {
      const AccessInfo &a = ki.accesses[i];
      return !a.isStore && !a.hasData() && readOnlyAffine[static_cast<size_t>(a.array)] && rolledDepths[i] < 0 &&
             a.block >= 0 && !ki.blocks[static_cast<size_t>(a.block)].branchArm && rereadFactor(ki, a) == 1.0;
    };
    auto shifted = [](const AccessInfo &x, const AccessInfo &y) {
      return x.index.size() == y.index.size() &&
             std::equal(x.index.begin(), x.index.end(), y.index.begin(),
                        [](const IndexForm &p, const IndexForm &q) { return sameCoefficients(p, q); });
    };
    std::vector<char> grouped(nAccesses, 0);
    for (size_t i = 0; i < nAccesses; ++i) {
      if (grouped[i] || !eligible(i))
        continue;
      const AccessInfo &first = ki.accesses[i];
      std::vector<size_t> g;
      for (size_t j = i; j < nAccesses; ++j) {
        const AccessInfo &a = ki.accesses[j];
        if (!grouped[j] && a.array == first.array && a.block == first.block && a.loops == first.loops &&
            eligible(j) && shifted(a, first)) {
          grouped[j] = 1;
          g.push_back(j);
        }
      }
      if (g.size() > 1)
        shiftedLoads.push_back(std::move(g));
    }
  }
  IterSet task = full;
  threadSet(ki, std::vector<int64_t>(nDims, 1), std::vector<int64_t>(nDims, 1), task);
  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo *pa = &ki.accesses[i];
    if (!pa->hasData())
      taskInsts[i] = footprintSize(ki, &pa, 1, task) * branchFactor(ki, *pa) * rereadFactor(ki, *pa);
  }
}

void Characterizer::Impl::setBlock(const std::vector<int64_t> &b) {
  block = b;
  haveBlock = true;
  Layout l;
  l.block = b;
  l.fold.assign(b.size(), 1);
  for (size_t i = 0; i < nAccesses; ++i)
    pattern[i] = directAccessPattern(ki, ki.accesses[i], l, hw);
  for (size_t d = 0; d < nArrays; ++d) {
    loadInflation[d] = sectorInflation(ki, loads[d], l, hw, true);
    storeInflation[d] = sectorInflation(ki, stores[d], l, hw, false);
  }
}

Characterizer::Impl::Tile &Characterizer::Impl::makeTile() {
  Tile t;
  t.accessBlock.resize(nAccesses);
  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo *a = &ki.accesses[i];
    t.accessBlock[i] = footprintSize(ki, &a, 1, bl);
  }
  t.arrayBlock.assign(nArrays, 0);
  t.loadsBlock.assign(nArrays, 0);
  t.window.assign(nArrays, 0);
  // The sliding window of a block: its tile over a few iterations of each loop.
  constexpr int64_t kWindow = 4;
  IterSet win = bl;
  for (size_t v = nDims; v < win.size(); ++v)
    win[v].count = std::min<int64_t>(win[v].count, kWindow);
  for (size_t d = 0; d < nArrays; ++d) {
    if (all[d].empty())
      continue;
    t.arrayBlock[d] = footprintSize(ki, all[d].data(), all[d].size(), bl);
    double eb = ki.arrays[d].elemBytes;
    t.blockFootprintBytes += eb * t.arrayBlock[d];
    if (!loads[d].empty() && !dataLoads[d])
      t.loadsBlock[d] = footprintSize(ki, loads[d].data(), loads[d].size(), bl);
    t.window[d] = footprintSize(ki, all[d].data(), all[d].size(), win);
  }
  t.stage.resize(ki.loops.size() * nArrays);
  return tiles.emplace(tileKey, std::move(t)).first->second;
}

void Characterizer::Impl::setShape(const std::vector<int64_t> &b, const std::vector<int64_t> &f) {
  if (!haveBlock || b != block)
    setBlock(b);
  fold = f;
  tpbInt = product(b);
  tpb = static_cast<double>(tpbInt);
  foldProduct = static_cast<double>(product(f));
  // A folded thread's next task finds the rest of a sector its first loaded
  // in L1 (sectorInflation): the loads' inflation depends on the fold too.
  shapeLoadInflation = loadInflation;
  Layout shape; // the block and fold alone, for what reads no more of a layout
  shape.block = b;
  shape.fold = f;
  if (foldProduct > 1)
    for (size_t d = 0; d < nArrays; ++d)
      if (loadInflation[d] > 1.0)
        shapeLoadInflation[d] = sectorInflation(ki, loads[d], shape, hw, true);
  // Table 2: Blocks = size(loop space) / (size(B) x F); partial tiles count whole.
  blocks = 1;
  for (size_t d = 0; d < nDims; ++d)
    blocks *= std::ceil(static_cast<double>(ki.dimSize[d]) / static_cast<double>(b[d] * f[d]));
  threadSet(ki, b, f, th);
  blockSet(ki, b, f, bl);
  tileKey.resize(nDims);
  for (size_t d = 0; d < nDims; ++d)
    tileKey[d] = bl[d].count;
  auto it = tiles.find(tileKey);
  tile = it != tiles.end() ? &it->second : &makeTile();

  for (size_t d = 0; d < nArrays; ++d)
    shr[d] = all[d].empty() ? 0.0
                            : shrDegree(footprintSize(ki, all[d].data(), all[d].size(), th), tpb,
                                        tile->arrayBlock[d]);
  // Equation 13: direct_mem_insts(A_j) = size(P(A_j, F)), times the branch probability;
  // data-dependent accesses count every execution. Folded tasks that run one
  // after another for a reason of the fold alone (serialByFold) share no
  // register tile: an access in a loop is each task's own, F times one task's.
  const bool serial = foldProduct > 1 && serialByFold(ki, shape);
  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo &a = ki.accesses[i];
    const AccessInfo *pa = &a;
    insts[i] = a.hasData() ? a.execs * foldProduct
                           : footprintSize(ki, &pa, 1, th) * branchFactor(ki, a) * rereadFactor(ki, a);
    if (serial && !a.hasData() && !a.loops.empty())
      insts[i] = std::max(insts[i], foldProduct * taskInsts[i]);
  }
  // Jammed folded tasks compute an address once where they read the same
  // element (A[i][k] for every j of a fold along j): eq. 17 counts the
  // skeleton's one address instruction per access (the table's) F times, eq. 13
  // the distinct elements; the difference is shared (term `jam`, which takes
  // it for the reads from shared memory: docs/model.md says why not the others).
  // Counted before shareFoldedLoads: the SASS showed the global loads shared
  // across accesses, not their addresses.
  for (size_t i = 0; i < nAccesses; ++i)
    jammedAddress[i] = foldProduct > 1 && !ki.accesses[i].hasData()
                           ? kGlobalAddrInsts * std::max(0.0, foldProduct * taskInsts[i] - insts[i])
                           : 0.0;
  shareFoldedLoads(b, f, serial);
  for (size_t i = 0; i < nAccesses; ++i) {
    int eb = ki.arrays[static_cast<size_t>(ki.accesses[i].array)].elemBytes;
    bytesPerThread[i] = insts[i] * bytesPerWarpInst(pattern[i], eb) / std::min<double>(hw.warpSize, tpb);
  }
  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo &a = ki.accesses[i];
    int m = rolledDepths[i];
    rolledInsts[i] = insts[i];
    if (a.hasData() || foldProduct <= 1 || m < 0)
      continue;
    tmp = th; // one iteration of every enclosing loop, the tasks' whole fold
    double trips = 1;
    for (size_t q = 0; q < a.loops.size(); ++q) {
      const LoopInfo &li = ki.loops[static_cast<size_t>(a.loops[q])];
      tmp[static_cast<size_t>(li.var)].count = 1;
      if (static_cast<int>(q) <= m)
        trips *= li.trip;
    }
    const AccessInfo *pa = &a;
    rolledInsts[i] =
        std::max(insts[i], footprintSize(ki, &pa, 1, tmp) * trips * branchFactor(ki, a));
  }
  // Requests that reach L1 (a warp instruction asks once per distinct element),
  // and the distinct elements among them, of the direct loads of each array.
  for (size_t d = 0; d < nArrays; ++d) {
    loadRequests[d] = 0;
    for (const auto *a : loads[d]) {
      size_t i = indexOf(a);
      loadRequests[d] += insts[i] * pattern[i].distinct * std::ceil(tpb / hw.warpSize);
    }
    double elements = ki.arrays[d].elements;
    loadBlockUnique[d] = dataLoads[d] ? std::min(loadRequests[d], elements)
                                      : std::min(loadRequests[d], tile->loadsBlock[d]);
  }
  // Equation 17: Func_insts = F x sum_i Ins_i x LP_i.
  // The FP64 ones among them, counted alike (the fp64 term, docs/model.md section 7).
  funcInsts = 0;
  fp64Insts = 0;
  chainCycles = 0;
  chainWaits = 0;
  for (const auto &cb : ki.comps) {
    funcInsts += foldProduct * static_cast<double>(cb.count) * cb.execs;
    fp64Insts += foldProduct * static_cast<double>(cb.fp64) * cb.execs;
    chainCycles += foldProduct * static_cast<double>(cb.chain) * cb.execs;
    chainWaits += foldProduct * static_cast<double>(cb.chainWaits) * cb.execs;
  }
}

/// Loads of one read-only array, in the same straight-line block and with the
/// same subscripts but for their constants, that the thread's folded tasks
/// read in common (vstencil's in[i + 1][j] of task f is in[i][j] of task
/// f + 1): the fold runs unrolled and the pointer is restrict, so the
/// compiler loads each element once for all of them. Their eq. 13 counts
/// become the union of their footprints, each member the elements it adds to
/// the ones before it (vstencil k8 with fold=i:16: 24 rows for the 9
/// accesses' 144, as the SASS's 24 LDGs; docs/model.md section 2). The
/// union is the same for every thread: the members move alike. Only where
/// emit jams the tasks into one body (`serial` false, and no loop over the
/// tasks around the body: taskLoopAroundBody; the groups, shiftedLoads, are
/// the kernel's, set once); accesses inside a loop that moves them are left
/// to rolledInsts (a rolled loop loads again in every iteration). Where a tile is partial, emit guards each task of a loop-free
/// body on its own (`if (!(in range)) continue;`) and no load is shared
/// across the guards (stencil27 254^3 with fold=i:8,j:8,k:2: 3,456 LDGs, 27
/// for each of the 128 tasks); a loop's body runs under one guard for all
/// tasks (emit's "every task of the thread in range" path; the edge threads'
/// clamped path, a few, is counted as the others).
void Characterizer::Impl::shareFoldedLoads(const std::vector<int64_t> &blk, const std::vector<int64_t> &f,
                                           bool serial) {
  sharedLoads = 0;
  if (foldProduct <= 1 || serial)
    return;
  bool partial = false;
  for (size_t d = 0; d < nDims; ++d)
    partial = partial || ki.dimSize[d] % (blk[d] * f[d]) != 0;
  std::vector<const AccessInfo *> group;
  for (const std::vector<size_t> &g : shiftedLoads) {
    if (partial && ki.accesses[g.front()].loops.empty())
      continue; // each task under its own guard
    group.clear();
    double before = 0, sum = 0;
    for (size_t j : g) {
      group.push_back(&ki.accesses[j]);
      double now = footprintSize(ki, group.data(), group.size(), th);
      sum += insts[j];
      insts[j] = std::min(insts[j], now - before); // the elements it adds
      before = now;
    }
    sharedLoads += std::max(0.0, sum - before);
  }
}

const Characterizer::Impl::Tile::Stage &Characterizer::Impl::stageOf(int loop, int array) {
  size_t key = static_cast<size_t>(loop) * nArrays + static_cast<size_t>(array);
  Tile::Stage &s = tile->stage[key];
  if (s.done)
    return s;
  s.done = true;
  const auto &acc = loadsInLoop[key];
  if (acc.empty())
    return s;
  s.any = true;
  int64_t trip = tripCount(ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(loop)].var)]);
  stageSet(ki, bl, loop, 1, tmp);
  s.h1 = footprintSize(ki, acc.data(), acc.size(), tmp);
  stageSet(ki, bl, loop, trip, tmp);
  s.hAll = footprintSize(ki, acc.data(), acc.size(), tmp);
  return s;
}

int64_t Characterizer::Impl::stageSize(int loop, const std::vector<int> &cached) {
  int64_t trip = tripCount(ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(loop)].var)]);
  double best = 0;
  for (int d : cached) {
    const Tile::Stage &s = stageOf(loop, d);
    if (!s.any)
      continue;
    if (s.h1 <= 0 || s.hAll <= 0)
      continue;
    double v = stageSizeOf(s.h1, s.hAll, trip, tpb);
    best = best == 0 ? v : std::min(best, v);
  }
  return finishStageSize(best, trip);
}

Characterizer::Impl::Tile::Fill Characterizer::Impl::computeFill(int array, int loop, int64_t size,
                                                                 uint64_t members,
                                                                 const std::vector<const AccessInfo *> &grp) {
  Tile::Fill f;
  f.array = array;
  f.loop = loop;
  f.stageSize = size;
  f.members = members;
  if (loop >= 0)
    stageSet(ki, bl, loop, size, tmp);
  Footprint fp = footprint(ki, grp, loop >= 0 ? tmp : bl);
  f.size = fp.size;
  f.box = std::move(fp.box);
  f.pattern = cachingLoadPattern(ki.arrays[static_cast<size_t>(array)], f.box, tpbInt, hw);
  f.warp = std::min<int64_t>(hw.warpSize, tpbInt);
  return f;
}

void Characterizer::Impl::fillWaves(Tile::Fill &f, const std::vector<const AccessInfo *> &ld, const Layout &l,
                                    int loop) {
  std::vector<int64_t> key(l.block);
  key.insert(key.end(), l.fold.begin(), l.fold.end());
  for (const auto &[lp, u] : l.unroll) { // sharedVectorElems reads the unrolling
    key.push_back(lp);
    key.push_back(u);
  }
  if (f.wavesKey == key && f.waves.size() == ld.size()) // vectors is filled beside waves
    return;
  std::vector<const AccessInfo *> reads;
  std::vector<size_t> at; // their positions in ld
  for (size_t p = 0; p < ld.size(); ++p)
    if (f.members == 0 ? stagedLoopOf(*ld[p], l) == loop : ((f.members >> p) & 1) != 0) {
      reads.push_back(ld[p]);
      at.push_back(p);
    }
  SharedTile tile = sharedTile(ki, reads, l, loop);
  f.waves.assign(ld.size(), 0.0);
  f.vectors.assign(ld.size(), 0); // 0: not a member
  for (size_t q = 0; q < reads.size(); ++q) {
    f.vectors[at[q]] = sharedVectorElems(ki, *reads[q], l, hw, tile);
    f.waves[at[q]] = sharedWavefronts(ki, *reads[q], l, hw, tile, f.vectors[at[q]]);
  }
  f.wavesKey = std::move(key);
}

Characterizer::Impl::Tile::Fill &Characterizer::Impl::fill(int array, int loop, int64_t size,
                                                                 uint64_t members) {
  int64_t warp = std::min<int64_t>(hw.warpSize, tpbInt);
  for (auto &f : tile->fills)
    if (f.array == array && f.loop == loop && f.stageSize == size && f.members == members) {
      if (f.warp != warp) {
        f.pattern = cachingLoadPattern(ki.arrays[static_cast<size_t>(array)], f.box, tpbInt, hw);
        f.warp = warp;
      }
      return f;
    }
  std::vector<const AccessInfo *> grp;
  const auto &ld = loads[static_cast<size_t>(array)];
  for (size_t p = 0; p < ld.size(); ++p)
    if (members >> p & 1)
      grp.push_back(ld[p]);
  tile->fills.push_back(computeFill(array, loop, size, members, grp));
  return tile->fills.back();
}

void Characterizer::Impl::run(const Layout &l, Characterization &c) {
  {
    // Start from a fresh value, keeping the vectors' storage.
    std::vector<ArrayUse> arrays;
    std::vector<AccessUse> accesses;
    std::vector<StageUse> stages;
    arrays.swap(c.arrays);
    accesses.swap(c.accesses);
    stages.swap(c.stages);
    c = Characterization{};
    arrays.clear();
    accesses.clear();
    stages.clear();
    c.arrays.swap(arrays);
    c.accesses.swap(accesses);
    c.stages.swap(stages);
  }
  hw::Workload &w = c.workload;
  w.threadsPerBlock = tpb;
  w.blocks = blocks;

  // Stages: equation 4.
  for (const auto &[loop, size] : l.stages) {
    StageUse &s = c.stages.emplace_back();
    s.loop = loop;
    s.stageSize = size;
    double trip = ki.loops[static_cast<size_t>(loop)].trip;
    s.numStages = std::ceil(trip / static_cast<double>(size));
  }
  auto numStages = [&](int loop) {
    for (const auto &s : c.stages)
      if (s.loop == loop)
        return s.numStages;
    return 1.0;
  };

  sharedWaves.assign(nAccesses, 0.0);
  sharedVectors.assign(nAccesses, 1);
  double uncoalTransSum = 0; // transactions x uncoalesced instructions (equation 16)
  double bytesNum = 0, bytesDen = 0;           // equation 10
  bool unstagedCache = false;

  for (size_t d = 0; d < nArrays; ++d) {
    ArrayUse &au = c.arrays.emplace_back();
    au.array = static_cast<int>(d);
    au.shrDegree = shr[d];
    au.cacheable = readOnlyAffine[d] && au.shrDegree > 1.0;
    au.cached = l.isCached(au.array);
    const auto &ld = loads[d];
    if (au.cached) {
      // Equations 5 and 12: one ShMem per staged loop (or the whole block footprint).
      groupLoops.clear();
      for (const auto *a : ld) {
        int k = stagedLoopOf(*a, l);
        if (k < 0)
          unstagedCache = true;
        if (std::find(groupLoops.begin(), groupLoops.end(), k) == groupLoops.end())
          groupLoops.push_back(k);
      }
      for (int k : groupLoops) {
        int64_t size = k >= 0 ? l.stageSize(k) : 0;
        Tile::Fill uncached;
        Tile::Fill *fp = &uncached;
        if (ld.size() <= 64) {
          uint64_t members = 0;
          for (size_t p = 0; p < ld.size(); ++p)
            if (stagedLoopOf(*ld[p], l) == k)
              members |= uint64_t{1} << p;
          fp = &fill(au.array, k, size, members);
        } else {
          std::vector<const AccessInfo *> grp; // more loads than a group mask holds
          for (const auto *a : ld)
            if (stagedLoopOf(*a, l) == k)
              grp.push_back(a);
          uncached = computeFill(au.array, k, size, 0, grp);
        }
        double reloads = k >= 0 ? numStages(k) * ki.loops[static_cast<size_t>(k)].execs : 1.0;
        double n = std::ceil(fp->size / tpb) * reloads;
        fillWaves(*fp, ld, l, k);
        for (size_t p = 0; p < ld.size(); ++p) {
          if (fp->vectors[p] > 0)
            sharedVectors[indexOf(ld[p])] = fp->vectors[p];
          if (hw.sharedMemBanks > 0 && fp->waves[p] > 0) // term `banks`
            sharedWaves[indexOf(ld[p])] = fp->waves[p];
        }
        au.shMemElems += fp->size;
        au.cachingInsts += n;
        au.cachingPattern = fp->pattern;
        if (au.cachingPattern.coalesced) {
          w.coalMemInsts += n;
        } else {
          w.uncoalMemInsts += n;
          uncoalTransSum += n * au.cachingPattern.transactions;
        }
      }
      au.shMemBytes = au.shMemElems * ki.arrays[d].elemBytes; // equation 6
      w.sharedMemBytesPerBlock += au.shMemBytes;               // equation 7
      c.cachingCompInsts += kCachingCompInsts * au.cachingInsts;
    }
    // Equation 9: data_reqs(D) = sum_k size(ShMem(D, k)) + sum_j size(P(A_j(D), B)).
    au.dataReqs = au.shMemElems;
    for (const auto *a : all[d])
      if (!(au.cached && !a->isStore))
        au.dataReqs += tile->accessBlock[indexOf(a)];
    bytesNum += au.dataReqs * ki.arrays[d].elemBytes;
    bytesDen += au.dataReqs;
  }

  for (size_t i = 0; i < nAccesses; ++i) {
    const AccessInfo &a = ki.accesses[i];
    AccessUse &u = c.accesses.emplace_back();
    u.access = static_cast<int>(i);
    u.viaShared = !a.isStore && l.isCached(a.array);
    if (a.heldInRegister && !u.viaShared) {
      int lp = a.loops.back();
      u.heldLoads = l.stageSize(lp) > 0 && !a.heldWritten ? numStages(lp) : 1.0;
    }
    u.insts = insts[i];
    rolledScale[i] = 1.0;
    if (!a.isStore && rolledInsts[i] > insts[i] && insts[i] > 0) {
      // the loads of a rolled loop are not shared across its iterations
      bool whole = true;
      for (int q = 0; q <= rolledDepths[i]; ++q) {
        int lp = a.loops[static_cast<size_t>(q)];
        whole = whole && static_cast<double>(l.unrollFactor(lp)) >= ki.loops[static_cast<size_t>(lp)].trip;
      }
      if (!whole)
        rolledScale[i] = rolledInsts[i] / insts[i];
      u.insts = insts[i] * rolledScale[i];
    }
    if (u.viaShared) {
      // term `jam`: reads from shared memory only; rolled, the tasks share fewer
      c.jammedAddressInsts += std::max(0.0, jammedAddress[i] - kGlobalAddrInsts * (u.insts - insts[i]));
      // ptxas joins V iterations' reads of a row into one LDS.128 (sharedVectorElems)
      u.sharedVectorElems = sharedVectors[i];
      u.insts /= static_cast<double>(u.sharedVectorElems);
      bool unrolled = !a.loops.empty() && l.unrollFactor(a.loops.back()) > 1;
      c.sharedReadInsts += u.insts * (1.0 + (unrolled ? 0.0 : kSharedAddrInsts) - kGlobalAddrInsts);
      u.sharedWavefronts = sharedWaves[i];
    } else {
      u.pattern = pattern[i];
      if (u.pattern.coalesced) {
        w.coalMemInsts += u.insts; // equation 14
      } else {
        w.uncoalMemInsts += u.insts; // equation 15
        uncoalTransSum += u.insts * u.pattern.transactions;
      }
    }
  }

  c.funcInsts = funcInsts; // equation 17
  c.fp64Insts = fp64Insts;
  c.chainCycles = chainCycles;
  c.chainWaits = chainWaits;
  // Loop control, divided by the unroll factor; a staged loop also runs its stage loop.
  for (size_t lp = 0; lp < ki.loops.size(); ++lp) {
    const LoopInfo &li = ki.loops[lp];
    double iters = li.execs * li.trip;
    double u = static_cast<double>(l.unrollFactor(static_cast<int>(lp)));
    // Folded tasks are jammed into one loop: its control runs once per thread.
    c.loopControlInsts += kLoopControlInsts * iters / u;
    if (l.stageSize(static_cast<int>(lp)) > 0)
      c.loopControlInsts += kLoopControlInsts * numStages(static_cast<int>(lp)) * li.execs;
  }
  // 64-bit literals (`lit64`): ptxas builds each in every iteration of a loop
  // left rolled, rather than hold it in a register across the loop; out of an
  // unrolled loop it hoists them: once per entry, and a staged loop enters its
  // unrolled part once a stage. The folded tasks share them.
  for (const auto &cb : ki.comps) {
    if (cb.lit64 <= 0)
      continue;
    double builds = cb.execs;
    if (!cb.loops.empty()) {
      int inner = cb.loops.back();
      const LoopInfo &li = ki.loops[static_cast<size_t>(inner)];
      if (l.unrollFactor(inner) > 1 && li.trip > 0)
        builds = cb.execs / li.trip * (l.stageSize(inner) > 0 ? numStages(inner) : 1.0);
    }
    c.literalMoveInsts += kLiteralMoveInsts * static_cast<double>(cb.lit64) * builds;
  }
  w.compInsts = c.funcInsts + c.loopControlInsts + c.literalMoveInsts + c.sharedReadInsts + c.cachingCompInsts;

  // Barriers: after each stage is loaded and after it is used; one after an unstaged fill.
  for (const auto &s : c.stages)
    w.synchInsts += 2.0 * s.numStages * ki.loops[static_cast<size_t>(s.loop)].execs;
  if (unstagedCache)
    w.synchInsts += 1.0;

  // Equation 16: Uncoal_per_mw, the mean transactions of an uncoalesced instruction.
  w.uncoalPerMw = w.uncoalMemInsts > 0 ? uncoalTransSum / w.uncoalMemInsts : 1.0;
  // Equations 10-11.
  c.avgElemBytes = bytesDen > 0 ? bytesNum / bytesDen : 4.0;
  w.loadBytesPerWarp = c.avgElemBytes * hw.warpSize;
  // a block's tiles within the per-block limit, and beside the driver's reserve within the SM's
  c.fits = w.sharedMemBytesPerBlock <= static_cast<double>(hw.sharedMemBlockMayHold());

  // Traffic: the whole kernel's footprint, one block's, and what the instructions request.
  // A scalar reduction reads its result's element (the host's initial value)
  // and writes it. (Added to this layout's figure, not to the kernel's: a
  // characterizer serves many layouts.)
  c.compulsoryBytes = compulsoryBytes;
  for (int eb : ki.reductionBytes)
    c.compulsoryBytes += 2.0 * eb;
  c.blockFootprintBytes = tile->blockFootprintBytes;
  for (size_t d = 0; d < nArrays; ++d)
    if (!all[d].empty())
      c.arrays[d].kernelUnique = kernelUnique[d];
  for (auto &u : c.accesses) {
    if (u.viaShared)
      continue;
    u.bytesPerThread = bytesPerThread[static_cast<size_t>(u.access)] * rolledScale[static_cast<size_t>(u.access)];
    c.requestedBytesPerThread += u.bytesPerThread;
  }
  // Per array: the direct loads' requests and distinct elements per block, and
  // how many sector bytes they move per byte used (loads through shared memory
  // are not direct).
  for (auto &au : c.arrays) {
    size_t d = static_cast<size_t>(au.array);
    bool direct = !au.cached && !loads[d].empty();
    if (direct) {
      au.loadRequests = loadRequests[d];
      au.loadBlockUnique = loadBlockUnique[d];
      double extra = 0; // the requests of rolled loops' loads, not shared across iterations
      for (const auto *a : loads[d]) {
        size_t i = indexOf(a);
        extra += insts[i] * (rolledScale[i] - 1.0) * pattern[i].distinct * std::ceil(tpb / hw.warpSize);
      }
      au.loadRequests += extra;
    }
    if (!stores[d].empty())
      au.storeKernelUnique = storeKernelUnique[d];
    au.loadInflation = direct ? shapeLoadInflation[d] : 1.0;
    au.storeInflation = storeInflation[d];
  }
  // Memory-level parallelism: the loads of one statement list that do not wait
  // for each other are in flight together; unrolling by U overlaps U iterations;
  // folded tasks are jammed, so their loads share the groups (not x F),
  // unless each task has its own trip count (serialTasks). A group holds its
  // loads' values in registers until it ends: a list's loads fill at least
  // (registers they fill) / loadRegistersPerWait groups (16, up to 32 in
  // blocks of one warp), or / the registers a wait of the layout's own SASS
  // where it was read (compiledRegistersPerWait).
  // A load held in a register across its innermost loop (heldInRegister) is
  // a group each time the loop starts, before it (each stage, in a staged
  // loop, unless the loop writes it: heldWritten). A list's groups are its
  // highest direct load's level, less the levels below it that hold only
  // held loads (`ld idx[j]` held, `ld A[k][idx[j]]` one group an iteration).
  std::fill(maxLevel.begin(), maxLevel.end(), 0);
  std::fill(levelsPresent.begin(), levelsPresent.end(), uint64_t{0});
  std::fill(heldLevels.begin(), heldLevels.end(), uint64_t{0});
  std::fill(registerGroups.begin(), registerGroups.end(), 0.0);
  heldGroups.assign(ki.loops.size(), 0.0);
  c.serialTasks = serialTasks(ki, l);
  c.sharedFoldLoads = sharedLoads;
  const double perWait = loadRegistersPerWait(ki, l, hw, c.serialTasks);
  std::vector<double> loadWords(ki.blocks.size(), 0.0); // what a thread's loads fill, per block
  for (const auto &u : c.accesses) {
    const auto &a = ki.accesses[static_cast<size_t>(u.access)];
    if (!a.isStore)
      loadWords[static_cast<size_t>(a.block)] += u.insts * static_cast<double>(u.sharedVectorElems) *
                                                 std::ceil(ki.arrays[static_cast<size_t>(a.array)].elemBytes / 4.0);
    if (u.heldLoads > 0) {
      heldLevels[static_cast<size_t>(a.block)] |= uint64_t{1} << std::min(std::max(a.level, 0), 63);
      double &h = heldGroups[static_cast<size_t>(a.loops.back())];
      h = std::max(h, u.heldLoads);
    } else if (!a.isStore && !u.viaShared) {
      size_t b = static_cast<size_t>(a.block);
      maxLevel[b] = std::max(maxLevel[b], a.level);
      levelsPresent[b] |= uint64_t{1} << std::min(std::max(a.level, 0), 63);
      registerGroups[b] += u.insts * std::ceil(ki.arrays[static_cast<size_t>(a.array)].elemBytes / 4.0) /
                           perWait;
    }
  }
  for (size_t b = 0; b < ki.blocks.size(); ++b) {
    const auto &blk = ki.blocks[b];
    double u = blk.innermostLoop >= 0 ? static_cast<double>(l.unrollFactor(blk.innermostLoop)) : 1.0;
    uint64_t below = maxLevel[b] >= 64 ? ~uint64_t{0} : (uint64_t{1} << std::max(maxLevel[b], 0)) - 1;
    double levels = static_cast<double>(maxLevel[b]) -
                    static_cast<double>(__builtin_popcountll(heldLevels[b] & ~levelsPresent[b] & below));
    c.loadGroups += std::max(levels * blk.execs / u * c.serialTasks, registerGroups[b]);
    double iterations = blk.execs / u * c.serialTasks;
    if (blk.innermostLoop >= 0 && loadWords[b] > 0 && iterations > 0 && iterations >= c.carriedIterations) {
      c.carriedIterations = iterations;
      c.hoistedLoadWords = loadWords[b] / iterations * (1.0 - 1.0 / u);
    }
  }
  for (size_t lp = 0; lp < ki.loops.size(); ++lp)
    c.loadGroups += heldGroups[lp] * ki.loops[lp].execs * c.serialTasks;
  // Each instruction that fills shared memory is a guarded load and store,
  // which waits for its load (the validation kernels' SASS): a group of its own.
  for (const auto &au : c.arrays)
    if (au.cached)
      c.loadGroups += au.cachingInsts;
  for (size_t d = 0; d < nArrays; ++d)
    if (!all[d].empty() && !l.isCached(static_cast<int>(d)))
      c.windowFootprintBytes += ki.arrays[d].elemBytes * tile->window[d];
  for (const auto &au : c.arrays)
    if (au.cached)
      c.requestedBytesPerThread += au.cachingInsts *
                                   bytesPerWarpInst(au.cachingPattern, ki.arrays[static_cast<size_t>(au.array)].elemBytes) /
                                   std::min<double>(hw.warpSize, tpb);
}

double ptxasRegisterTarget(const Layout &l, const hw::HwSpec &hw) {
  double warps = std::ceil(static_cast<double>(l.threadsPerBlock()) / hw.warpSize);
  double threads = std::min<double>(hw.maxWarpsPerSM, hw.maxBlocksPerSM * warps) * hw.warpSize;
  if (threads <= 0 || hw.registersPerSM <= 0) // a spec without the fields
    return 2.0 * kAddressRegisters;
  return std::min<double>(hw.maxRegistersPerThread, static_cast<double>(hw.registersPerSM) / threads);
}

double launchBoundRegisters(const Layout &l, const hw::HwSpec &hw) {
  return hw.registersForOneBlock(std::ceil(static_cast<double>(l.threadsPerBlock()) / hw.warpSize));
}

double carriedRegisters(const KernelInfo &ki, const Layout &l, double serialTasks) {
  double carried = 0;
  if (!ki.loops.empty())
    for (const auto &a : ki.accesses)
      carried += a.isStore ? 1.0 : 0.0;
  if (serialTasks <= 1)
    carried *= static_cast<double>(l.foldProduct());
  return carried;
}

double loadRegistersPerWait(const KernelInfo &ki, const Layout &l, const hw::HwSpec &hw,
                            double serialTasks) {
  if (l.compiledRegistersPerWait)
    return *l.compiledRegistersPerWait;
  // What the target leaves for loaded values: kAddressRegisters go to
  // indices, bounds and addresses, and one to each value a task carries
  // across its loops (the stores of a nest with loops: its accumulators),
  // times the tasks jammed into the thread. At the target of 32 that leaves
  // kLoadRegistersPerWait or less. Where it leaves some, ptxas stays at the
  // target and waits for what is left, down to 8 (the SASS of the measured
  // layouts: 8 a wait, median, where 8 are left; 9 where 12, 5.7 where 14;
  // none has fewer than 8 left, so fewer is not taken below 8); where the
  // carried values leave none, it exceeds the target (MatMul 800's 16-task
  // tiles: 64 registers) and the floor holds; in one-warp blocks at most
  // twice the floor (their SASS keeps 13 to 28 registers of loads a wait on
  // average, up to 49).
  double left = ptxasRegisterTarget(l, hw) - kAddressRegisters - carriedRegisters(ki, l, serialTasks);
  if (left >= 1 && left < kLoadRegistersPerWait)
    return std::max(left, kLoadRegistersPerWait / 2.0);
  return std::clamp(left, kLoadRegistersPerWait, 2.0 * kLoadRegistersPerWait);
}

Characterizer::Characterizer(const KernelInfo &ki, const hw::HwSpec &hw)
    : impl_(std::make_unique<Impl>(ki, hw)) {}
Characterizer::~Characterizer() = default;

void Characterizer::setShape(const std::vector<int64_t> &block, const std::vector<int64_t> &fold) {
  impl_->setShape(block, fold);
}
const std::vector<double> &Characterizer::shareDegrees() const { return impl_->shr; }
int64_t Characterizer::stageSize(int loop, const std::vector<int> &cached) {
  return impl_->stageSize(loop, cached);
}
void Characterizer::characterize(const Layout &l, Characterization &out) { impl_->run(l, out); }

Characterization characterize(const KernelInfo &ki, const Layout &l, const hw::HwSpec &hw) {
  Characterizer z(ki, hw);
  z.setShape(l.block, l.fold);
  Characterization c;
  z.characterize(l, c);
  return c;
}

} // namespace skelcast::layout
