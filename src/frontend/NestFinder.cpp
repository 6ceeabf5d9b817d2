// Finding the nests of a function and collapsing them into a loop space
// (NestFinder.h says how the steps fit together).
#include "NestFinder.h"
#include "LoopOrder.h"
#include "ClangNodes.h"
#include "Dependence.h"
#include "HostData.h"
#include "KernelBuilder.h"
#include "NestAnalysis.h"
#include "NestScan.h"
#include "Shapes.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/OpenMPKinds.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

namespace skelcast::frontend {

namespace {

/// The loop directives whose iterations the programmer declared independent:
/// work-sharing (`for`, `parallel for`, with `simd`), `distribute` (`target
/// teams distribute parallel for`) and `taskloop`; `simd` alone only vectorises.
bool isTrustedDirective(llvm::omp::Directive k) {
  return clang::isOpenMPLoopDirective(k) &&
         (clang::isOpenMPWorksharingDirective(k) || clang::isOpenMPDistributeDirective(k) ||
          clang::isOpenMPTaskLoopDirective(k));
}

// ---------------------------------------------------------------------------
// The analysis of one candidate nest, and the collapse into a loop space

/// Analyse one candidate loop (and the loops it can collapse) into a plan.
class PlanMaker {
public:
  PlanMaker(TUContext &tu, const FunctionFacts &facts, CalleeChecker &callees,
            const std::vector<const clang::VarDecl *> &enclosing,
            const std::vector<SequentialLoop> &sequential)
      : tu_(tu), facts_(facts), callees_(callees), enclosing_(enclosing),
        sequential_(sequential) {}

  /// The operator of an OpenMP `reduction(op: ...)` clause, when the
  /// skeleton language has it (+ - * max min); none for & | ^ && || and
  /// declared reductions, which stay unmodelled.
  static std::optional<skeleton::ReduceOp> clauseOperator(const clang::OMPReductionClause *c) {
    clang::DeclarationName n = c->getNameInfo().getName();
    switch (n.getCXXOverloadedOperator()) {
    case clang::OO_Plus:
    case clang::OO_Minus: return skeleton::ReduceOp::Add;
    case clang::OO_Star: return skeleton::ReduceOp::Mul;
    default: break;
    }
    if (n.isIdentifier() && n.getAsIdentifierInfo()) {
      llvm::StringRef id = n.getAsIdentifierInfo()->getName();
      if (id == "max")
        return skeleton::ReduceOp::Max;
      if (id == "min")
        return skeleton::ReduceOp::Min;
    }
    return std::nullopt;
  }

  /// Joins the reductions the test let through for one loop of the space
  /// (the outer loop's and an inner one's are the same variables).
  static void addReductions(NestPlan &plan, const std::vector<ScalarReduction> &found) {
    for (const ScalarReduction &r : found)
      if (std::none_of(plan.reductions.begin(), plan.reductions.end(),
                       [&](const ScalarReduction &x) { return x.var == r.var; }))
        plan.reductions.push_back(r);
  }

  /// Throws Unsupported when the nest cannot be ported.
  void make(const clang::Stmt *root, NestScan &scan, NestPlan &plan) {
    plan.root = root;
    const clang::ForStmt *outer = asFor(root);
    if (auto *d = llvm::dyn_cast<clang::OMPLoopDirective>(root))
      if (isTrustedDirective(d->getDirectiveKind())) {
        plan.omp = d;
        for (const auto *c : d->getClausesOfKind<clang::OMPReductionClause>()) {
          std::optional<skeleton::ReduceOp> op = clauseOperator(c);
          for (const clang::Expr *e : c->varlists())
            if (auto *v = refVar(e)) {
              plan.ompReductions.insert(v);
              clang::QualType t = v->getType();
              if (op && !v->hasGlobalStorage() &&
                  (t->isIntegralOrEnumerationType() || t->isRealFloatingType()))
                plan.reductions.push_back({v, *op, asFor(root), {}});
            }
        }
        ompPrivateVars(d, plan);
      }
    if (!plan.omp && tu_.pragmaClause(outer, "independent"))
      plan.independentPragma = true;
    scanNest(tu_, callees_, outer, scan);
    for (const auto &[f, h] : scan.headers) {
      LoopInfo li;
      li.hdr = h;
      int depth = 0;
      for (auto p = scan.parent.at(f); p; p = scan.parent.at(p))
        ++depth;
      li.depth = depth;
      plan.loops[h.var] = li;
    }
    NestAnalysis na(tu_, facts_, scan, plan, enclosing_);
    na.sequential = &sequential_;
    unsigned trusted = plan.omp ? std::max(1u, plan.omp->getLoopsNumber())
                       : plan.independentPragma ? 1u
                                                : 0u;
    ShapeErrors shapeErrors = makeShapes(na, scan, plan);

    // the outermost loop
    NestDependences deps(na, scan, plan);
    std::string reason = deps.loop(outer, trusted >= 1);
    if (!reason.empty() && trusted == 0 && interchange(na, scan, plan, outer, reason)) {
      for (auto &[v, s] : plan.shapes)
        if (auto e = shapeErrors.find(v); e != shapeErrors.end())
          throw e->second;
      return;
    }
    if (!reason.empty())
      throw Unsupported{outer->getBeginLoc(), reason};
    std::string why;
    if (!constantBounds(na, scan.headers.at(outer), why))
      throw Unsupported{outer->getBeginLoc(), why};
    plan.parallel.push_back(outer);
    addReductions(plan, deps.reductions(outer));
    if (std::string d = deps.assumption(outer); !d.empty())
      plan.assumption = d, plan.assumedLoop = outer;
    plan.why = plan.omp ? fmt::format("OpenMP '{}'", directiveName(plan.omp->getDirectiveKind()))
                        : plan.independentPragma ? "'#pragma skelcast independent'"
                        : deps.how(outer).empty() ? "the dependence test"
                                                  : "the dependence test (" + deps.how(outer) + ")";

    // collapse inner loops
    const clang::ForStmt *cur = outer;
    while (plan.parallel.size() < 3) {
      std::vector<const clang::Stmt *> prefix;
      const clang::ForStmt *inner = singleInnerLoop(cur, scan, prefix);
      if (!inner || scan.earlyExits.count(inner))
        break; // (a loop that a `break` ends runs as far as its data says)
      std::string w;
      std::optional<NestPlan::Box> box;
      // one triangle a kernel (two would not make their shares multiply)
      if (!constantBounds(na, scan.headers.at(inner), w) &&
          (!plan.boxes.empty() || !(box = boxedBounds(na, scan, plan, scan.headers.at(inner)))))
        break;
      bool trust = trusted >= plan.parallel.size() + 1;
      if (std::string r = deps.loop(inner, trust); !r.empty()) {
        if (trust) // a race under the directive's collapse: the nest is not ported
          throw Unsupported{inner->getBeginLoc(), r};
        break;
      }
      if (std::string d = deps.assumption(inner); !d.empty() && plan.assumption.empty())
        plan.assumption = d, plan.assumedLoop = inner;
      for (const clang::Stmt *s : prefix)
        plan.body.push_back(s);
      plan.parallel.push_back(inner);
      if (box)
        plan.boxes[inner] = *box;
      addReductions(plan, deps.reductions(inner));
      cur = inner;
    }
    if (plan.parallel.size() < 3) {
      // `for i { for j S1; for k for j S2 }`: distribute and interchange (LoopOrder.h)
      std::string whyNot;
      auto spaceBounds = [&](const LoopHeader &h) {
        std::string w;
        return constantBounds(na, h, w) || (plan.boxes.empty() && boxedBounds(na, scan, plan, h).has_value());
      };
      for (const clang::ForStmt *f : plan.parallel)
        plan.loops[scan.headers.at(f).var].parallel = true;
      if (auto r = distributeInner(na, scan, cur, spaceBounds, whyNot)) {
        std::string w;
        if (!constantBounds(na, scan.headers.at(r->dim), w))
          plan.boxes[r->dim] = *boxedBounds(na, scan, plan, scan.headers.at(r->dim));
        plan.parallel.push_back(r->dim);
        plan.inPlace = r->copies;
        plan.reordered = r->note;
      }
    }
    for (const clang::ForStmt *f : plan.parallel)
      plan.loops[scan.headers.at(f).var].parallel = true;
    for (const clang::Stmt *s : scan.bodyOf(cur))
      plan.body.push_back(s);

    // shapes must be complete now
    for (auto &[v, s] : plan.shapes)
      if (auto e = shapeErrors.find(v); e != shapeErrors.end())
        throw e->second;
  }

private:
  /// The variables OpenMP makes private to a thread around the directive `d`
  /// (its data-sharing clauses and those of the directives enclosing it, and
  /// the locals declared inside an enclosing `parallel` region): the race
  /// check under a trusted directive (Dependence.cpp) leaves them alone.
  void ompPrivateVars(const clang::OMPExecutableDirective *d, NestPlan &plan) {
    auto clauses = [&](const clang::OMPExecutableDirective *x) {
      auto add = [&](const auto *c) {
        for (const clang::Expr *e : c->varlists())
          if (auto *v = refVar(e))
            plan.ompPrivate.insert(v);
      };
      for (const auto *c : x->getClausesOfKind<clang::OMPPrivateClause>())
        add(c);
      for (const auto *c : x->getClausesOfKind<clang::OMPFirstprivateClause>())
        add(c);
      for (const auto *c : x->getClausesOfKind<clang::OMPLastprivateClause>())
        add(c);
      for (const auto *c : x->getClausesOfKind<clang::OMPLinearClause>())
        add(c);
      for (const auto *c : x->getClausesOfKind<clang::OMPReductionClause>())
        add(c);
    };
    clauses(d);
    clang::DynTypedNode node = clang::DynTypedNode::create(*d);
    for (int depth = 0; depth < 64; ++depth) {
      auto parents = tu_.ast.getParents(node);
      if (parents.empty() || parents[0].get<clang::FunctionDecl>())
        break;
      node = parents[0];
      if (auto *x = node.get<clang::OMPExecutableDirective>()) {
        clauses(x);
        if (clang::isOpenMPParallelDirective(x->getDirectiveKind()) && x->hasAssociatedStmt()) {
          // locals declared in the region (outside `d`): one per thread
          struct Decls : clang::RecursiveASTVisitor<Decls> {
            std::set<const clang::VarDecl *> *out;
            bool VisitVarDecl(clang::VarDecl *v) {
              if (v->isLocalVarDecl() && !v->isStaticLocal()) // a static local is one for all
                out->insert(v);
              return true;
            }
          } decls;
          decls.out = &plan.ompPrivate;
          decls.TraverseStmt(const_cast<clang::Stmt *>(x->getAssociatedStmt()));
        }
      }
    }
  }

  /// The bounding box of a loop whose bounds are affine in one outer index
  /// of the loop space (NestPlan::Box), counting the points inside exactly
  /// over the outer index's range (up to 2^24 values); nullopt otherwise.
  static std::optional<NestPlan::Box> boxedBounds(NestAnalysis &na, const NestScan &scan,
                                                  const NestPlan &plan, const LoopHeader &h) {
    if (h.decreasing || h.stepExpr || h.step != 1)
      return std::nullopt;
    Affine lo = na.affine(h.init), hi = na.affine(h.bound);
    if (!lo.valid || !hi.valid)
      return std::nullopt;
    if (h.inclusive)
      hi.constant += 1;
    const clang::VarDecl *v = nullptr;
    for (const Affine *a : {&lo, &hi})
      for (const auto &[var, c] : a->coef) {
        auto *d = llvm::dyn_cast<clang::VarDecl>(var.decl);
        bool space = std::any_of(plan.parallel.begin(), plan.parallel.end(), [&](const clang::ForStmt *f) {
          const LoopHeader &o = scan.headers.at(f);
          return o.var == d && !o.decreasing && !o.stepExpr && o.step == 1;
        });
        if (!space || (v && v != d))
          return std::nullopt;
        v = d;
      }
    std::optional<Interval> r = v ? na.varRange(v) : std::nullopt;
    if (!r || r->hi < r->lo || r->hi - r->lo >= (int64_t(1) << 24))
      return std::nullopt;
    NestPlan::Box box;
    box.outer = v;
    box.lo = std::numeric_limits<int64_t>::max();
    box.hi = std::numeric_limits<int64_t>::min();
    double inside = 0;
    for (int64_t x = r->lo; x <= r->hi; ++x) {
      int64_t l = lo.constant + lo.coefOf(v) * x, u = hi.constant + hi.coefOf(v) * x;
      if (u > l) {
        inside += static_cast<double>(u - l);
        box.lo = std::min(box.lo, l);
        box.hi = std::max(box.hi, u);
      }
    }
    if (inside == 0)
      return std::nullopt;
    // four significant digits, as branch probabilities are written
    box.p = std::stod(fmt::format(
        "{:.4g}", inside / (static_cast<double>(r->hi - r->lo + 1) * static_cast<double>(box.hi - box.lo))));
    return box;
  }

  /// `for i { for j S }` whose i carries a dependence that joins iterations
  /// of one j only (atax's `y[j] += A[i][j] * tmp[i]`, a sum over i): j
  /// becomes the loop space and each thread runs i in order, as a port writes
  /// A^T x (LoopOrder.h, the test of distributeInner with one copy). The plan
  /// is then complete; false when the shape or the test does not allow it.
  bool interchange(NestAnalysis &na, NestScan &scan, NestPlan &plan, const clang::ForStmt *outer,
                   const std::string &reason) {
    std::string whyNot, w;
    if (!constantBounds(na, scan.headers.at(outer), w))
      return false; // each thread runs it: its bounds must be known too
    auto spaceBounds = [&](const LoopHeader &h) {
      std::string w;
      return constantBounds(na, h, w) && !mentions(h.init, scan.headers.at(outer).var) &&
             !mentions(h.bound, scan.headers.at(outer).var);
    };
    auto r = distributeInner(na, scan, outer, spaceBounds, whyNot, /*interchangeOnly=*/true);
    if (!r || r->copies.size() != 1)
      return false;
    plan.parallel = {r->dim};
    plan.inPlace = r->copies;
    plan.reordered = r->note;
    plan.why = fmt::format("the loop-order test ('{}' carries a dependence: {})",
                           scan.headers.at(outer).var->getName().str(), reason);
    for (const clang::ForStmt *f : plan.parallel)
      plan.loops[scan.headers.at(f).var].parallel = true;
    plan.body = {outer};
    return true;
  }

  /// Bounds that make a loop-space dimension: known constants, or affine
  /// forms in the index of the indexed repeat around the nest (`k + 1:N`).
  bool constantBounds(NestAnalysis &na, const LoopHeader &h, std::string &why) {
    const SequentialLoop *rep = na.repeatIndex();
    bool usesIndex = false;
    for (const clang::Expr *e : {h.init, h.bound}) {
      if (na.knownValue(e))
        continue;
      std::set<const clang::VarDecl *> vs;
      collectVars(e, vs);
      bool index = false;
      for (const clang::VarDecl *v : vs) {
        if (rep && (v == rep->var || na.passValue(v))) {
          index = true; // the index, or a value of the pass computed from it
          continue;
        }
        if (na.plan.loops.count(v) || na.knownScalar(v))
          continue;
        if (!v->getType()->isIntegralOrEnumerationType()) {
          // `s.n`, `p->n` left as a member access (StructFields.h): no value
          // to ask for under the struct's name
          why = fmt::format("the loop bound '{}' is not a known constant: it reads a field of "
                            "'{}' that may change while the function runs (the function writes "
                            "the field or the struct, takes its address, or the struct is a "
                            "global)",
                            tu_.sourceText(e->getSourceRange()), v->getName().str());
          return false;
        }
        why = fmt::format("the loop bound '{}' is not a known constant: {}",
                          tu_.sourceText(e->getSourceRange()), na.noValueReason(v));
        return false;
      }
      bool others = std::any_of(vs.begin(), vs.end(), [&](const clang::VarDecl *v) {
        return na.plan.loops.count(v) > 0;
      });
      if (index && !others) {
        // affine in the index, or an integer expression of it that the model
        // evaluates at each pass (docs/model.md, "Launches of an indexed repeat")
        if (na.affine(e).valid || na.passForm(e, e->getBeginLoc())) {
          usesIndex = true;
          continue;
        }
        why = fmt::format("the loop bound '{}' is not an integer expression of '{}', the index "
                          "of the loop around it (line {}) that launches it once per iteration, "
                          "constants and values set in each pass",
                          tu_.sourceText(e->getSourceRange()), rep->var->getName().str(),
                          rep->line);
        return false;
      }
      why = fmt::format("the loop bound '{}' is not a known constant",
                        tu_.sourceText(e->getSourceRange()));
      return false;
    }
    if (h.stepExpr) {
      why = "the loop step is not a known constant";
      return false;
    }
    if (usesIndex && h.step > 1) {
      why = fmt::format("a stepped loop whose bounds use '{}', the index of the loop around it: "
                        "its iteration count changes with '{}'",
                        rep->var->getName().str(), rep->var->getName().str());
      return false;
    }
    return true;
  }

  /// The only loop among the statements of `f`'s body, if the others can be
  /// repeated by every thread (no stores, no loops) and stand before it.
  const clang::ForStmt *singleInnerLoop(const clang::ForStmt *f, const NestScan &scan,
                                        std::vector<const clang::Stmt *> &prefix) {
    std::vector<const clang::Stmt *> stmts = scan.bodyOf(f);
    const clang::ForStmt *inner = nullptr;
    for (const clang::Stmt *s : stmts) {
      if (llvm::isa<clang::NullStmt>(s))
        continue;
      if (inner)
        return nullptr; // something after the inner loop
      if (auto *l = asFor(s)) {
        if (llvm::isa<clang::OMPExecutableDirective>(s))
          return nullptr;
        inner = l;
        continue;
      }
      if (hasStoreOrLoop(s, scan) || continueIf(s))
        return nullptr; // (a `continue` would skip the inner loop's iterations too)
      prefix.push_back(s);
    }
    return inner;
  }

  static bool hasStoreOrLoop(const clang::Stmt *s, const NestScan &scan) {
    if (!s)
      return false;
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::OMPExecutableDirective>(s))
      return true;
    for (const auto &a : scan.accesses)
      if (a.write && a.expr == s && !scan.registerArrays.count(a.base))
        return true;
    for (const clang::Stmt *c : s->children())
      if (hasStoreOrLoop(c, scan))
        return true;
    return false;
  }

  TUContext &tu_;
  const FunctionFacts &facts_;
  CalleeChecker &callees_;
  const std::vector<const clang::VarDecl *> &enclosing_;
  const std::vector<SequentialLoop> &sequential_;
};

// ---------------------------------------------------------------------------
// Walking a function for nests

class NestFinder {
public:
  NestFinder(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn)
      : tu_(tu), out_(out), fn_(fn), facts_(scanFunction(fn)), callees_(tu),
        host_(tu, out, fn) {}

  void run() {
    size_t first = out_.kernels.size();
    walk(fn_->getBody());
    host_.flushHost();
    host_.finish(first);
  }

private:
  void walk(const clang::Stmt *s) {
    if (!s)
      return;
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      if (llvm::isa<clang::OMPLoopDirective>(d) && asFor(d)) {
        tryNest(d);
        return;
      }
      walk(directiveBody(d));
      return;
    }
    if (llvm::isa<clang::ForStmt>(s)) {
      tryNest(s);
      return;
    }
    if (auto *w = llvm::dyn_cast<clang::WhileStmt>(s)) {
      host_.noteHost(w->getCond()); // host code, evaluated before the body and after each pass
      notALoopNest(s, w->getBody(), "a 'while' loop (only 'for' loops are ported)");
      host_.noteHost(w->getCond());
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::DoStmt>(s)) {
      notALoopNest(s, d->getBody(), "a 'do' loop (only 'for' loops are ported)");
      host_.noteHost(d->getCond());
      return;
    }
    if (!containsLoop(s)) {
      noteHostCalls(s);
      host_.noteHost(s); // host code: what it touches may have to cross the link
      return;
    }
    for (const clang::Stmt *c : s->children())
      walk(c);
  }

  /// A call in host code inside a loop around kernels to a function of the
  /// file with loops of its own (Rodinia lud's `lud_diagonal_omp(a, size,
  /// offset)` in each pass): its loops are not ported, and it is host code on
  /// the arrays passed to it. A note says so at the call.
  void noteHostCalls(const clang::Stmt *s) {
    if (!s || seq_.empty())
      return;
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(s)) {
      const clang::FunctionDecl *fd = c->getDirectCallee();
      const clang::FunctionDecl *def = nullptr;
      if (fd && fd->hasBody(def) && def && containsLoop(def->getBody())) {
        std::set<std::string> arrays; // (sorted: the map is by address)
        for (const auto &[v, w] : hostTouches(c))
          arrays.insert(fmt::format("'{}'", v->getName().str()));
        if (!arrays.empty()) {
          const SequentialLoop &in = seq_.back();
          Warning w = tu_.warning(
              c->getBeginLoc(),
              fmt::format("the call to '{}' runs on the host in each pass of the loop '{}' "
                          "(line {}): the loops of its body are not ported, and it is taken as "
                          "host code that reads and writes the {} passed to it ({}), a 'host "
                          "writes' step with the copies it causes in each pass",
                          def->getNameAsString(), in.var->getName().str(), in.line,
                          arrays.size() == 1 ? "array" : "arrays", fmt::join(arrays, ", ")));
          w.note = true;
          out_.warnings.push_back(std::move(w));
        }
      }
    }
    for (const clang::Stmt *c : s->children())
      noteHostCalls(c);
  }

  static bool containsLoop(const clang::Stmt *s) {
    if (!s)
      return false;
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
        llvm::isa<clang::DoStmt>(s) || llvm::isa<clang::OMPExecutableDirective>(s))
      return true;
    for (const clang::Stmt *c : s->children())
      if (containsLoop(c))
        return true;
    return false;
  }

  /// A loop that is not ported itself: look for nests inside; warn if none.
  void notALoopNest(const clang::Stmt *s, const clang::Stmt *body, const std::string &why) {
    size_t kernels = out_.kernels.size();
    size_t warns = out_.warnings.size();
    walk(body);
    if (out_.kernels.size() == kernels) {
      // The nests inside that were refused keep their own reasons (the real
      // ones: Rodinia's bfs loops inside a 'do' were dropped without a word);
      // the loop itself is named when nothing inside was.
      bool innerNamed = false;
      for (size_t w = warns; w < out_.warnings.size(); ++w)
        innerNamed = innerNamed ||
                     out_.warnings[w].message.rfind("cannot port this loop", 0) == 0;
      if (!innerNamed) {
        out_.warnings.resize(warns);
        if (containsArrayAccess(body))
          out_.warnings.push_back(tu_.warning(s->getBeginLoc(), "cannot port this loop: " + why));
      }
    } else {
      // kernels in a loop of unknown count: they are counted once, and say so
      out_.warnings.push_back(tu_.warning(
          s->getBeginLoc(), "the kernels inside this loop are counted once: only a 'for' loop "
                            "with a known trip count becomes 'repeat' (write it as one)"));
    }
  }

  /// A bound of a sequential loop around kernels: a constant (macro names
  /// kept), a scalar given by --extent, or a value from the file's callers.
  std::optional<std::pair<int64_t, skeleton::Expr>> boundForm(const clang::Expr *e) {
    if (auto v = tu_.constantValue(e))
      if (auto x = tu_.constantExpr(e))
        return std::make_pair(*v, *x);
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts())) {
      if (auto v = tu_.scalarOption(dr->getDecl()->getName().str()))
        return std::make_pair(*v, tu_.useScalarOption(dr->getDecl()->getName().str()));
      if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(dr->getDecl()))
        if (!facts_.assignments.count(pv) && !facts_.addressTaken.count(pv))
          if (auto a = tu_.callValues.valueOf(pv))
            return std::make_pair(a->value, a->form);
      return std::nullopt;
    }
    // `+ - * /` of such values (`(max_cols - 1)/BLOCK_SIZE`, `size - BS`)
    auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
    if (!b)
      return std::nullopt;
    auto op = b->getOpcode();
    if (op != clang::BO_Add && op != clang::BO_Sub && op != clang::BO_Mul && op != clang::BO_Div)
      return std::nullopt;
    auto l = boundForm(b->getLHS()), r = boundForm(b->getRHS());
    if (!l || !r)
      return std::nullopt;
    int64_t v = 0;
    char c = 0;
    switch (op) {
    case clang::BO_Add:
      c = '+';
      if (__builtin_add_overflow(l->first, r->first, &v))
        return std::nullopt;
      break;
    case clang::BO_Sub:
      c = '-';
      if (__builtin_sub_overflow(l->first, r->first, &v))
        return std::nullopt;
      break;
    case clang::BO_Mul:
      c = '*';
      if (__builtin_mul_overflow(l->first, r->first, &v))
        return std::nullopt;
      break;
    default:
      c = '/';
      if (r->first <= 0 || l->first < 0) // non-negative: C's truncation is the floor
        return std::nullopt;
      v = l->first / r->first;
      break;
    }
    return std::make_pair(v, skeleton::Expr::binary(c, l->second, r->second));
  }

  /// What the sequential loop `f` is to the nests inside it: an indexed
  /// `repeat k = LO:HI[:STEP]` when its header allows one (counting up by a
  /// constant step between known bounds), else the reason it is not.
  SequentialLoop sequentialLoop(const clang::ForStmt *f, const LoopHeader &h) {
    SequentialLoop s;
    s.loop = f;
    s.var = h.var;
    s.line = tu_.line(f->getBeginLoc());
    auto no = [&](std::string why) {
      s.whyNotIndexed = std::move(why);
      return s;
    };
    if (h.stepExpr)
      return no("its step is not a known constant");
    if (h.decreasing)
      return no("it counts down, and an indexed 'repeat' counts up");
    auto a = boundForm(h.init);
    if (!a)
      return no(fmt::format("its start '{}' is not a known constant",
                            tu_.sourceText(h.init->getSourceRange())));
    auto b = boundForm(h.bound);
    if (!b)
      return no(fmt::format("its bound '{}' is not a known constant",
                            tu_.sourceText(h.bound->getSourceRange())));
    int64_t hi = h.inclusive ? b->first + 1 : b->first;
    if (hi <= a->first)
      return no("it never runs");
    s.lo = a->second;
    s.hi = h.inclusive ? plusConst(b->second, 1) : b->second;
    if (h.step > 1)
      s.step = skeleton::Expr::lit(h.step);
    s.range = Interval{a->first, hi - 1};
    s.stepValue = h.step;
    return s;
  }

  /// Is one of the kernels from `first` on in a repeat already (an inner loop's)?
  bool repeatSince(size_t first) const {
    for (const auto &r : out_.repeats)
      for (size_t k : r.kernels)
        if (k >= first)
          return true;
    return false;
  }

  /// Everything walking a loop body changes, to walk it again.
  struct Snapshot {
    size_t kernels, repeats, warnings;
    FileAssembler::Mark mark;
    HostProgram::Saved host;
    int count;
    decltype(TUContext::macros) macros;
    decltype(TUContext::usedTrips) usedTrips;
    std::vector<SequentialLoop> seq;
  };
  Snapshot snapshot() const {
    return {out_.kernels.size(), out_.repeats.size(), out_.warnings.size(), out_.mark(),
            host_.save(), count_, tu_.macros, tu_.usedTrips, seq_};
  }
  void restore(const Snapshot &s) {
    out_.kernels.resize(s.kernels);
    out_.repeats.resize(s.repeats);
    out_.warnings.resize(s.warnings);
    out_.rollback(s.mark);
    host_.restore(s.host);
    count_ = s.count;
    tu_.macros = s.macros;
    tu_.usedTrips = s.usedTrips;
    seq_ = s.seq;
  }

  /// The trip count of a sequential loop around kernels, as the repeat count,
  /// with a comment saying where it came from; nullopt with a warning if unknown.
  std::optional<std::pair<skeleton::Expr, std::string>> repeatCount(const clang::ForStmt *f,
                                                                   const LoopHeader &h) {
    std::string name = h.var->getName().str();
    if (auto p = tu_.pragmaClause(f, "trip"))
      return std::make_pair(skeleton::Expr::lit(static_cast<int64_t>(p->value)),
                            std::string("from '#pragma skelcast trip'"));
    auto a = h.stepExpr ? std::nullopt : boundForm(h.init);
    auto b = h.stepExpr ? std::nullopt : boundForm(h.bound);
    if (a && b) {
      int64_t lo = h.decreasing ? b->first : a->first, hi = h.decreasing ? a->first : b->first;
      int64_t n = hi - lo + (h.inclusive || h.decreasing ? 1 : 0);
      if (h.decreasing && !h.inclusive)
        n -= 1; // `i > lo` excludes lo
      n = n <= 0 ? 0 : (n + h.step - 1) / h.step;
      if (n <= 0) {
        out_.warnings.push_back(tu_.warning(
            f->getBeginLoc(), "this loop around kernels never runs: its kernels are counted once"));
        return std::nullopt;
      }
      bool plain = !h.decreasing && !h.inclusive && h.step == 1 && a->first == 0;
      return std::make_pair(plain ? b->second : skeleton::Expr::lit(n),
                            std::string("its bounds"));
    }
    if (auto t = tu_.opts.trips.find(name); t != tu_.opts.trips.end() && t->second > 0) {
      tu_.usedTrips.insert(name);
      return std::make_pair(skeleton::Expr::lit(t->second),
                            fmt::format("from --trip {}={}", name, t->second));
    }
    out_.warnings.push_back(tu_.warning(
        f->getBeginLoc(),
        fmt::format("the trip count of loop '{}' around kernels is unknown: they are counted once "
                    "(add '#pragma skelcast trip(N)', --trip {}=N, or --extent for its bound)",
                    name, name)));
    return std::nullopt;
  }

  /// A sequential loop (a time-step loop) around kernels [first, end): they
  /// run its trip count times, `repeat T { ... }`.
  void wrapInRepeat(const clang::ForStmt *f, const std::optional<LoopHeader> &hdr, size_t first,
                    size_t firstStep, const SequentialLoop *indexed) {
    size_t end = out_.kernels.size();
    if (indexed) {
      // kernels that use the loop's index: launched once per iteration,
      // `repeat k = LO:HI[:STEP] { ... }` (the walk made sure no inner
      // repeat holds any of them)
      skeleton::Repeat r;
      r.count = skeleton::Expr::lit(0);
      r.index = indexed->name();
      r.lo = *indexed->lo;
      r.hi = *indexed->hi;
      r.step = indexed->step;
      for (size_t k = first; k < end; ++k)
        r.kernels.push_back(k);
      r.comments.leading.push_back(
          fmt::format("// from {}:{}: the sequential loop '{}' around these kernels, one pass per "
                      "value of '{}'",
                      tu_.fileName, indexed->line, indexed->var->getName().str(), r.index));
      out_.repeats.push_back(std::move(r));
      host_.inRepeat(firstStep, static_cast<int>(out_.repeats.size() - 1));
      return;
    }
    if (!hdr) {
      out_.warnings.push_back(tu_.warning(
          f->getBeginLoc(), "the kernels inside this loop are counted once: its header has no "
                            "trip count"));
      return;
    }
    auto count = repeatCount(f, *hdr);
    if (!count)
      return;
    std::vector<size_t> ks;
    for (size_t k = first; k < end; ++k)
      ks.push_back(k);
    std::string from = fmt::format("// from {}:{}: the sequential loop '{}' around these kernels "
                                   "(count: {})",
                                   tu_.fileName, tu_.line(f->getBeginLoc()),
                                   hdr->var->getName().str(), count->second);
    for (auto &r : out_.repeats) {
      bool inside = std::any_of(r.kernels.begin(), r.kernels.end(),
                                [&](size_t k) { return k >= first; });
      if (!inside)
        continue;
      if (r.kernels == ks && r.indexed()) {
        out_.warnings.push_back(tu_.warning(
            f->getBeginLoc(),
            fmt::format("the kernels inside this loop are counted once: they are launched once "
                        "per iteration of '{}', an indexed 'repeat', and a 'repeat' cannot hold "
                        "a 'repeat'",
                        r.index)));
        return;
      }
      if (r.kernels == ks) {
        // nested time loops over the same kernels: the counts multiply, unless
        // this loop has host code of its own (a repeat holds no repeat)
        if (host_.ownHostCodeSince(firstStep)) {
          out_.warnings.push_back(tu_.warning(
              f->getBeginLoc(),
              "this loop around a time-step loop is counted once: it holds host code outside "
              "the inner loop, and a 'repeat' cannot hold a 'repeat'"));
          return;
        }
        r.count = skeleton::Expr::binary('*', count->first, r.count);
        r.comments.leading.insert(r.comments.leading.begin(), from);
        host_.inRepeat(firstStep, static_cast<int>(&r - out_.repeats.data()));
      } else {
        out_.warnings.push_back(tu_.warning(
            f->getBeginLoc(),
            "the kernels inside this loop are counted once: some of them are in an inner "
            "time-step loop and a 'repeat' holds kernels only"));
      }
      return;
    }
    skeleton::Repeat r;
    r.count = count->first;
    r.kernels = ks;
    r.comments.leading.push_back(from);
    out_.repeats.push_back(std::move(r));
    host_.inRepeat(firstStep, static_cast<int>(out_.repeats.size() - 1));
  }

  static bool containsArrayAccess(const clang::Stmt *s) {
    if (!s)
      return false;
    if (llvm::isa<clang::ArraySubscriptExpr>(s))
      return true;
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s))
      return containsArrayAccess(directiveBody(d)); // `#pragma omp target` around a loop
    for (const clang::Stmt *c : s->children())
      if (containsArrayAccess(c))
        return true;
    return false;
  }

  /// The skeleton type of a reduction's scalar (the same sizes as an array's elements).
  skeleton::ElemType scalarElemType(clang::QualType t) const {
    t = t.getCanonicalType();
    uint64_t bits = tu_.ast.getTypeSize(t);
    if (t->isRealFloatingType())
      return bits > 32 ? skeleton::ElemType::Double : skeleton::ElemType::Float;
    return bits <= 8 ? skeleton::ElemType::Char : bits <= 16 ? skeleton::ElemType::Short
           : bits <= 32 ? skeleton::ElemType::Int : skeleton::ElemType::Long;
  }

  /// Ports the nest at `root` (with `only`, the statements of its body that
  /// make this nest: a fission, LoopOrder.h): its kernel and warnings go to
  /// the output. Throws Unsupported, leaving the output as it found it but
  /// for what `out_.mark()` rolls back.
  void port(const clang::Stmt *root, const std::set<const clang::Stmt *> &only) {
    NestScan scan;
    scan.only = only;
    NestPlan plan;
    std::vector<Warning> nestWarnings;
    PlanMaker pm(tu_, facts_, callees_, enclosing_, seq_);
    pm.make(root, scan, plan);
    for (const AccessRec &a : scan.accesses) {
      ArrayShape &s = plan.shapes.at(a.base);
      if (!s.isRegister && s.name.empty())
        s.name = out_.declareArray(s);
    }
    for (ScalarReduction &r : plan.reductions) {
      // the result: one element on the device (docs/skeletonizer.md, "Reductions")
      ArrayShape s;
      s.decl = r.var;
      s.type = scalarElemType(r.var->getType());
      s.extents = {skeleton::Expr::lit(1)};
      s.values = {1};
      r.name = out_.declareArray(s);
      nestWarnings.push_back(tu_.warning(
          r.loop ? r.loop->getBeginLoc() : root->getBeginLoc(),
          fmt::format("'{}' is a reduction ({}) across the iterations: ported as a GPU "
                      "reduction, each thread's partial combined in shared memory and one "
                      "atomic per block ('reduce({}: {})')",
                      r.var->getName().str(), skeleton::reduceOpName(r.op),
                      skeleton::reduceOpName(r.op), r.name)));
      nestWarnings.back().note = true;
    }
    NestAnalysis na(tu_, facts_, scan, plan, enclosing_);
    na.sequential = &seq_;
    std::string name = fn_->getNameAsString();
    if (count_ > 0)
      name += fmt::format("_{}", count_);
    skeleton::Kernel k = buildKernel(na, name, nestWarnings);
    if (!plan.assumption.empty())
      nestWarnings.push_back(tu_.warning(
          plan.assumedLoop->getBeginLoc(),
          fmt::format("ported as parallel on an assumption about the values: isl finds a "
                      "dependence between some of its iterations, {}; a port is right only "
                      "where that holds",
                      plan.assumption)));
    if (!seq_.empty() && seq_.back().indexed() &&
        (mentions(root, seq_.back().var) || na.usedPassValue)) {
      seq_.back().used = true;
      k.comments.leading.push_back(fmt::format("// launched once per iteration of '{}' ({}:{})",
                                               seq_.back().var->getName().str(), tu_.fileName,
                                               seq_.back().line));
    }
    if (!only.empty()) {
      // the group's statements (a loop distributed among the groups is
      // named by the statements of it that are this group's)
      std::set<unsigned> lines;
      for (const clang::Stmt *s : only) {
        auto *l = llvm::dyn_cast<clang::ForStmt>(s);
        if (!l || !partlyKept(l, only))
          lines.insert(tu_.line(s->getBeginLoc()));
      }
      k.comments.leading.push_back(fmt::format(
          "// loop '{}' (line {}) split into loops of its own (a fission): this kernel is its "
          "statements at line{} {}",
          scan.headers.at(asFor(root)).var->getName().str(), tu_.line(root->getBeginLoc()),
          lines.size() > 1 ? "s" : "", fmt::join(lines, ", ")));
    }
    ++count_;
    host_.flushHost();
    NestAst origin{fn_, root, plan.parallel, plan.body, plan.ompReductions, {}, {}, plan.inPlace, only};
    for (const ScalarReduction &r : plan.reductions)
      origin.reductions.push_back({r.var, r.op});
    for (const auto &[decl, shape] : plan.shapes)
      if (!shape.isRegister && !shape.name.empty())
        origin.arrays[shape.name] = decl;
    for (const AccessRec &a : scan.accesses) {
      const ArrayShape &shape = plan.shapes.at(a.base);
      if (shape.isRegister || shape.strides.empty() || a.word)
        continue;
      auto dims = na.split(a, shape);
      if (!dims)
        continue;
      // the split dimensions after the first: C's flat offset wraps into the
      // next or previous row where one leaves [0, extent)
      // (dims: the leading direct subscripts, a.subs.size() - 1 of them, then the split ones)
      for (size_t d = a.subs.size(); d < dims->size(); ++d) {
        std::optional<Interval> r = na.range(na.dimAffine((*dims)[d]));
        if (!r || r->lo < 0 || d >= shape.values.size() || r->hi >= shape.values[d])
          origin.leavesRows.insert(a.base);
      }
      origin.delinearized[a.expr] = std::move(*dims);
    }
    out_.addKernel(std::move(k), std::move(origin));
    for (auto &w : nestWarnings)
      out_.warnings.push_back(std::move(w));
  }

  /// A loop that is no nest as a whole, split into loops of its own that are
  /// (LoopOrder.h, fissionGroups): true when every group ported; else the
  /// output as it was.
  bool fission(const clang::ForStmt *f) {
    NestScan scan;
    NestPlan plan;
    std::vector<std::vector<const clang::Stmt *>> groups;
    try {
      scanNest(tu_, callees_, f, scan);
      for (const auto &[g, h] : scan.headers)
        plan.loops[h.var].hdr = h;
      NestAnalysis na(tu_, facts_, scan, plan, enclosing_);
      std::string whyNot;
      groups = fissionGroups(na, scan, f, whyNot);
    } catch (const Unsupported &) {
      return false;
    }
    if (groups.size() < 2)
      return false;
    FileAssembler::Mark mark = out_.mark();
    auto macros = tu_.macros;
    auto usedTrips = tu_.usedTrips;
    int count = count_;
    size_t warns = out_.warnings.size();
    try {
      for (const auto &g : groups)
        port(f, std::set<const clang::Stmt *>(g.begin(), g.end()));
    } catch (const Unsupported &) {
      out_.rollback(mark);
      tu_.macros = macros;
      tu_.usedTrips = usedTrips;
      count_ = count;
      out_.warnings.resize(warns);
      return false;
    }
    out_.warnings.push_back(tu_.warning(
        f->getBeginLoc(),
        fmt::format("loop '{}' split into {} loops, one per group of its statements, each "
                    "ported on its own (a fission: what one group writes, another reads only "
                    "in the same iteration)",
                    scan.headers.at(f).var->getName().str(), groups.size())));
    out_.warnings.back().note = true;
    return true;
  }

  void tryNest(const clang::Stmt *root) {
    const clang::ForStmt *f = asFor(root);
    FileAssembler::Mark mark = out_.mark();
    auto macros = tu_.macros;
    auto usedTrips = tu_.usedTrips;
    try {
      port(root, {});
      return;
    } catch (const std::exception &e) {
      // a bug of ours: skip this nest with a warning rather than lose the file
      out_.rollback(mark);
      tu_.macros = macros;
      tu_.usedTrips = usedTrips;
      out_.warnings.push_back(tu_.warning(
          f ? f->getBeginLoc() : root->getBeginLoc(),
          fmt::format("cannot port this loop: internal error ({}); please report it", e.what())));
    } catch (const Unsupported &u) {
      out_.rollback(mark);
      tu_.macros = macros;
      tu_.usedTrips = usedTrips;
      // not this loop as a whole: perhaps its statements, each group a loop
      // of its own; else loops inside it
      if (f && !llvm::isa<clang::OMPLoopDirective>(root) && fission(f))
        return;
      size_t kernels = out_.kernels.size();
      size_t warns = out_.warnings.size();
      std::string posNote;
      clang::SourceLocation at = f ? f->getBeginLoc() : root->getBeginLoc();
      if (u.loc.isValid() && tu_.line(u.loc) != tu_.line(at))
        posNote = fmt::format(" (line {})", tu_.line(u.loc));
      std::string reason = u.reason + posNote;
      // a nest that uses the index of a sequential loop outside the innermost
      // one: the outer loop's warning names it
      if (reason.find(kTwoSequentialLoops) != std::string::npos) {
        for (size_t i = 0; i + 1 < seq_.size(); ++i)
          if (mentions(root, seq_[i].var))
            seq_[i].refusedUses.push_back(fmt::format(
                "the nest at line {} uses its index '{}' inside the sequential loop '{}' (line "
                "{}): {}",
                tu_.line(at), seq_[i].var->getName().str(), seq_.back().var->getName().str(),
                seq_.back().line, kTwoSequentialLoops));
      } else if (!seq_.empty() && !seq_.back().indexed() && mentions(root, seq_.back().var)) {
        seq_.back().refusedUses.push_back(fmt::format(
            "the nest at line {} uses its index '{}', and it cannot launch that nest once per "
            "iteration: {}",
            tu_.line(at), seq_.back().var->getName().str(), seq_.back().whyNotIndexed));
      } else if (ompNotes_ && ompNotes_->depth == seq_.size() &&
                 llvm::isa<clang::OMPLoopDirective>(root)) {
        // an OpenMP loop in a loop that cannot be a sequential loop of
        // launches (heartwall's `for (public.frame_no = 0; ...)`): that
        // loop's warning names it and its reason
        ompNotes_->notes.push_back(
            fmt::format("the OpenMP loop at line {} inside it: {}", tu_.line(at), reason));
      } else if (!seq_.empty() && llvm::isa<clang::OMPLoopDirective>(root) &&
                 mentions(root, seq_.back().var)) {
        // an OpenMP loop launched once per iteration, but refused for its own
        // reason: the outer loop's warning names it (nothing dropped silently)
        seq_.back().refusedUses.push_back(
            fmt::format("the nest at line {}, launched once per iteration of '{}': {}",
                        tu_.line(at), seq_.back().var->getName().str(), reason));
      }
      SequentialLoop me;
      if (f) {
        std::string why;
        auto hdr = parseLoopHeader(f, tu_.ast, why);
        host_.flushHost(); // host code before the loop runs once, not in each pass
        size_t firstStep = host_.stepCount();
        if (hdr) {
          enclosing_.push_back(hdr->var);
          seq_.push_back(sequentialLoop(f, *hdr));
          Snapshot before = snapshot();
          walk(f->getBody());
          if (seq_.back().used && repeatSince(kernels)) {
            // kernels that use the index beside an inner loop's repeat: a
            // repeat cannot hold a repeat, so the index is not visible
            restore(before);
            seq_.back().lo.reset();
            seq_.back().whyNotIndexed =
                "a loop inside it launches kernels once per pass of its own, and a 'repeat' "
                "cannot hold a 'repeat'";
            walk(f->getBody());
          }
          me = seq_.back();
          seq_.pop_back();
          enclosing_.pop_back();
        } else {
          OmpNotes notes{seq_.size(), {}};
          OmpNotes *saved = ompNotes_;
          ompNotes_ = &notes;
          walk(f->getBody());
          ompNotes_ = saved;
          me.refusedUses = std::move(notes.notes);
        }
        if (out_.kernels.size() > kernels) {
          host_.flushHost(); // the body's host code after its last kernel
          wrapInRepeat(f, hdr, kernels, firstStep, me.used ? &me : nullptr);
        } else {
          host_.noteHost(f); // a loop of host code, header and all
        }
      }
      if (out_.kernels.size() > kernels && llvm::isa<clang::OMPLoopDirective>(root)) {
        // the user's parallel loop became a sequential one around kernels:
        // say why (a race the directive hides, most often)
        out_.warnings.push_back(tu_.warning(
            at, fmt::format("the OpenMP loop is not the parallel one: {}; the loops inside it "
                            "are ported, launched once per iteration",
                            reason)));
      }
      if (out_.kernels.size() == kernels) {
        out_.warnings.resize(warns);
        for (const std::string &note : me.refusedUses)
          reason += "; " + note;
        out_.warnings.push_back(tu_.warning(at, "cannot port this loop: " + reason));
      }
    }
  }

  TUContext &tu_;
  FileAssembler &out_;
  const clang::FunctionDecl *fn_;
  FunctionFacts facts_;
  CalleeChecker callees_;
  std::vector<const clang::VarDecl *> enclosing_;
  std::vector<SequentialLoop> seq_; ///< the sequential loops around the walk, outermost first
  /// The reasons of the OpenMP loops refused inside a refused loop whose
  /// header is not one of a sequential loop (`depth`: seq_'s size there).
  struct OmpNotes {
    size_t depth = 0;
    std::vector<std::string> notes;
  };
  OmpNotes *ompNotes_ = nullptr; ///< the innermost such loop's, if any
  int count_ = 0;
  HostProgram host_;
};

} // namespace

void processFunction(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn) {
  NestFinder(tu, out, fn).run();
}

} // namespace skelcast::frontend
