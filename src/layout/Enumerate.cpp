#include "skelcast/layout/Enumerate.h"

#include <algorithm>

namespace skelcast::layout {
namespace {

int64_t nextPow2(int64_t x) {
  int64_t p = 1;
  while (p < x && p < (int64_t{1} << 40))
    p *= 2;
  return p;
}

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
std::vector<int> stageableLoops(const KernelInfo &ki, const std::vector<int> &cached) {
  std::vector<int> out;
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
  return out;
}

/// "Maximize L": full unrolling of short constant loops, the stage size of a
/// staged loop, otherwise the largest power of two up to maxUnroll dividing the
/// trip; a loop with data-dependent bounds by up to 4 (with a remainder loop).
std::vector<std::pair<int, int64_t>> maxUnroll(const KernelInfo &ki, const Layout &l,
                                               const EnumerateOptions &o) {
  std::vector<std::pair<int, int64_t>> out;
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
  return out;
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

  for (const auto &block : powerGrid(blockLim)) {
    Layout base;
    base.block = block;
    int64_t tpb = base.threadsPerBlock();
    if (tpb > hw.maxThreadsPerBlock || tpb < minThreads)
      continue; // outside the space (not counted: never a candidate)
    for (const auto &fold : powerGrid(foldLim)) {
      Layout lf = base;
      lf.fold = fold;
      bool fits = true;
      double tile = 1;
      for (size_t d = 0; d < nd; ++d) {
        fits = fits && lf.block[d] * lf.fold[d] <= nextPow2(ki.dimSize[d]);
        tile *= static_cast<double>(lf.block[d] * lf.fold[d]);
      }
      if (!fits || tile > std::max(ki.loopSpace, static_cast<double>(tpb))) {
        ++st.explored;
        ++st.pruned; // size(B) x size(F) beyond the loop space
        continue;
      }
      std::vector<double> shr = shareDegrees(ki, lf);
      std::vector<int> candidates;
      for (size_t a = 0; a < ki.arrays.size(); ++a) {
        bool loaded = false, stored = false, data = false;
        for (const auto &acc : ki.accesses)
          if (acc.array == static_cast<int>(a)) {
            (acc.isStore ? stored : loaded) = true;
            data = data || acc.hasData();
          }
        if (loaded && !stored && !data && shr[a] > 1.0)
          candidates.push_back(static_cast<int>(a));
      }
      size_t nc = std::min<size_t>(candidates.size(), 8);
      for (uint32_t mask = 0; mask < (1u << nc); ++mask) {
        Layout lc = lf;
        for (size_t c = 0; c < nc; ++c)
          if (mask & (1u << c))
            lc.cached.push_back(candidates[c]);
        std::vector<int> sl = lc.cached.empty() ? std::vector<int>{} : stageableLoops(ki, lc.cached);
        size_t ns = std::min<size_t>(sl.size(), 4);
        for (uint32_t smask = 0; smask < (1u << ns); ++smask) {
          Layout ls = lc;
          for (size_t s = 0; s < ns; ++s)
            if (smask & (1u << s))
              ls.stages.push_back({sl[s], paperStageSize(ki, ls, sl[s], ls.cached)});
          auto lmax = maxUnroll(ki, ls, opts);
          std::vector<std::vector<std::pair<int, int64_t>>> unrolls{{}};
          if (!lmax.empty())
            unrolls.push_back(lmax);
          for (const auto &u : unrolls) {
            Layout l = ls;
            l.unroll = u;
            ++st.explored;
            Characterization c = characterize(ki, l, hw);
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
