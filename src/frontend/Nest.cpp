// Finding the nests of a function, scanning them, the dependence test, the
// collapse into a loop space and the shapes of the arrays (Nest.h says what
// each part is for; docs/skeletonizer.md states the rules).
#include "Nest.h"
#include "ClangNodes.h"
#include "skelcast/skeleton/Parser.h"

#include "CostModel.h"
#include "HostData.h"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/OpenMPKinds.h>
#include <llvm/Frontend/OpenMP/OMP.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

// ---------------------------------------------------------------------------
// Small helpers on Clang nodes

bool isScalarType(clang::QualType t) {
  t = t.getCanonicalType();
  return t->isArithmeticType() && !t->isAnyComplexType();
}

bool isArrayLike(const clang::VarDecl *v) {
  clang::QualType t = v->getType().getCanonicalType();
  return t->isArrayType() || t->isPointerType();
}

/// The loop directives whose iterations the programmer declared independent:
/// work-sharing (`for`, `parallel for`, with `simd`), `distribute` (`target
/// teams distribute parallel for`) and `taskloop`; `simd` alone only vectorises.
bool isTrustedDirective(llvm::omp::Directive k) {
  return clang::isOpenMPLoopDirective(k) &&
         (clang::isOpenMPWorksharingDirective(k) || clang::isOpenMPDistributeDirective(k) ||
          clang::isOpenMPTaskLoopDirective(k));
}

std::string directiveName(llvm::omp::Directive k) {
  return llvm::omp::getOpenMPDirectiveName(k).str();
}

// ---------------------------------------------------------------------------
// Facts about the whole function

class FactsCollector : public clang::RecursiveASTVisitor<FactsCollector> {
public:
  explicit FactsCollector(FunctionFacts &f) : f_(f) {}
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (b->isAssignmentOp())
      if (auto *v = refVar(b->getLHS()))
        ++f_.assignments[v];
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (u->isIncrementDecrementOp())
      if (auto *v = refVar(u->getSubExpr()))
        ++f_.assignments[v];
    if (u->getOpcode() == clang::UO_AddrOf)
      if (auto *v = refVar(u->getSubExpr()))
        f_.addressTaken.insert(v);
    return true;
  }

private:
  FunctionFacts &f_;
};

// ---------------------------------------------------------------------------
// Callees: math functions from the table, or small pure functions of the file

class CalleeChecker {
public:
  explicit CalleeChecker(TUContext &tu) : tu_(tu) {}

  /// Empty if calls to `fd` can be counted, else the reason they cannot.
  std::string check(const clang::FunctionDecl *fd) {
    std::string name = fd->getNameAsString();
    if (mathCallCost(name))
      return {};
    const clang::FunctionDecl *def = nullptr;
    if (!fd->hasBody(def) || !def)
      return fmt::format("call to '{}', whose body is not visible", name);
    auto it = cache_.find(def);
    if (it != cache_.end())
      return it->second;
    if (busy_.count(def))
      return fmt::format("call to '{}', which is recursive", name);
    busy_.insert(def);
    std::string why;
    if (!tu_.sm.isInMainFile(tu_.sm.getExpansionLoc(def->getLocation())))
      why = fmt::format("call to '{}', whose body is not in this file", name);
    else if (!isScalarType(def->getReturnType()))
      why = fmt::format("call to '{}', which does not return a number", name);
    for (const clang::ParmVarDecl *p : def->parameters())
      if (why.empty() && !isScalarType(p->getType()))
        why = fmt::format("call to '{}', which takes a pointer or an aggregate ('{}')", name,
                          p->getName().str());
    if (why.empty())
      why = pureStmt(def->getBody(), def, name);
    busy_.erase(def);
    cache_[def] = why;
    return why;
  }

private:
  std::string pureStmt(const clang::Stmt *s, const clang::FunctionDecl *def,
                       const std::string &name) {
    if (!s)
      return {};
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
        llvm::isa<clang::DoStmt>(s))
      return fmt::format("call to '{}', which contains a loop", name);
    if (llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::SwitchStmt>(s))
      return fmt::format("call to '{}', whose control flow is not an 'if'", name);
    if (llvm::isa<clang::ArraySubscriptExpr>(s) || llvm::isa<clang::MemberExpr>(s))
      return fmt::format("call to '{}', which accesses memory", name);
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (u->getOpcode() == clang::UO_Deref || u->getOpcode() == clang::UO_AddrOf)
        return fmt::format("call to '{}', which accesses memory", name);
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
        if (v->hasGlobalStorage() && !v->getType().isConstQualified())
          return fmt::format("call to '{}', which uses the global variable '{}'", name,
                             v->getName().str());
        if (!isScalarType(v->getType()))
          return fmt::format("call to '{}', which accesses memory", name);
      }
    }
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d))
          if (!isScalarType(v->getType()) || v->isStaticLocal())
            return fmt::format("call to '{}', which declares '{}'", name, v->getName().str());
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(s)) {
      const clang::FunctionDecl *callee = c->getDirectCallee();
      if (!callee)
        return fmt::format("call through a pointer in '{}'", name);
      std::string inner = check(callee);
      if (!inner.empty())
        return inner;
    }
    for (const clang::Stmt *ch : s->children()) {
      std::string r = pureStmt(ch, def, name);
      if (!r.empty())
        return r;
    }
    return {};
  }

  TUContext &tu_;
  std::map<const clang::FunctionDecl *, std::string> cache_;
  std::set<const clang::FunctionDecl *> busy_;
};

// ---------------------------------------------------------------------------
// Scanning a nest: what is inside, and what cannot be ported

class Scanner {
public:
  Scanner(TUContext &tu, NestScan &out, CalleeChecker &callees)
      : tu_(tu), out_(out), callees_(callees) {}

  void loop(const clang::ForStmt *f, const clang::ForStmt *parent) {
    std::string why;
    auto hdr = parseLoopHeader(f, tu_.ast, why);
    if (!hdr)
      throw Unsupported{f->getBeginLoc(), fmt::format("the header of this 'for' is not canonical: {}", why)};
    out_.parent[f] = parent;
    out_.headers[f] = *hdr;
    if (llvm::isa_and_nonnull<clang::DeclStmt>(f->getInit()))
      out_.localDecls[hdr->var] = f;
    expr(hdr->init, f, Use::Read);
    expr(hdr->bound, f, Use::Read);
    if (hdr->stepExpr)
      expr(hdr->stepExpr, f, Use::Read);
    collectIndexScalars(hdr->init);
    collectIndexScalars(hdr->bound);
    if (hdr->stepExpr)
      collectIndexScalars(hdr->stepExpr);
    ScalarWrite w;
    w.var = hdr->var;
    w.value = hdr->init;
    w.loop = f;
    out_.scalarWrites.push_back(w);
    stmt(f->getBody(), f);
  }

  void stmt(const clang::Stmt *s, const clang::ForStmt *loop) {
    if (!s)
      return;
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt *c : cs->body())
        stmt(c, loop);
      return;
    }
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl *d : ds->decls())
        decl(d, loop);
      return;
    }
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      this->loop(f, loop);
      return;
    }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      expr(is->getCond(), loop, Use::Read);
      stmt(is->getThen(), loop);
      stmt(is->getElse(), loop);
      return;
    }
    if (llvm::isa<clang::NullStmt>(s))
      return;
    if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
      stmt(as->getSubStmt(), loop);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      auto k = d->getDirectiveKind();
      if (llvm::isa<clang::OMPLoopDirective>(d)) {
        if (auto *f = asFor(d)) {
          this->loop(f, loop);
          return;
        }
      }
      throw Unsupported{s->getBeginLoc(), directiveReason(k)};
    }
    if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
      expr(e, loop, Use::Read);
      return;
    }
    throw Unsupported{s->getBeginLoc(), statementReason(s)};
  }

  /// Why an OpenMP construct other than a loop directive cannot be inside a
  /// nest: the skeleton has no synchronisation, no single thread, no tasks.
  static std::string directiveReason(llvm::omp::Directive k) {
    std::string what;
    switch (k) {
    case llvm::omp::OMPD_critical:
    case llvm::omp::OMPD_atomic:
    case llvm::omp::OMPD_barrier:
    case llvm::omp::OMPD_flush:
    case llvm::omp::OMPD_ordered:
    case llvm::omp::OMPD_taskwait:
    case llvm::omp::OMPD_taskgroup:
    case llvm::omp::OMPD_scan: what = "synchronises threads"; break;
    case llvm::omp::OMPD_master:
    case llvm::omp::OMPD_masked:
    case llvm::omp::OMPD_single: what = "runs on one thread only"; break;
    case llvm::omp::OMPD_task:
    case llvm::omp::OMPD_taskyield: what = "creates a task"; break;
    case llvm::omp::OMPD_sections:
    case llvm::omp::OMPD_section: what = "splits the work into sections"; break;
    default: what = "inside the loop"; break;
    }
    return fmt::format("'#pragma omp {}' {}", directiveName(k), what);
  }

  static std::string statementReason(const clang::Stmt *s) {
    if (llvm::isa<clang::WhileStmt>(s))
      return "a 'while' loop";
    if (llvm::isa<clang::DoStmt>(s))
      return "a 'do' loop";
    if (llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::IndirectGotoStmt>(s))
      return "a 'goto'";
    if (llvm::isa<clang::LabelStmt>(s))
      return "a label";
    if (llvm::isa<clang::BreakStmt>(s))
      return "a 'break' leaves the loop early";
    if (llvm::isa<clang::ContinueStmt>(s))
      return "a 'continue'";
    if (llvm::isa<clang::ReturnStmt>(s))
      return "a 'return' inside the loop";
    if (llvm::isa<clang::SwitchStmt>(s))
      return "a 'switch'";
    return fmt::format("a statement of kind '{}'", s->getStmtClassName());
  }

private:
  enum class Use { Read, Write, ReadWrite };

  void decl(const clang::Decl *d, const clang::ForStmt *loop) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v)
      return;
    if (v->isStaticLocal() || v->hasExternalStorage())
      throw Unsupported{v->getLocation(),
                        fmt::format("the static variable '{}' inside the loop", v->getName().str())};
    clang::QualType t = v->getType().getCanonicalType();
    if (llvm::isa<clang::ConstantArrayType>(t.getTypePtr())) {
      clang::QualType el = t;
      while (auto *at = llvm::dyn_cast<clang::ConstantArrayType>(el.getTypePtr()))
        el = at->getElementType().getCanonicalType();
      if (!isScalarType(el))
        throw Unsupported{v->getLocation(),
                          fmt::format("the local array '{}' of type '{}'", v->getName().str(),
                                      v->getType().getAsString())};
      out_.registerArrays.insert(v);
      out_.localDecls[v] = loop;
      if (v->getInit())
        expr(v->getInit(), loop, Use::Read);
      return;
    }
    if (t->isPointerType())
      throw Unsupported{v->getLocation(),
                        fmt::format("the pointer variable '{}' declared inside the loop",
                                    v->getName().str())};
    if (!isScalarType(t))
      throw Unsupported{v->getLocation(),
                        fmt::format("the variable '{}' of type '{}'", v->getName().str(),
                                    v->getType().getAsString())};
    out_.localDecls[v] = loop;
    if (v->getInit()) {
      expr(v->getInit(), loop, Use::Read);
      ScalarWrite w;
      w.var = v;
      w.value = v->getInit();
      w.loop = loop;
      out_.scalarWrites.push_back(w);
    }
  }

  void collectIndexScalars(const clang::Expr *e) {
    std::set<const clang::VarDecl *> vs;
    collectVars(e, vs);
    for (auto *v : vs)
      if (!isArrayLike(v))
        out_.indexScalars.insert(v);
  }

  /// `v op= e` or `v = v op e` (op + - *) with e free of v.
  static bool isReductionForm(const clang::Expr *site, const clang::VarDecl *v) {
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(site)) {
      auto op = ca->getOpcode();
      return (op == clang::BO_AddAssign || op == clang::BO_SubAssign ||
              op == clang::BO_MulAssign) &&
             !mentions(ca->getRHS(), v);
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(site))
      return u->isIncrementDecrementOp();
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(site)) {
      auto *rhs = llvm::dyn_cast<clang::BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
      if (!rhs)
        return false;
      auto op = rhs->getOpcode();
      if (op != clang::BO_Add && op != clang::BO_Sub && op != clang::BO_Mul)
        return false;
      if (refVar(rhs->getLHS()) == v)
        return !mentions(rhs->getRHS(), v);
      if (op != clang::BO_Sub && refVar(rhs->getRHS()) == v)
        return !mentions(rhs->getLHS(), v);
    }
    return false;
  }

  void scalarWrite(const clang::VarDecl *v, const clang::Expr *site, const clang::Expr *value,
                   const clang::ForStmt *loop) {
    if (!isScalarType(v->getType()))
      throw Unsupported{site->getBeginLoc(),
                        fmt::format("an assignment to '{}' of type '{}'", v->getName().str(),
                                    v->getType().getAsString())};
    ScalarWrite w;
    w.var = v;
    w.site = site;
    w.value = value;
    w.reductionForm = isReductionForm(site, v);
    w.loop = loop;
    out_.scalarWrites.push_back(w);
  }

  void access(const clang::ArraySubscriptExpr *a, const clang::ForStmt *loop, Use use) {
    AccessRec r;
    r.expr = a;
    r.loop = loop;
    r.read = use != Use::Write;
    r.write = use != Use::Read;
    if (a->getType()->isArrayType())
      throw Unsupported{a->getBeginLoc(), fmt::format("the row '{}' is used as a pointer",
                                                      tu_.sourceText(a->getSourceRange()))};
    if (!isScalarType(a->getType()))
      throw Unsupported{a->getBeginLoc(),
                        fmt::format("an element of type '{}'", a->getType().getAsString())};
    const clang::Expr *cur = a;
    std::vector<const clang::Expr *> subs;
    while (true) {
      auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(cur);
      if (!as)
        break;
      subs.push_back(as->getIdx());
      const clang::Expr *base = as->getBase()->IgnoreParens();
      auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(base);
      if (ic && ic->getCastKind() == clang::CK_ArrayToPointerDecay) {
        cur = ic->getSubExpr()->IgnoreParens();
        continue;
      }
      if (ic && ic->getCastKind() == clang::CK_LValueToRValue) {
        const clang::Expr *inner = ic->getSubExpr()->IgnoreParens();
        if (llvm::isa<clang::ArraySubscriptExpr>(inner))
          throw Unsupported{a->getBeginLoc(),
                            fmt::format("'{}' is an array of pointers",
                                        tu_.sourceText(inner->getSourceRange()))};
        cur = inner;
        continue;
      }
      cur = base;
    }
    auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(cur);
    auto *v = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
    if (!v)
      throw Unsupported{a->getBeginLoc(),
                        fmt::format("the subscripted expression '{}' is not an array or a pointer "
                                    "variable",
                                    tu_.sourceText(cur->getSourceRange()))};
    std::reverse(subs.begin(), subs.end());
    r.base = v;
    r.subs = subs;
    for (const clang::Expr *s : subs) {
      expr(s, loop, Use::Read);
      collectIndexScalars(s);
    }
    out_.accesses.push_back(r);
  }

  void expr(const clang::Expr *e, const clang::ForStmt *loop, Use use) {
    if (!e)
      return;
    e = e->IgnoreParens();
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      access(a, loop, use);
      return;
    }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
        if (isArrayLike(v))
          throw Unsupported{e->getBeginLoc(),
                            fmt::format("'{}' is used other than through a subscript",
                                        v->getName().str())};
        if (!isScalarType(v->getType()))
          throw Unsupported{e->getBeginLoc(),
                            fmt::format("the variable '{}' of type '{}'", v->getName().str(),
                                        v->getType().getAsString())};
      }
      return;
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      if (b->isAssignmentOp()) {
        bool compound = b->isCompoundAssignmentOp();
        expr(b->getRHS(), loop, Use::Read);
        const clang::Expr *lhs = b->getLHS()->IgnoreParens();
        if (auto *v = refVar(lhs)) {
          if (isArrayLike(v))
            throw Unsupported{e->getBeginLoc(),
                              fmt::format("the pointer '{}' is assigned inside the loop",
                                          v->getName().str())};
          scalarWrite(v, b, compound ? nullptr : b->getRHS(), loop);
          return;
        }
        if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
          access(a, loop, compound ? Use::ReadWrite : Use::Write);
          return;
        }
        throw Unsupported{e->getBeginLoc(),
                          fmt::format("an assignment to '{}'", tu_.sourceText(lhs->getSourceRange()))};
      }
      expr(b->getLHS(), loop, Use::Read);
      expr(b->getRHS(), loop, Use::Read);
      return;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      switch (u->getOpcode()) {
      case clang::UO_AddrOf:
        throw Unsupported{e->getBeginLoc(),
                          fmt::format("the address '{}' is taken",
                                      tu_.sourceText(e->getSourceRange()))};
      case clang::UO_Deref:
        throw Unsupported{e->getBeginLoc(),
                          fmt::format("the pointer dereference '{}'",
                                      tu_.sourceText(e->getSourceRange()))};
      default: break;
      }
      if (u->isIncrementDecrementOp()) {
        const clang::Expr *sub = u->getSubExpr()->IgnoreParens();
        if (auto *v = refVar(sub)) {
          if (isArrayLike(v))
            throw Unsupported{e->getBeginLoc(),
                              fmt::format("pointer arithmetic on '{}'", v->getName().str())};
          scalarWrite(v, u, nullptr, loop);
          return;
        }
        if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(sub)) {
          access(a, loop, Use::ReadWrite);
          return;
        }
      }
      expr(u->getSubExpr(), loop, Use::Read);
      return;
    }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(e)) {
      const clang::FunctionDecl *fd = c->getDirectCallee();
      if (!fd)
        throw Unsupported{e->getBeginLoc(), "a call through a function pointer"};
      std::string why = callees_.check(fd);
      if (!why.empty())
        throw Unsupported{e->getBeginLoc(), why};
      for (const clang::Expr *a : c->arguments())
        expr(a, loop, Use::Read);
      return;
    }
    if (llvm::isa<clang::MemberExpr>(e))
      throw Unsupported{e->getBeginLoc(), fmt::format("the member access '{}'",
                                                      tu_.sourceText(e->getSourceRange()))};
    if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e) || llvm::isa<clang::IntegerLiteral>(e) ||
        llvm::isa<clang::FloatingLiteral>(e) || llvm::isa<clang::CharacterLiteral>(e))
      return;
    if (llvm::isa<clang::ImplicitCastExpr>(e) || llvm::isa<clang::CStyleCastExpr>(e) ||
        llvm::isa<clang::ConditionalOperator>(e) || llvm::isa<clang::ConstantExpr>(e) ||
        llvm::isa<clang::InitListExpr>(e) || llvm::isa<clang::ImplicitValueInitExpr>(e)) {
      if (auto *ce = llvm::dyn_cast<clang::CastExpr>(e)) {
        if (ce->getType()->isAnyComplexType() || ce->getSubExpr()->getType()->isAnyComplexType())
          throw Unsupported{e->getBeginLoc(), "complex arithmetic"};
      }
      for (const clang::Stmt *ch : e->children())
        expr(llvm::cast<clang::Expr>(ch), loop, Use::Read);
      return;
    }
    throw Unsupported{e->getBeginLoc(),
                      fmt::format("the expression '{}'", tu_.sourceText(e->getSourceRange()))};
  }

  TUContext &tu_;
  NestScan &out_;
  CalleeChecker &callees_;
};

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

/// Is `e` inside a branch (an `if`'s arms, a `?:`'s arms) below loop `loop`?
/// Such an access may be kept in bounds by its condition (HotSpot's edges).
bool underBranch(clang::ASTContext &ast, const clang::Stmt *e, const clang::Stmt *loop) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*e);
  for (int guard = 0; guard < 200; ++guard) {
    auto parents = ast.getParents(node);
    if (parents.empty())
      return false;
    const clang::DynTypedNode &p = parents[0];
    const clang::Stmt *cur = node.get<clang::Stmt>();
    if (p.get<clang::Stmt>() == loop || p.get<clang::FunctionDecl>())
      return false;
    if (auto *i = p.get<clang::IfStmt>(); i && cur != i->getCond())
      return true;
    if (auto *c = p.get<clang::ConditionalOperator>(); c && cur != c->getCond())
      return true;
    if (auto *b = p.get<clang::BinaryOperator>(); b && b->isLogicalOp() && cur == b->getRHS())
      return true; // `i + 1 < N && x[i + 1] > 0`
    if (p.get<clang::SwitchCase>())
      return true;
    node = p;
  }
  return false;
}

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

} // namespace

// ---------------------------------------------------------------------------
// NestScan helpers

bool NestScan::inside(const clang::ForStmt *inner, const clang::ForStmt *outer) const {
  for (const clang::ForStmt *f = inner; f; ) {
    if (f == outer)
      return true;
    auto it = parent.find(f);
    if (it == parent.end())
      return false;
    f = it->second;
  }
  return false;
}

// ---------------------------------------------------------------------------
// NestAnalysis: values, affine forms, ranges, delinearisation

std::optional<std::pair<int64_t, Expr>> NestAnalysis::knownScalar(const clang::VarDecl *v) {
  if (!v || !v->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  if (plan.loops.count(v))
    return std::nullopt;
  std::string name = v->getName().str();
  if (auto o = tu.scalarOption(name))
    return std::make_pair(*o, tu.useScalarOption(name));
  const clang::Expr *init = v->getInit();
  if (!init)
    return std::nullopt;
  auto fa = facts.assignments.find(v);
  bool neverAssigned = fa == facts.assignments.end() || fa->second == 0;
  bool isConst = v->getType().isConstQualified();
  if (v->hasGlobalStorage() && !isConst && !(v->getStorageClass() == clang::SC_Static))
    return std::nullopt; // another file may change it
  if (!neverAssigned || facts.addressTaken.count(v))
    return std::nullopt;
  auto value = tu.constantValue(init);
  if (!value)
    return std::nullopt;
  if (v->hasGlobalStorage() && tu.useMacro(name, *value, v->getLocation(),
                                           fmt::format("// const '{}' in {}", name, tu.fileName)))
    return std::make_pair(*value, Expr::ref(name));
  auto form = tu.constantExpr(init);
  return std::make_pair(*value, form ? *form : Expr::lit(*value));
}

std::optional<int64_t> NestAnalysis::knownValue(const clang::Expr *e) {
  if (auto c = tu.constantValue(e))
    return c;
  return evalInt(e, tu.ast, [&](const clang::ValueDecl *d) -> std::optional<int64_t> {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (auto k = knownScalar(v))
      return k->first;
    return std::nullopt;
  });
}

std::string NestAnalysis::noValueReason(const clang::VarDecl *v) const {
  std::string name = v->getName().str();
  for (const clang::VarDecl *e : enclosing)
    if (e == v)
      return fmt::format("it uses '{}', the index of an enclosing loop that is not ported", name);
  return fmt::format("'{}' has no value known at compile time (give it with --extent {}=VALUE)",
                     name, name);
}

Affine NestAnalysis::affine(const clang::Expr *e) {
  AffineLookup lookup = [&](const clang::ValueDecl *d) -> std::optional<Affine> {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v)
      return std::nullopt;
    if (plan.loops.count(v))
      return Affine::variable(v);
    if (auto k = knownScalar(v))
      return Affine::constantOf(k->first);
    // defined inside the nest: substitute a single affine definition
    std::vector<const ScalarWrite *> defs;
    for (const auto &w : scan.scalarWrites)
      if (w.var == v)
        defs.push_back(&w);
    if (defs.empty()) {
      if (!v->getType()->isIntegralOrEnumerationType())
        return std::nullopt;
      return Affine::variable(v); // invariant in the nest
    }
    if (defs.size() != 1 || !defs[0]->value || substBusy_.count(v))
      return std::nullopt;
    substBusy_.insert(v);
    Affine a = affine(defs[0]->value);
    substBusy_.erase(v);
    if (!a.valid)
      return std::nullopt;
    return a;
  };
  return toAffine(e, tu.ast, lookup);
}

std::optional<Interval> NestAnalysis::varRange(const clang::ValueDecl *d) {
  auto *v = llvm::dyn_cast<clang::VarDecl>(d);
  auto it = plan.loops.find(v);
  if (it == plan.loops.end())
    return std::nullopt;
  auto c = rangeCache_.find(d);
  if (c != rangeCache_.end())
    return c->second;
  if (rangeBusy_.count(d))
    return std::nullopt;
  rangeBusy_.insert(d);
  const LoopHeader &h = it->second.hdr;
  std::optional<Interval> r;
  auto a = range(affine(h.init));
  auto b = range(affine(h.bound));
  if (a && b) {
    if (!h.decreasing)
      r = Interval{a->lo, h.inclusive ? b->hi : b->hi - 1};
    else
      r = Interval{h.inclusive ? b->lo : b->lo + 1, a->hi};
    if (r->hi < r->lo)
      r = Interval{r->lo, r->lo};
  }
  rangeBusy_.erase(d);
  rangeCache_[d] = r;
  return r;
}

std::optional<Interval> NestAnalysis::range(const Affine &a) {
  return rangeOf(a, [&](const AffVar &v) { return varRange(v.decl); });
}

namespace {

/// a = sum(coef * factor) + constant over `+ - *`-by-constant, `<<` and unary minus.
struct Flattener {
  NestAnalysis &na;
  std::vector<std::pair<int64_t, const clang::Expr *>> terms;
  std::vector<int64_t> constants; ///< kept apart: `(i + 1)*C + j - 1` has C and -1
  bool ok = true;

  void add(const clang::Expr *e, int64_t k) {
    if (!ok)
      return;
    if (auto c = na.knownValue(e)) {
      int64_t t;
      if (__builtin_mul_overflow(*c, k, &t))
        ok = false;
      else if (t != 0)
        constants.push_back(t);
      return;
    }
    const clang::Expr *s = e->IgnoreParens();
    if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(s))
      if (ic->getCastKind() == clang::CK_IntegralCast || ic->getCastKind() == clang::CK_NoOp) {
        add(ic->getSubExpr(), k);
        return;
      }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
      switch (b->getOpcode()) {
      case clang::BO_Add:
        add(b->getLHS(), k);
        add(b->getRHS(), k);
        return;
      case clang::BO_Sub:
        add(b->getLHS(), k);
        add(b->getRHS(), -k);
        return;
      case clang::BO_Mul: {
        int64_t t;
        if (auto c = na.knownValue(b->getRHS())) {
          if (__builtin_mul_overflow(*c, k, &t)) {
            ok = false;
            return;
          }
          add(b->getLHS(), t);
          return;
        }
        if (auto c = na.knownValue(b->getLHS())) {
          if (__builtin_mul_overflow(*c, k, &t)) {
            ok = false;
            return;
          }
          add(b->getRHS(), t);
          return;
        }
        break;
      }
      case clang::BO_Shl:
        if (auto c = na.knownValue(b->getRHS()))
          if (*c >= 0 && *c < 40) {
            add(b->getLHS(), k * (int64_t(1) << *c));
            return;
          }
        break;
      default: break;
      }
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (u->getOpcode() == clang::UO_Minus) {
        add(u->getSubExpr(), -k);
        return;
      }
    if (k != 0)
      terms.emplace_back(k, s);
  }
};

} // namespace

std::optional<std::vector<DimForm>> NestAnalysis::split(const AccessRec &a,
                                                        const ArrayShape &shape) {
  std::vector<DimForm> dims;
  if (shape.strides.empty()) {
    if (a.subs.size() != shape.extents.size())
      return std::nullopt;
    for (const clang::Expr *s : a.subs) {
      DimForm d;
      d.direct = s;
      dims.push_back(d);
    }
    return dims;
  }
  // one C subscript (or the last one, after leading ones that map directly)
  size_t lead = a.subs.size() - 1;
  size_t nsplit = shape.strides.size();
  if (lead + nsplit != shape.extents.size())
    return std::nullopt;
  for (size_t i = 0; i < lead; ++i) {
    DimForm d;
    d.direct = a.subs[i];
    dims.push_back(d);
  }
  Flattener fl{*this, {}, {}, true};
  fl.add(a.subs.back(), 1);
  if (!fl.ok)
    return std::nullopt;
  std::vector<DimForm> parts(nsplit);
  for (const auto &[coef, factor] : fl.terms) {
    size_t d = 0;
    while (d < nsplit && coef % shape.strides[d] != 0)
      ++d;
    if (d == nsplit)
      return std::nullopt; // the last stride is 1: cannot happen
    parts[d].terms.emplace_back(coef / shape.strides[d], factor);
  }
  for (int64_t c : fl.constants) {
    // a multiple of a stride belongs to that dimension; the rest spreads
    // from the largest stride down
    for (size_t d = 0; d < nsplit; ++d) {
      int64_t q = c / shape.strides[d];
      parts[d].constant += q;
      c -= q * shape.strides[d];
    }
  }
  for (auto &p : parts)
    dims.push_back(std::move(p));
  return dims;
}

Affine NestAnalysis::dimAffine(const DimForm &d) {
  if (d.direct)
    return affine(d.direct);
  Affine r = Affine::constantOf(d.constant);
  for (const auto &[coef, factor] : d.terms)
    r = affineAdd(r, affineScale(affine(factor), coef));
  return r;
}

// ---------------------------------------------------------------------------
// FileAssembler

std::string FileAssembler::declareArray(const ArrayShape &s) {
  skeleton::Array a;
  a.type = s.type;
  a.extents = s.extents;
  std::string base = s.decl->getName().str();
  if (skeleton::isKeyword(base))
    base += "_";
  // the same declaration with the same shape: reuse it; one that differs only
  // in its first extent (a nest reaching further rows) is the same memory: the
  // declaration takes the larger extent, which changes no address
  for (size_t idx : byDecl_[s.decl]) {
    skeleton::Array &old = arrays[idx];
    if (old.type == a.type && old.extents == a.extents)
      return old.name;
    if (old.type == a.type && old.extents.size() == a.extents.size() && !s.values.empty() &&
        std::equal(old.extents.begin() + 1, old.extents.end(), a.extents.begin() + 1)) {
      if (s.values[0] > firstExtent_[idx]) {
        widenings_.push_back({idx, old.extents[0], firstExtent_[idx]});
        old.extents[0] = a.extents[0];
        firstExtent_[idx] = s.values[0];
      }
      return old.name;
    }
  }
  std::string name = base;
  for (int k = 2; byName_.count(name) || tu_.macros.count(name); ++k)
    name = fmt::format("{}_{}", base, k);
  a.name = name;
  if (!s.origin.empty())
    a.comments.trailing = s.origin;
  auto sm = tu_.opts.samples.find(s.decl->getName().str());
  if (sm != tu_.opts.samples.end()) {
    a.sampleFile = sm->second; // made relative to the C file by the driver
    tu_.usedSamples.insert(sm->first);
  }
  byName_[name] = arrays.size();
  byDecl_[s.decl].push_back(arrays.size());
  decls_.push_back(s.decl);
  firstExtent_.push_back(s.values.empty() ? 0 : s.values[0]);
  arrays.push_back(std::move(a));
  return name;
}

std::vector<skeleton::Array> FileAssembler::arraysInSourceOrder() const {
  std::vector<size_t> idx(arrays.size());
  for (size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (decls_[a] == decls_[b])
      return false;
    return tu_.sm.isBeforeInTranslationUnit(decls_[a]->getLocation(), decls_[b]->getLocation());
  });
  std::vector<skeleton::Array> out;
  for (size_t i : idx)
    out.push_back(arrays[i]);
  return out;
}

const clang::VarDecl *FileAssembler::declOf(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : decls_[it->second];
}

std::vector<std::string> FileAssembler::namesOf(const clang::VarDecl *d) const {
  std::vector<std::string> out;
  auto it = byDecl_.find(d);
  if (it != byDecl_.end())
    for (size_t i : it->second)
      out.push_back(arrays[i].name);
  return out;
}

void FileAssembler::rollback(Mark mark) {
  while (widenings_.size() > mark.widenings) {
    const Widening &w = widenings_.back();
    arrays[w.index].extents[0] = w.extent;
    firstExtent_[w.index] = w.value;
    widenings_.pop_back();
  }
  while (arrays.size() > mark.arrays) {
    size_t idx = arrays.size() - 1;
    byName_.erase(arrays[idx].name);
    auto &v = byDecl_[decls_[idx]];
    v.erase(std::remove(v.begin(), v.end(), idx), v.end());
    arrays.pop_back();
    decls_.pop_back();
    firstExtent_.pop_back();
  }
}

// ---------------------------------------------------------------------------
// The analysis of one candidate nest

namespace {

std::optional<skeleton::ElemType> elemTypeOf(clang::QualType t, const clang::ASTContext &ctx) {
  t = t.getCanonicalType();
  if (t->isBooleanType())
    return skeleton::ElemType::Char;
  if (t->isRealFloatingType())
    return ctx.getTypeSize(t) > 32 ? skeleton::ElemType::Double : skeleton::ElemType::Float;
  if (t->isIntegralOrEnumerationType()) {
    switch (ctx.getTypeSize(t)) {
    case 8: return skeleton::ElemType::Char;
    case 16: return skeleton::ElemType::Short;
    case 32: return skeleton::ElemType::Int;
    default: return skeleton::ElemType::Long;
    }
  }
  return std::nullopt;
}

/// Analyse one candidate loop (and the loops it can collapse) into a plan.
class PlanMaker {
public:
  PlanMaker(TUContext &tu, const FunctionFacts &facts, CalleeChecker &callees,
            const std::vector<const clang::VarDecl *> &enclosing)
      : tu_(tu), facts_(facts), callees_(callees), enclosing_(enclosing) {}

  /// Throws Unsupported when the nest cannot be ported.
  void make(const clang::Stmt *root, NestScan &scan, NestPlan &plan) {
    plan.root = root;
    const clang::ForStmt *outer = asFor(root);
    if (auto *d = llvm::dyn_cast<clang::OMPLoopDirective>(root))
      if (isTrustedDirective(d->getDirectiveKind())) {
        plan.omp = d;
        for (const auto *c : d->getClausesOfKind<clang::OMPReductionClause>())
          for (const clang::Expr *e : c->varlists())
            if (auto *v = refVar(e))
              plan.ompReductions.insert(v);
      }
    Scanner sc(tu_, scan, callees_);
    sc.loop(outer, nullptr);
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
    unsigned trusted = plan.omp ? std::max(1u, plan.omp->getLoopsNumber()) : 0;
    makeShapes(na, scan, plan);

    // the outermost loop
    std::string reason = dependence(na, scan, plan, outer, trusted >= 1);
    if (!reason.empty())
      throw Unsupported{outer->getBeginLoc(), reason};
    std::string why;
    if (!constantBounds(na, scan.headers.at(outer), why))
      throw Unsupported{outer->getBeginLoc(), why};
    plan.parallel.push_back(outer);
    plan.why = plan.omp ? fmt::format("OpenMP '{}'", directiveName(plan.omp->getDirectiveKind()))
                        : "the dependence test";

    // collapse inner loops
    const clang::ForStmt *cur = outer;
    while (plan.parallel.size() < 3) {
      std::vector<const clang::Stmt *> prefix;
      const clang::ForStmt *inner = singleInnerLoop(cur, scan, prefix);
      if (!inner)
        break;
      std::string w;
      if (!constantBounds(na, scan.headers.at(inner), w))
        break;
      bool trust = trusted >= plan.parallel.size() + 1;
      if (!trust && !dependence(na, scan, plan, inner, false).empty())
        break;
      for (const clang::Stmt *s : prefix)
        plan.body.push_back(s);
      plan.parallel.push_back(inner);
      cur = inner;
    }
    for (const clang::ForStmt *f : plan.parallel)
      plan.loops[scan.headers.at(f).var].parallel = true;
    const clang::Stmt *b = cur->getBody();
    if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b))
      for (const clang::Stmt *s : cs->body())
        plan.body.push_back(s);
    else if (b)
      plan.body.push_back(b);

    // shapes must be complete now
    for (auto &[v, s] : plan.shapes)
      if (!shapeErrors_[v].empty())
        throw Unsupported{shapeErrorLoc_[v], shapeErrors_[v]};
  }

private:
  /// Bounds that make a loop-space dimension: known constants.
  bool constantBounds(NestAnalysis &na, const LoopHeader &h, std::string &why) {
    for (const clang::Expr *e : {h.init, h.bound}) {
      if (na.knownValue(e))
        continue;
      std::set<const clang::VarDecl *> vs;
      collectVars(e, vs);
      for (const clang::VarDecl *v : vs) {
        if (na.plan.loops.count(v) || na.knownScalar(v))
          continue;
        why = fmt::format("the loop bound '{}' is not a known constant: {}",
                          tu_.sourceText(e->getSourceRange()), na.noValueReason(v));
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
    return true;
  }

  /// The only loop among the statements of `f`'s body, if the others can be
  /// repeated by every thread (no stores, no loops) and stand before it.
  const clang::ForStmt *singleInnerLoop(const clang::ForStmt *f, const NestScan &scan,
                                        std::vector<const clang::Stmt *> &prefix) {
    const clang::Stmt *b = f->getBody();
    std::vector<const clang::Stmt *> stmts;
    if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b))
      stmts.assign(cs->body_begin(), cs->body_end());
    else if (b)
      stmts.push_back(b);
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
      if (hasStoreOrLoop(s, scan))
        return nullptr;
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

  // -------------------------------------------------------------------------
  // The dependence test

  /// Empty if the iterations of `L` are independent, else why not.
  std::string dependence(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                         const clang::ForStmt *L, bool trusted) {
    if (trusted)
      return {};
    const clang::VarDecl *v = scan.headers.at(L).var;
    std::string r = scalarDependence(na, scan, L, v);
    if (!r.empty())
      return r;
    r = aliasing(scan, L);
    if (!r.empty())
      return r;
    return arrayDependence(na, scan, plan, L, v);
  }

  std::string scalarDependence(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *L,
                               const clang::VarDecl *v) {
    std::set<const clang::VarDecl *> checked;
    for (const ScalarWrite &w : scan.scalarWrites) {
      if (!scan.inside(w.loop, L) || w.var == v || checked.count(w.var))
        continue;
      // declared inside L: private to an iteration
      auto ld = scan.localDecls.find(w.var);
      if (ld != scan.localDecls.end() && scan.inside(ld->second, L))
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
        countUses(L->getBody(), w.var, sites, reads);
        if (reads <= sites)
          return fmt::format("'{}' is a reduction across the iterations (add '#pragma omp "
                             "parallel for reduction(+:{})' if it may run in parallel)",
                             name, name);
      }
      return fmt::format("'{}' carries a value from one iteration to the next", name);
    }
    return {};
  }

  /// References to v: `sites` counts the reduction updates, `reads` all reads
  /// (an update reads once).
  static void countUses(const clang::Stmt *s, const clang::VarDecl *v, int &sites, int &reads) {
    if (!s)
      return;
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(s))
      if (refVar(ca->getLHS()) == v) {
        ++sites;
        ++reads;
        countUses(ca->getRHS(), v, sites, reads);
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
        countUses(b->getRHS(), v, sites, reads);
        return;
      }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
      if (dr->getDecl() == v)
        ++reads;
    for (const clang::Stmt *c : s->children())
      countUses(c, v, sites, reads);
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

  std::string aliasing(const NestScan &scan, const clang::ForStmt *L) {
    std::vector<const clang::VarDecl *> written, all;
    for (const AccessRec &a : scan.accesses) {
      if (!scan.inside(a.loop, L) || scan.registerArrays.count(a.base))
        continue;
      if (std::find(all.begin(), all.end(), a.base) == all.end())
        all.push_back(a.base);
      if (a.write && std::find(written.begin(), written.end(), a.base) == written.end())
        written.push_back(a.base);
    }
    for (const clang::VarDecl *w : written)
      for (const clang::VarDecl *o : all)
        if (o != w && mayAlias(w, o, tu_.ast))
          return fmt::format("'{}' and '{}' may point to the same memory (declare the pointers "
                             "'restrict')",
                             w->getName().str(), o->getName().str());
    return {};
  }

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

  // -------------------------------------------------------------------------
  // Shapes of the arrays of the nest

  void makeShapes(NestAnalysis &na, const NestScan &scan, NestPlan &plan) {
    std::vector<const clang::VarDecl *> order;
    for (const AccessRec &a : scan.accesses)
      if (std::find(order.begin(), order.end(), a.base) == order.end())
        order.push_back(a.base);
    for (const clang::VarDecl *v : order) {
      ArrayShape s;
      s.decl = v;
      shapeErrorLoc_[v] = v->getLocation();
      for (const AccessRec &a : scan.accesses)
        if (a.base == v) {
          shapeErrorLoc_[v] = a.expr->getBeginLoc();
          break;
        }
      if (scan.registerArrays.count(v)) {
        s.isRegister = true;
        plan.shapes[v] = s;
        continue;
      }
      std::string err = shapeOf(na, scan, v, s);
      shapeErrors_[v] = err;
      plan.shapes[v] = s;
    }
  }

  /// Named constants of the nest by value: loop bounds and constant factors,
  /// to write inferred extents with the names the code uses.
  std::optional<Expr> namedValue(NestAnalysis &na, const NestScan &scan, int64_t value) {
    for (const auto &[f, h] : scan.headers) {
      for (const clang::Expr *e : {h.bound, h.init}) {
        auto k = na.knownValue(e);
        if (!k)
          continue;
        int64_t v = h.inclusive && e == h.bound ? *k + 1 : *k;
        if (v != value)
          continue;
        if (auto c = tu_.constantExpr(e)) {
          if (c->kind == Expr::Kind::Name && v == *k)
            return c;
        }
        if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
          if (auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
            if (auto ks = na.knownScalar(vd))
              if (ks->second.kind == Expr::Kind::Name && v == *k)
                return ks->second;
      }
    }
    return tu_.macroForValue(value);
  }

  std::string shapeOf(NestAnalysis &na, const NestScan &scan, const clang::VarDecl *v,
                      ArrayShape &s) {
    std::string name = v->getName().str();
    s.isRestrict = v->getType().isRestrictQualified();
    // the declared dimensions: from the written type (parameters keep their
    // array syntax there), leftmost first; 0 for unknown
    clang::QualType written = v->getType();
    if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v))
      written = pv->getOriginalType();
    std::vector<int64_t> dims;
    std::vector<std::optional<Expr>> dimExprs;
    clang::TypeLoc tl;
    if (v->getTypeSourceInfo())
      tl = v->getTypeSourceInfo()->getTypeLoc();
    clang::QualType cur = written;
    bool isPtr = false;
    while (true) {
      cur = cur.getCanonicalType();
      const clang::Type *ty = cur.getTypePtr();
      clang::ArrayTypeLoc atl;
      if (!tl.isNull()) {
        tl = tl.getUnqualifiedLoc();
        if (auto p = tl.getAs<clang::ParenTypeLoc>())
          tl = p.getInnerLoc();
        if (auto d = tl.getAs<clang::DecayedTypeLoc>())
          tl = d.getOriginalLoc();
        atl = tl.getAs<clang::ArrayTypeLoc>();
      }
      if (auto *ca = llvm::dyn_cast<clang::ConstantArrayType>(ty)) {
        dims.push_back(static_cast<int64_t>(ca->getSize().getZExtValue()));
        std::optional<Expr> e;
        if (atl && atl.getSizeExpr())
          e = tu_.constantExpr(atl.getSizeExpr());
        dimExprs.push_back(e);
        cur = ca->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *va = llvm::dyn_cast<clang::VariableArrayType>(ty)) {
        std::optional<Expr> e;
        int64_t value = 0;
        if (va->getSizeExpr()) {
          if (auto k = na.knownValue(va->getSizeExpr())) {
            value = *k;
            std::set<const clang::VarDecl *> vs;
            collectVars(va->getSizeExpr(), vs);
            if (vs.size() == 1)
              if (auto ks = na.knownScalar(*vs.begin()))
                if (ks->first == value)
                  e = ks->second;
          }
        }
        dims.push_back(value);
        dimExprs.push_back(e);
        cur = va->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *ia = llvm::dyn_cast<clang::IncompleteArrayType>(ty)) {
        dims.push_back(0);
        dimExprs.push_back(std::nullopt);
        cur = ia->getElementType();
        tl = atl ? atl.getElementLoc() : clang::TypeLoc();
        continue;
      }
      if (auto *pt = llvm::dyn_cast<clang::PointerType>(ty)) {
        if (!dims.empty() || isPtr)
          break; // an array of pointers, or a pointer to pointer
        isPtr = true;
        dims.push_back(0);
        dimExprs.push_back(std::nullopt);
        cur = pt->getPointeeType();
        tl = clang::TypeLoc();
        if (auto pl = v->getTypeSourceInfo() ? v->getTypeSourceInfo()->getTypeLoc()
                                                   .getUnqualifiedLoc()
                                                   .getAs<clang::PointerTypeLoc>()
                                             : clang::PointerTypeLoc())
          tl = pl.getPointeeLoc();
        continue;
      }
      break;
    }
    s.isPointer = isPtr;
    auto et = elemTypeOf(cur, tu_.ast);
    if (!et || cur->isPointerType())
      return fmt::format("the elements of '{}' are not numbers ('{}')", name,
                         cur.getAsString());
    s.type = *et;

    // accesses of this array, for the subscript count
    size_t nsubs = 0;
    for (const AccessRec &a : scan.accesses)
      if (a.base == v) {
        if (nsubs && a.subs.size() != nsubs)
          return fmt::format("'{}' is subscripted with different numbers of indices", name);
        nsubs = a.subs.size();
      }
    if (nsubs != dims.size())
      return fmt::format("'{}' has {} dimensions but is subscripted with {}", name, dims.size(),
                         nsubs);

    auto opt = tu_.opts.extents.find(name);
    if (opt != tu_.opts.extents.end() && !opt->second.empty()) {
      tu_.usedExtents.insert(name);
      const std::vector<int64_t> &given = opt->second;
      for (int64_t g : given)
        if (g <= 0)
          return fmt::format("--extent {}: extents must be positive", name);
      s.values = given;
      for (int64_t g : given) {
        auto ne = namedValue(na, scan, g);
        s.extents.push_back(ne ? *ne : Expr::lit(g));
      }
      s.origin = fmt::format("// --extent {}", name);
      if (given.size() == dims.size())
        return {};
      if (given.size() < dims.size())
        return fmt::format("--extent {} gives {} extents, the array has {} dimensions", name,
                           given.size(), dims.size());
      // split the last subscript over the extra dimensions
      size_t extra = given.size() - dims.size() + 1;
      s.strides.assign(extra, 1);
      for (size_t d = extra - 1; d-- > 0;)
        s.strides[d] = s.strides[d + 1] * given[dims.size() - 1 + d + 1];
      return {};
    }

    if (isPtr) {
      // infer strides from the constant factors of the subscripts
      std::set<int64_t> cands;
      for (const AccessRec &a : scan.accesses)
        if (a.base == v) {
          Flattener fl{na, {}, {}, true};
          fl.add(a.subs.back(), 1);
          for (const auto &[c, f] : fl.terms)
            if (c > 1)
              cands.insert(c);
        }
      std::vector<int64_t> chain;
      for (auto it = cands.rbegin(); it != cands.rend() && chain.size() < 2; ++it)
        if (chain.empty() || chain.back() % *it == 0)
          chain.push_back(*it);
      if (!chain.empty()) {
        s.strides = chain;
        s.strides.push_back(1);
        s.origin = fmt::format("// '{}' is a pointer: extents implied by its subscripts", name);
      } else {
        s.origin = fmt::format("// '{}' is a pointer: extent implied by its subscripts", name);
      }
    }

    // extents of the split dimensions
    std::vector<int64_t> values;
    std::vector<std::optional<Expr>> exprs;
    for (size_t d = 0; d + 1 < dims.size(); ++d) {
      values.push_back(dims[d]);
      exprs.push_back(dimExprs[d]);
    }
    if (s.strides.empty()) {
      values.push_back(dims.back());
      exprs.push_back(dimExprs.back());
    } else {
      values.push_back(0);
      exprs.push_back(std::nullopt);
      for (size_t d = 1; d < s.strides.size(); ++d) {
        int64_t e = s.strides[d - 1] / s.strides[d];
        values.push_back(e);
        exprs.push_back(namedValue(na, scan, e));
      }
    }
    // the first extent, if unknown: from the loop bound of a plain subscript,
    // else from the range of the subscripts
    if (values[0] == 0) {
      std::optional<int64_t> plain, maxHi, maxHiUnguarded;
      std::optional<Expr> plainExpr;
      bool unknown = false;
      for (const AccessRec &a : scan.accesses) {
        if (a.base != v)
          continue;
        Affine f0 = Affine::invalid();
        if (s.strides.empty()) {
          f0 = na.affine(a.subs[0]);
        } else {
          ArrayShape tmp = s;
          tmp.extents.assign(values.size(), Expr::lit(1));
          auto parts = na.split(a, tmp);
          if (parts)
            f0 = na.dimAffine((*parts)[0]);
        }
        auto r = na.range(f0);
        if (!r) {
          unknown = true;
          continue;
        }
        maxHi = maxHi ? std::max(*maxHi, r->hi) : r->hi;
        if (!underBranch(tu_.ast, a.expr, na.plan.root))
          maxHiUnguarded = maxHiUnguarded ? std::max(*maxHiUnguarded, r->hi) : r->hi;
        if (f0.constant == 0 && f0.coef.size() == 1 && f0.coef.begin()->second == 1) {
          const clang::ValueDecl *lv = f0.coef.begin()->first.decl;
          auto lit = na.plan.loops.find(llvm::dyn_cast<clang::VarDecl>(lv));
          if (lit != na.plan.loops.end() && !lit->second.hdr.decreasing) {
            int64_t hi = r->hi + 1;
            if (!plain || hi > *plain) {
              plain = hi;
              plainExpr = std::nullopt;
              const LoopHeader &h = lit->second.hdr;
              std::optional<Expr> b;
              if (auto *vd = refVar(h.bound))
                if (auto ks = na.knownScalar(vd))
                  b = ks->second;
              if (!b)
                b = tu_.constantExpr(h.bound);
              if (b && h.inclusive)
                b = Expr::binary('+', *b, Expr::lit(1));
              plainExpr = b;
            }
          }
        }
      }
      if (plain && maxHiUnguarded && *maxHiUnguarded + 1 > *plain) {
        // another subscript reaches further (`u[i + 1][j]` beside `u[i][j]`);
        // one under a branch may be kept in bounds by its condition
        values[0] = *maxHiUnguarded + 1;
        exprs[0] = namedValue(na, scan, values[0]);
      } else if (plain) {
        values[0] = *plain;
        exprs[0] = plainExpr;
      } else if (maxHi && !unknown) {
        values[0] = *maxHi + 1;
        exprs[0] = namedValue(na, scan, values[0]);
      } else {
        return fmt::format("the extent of '{}' is unknown (give it with --extent {}=N{})", name,
                           name, values.size() > 1 ? ",..." : "");
      }
      if (values[0] <= 0)
        return fmt::format("the extent of '{}' is unknown (give it with --extent {}=N)", name,
                           name);
    }
    s.values = values;
    for (size_t d = 0; d < values.size(); ++d)
      s.extents.push_back(exprs[d] ? *exprs[d] : Expr::lit(values[d]));
    return {};
  }

  TUContext &tu_;
  const FunctionFacts &facts_;
  CalleeChecker &callees_;
  const std::vector<const clang::VarDecl *> &enclosing_;
  std::map<const clang::VarDecl *, std::string> shapeErrors_;
  std::map<const clang::VarDecl *, clang::SourceLocation> shapeErrorLoc_;
};

// ---------------------------------------------------------------------------
// Walking a function for nests

class NestFinder {
public:
  NestFinder(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn)
      : tu_(tu), out_(out), fn_(fn), callees_(tu) {
    facts_.fn = fn;
    FactsCollector fc(facts_);
    fc.TraverseStmt(fn->getBody());
  }

  void run() {
    size_t first = out_.kernels.size();
    walk(fn_->getBody());
    flushHost();
    decideRoles(first);
    if (out_.kernels.size() > first) {
      addHostSteps(first);
      out_.functions.push_back(signature());
    }
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
      noteHost(w->getCond()); // host code, evaluated before the body and after each pass
      notALoopNest(s, w->getBody(), "a 'while' loop (only 'for' loops are ported)");
      noteHost(w->getCond());
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::DoStmt>(s)) {
      notALoopNest(s, d->getBody(), "a 'do' loop (only 'for' loops are ported)");
      noteHost(d->getCond());
      return;
    }
    if (!containsLoop(s)) {
      noteHost(s); // host code: what it touches may have to cross the link
      return;
    }
    for (const clang::Stmt *c : s->children())
      walk(c);
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

  // -------------------------------------------------------------------------
  // Host code between kernels (docs/skeletonizer.md, "Host code between
  // kernels"): the arrays it touches, gathered between two kernels, become
  // `host reads` / `host writes` steps at that point of the program.

  struct RawHostStep {
    std::map<const clang::VarDecl *, bool> touches; ///< written?
    size_t beforeKernel = 0;
    int repeat = -1;
    clang::SourceLocation loc;
  };

  void noteHost(const clang::Stmt *s) {
    auto t = hostTouches(s);
    if (t.empty())
      return;
    if (pending_.empty())
      pendingLoc_ = s->getBeginLoc();
    for (const auto &[v, w] : t)
      pending_[v] = pending_[v] || w;
  }

  /// The host code gathered so far runs before the next kernel.
  void flushHost() {
    if (pending_.empty())
      return;
    steps_.push_back({pending_, out_.kernels.size(), -1, pendingLoc_});
    pending_.clear();
  }

  /// The function's steps with skeleton names. Before its first kernel and
  /// after its last, the marks already say what the host provides and reads
  /// back of its own arrays: there a step keeps only the function's arrays
  /// (device temporaries the host fills or reads).
  void addHostSteps(size_t first) {
    std::set<std::string> names;
    for (size_t k = first; k < out_.kernels.size(); ++k)
      for (const auto &t : skeleton::memTouches(out_.kernels[k].body))
        names.insert(t.array);
    for (const RawHostStep &raw : steps_) {
      bool edge = raw.repeat < 0 && (raw.beforeKernel == first || raw.beforeKernel == out_.kernels.size());
      std::map<std::string, bool> arrays; // skeleton name -> written
      for (const auto &[v, w] : raw.touches) {
        for (const clang::VarDecl *m : mayHold(v))
          for (const std::string &n : out_.namesOf(m))
            if (names.count(n) && !(edge && !out_.roles[n].deviceOwned))
              arrays[n] = arrays[n] || w;
      }
      std::vector<std::string> reads, writes;
      for (const auto &[n, w] : arrays)
        (w ? writes : reads).push_back(n);
      for (int w = 0; w < 2; ++w) {
        std::vector<std::string> &list = w ? writes : reads;
        if (list.empty())
          continue;
        skeleton::HostStep h;
        h.writes = w == 1;
        h.arrays = list;
        h.arrayLocs.assign(list.size(), tu_.position(raw.loc));
        h.beforeKernel = raw.beforeKernel;
        h.repeat = raw.repeat;
        h.loc = tu_.position(raw.loc);
        h.comments.leading.push_back(fmt::format("// from {}:{}: host code {} {}", tu_.fileName,
                                                 tu_.line(raw.loc), w ? "updates" : "reads",
                                                 list.size() == 1 ? "this array" : "these arrays"));
        out_.hostSteps.push_back(std::move(h));
        if (raw.repeat >= 0)
          out_.repeats[static_cast<size_t>(raw.repeat)].hostSteps.push_back(out_.hostSteps.size() - 1);
        out_.programMarks = true;
      }
    }
    steps_.clear();
  }

  /// A loop that is not ported itself: look for nests inside; warn if none.
  void notALoopNest(const clang::Stmt *s, const clang::Stmt *body, const std::string &why) {
    size_t kernels = out_.kernels.size();
    size_t warns = out_.warnings.size();
    walk(body);
    if (out_.kernels.size() == kernels) {
      out_.warnings.resize(warns);
      if (containsArrayAccess(body))
        out_.warnings.push_back(tu_.warning(s->getBeginLoc(), "cannot port this loop: " + why));
    } else {
      // kernels in a loop of unknown count: they are counted once, and say so
      out_.warnings.push_back(tu_.warning(
          s->getBeginLoc(), "the kernels inside this loop are counted once: only a 'for' loop "
                            "with a known trip count becomes 'repeat' (write it as one)"));
    }
  }

  /// The parameters as a CPU harness must provide them.
  CFunction signature() const {
    CFunction cf;
    cf.name = fn_->getNameAsString();
    cf.loc = tu_.position(fn_->getLocation());
    cf.openmp = containsOpenMP(fn_->getBody());
    for (const clang::ParmVarDecl *p : fn_->parameters()) {
      CParam cp;
      cp.name = p->getName().str();
      clang::QualType t = p->getType().getCanonicalType();
      if (t->isPointerType()) {
        clang::QualType e = tu_.ast.getBaseElementType(t->getPointeeType()).getUnqualifiedType();
        if (e->isIntegralOrEnumerationType() || e->isRealFloatingType()) {
          cp.kind = CParam::Kind::Buffer;
          cp.elemType = e.getAsString();
          cp.elemFloating = e->isRealFloatingType();
          cp.arrays = out_.namesOf(p);
        } else {
          cp.why = fmt::format("a pointer to '{}'", e.getAsString());
        }
      } else if (t->isIntegralOrEnumerationType()) {
        cp.kind = CParam::Kind::Integer;
        cp.value = tu_.scalarOption(cp.name);
      } else if (t->isRealFloatingType()) {
        cp.kind = CParam::Kind::Floating;
      } else {
        cp.why = fmt::format("of type '{}'", t.getAsString());
      }
      cf.params.push_back(std::move(cp));
    }
    return cf;
  }

  static bool containsOpenMP(const clang::Stmt *s) {
    if (!s)
      return false;
    if (llvm::isa<clang::OMPExecutableDirective>(s))
      return true;
    for (const clang::Stmt *c : s->children())
      if (containsOpenMP(c))
        return true;
    return false;
  }

  /// The trip count of a sequential loop around kernels, as the repeat count,
  /// with a comment saying where it came from; nullopt with a warning if unknown.
  std::optional<std::pair<skeleton::Expr, std::string>> repeatCount(const clang::ForStmt *f,
                                                                   const LoopHeader &h) {
    std::string name = h.var->getName().str();
    if (auto p = tu_.pragmaClause(f, "trip"))
      return std::make_pair(skeleton::Expr::lit(static_cast<int64_t>(p->value)),
                            std::string("from '#pragma skelcast trip'"));
    // a bound: a constant (macro names kept) or a scalar given by --extent
    auto form = [&](const clang::Expr *e) -> std::optional<std::pair<int64_t, skeleton::Expr>> {
      if (auto v = tu_.constantValue(e))
        if (auto x = tu_.constantExpr(e))
          return std::make_pair(*v, *x);
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
        if (auto v = tu_.scalarOption(dr->getDecl()->getName().str()))
          return std::make_pair(*v, tu_.useScalarOption(dr->getDecl()->getName().str()));
      return std::nullopt;
    };
    auto a = h.stepExpr ? std::nullopt : form(h.init);
    auto b = h.stepExpr ? std::nullopt : form(h.bound);
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
                    size_t firstStep) {
    size_t end = out_.kernels.size();
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
      if (r.kernels == ks) {
        // nested time loops over the same kernels: the counts multiply, unless
        // this loop has host code of its own (a repeat holds no repeat)
        for (size_t i = firstStep; i < steps_.size(); ++i)
          if (steps_[i].repeat < 0 && touchesAnArray(steps_[i])) {
            out_.warnings.push_back(tu_.warning(
                f->getBeginLoc(),
                "this loop around a time-step loop is counted once: it holds host code outside "
                "the inner loop, and a 'repeat' cannot hold a 'repeat'"));
            return;
          }
        r.count = skeleton::Expr::binary('*', count->first, r.count);
        r.comments.leading.insert(r.comments.leading.begin(), from);
        inRepeat(firstStep, static_cast<int>(&r - out_.repeats.data()));
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
    inRepeat(firstStep, static_cast<int>(out_.repeats.size() - 1));
  }

  /// Does host code `raw` touch an array the kernels so far use (itself or
  /// through an alias)? Host code on other memory causes no copy.
  bool touchesAnArray(const RawHostStep &raw) {
    for (const auto &[v, w] : raw.touches)
      for (const clang::VarDecl *m : mayHold(v))
        if (!out_.namesOf(m).empty())
          return true;
    return false;
  }

  /// The variables whose memory host code touching `v` may touch: v's class
  /// (swapped pointers, pointers set into it; hostAliases), or v alone.
  std::vector<const clang::VarDecl *> mayHold(const clang::VarDecl *v) {
    if (!aliases_)
      aliases_ = hostAliases(fn_);
    auto it = aliases_->find(v);
    return it != aliases_->end() ? it->second : std::vector<const clang::VarDecl *>{v};
  }

  /// The host steps gathered since `firstStep` run in each pass of repeat r.
  void inRepeat(size_t firstStep, int r) {
    for (size_t i = firstStep; i < steps_.size(); ++i)
      if (steps_[i].repeat < 0)
        steps_[i].repeat = r;
  }

  /// Whose each array of this function's kernels is (HostData.h), and the
  /// arrays `#pragma skelcast out(...)` in the body names.
  void decideRoles(size_t first) {
    std::set<std::string> names;
    for (size_t k = first; k < out_.kernels.size(); ++k)
      for (const auto &t : skeleton::memTouches(out_.kernels[k].body))
        names.insert(t.array);
    auto roles = bufferRoles(fn_);
    std::optional<std::set<std::string>> outs; // C names the pragma keeps
    clang::SourceRange body = fn_->getBody()->getSourceRange();
    unsigned b = tu_.sm.getFileOffset(tu_.sm.getExpansionLoc(body.getBegin()));
    unsigned e = tu_.sm.getFileOffset(tu_.sm.getExpansionLoc(body.getEnd()));
    std::vector<std::pair<std::string, clang::SourceLocation>> named;
    for (const PragmaRecord &r : tu_.pragmas)
      for (const PragmaClause &c : r.clauses)
        if (c.name == "out" && r.beginOffset > b && r.beginOffset < e) {
          if (!outs)
            outs.emplace();
          for (const auto &n : c.names) {
            outs->insert(n.first);
            named.push_back(n);
          }
        }
    if (outs) {
      out_.programMarks = true;
      for (const auto &[n, loc] : named) {
        bool known = std::any_of(names.begin(), names.end(), [&](const std::string &a) {
          const clang::VarDecl *d = out_.declOf(a);
          return d && d->getName() == n;
        });
        if (!known)
          out_.warnings.push_back(tu_.warning(
              loc, fmt::format("'#pragma skelcast out': no array '{}' in the kernels of '{}'", n,
                               fn_->getNameAsString())));
      }
    }
    for (const std::string &a : names) {
      const clang::VarDecl *d = out_.declOf(a);
      FileAssembler::HostRole hr;
      if (auto it = d ? roles.find(d) : roles.end(); it != roles.end()) {
        hr.deviceOwned = it->second.deviceOwned;
        hr.constInput = it->second.constInput;
        hr.why = it->second.why;
        std::vector<std::string> pair;
        for (const clang::VarDecl *o : it->second.swappedWith)
          for (const std::string &n : out_.namesOf(o))
            if (names.count(n))
              pair.push_back("'" + n + "'");
        if (!pair.empty()) {
          std::string list;
          for (size_t i = 0; i < pair.size(); ++i)
            list += (i ? ", " : "") + pair[i];
          hr.why += "; swapped with " + list + " (one buffer pair)";
        }
      } else {
        hr.why = "a global: the host's";
      }
      if (outs)
        hr.outAllowed = d && outs->count(d->getName().str());
      out_.programMarks = out_.programMarks || hr.deviceOwned;
      out_.roles[a] = hr;
    }
  }

  static bool containsArrayAccess(const clang::Stmt *s) {
    if (!s)
      return false;
    if (llvm::isa<clang::ArraySubscriptExpr>(s))
      return true;
    for (const clang::Stmt *c : s->children())
      if (containsArrayAccess(c))
        return true;
    return false;
  }

  void tryNest(const clang::Stmt *root) {
    const clang::ForStmt *f = asFor(root);
    NestScan scan;
    NestPlan plan;
    std::vector<Warning> nestWarnings;
    FileAssembler::Mark mark = out_.mark();
    auto macros = tu_.macros;
    auto usedTrips = tu_.usedTrips;
    try {
      PlanMaker pm(tu_, facts_, callees_, enclosing_);
      pm.make(root, scan, plan);
      for (const AccessRec &a : scan.accesses) {
        ArrayShape &s = plan.shapes.at(a.base);
        if (!s.isRegister && s.name.empty())
          s.name = out_.declareArray(s);
      }
      NestAnalysis na(tu_, facts_, scan, plan, enclosing_);
      std::string name = fn_->getNameAsString();
      if (count_ > 0)
        name += fmt::format("_{}", count_);
      skeleton::Kernel k = buildKernel(na, name, nestWarnings);
      ++count_;
      flushHost();
      out_.addKernel(std::move(k));
      for (auto &w : nestWarnings)
        out_.warnings.push_back(std::move(w));
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
      // not this loop: perhaps loops inside it
      size_t kernels = out_.kernels.size();
      size_t warns = out_.warnings.size();
      std::string posNote;
      clang::SourceLocation at = f ? f->getBeginLoc() : root->getBeginLoc();
      if (u.loc.isValid() && tu_.line(u.loc) != tu_.line(at))
        posNote = fmt::format(" (line {})", tu_.line(u.loc));
      std::string reason = u.reason + posNote;
      if (f) {
        std::string why;
        auto hdr = parseLoopHeader(f, tu_.ast, why);
        if (hdr)
          enclosing_.push_back(hdr->var);
        flushHost(); // host code before the loop runs once, not in each pass
        size_t firstStep = steps_.size();
        walk(f->getBody());
        if (hdr)
          enclosing_.pop_back();
        if (out_.kernels.size() > kernels) {
          flushHost(); // the body's host code after its last kernel
          wrapInRepeat(f, hdr, kernels, firstStep);
        } else {
          noteHost(f); // a loop of host code, header and all
        }
      }
      if (out_.kernels.size() == kernels) {
        out_.warnings.resize(warns);
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
  int count_ = 0;
  std::map<const clang::VarDecl *, bool> pending_; ///< host code since the last kernel
  clang::SourceLocation pendingLoc_;
  std::vector<RawHostStep> steps_;
  std::optional<std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>>> aliases_;
};

} // namespace

void processFunction(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn) {
  NestFinder(tu, out, fn).run();
}

} // namespace skelcast::frontend
