#include "skelcast/layout/Coalescing.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace skelcast::layout {
namespace {

/// Transactions of a group of threads by distinct `unit`-byte blocks;
/// unknown addresses count one each.
double distinctUnits(const std::vector<std::optional<int64_t>> &addrs, size_t b, size_t e,
                     int64_t unit) {
  std::set<int64_t> s;
  double unknown = 0;
  for (size_t i = b; i < e; ++i) {
    if (addrs[i])
      s.insert(*addrs[i] / unit - (*addrs[i] % unit < 0 ? 1 : 0)); // floor, without overflow at INT64_MIN
    else
      unknown += 1;
  }
  return static_cast<double>(s.size()) + unknown;
}

bool dependsOn(const KernelInfo &ki, const skeleton::Expr &e, const std::vector<bool> &vary) {
  if (e.kind == skeleton::Expr::Kind::Name) {
    int v = ki.varIndex(e.name);
    if (v >= 0)
      return vary[static_cast<size_t>(v)];
    auto b = ki.bindings.find(e.name);
    if (b != ki.bindings.end())
      return dependsOn(ki, b->second, vary);
    return false;
  }
  for (const auto &a : e.args)
    if (dependsOn(ki, a, vary))
      return true;
  return false;
}

} // namespace

WarpAccess classifyWarp(const std::vector<std::optional<int64_t>> &addrs, int eb,
                        model::CoalescingRule rule) {
  WarpAccess w;
  size_t n = addrs.size();
  if (n == 0)
    return w;
  {
    std::set<int64_t> d;
    double unknown = 0;
    for (const auto &a : addrs) {
      if (a)
        d.insert(*a);
      else
        unknown += 1;
    }
    w.distinct = static_cast<double>(d.size()) + unknown;
  }
  switch (rule) {
  case model::CoalescingRule::HalfWarp: {
    double trans = 0;
    bool all = true;
    for (size_t h = 0; h < n; h += 16) {
      size_t e = std::min(n, h + 16);
      bool ok = (eb == 4 || eb == 8 || eb == 16) && addrs[h] && *addrs[h] % (16 * eb) == 0;
      int64_t want = 0;
      for (size_t i = h; i < e && ok; ++i)
        ok = addrs[i] && !__builtin_add_overflow(*addrs[h], static_cast<int64_t>(i - h) * eb, &want) &&
             *addrs[i] == want;
      trans += ok ? 1.0 : static_cast<double>(e - h);
      all = all && ok;
    }
    w.coalesced = all;
    w.transactions = all ? 1.0 : trans;
    return w;
  }
  case model::CoalescingRule::Segment: {
    int64_t seg = eb == 1 ? 32 : eb == 2 ? 64 : 128;
    double trans = 0;
    bool all = true;
    for (size_t h = 0; h < n; h += 16) {
      double t = distinctUnits(addrs, h, std::min(n, h + 16), seg);
      trans += t;
      all = all && t <= 1.0;
    }
    w.coalesced = all;
    w.transactions = all ? 1.0 : trans;
    return w;
  }
  case model::CoalescingRule::Sector: {
    double sectors = distinctUnits(addrs, 0, n, 32);
    std::vector<int64_t> known;
    bool anyUnknown = false;
    for (const auto &a : addrs) {
      if (a)
        known.push_back(*a);
      else
        anyUnknown = true;
    }
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    double runs = known.empty() ? 0 : 1;
    int64_t next = 0;
    for (size_t i = 1; i < known.size(); ++i)
      if (__builtin_add_overflow(known[i - 1], static_cast<int64_t>(eb), &next) || known[i] != next)
        runs += 1;
    double ideal = std::ceil(static_cast<double>(known.size()) * eb / 32.0);
    w.coalesced = !anyUnknown && runs <= 4 && sectors <= ideal + runs;
    w.transactions = w.coalesced ? 1.0 : sectors;
    return w;
  }
  }
  return w;
}

std::vector<std::optional<int64_t>> warpAddresses(const KernelInfo &ki, const AccessInfo &a,
                                                  const Layout &l, const model::HwSpec &hw,
                                                  int64_t innerIteration) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  size_t nd = ki.dimNames.size();
  // Thread coordinates: x is the last parallel dimension, then y, then z.
  std::vector<int64_t> bdim(3, 1);
  for (size_t t = 0; t < nd; ++t)
    bdim[t] = l.block[nd - 1 - t];
  int64_t tpb = l.threadsPerBlock();
  int64_t warp = std::min<int64_t>(hw.warpSize, tpb);
  std::vector<bool> vary(ki.vars.size(), false);
  for (size_t t = 0; t < nd; ++t) {
    int64_t below = 1;
    for (size_t u = 0; u < t; ++u)
      below *= bdim[u];
    vary[nd - 1 - t] = bdim[t] > 1 && below < warp;
  }
  std::vector<int64_t> vals(ki.vars.size(), 0);
  for (size_t v = 0; v < ki.vars.size(); ++v)
    vals[v] = ki.vars[v].lo;
  if (innerIteration > 0 && !a.loops.empty()) {
    const Var &iv = ki.vars[static_cast<size_t>(ki.loops[static_cast<size_t>(a.loops.back())].var)];
    vals[static_cast<size_t>(ki.loops[static_cast<size_t>(a.loops.back())].var)] =
        iv.lo + innerIteration * iv.step;
  }
  std::vector<std::optional<int64_t>> addrs;
  for (int64_t th = 0; th < warp; ++th) {
    int64_t rest = th;
    for (size_t t = 0; t < nd; ++t) {
      vals[nd - 1 - t] = ki.dimLo[nd - 1 - t] + rest % bdim[t];
      rest /= bdim[t];
    }
    int64_t off = 0;
    bool known = true;
    for (size_t d = 0; d < a.index.size() && known; ++d) {
      auto x = evalIndex(ki, a.index[d].expr, vals);
      if (!x) {
        // Unknown data: the same for the whole warp when it depends on no index
        // that varies across it (then it shifts all addresses alike).
        if (dependsOn(ki, a.index[d].expr, vary))
          known = false;
        continue;
      }
      // An offset beyond 64 bits (a subscript far outside the array) is unknown.
      int64_t term = 0;
      if (__builtin_mul_overflow(*x, arr.strides[d], &term) || __builtin_add_overflow(off, term, &off))
        known = false;
    }
    int64_t bytes = 0;
    if (known && __builtin_mul_overflow(off, static_cast<int64_t>(arr.elemBytes), &bytes))
      known = false;
    addrs.push_back(known ? std::optional<int64_t>(bytes) : std::nullopt);
  }
  return addrs;
}

WarpAccess directAccessPattern(const KernelInfo &ki, const AccessInfo &a, const Layout &l,
                               const model::HwSpec &hw) {
  return classifyWarp(warpAddresses(ki, a, l, hw, 0),
                      ki.arrays[static_cast<size_t>(a.array)].elemBytes, hw.coalescing());
}

double sectorInflation(const KernelInfo &ki, const std::vector<const AccessInfo *> &accesses,
                       const Layout &l, const model::HwSpec &hw) {
  if (accesses.empty())
    return 1.0;
  // The warp's addresses over the first iterations of each access's innermost
  // loop: sectors that later iterations use are not wasted.
  constexpr int64_t kIterations = 4;
  std::vector<std::optional<int64_t>> all;
  for (const auto *a : accesses) {
    int64_t iters = 1;
    if (!a->loops.empty())
      iters = std::clamp<int64_t>(static_cast<int64_t>(ki.loops[static_cast<size_t>(a->loops.back())].trip), 1,
                                  kIterations);
    for (int64_t t = 0; t < iters; ++t) {
      auto ad = warpAddresses(ki, *a, l, hw, t);
      all.insert(all.end(), ad.begin(), ad.end());
    }
  }
  int eb = ki.arrays[static_cast<size_t>(accesses.front()->array)].elemBytes;
  std::set<int64_t> distinct;
  double unknown = 0;
  for (const auto &x : all) {
    if (x)
      distinct.insert(*x);
    else
      unknown += 1;
  }
  double sectors = distinctUnits(all, 0, all.size(), 32);
  double bytes = (static_cast<double>(distinct.size()) + unknown) * eb;
  return bytes > 0 ? std::max(1.0, sectors * 32.0 / bytes) : 1.0;
}

WarpAccess cachingLoadPattern(const ArrayInfo &arr, const FootprintBox &box,
                              int64_t threadsPerBlock, const model::HwSpec &hw) {
  size_t nd = box.lo.size();
  int64_t warp = std::min<int64_t>(hw.warpSize, threadsPerBlock);
  std::vector<int64_t> ext(nd);
  for (size_t d = 0; d < nd; ++d)
    ext[d] = std::max<int64_t>(1, box.hi[d] - box.lo[d] + 1);
  std::vector<std::optional<int64_t>> addrs;
  for (int64_t th = 0; th < warp; ++th) {
    int64_t rest = th, off = 0;
    for (size_t d = nd; d-- > 0;) {
      off += (box.lo[d] + rest % ext[d]) * arr.strides[d];
      rest /= ext[d];
    }
    if (rest > 0)
      break; // the box holds fewer elements than a warp
    addrs.push_back(off * arr.elemBytes);
  }
  return classifyWarp(addrs, arr.elemBytes, hw.coalescing());
}

} // namespace skelcast::layout
