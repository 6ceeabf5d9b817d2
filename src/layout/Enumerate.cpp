#include "skelcast/layout/Enumerate.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace skelcast::layout {
namespace {

/// All vectors v with v[d] a power of two in [1, limit[d]].
std::vector<std::vector<int64_t>> powerGrid(const std::vector<int64_t> &limit) {
  std::vector<std::vector<int64_t>> out{{}};
  for (int64_t lim : limit) {
    std::vector<std::vector<int64_t>> next;
    for (const auto &v : out)
      for (int64_t p = 1; p <= lim; p *= 2) {
        auto w = v;
        w.push_back(p);
        next.push_back(std::move(w));
      }
    out = std::move(next);
  }
  return out;
}

bool stageKind(const LoopInfo &li);

/// The loops a stage of `cached` could cover: constant-trip streaming loops
/// that read a cached array.
void stageableLoops(const KernelInfo &ki, const std::vector<int> &cached, std::vector<int> &out) {
  out.clear();
  for (size_t l = 0; l < ki.loops.size(); ++l) {
    const LoopInfo &li = ki.loops[l];
    if (!stageKind(li))
      continue;
    for (int a : cached)
      if (std::find(li.arrays.begin(), li.arrays.end(), a) != li.arrays.end()) {
        out.push_back(static_cast<int>(l));
        break;
      }
  }
}

/// The largest unroll of a staged loop: the largest measured on the H100
/// (MatMul's staged layouts, docs/validation.md); a longer stage is unrolled
/// by it within the stage.
constexpr int64_t kMaxStagedUnroll = 32;

/// "Maximize L": full unrolling of short constant loops, the stage size (at most kMaxStagedUnroll) of a
/// staged loop, otherwise the largest power of two up to maxUnroll dividing the
/// trip; a loop with data-dependent bounds by up to 4 (with a remainder loop).
void maxUnroll(const KernelInfo &ki, const Layout &l, const EnumerateOptions &o,
               std::vector<std::pair<int, int64_t>> &out) {
  out.clear();
  for (size_t lp = 0; lp < ki.loops.size(); ++lp) {
    const LoopInfo &li = ki.loops[lp];
    if (li.trip < 2)
      continue;
    int64_t trip = static_cast<int64_t>(li.trip);
    int64_t s = l.stageSize(static_cast<int>(lp));
    int64_t u = 1;
    if (!li.constTrip)
      while (u * 2 <= std::min<int64_t>(4, trip)) // data-dependent: a short unroll and a remainder
        u *= 2;
    else if (s > 0 && s <= kMaxStagedUnroll)
      u = s;
    else if (s > 0) // a longer stage: the largest power of two up to the cap dividing it
      while (u * 2 <= kMaxStagedUnroll && s % (u * 2) == 0)
        u *= 2;
    else if (trip <= o.maxUnroll)
      u = trip;
    else
      while (u * 2 <= o.maxUnroll && trip % (u * 2) == 0)
        u *= 2;
    if (u > 1)
      out.push_back({static_cast<int>(lp), u});
  }
}

/// Arrays that can be cached once their ShrDegree exceeds 1: loaded, never
/// stored, every subscript affine, every access moving alike with each
/// parallel index (one tile per block) and no loop without a constant trip
/// count moving it (the tile's extent is known): the arrays emit can stage in
/// shared memory (src/emit/EmitPlan.cpp), so that no layout is ranked that
/// skelcast cannot write.
std::vector<char> cacheableArrays(const KernelInfo &ki) {
  std::vector<char> out(ki.arrays.size(), 0);
  for (size_t a = 0; a < ki.arrays.size(); ++a) {
    bool loaded = false, stored = false, tileable = true;
    const AccessInfo *first = nullptr;
    for (const auto &acc : ki.accesses) {
      if (acc.array != static_cast<int>(a))
        continue;
      (acc.isStore ? stored : loaded) = true;
      if (first && first->index.size() != acc.index.size())
        tileable = false;
      for (size_t e = 0; tileable && e < acc.index.size(); ++e) {
        const IndexForm &f = acc.index[e];
        if (f.kind != IndexForm::Kind::Affine) {
          tileable = false;
          continue;
        }
        for (size_t v = 0; v < ki.vars.size(); ++v) {
          int64_t c = v < f.coef.size() ? f.coef[v] : 0;
          const Var &var = ki.vars[v];
          if (var.dim >= 0) {
            const IndexForm &g = first ? first->index[e] : f;
            int64_t c0 = v < g.coef.size() ? g.coef[v] : 0;
            tileable = tileable && c0 == c;
          } else if (c != 0 && var.loop >= 0 && !ki.loops[static_cast<size_t>(var.loop)].constTrip) {
            tileable = false;
          }
        }
      }
      if (!first && !acc.isStore)
        first = &acc;
    }
    out[a] = loaded && !stored && tileable;
  }
  return out;
}

/// The block shapes of the space: B_d powers of two up to the next power of two
/// of the dimension, size(B) within the maximum block and at least a warp (a
/// block smaller than a warp leaves SIMD lanes idle; it is considered only when
/// the whole loop space is smaller than a warp).
std::vector<std::vector<int64_t>> blockShapes(const KernelInfo &ki, const hw::HwSpec &hw) {
  size_t nd = ki.dimNames.size();
  std::vector<int64_t> blockLim(nd);
  for (size_t d = 0; d < nd; ++d)
    blockLim[d] = std::min<int64_t>(hw.maxThreadsPerBlock, nextPow2(ki.dimSize[d]));
  int64_t minThreads = static_cast<int64_t>(std::min<double>(hw.warpSize, ki.loopSpace));
  std::vector<std::vector<int64_t>> out;
  for (auto &block : powerGrid(blockLim)) {
    int64_t tpb = 1;
    for (int64_t b : block)
      tpb *= b;
    if (tpb <= hw.maxThreadsPerBlock && tpb >= minThreads)
      out.push_back(std::move(block));
  }
  return out;
}

/// The tile rule: F_d within the dimension and size(B) x size(F) <= size(loop space).
bool tileFits(const KernelInfo &ki, const std::vector<int64_t> &block, const std::vector<int64_t> &fold) {
  double tile = 1, tpb = 1;
  for (size_t d = 0; d < block.size(); ++d) {
    if (fold[d] > maxFold(ki, d, block[d]))
      return false;
    tile *= static_cast<double>(block[d] * fold[d]);
    tpb *= static_cast<double>(block[d]);
  }
  return tile <= std::max(ki.loopSpace, tpb);
}

/// The constant-trip streaming loops with at least two iterations that are
/// statements of the nest's body itself (not inside another loop or a branch:
/// emit places a stage's barriers there, src/emit/EmitPlan.cpp): those a stage
/// can cover.
bool stageKind(const LoopInfo &li) {
  return li.isStream && li.constTrip && li.trip >= 2 && li.parent < 0 && li.execs >= 1;
}

/// The smallest stage size of the powers of two: 8 iterations of a 4-byte element are one
/// 32-byte sector, the smallest piece DRAM and L2 move, so a shorter stage fills its tile's
/// rows along the loop with part-used sectors (docs/model.md, section 2).
constexpr int64_t kMinStagePow2 = 8;

/// The largest power-of-two stage size of loop `lp`: the trip, and a tile of it of one
/// element per iteration of the smallest element among the loop's arrays within the
/// shared memory of a block (a larger one cannot fit, whatever the block).
int64_t maxStagePow2(const KernelInfo &ki, const hw::HwSpec &hw, size_t lp) {
  const LoopInfo &li = ki.loops[lp];
  int elem = 8;
  for (int a : li.arrays)
    elem = std::min(elem, ki.arrays[static_cast<size_t>(a)].elemBytes);
  int64_t cap = std::min<int64_t>(static_cast<int64_t>(li.trip),
                                  std::max<int64_t>(1, hw.sharedMemPerBlockBytes / std::max(1, elem)));
  int64_t p = 0;
  for (int64_t v = kMinStagePow2; v <= cap; v *= 2)
    p = v;
  return p; // 0: none
}

/// The stage sizes of staged loop `lp`: the paper's StageSize (equation 3) and the powers of
/// two from kMinStagePow2 to maxStagePow2, ascending, each once.
void stageSizes(const KernelInfo &ki, const hw::HwSpec &hw, size_t lp, int64_t paper,
                std::vector<int64_t> &out) {
  out.clear();
  out.push_back(paper);
  for (int64_t v = kMinStagePow2, hi = maxStagePow2(ki, hw, lp); hi > 0 && v <= hi; v *= 2)
    if (v != paper)
      out.push_back(v);
  std::sort(out.begin(), out.end());
}

} // namespace

SpaceBound spaceBound(const KernelInfo &ki, const hw::HwSpec &hw, const EnumerateOptions &opts) {
  SpaceBound b;
  std::vector<char> cacheable = cacheableArrays(ki);
  for (char c : cacheable)
    b.cacheable += c;
  // Per stageable loop: 1 (not staged) + its stage sizes (the paper's and the powers of two).
  std::vector<double> choices;
  for (size_t lp = 0; lp < ki.loops.size(); ++lp) {
    const LoopInfo &li = ki.loops[lp];
    if (stageKind(li) && std::any_of(li.arrays.begin(), li.arrays.end(), [&](int a) { return cacheable[a]; })) {
      ++b.stageable;
      int64_t hi = maxStagePow2(ki, hw, lp);
      int powers = 0;
      for (int64_t v = kMinStagePow2; hi > 0 && v <= hi; v *= 2)
        ++powers;
      choices.push_back(2.0 + powers);
    }
  }
  // The enumeration stages the first stageCap stageable loops of each cached set: at most
  // the stageCap loops with the most choices.
  std::sort(choices.begin(), choices.end(), std::greater<>());
  auto stageChoices = [&](int s) {
    double p = 1;
    for (int i = 0; i < s && i < static_cast<int>(choices.size()); ++i)
      p *= choices[static_cast<size_t>(i)];
    return p;
  };
  // (B, F) pairs within the tile rule, and the others (one pruned candidate each).
  double fitting = 0, other = 0;
  const auto folds = powerGrid(std::vector<int64_t>(ki.dimNames.size(), opts.maxFoldPerDim));
  for (const auto &block : blockShapes(ki, hw))
    for (const auto &fold : folds)
      (tileFits(ki, block, fold) ? fitting : other) += 1;
  auto count = [&](int c, int s) {
    return fitting * (1 + (std::ldexp(1.0, c) - 1) * stageChoices(s)) * 2 + other;
  };
  // Each array or loop dropped halves the subsets. Arrays go first while more
  // arrays than loops are kept (a stage exists only for a cached array, so at
  // equal counts the stage is the finer choice); neither is dropped entirely
  // before the other is down to the same count. 62 bounds the subset masks.
  b.cacheCap = b.cacheable;
  b.stageCap = b.stageable;
  while ((count(b.cacheCap, b.stageCap) > static_cast<double>(opts.maxCandidates) ||
          b.cacheCap + b.stageCap > 62) &&
         b.cacheCap + b.stageCap > 0) {
    if (b.cacheCap > b.stageCap)
      --b.cacheCap;
    else
      --b.stageCap;
  }
  b.candidates = static_cast<int64_t>(std::min(count(b.cacheCap, b.stageCap), 9.0e18));
  return b;
}

EnumerationStats enumerateLayouts(const KernelInfo &ki, const hw::HwSpec &hw,
                                  const EnumerateOptions &opts,
                                  const std::function<void(const Layout &, const Characterization &)> &emit) {
  EnumerationStats st;
  const SpaceBound bound = spaceBound(ki, hw, opts);
  const std::vector<char> cacheable = cacheableArrays(ki);

  // One Layout, one Characterization and the lists below are reused for every
  // candidate: nothing is allocated per layout once they have grown.
  Characterizer z(ki, hw);
  Characterization c;
  Layout l;
  std::vector<int> candidates, stageable;
  std::vector<std::pair<int, int64_t>> lmax;
  std::vector<int> staged;
  std::vector<std::vector<int64_t>> sizes; // per staged loop: its stage sizes
  std::vector<size_t> pick;                // per staged loop: the size chosen
  const auto folds = powerGrid(std::vector<int64_t>(ki.dimNames.size(), opts.maxFoldPerDim));
  for (const auto &block : blockShapes(ki, hw)) {
    l.block = block;
    for (const auto &fold : folds) {
      if (!tileFits(ki, block, fold)) {
        ++st.explored;
        ++st.pruned; // size(B) x size(F) beyond the loop space
        continue;
      }
      l.fold = fold;
      z.setShape(block, fold);
      const std::vector<double> &shr = z.shareDegrees();
      candidates.clear();
      for (size_t a = 0; a < ki.arrays.size(); ++a)
        if (cacheable[a] && shr[a] > 1.0)
          candidates.push_back(static_cast<int>(a));
      if (candidates.size() > static_cast<size_t>(bound.cacheCap)) {
        // Beyond the bound, the arrays with the least reuse (ShrDegree) are
        // dropped first: caching them saves the least traffic.
        std::sort(candidates.begin(), candidates.end(),
                  [&](int a, int b) { return shr[a] != shr[b] ? shr[a] > shr[b] : a < b; });
        candidates.resize(bound.cacheCap);
        std::sort(candidates.begin(), candidates.end());
      }
      size_t nc = candidates.size();
      for (uint64_t mask = 0; mask < (uint64_t{1} << nc); ++mask) {
        l.cached.clear();
        for (size_t ci = 0; ci < nc; ++ci)
          if (mask & (uint64_t{1} << ci))
            l.cached.push_back(candidates[ci]);
        if (l.cached.empty())
          stageable.clear();
        else
          stageableLoops(ki, l.cached, stageable);
        size_t ns = std::min<size_t>(stageable.size(), bound.stageCap);
        for (uint64_t smask = 0; smask < (uint64_t{1} << ns); ++smask) {
          // One staged loop at most: emit stages one (src/emit/EmitPlan.cpp),
          // and no layout is ranked that skelcast cannot write.
          if (smask & (smask - 1))
            continue;
          staged.clear();
          for (size_t s = 0; s < ns; ++s)
            if (smask & (uint64_t{1} << s))
              staged.push_back(stageable[s]);
          sizes.resize(staged.size());
          for (size_t s = 0; s < staged.size(); ++s)
            stageSizes(ki, hw, static_cast<size_t>(staged[s]), z.stageSize(staged[s], l.cached), sizes[s]);
          // Every combination of the staged loops' sizes (an odometer, the last loop fastest).
          pick.assign(staged.size(), 0);
          for (bool more = true; more;) {
            l.stages.clear();
            for (size_t s = 0; s < staged.size(); ++s)
              l.stages.push_back({staged[s], sizes[s][pick[s]]});
            maxUnroll(ki, l, opts, lmax);
            // L: none, then maximized (when anything can be unrolled).
            for (int variant = 0; variant < (lmax.empty() ? 1 : 2); ++variant) {
              if (variant == 0)
                l.unroll.clear();
              else
                l.unroll = lmax;
              ++st.explored;
              z.characterize(l, c);
              if (!c.fits) {
                ++st.pruned; // shared memory per block beyond the limit
                continue;
              }
              emit(l, c);
            }
            more = false;
            for (size_t s = staged.size(); s-- > 0;) {
              if (++pick[s] < sizes[s].size()) {
                more = true;
                break;
              }
              pick[s] = 0;
            }
          }
        }
      }
    }
  }
  return st;
}

} // namespace skelcast::layout
