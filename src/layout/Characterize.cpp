// GROPHECY's characterization of a code layout (SC'11 §7, equations 1-17).
#include "skelcast/layout/Characterize.h"

#include <algorithm>
#include <cmath>

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
IterSet threadSet(const KernelInfo &ki, const Layout &l) {
  IterSet s = fullLoops(ki);
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    s[d] = {ki.dimLo[d], std::min(l.fold[d], ki.dimSize[d]), l.block[d]};
  return s;
}

/// B-hat: one block's tile of Bd x Fd tasks in each dimension.
IterSet blockSet(const KernelInfo &ki, const Layout &l) {
  IterSet s = fullLoops(ki);
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    s[d] = {ki.dimLo[d], std::min(l.block[d] * l.fold[d], ki.dimSize[d]), 1};
  return s;
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
IterSet stageSet(const KernelInfo &ki, const Layout &l, int k, int64_t count) {
  IterSet s = blockSet(ki, l);
  const LoopInfo &lk = ki.loops[static_cast<size_t>(k)];
  for (int p = lk.parent; p >= 0; p = ki.loops[static_cast<size_t>(p)].parent)
    s[static_cast<size_t>(ki.loops[static_cast<size_t>(p)].var)].count = 1;
  VarRange &r = s[static_cast<size_t>(lk.var)];
  r.count = std::min(count, tripCount(ki.vars[static_cast<size_t>(lk.var)]));
  return s;
}

/// The innermost staged loop around an access, or -1.
int stagedLoopOf(const AccessInfo &a, const Layout &l) {
  for (auto it = a.loops.rbegin(); it != a.loops.rend(); ++it)
    if (l.stageSize(*it) > 0)
      return *it;
  return -1;
}

/// Branch probability of an access: its executions over its loops' trips.
double branchFactor(const KernelInfo &ki, const AccessInfo &a) {
  double trips = 1;
  for (int lp : a.loops)
    trips *= ki.loops[static_cast<size_t>(lp)].trip;
  return trips > 0 ? a.execs / trips : 0.0;
}

} // namespace

std::vector<double> shareDegrees(const KernelInfo &ki, const Layout &l) {
  IterSet th = threadSet(ki, l), bl = blockSet(ki, l);
  std::vector<double> out(ki.arrays.size(), 0);
  double sizeB = static_cast<double>(l.threadsPerBlock());
  for (size_t d = 0; d < ki.arrays.size(); ++d) {
    auto acc = accessesOf(ki, static_cast<int>(d), false);
    if (acc.empty())
      continue;
    double hb = footprint(ki, acc, bl).size;
    // Equation 1: ShrDegree(D) = size(H(D, F)) x size(B) / size(H(D, B))
    out[d] = hb > 0 ? footprint(ki, acc, th).size * sizeB / hb : 0.0;
  }
  return out;
}

int64_t paperStageSize(const KernelInfo &ki, const Layout &l, int loop,
                       const std::vector<int> &cached) {
  const Var &kv = ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(loop)].var)];
  int64_t trip = tripCount(kv);
  double best = 0;
  for (int d : cached) {
    std::vector<const AccessInfo *> acc;
    for (const auto *a : accessesOf(ki, d, true))
      if (inLoop(*a, loop))
        acc.push_back(a);
    if (acc.empty())
      continue;
    double h1 = footprint(ki, acc, stageSet(ki, l, loop, 1)).size;
    double hAll = footprint(ki, acc, stageSet(ki, l, loop, trip)).size;
    if (h1 <= 0 || hAll <= 0)
      continue;
    // Equation 2: StageShrDegree = size(H(D, B ^ k:<0,1,1>)) x size(k) / size(H(D, B ^ k))
    double stageShr = h1 * static_cast<double>(trip) / hAll;
    // Equation 3: StageSize(D, k) = size(B) x StageShrDegree / size(H(D, B ^ k:<0,1,1>))
    double s = static_cast<double>(l.threadsPerBlock()) * stageShr / h1;
    best = best == 0 ? s : std::min(best, s);
  }
  if (best < 1)
    return 1;
  return std::min<int64_t>(trip, static_cast<int64_t>(std::floor(best)));
}

Characterization characterize(const KernelInfo &ki, const Layout &l, const model::HwSpec &hw) {
  Characterization c;
  model::Workload &w = c.workload;
  const double F = static_cast<double>(l.foldProduct());
  const double tpb = static_cast<double>(l.threadsPerBlock());
  w.threadsPerBlock = tpb;
  // Table 2: Blocks = size(loop space) / (size(B) x F); partial tiles count whole.
  w.blocks = 1;
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    w.blocks *= std::ceil(static_cast<double>(ki.dimSize[d]) /
                          static_cast<double>(l.block[d] * l.fold[d]));

  IterSet th = threadSet(ki, l), bl = blockSet(ki, l);
  std::vector<double> shr = shareDegrees(ki, l);

  // Stages: equation 4.
  for (const auto &[loop, size] : l.stages) {
    StageUse s;
    s.loop = loop;
    s.stageSize = size;
    double trip = ki.loops[static_cast<size_t>(loop)].trip;
    s.numStages = std::ceil(trip / static_cast<double>(size));
    c.stages.push_back(s);
  }
  auto numStages = [&](int loop) {
    for (const auto &s : c.stages)
      if (s.loop == loop)
        return s.numStages;
    return 1.0;
  };

  double uncoalTransSum = 0; // transactions x uncoalesced instructions (equation 16)
  double bytesNum = 0, bytesDen = 0;           // equation 10

  for (size_t d = 0; d < ki.arrays.size(); ++d) {
    ArrayUse au;
    au.array = static_cast<int>(d);
    au.shrDegree = shr[d];
    auto loads = accessesOf(ki, au.array, true);
    auto all = accessesOf(ki, au.array, false);
    bool readOnly = loads.size() == all.size() && !loads.empty();
    bool affine = std::none_of(loads.begin(), loads.end(),
                               [](const AccessInfo *a) { return a->hasData(); });
    au.cacheable = readOnly && affine && au.shrDegree > 1.0;
    au.cached = l.isCached(au.array);
    if (au.cached) {
      // Equations 5 and 12: one ShMem per staged loop (or the whole block footprint).
      std::vector<int> groups;
      for (const auto *a : loads) {
        int k = stagedLoopOf(*a, l);
        if (std::find(groups.begin(), groups.end(), k) == groups.end())
          groups.push_back(k);
      }
      for (int k : groups) {
        std::vector<const AccessInfo *> grp;
        for (const auto *a : loads)
          if (stagedLoopOf(*a, l) == k)
            grp.push_back(a);
        IterSet set = k >= 0 ? stageSet(ki, l, k, l.stageSize(k)) : bl;
        Footprint fp = footprint(ki, grp, set);
        double reloads = k >= 0 ? numStages(k) * ki.loops[static_cast<size_t>(k)].execs : 1.0;
        double insts = std::ceil(fp.size / tpb) * reloads;
        au.shMemElems += fp.size;
        au.cachingInsts += insts;
        au.cachingPattern = cachingLoadPattern(ki.arrays[d], fp.box, l.threadsPerBlock(), hw);
        if (au.cachingPattern.coalesced) {
          w.coalMemInsts += insts;
        } else {
          w.uncoalMemInsts += insts;
          uncoalTransSum += insts * au.cachingPattern.transactions;
        }
      }
      au.shMemBytes = au.shMemElems * ki.arrays[d].elemBytes; // equation 6
      w.sharedMemBytesPerBlock += au.shMemBytes;               // equation 7
      c.cachingCompInsts += kCachingCompInsts * au.cachingInsts;
    }
    // Equation 9: data_reqs(D) = sum_k size(ShMem(D, k)) + sum_j size(P(A_j(D), B)).
    au.dataReqs = au.shMemElems;
    for (const auto *a : all)
      if (!(au.cached && !a->isStore))
        au.dataReqs += footprint(ki, {a}, bl).size;
    bytesNum += au.dataReqs * ki.arrays[d].elemBytes;
    bytesDen += au.dataReqs;
    c.arrays.push_back(au);
  }

  for (size_t i = 0; i < ki.accesses.size(); ++i) {
    const AccessInfo &a = ki.accesses[i];
    AccessUse u;
    u.access = static_cast<int>(i);
    u.viaShared = !a.isStore && l.isCached(a.array);
    // Equation 13: direct_mem_insts(A_j) = size(P(A_j, F)), times the branch probability;
    // data-dependent accesses count every execution.
    double insts = a.hasData() ? a.execs * F : footprint(ki, {&a}, th).size * branchFactor(ki, a);
    u.insts = insts;
    if (u.viaShared) {
      bool unrolled = !a.loops.empty() && l.unrollFactor(a.loops.back()) > 1;
      c.sharedReadInsts += insts * (1.0 + (unrolled ? 0.0 : kSharedAddrInsts) - kGlobalAddrInsts);
    } else {
      u.pattern = directAccessPattern(ki, a, l, hw);
      if (u.pattern.coalesced) {
        w.coalMemInsts += insts; // equation 14
      } else {
        w.uncoalMemInsts += insts; // equation 15
        uncoalTransSum += insts * u.pattern.transactions;
      }
    }
    c.accesses.push_back(u);
  }

  // Equation 17: Func_insts = F x sum_i Ins_i x LP_i.
  for (const auto &cb : ki.comps)
    c.funcInsts += F * static_cast<double>(cb.count) * cb.execs;
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
  w.compInsts = c.funcInsts + c.loopControlInsts + c.sharedReadInsts + c.cachingCompInsts;

  // Barriers: after each stage is loaded and after it is used; one after an unstaged fill.
  bool unstagedCache = false;
  for (const auto &au : c.arrays)
    if (au.cached)
      for (const auto &a : ki.accesses)
        if (a.array == au.array && !a.isStore && stagedLoopOf(a, l) < 0)
          unstagedCache = true;
  for (const auto &s : c.stages)
    w.synchInsts += 2.0 * s.numStages * ki.loops[static_cast<size_t>(s.loop)].execs;
  if (unstagedCache)
    w.synchInsts += 1.0;

  // Equation 16: Uncoal_per_mw, the mean transactions of an uncoalesced instruction.
  w.uncoalPerMw = w.uncoalMemInsts > 0 ? uncoalTransSum / w.uncoalMemInsts : 1.0;
  // Equations 10-11.
  c.avgElemBytes = bytesDen > 0 ? bytesNum / bytesDen : 4.0;
  w.loadBytesPerWarp = c.avgElemBytes * hw.warpSize;
  c.fits = w.sharedMemBytesPerBlock <= static_cast<double>(hw.sharedMemPerBlockBytes);

  // Traffic: the whole kernel's footprint, one block's, and what the instructions request.
  IterSet whole = fullLoops(ki);
  for (size_t d = 0; d < ki.dimNames.size(); ++d)
    whole[d] = {ki.dimLo[d], ki.dimSize[d], 1};
  double doubles = 0, elems = 0;
  for (size_t d = 0; d < ki.arrays.size(); ++d) {
    auto all = accessesOf(ki, static_cast<int>(d), false);
    if (all.empty())
      continue;
    double eb = ki.arrays[d].elemBytes;
    c.arrays[d].kernelUnique = std::min(footprint(ki, all, whole).size, ki.arrays[d].elements);
    c.compulsoryBytes += eb * c.arrays[d].kernelUnique;
    c.blockFootprintBytes += eb * footprint(ki, all, bl).size;
    elems += c.arrays[d].dataReqs;
    if (ki.arrays[d].isDouble)
      doubles += c.arrays[d].dataReqs;
  }
  c.fp64Fraction = elems > 0 ? doubles / elems : 0.0;
  auto bytesPerWarpInst = [&](const WarpAccess &p, int eb) {
    return p.coalesced ? static_cast<double>(eb) * std::min<double>(hw.warpSize, tpb)
                       : p.transactions * 32.0;
  };
  for (auto &u : c.accesses) {
    if (u.viaShared)
      continue;
    const auto &a = ki.accesses[static_cast<size_t>(u.access)];
    int eb = ki.arrays[static_cast<size_t>(a.array)].elemBytes;
    u.bytesPerThread = u.insts * bytesPerWarpInst(u.pattern, eb) / std::min<double>(hw.warpSize, tpb);
    c.requestedBytesPerThread += u.bytesPerThread;
  }
  // Per array: the direct loads' requests and distinct elements per block, and
  // how many sector bytes they move per byte used.
  for (auto &au : c.arrays) {
    std::vector<const AccessInfo *> loads, stores;
    bool data = false;
    for (const auto &u : c.accesses) {
      const auto &a = ki.accesses[static_cast<size_t>(u.access)];
      if (a.array != au.array || u.viaShared)
        continue;
      if (a.isStore) {
        stores.push_back(&a);
      } else {
        loads.push_back(&a);
        // Requests that reach L1: a warp instruction asks once per distinct element.
        au.loadRequests += u.insts * u.pattern.distinct * std::ceil(tpb / hw.warpSize);
        data = data || a.hasData();
      }
    }
    double elements = ki.arrays[static_cast<size_t>(au.array)].elements;
    if (!loads.empty())
      au.loadBlockUnique = data ? std::min(au.loadRequests, elements)
                                : std::min(au.loadRequests, footprint(ki, loads, bl).size);
    if (!stores.empty())
      au.storeKernelUnique = std::min(elements, footprint(ki, stores, whole).size);
    au.loadInflation = sectorInflation(ki, loads, l, hw);
    au.storeInflation = sectorInflation(ki, stores, l, hw);
  }
  // Memory-level parallelism: the loads of one statement list that do not wait
  // for each other are in flight together; unrolling by U overlaps U iterations;
  // folded tasks are jammed, so their loads share the groups (not x F).
  std::vector<int> maxLevel(ki.blocks.size(), 0);
  for (const auto &u : c.accesses) {
    const auto &a = ki.accesses[static_cast<size_t>(u.access)];
    if (!a.isStore && !u.viaShared)
      maxLevel[static_cast<size_t>(a.block)] = std::max(maxLevel[static_cast<size_t>(a.block)], a.level);
  }
  for (size_t b = 0; b < ki.blocks.size(); ++b) {
    const auto &blk = ki.blocks[b];
    double u = blk.innermostLoop >= 0 ? static_cast<double>(l.unrollFactor(blk.innermostLoop)) : 1.0;
    c.loadGroups += maxLevel[b] * blk.execs / u;
  }
  for (const auto &s : c.stages)
    c.loadGroups += s.numStages * ki.loops[static_cast<size_t>(s.loop)].execs;
  if (unstagedCache)
    c.loadGroups += 1.0;
  {
    // The sliding window of a block: its tile over a few iterations of each loop.
    constexpr int64_t kWindow = 4;
    IterSet win = bl;
    for (size_t v = ki.dimNames.size(); v < win.size(); ++v)
      win[v].count = std::min<int64_t>(win[v].count, kWindow);
    for (size_t d = 0; d < ki.arrays.size(); ++d) {
      auto all = accessesOf(ki, static_cast<int>(d), false);
      bool viaShared = l.isCached(static_cast<int>(d));
      if (!all.empty() && !viaShared)
        c.windowFootprintBytes += ki.arrays[d].elemBytes * footprint(ki, all, win).size;
    }
  }
  for (const auto &au : c.arrays)
    if (au.cached)
      c.requestedBytesPerThread += au.cachingInsts *
                                   bytesPerWarpInst(au.cachingPattern, ki.arrays[static_cast<size_t>(au.array)].elemBytes) /
                                   std::min<double>(hw.warpSize, tpb);
  return c;
}

} // namespace skelcast::layout
