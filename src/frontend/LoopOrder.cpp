// The loop order: distribution and interchange that expose a parallel loop
// (LoopOrder.h; docs/skeletonizer.md, "How it works", step 3).
#include "LoopOrder.h"
#include "ClangNodes.h"
#include "TUContext.h"

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::frontend {

namespace {

/// The statements of a loop's body, empty statements left out.
std::vector<const clang::Stmt *> bodyStmts(const clang::ForStmt *f) {
  std::vector<const clang::Stmt *> out;
  const clang::Stmt *b = f->getBody();
  if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b)) {
    for (const clang::Stmt *s : cs->body())
      if (!llvm::isa<clang::NullStmt>(s))
        out.push_back(s);
  } else if (b && !llvm::isa<clang::NullStmt>(b)) {
    out.push_back(b);
  }
  return out;
}

/// The loops from `s` down through bodies that are one loop each:
/// `for k { for j { ... } }` gives k, j. Empty when `s` is not a plain `for`.
std::vector<const clang::ForStmt *> loopChain(const clang::Stmt *s) {
  std::vector<const clang::ForStmt *> chain;
  auto *f = llvm::dyn_cast<clang::ForStmt>(s);
  while (f) {
    chain.push_back(f);
    auto b = bodyStmts(f);
    f = b.size() == 1 ? llvm::dyn_cast<clang::ForStmt>(b[0]) : nullptr;
  }
  return chain;
}

bool isPointer(const clang::VarDecl *v) {
  if (!v->getType()->isPointerType())
    return false;
  // array syntax in a parameter (`float a[N][M]`) is an array
  if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v))
    if (pv->getOriginalType()->isArrayType())
      return false;
  return true;
}

/// Two names of the nest that never overlap: arrays declared as such, a
/// `restrict` pointer, or origins the file shows apart (the aliasing rule of
/// the dependence test; `--assume-aliasing` keeps only the first two).
bool namesApart(NestAnalysis &na, const clang::VarDecl *a, const clang::VarDecl *b) {
  if (!isPointer(a) && !isPointer(b))
    return true;
  if (a->getType().isRestrictQualified() || b->getType().isRestrictQualified())
    return true;
  if (na.tu.opts.assumeAliasing || !na.facts.fn)
    return false;
  AliasVerdict v = na.tu.origins.relate(na.facts.fn, a, b);
  if (v.kind == AliasVerdict::Kind::AssumedDistinct) // said in the function's warning
    na.tu.assumedDistinct[na.facts.fn].insert(v.params.begin(), v.params.end());
  return v.kind == AliasVerdict::Kind::Distinct || v.kind == AliasVerdict::Kind::AssumedDistinct;
}

std::string lines(TUContext &tu, const std::vector<const clang::ForStmt *> &loops) {
  std::string out;
  for (const clang::ForStmt *f : loops)
    out += (out.empty() ? "" : ", ") + std::to_string(tu.line(f->getBeginLoc()));
  return out;
}

/// `w` and `x` touch one element only in one iteration of loop index `v`: a
/// subscript has the same affine form in both, with `v` in it and no
/// variable but `v` and those `fixed` says are fixed there; and no subscript
/// after the first may leave its row (NestAnalysis::staysInRows), where equal
/// forms no longer mean one element.
bool oneIndexApart(NestAnalysis &na, const AccessRec &w, const AccessRec &x, const clang::VarDecl *v,
                   const std::function<bool(const clang::VarDecl *)> &fixed) {
  if (w.subs.size() != x.subs.size() || !na.staysInRows(w) || !na.staysInRows(x))
    return false;
  for (size_t d = 0; d < w.subs.size(); ++d) {
    Affine fw = na.affine(w.subs[d]), fx = na.affine(x.subs[d]);
    if (!fw.valid || fw != fx || fw.coefOf(v) == 0)
      continue;
    if (std::all_of(fw.coef.begin(), fw.coef.end(), [&](const auto &c) {
          auto *u = llvm::dyn_cast<clang::VarDecl>(c.first.decl);
          return u && (u == v || fixed(u));
        }))
      return true;
  }
  return false;
}

/// `s` leaves the loop body it stands in: a `continue` or `break` not inside a
/// loop or switch of its own, or a `return` or `goto` anywhere.
bool jumpsOut(const clang::Stmt *s, bool nested = false) {
  if (!s)
    return false;
  if (llvm::isa<clang::ReturnStmt>(s) || llvm::isa<clang::GotoStmt>(s) ||
      llvm::isa<clang::IndirectGotoStmt>(s))
    return true;
  if (!nested && (llvm::isa<clang::ContinueStmt>(s) || llvm::isa<clang::BreakStmt>(s)))
    return true;
  bool inner = nested || llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
               llvm::isa<clang::DoStmt>(s) || llvm::isa<clang::SwitchStmt>(s);
  for (const clang::Stmt *c : s->children())
    if (jumpsOut(c, inner))
      return true;
  return false;
}

/// `s` is or holds a `for` loop.
bool containsFor(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ForStmt>(s))
    return true;
  for (const clang::Stmt *c : s->children())
    if (containsFor(c))
      return true;
  return false;
}

} // namespace

std::optional<Reordering> distributeInner(NestAnalysis &na, const NestScan &scan,
                                          const clang::ForStmt *outer,
                                          const std::function<bool(const LoopHeader &)> &spaceBounds,
                                          std::string &whyNot, bool interchangeOnly) {
  std::vector<const clang::Stmt *> top;
  for (const clang::Stmt *s : scan.bodyOf(outer))
    if (!llvm::isa<clang::NullStmt>(s))
      top.push_back(s);
  if (interchangeOnly ? top.size() != 1 : top.size() < 2)
    return std::nullopt;
  std::vector<std::vector<const clang::ForStmt *>> chains;
  for (const clang::Stmt *s : top) {
    chains.push_back(loopChain(s));
    if (chains.back().empty())
      return std::nullopt; // a statement that is not a loop: each j would repeat it
    for (const clang::ForStmt *f : chains.back())
      if (scan.earlyExits.count(f)) {
        whyNot = fmt::format("the loop at line {} ends at a 'break'", na.tu.line(f->getBeginLoc()));
        return std::nullopt;
      }
  }
  // J: the outermost index of the first chain that every chain has
  const clang::VarDecl *J = nullptr;
  for (const clang::ForStmt *f : chains.front()) {
    const clang::VarDecl *v = scan.headers.at(f).var;
    bool everywhere = std::all_of(chains.begin(), chains.end(), [&](const auto &c) {
      return std::any_of(c.begin(), c.end(),
                         [&](const clang::ForStmt *g) { return scan.headers.at(g).var == v; });
    });
    if (everywhere) {
      J = v;
      break;
    }
  }
  if (!J)
    return std::nullopt;
  Reordering r;
  std::vector<const clang::ForStmt *> around; // the sequential loops interchanged with a copy
  for (const auto &c : chains) {
    auto it = std::find_if(c.begin(), c.end(),
                           [&](const clang::ForStmt *g) { return scan.headers.at(g).var == J; });
    r.copies.push_back(*it);
    around.insert(around.end(), c.begin(), it);
  }
  r.dim = r.copies.front();
  std::string jn = J->getName().str();

  // every copy runs over the same known values, in steps of 1
  const LoopHeader &h0 = scan.headers.at(r.dim);
  for (const clang::ForStmt *c : r.copies) {
    const LoopHeader &h = scan.headers.at(c);
    auto lo = na.knownValue(h.init), hi = na.knownValue(h.bound);
    // known values, or one affine form of the indices around (a triangle, `j <= i`)
    Affine alo = na.affine(h.init), ahi = na.affine(h.bound);
    bool same = lo && hi ? lo == na.knownValue(h0.init) && hi == na.knownValue(h0.bound)
                         : alo.valid && ahi.valid && alo == na.affine(h0.init) &&
                               ahi == na.affine(h0.bound);
    if (h.stepExpr || h.step != 1 || h.decreasing != h0.decreasing ||
        h.inclusive != h0.inclusive || !same || !spaceBounds(h)) {
      whyNot = fmt::format("the '{}' loops (lines {}) do not all run over the same known bounds",
                           jn, lines(na.tu, r.copies));
      return std::nullopt;
    }
  }
  auto insideCopy = [&](const clang::ForStmt *l) {
    return std::any_of(r.copies.begin(), r.copies.end(),
                       [&](const clang::ForStmt *c) { return scan.inside(l, c); });
  };

  // scalars: only loop indices, and locals of a copy's body (private to a j)
  std::set<const clang::VarDecl *> indices;
  for (const auto &[f, h] : scan.headers)
    if (scan.inside(f, outer))
      indices.insert(h.var);
  for (const ScalarWrite &w : scan.scalarWrites) {
    if (!scan.inside(w.loop, outer))
      continue;
    auto hd = scan.headers.find(w.loop);
    if (!w.site && hd != scan.headers.end() && hd->second.var == w.var)
      continue; // a loop header's start

    auto ld = scan.localDecls.find(w.var);
    if (ld != scan.localDecls.end() && insideCopy(ld->second))
      continue;
    whyNot = fmt::format("'{}' is assigned in the body of the loop around the '{}' loops",
                         w.var->getName().str(), jn);
    return std::nullopt;
  }

  // arrays: two iterations with different j never touch one element that
  // either writes; every access is inside a copy (none in a header around one)
  std::set<const clang::VarDecl *> space; // the loop space so far: fixed within one body
  for (const auto &[v, li] : na.plan.loops)
    if (li.parallel)
      space.insert(v);
  std::vector<const AccessRec *> acc;
  for (const AccessRec &a : scan.accesses) {
    if (!scan.inside(a.loop, outer))
      continue;
    if (!insideCopy(a.loop)) {
      whyNot = fmt::format("'{}' is read in the header of a loop around a '{}' loop",
                           a.base->getName().str(), jn);
      return std::nullopt;
    }
    if (scan.registerArrays.count(a.base)) {
      auto ld = scan.localDecls.find(a.base);
      if (ld != scan.localDecls.end() && insideCopy(ld->second))
        continue; // a local array of one j's body
      whyNot = fmt::format("the local array '{}' is shared by the '{}' iterations",
                           a.base->getName().str(), jn);
      return std::nullopt;
    }
    acc.push_back(&a);
  }
  // the same form of j and of values fixed within one body of the outer loop
  auto separatesJ = [&](const AccessRec &w, const AccessRec &x) {
    return oneIndexApart(na, w, x, J,
                         [&](const clang::VarDecl *v) { return space.count(v) || !indices.count(v); });
  };
  for (const AccessRec *w : acc) {
    if (!w->write)
      continue;
    for (const AccessRec *x : acc) {
      if (w->base != x->base) {
        if (!namesApart(na, w->base, x->base)) {
          whyNot = fmt::format("'{}' and '{}' may point to the same memory",
                               w->base->getName().str(), x->base->getName().str());
          return std::nullopt;
        }
        continue;
      }
      if (!separatesJ(*w, *x)) {
        whyNot = fmt::format("'{}' (written, line {}) and '{}' (line {}) may be the same element "
                             "for two values of '{}'",
                             na.tu.sourceText(w->expr->getSourceRange()),
                             na.tu.line(w->expr->getBeginLoc()),
                             na.tu.sourceText(x->expr->getSourceRange()),
                             na.tu.line(x->expr->getBeginLoc()), jn);
        return std::nullopt;
      }
    }
  }
  std::string arounds;
  for (const clang::ForStmt *a : around) {
    std::string n = fmt::format("'{}' (line {})", scan.headers.at(a).var->getName().str(),
                                na.tu.line(a->getBeginLoc()));
    if (arounds.find(n) == std::string::npos)
      arounds += (arounds.empty() ? "" : ", ") + n;
  }
  if (interchangeOnly) {
    r.note = fmt::format("loops reordered: '{}' (line {}) interchanged with '{}' (line {}){}, "
                         "which carries a dependence between iterations of one '{}' only; '{}' "
                         "is the loop space, each thread runs '{}' in order",
                         jn, na.tu.line(r.dim->getBeginLoc()),
                         scan.headers.at(outer).var->getName().str(),
                         na.tu.line(outer->getBeginLoc()),
                         arounds.empty() ? "" : " and " + arounds, jn, jn,
                         scan.headers.at(outer).var->getName().str());
    return r;
  }
  r.note = fmt::format("loops reordered: the {} '{}' loops (lines {}) distributed out of '{}' "
                       "(line {}){}; '{}' is a loop-space dimension, each thread runs the "
                       "statements of its '{}' in their order",
                       r.copies.size(), jn, lines(na.tu, r.copies),
                       scan.headers.at(outer).var->getName().str(),
                       na.tu.line(outer->getBeginLoc()),
                       arounds.empty() ? "" : " and interchanged with " + arounds, jn, jn);
  return r;
}

std::vector<std::vector<const clang::Stmt *>> fissionGroups(NestAnalysis &na, const NestScan &scan,
                                                            const clang::ForStmt *outer,
                                                            std::string &whyNot) {
  const clang::VarDecl *I = scan.headers.at(outer).var;
  std::string in = I->getName().str();
  std::set<const clang::VarDecl *> indices;
  for (const auto &[f, h] : scan.headers)
    indices.insert(h.var);
  // scalars: only loop indices, and locals of a loop inside the body
  std::set<const clang::ForStmt *> withLocals; // such loops are not distributed
  for (const ScalarWrite &w : scan.scalarWrites) {
    auto hd = scan.headers.find(w.loop);
    if (!w.site && hd != scan.headers.end() && hd->second.var == w.var)
      continue; // a loop header's start
    auto ld = scan.localDecls.find(w.var);
    if (ld != scan.localDecls.end() && ld->second != outer) {
      withLocals.insert(ld->second);
      continue;
    }
    whyNot = fmt::format("'{}' is assigned in the body of '{}'", w.var->getName().str(), in);
    return {};
  }

  // The leaves: the body's statements, and those of a loop of it whose body
  // is statements without loops (distributed among the groups: bicg's
  // `for j { s[j] += ...; q[i] += ...; }`).
  struct Leaf {
    const clang::Stmt *stmt;
    const clang::ForStmt *loop; ///< the distributed loop it is in, or null
  };
  std::vector<Leaf> leaves;
  for (const clang::Stmt *s : bodyStmts(outer)) {
    if (jumpsOut(s)) {
      whyNot = fmt::format("the statement at line {} leaves the body of '{}' early ('continue', "
                           "'break', 'return' or 'goto'): every group would need its test",
                           na.tu.line(s->getBeginLoc()), in);
      return {};
    }
    auto *f = llvm::dyn_cast<clang::ForStmt>(s);
    std::vector<const clang::Stmt *> inner = f ? bodyStmts(f) : std::vector<const clang::Stmt *>{};
    bool split = f && inner.size() > 1 && llvm::isa<clang::CompoundStmt>(f->getBody()) &&
                 !withLocals.count(f) && !scan.earlyExits.count(f) &&
                 std::none_of(inner.begin(), inner.end(), [](const clang::Stmt *x) {
                   return containsFor(x) || continueIf(x) || llvm::isa<clang::DeclStmt>(x);
                 });
    if (split)
      for (const clang::Stmt *x : inner)
        leaves.push_back({x, f});
    else
      leaves.push_back({s, nullptr});
  }
  if (leaves.size() < 2)
    return {};
  // each access's leaf, by the AST (statements from one macro share a place)
  std::map<const clang::Stmt *, int> leafOfNode;
  std::function<void(const clang::Stmt *, int)> mark = [&](const clang::Stmt *s, int l) {
    if (!s)
      return;
    leafOfNode[s] = l;
    for (const clang::Stmt *c : s->children())
      mark(c, l);
  };
  for (size_t l = 0; l < leaves.size(); ++l)
    mark(leaves[l].stmt, static_cast<int>(l));
  auto leafOf = [&](const clang::Stmt *e) -> int {
    auto it = leafOfNode.find(e);
    return it == leafOfNode.end() ? -1 : it->second;
  };
  std::vector<std::pair<const AccessRec *, int>> acc;
  for (const AccessRec &a : scan.accesses) {
    int l = leafOf(a.expr);
    if (l < 0) {
      whyNot = fmt::format("'{}' is accessed outside the statements of '{}' (a loop's header, or "
                           "a called function)",
                           a.base->getName().str(), in);
      return {};
    }
    if (scan.registerArrays.count(a.base)) {
      auto ld = scan.localDecls.find(a.base);
      if (ld != scan.localDecls.end() && ld->second != outer &&
          std::none_of(leaves.begin(), leaves.end(), [&](const Leaf &x) { return x.loop == ld->second; }))
        continue;
      whyNot = fmt::format("the local array '{}' is shared by the statements of '{}'",
                           a.base->getName().str(), in);
      return {};
    }
    acc.emplace_back(&a, l);
  }
  // one subscript with the same affine form of `v` in both, and no other index
  auto sameIteration = [&](const AccessRec &w, const AccessRec &x, const clang::VarDecl *v) {
    return oneIndexApart(na, w, x, v, [&](const clang::VarDecl *u) { return !indices.count(u); });
  };
  // Leaves that meet across iterations stay in one group (union-find); the
  // others meet only in one iteration of `outer` (and of the distributed
  // loop, for two of its statements), and their groups keep that order.
  std::vector<int> comp(leaves.size());
  for (size_t l = 0; l < leaves.size(); ++l)
    comp[l] = static_cast<int>(l);
  std::function<int(int)> find = [&](int x) { return comp[x] == x ? x : comp[x] = find(comp[x]); };
  std::vector<std::pair<int, int>> before; // leaf pairs that meet, in their order
  for (const auto &[w, lw] : acc) {
    if (!w->write)
      continue;
    for (const auto &[x, lx] : acc) {
      if (lw == lx)
        continue;
      if (w->base != x->base) {
        if (!namesApart(na, w->base, x->base)) {
          whyNot = fmt::format("'{}' and '{}' may point to the same memory",
                               w->base->getName().str(), x->base->getName().str());
          return {};
        }
        continue;
      }
      const clang::ForStmt *shared = leaves[lw].loop && leaves[lw].loop == leaves[lx].loop ? leaves[lw].loop
                                                                                        : nullptr;
      bool apart = sameIteration(*w, *x, I) &&
                   (!shared || sameIteration(*w, *x, scan.headers.at(shared).var));
      if (!apart)
        comp[find(lw)] = find(lx);
      else
        before.emplace_back(std::min(lw, lx), std::max(lw, lx));
    }
  }
  // the groups, in the order of their first leaf; every pair that meets must
  // keep its order between groups
  std::map<int, int> groupOf;
  std::vector<std::vector<int>> groups;
  for (size_t l = 0; l < leaves.size(); ++l) {
    int c = find(static_cast<int>(l));
    if (!groupOf.count(c)) {
      groupOf[c] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[groupOf[c]].push_back(static_cast<int>(l));
  }
  // a group without a loop (`tmp[i] = 0;`) joins the next group it meets,
  // else the one before
  auto hasLoop = [&](const std::vector<int> &g) {
    return std::any_of(g.begin(), g.end(), [&](int l) { return leaves[l].loop || containsFor(leaves[l].stmt); });
  };
  for (size_t g = 0; g < groups.size();) {
    if (hasLoop(groups[g]) || groups.size() < 2) {
      ++g;
      continue;
    }
    std::optional<size_t> into;
    for (size_t h = g + 1; h < groups.size() && !into; ++h)
      for (const auto &[a, b] : before)
        if ((std::count(groups[g].begin(), groups[g].end(), a) && std::count(groups[h].begin(), groups[h].end(), b)))
          into = h;
    if (!into)
      into = g > 0 ? g - 1 : g + 1;
    for (int l : groups[g])
      groups[*into].push_back(l);
    std::sort(groups[*into].begin(), groups[*into].end());
    groups.erase(groups.begin() + static_cast<long>(g));
    g = 0; // the order of the groups changed: look again
  }
  if (groups.size() < 2)
    return {};
  std::map<int, size_t> at;
  for (size_t g = 0; g < groups.size(); ++g)
    for (int l : groups[g])
      at[l] = g;
  // groups run in their order: a pair that meets must not run backwards
  for (const auto &[a, b] : before)
    if (at[a] > at[b]) {
      whyNot = fmt::format("the statements at lines {} and {} meet in one iteration in this order, "
                           "which the groups would reverse",
                           na.tu.line(leaves[a].stmt->getBeginLoc()), na.tu.line(leaves[b].stmt->getBeginLoc()));
      return {};
    }
  std::vector<std::vector<const clang::Stmt *>> out;
  for (const auto &g : groups) {
    out.emplace_back();
    for (int l : g) {
      if (leaves[l].loop &&
          std::find(out.back().begin(), out.back().end(), leaves[l].loop) == out.back().end())
        out.back().push_back(leaves[l].loop);
      out.back().push_back(leaves[l].stmt);
    }
  }
  return out;
}

} // namespace skelcast::frontend
