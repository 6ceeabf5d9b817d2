#include "skelcast/layout/Enumerate.h"

#include <algorithm>

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

/// The loops a stage of `cached` could cover: constant-trip streaming loops
/// that read a cached array.
void stageableLoops(const KernelInfo &ki, const std::vector<int> &cached, std::vector<int> &out) {
  out.clear();
  for (size_t l = 0; l < ki.loops.size(); ++l) {
    const LoopInfo &li = ki.loops[l];
    if (!li.isStream || !li.constTrip || li.trip < 2)
      continue;
    for (int a : cached)
      if (std::find(li.arrays.begin(), li.arrays.end(), a) != li.arrays.end()) {
        out.push_back(static_cast<int>(l));
        break;
      }
  }
}

/// "Maximize L": full unrolling of short constant loops, the stage size of a
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
    else if (s > 0)
      u = s;
    else if (trip <= o.maxUnroll)
      u = trip;
    else
      while (u * 2 <= o.maxUnroll && trip % (u * 2) == 0)
        u *= 2;
    if (u > 1)
      out.push_back({static_cast<int>(lp), u});
  }
}

} // namespace

EnumerationStats enumerateLayouts(const KernelInfo &ki, const model::HwSpec &hw,
                                  const EnumerateOptions &opts,
                                  const std::function<void(const Layout &, const Characterization &)> &emit) {
  EnumerationStats st;
  size_t nd = ki.dimNames.size();
  std::vector<int64_t> blockLim(nd), foldLim(nd, opts.maxFoldPerDim);
  for (size_t d = 0; d < nd; ++d)
    blockLim[d] = std::min<int64_t>(hw.maxThreadsPerBlock, nextPow2(ki.dimSize[d]));
  // A block smaller than a warp leaves SIMD lanes idle; it is considered only
  // when the whole loop space is smaller than a warp.
  int64_t minThreads = static_cast<int64_t>(std::min<double>(hw.warpSize, ki.loopSpace));

  // Arrays that can be cached once their ShrDegree exceeds 1: loaded, never
  // stored, no data-dependent subscript.
  std::vector<char> readOnlyAffine(ki.arrays.size(), 0);
  for (size_t a = 0; a < ki.arrays.size(); ++a) {
    bool loaded = false, stored = false, data = false;
    for (const auto &acc : ki.accesses)
      if (acc.array == static_cast<int>(a)) {
        (acc.isStore ? stored : loaded) = true;
        data = data || acc.hasData();
      }
    readOnlyAffine[a] = loaded && !stored && !data;
  }

  // One Layout, one Characterization and the lists below are reused for every
  // candidate: nothing is allocated per layout once they have grown.
  Characterizer z(ki, hw);
  Characterization c;
  Layout l;
  std::vector<int> candidates, stageable;
  std::vector<std::pair<int, int64_t>> lmax;
  const auto folds = powerGrid(foldLim);
  for (const auto &block : powerGrid(blockLim)) {
    l.block = block;
    int64_t tpb = l.threadsPerBlock();
    if (tpb > hw.maxThreadsPerBlock || tpb < minThreads)
      continue; // outside the space (not counted: never a candidate)
    for (const auto &fold : folds) {
      bool fits = true;
      double tile = 1;
      for (size_t d = 0; d < nd; ++d) {
        fits = fits && fold[d] <= maxFold(ki, d, block[d]);
        tile *= static_cast<double>(block[d] * fold[d]);
      }
      if (!fits || tile > std::max(ki.loopSpace, static_cast<double>(tpb))) {
        ++st.explored;
        ++st.pruned; // size(B) x size(F) beyond the loop space
        continue;
      }
      l.fold = fold;
      z.setShape(block, fold);
      const std::vector<double> &shr = z.shareDegrees();
      candidates.clear();
      for (size_t a = 0; a < ki.arrays.size(); ++a)
        if (readOnlyAffine[a] && shr[a] > 1.0)
          candidates.push_back(static_cast<int>(a));
      size_t nc = std::min<size_t>(candidates.size(), 8);
      for (uint32_t mask = 0; mask < (1u << nc); ++mask) {
        l.cached.clear();
        for (size_t ci = 0; ci < nc; ++ci)
          if (mask & (1u << ci))
            l.cached.push_back(candidates[ci]);
        if (l.cached.empty())
          stageable.clear();
        else
          stageableLoops(ki, l.cached, stageable);
        size_t ns = std::min<size_t>(stageable.size(), 4);
        for (uint32_t smask = 0; smask < (1u << ns); ++smask) {
          l.stages.clear();
          for (size_t s = 0; s < ns; ++s)
            if (smask & (1u << s))
              l.stages.push_back({stageable[s], z.stageSize(stageable[s], l.cached)});
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
        }
      }
    }
  }
  return st;
}

} // namespace skelcast::layout
