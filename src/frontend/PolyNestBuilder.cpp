// A scanned nest as isl's input (PolyNestBuilder.h says what is kept exact
// and what is over-approximated).
#include "PolyNestBuilder.h"

#include "ClangNodes.h"
#include "NestAnalysis.h"
#include "NestScan.h"

#include <clang/AST/Expr.h>
#include <clang/AST/StmtOpenMP.h>

#include <fmt/format.h>

#include <set>

namespace skelcast::frontend {

namespace {

/// isl's keywords cannot name a variable of its text format.
std::string islName(const std::string &name) {
  static const std::set<std::string> kKeywords = {
      "and", "or", "not", "min", "max", "mod", "exists", "floor", "ceil", "floord", "ceild",
      "infty", "true", "false", "implies", "xor", "rat", "NaN", "domain", "range"};
  return kKeywords.count(name) ? name + "_" : name;
}

/// Does `s` hold a `?:`, `&&` or `||`: accesses in it may not happen.
bool hasConditionalPart(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ConditionalOperator>(s) || llvm::isa<clang::BinaryConditionalOperator>(s))
    return true;
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s))
    if (b->isLogicalOp())
      return true;
  for (const clang::Stmt *c : s->children())
    if (hasConditionalPart(c))
      return true;
  return false;
}

bool sameExpr(const clang::Expr *a, const clang::Expr *b, const clang::ASTContext &ast) {
  llvm::FoldingSetNodeID x, y;
  a->IgnoreParenImpCasts()->Profile(x, ast, /*Canonical=*/true);
  b->IgnoreParenImpCasts()->Profile(y, ast, /*Canonical=*/true);
  return x == y;
}

/// W relaxed toward T (PolyRelaxation): the target W and the candidate T.
struct Relax {
  std::string op;
  const clang::Expr *target = nullptr, *value = nullptr;
};

/// `a < b` (or <=, >, >=) as (smaller, larger) when it holds.
std::optional<std::pair<const clang::Expr *, const clang::Expr *>> lessPair(const clang::Expr *c) {
  auto *b = llvm::dyn_cast<clang::BinaryOperator>(c->IgnoreParenImpCasts());
  if (!b)
    return std::nullopt;
  switch (b->getOpcode()) {
  case clang::BO_LT:
  case clang::BO_LE:
    return std::make_pair(b->getLHS(), b->getRHS());
  case clang::BO_GT:
  case clang::BO_GE:
    return std::make_pair(b->getRHS(), b->getLHS());
  default:
    return std::nullopt;
  }
}

/// `W = W < T ? W : T`, `W = fmin(W, T)` (and the max forms, the operands in
/// either order), or, with the `if` that guards it, `if (T < W) W = T;`.
std::optional<Relax> relaxationOf(const clang::Stmt *s, const clang::Expr *guard,
                                  const clang::ASTContext &ast) {
  auto *as = llvm::dyn_cast_or_null<clang::BinaryOperator>(s);
  if (!as || as->getOpcode() != clang::BO_Assign)
    return std::nullopt;
  const clang::Expr *w = as->getLHS(), *rhs = as->getRHS()->IgnoreParenImpCasts();
  auto pick = [&](const std::string &op, const clang::Expr *x, const clang::Expr *y) -> std::optional<Relax> {
    if (sameExpr(x, w, ast) && !sameExpr(y, w, ast))
      return Relax{op, w, y};
    if (sameExpr(y, w, ast) && !sameExpr(x, w, ast))
      return Relax{op, w, x};
    return std::nullopt;
  };
  if (guard) { // if (T < W) W = T;  if (T > W) W = T;
    auto lt = lessPair(guard);
    if (!lt)
      return std::nullopt;
    if (sameExpr(lt->second, w, ast) && sameExpr(lt->first, rhs, ast))
      return Relax{"min", w, rhs};
    if (sameExpr(lt->first, w, ast) && sameExpr(lt->second, rhs, ast))
      return Relax{"max", w, rhs};
    return std::nullopt;
  }
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(rhs)) {
    auto lt = lessPair(co->getCond());
    if (!lt)
      return std::nullopt;
    const clang::Expr *t = co->getTrueExpr(), *f = co->getFalseExpr();
    // (a < b ? a : b) is min(a, b); (a < b ? b : a) is max(a, b)
    if (sameExpr(t, lt->first, ast) && sameExpr(f, lt->second, ast))
      return pick("min", lt->first, lt->second);
    if (sameExpr(t, lt->second, ast) && sameExpr(f, lt->first, ast))
      return pick("max", lt->first, lt->second);
    return std::nullopt;
  }
  if (auto *call = llvm::dyn_cast<clang::CallExpr>(rhs)) {
    const clang::FunctionDecl *fd = call->getDirectCallee();
    if (!fd || call->getNumArgs() != 2 || !fd->getIdentifier())
      return std::nullopt;
    llvm::StringRef n = fd->getName();
    // the C library's (a function of the file called min could do anything)
    if (n == "fmin" || n == "fminf" || n == "fminl")
      return pick("min", call->getArg(0), call->getArg(1));
    if (n == "fmax" || n == "fmaxf" || n == "fmaxl")
      return pick("max", call->getArg(0), call->getArg(1));
  }
  return std::nullopt;
}

/// The addends of `e` (a + b + c), parentheses and casts taken off.
void addends(const clang::Expr *e, std::vector<const clang::Expr *> &out) {
  e = e->IgnoreParenImpCasts();
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e); b && b->getOpcode() == clang::BO_Add) {
    addends(b->getLHS(), out);
    addends(b->getRHS(), out);
    return;
  }
  out.push_back(e);
}

class Builder {
public:
  Builder(NestAnalysis &na, const NestScan &scan) : na_(na), scan_(scan) {}

  PolyView build(const clang::ForStmt *root, const std::vector<NestAlias> &aliases) {
    walk(root, -1, false);
    for (const NestAlias &al : aliases) {
      PolyAffine off(0);
      bool ok = true;
      for (const auto &[e, sign] : al.offset) {
        std::optional<PolyAffine> t = affine(e);
        if (!t) {
          ok = false;
          break;
        }
        off = off + sign * *t;
      }
      std::string name = arrayName(al.name);
      view_.aliased.push_back(name);
      if (!ok) {
        // isl cannot relate them: no answer of isl may take them apart
        view_.aliasProblem = fmt::format("the offset of '{}' into '{}' is not affine", name,
                                         arrayName(al.base));
        continue;
      }
      view_.nest.aliases.push_back(PolyAlias{name, arrayName(al.base), {off}});
    }
    for (const AccessRec &a : scan_.accesses)
      if (!done_.count(&a) && !scan_.registerArrays.count(a.base))
        view_.complete = false;
    for (const auto &[name, v] : params_) {
      PolyParam p{name, std::nullopt, std::nullopt, std::nullopt};
      if (na_.passValue(v)) // a value of the pass: the values it takes over the passes
        if (auto r = na_.passRange(v))
          p.min = r->lo, p.max = r->hi;
      view_.nest.params.push_back(p);
    }
    return std::move(view_);
  }

private:
  /// The PolyAffine of a C integer expression in scope, nullopt if not affine.
  std::optional<PolyAffine> affine(const clang::Expr *e) {
    if (!e)
      return std::nullopt;
    Affine a = na_.affine(e);
    if (!a.valid)
      return std::nullopt;
    PolyAffine p(a.constant);
    for (const auto &[var, c] : a.coef) {
      auto *v = llvm::dyn_cast<clang::VarDecl>(var.decl);
      if (!v)
        return std::nullopt;
      std::string name = islName(v->getName().str());
      if (!inScope(v))
        params_[name] = v; // invariant in the nest: a symbolic size
      p = p + PolyAffine::var(name, c);
    }
    return p;
  }

  bool inScope(const clang::VarDecl *v) const {
    for (const clang::VarDecl *s : scope_)
      if (s == v)
        return true;
    return false;
  }

  void loop(const clang::ForStmt *f, int parent) {
    auto h = scan_.headers.find(f);
    if (h == scan_.headers.end())
      return;
    const LoopHeader &hdr = h->second;
    // loads in the bounds happen before the loop
    statement(hdr.init, parent, false);
    statement(hdr.bound, parent, false);
    PolyLoop pl;
    pl.index = islName(hdr.var->getName().str());
    // bounds are read outside the loop's own scope
    std::optional<PolyAffine> first = affine(hdr.init), limit = affine(hdr.bound);
    if (!hdr.decreasing) {
      if (first)
        pl.lower.push_back(*first);
      if (limit)
        pl.upper.push_back(*limit);
      pl.inclusiveUpper = hdr.inclusive;
      pl.step = hdr.stepExpr || hdr.step < 1 ? 1 : hdr.step;
      if (pl.step > 1 && pl.lower.empty())
        pl.step = 1; // a stride needs its origin
    } else {
      // the same iterations in the other order: what is carried stays carried
      view_.mirrored = true;
      if (limit)
        pl.lower.push_back(hdr.inclusive ? *limit : *limit + PolyAffine(1));
      if (first)
        pl.upper.push_back(*first);
      pl.inclusiveUpper = true;
    }
    int id = view_.nest.addLoop(parent, pl);
    view_.loopIds[f] = id;
    scope_.push_back(hdr.var);
    for (const clang::Stmt *c : scan_.bodyOf(f))
      walk(c, id, false);
    scope_.pop_back();
  }

  void walk(const clang::Stmt *s, int loopId, bool conditional) {
    if (!s)
      return;
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      loop(f, loopId);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPLoopDirective>(s)) {
      // the loop it wraps, found the way the scanner found it
      for (const auto &[f, h] : scan_.headers)
        if (d->getSourceRange().fullyContains(f->getSourceRange())) {
          bool outermost = true;
          for (auto p = scan_.parent.at(f); p; p = scan_.parent.at(p))
            if (d->getSourceRange().fullyContains(p->getSourceRange()))
              outermost = false;
          if (outermost) {
            loop(f, loopId);
            return;
          }
        }
      return;
    }
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt *c : cs->body())
        walk(c, loopId, conditional);
      return;
    }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      statement(is->getCond(), loopId, conditional);
      const clang::Stmt *then = is->getThen();
      if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(then); cs && cs->size() == 1)
        then = cs->body_front();
      if (!is->getElse() && !is->getInit() && !is->hasVarStorage() &&
          relaxationOf(then, is->getCond(), na_.tu.ast)) {
        statement(then, loopId, true, is->getCond());
        return;
      }
      walk(is->getThen(), loopId, true);
      walk(is->getElse(), loopId, true);
      return;
    }
    if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
      walk(as->getSubStmt(), loopId, conditional);
      return;
    }
    statement(s, loopId, conditional);
  }

  /// The accesses the scanner found inside `s`, in its (evaluation) order.
  void statement(const clang::Stmt *s, int loopId, bool conditional,
                 const clang::Expr *guard = nullptr) {
    if (!s)
      return;
    std::optional<Relax> relax = relaxationOf(s, guard, na_.tu.ast);
    std::vector<const clang::Expr *> candidate;
    if (relax)
      addends(relax->value, candidate);
    PolyRelaxation relaxation;
    clang::SourceRange range = s->getSourceRange();
    const clang::SourceManager &sm = na_.tu.sm;
    auto within = [&](const clang::Stmt *e) {
      clang::SourceLocation b = sm.getExpansionLoc(e->getBeginLoc());
      return !sm.isBeforeInTranslationUnit(b, sm.getExpansionLoc(range.getBegin())) &&
             !sm.isBeforeInTranslationUnit(sm.getExpansionLoc(range.getEnd()), b);
    };
    std::string reductionOp;
    const clang::Expr *reductionTarget = nullptr;
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(s)) {
      if (ca->getOpcode() == clang::BO_AddAssign || ca->getOpcode() == clang::BO_SubAssign)
        reductionOp = "+";
      else if (ca->getOpcode() == clang::BO_MulAssign)
        reductionOp = "*";
      reductionTarget = ca->getLHS()->IgnoreParens();
    }
    PolyStmt ps;
    ps.conditional = conditional || hasConditionalPart(s);
    ps.text = na_.tu.sourceText(range);
    for (const AccessRec &a : scan_.accesses) {
      if (done_.count(&a) || !within(a.expr))
        continue;
      done_.insert(&a);
      if (scan_.registerArrays.count(a.base))
        continue; // a local array of the nest: registers, private to the thread
      std::vector<std::optional<PolyAffine>> subs;
      std::string why;
      for (const clang::Expr *sub : a.subs) {
        subs.push_back(affine(sub));
        if (!subs.back() && why.empty())
          why = fmt::format("'{}' is not an affine subscript",
                            na_.tu.sourceText(sub->getSourceRange()));
      }
      std::string array = arrayName(a.base);
      std::string text = na_.tu.sourceText(a.expr->getSourceRange());
      bool isReduction = !reductionOp.empty() && a.expr == reductionTarget;
      auto make = [&](bool write) {
        PolyAccess pa = write ? PolyAccess::write(array, subs) : PolyAccess::read(array, subs);
        pa.text = text;
        if (!why.empty())
          pa = std::move(pa).because(why);
        if (isReduction)
          pa = std::move(pa).reduction(reductionOp);
        return pa;
      };
      if (a.read) {
        for (size_t k = 0; relax && k < candidate.size(); ++k)
          if (sameExpr(a.expr, candidate[k], na_.tu.ast)) {
            std::string rest;
            for (size_t o = 0; o < candidate.size(); ++o)
              if (o != k)
                rest += (rest.empty() ? "" : " + ") + printed(candidate[o]);
            relaxation.addends.emplace_back(static_cast<int>(ps.accesses.size()), rest);
            break;
          }
        ps.accesses.push_back(make(false));
      }
      if (a.write) {
        if (relax && a.expr == relax->target->IgnoreParenImpCasts())
          relaxation.write = static_cast<int>(ps.accesses.size());
        ps.accesses.push_back(make(true));
      }
    }
    if (relax && relaxation.write >= 0 && !relaxation.addends.empty()) {
      relaxation.op = relax->op;
      ps.relaxation = std::move(relaxation);
    }
    if (!ps.accesses.empty())
      view_.nest.addStatement(loopId, std::move(ps));
  }

  /// One name per C array (two arrays may share a name in different scopes).
  std::string arrayName(const clang::VarDecl *v) {
    auto it = arrays_.find(v);
    if (it != arrays_.end())
      return it->second;
    std::string base = islName(v->getName().str()), name = base;
    for (int n = 2; taken_.count(name); ++n)
      name = fmt::format("{}_{}", base, n);
    taken_.insert(name);
    if (std::vector<int64_t> inner = na_.innerExtents(v); !inner.empty())
      view_.nest.innerExtents[name] = std::move(inner);
    arrays_[v] = name;
    view_.arrays[name] = v;
    return name;
  }

  /// `e` as C (not its source text, which a macro's expansion hides)
  std::string printed(const clang::Expr *e) const {
    std::string t;
    llvm::raw_string_ostream os(t);
    e->printPretty(os, nullptr, na_.tu.ast.getPrintingPolicy());
    return os.str();
  }

  NestAnalysis &na_;
  const NestScan &scan_;
  PolyView view_;
  std::vector<const clang::VarDecl *> scope_;
  std::map<std::string, const clang::VarDecl *> params_;
  std::map<const clang::VarDecl *, std::string> arrays_;
  std::set<std::string> taken_;
  std::set<const AccessRec *> done_;
};

} // namespace

PolyView buildPolyNest(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *root,
                       const std::vector<NestAlias> &aliases) {
  return Builder(na, scan).build(root, aliases);
}

} // namespace skelcast::frontend
