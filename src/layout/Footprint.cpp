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

} // namespace

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

  // Separable: each subscript uses at most one variable, each variable one subscript.
  bool separable = true;
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
  std::unordered_set<int64_t> seen;
  fp.box.lo.assign(nd, INT64_MAX);
  fp.box.hi.assign(nd, INT64_MIN);
  std::vector<int64_t> vals(ki.vars.size());
  for (size_t v = 0; v < ki.vars.size(); ++v)
    vals[v] = set[v].start;
  for (const auto *a : accesses) {
    std::vector<int> vs = spanVars(ki, *a);
    std::vector<int64_t> t(vs.size(), 0);
    for (;;) {
      for (size_t i = 0; i < vs.size(); ++i) {
        const VarRange &r = set[static_cast<size_t>(vs[i])];
        vals[static_cast<size_t>(vs[i])] = r.start + t[i] * r.stride;
      }
      int64_t off = 0;
      bool ok = true;
      for (size_t d = 0; d < nd; ++d) {
        auto x = evalIndex(ki, a->index[d].expr, vals);
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
      while (i < vs.size() && ++t[i] >= set[static_cast<size_t>(vs[i])].count) {
        t[i] = 0;
        ++i;
      }
      if (i == vs.size())
        break;
    }
  }
  fp.size = static_cast<double>(seen.size());
  return fp;
}

} // namespace skelcast::layout
