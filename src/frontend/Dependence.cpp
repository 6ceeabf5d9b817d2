// The dependence test (Dependence.h; docs/skeletonizer.md, "Parallel loops:
// the dependence test", states the rules).
#include "Dependence.h"
#include "PolyNestBuilder.h"
#include "ClangNodes.h"
#include "NestAnalysis.h"
#include "PointerOrigins.h"
#include "TUContext.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ParentMapContext.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace skelcast::frontend {

namespace {

// ---------------------------------------------------------------------------
// Upward exposure: is the value a variable has before a statement used by it?

enum class Exposure { None, Exposed, Defined };

class ExposureScan {
public:
  explicit ExposureScan(const clang::VarDecl *v) : v_(v) {}

  /// Exposed if `s` may read v before writing it; Defined if every path
  /// through `s` writes v before any read; None otherwise.
  Exposure stmt(const clang::Stmt *s) {
    if (!s)
      return Exposure::None;
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt *c : cs->body()) {
        Exposure e = stmt(c);
        if (e != Exposure::None)
          return e;
      }
      return Exposure::None;
    }
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl *d : ds->decls())
        if (auto *vd = llvm::dyn_cast<clang::VarDecl>(d)) {
          if (vd->getInit()) {
            Exposure e = expr(vd->getInit());
            if (e != Exposure::None)
              return e;
          }
          if (vd == v_)
            return Exposure::Defined;
        }
      return Exposure::None;
    }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      Exposure c = expr(is->getCond());
      if (c != Exposure::None)
        return c;
      Exposure t = stmt(is->getThen()), e = stmt(is->getElse());
      if (t == Exposure::Exposed || e == Exposure::Exposed)
        return Exposure::Exposed;
      if (t == Exposure::Defined && e == Exposure::Defined)
        return Exposure::Defined;
      return Exposure::None;
    }
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      Exposure i = stmt(f->getInit());
      if (i != Exposure::None)
        return i;
      Exposure c = f->getCond() ? expr(f->getCond()) : Exposure::None;
      if (c != Exposure::None)
        return c;
      // the body may run zero times: it can expose, never define
      if (stmt(f->getBody()) == Exposure::Exposed)
        return Exposure::Exposed;
      if (f->getInc() && expr(f->getInc()) == Exposure::Exposed)
        return Exposure::Exposed;
      return Exposure::None;
    }
    if (auto *w = llvm::dyn_cast<clang::WhileStmt>(s)) {
      Exposure c = expr(w->getCond());
      if (c != Exposure::None)
        return c;
      return stmt(w->getBody()) == Exposure::Exposed ? Exposure::Exposed : Exposure::None;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s))
      return stmt(directiveBody(d));
    if (auto *e = llvm::dyn_cast<clang::Expr>(s))
      return expr(e);
    // anything else: be conservative if it mentions v
    return mentions(s, v_) ? Exposure::Exposed : Exposure::None;
  }

  Exposure expr(const clang::Expr *e) {
    if (!e)
      return Exposure::None;
    e = e->IgnoreParens();
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
      return dr->getDecl() == v_ ? Exposure::Exposed : Exposure::None;
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      if (b->isAssignmentOp() && refVar(b->getLHS()) == v_) {
        if (b->isCompoundAssignmentOp())
          return Exposure::Exposed;
        Exposure r = expr(b->getRHS());
        return r != Exposure::None ? r : Exposure::Defined;
      }
      if (b->isAssignmentOp()) {
        Exposure r = expr(b->getRHS());
        return r != Exposure::None ? r : expr(b->getLHS());
      }
      Exposure l = expr(b->getLHS());
      if (l != Exposure::None)
        return l;
      Exposure r = expr(b->getRHS());
      if (b->isLogicalOp() && r == Exposure::Defined)
        return Exposure::None; // the right side may not run
      return r;
    }
    if (auto *c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      Exposure k = expr(c->getCond());
      if (k != Exposure::None)
        return k;
      Exposure t = expr(c->getTrueExpr()), f = expr(c->getFalseExpr());
      if (t == Exposure::Exposed || f == Exposure::Exposed)
        return Exposure::Exposed;
      return (t == Exposure::Defined && f == Exposure::Defined) ? Exposure::Defined
                                                               : Exposure::None;
    }
    for (const clang::Stmt *ch : e->children()) {
      Exposure x = ch ? stmt(ch) : Exposure::None;
      if (x != Exposure::None)
        return x;
    }
    return Exposure::None;
  }

private:
  const clang::VarDecl *v_;
};

/// Is the value `v` holds after statement `s` used later in the function
/// (after `s`, or by a following iteration of an enclosing loop)?
bool liveAfter(clang::ASTContext &ast, const clang::Stmt *s, const clang::VarDecl *v) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*s);
  for (int guard = 0; guard < 200; ++guard) {
    auto parents = ast.getParents(node);
    if (parents.empty())
      return false;
    const clang::DynTypedNode &p = parents[0];
    if (p.get<clang::FunctionDecl>())
      return false;
    if (auto *cs = p.get<clang::CompoundStmt>()) {
      const clang::Stmt *cur = node.get<clang::Stmt>();
      bool after = false;
      for (const clang::Stmt *c : cs->body()) {
        if (after) {
          Exposure e = ExposureScan(v).stmt(c);
          if (e == Exposure::Exposed)
            return true;
          if (e == Exposure::Defined)
            return false;
        }
        if (c == cur)
          after = true;
      }
    } else if (auto *f = p.get<clang::ForStmt>()) {
      // the next iteration of an enclosing loop
      ExposureScan sc(v);
      if ((f->getInc() && sc.expr(f->getInc()) == Exposure::Exposed) ||
          (f->getCond() && sc.expr(f->getCond()) == Exposure::Exposed) ||
          sc.stmt(f->getBody()) == Exposure::Exposed)
        return true;
    } else if (auto *w = p.get<clang::WhileStmt>()) {
      ExposureScan sc(v);
      if (sc.expr(w->getCond()) == Exposure::Exposed || sc.stmt(w->getBody()) == Exposure::Exposed)
        return true;
    } else if (auto *d = p.get<clang::DoStmt>()) {
      ExposureScan sc(v);
      if (sc.expr(d->getCond()) == Exposure::Exposed || sc.stmt(d->getBody()) == Exposure::Exposed)
        return true;
    }
    node = p;
  }
  return true;
}

// ---------------------------------------------------------------------------
// The three checks on one loop

class DependenceTest {
public:
  explicit DependenceTest(TUContext &tu) : tu_(tu) {}

  /// Empty if the iterations of `L` are independent, else why not.
  std::string dependence(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                         const clang::ForStmt *L, bool trusted) {
    if (trusted)
      return raceUnderDirective(na, scan, plan, L, scan.headers.at(L).var);
    const clang::VarDecl *v = scan.headers.at(L).var;
    reductions_.erase(L);
    std::string r = scalarDependence(na, scan, L, v);
    if (!r.empty()) {
      reductions_.erase(L);
      return r;
    }
    assumed_.clear();
    r = aliasing(na, scan, L);
    if (!r.empty()) {
      reductions_.erase(L);
      return r;
    }
    r = arrayVerdict(na, scan, plan, L, v);
    if (!r.empty())
      reductions_.erase(L);
    if (r.empty() && !assumed_.empty() && na.facts.fn)
      tu_.assumedDistinct[na.facts.fn].insert(assumed_.begin(), assumed_.end());
    return r;
  }

  std::string how(const clang::ForStmt *L) const {
    auto it = islNotes_.find(L);
    return it == islNotes_.end() ? std::string() : it->second;
  }

  std::string assumption(const clang::ForStmt *L) const {
    auto it = assumptions_.find(L);
    return it == assumptions_.end() ? std::string() : it->second;
  }

  std::vector<ScalarReduction> reductions(const clang::ForStmt *L) const {
    auto it = reductions_.find(L);
    return it == reductions_.end() ? std::vector<ScalarReduction>{} : it->second;
  }

private:
  std::optional<std::pair<PolyView, PolyResult>> poly_; ///< isl's answer for this nest
  std::map<const clang::ForStmt *, std::string> islNotes_; ///< how isl found a loop parallel
  /// loops found parallel on what the values must be (PolyLoopResult::assumptions)
  std::map<const clang::ForStmt *, std::string> assumptions_;
  void noteAssumptions(const clang::ForStmt *L, const PolyLoopResult &lr) {
    if (!lr.assumptions.empty())
      assumptions_[L] = fmt::format("{}", fmt::join(lr.assumptions, "; and "));
  }
  /// the scalar reductions that a loop found parallel ports (docs/skeletonizer.md, "Reductions")
  std::map<const clang::ForStmt *, std::vector<ScalarReduction>> reductions_;

  /// A loop an OpenMP directive declares parallel is trusted where skelcast
  /// cannot decide (subscripts that are not affine, indirect stores, pointers
  /// of unknown origin: the pragma is the programmer's word), but not against
  /// a dependence that is certain: a data race in the OpenMP code is refused
  /// with its reason, never ported (docs/skeletonizer.md, "OpenMP directives").
  /// Certain means: a scalar the threads share (no data-sharing clause, not a
  /// local of an enclosing `parallel` region) whose value flows from one
  /// iteration to the next or out of the loop, or an array dependence isl
  /// finds exact (no subscript that is not affine) on an array no clause
  /// privatizes or reduces.
  std::string raceUnderDirective(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                                 const clang::ForStmt *L, const clang::VarDecl *v) {
    const std::string dir =
        plan.omp ? fmt::format("OpenMP '{}'", directiveName(plan.omp->getDirectiveKind()))
        : plan.independentPragma ? std::string("'#pragma skelcast independent'")
                                 : std::string("the OpenMP directive");
    const std::string race = plan.omp || !plan.independentPragma
                                 ? "a data race in the OpenMP code"
                                 : "a data race in a parallel port";
    std::set<const clang::VarDecl *> checked;
    for (const ScalarWrite &w : scan.scalarWrites) {
      if (!scan.inside(w.loop, L) || w.var == v || checked.count(w.var) || plan.ompPrivate.count(w.var))
        continue;
      auto ld = scan.localDecls.find(w.var);
      if (ld != scan.localDecls.end() && scan.inside(ld->second, L) && !w.var->isStaticLocal())
        continue;
      if (scan.headers.count(w.loop) && scan.headers.at(w.loop).var == w.var)
        continue; // an inner loop's index: written first in every iteration
      checked.insert(w.var);
      if (w.var->hasGlobalStorage() && (w.var->getTLSKind() != clang::VarDecl::TLS_None ||
                                        w.var->hasAttr<clang::OMPThreadPrivateDeclAttr>()))
        continue; // one copy per thread
      std::string name = w.var->getName().str();
      if (ExposureScan(w.var).stmt(L->getBody()) == Exposure::Exposed)
        return fmt::format("{} declares the iterations independent, but they share '{}' (no "
                           "private or reduction clause) and carry its value from one to the "
                           "next: {}",
                           dir, name, race);
      if (!w.var->hasGlobalStorage() && liveAfter(tu_.ast, L, w.var) &&
          !sameConstantFlag(scan, L, w.var))
        return fmt::format("{} declares the iterations independent, but they share '{}', whose "
                           "last value is used after the loop (OpenMP needs 'lastprivate'): {}",
                           dir, name, race);
      // Written before it is read in each iteration: a port would make it
      // private, but under OpenMP the threads share it and one may overwrite
      // it between another's write and read. The program as written races.
      if (plan.omp && !sameConstantFlag(scan, L, w.var))
        return fmt::format("{} declares the iterations independent, but they share '{}' (declared "
                           "outside the loop{}, in no 'private' clause) and each writes it: {}; "
                           "declare it inside the loop or name it in 'private({})'",
                           dir, name, w.var->isStaticLocal() ? " or 'static'" : "", race, name);
    }
    std::string islWhy;
    const PolyLoopResult *lr = islLoop(na, scan, L, islWhy);
    if (!lr)
      return {};
    auto owned = [&](const std::string &array) {
      return std::any_of(plan.ompPrivate.begin(), plan.ompPrivate.end(),
                         [&](const clang::VarDecl *p) { return p->getName() == array; });
    };
    for (const PolyDependence &d : lr->carried) {
      if (d.approximate || d.privatized || d.unchanged || owned(d.array))
        continue;
      if (d.reduction)
        return fmt::format("{} declares the iterations independent, but they update '{}' as a "
                           "reduction without a 'reduction' clause: {}",
                           dir, d.array, race);
      return fmt::format("{} declares the iterations independent, but they are not: {}: {}",
                         dir, d.describe(), race);
    }
    noteAssumptions(L, *lr);
    return {};
  }

  /// Every write of `var` in L stores one and the same constant (`stop =
  /// true;` in Rodinia's bfs): whichever iteration writes last, the value
  /// after the loop is the same, so the shared flag is no race in effect
  /// (a GPU port writes it from any thread).
  bool sameConstantFlag(const NestScan &scan, const clang::ForStmt *L,
                        const clang::VarDecl *var) const {
    std::optional<llvm::APSInt> value;
    for (const ScalarWrite &o : scan.scalarWrites) {
      if (o.var != var || !scan.inside(o.loop, L))
        continue;
      if (o.reductionForm || !o.value)
        return false;
      auto c = o.value->IgnoreParenImpCasts()->getIntegerConstantExpr(tu_.ast);
      if (!c || (value && llvm::APSInt::compareValues(*c, *value) != 0))
        return false;
      value = c;
    }
    return value.has_value();
  }

  /// isl's answer for loop L (nullptr when isl has none; `islWhy` then says
  /// why where it failed), the nest analysed once.
  const PolyLoopResult *islLoop(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *L,
                                std::string &islWhy) {
    if (!poly_) {
      const clang::ForStmt *root = L;
      while (scan.parent.at(root))
        root = scan.parent.at(root);
      PolyView view = buildPolyNest(na, scan, root, nestAliases(na, scan));
      PolyResult result = view.complete ? analyzeDependences(view.nest) : PolyResult{};
      if (!view.complete) {
        result.ok = false;
        result.error = "an access outside the statements isl was given";
      }
      poly_.emplace(std::move(view), std::move(result));
    }
    const auto &[view, result] = *poly_;
    islWhy = result.ok ? std::string() : result.error;
    auto id = view.loopIds.find(L);
    if (result.ok && id != view.loopIds.end())
      for (const PolyLoopResult &x : result.loops)
        if (x.loop == id->second)
          return &x;
    return nullptr;
  }

  /// The arrays: isl decides, exactly over the symbolic sizes
  /// (docs/dependence.md); where it cannot (a subscript that is not affine
  /// matters, isl's budget), the pairwise test below, its refusal naming isl's
  /// reason too.
  std::string arrayVerdict(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                           const clang::ForStmt *L, const clang::VarDecl *v) {
    std::string islWhy;
    const PolyLoopResult *lr = islLoop(na, scan, L, islWhy);
    const PolyView &view = poly_->first;
    if (lr) {
      switch (lr->verdict) {
      case LoopVerdict::Parallel:
        if (!lr->assumptions.empty()) {
          islNotes_[L] = "isl: independent where the writes that meet leave their elements unchanged";
          noteAssumptions(L, *lr);
        } else {
          islNotes_[L] = "isl: no dependence carried";
        }
        return {};
      case LoopVerdict::ParallelAfterPrivatization: {
        if (view.mirrored) {
          islWhy = "privatization in a loop that counts down is not trusted";
          break;
        }
        for (const std::string &name : lr->privatized) {
          auto a = view.arrays.find(name);
          if (a == view.arrays.end() || liveAfter(tu_.ast, L, a->second))
            return fmt::format("'{}' would have to be private to each iteration, but its values "
                               "are used after the loop",
                               name);
        }
        islNotes_[L] = fmt::format("isl: independent once '{}' is private to each iteration",
                                   fmt::join(lr->privatized, "', '"));
        return {};
      }
      case LoopVerdict::Reduction:
        return fmt::format("the iterations update '{}' as a reduction (a port needs atomics or "
                           "a GPU reduction; OpenMP's 'reduction' clause says it may run in "
                           "parallel)",
                           fmt::join(lr->reductions, "', '"));
      case LoopVerdict::Sequential:
        return lr->reason;
      case LoopVerdict::Unknown:
        islWhy = lr->reason;
        break;
      }
    }
    if (!view.aliased.empty()) {
      // the pairwise rules take names apart: they cannot judge pointers into one array
      std::string why = !view.aliasProblem.empty() ? view.aliasProblem
                        : !islWhy.empty()          ? islWhy
                                                   : "no answer for this loop";
      return fmt::format("'{}' points into another array of the loop and isl cannot decide "
                         "the dependence ({})",
                         view.aliased.front(), why);
    }
    std::string r = arrayDependence(na, scan, plan, L, v);
    if (!r.empty() && !islWhy.empty())
      r += fmt::format(" (isl cannot decide: {})", islWhy);
    return r;
  }

  std::string scalarDependence(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *L,
                               const clang::VarDecl *v) {
    std::set<const clang::VarDecl *> checked;
    for (const ScalarWrite &w : scan.scalarWrites) {
      if (!scan.inside(w.loop, L) || w.var == v || checked.count(w.var))
        continue;
      // declared inside L: private to an iteration
      auto ld = scan.localDecls.find(w.var);
      if (ld != scan.localDecls.end() && scan.inside(ld->second, L) && !w.var->isStaticLocal())
        continue;
      checked.insert(w.var);
      std::string name = w.var->getName().str();
      if (w.var->hasGlobalStorage())
        return fmt::format("the global variable '{}' is assigned in the loop", name);
      Exposure e = ExposureScan(w.var).stmt(L->getBody());
      if (e != Exposure::Exposed) {
        if (liveAfter(tu_.ast, L, w.var))
          return fmt::format("'{}' is assigned in the loop and its last value is used after it",
                             name);
        continue;
      }
      bool reduction = true;
      for (const ScalarWrite &o : scan.scalarWrites)
        if (o.var == w.var && scan.inside(o.loop, L) && !o.reductionForm)
          reduction = false;
      if (reduction) {
        // no other read of the variable inside L
        int sites = 0, reads = 0;
        std::set<const clang::Stmt *> conditional; // `v = v < e ? e : v` sites
        for (const ScalarWrite &o : scan.scalarWrites)
          if (o.var == w.var && o.viaConditional)
            conditional.insert(o.site);
        countUses(L->getBody(), w.var, conditional, sites, reads);
        if (reads <= sites) {
          std::string why;
          if (auto op = portableReduction(scan, L, w.var, why)) {
            reductions_[L].push_back({w.var, *op, L});
            continue;
          }
          return fmt::format("'{}' is a reduction across the iterations, but {}", name, why);
        }
      }
      return fmt::format("'{}' carries a value from one iteration to the next", name);
    }
    return {};
  }

  /// A reduction of `v` across L's iterations that a port combines as a GPU
  /// reduction (docs/skeletonizer.md, "Reductions"): every write of v in the
  /// nest is an update inside L with one operator, each a statement of its
  /// own (its value unused), and L's bounds do not read v. Else why not.
  std::optional<skeleton::ReduceOp> portableReduction(const NestScan &scan, const clang::ForStmt *L,
                                                      const clang::VarDecl *v, std::string &why) {
    std::optional<skeleton::ReduceOp> op;
    for (const ScalarWrite &o : scan.scalarWrites) {
      if (o.var != v)
        continue;
      if (!scan.inside(o.loop, L)) {
        why = "it is also assigned outside this loop, in the nest around it";
        return std::nullopt;
      }
      if (!o.reductionOp || !o.site) {
        why = "not every update of it is a reduction";
        return std::nullopt;
      }
      if (op && *op != *o.reductionOp) {
        why = fmt::format("its updates mix '{}' and '{}'", skeleton::reduceOpName(*op),
                          skeleton::reduceOpName(*o.reductionOp));
        return std::nullopt;
      }
      op = o.reductionOp;
      if (!standsAlone(o.site)) {
        why = "the value of one of its updates is used in an expression";
        return std::nullopt;
      }
    }
    if ((L->getInit() && mentions(L->getInit(), v)) || (L->getCond() && mentions(L->getCond(), v)) ||
        (L->getInc() && mentions(L->getInc(), v))) {
      why = "its value feeds the loop's bounds";
      return std::nullopt;
    }
    if (!op)
      why = "no update of it was found";
    return op;
  }

  /// An update whose value nothing uses: a statement of a block, a loop's
  /// body, a branch's arm.
  bool standsAlone(const clang::Expr *site) const {
    auto parents = tu_.ast.getParents(*site);
    if (parents.size() != 1)
      return false;
    const clang::DynTypedNode &p = parents[0];
    if (p.get<clang::CompoundStmt>())
      return true;
    if (auto *f = p.get<clang::ForStmt>())
      return f->getBody() == site;
    if (auto *w = p.get<clang::WhileStmt>())
      return w->getBody() == site;
    if (auto *d = p.get<clang::DoStmt>())
      return d->getBody() == site;
    if (auto *i = p.get<clang::IfStmt>())
      return i->getThen() == site || i->getElse() == site;
    return false;
  }

  /// References to v: `sites` counts the reduction updates, `reads` all reads
  /// (an update reads once).
  static void countUses(const clang::Stmt *s, const clang::VarDecl *v,
                        const std::set<const clang::Stmt *> &conditional, int &sites, int &reads) {
    if (!s)
      return;
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(s))
      if (refVar(ca->getLHS()) == v) {
        ++sites;
        ++reads;
        countUses(ca->getRHS(), v, conditional, sites, reads);
        return;
      }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (u->isIncrementDecrementOp() && refVar(u->getSubExpr()) == v) {
        ++sites;
        ++reads;
        return;
      }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s))
      if (b->getOpcode() == clang::BO_Assign && refVar(b->getLHS()) == v) {
        ++sites;
        if (conditional.count(b)) {
          ++reads; // `v = v < e ? e : v`: one read of the running value
          return;
        }
        countUses(b->getRHS(), v, conditional, sites, reads);
        return;
      }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
      if (dr->getDecl() == v)
        ++reads;
    for (const clang::Stmt *c : s->children())
      countUses(c, v, conditional, sites, reads);
  }

  static bool mayAlias(const clang::VarDecl *p, const clang::VarDecl *q,
                       const clang::ASTContext &ctx) {
    auto isPtr = [](const clang::VarDecl *x) {
      if (!x->getType()->isPointerType())
        return false;
      // array syntax in a parameter (`float a[N][M]`) is taken as an array
      if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(x))
        if (pv->getOriginalType()->isArrayType())
          return false;
      return true;
    };
    if (!isPtr(p) && !isPtr(q))
      return false;
    if (p->getType().isRestrictQualified() || q->getType().isRestrictQualified())
      return false;
    auto elem = [](clang::QualType t) {
      t = t.getCanonicalType();
      while (true) {
        if (auto *pt = t->getAs<clang::PointerType>())
          t = pt->getPointeeType().getCanonicalType();
        else if (auto *at = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr()))
          t = at->getElementType().getCanonicalType();
        else
          return t.getUnqualifiedType();
      }
    };
    clang::QualType a = elem(p->getType()), b = elem(q->getType());
    if (a->isCharType() || b->isCharType())
      return true;
    return ctx.hasSameType(a, b);
  }

  /// The aliasing rule: each name written in the loop against each other name
  /// of it. By default the names' origins decide (PointerOrigins.h): distinct
  /// objects never overlap, names into one object go to isl with their offsets,
  /// parameters the file's calls do not join are assumed apart (one warning per
  /// function); `--assume-aliasing`, or an origin that cannot be traced, keeps
  /// the strict rule (restrict, or another element type).
  std::string aliasing(const NestAnalysis &na, const NestScan &scan, const clang::ForStmt *L) {
    std::vector<const clang::VarDecl *> written, all;
    for (const AccessRec &a : scan.accesses) {
      if (!scan.inside(a.loop, L) || scan.registerArrays.count(a.base))
        continue;
      if (std::find(all.begin(), all.end(), a.base) == all.end())
        all.push_back(a.base);
      if (a.write && std::find(written.begin(), written.end(), a.base) == written.end())
        written.push_back(a.base);
    }
    const clang::FunctionDecl *fn = na.facts.fn;
    for (const clang::VarDecl *w : written)
      for (const clang::VarDecl *o : all) {
        if (o == w || !mayAlias(w, o, tu_.ast))
          continue;
        std::string strict = fmt::format("'{}' and '{}' may point to the same memory (declare "
                                         "the pointers 'restrict')",
                                         w->getName().str(), o->getName().str());
        if (tu_.opts.assumeAliasing || !fn)
          return strict;
        AliasVerdict v = tu_.origins.relate(fn, w, o);
        switch (v.kind) {
        case AliasVerdict::Kind::Distinct:
        case AliasVerdict::Kind::SameObject: // isl decides, with the offsets
          break;
        case AliasVerdict::Kind::AssumedDistinct:
          assumed_.insert(v.params.begin(), v.params.end());
          break;
        case AliasVerdict::Kind::Overlap:
          return fmt::format("'{}' and '{}' point to the same memory: {}", w->getName().str(),
                             o->getName().str(), v.why);
        case AliasVerdict::Kind::Unknown:
          return fmt::format("'{}' and '{}' may point to the same memory ({}; declare the "
                             "pointers 'restrict')",
                             w->getName().str(), o->getName().str(), v.why);
        }
      }
    return {};
  }

  /// The names of the nest that point into another one, for isl.
  std::vector<NestAlias> nestAliases(const NestAnalysis &na, const NestScan &scan) {
    std::vector<NestAlias> out;
    const clang::FunctionDecl *fn = na.facts.fn;
    if (!fn)
      return out;
    std::vector<const clang::VarDecl *> names;
    for (const AccessRec &a : scan.accesses)
      if (!scan.registerArrays.count(a.base) &&
          std::find(names.begin(), names.end(), a.base) == names.end())
        names.push_back(a.base);
    auto rootOf = [&](const clang::VarDecl *v) -> const clang::VarDecl * {
      const PointerOrigin &o = tu_.origins.origin(fn, v);
      return o.kind == PointerOrigin::Kind::Unknown || !o.offsetKnown ? nullptr : o.root;
    };
    for (const clang::VarDecl *v : names) {
      const PointerOrigin &o = tu_.origins.origin(fn, v);
      const clang::VarDecl *root = rootOf(v);
      if (!root || root == v)
        continue;
      // only where another name of the nest shares the object
      bool shared = false;
      for (const clang::VarDecl *x : names)
        if (x != v && rootOf(x) == root)
          shared = true;
      if (!shared)
        continue;
      NestAlias al;
      al.name = v;
      al.base = root;
      for (const OffsetTerm &t : o.offset)
        al.offset.push_back({t.expr, t.sign});
      out.push_back(std::move(al));
    }
    return out;
  }

  std::set<const clang::ParmVarDecl *> assumed_; ///< parameters assumed apart in this loop

  std::string arrayDependence(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                              const clang::ForStmt *L, const clang::VarDecl *v) {
    // the loop variables that differ between two iterations of L
    std::set<const clang::ValueDecl *> varying;
    varying.insert(v);
    for (const auto &[f, h] : scan.headers)
      if (f != L && scan.inside(f, L))
        varying.insert(h.var);
    auto shared = [&](const clang::ValueDecl *d) { return !varying.count(d); };
    for (const AccessRec &w : scan.accesses) {
      if (!w.write || !scan.inside(w.loop, L) || scan.registerArrays.count(w.base))
        continue;
      auto ld = scan.localDecls.find(w.base);
      if (ld != scan.localDecls.end() && scan.inside(ld->second, L))
        continue;
      auto sh = plan.shapes.find(w.base);
      for (const AccessRec &x : scan.accesses) {
        if (x.base != w.base || !scan.inside(x.loop, L))
          continue;
        std::optional<std::vector<DimForm>> dw, dx;
        if (sh != plan.shapes.end()) {
          dw = na.split(w, sh->second);
          dx = na.split(x, sh->second);
        }
        if (!dw || !dx || dw->size() != dx->size()) {
          // raw subscripts
          if (w.subs.size() != x.subs.size())
            return conflict(w, x, L);
          dw.emplace();
          dx.emplace();
          for (auto *s : w.subs) {
            DimForm d;
            d.direct = s;
            dw->push_back(d);
          }
          for (auto *s : x.subs) {
            DimForm d;
            d.direct = s;
            dx->push_back(d);
          }
        }
        bool independent = false;
        bool anyValid = false;
        for (size_t d = 0; d < dw->size() && !independent; ++d) {
          Affine fw = na.dimAffine((*dw)[d]), fx = na.dimAffine((*dx)[d]);
          if (!fw.valid || !fx.valid)
            continue;
          anyValid = true;
          // (a) the same function of v, nothing else varying: different
          // iterations touch different elements
          if (fw == fx && fw.coefOf(v) != 0) {
            bool others = false;
            for (const auto &[var, c] : fw.coef)
              if (var.decl != v && varying.count(var.decl))
                others = true;
            if (!others) {
              independent = true;
              break;
            }
          }
          // (b) GCD and (c) range tests on fw(it1) - fx(it2) = 0
          Affine diff = affineAdd(affineRecopy(fw, 1, shared), affineRecopy(fx, 2, shared), -1);
          if (!diff.valid)
            continue;
          if (diff.coef.empty()) {
            if (diff.constant != 0)
              independent = true;
            continue;
          }
          int64_t g = coefGcd(diff);
          if (g != 0 && diff.constant % g != 0) {
            independent = true;
            continue;
          }
          auto r = rangeOf(diff, [&](const AffVar &av) { return na.varRange(av.decl); });
          if (r && (r->lo > 0 || r->hi < 0))
            independent = true;
        }
        if (!independent) {
          if (!anyValid && w.expr == x.expr)
            return fmt::format("'{}' is written through a subscript computed from data (line {})",
                               w.base->getName().str(), tu_.line(w.expr->getBeginLoc()));
          return conflict(w, x, L);
        }
      }
    }
    return {};
  }

  std::string conflict(const AccessRec &w, const AccessRec &x, const clang::ForStmt *L) {
    std::string ws = tu_.sourceText(w.expr->getSourceRange());
    if (w.expr == x.expr)
      return fmt::format("the element '{}' may be written by more than one iteration (line {})",
                         ws, tu_.line(w.expr->getBeginLoc()));
    unsigned lw = tu_.line(w.expr->getBeginLoc()), lx = tu_.line(x.expr->getBeginLoc());
    std::string xs = tu_.sourceText(x.expr->getSourceRange());
    if (lw == lx)
      return fmt::format("'{}' and '{}' may touch the same element in different iterations "
                         "(line {})",
                         ws, xs, lw);
    return fmt::format("'{}' (line {}) and '{}' (line {}) may touch the same element in "
                       "different iterations",
                       ws, lw, xs, lx);
  }

  TUContext &tu_;
};

} // namespace

struct NestDependences::State {
  NestAnalysis &na;
  const NestScan &scan;
  const NestPlan &plan;
  DependenceTest test;
};

NestDependences::NestDependences(NestAnalysis &na, const NestScan &scan, const NestPlan &plan)
    : state_(new State{na, scan, plan, DependenceTest(na.tu)}) {}
NestDependences::~NestDependences() = default;

std::string NestDependences::loop(const clang::ForStmt *L, bool trusted) {
  return state_->test.dependence(state_->na, state_->scan, state_->plan, L, trusted);
}

std::string NestDependences::how(const clang::ForStmt *L) const { return state_->test.how(L); }

std::string NestDependences::assumption(const clang::ForStmt *L) const {
  return state_->test.assumption(L);
}

std::vector<ScalarReduction> NestDependences::reductions(const clang::ForStmt *L) const {
  return state_->test.reductions(L);
}

} // namespace skelcast::frontend
