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
  return v.kind == AliasVerdict::Kind::Distinct || v.kind == AliasVerdict::Kind::AssumedDistinct;
}

std::string lines(TUContext &tu, const std::vector<const clang::ForStmt *> &loops) {
  std::string out;
  for (const clang::ForStmt *f : loops)
    out += (out.empty() ? "" : ", ") + std::to_string(tu.line(f->getBeginLoc()));
  return out;
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
  auto separatesJ = [&](const AccessRec &w, const AccessRec &x) {
    if (w.subs.size() != x.subs.size())
      return false;
    for (size_t d = 0; d < w.subs.size(); ++d) {
      Affine fw = na.affine(w.subs[d]), fx = na.affine(x.subs[d]);
      if (!fw.valid || fw != fx || fw.coefOf(J) == 0)
        continue;
      // the same form of j and of values fixed within one body of the outer loop
      bool fixed = std::all_of(fw.coef.begin(), fw.coef.end(), [&](const auto &c) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(c.first.decl);
        return v && (v == J || space.count(v) || !indices.count(v));
      });
      if (fixed)
        return true;
    }
    return false;
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
  std::vector<std::vector<const clang::Stmt *>> groups(1);
  for (const clang::Stmt *s : bodyStmts(outer)) {
    groups.back().push_back(s);
    if (containsFor(s))
      groups.emplace_back();
  }
  if (groups.back().empty())
    groups.pop_back();
  else if (groups.size() > 1) { // statements after the last loop join its group
    auto tail = groups.back();
    groups.pop_back();
    groups.back().insert(groups.back().end(), tail.begin(), tail.end());
  }
  if (groups.size() < 2)
    return {};
  const clang::SourceManager &sm = na.tu.sm;
  auto groupOf = [&](const clang::Stmt *e) -> int {
    clang::SourceLocation at = sm.getExpansionLoc(e->getBeginLoc());
    for (size_t g = 0; g < groups.size(); ++g)
      for (const clang::Stmt *s : groups[g])
        if (!sm.isBeforeInTranslationUnit(at, sm.getExpansionLoc(s->getBeginLoc())) &&
            !sm.isBeforeInTranslationUnit(sm.getExpansionLoc(s->getEndLoc()), at))
          return static_cast<int>(g);
    return -1;
  };
  const clang::VarDecl *I = scan.headers.at(outer).var;
  std::string in = I->getName().str();
  std::set<const clang::VarDecl *> indices;
  for (const auto &[f, h] : scan.headers)
    indices.insert(h.var);
  for (const ScalarWrite &w : scan.scalarWrites) {
    auto hd = scan.headers.find(w.loop);
    if (!w.site && hd != scan.headers.end() && hd->second.var == w.var)
      continue; // a loop header's start
    auto ld = scan.localDecls.find(w.var);
    if (ld != scan.localDecls.end() && ld->second != outer)
      continue; // a local of a loop inside one group
    whyNot = fmt::format("'{}' is assigned in the body of '{}'", w.var->getName().str(), in);
    return {};
  }
  std::vector<std::pair<const AccessRec *, int>> acc;
  for (const AccessRec &a : scan.accesses) {
    int g = groupOf(a.expr);
    if (g < 0) {
      whyNot = fmt::format("'{}' is read in the header of '{}'", a.base->getName().str(), in);
      return {};
    }
    if (scan.registerArrays.count(a.base)) {
      auto ld = scan.localDecls.find(a.base);
      if (ld != scan.localDecls.end() && ld->second != outer)
        continue;
      whyNot = fmt::format("the local array '{}' is shared by the statements of '{}'",
                           a.base->getName().str(), in);
      return {};
    }
    acc.emplace_back(&a, g);
  }
  auto sameIteration = [&](const AccessRec &w, const AccessRec &x) {
    if (w.subs.size() != x.subs.size())
      return false;
    for (size_t d = 0; d < w.subs.size(); ++d) {
      Affine fw = na.affine(w.subs[d]), fx = na.affine(x.subs[d]);
      if (!fw.valid || fw != fx || fw.coefOf(I) == 0)
        continue;
      bool onlyI = std::all_of(fw.coef.begin(), fw.coef.end(), [&](const auto &c) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(c.first.decl);
        return v && (v == I || !indices.count(v));
      });
      if (onlyI)
        return true;
    }
    return false;
  };
  for (const auto &[w, gw] : acc) {
    if (!w->write)
      continue;
    for (const auto &[x, gx] : acc) {
      if (gw == gx)
        continue;
      if (w->base != x->base) {
        if (!namesApart(na, w->base, x->base)) {
          whyNot = fmt::format("'{}' and '{}' may point to the same memory",
                               w->base->getName().str(), x->base->getName().str());
          return {};
        }
        continue;
      }
      if (!sameIteration(*w, *x)) {
        whyNot = fmt::format("'{}' (written, line {}) and '{}' (line {}) may be the same element "
                             "in two iterations of '{}'",
                             na.tu.sourceText(w->expr->getSourceRange()),
                             na.tu.line(w->expr->getBeginLoc()),
                             na.tu.sourceText(x->expr->getSourceRange()),
                             na.tu.line(x->expr->getBeginLoc()), in);
        return {};
      }
    }
  }
  return groups;
}

} // namespace skelcast::frontend
