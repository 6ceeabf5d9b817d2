#include "skelcast/layout/Footprint.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace skelcast::layout {
namespace {

struct Interval {
  int64_t first = 0, step = 1, n = 1;
};

int64_t floorMod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

/// Subscript values the exact (separable) count works with: within +-2^61, so
/// that interval ends and their differences fit in 64 bits. Subscripts beyond
/// (far outside any array) are enumerated or bounded instead.
constexpr int64_t kMaxCoord = int64_t{1} << 61;
bool inRange(int64_t v) { return v >= -kMaxCoord && v <= kMaxCoord; }

/// Variables an access can depend on: its subscripts' variables, or (for
/// data-dependent subscripts) the parallel indices and its enclosing loops.
std::vector<int> spanVars(const KernelInfo &ki, const AccessInfo &a) {
  if (!a.hasData() && std::none_of(a.index.begin(), a.index.end(), [](const IndexForm &f) {
        return f.kind == IndexForm::Kind::Computable;
      }))
    return a.vars();
  std::vector<int> v;
  for (size_t i = 0; i < ki.vars.size(); ++i)
    if (ki.vars[i].dim >= 0)
      v.push_back(static_cast<int>(i));
  for (int l : a.loops)
    v.push_back(ki.loops[static_cast<size_t>(l)].var);
  return v;
}

double points(const std::vector<int> &vars, const IterSet &set) {
  double p = 1;
  for (int v : vars)
    p *= static_cast<double>(set[static_cast<size_t>(v)].count);
  return p;
}

FootprintBox wholeArray(const ArrayInfo &arr) {
  FootprintBox b;
  for (auto e : arr.extents) {
    b.lo.push_back(0);
    b.hi.push_back(e - 1);
  }
  return b;
}

/// Union volume of boxes [lo, hi) by coordinate compression; -1 if too many cells.
double unionVolume(const std::vector<std::vector<std::pair<int64_t, int64_t>>> &boxes) {
  size_t nd = boxes.front().size();
  std::vector<std::vector<int64_t>> cuts(nd);
  for (const auto &b : boxes)
    for (size_t d = 0; d < nd; ++d) {
      cuts[d].push_back(b[d].first);
      cuts[d].push_back(b[d].second);
    }
  double cells = 1;
  for (auto &c : cuts) {
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    cells *= static_cast<double>(c.size() > 1 ? c.size() - 1 : 1);
  }
  if (cells > 4e6)
    return -1;
  std::vector<size_t> idx(nd, 0);
  double vol = 0;
  for (;;) {
    bool covered = false;
    for (const auto &b : boxes) {
      bool in = true;
      for (size_t d = 0; d < nd && in; ++d)
        in = b[d].first <= cuts[d][idx[d]] && cuts[d][idx[d] + 1] <= b[d].second;
      if (in) {
        covered = true;
        break;
      }
    }
    if (covered) {
      double v = 1;
      for (size_t d = 0; d < nd; ++d)
        v *= static_cast<double>(cuts[d][idx[d] + 1] - cuts[d][idx[d]]);
      vol += v;
    }
    size_t d = 0;
    while (d < nd && ++idx[d] + 1 >= cuts[d].size()) {
      idx[d] = 0;
      ++d;
    }
    if (d == nd)
      break;
  }
  return vol;
}

/// Separable accesses without allocating: at most kFastBoxes accesses of at most
/// kFastDims dimensions. Done: `size` and the box are footprint()'s. Enumerate:
/// footprint() would find the accesses not separable, or a union too large to
/// compress, and go on to enumerate the points. Unknown: anything else (too many
/// accesses or dimensions, an empty range); footprint()'s general code decides.
/// Sizes are exact integers, so summing them in another order gives the same double.
constexpr size_t kFastBoxes = 16, kFastDims = 8;

enum class Fast { Done, Enumerate, Unknown };

Fast separableFast(const KernelInfo &ki, const AccessInfo *const *acc, size_t n, const IterSet &set,
                   double &size, int64_t *boxLo, int64_t *boxHi) {
  if (n == 0 || n > kFastBoxes || ki.vars.size() > 64)
    return Fast::Unknown;
  size_t nd = ki.arrays[static_cast<size_t>(acc[0]->array)].extents.size();
  if (nd == 0 || nd > kFastDims)
    return Fast::Unknown;
  struct Progression {
    int64_t first, step, n;
  } iv[kFastBoxes][kFastDims]; // not initialized: only [n][nd] is used
  for (size_t i = 0; i < n; ++i) {
    const AccessInfo &a = *acc[i];
    uint64_t used = 0;
    for (size_t d = 0; d < nd; ++d) {
      const IndexForm &f = a.index[d];
      if (f.kind != IndexForm::Kind::Affine)
        return Fast::Enumerate;
      int var = -1;
      for (size_t v = 0; v < f.coef.size(); ++v)
        if (f.coef[v] != 0) {
          if (var >= 0 || (used >> v & 1))
            return Fast::Enumerate;
          used |= uint64_t{1} << v;
          var = static_cast<int>(v);
        }
      Progression x{f.constant, 1, 1};
      int64_t last = f.constant;
      if (var >= 0) {
        const VarRange &r = set[static_cast<size_t>(var)];
        int64_t c = f.coef[static_cast<size_t>(var)], cs = 0, span = 0;
        x.n = r.count;
        if (x.n <= 0)
          return Fast::Unknown;
        // As in footprint()'s general code: subscripts beyond +-2^61 are not
        // counted exactly, and none of this arithmetic may overflow.
        if (__builtin_mul_overflow(c, r.start, &cs) || __builtin_add_overflow(f.constant, cs, &x.first) ||
            __builtin_mul_overflow(c, r.stride, &x.step) ||
            __builtin_mul_overflow(x.step, x.n - 1, &span) || __builtin_add_overflow(x.first, span, &last) ||
            x.step == INT64_MIN)
          return Fast::Unknown;
        if (x.step < 0) {
          x.first = last;
          x.step = -x.step;
        }
        if (x.n <= 1)
          x.step = 1;
      }
      if (!inRange(x.first) || !inRange(last))
        return Fast::Unknown;
      iv[i][d] = x;
    }
  }
  int64_t step[kFastDims] = {};
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < nd; ++d)
      if (iv[i][d].n > 1) {
        if (step[d] == 0)
          step[d] = iv[i][d].step;
        else if (step[d] != iv[i][d].step)
          return Fast::Enumerate;
      }
  // Boxes [lo, hi) in units of the common step, grouped by residue class.
  int64_t res[kFastBoxes][kFastDims], lo[kFastBoxes][kFastDims], hi[kFastBoxes][kFastDims];
  for (size_t d = 0; d < nd; ++d) {
    boxLo[d] = INT64_MAX;
    boxHi[d] = INT64_MIN;
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < nd; ++d) {
      const Progression &b = iv[i][d];
      int64_t s = step[d] ? step[d] : 1;
      res[i][d] = floorMod(b.first, s);
      lo[i][d] = (b.first - res[i][d]) / s;
      hi[i][d] = lo[i][d] + b.n;
      boxLo[d] = std::min(boxLo[d], b.first);
      boxHi[d] = std::max(boxHi[d], b.first + b.step * (b.n - 1));
    }
  bool done[kFastBoxes] = {};
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (done[i])
      continue;
    size_t members[kFastBoxes], m = 0;
    for (size_t j = i; j < n; ++j)
      if (!done[j] && std::equal(res[i], res[i] + nd, res[j])) {
        done[j] = true;
        members[m++] = j;
      }
    if (m == 1) {
      double v = 1;
      for (size_t d = 0; d < nd; ++d)
        v *= static_cast<double>(hi[i][d] - lo[i][d]);
      total += v;
      continue;
    }
    // Coordinate compression of the group's boxes.
    int64_t cuts[kFastDims][2 * kFastBoxes];
    size_t nc[kFastDims];
    double cells = 1;
    for (size_t d = 0; d < nd; ++d) {
      for (size_t k = 0; k < m; ++k) {
        cuts[d][2 * k] = lo[members[k]][d];
        cuts[d][2 * k + 1] = hi[members[k]][d];
      }
      std::sort(cuts[d], cuts[d] + 2 * m);
      nc[d] = static_cast<size_t>(std::unique(cuts[d], cuts[d] + 2 * m) - cuts[d]);
      if (nc[d] < 2)
        return Fast::Unknown;
      cells *= static_cast<double>(nc[d] - 1);
    }
    if (cells > 4e6)
      return Fast::Enumerate;
    size_t idx[kFastDims] = {};
    for (;;) {
      for (size_t k = 0; k < m; ++k) {
        size_t b = members[k];
        bool in = true;
        for (size_t d = 0; d < nd && in; ++d)
          in = lo[b][d] <= cuts[d][idx[d]] && cuts[d][idx[d] + 1] <= hi[b][d];
        if (in) {
          double v = 1;
          for (size_t d = 0; d < nd; ++d)
            v *= static_cast<double>(cuts[d][idx[d] + 1] - cuts[d][idx[d]]);
          total += v;
          break;
        }
      }
      size_t d = 0;
      while (d < nd && ++idx[d] + 1 >= nc[d]) {
        idx[d] = 0;
        ++d;
      }
      if (d == nd)
        break;
    }
  }
  size = total;
  return Fast::Done;
}

/// One affine access whose subscripts use disjoint variables, each subscript's
/// values within its dimension's extent (the first excepted): its points are the
/// product of one set per dimension (the sums of that subscript's progressions),
/// and distinct coordinates are distinct offsets, so the number of distinct
/// offsets footprint() would enumerate is the product of the sets' sizes.
/// Returns false when that does not hold or a set is too wide to count.
bool productFast(const KernelInfo &ki, const AccessInfo &a, const IterSet &set, Footprint &fp) {
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(a.array)];
  size_t nd = arr.extents.size();
  if (nd == 0 || ki.vars.size() > 64)
    return false;
  uint64_t used = 0;
  std::vector<int64_t> lo(nd), hi(nd);
  std::vector<uint64_t> bits;
  double size = 1;
  for (size_t d = 0; d < nd; ++d) {
    const IndexForm &f = a.index[d];
    if (f.kind != IndexForm::Kind::Affine)
      return false;
    // Values constant + sum_v coef_v x (start_v + t_v x stride_v), t_v in [0, count_v).
    int64_t base = f.constant, span = 0;
    int64_t steps[64], counts[64];
    size_t nt = 0;
    for (size_t v = 0; v < f.coef.size(); ++v) {
      if (f.coef[v] == 0)
        continue;
      if (used >> v & 1)
        return false;
      used |= uint64_t{1} << v;
      const VarRange &r = set[v];
      if (r.count <= 0)
        return false;
      // Beyond 64 bits or +-2^61 (a subscript far outside its array): not counted here.
      int64_t step = 0, cs = 0, reach = 0;
      if (__builtin_mul_overflow(f.coef[v], r.stride, &step) ||
          __builtin_mul_overflow(f.coef[v], r.start, &cs) || __builtin_add_overflow(base, cs, &base) ||
          __builtin_mul_overflow(step, r.count - 1, &reach) || step == INT64_MIN || reach == INT64_MIN)
        return false;
      if (step < 0) {
        if (__builtin_add_overflow(base, reach, &base))
          return false;
        step = -step;
        reach = -reach;
      }
      if (r.count > 1 && step > 0) {
        steps[nt] = step;
        counts[nt] = r.count;
        ++nt;
        if (__builtin_add_overflow(span, reach, &span))
          return false;
      }
      if (!inRange(base) || !inRange(span))
        return false;
    }
    lo[d] = base;
    hi[d] = base + span;
    if (d > 0 && (lo[d] < 0 || hi[d] >= arr.extents[d]))
      return false; // offsets could alias across rows
    double n = 1;
    if (nt == 1) {
      n = static_cast<double>(counts[0]);
    } else if (nt > 1) {
      if (span >= (int64_t{1} << 24))
        return false;
      bits.assign(static_cast<size_t>(span / 64 + 1), 0);
      int64_t t[64] = {};
      int64_t distinct = 0;
      for (;;) {
        int64_t x = 0;
        for (size_t i = 0; i < nt; ++i)
          x += steps[i] * t[i];
        uint64_t &w = bits[static_cast<size_t>(x / 64)];
        uint64_t bit = uint64_t{1} << (x % 64);
        if (!(w & bit)) {
          w |= bit;
          ++distinct;
        }
        size_t i = 0;
        while (i < nt && ++t[i] >= counts[i]) {
          t[i] = 0;
          ++i;
        }
        if (i == nt)
          break;
      }
      n = static_cast<double>(distinct);
    }
    size *= n;
  }
  fp.size = size;
  fp.exact = true;
  fp.box.lo = std::move(lo);
  fp.box.hi = std::move(hi);
  return true;
}

} // namespace

double footprintSize(const KernelInfo &ki, const AccessInfo *const *accesses, size_t n,
                     const IterSet &set) {
  int64_t lo[kFastDims], hi[kFastDims];
  double size = 0;
  bool data = false;
  for (size_t i = 0; i < n; ++i)
    data = data || accesses[i]->hasData();
  if (!data && separableFast(ki, accesses, n, set, size, lo, hi) == Fast::Done)
    return size;
  return footprint(ki, std::vector<const AccessInfo *>(accesses, accesses + n), set).size;
}

Footprint footprint(const KernelInfo &ki, const std::vector<const AccessInfo *> &accesses,
                    const IterSet &set) {
  Footprint fp;
  if (accesses.empty())
    return fp;
  const ArrayInfo &arr = ki.arrays[static_cast<size_t>(accesses.front()->array)];
  size_t nd = arr.extents.size();

  auto upperBound = [&] {
    Footprint u;
    u.exact = false;
    for (const auto *a : accesses)
      u.size += points(spanVars(ki, *a), set);
    u.size = std::min(u.size, arr.elements);
    u.box = wholeArray(arr);
    return u;
  };
  for (const auto *a : accesses)
    if (a->hasData())
      return upperBound();
  int64_t fastLo[kFastDims], fastHi[kFastDims];
  Fast fast = separableFast(ki, accesses.data(), accesses.size(), set, fp.size, fastLo, fastHi);
  if (fast == Fast::Done) {
    fp.box.lo.assign(fastLo, fastLo + nd);
    fp.box.hi.assign(fastHi, fastHi + nd);
    return fp;
  }

  // Separable: each subscript uses at most one variable, each variable one subscript.
  bool separable = fast == Fast::Unknown;
  std::vector<std::vector<Interval>> ivs;
  for (const auto *a : accesses) {
    std::vector<Interval> box(nd);
    std::vector<int> used(ki.vars.size(), 0);
    for (size_t d = 0; d < nd && separable; ++d) {
      const IndexForm &f = a->index[d];
      if (f.kind != IndexForm::Kind::Affine) {
        separable = false;
        break;
      }
      int var = -1;
      for (size_t v = 0; v < f.coef.size(); ++v)
        if (f.coef[v] != 0) {
          if (var >= 0 || used[v]++) {
            separable = false;
            break;
          }
          var = static_cast<int>(v);
        }
      Interval iv;
      iv.first = f.constant;
      int64_t last = f.constant;
      if (var >= 0) {
        const VarRange &r = set[static_cast<size_t>(var)];
        int64_t c = f.coef[static_cast<size_t>(var)], cs = 0, span = 0;
        iv.n = r.count;
        // first = constant + c x start, step = c x stride, last = first + step x (n - 1)
        if (__builtin_mul_overflow(c, r.start, &cs) || __builtin_add_overflow(f.constant, cs, &iv.first) ||
            __builtin_mul_overflow(c, r.stride, &iv.step) ||
            __builtin_mul_overflow(iv.step, iv.n - 1, &span) || __builtin_add_overflow(iv.first, span, &last)) {
          separable = false;
          break;
        }
      }
      if (!inRange(iv.first) || !inRange(last)) {
        separable = false;
        break;
      }
      if (iv.n <= 1) {
        iv.step = 1;
      } else if (iv.step < 0) {
        iv.first = last;
        iv.step = -iv.step;
      }
      box[d] = iv;
    }
    if (!separable)
      break;
    ivs.push_back(box);
  }

  if (separable) {
    std::vector<int64_t> step(nd, 0);
    for (const auto &b : ivs)
      for (size_t d = 0; d < nd; ++d)
        if (b[d].n > 1) {
          if (step[d] == 0)
            step[d] = b[d].step;
          else if (step[d] != b[d].step)
            separable = false;
        }
    if (separable) {
      std::map<std::vector<int64_t>, std::vector<std::vector<std::pair<int64_t, int64_t>>>> groups;
      fp.box.lo.assign(nd, INT64_MAX);
      fp.box.hi.assign(nd, INT64_MIN);
      for (const auto &b : ivs) {
        std::vector<int64_t> res(nd);
        std::vector<std::pair<int64_t, int64_t>> box(nd);
        for (size_t d = 0; d < nd; ++d) {
          int64_t s = step[d] ? step[d] : 1;
          res[d] = floorMod(b[d].first, s);
          int64_t lo = (b[d].first - res[d]) / s;
          box[d] = {lo, lo + b[d].n};
          fp.box.lo[d] = std::min(fp.box.lo[d], b[d].first);
          fp.box.hi[d] = std::max(fp.box.hi[d], b[d].first + b[d].step * (b[d].n - 1));
        }
        groups[res].push_back(box);
      }
      double total = 0;
      bool ok = true;
      for (const auto &[_, boxes] : groups) {
        double v = unionVolume(boxes);
        if (v < 0) {
          ok = false;
          break;
        }
        total += v;
      }
      if (ok) {
        fp.size = total;
        return fp;
      }
    }
  }

  // Enumerate each access over its own variables.
  double pts = 0;
  for (const auto *a : accesses)
    pts += points(spanVars(ki, *a), set);
  if (pts > kEnumerationLimit)
    return upperBound();
  if (accesses.size() == 1 && productFast(ki, *accesses.front(), set, fp))
    return fp;
  std::unordered_set<int64_t> seen;
  fp.box.lo.assign(nd, INT64_MAX);
  fp.box.hi.assign(nd, INT64_MIN);
  std::vector<int64_t> vals(ki.vars.size());
  for (size_t v = 0; v < ki.vars.size(); ++v)
    vals[v] = set[v].start;
  for (const auto *a : accesses) {
    std::vector<int> vs = spanVars(ki, *a);
    std::vector<int64_t> t(vs.size(), 0);
    std::vector<CompiledIndex> index; // (resolved once: up to 2^20 points)
    for (size_t d = 0; d < nd; ++d)
      index.emplace_back(ki, a->index[d].expr);
    // The variable fewest parts of the subscripts depend on moves fastest (the
    // set of offsets does not depend on the order); one of a single value
    // last, since it "wraps" at every point and would mark the next as moved.
    auto key = [&](int v) {
      size_t n = 0;
      for (const auto &ix : index)
        n += ix.partsDependingOn(CompiledIndex::bit(static_cast<size_t>(v)));
      return std::make_pair(set[static_cast<size_t>(v)].count <= 1, n);
    };
    std::stable_sort(vs.begin(), vs.end(), [&](int x, int y) { return key(x) < key(y); });
    // The variables that moved since the previous point: the subscripts'
    // parts that depend on none of them keep their values (CompiledIndex::update).
    uint64_t changed = ~uint64_t{0};
    for (;;) {
      for (size_t i = 0; i < vs.size(); ++i) {
        const VarRange &r = set[static_cast<size_t>(vs[i])];
        vals[static_cast<size_t>(vs[i])] = r.start + t[i] * r.stride;
      }
      int64_t off = 0;
      bool ok = true;
      for (size_t d = 0; d < nd; ++d) {
        auto x = index[d].update(vals, changed);
        if (!x) {
          ok = false;
          break;
        }
        fp.box.lo[d] = std::min(fp.box.lo[d], *x);
        fp.box.hi[d] = std::max(fp.box.hi[d], *x);
        int64_t term = 0;
        if (__builtin_mul_overflow(*x, arr.strides[d], &term) || __builtin_add_overflow(off, term, &off)) {
          ok = false; // an element beyond 64-bit offsets: count the bound
          break;
        }
      }
      if (!ok)
        return upperBound();
      seen.insert(off);
      size_t i = 0;
      changed = 0;
      while (i < vs.size() && ++t[i] >= set[static_cast<size_t>(vs[i])].count) {
        changed |= CompiledIndex::bit(static_cast<size_t>(vs[i]));
        t[i] = 0;
        ++i;
      }
      if (i == vs.size())
        break;
      changed |= CompiledIndex::bit(static_cast<size_t>(vs[i]));
    }
  }
  fp.size = static_cast<double>(seen.size());
  return fp;
}

} // namespace skelcast::layout
