#include "skelcast/skeleton/Fuse.h"

#include "skelcast/skeleton/Eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace skelcast::skeleton {
namespace {

using Subst = std::map<std::string, Expr>;

Expr substitute(const Expr &e, const Subst &s) {
  if (e.kind == Expr::Kind::Name) {
    auto it = s.find(e.name);
    return it == s.end() ? e : it->second;
  }
  Expr r = e;
  for (auto &a : r.args)
    a = substitute(a, s);
  return r;
}

/// Rename names used and defined in a statement list.
void substituteBody(std::vector<Stmt> &body, const Subst &s) {
  for (auto &st : body) {
    switch (st.kind) {
    case Stmt::Kind::Comp: break;
    case Stmt::Kind::Mem:
      for (auto &i : st.mem.index)
        i = substitute(i, s);
      break;
    case Stmt::Kind::Bind: {
      st.bindValue = substitute(st.bindValue, s);
      auto it = s.find(st.bindName);
      if (it != s.end() && it->second.kind == Expr::Kind::Name)
        st.bindName = it->second.name;
      break;
    }
    case Stmt::Kind::Loop: {
      st.loop.lo = substitute(st.loop.lo, s);
      st.loop.hi = substitute(st.loop.hi, s);
      if (st.loop.step)
        st.loop.step = substitute(*st.loop.step, s);
      auto it = s.find(st.loop.index);
      if (it != s.end() && it->second.kind == Expr::Kind::Name)
        st.loop.index = it->second.name;
      substituteBody(st.loop.body, s);
      break;
    }
    case Stmt::Kind::Branch:
      substituteBody(st.branch.thenBody, s);
      substituteBody(st.branch.elseBody, s);
      break;
    }
  }
}

void localNames(const std::vector<Stmt> &body, std::set<std::string> &out) {
  for (const auto &st : body) {
    if (st.kind == Stmt::Kind::Bind)
      out.insert(st.bindName);
    if (st.kind == Stmt::Kind::Loop) {
      out.insert(st.loop.index);
      localNames(st.loop.body, out);
    }
    if (st.kind == Stmt::Kind::Branch) {
      localNames(st.branch.thenBody, out);
      localNames(st.branch.elseBody, out);
    }
  }
}

/// Every memory access of a body, loads and stores.
void accesses(const std::vector<Stmt> &body, std::vector<const MemAccess *> &out) {
  for (const auto &st : body) {
    if (st.kind == Stmt::Kind::Mem)
      out.push_back(&st.mem);
    if (st.kind == Stmt::Kind::Loop)
      accesses(st.loop.body, out);
    if (st.kind == Stmt::Kind::Branch) {
      accesses(st.branch.thenBody, out);
      accesses(st.branch.elseBody, out);
    }
  }
}

/// Remove the statements `drop` says to remove, recursively.
template <class Pred> void removeIf(std::vector<Stmt> &body, Pred drop) {
  std::vector<Stmt> kept;
  for (auto &st : body) {
    if (st.kind == Stmt::Kind::Loop)
      removeIf(st.loop.body, drop);
    if (st.kind == Stmt::Kind::Branch) {
      removeIf(st.branch.thenBody, drop);
      removeIf(st.branch.elseBody, drop);
    }
    if (!drop(st))
      kept.push_back(std::move(st));
  }
  body = std::move(kept);
}

/// The constant difference `a - b` over every value of the indices, if it is one.
std::optional<int64_t> constantOffset(const Expr &a, const Expr &b, const std::vector<std::string> &idx,
                                      const MacroTable &macros) {
  std::optional<int64_t> off;
  for (int64_t sample : {0, 1, 7, 1000}) {
    MacroTable env = macros;
    for (size_t d = 0; d < idx.size(); ++d)
      env[idx[d]] = sample + static_cast<int64_t>(d) * 13;
    if (!isConstExpr(a, env) || !isConstExpr(b, env))
      return std::nullopt;
    int64_t v = evalConstExpr(a, env, "") - evalConstExpr(b, env, "");
    if (off && *off != v)
      return std::nullopt;
    off = v;
  }
  return off;
}

} // namespace

FusionResult fuseKernels(const SkeletonFile &file, const Kernel &p, const Kernel &c,
                         const std::set<std::string> &dead) {
  FusionResult r;
  MacroTable macros = evalMacros(file);
  if (p.dims.size() != c.dims.size()) {
    r.whyNot = "the loop spaces have different dimensions";
    return r;
  }
  // Loop spaces: equal, or the consumer's inside the producer's (a halo away).
  double pSize = 1, cSize = 1;
  bool equal = true;
  for (size_t d = 0; d < p.dims.size(); ++d) {
    int64_t plo = p.dims[d].lo ? evalConstExpr(*p.dims[d].lo, macros, file.path) : 0;
    int64_t phi = evalConstExpr(p.dims[d].hi, macros, file.path);
    int64_t clo = c.dims[d].lo ? evalConstExpr(*c.dims[d].lo, macros, file.path) : 0;
    int64_t chi = evalConstExpr(c.dims[d].hi, macros, file.path);
    if (clo < plo || chi > phi || (phi - plo) - (chi - clo) > 8) {
      r.whyNot = "the loop spaces differ by more than a stencil halo";
      return r;
    }
    equal = equal && clo == plo && chi == phi;
    pSize *= static_cast<double>(phi - plo);
    cSize *= static_cast<double>(chi - clo);
  }

  // The consumer's body with the producer's index names and no clashing locals.
  Subst rename;
  for (size_t d = 0; d < p.indices.size(); ++d)
    rename[c.indices[d]] = Expr::ref(p.indices[d]);
  std::set<std::string> pLocals, cLocals;
  localNames(p.body, pLocals);
  localNames(c.body, cLocals);
  for (const auto &n : cLocals)
    if (pLocals.count(n) || std::find(p.indices.begin(), p.indices.end(), n) != p.indices.end())
      rename[n] = Expr::ref(n + "_2");
  std::vector<Stmt> cBody = c.body;
  substituteBody(cBody, rename);

  // What the producer stores and where.
  std::vector<const MemAccess *> pAcc, cAcc;
  accesses(p.body, pAcc);
  accesses(cBody, cAcc);
  std::map<std::string, const MemAccess *> produced;
  for (const auto *a : pAcc)
    if (a->isStore)
      produced[a->array] = a;
  // The consumer must not overwrite what other producer threads still read.
  for (const auto *a : cAcc)
    if (a->isStore)
      for (const auto *b : pAcc)
        if (!b->isStore && b->array == a->array && b->index != a->index) {
          r.whyNot = fmt::format("the consumer writes '{}', which the producer reads elsewhere",
                                 a->array);
          return r;
        }

  // Each consumer load of an intermediate: same index (a register) or a
  // constant offset (recompute from a shifted copy of the producer).
  std::vector<std::vector<int64_t>> shifts;
  for (const auto *a : cAcc) {
    if (a->isStore)
      continue;
    auto it = produced.find(a->array);
    if (it == produced.end())
      continue;
    std::vector<int64_t> o;
    for (size_t d = 0; d < a->index.size(); ++d) {
      auto off = constantOffset(a->index[d], it->second->index[d], p.indices, macros);
      if (!off) {
        r.whyNot = fmt::format("the consumer reads '{}' at an index no producer thread computes",
                               a->array);
        return r;
      }
      o.push_back(*off);
    }
    bool zero = std::all_of(o.begin(), o.end(), [](int64_t x) { return x == 0; });
    // Recomputing needs the producer to store element d at index d plus a constant.
    if (!zero && (it->second->index.size() != p.indices.size() ||
                  [&] {
                    for (size_t d = 0; d < p.indices.size(); ++d)
                      if (!constantOffset(it->second->index[d], Expr::ref(p.indices[d]), p.indices,
                                          macros))
                        return true;
                    return false;
                  }())) {
      r.whyNot = fmt::format("the consumer reads '{}' a halo away, but the producer does not store "
                             "it along its own indices",
                             a->array);
      return r;
    }
    if (zero)
      r.registerLoads.push_back(a->array);
    else if (std::find(shifts.begin(), shifts.end(), o) == shifts.end())
      shifts.push_back(o);
  }

  Kernel f;
  f.name = (p.name.empty() ? "kernel" : p.name) + "_" + (c.name.empty() ? "kernel" : c.name);
  f.dims = p.dims;
  f.indices = p.indices;
  f.loc = p.loc;
  f.comments.leading.push_back(fmt::format("// fused: {} then {}", p.name, c.name));
  f.body = p.body;
  // Shifted copies of the producer compute the halo the consumer reads.
  for (const auto &o : shifts) {
    std::vector<Stmt> copy = p.body;
    Subst shift;
    for (size_t d = 0; d < p.indices.size(); ++d) {
      // The shift applies to the array subscripts that the offset was measured on,
      // i.e. the producer's stored index moves by o along the dimension it uses.
      shift[p.indices[d]] = Expr::binary('+', Expr::ref(p.indices[d]), Expr::lit(o[d]));
    }
    for (const auto &n : pLocals)
      shift[n] = Expr::ref(fmt::format("{}_h{}", n, r.recomputedCopies + 1));
    substituteBody(copy, shift);
    removeIf(copy, [](const Stmt &s) { return s.kind == Stmt::Kind::Mem && s.mem.isStore; });
    ++r.recomputedCopies;
    f.body.insert(f.body.end(), copy.begin(), copy.end());
  }
  // Loads of intermediates are served by the fused body.
  removeIf(cBody, [&](const Stmt &s) {
    return s.kind == Stmt::Kind::Mem && !s.mem.isStore && produced.count(s.mem.array);
  });
  // Dead intermediates are never written.
  removeIf(f.body, [&](const Stmt &s) {
    bool drop = s.kind == Stmt::Kind::Mem && s.mem.isStore && dead.count(s.mem.array);
    if (drop)
      r.droppedStores.push_back(s.mem.array);
    return drop;
  });
  if (equal) {
    f.body.insert(f.body.end(), cBody.begin(), cBody.end());
  } else {
    Stmt br;
    br.kind = Stmt::Kind::Branch;
    br.branch.prob = cSize / pSize;
    br.branch.thenBody = std::move(cBody);
    br.loc = c.loc;
    f.body.push_back(std::move(br));
  }
  r.fused = std::move(f);
  return r;
}

} // namespace skelcast::skeleton
