// Scanning a candidate nest (NestScan.h says what is collected; the table
// "What is refused, and why" of docs/skeletonizer.md lists what throws).
#include "NestScan.h"
#include "ClangNodes.h"
#include "CostModel.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::frontend {

namespace {

bool isScalarType(clang::QualType t) {
  t = t.getCanonicalType();
  return t->isArithmeticType() && !t->isAnyComplexType();
}

bool isArrayLike(const clang::VarDecl *v) {
  clang::QualType t = v->getType().getCanonicalType();
  return t->isArrayType() || t->isPointerType();
}

/// A parameter `float &x` or `float3 &v` (not `const`): the callee may assign
/// the caller's variable through it.
bool writableReference(const clang::ParmVarDecl *p) {
  clang::QualType t = p->getType();
  return t->isReferenceType() && !t.getNonReferenceType().isConstQualified();
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
  bool VisitCallExpr(clang::CallExpr *c) {
    // C++: a variable bound to a non-const reference parameter may be assigned
    // by the callee (`compute_velocity(d, m, velocity)`)
    const clang::FunctionDecl *fd = c->getDirectCallee();
    for (unsigned k = 0; fd && k < c->getNumArgs() && k < fd->getNumParams(); ++k)
      if (writableReference(fd->getParamDecl(k)))
        if (auto *v = refVar(c->getArg(k)))
          ++f_.assignments[v];
    return true;
  }

private:
  FunctionFacts &f_;
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
    // `if (c) continue;` among the body's statements skips the rest of the
    // body: a branch around it (KernelBuilder::stmts); elsewhere refused
    // `if (c) { ...; break; }` among the body's statements of an inner loop
    // ends it early (a search): a sequential loop of the thread. The nest's
    // own loop with one is no loop space: its `break` is refused below.
    std::vector<const clang::Stmt *> body = out_.bodyOf(f);
    if (llvm::isa_and_nonnull<clang::CompoundStmt>(f->getBody()))
      for (const clang::Stmt *c : body)
        if (auto *k = continueIf(c))
          continues_.insert(k);
    if (const clang::IfStmt *exit = parent ? earlyExit(f) : nullptr) {
      breaks_.insert(breakIf(exit));
      out_.earlyExits.insert(f);
    }
    for (const clang::Stmt *c : body)
      stmt(c, f);
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
    if (llvm::isa<clang::ContinueStmt>(s) && continues_.count(s))
      return;
    if (llvm::isa<clang::BreakStmt>(s) && breaks_.count(s))
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
      return "a 'continue' other than an 'if (...) continue;' among the loop body's statements";
    if (llvm::isa<clang::ReturnStmt>(s))
      return "a 'return' inside the loop";
    if (llvm::isa<clang::SwitchStmt>(s))
      return "a 'switch'";
    return fmt::format("a statement of kind '{}'", s->getStmtClassName());
  }

private:
  enum class Use { Read, Write, ReadWrite };

  /// `w` in `w[k]` when w is a variable holding row pointers to numbers: a
  /// pointer to pointers (`float **w`) or an array of them (`float *w[N]`).
  static const clang::VarDecl *rowPointerBase(const clang::ArraySubscriptExpr *row) {
    auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(row->getBase()->IgnoreParenImpCasts());
    auto *v = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
    if (!v)
      return nullptr;
    clang::QualType t = v->getType().getCanonicalType();
    clang::QualType rowT;
    if (auto *pt = t->getAs<clang::PointerType>())
      rowT = pt->getPointeeType().getCanonicalType();
    else if (auto *at = llvm::dyn_cast<clang::ConstantArrayType>(t.getTypePtr()))
      rowT = at->getElementType().getCanonicalType();
    else
      return nullptr;
    auto *rp = rowT->getAs<clang::PointerType>();
    if (!rp || !isScalarType(rp->getPointeeType()))
      return nullptr;
    return v;
  }

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
    if (isStructVariable(v, tu_.ast)) {
      // a struct of like numbers (cfd's `float3 momentum;`): its fields live
      // in registers, private to the iteration that declares it
      out_.localDecls[v] = loop;
      if (const clang::Expr *init = v->getInit(); init && !trivialConstruction(init)) {
        structValue(init, loop);
        structWrite(v, init, loop);
      }
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

  /// `v op= e` or `v = v op e` (op + - *) with e free of v: the operator.
  static std::optional<skeleton::ReduceOp> arithmeticForm(const clang::Expr *site,
                                                          const clang::VarDecl *v) {
    using skeleton::ReduceOp;
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(site)) {
      auto op = ca->getOpcode();
      if (mentions(ca->getRHS(), v))
        return std::nullopt;
      if (op == clang::BO_AddAssign || op == clang::BO_SubAssign)
        return ReduceOp::Add;
      if (op == clang::BO_MulAssign)
        return ReduceOp::Mul;
      return std::nullopt;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(site))
      return u->isIncrementDecrementOp() ? std::optional<ReduceOp>(ReduceOp::Add) : std::nullopt;
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(site)) {
      auto *rhs = llvm::dyn_cast<clang::BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
      if (!rhs)
        return std::nullopt;
      auto op = rhs->getOpcode();
      if (op != clang::BO_Add && op != clang::BO_Sub && op != clang::BO_Mul)
        return std::nullopt;
      ReduceOp r = op == clang::BO_Mul ? ReduceOp::Mul : ReduceOp::Add;
      if (refVar(rhs->getLHS()) == v && !mentions(rhs->getRHS(), v))
        return r;
      if (op != clang::BO_Sub && refVar(rhs->getRHS()) == v && !mentions(rhs->getLHS(), v))
        return r;
    }
    return std::nullopt;
  }

  /// `v = fmax(v, e)` or `v = X < Y ? T : F` with {X, Y} = {T, F} = {v, e}, e
  /// free of v: max or min.
  static std::optional<skeleton::ReduceOp> extremumForm(const clang::Expr *site,
                                                        const clang::VarDecl *v, bool &conditional,
                                                        const clang::ASTContext &ctx) {
    using skeleton::ReduceOp;
    auto *b = llvm::dyn_cast<clang::BinaryOperator>(site);
    if (!b || b->getOpcode() != clang::BO_Assign)
      return std::nullopt;
    const clang::Expr *rhs = b->getRHS()->IgnoreParenImpCasts();
    auto isV = [&](const clang::Expr *e) { return refVar(e) == v; };
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(rhs)) {
      const clang::FunctionDecl *fd = c->getDirectCallee();
      if (!fd || c->getNumArgs() != 2 || !fd->getIdentifier())
        return std::nullopt;
      std::string n = fd->getName().str();
      std::optional<ReduceOp> op;
      if (n == "fmax" || n == "fmaxf" || n == "fmaxl" || n == "max")
        op = ReduceOp::Max;
      else if (n == "fmin" || n == "fminf" || n == "fminl" || n == "min")
        op = ReduceOp::Min;
      if (!op)
        return std::nullopt;
      const clang::Expr *a0 = c->getArg(0), *a1 = c->getArg(1);
      if ((isV(a0) && !mentions(a1, v)) || (isV(a1) && !mentions(a0, v)))
        return op;
      return std::nullopt;
    }
    auto *t = llvm::dyn_cast<clang::ConditionalOperator>(rhs);
    if (!t)
      return std::nullopt;
    auto *cmp = llvm::dyn_cast<clang::BinaryOperator>(t->getCond()->IgnoreParenImpCasts());
    if (!cmp || !cmp->isRelationalOp())
      return std::nullopt;
    const clang::Expr *x = cmp->getLHS()->IgnoreParenImpCasts(), *y = cmp->getRHS()->IgnoreParenImpCasts();
    const clang::Expr *tt = t->getTrueExpr()->IgnoreParenImpCasts(), *ff = t->getFalseExpr()->IgnoreParenImpCasts();
    const clang::Expr *e = isV(x) ? y : isV(y) ? x : nullptr;
    if (!e || mentions(e, v))
      return std::nullopt;
    auto same = [&](const clang::Expr *p, const clang::Expr *q) {
      llvm::FoldingSetNodeID a, b;
      p->Profile(a, ctx, true);
      q->Profile(b, ctx, true);
      return a == b;
    };
    bool tIsX = same(tt, x) && same(ff, y), tIsY = same(tt, y) && same(ff, x);
    if (!tIsX && !tIsY)
      return std::nullopt;
    bool greater = cmp->getOpcode() == clang::BO_GT || cmp->getOpcode() == clang::BO_GE;
    conditional = true;
    // X > Y ? X : Y is the larger; X > Y ? Y : X the smaller; X < Y the other way
    return (greater == tIsX) ? ReduceOp::Max : ReduceOp::Min;
  }

  static bool isReductionForm(const clang::Expr *site, const clang::VarDecl *v) {
    return arithmeticForm(site, v).has_value();
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
    w.reductionOp = arithmeticForm(site, v);
    if (!w.reductionOp)
      w.reductionOp = extremumForm(site, v, w.viaConditional, tu_.ast);
    w.reductionForm = w.reductionForm || w.reductionOp.has_value();
    w.loop = loop;
    out_.scalarWrites.push_back(w);
  }

  /// `T v;` in C++: the implicit default construction of a struct, no value.
  static bool trivialConstruction(const clang::Expr *e) {
    auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e->IgnoreParenImpCasts());
    return ce && ce->getNumArgs() == 0 && ce->getConstructor()->isTrivial();
  }

  /// A write to a field of (or the whole of) a struct variable, or to a
  /// variable through a reference: recorded as a write of the variable, with
  /// no value, so that the dependence test judges it as a whole (private when
  /// declared inside the loop, else carried).
  void structWrite(const clang::VarDecl *v, const clang::Expr *site, const clang::ForStmt *loop) {
    ScalarWrite w;
    w.var = v;
    w.site = site;
    w.loop = loop;
    out_.scalarWrites.push_back(w);
  }

  /// A value of a uniform struct type: a struct variable, `{a, b, c}`, or a
  /// trivial copy of either (C++'s implicit copy constructor).
  void structValue(const clang::Expr *e, const clang::ForStmt *loop) {
    e = e->IgnoreParenImpCasts();
    if (auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
      if (ce->getConstructor()->isTrivial() && ce->getNumArgs() <= 1) {
        if (ce->getNumArgs() == 1)
          structValue(ce->getArg(0), loop);
        return;
      }
    } else if (auto *il = llvm::dyn_cast<clang::InitListExpr>(e)) {
      for (const clang::Expr *x : il->inits())
        expr(x, loop, Use::Read);
      return;
    } else if (auto *v = refVar(e); v && isStructVariable(v, tu_.ast)) {
      return;
    }
    throw Unsupported{e->getBeginLoc(), fmt::format("the struct value '{}'",
                                                    tu_.sourceText(e->getSourceRange()))};
  }

  /// An argument of a call to a function of the file (CalleeChecker accepted
  /// it): a variable bound to a non-const reference is written by the call.
  void callArgument(const clang::Expr *a, const clang::ParmVarDecl *p, const clang::CallExpr *c,
                    const clang::ForStmt *loop) {
    if (p && writableReference(p)) {
      const clang::VarDecl *v = refVar(a);
      if (!v)
        v = structVariableField(a, tu_.ast);
      if (!v || isArrayLike(v))
        throw Unsupported{a->getBeginLoc(),
                          fmt::format("'{}' is passed by reference to '{}'",
                                      tu_.sourceText(a->getSourceRange()),
                                      c->getDirectCallee()->getNameAsString())};
      if (isStructVariable(v, tu_.ast))
        structWrite(v, c, loop);
      else
        scalarWrite(v, c, nullptr, loop);
      return;
    }
    if (p && p->getType().getNonReferenceType()->isRecordType()) {
      structValue(a, loop);
      return;
    }
    expr(a, loop, Use::Read);
  }

  /// `a[i].x`: an access of `a` with the field's index as its last subscript
  /// (a literal made in the AST context, so that every step reads it as a
  /// subscript); false for member accesses of other kinds.
  bool memberAccess(const clang::Expr *e, const clang::ForStmt *loop, Use use) {
    unsigned field = 0;
    const clang::Type *word = nullptr;
    std::vector<FieldSubscript> terms;
    auto *as = structElement(e, tu_.ast, &field, &word, &terms);
    if (!as)
      return false;
    access(as, loop, use, place(field, terms, e->getExprLoc()), word, field, terms);
    return true;
  }

public:
  /// Integer fields of different sizes of one array of structs (lavaMD's
  /// `box[l].offset`, a `long`, beside `box[l].nn`, an `int`): the array is
  /// taken as words of the smallest, and each wider field is read as the word
  /// it begins with, its place scaled to those words. Fields of floating
  /// types, or floating and integer ones together, are left for Shapes to
  /// refuse.
  void wordsOfOneSize() {
    std::map<const clang::VarDecl *, const clang::Type *> smallest;
    std::set<const clang::VarDecl *> mixed;
    for (const AccessRec &r : out_.accesses) {
      if (!r.word)
        continue;
      if (!r.word->isIntegerType()) {
        mixed.insert(r.base);
        continue;
      }
      auto [it, fresh] = smallest.emplace(r.base, r.word);
      if (!fresh && tu_.ast.getTypeSize(r.word) < tu_.ast.getTypeSize(it->second))
        it->second = r.word;
    }
    for (AccessRec &r : out_.accesses) {
      auto it = smallest.find(r.base);
      if (!r.word || mixed.count(r.base) || it == smallest.end())
        continue;
      uint64_t bits = tu_.ast.getTypeSize(r.word), small = tu_.ast.getTypeSize(it->second);
      if (bits == small || bits % small)
        continue;
      uint64_t ratio = bits / small;
      std::vector<FieldSubscript> terms = r.fieldTerms;
      for (FieldSubscript &t : terms)
        t.stride *= ratio;
      r.subs.back() = place(static_cast<unsigned>(r.fieldAt * ratio), terms,
                            r.subs.back()->getExprLoc());
      r.wideField = r.word;
      r.word = it->second;
    }
  }

private:

  /// The last subscript of a number in an element of an array of structs:
  /// its constant place in words, plus each subscript of an array field on
  /// the way times its stride (`n[k].keys[j]` is `258 + j`,
  /// `box[l].nei[k - 1].number` is `11 + 6 * (k - 1)`), made in the AST
  /// context so that every step reads it as a subscript.
  const clang::Expr *place(unsigned at, const std::vector<FieldSubscript> &terms,
                           clang::SourceLocation loc) {
    clang::ASTContext &ctx = tu_.ast;
    auto lit = [&](uint64_t v) {
      return clang::IntegerLiteral::Create(ctx, llvm::APInt(32, v), ctx.IntTy, loc);
    };
    auto bin = [&](clang::Expr *l, clang::Expr *r, clang::BinaryOperatorKind op) {
      return clang::BinaryOperator::Create(ctx, l, r, op, ctx.IntTy, clang::VK_PRValue,
                                           clang::OK_Ordinary, loc, clang::FPOptionsOverride());
    };
    clang::Expr *out = at || terms.empty() ? lit(at) : nullptr;
    for (const FieldSubscript &t : terms) {
      auto *idx = const_cast<clang::Expr *>(t.index);
      if (!ctx.hasSameType(idx->getType(), ctx.IntTy))
        idx = clang::ImplicitCastExpr::Create(ctx, ctx.IntTy, clang::CK_IntegralCast, idx,
                                              nullptr, clang::VK_PRValue,
                                              clang::FPOptionsOverride());
      clang::Expr *term = t.stride == 1 ? idx : bin(lit(t.stride), idx, clang::BO_Mul);
      out = out ? bin(out, term, clang::BO_Add) : term;
    }
    return out;
  }

  void access(const clang::ArraySubscriptExpr *a, const clang::ForStmt *loop, Use use,
              const clang::Expr *field = nullptr, const clang::Type *word = nullptr,
              unsigned fieldAt = 0, const std::vector<FieldSubscript> &fieldTerms = {}) {
    AccessRec r;
    r.expr = a;
    r.loop = loop;
    r.read = use != Use::Write;
    r.write = use != Use::Read;
    r.word = word;
    r.fieldAt = fieldAt;
    r.fieldTerms = fieldTerms;
    if (a->getType()->isArrayType())
      throw Unsupported{a->getBeginLoc(), fmt::format("the row '{}' is used as a pointer",
                                                      tu_.sourceText(a->getSourceRange()))};
    if (!field && !isScalarType(a->getType()))
      throw Unsupported{a->getBeginLoc(),
                        fmt::format("an element of type '{}'", a->getType().getAsString())};
    const clang::Expr *cur = a;
    std::vector<const clang::Expr *> subs;
    if (!field) {
      // `n[k].keys[j]`: a number in an array field of an element of an array
      // of structs, the element taken as words (`n[k][258 + j]`)
      unsigned at = 0;
      std::vector<FieldSubscript> terms;
      if (auto *elem = structElement(a, tu_.ast, &at, &r.word, &terms)) {
        field = place(at, terms, a->getExprLoc());
        r.fieldAt = at;
        r.fieldTerms = terms;
        cur = elem;
      }
    }
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
        if (auto *row = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) {
          // `w[k][j]` with `float **w` (or `float *w[N]`): a row read through its
          // pointer, then an element of that row; the rows are placed anywhere
          // (Shapes.cpp, pointerRows). Deeper chains stay refused.
          if (!rowPointerBase(row))
            throw Unsupported{a->getBeginLoc(),
                              fmt::format("'{}' is an array of pointers",
                                          tu_.sourceText(inner->getSourceRange()))};
          cur = inner;
          continue;
        }
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
    if (field)
      subs.push_back(field);
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
        if (memberAccess(lhs, loop, compound ? Use::ReadWrite : Use::Write))
          return;
        if (auto *sv = structVariableField(lhs, tu_.ast)) {
          structWrite(sv, b, loop);
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
        if (memberAccess(sub, loop, Use::ReadWrite))
          return;
        if (auto *sv = structVariableField(sub, tu_.ast)) {
          structWrite(sv, u, loop);
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
      for (unsigned k = 0; k < c->getNumArgs(); ++k)
        callArgument(c->getArg(k), k < fd->getNumParams() ? fd->getParamDecl(k) : nullptr, c,
                     loop);
      return;
    }
    if (memberAccess(e, loop, use))
      return;
    if (structVariableField(e, tu_.ast))
      return; // a field of a struct variable, read: a register
    if (llvm::isa<clang::MemberExpr>(e))
      throw Unsupported{e->getBeginLoc(), fmt::format("the member access '{}'",
                                                      tu_.sourceText(e->getSourceRange()))};
    if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e) || llvm::isa<clang::IntegerLiteral>(e) ||
        llvm::isa<clang::FloatingLiteral>(e) || llvm::isa<clang::CharacterLiteral>(e) ||
        llvm::isa<clang::CXXBoolLiteralExpr>(e))
      return;
    if (llvm::isa<clang::ImplicitCastExpr>(e) || llvm::isa<clang::ExplicitCastExpr>(e) ||
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
  std::set<const clang::Stmt *> continues_; ///< the `continue`s of continueIf forms
  std::set<const clang::Stmt *> breaks_;    ///< the `break`s of breakIf forms (inner loops)
};

} // namespace

FunctionFacts scanFunction(const clang::FunctionDecl *fn) {
  FunctionFacts facts;
  facts.fn = fn;
  FactsCollector fc(facts);
  fc.TraverseStmt(fn->getBody());
  return facts;
}

std::vector<const clang::Stmt *> NestScan::bodyOf(const clang::ForStmt *f) const {
  return keptBody(f, only);
}

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
// Callees: math functions from the table, or small pure functions of the file

std::string CalleeChecker::check(const clang::FunctionDecl *fd) {
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
  if (!tu_.userCode(def->getLocation()))
    why = fmt::format("call to '{}', whose body is in a system header", name);
  else if (!isScalarType(def->getReturnType()) && !def->getReturnType()->isVoidType())
    why = fmt::format("call to '{}', which does not return a number", name);
  // numbers and structs of like numbers, by value or by reference (C++'s
  // `float3 &v`: the call writes the caller's variable, NestScan records it)
  for (const clang::ParmVarDecl *p : def->parameters())
    if (why.empty() && !isScalarType(p->getType().getNonReferenceType()) &&
        !isStructVariable(p, tu_.ast))
      why = fmt::format("call to '{}', which takes a pointer or an aggregate ('{}')", name,
                        p->getName().str());
  if (why.empty())
    why = pureStmt(def->getBody(), def, name);
  busy_.erase(def);
  cache_[def] = why;
  return why;
}

std::string CalleeChecker::pureStmt(const clang::Stmt *s, const clang::FunctionDecl *def,
                                    const std::string &name) {
  if (!s)
    return {};
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
      llvm::isa<clang::DoStmt>(s))
    return fmt::format("call to '{}', which contains a loop", name);
  if (llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::SwitchStmt>(s))
    return fmt::format("call to '{}', whose control flow is not an 'if'", name);
  if (llvm::isa<clang::ArraySubscriptExpr>(s) ||
      (llvm::isa<clang::MemberExpr>(s) &&
       !structVariableField(llvm::cast<clang::MemberExpr>(s), tu_.ast)))
    return fmt::format("call to '{}', which accesses memory", name);
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
    if (u->getOpcode() == clang::UO_Deref || u->getOpcode() == clang::UO_AddrOf)
      return fmt::format("call to '{}', which accesses memory", name);
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
      if (v->hasGlobalStorage() && !v->getType().isConstQualified())
        return fmt::format("call to '{}', which uses the global variable '{}'", name,
                           v->getName().str());
      if (!isScalarType(v->getType().getNonReferenceType()) && !isStructVariable(v, tu_.ast))
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

void scanNest(TUContext &tu, CalleeChecker &callees, const clang::ForStmt *outer,
              NestScan &out) {
  Scanner sc(tu, out, callees);
  sc.loop(outer, nullptr);
  sc.wordsOfOneSize();
}

} // namespace skelcast::frontend
