// Pointers set in a loop's body into an array (LoopPointers.h says which are
// replaced, and why each condition is there).
#include "LoopPointers.h"
#include "ClangNodes.h"

#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtOpenMP.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace skelcast::frontend {

namespace {

/// A variable's uses in the function, each with its parent (clauses of
/// OpenMP directives left out: they name copies, not the variable read).
struct Use {
  clang::DeclRefExpr *ref = nullptr;
  clang::Stmt *parent = nullptr;
  clang::Stmt *grand = nullptr;
};

/// One candidate: `p = value;` (or `T *p = value;`) as statement `at` of a
/// block inside a `for` body.
struct Candidate {
  clang::CompoundStmt *block = nullptr;
  unsigned at = 0;
  clang::VarDecl *ptr = nullptr;
  const clang::Expr *value = nullptr;
  const clang::DeclRefExpr *lhs = nullptr; ///< the assigned name (null for a declaration)
};

bool isNumberOrStruct(clang::QualType t) {
  t = t.getCanonicalType();
  if (t->isArithmeticType() && !t->isAnyComplexType())
    return true;
  auto *rt = t->getAs<clang::RecordType>();
  return rt && rt->getDecl()->isStruct();
}

bool isRead(const clang::Stmt *parent) {
  auto *ic = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(parent);
  return ic && ic->getCastKind() == clang::CK_LValueToRValue;
}

/// `p[x]`: the use `u` of p is the base of a subscript.
clang::ArraySubscriptExpr *subscriptOf(const Use &u) {
  auto *as = llvm::dyn_cast_or_null<clang::ArraySubscriptExpr>(u.grand);
  if (!as || !isRead(u.parent) || as->getBase() != u.parent)
    return nullptr;
  return as;
}

/// The value of a pointer: an array (or pointer) variable and the subscripts
/// into it (`&A[s][e]`: {s, e}; `A + e`: {e}; `A`: none).
struct Into {
  clang::VarDecl *array = nullptr;
  std::vector<const clang::Expr *> subs;
};

clang::VarDecl *arrayVar(const clang::Expr *e) {
  e = e->IgnoreParens();
  auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
  if (!ic || (ic->getCastKind() != clang::CK_ArrayToPointerDecay &&
              ic->getCastKind() != clang::CK_LValueToRValue))
    return nullptr;
  auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(ic->getSubExpr()->IgnoreParens());
  auto *v = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
  if (!v || v->getType()->isReferenceType())
    return nullptr;
  clang::QualType t = v->getType().getCanonicalType();
  return t->isArrayType() || t->isPointerType() ? const_cast<clang::VarDecl *>(v) : nullptr;
}

std::optional<Into> parseValue(const clang::Expr *e) {
  e = e->IgnoreParens();
  while (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    if (ic->getCastKind() != clang::CK_NoOp)
      break;
    e = ic->getSubExpr()->IgnoreParens();
  }
  Into in;
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (u->getOpcode() != clang::UO_AddrOf)
      return std::nullopt;
    const clang::Expr *s = u->getSubExpr()->IgnoreParens();
    while (auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
      in.subs.insert(in.subs.begin(), as->getIdx());
      const clang::Expr *b = as->getBase()->IgnoreParens();
      auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(b);
      if (ic && ic->getCastKind() == clang::CK_ArrayToPointerDecay &&
          llvm::isa<clang::ArraySubscriptExpr>(ic->getSubExpr()->IgnoreParens())) {
        s = ic->getSubExpr()->IgnoreParens(); // `a[s][e]` of a declared array
        continue;
      }
      in.array = arrayVar(b);
      break;
    }
    if (!in.array || in.subs.empty())
      return std::nullopt;
    return in;
  }
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (b->getOpcode() != clang::BO_Add)
      return std::nullopt;
    const clang::Expr *l = b->getLHS(), *r = b->getRHS();
    if (!l->getType()->isPointerType())
      std::swap(l, r);
    if (!l->getType()->isPointerType() || !r->getType()->isIntegerType())
      return std::nullopt;
    in.array = arrayVar(l);
    in.subs.push_back(r);
    return in.array ? std::optional<Into>(in) : std::nullopt;
  }
  in.array = arrayVar(e);
  return in.array ? std::optional<Into>(in) : std::nullopt;
}

/// A subscript made of scalar variables, constants and arithmetic: its
/// variables into `vars`; false for a memory read, a call, an assignment.
bool plainIndex(const clang::Stmt *s, std::set<const clang::VarDecl *> &vars) {
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    if (llvm::isa<clang::EnumConstantDecl>(dr->getDecl()))
      return true;
    auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
    if (!v || v->getType()->isReferenceType() || v->getType().isVolatileQualified() ||
        !v->getType()->isIntegralOrEnumerationType())
      return false;
    if (v->hasGlobalStorage() && !v->getType().isConstQualified())
      return false; // a call may change it
    vars.insert(v);
    return true;
  }
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s)) {
    auto op = u->getOpcode();
    if (op != clang::UO_Minus && op != clang::UO_Plus && op != clang::UO_Not &&
        op != clang::UO_LNot)
      return false;
  } else if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
    if (b->isAssignmentOp() || b->getOpcode() == clang::BO_Comma)
      return false;
  } else if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(s)) {
    if (ic->getCastKind() != clang::CK_LValueToRValue && ic->getCastKind() != clang::CK_IntegralCast &&
        ic->getCastKind() != clang::CK_NoOp)
      return false;
  } else if (auto *cc = llvm::dyn_cast<clang::CStyleCastExpr>(s)) {
    if (!cc->getType()->isIntegerType())
      return false;
  } else if (!llvm::isa<clang::IntegerLiteral>(s) && !llvm::isa<clang::CharacterLiteral>(s) &&
             !llvm::isa<clang::ParenExpr>(s) && !llvm::isa<clang::ConstantExpr>(s) &&
             !llvm::isa<clang::UnaryExprOrTypeTraitExpr>(s)) {
    return false;
  }
  if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(s))
    return true; // `sizeof(x)` evaluates nothing
  for (const clang::Stmt *c : s->children())
    if (!c || !plainIndex(c, vars))
      return false;
  return true;
}

class Replacer {
public:
  Replacer(TUContext &tu, const clang::FunctionDecl *fn)
      : tu_(tu), ctx_(tu.ast), body_(const_cast<clang::Stmt *>(fn->getBody())) {}

  void run() {
    if (!body_)
      return;
    // one pointer at a time, the facts walked again after each replacement
    // (a pointer set from another, `q = &p[1]`, is then set into the array)
    while (true) {
      uses_.clear();
      cands_.clear();
      escaped_.clear();
      gotos_ = false;
      walk(body_, nullptr, nullptr, 0);
      if (gotos_)
        return;
      bool done = false;
      for (const Candidate &c : cands_) {
        if (tried_.count(c.block->body_begin()[c.at]))
          continue;
        tried_.insert(c.block->body_begin()[c.at]);
        if (replace(c)) {
          done = true;
          break;
        }
      }
      if (!done)
        return;
    }
  }

private:
  void walk(clang::Stmt *s, clang::Stmt *parent, clang::Stmt *grand, int forBodies) {
    if (!s)
      return;
    // a jump past the assignment to a later statement (a `goto`, a `case`
    // label) would reach a use with an older value
    if (llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::IndirectGotoStmt>(s) ||
        llvm::isa<clang::LabelStmt>(s) || llvm::isa<clang::SwitchStmt>(s))
      gotos_ = true;
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      walk(cap->getCapturedStmt(), parent, grand, forBodies);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      if (d->hasAssociatedStmt())
        walk(d->getAssociatedStmt(), s, parent, forBodies);
      return;
    }
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      walk(f->getInit(), s, parent, forBodies);
      walk(f->getCond(), s, parent, forBodies);
      walk(f->getInc(), s, parent, forBodies);
      walk(f->getBody(), s, parent, forBodies + 1);
      return;
    }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
        uses_[v].push_back({dr, parent, grand});
        auto *u = llvm::dyn_cast_or_null<clang::UnaryOperator>(parent);
        if (u && u->getOpcode() == clang::UO_AddrOf)
          escaped_.insert(v);
        if (parent && !isRead(parent) && !llvm::isa<clang::BinaryOperator>(parent) &&
            !llvm::isa<clang::UnaryOperator>(parent) && !llvm::isa<clang::ImplicitCastExpr>(parent) &&
            !llvm::isa<clang::MemberExpr>(parent) && !llvm::isa<clang::ParenExpr>(parent))
          escaped_.insert(v); // bound to a reference, passed whole...
      }
    }
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s); cs && forBodies > 0) {
      unsigned k = 0;
      for (clang::Stmt *c : cs->body()) {
        Candidate cand;
        cand.block = cs;
        cand.at = k++;
        if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(c); b && b->getOpcode() == clang::BO_Assign) {
          auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParens());
          cand.ptr = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
          cand.value = b->getRHS();
          cand.lhs = dr;
        } else if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(c); ds && ds->isSingleDecl()) {
          cand.ptr = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
          cand.value = cand.ptr ? cand.ptr->getInit() : nullptr;
        }
        if (cand.ptr && cand.value && cand.ptr->getType()->isPointerType())
          cands_.push_back(cand);
      }
    }
    for (clang::Stmt *c : s->children())
      walk(c, s, parent, forBodies);
  }

  /// The uses of `v` inside statements `from`.. of `block`.
  static void usesIn(const clang::Stmt *s, const clang::VarDecl *v,
                     std::set<const clang::DeclRefExpr *> &out) {
    if (!s)
      return;
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s); dr && dr->getDecl() == v)
      out.insert(dr);
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      usesIn(cap->getCapturedStmt(), v, out);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      if (d->hasAssociatedStmt())
        usesIn(d->getAssociatedStmt(), v, out);
      return;
    }
    for (const clang::Stmt *c : s->children())
      usesIn(c, v, out);
  }

  bool replace(const Candidate &c) {
    clang::VarDecl *p = c.ptr;
    if (llvm::isa<clang::ParmVarDecl>(p) || !p->hasLocalStorage() || p->isStaticLocal() ||
        escaped_.count(p) || (c.lhs && p->getInit()))
      return false;
    clang::QualType pointee = p->getType()->getPointeeType();
    if (!isNumberOrStruct(pointee))
      return false;
    auto into = parseValue(c.value);
    if (!into || into->array == p)
      return false;
    // `&A[s][e]` into a row of a declared matrix: `p[x]` is `A[s][e + x]`,
    // and e + x may leave the row (`r[-M]` is the row above), which a test
    // that compares the subscripts dimension by dimension cannot see
    if (into->subs.size() > 1)
      return false;
    // the same element type: `p[x]` is an element of the array
    clang::QualType el = into->array->getType().getCanonicalType();
    for (size_t k = 0; k < std::max<size_t>(into->subs.size(), 1); ++k) {
      if (auto *pt = el->getAs<clang::PointerType>())
        el = pt->getPointeeType().getCanonicalType();
      else if (auto *at = llvm::dyn_cast<clang::ArrayType>(el.getTypePtr()))
        el = at->getElementType().getCanonicalType();
      else
        return false;
      if (k + 1 < into->subs.size() && !llvm::isa<clang::ArrayType>(el.getTypePtr()))
        return false; // `&p[i][j]` through a pointer to pointers
    }
    if (!ctx_.hasSameUnqualifiedType(el, pointee.getCanonicalType()))
      return false;
    std::set<const clang::VarDecl *> vars;
    for (const clang::Expr *s : into->subs)
      if (!plainIndex(s, vars))
        return false;
    // every other use of p is `p[x]`, in the statements after it
    std::set<const clang::DeclRefExpr *> later;
    for (unsigned k = c.at + 1; k < c.block->size(); ++k)
      usesIn(c.block->body_begin()[k], p, later);
    std::vector<clang::ArraySubscriptExpr *> subs;
    std::vector<clang::Stmt *> parents;
    for (const Use &u : uses_[p]) {
      if (u.ref == c.lhs)
        continue;
      auto *as = subscriptOf(u);
      if (!as || !later.count(u.ref))
        return false;
      subs.push_back(as);
    }
    // nothing after it changes the array or the subscripts' variables
    vars.insert(into->array);
    for (const clang::VarDecl *v : vars) {
      if (escaped_.count(v) && v != into->array)
        return false;
      if (v == into->array && escaped_.count(v) && v->getType()->isPointerType())
        return false;
      for (unsigned k = c.at + 1; k < c.block->size(); ++k)
        if (written(c.block->body_begin()[k], v))
          return false;
    }
    // the parents of the uses, to put the array's accesses in their place
    std::map<const clang::Stmt *, clang::Stmt *> parentOf;
    findParents(body_, nullptr, parentOf);
    for (clang::ArraySubscriptExpr *as : subs)
      if (!parentOf[as])
        return false;
    bool writes = false;
    for (clang::ArraySubscriptExpr *as : subs) {
      writes = writes || writtenThrough(as, parentOf);
      clang::Expr *n = access(*into, as);
      for (clang::Stmt *&ch : parentOf[as]->children())
        if (ch == as)
          ch = n;
    }
    if (c.lhs)
      dropDeclaration(body_, p);
    clang::Stmt *&st = c.block->body_begin()[c.at];
    tu_.loopPointers.push_back({st->getBeginLoc(), p->getName().str(),
                                into->array->getName().str(),
                                tu_.sourceText(c.value->getSourceRange()), writes,
                                into->subs.empty() ? nullptr : into->subs.back()});
    st = new (ctx_) clang::NullStmt(st->getBeginLoc());
    return true;
  }

  /// `T *p;` (no value, p alone), once every use of p is replaced: an empty
  /// statement.
  void dropDeclaration(clang::Stmt *s, const clang::VarDecl *p) {
    if (!s)
      return;
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s))
      for (clang::Stmt *&c : cs->body())
        if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(c);
            ds && ds->isSingleDecl() && ds->getSingleDecl() == p && !p->getInit())
          c = new (ctx_) clang::NullStmt(ds->getBeginLoc());
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      dropDeclaration(cap->getCapturedStmt(), p);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      if (d->hasAssociatedStmt())
        dropDeclaration(d->getAssociatedStmt(), p);
      return;
    }
    for (clang::Stmt *c : s->children())
      dropDeclaration(c, p);
  }

  /// Whether `v` is assigned (or incremented, or its address taken) in `s`.
  static bool written(const clang::Stmt *s, const clang::VarDecl *v) {
    if (!s)
      return false;
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp())
      if (refVar(b->getLHS()) == v)
        return true;
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if ((u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) &&
          refVar(u->getSubExpr()) == v)
        return true;
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s))
      return written(cap->getCapturedStmt(), v);
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s))
      return d->hasAssociatedStmt() && written(d->getAssociatedStmt(), v);
    for (const clang::Stmt *c : s->children())
      if (written(c, v))
        return true;
    return false;
  }

  static void findParents(clang::Stmt *s, clang::Stmt *parent,
                          std::map<const clang::Stmt *, clang::Stmt *> &out) {
    if (!s)
      return;
    out[s] = parent;
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      findParents(cap->getCapturedStmt(), cap, out);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      if (d->hasAssociatedStmt())
        findParents(d->getAssociatedStmt(), s, out);
      return;
    }
    for (clang::Stmt *c : s->children())
      findParents(c, s, out);
  }

  /// Whether `p[x]` (or a field of it, `p[x].v`, `p[x].m[k]`) is written.
  static bool writtenThrough(const clang::Expr *e,
                             const std::map<const clang::Stmt *, clang::Stmt *> &parentOf) {
    while (true) {
      auto it = parentOf.find(e);
      const clang::Stmt *p = it == parentOf.end() ? nullptr : it->second;
      if (auto *b = llvm::dyn_cast_or_null<clang::BinaryOperator>(p))
        return b->isAssignmentOp() && b->getLHS()->IgnoreParens() == e;
      if (auto *u = llvm::dyn_cast_or_null<clang::UnaryOperator>(p))
        return u->isIncrementDecrementOp();
      auto *me = llvm::dyn_cast_or_null<clang::MemberExpr>(p);
      auto *ic = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(p);
      if (me || llvm::isa_and_nonnull<clang::ParenExpr>(p) ||
          (ic && ic->getCastKind() == clang::CK_ArrayToPointerDecay) ||
          (llvm::isa_and_nonnull<clang::ArraySubscriptExpr>(p) &&
           llvm::cast<clang::ArraySubscriptExpr>(p)->getBase() == e)) {
        e = llvm::cast<clang::Expr>(p);
        continue;
      }
      return false;
    }
  }

  /// `A[s]...[e + x]` for the use `p[x]`.
  clang::Expr *access(const Into &in, clang::ArraySubscriptExpr *use) {
    clang::SourceLocation loc = use->getBeginLoc();
    clang::VarDecl *a = in.array;
    clang::Expr *base = clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                                   clang::SourceLocation(), a, false, loc,
                                                   a->getType(), clang::VK_LValue);
    clang::QualType t = a->getType();
    auto decay = [&](clang::Expr *e, clang::QualType ty) -> clang::Expr * {
      if (ty->isArrayType())
        return clang::ImplicitCastExpr::Create(ctx_, ctx_.getArrayDecayedType(ty),
                                               clang::CK_ArrayToPointerDecay, e, nullptr,
                                               clang::VK_PRValue, clang::FPOptionsOverride());
      return clang::ImplicitCastExpr::Create(ctx_, ty.getUnqualifiedType(),
                                             clang::CK_LValueToRValue, e, nullptr,
                                             clang::VK_PRValue, clang::FPOptionsOverride());
    };
    auto elementOf = [&](clang::QualType ty) {
      if (auto *pt = ty->getAs<clang::PointerType>())
        return pt->getPointeeType();
      return ctx_.getAsArrayType(ty)->getElementType();
    };
    clang::Expr *x = use->getIdx();
    for (size_t k = 0; k < in.subs.size(); ++k) {
      clang::Expr *idx = clone(in.subs[k]);
      if (k + 1 == in.subs.size())
        idx = add(idx, x, loc, use->getRBracketLoc());
      clang::QualType et = elementOf(t);
      clang::Expr *b = decay(base, t);
      clang::SourceLocation rb = k + 1 == in.subs.size() ? use->getRBracketLoc() : loc;
      base = new (ctx_) clang::ArraySubscriptExpr(b, idx, k + 1 == in.subs.size() ? use->getType() : et,
                                                  clang::VK_LValue, clang::OK_Ordinary, rb);
      t = et;
    }
    if (in.subs.empty())
      base = new (ctx_) clang::ArraySubscriptExpr(decay(base, t), x, use->getType(),
                                                  clang::VK_LValue, clang::OK_Ordinary,
                                                  use->getRBracketLoc());
    return base;
  }

  /// `e + x`, both converted to the wider of their promoted types.
  clang::Expr *add(clang::Expr *e, clang::Expr *x, clang::SourceLocation loc,
                   clang::SourceLocation end) {
    auto promoted = [&](clang::QualType q) {
      q = q.getCanonicalType().getUnqualifiedType();
      if (auto *et = q->getAs<clang::EnumType>())
        q = et->getDecl()->getIntegerType().getCanonicalType();
      return ctx_.isPromotableIntegerType(q) ? ctx_.getPromotedIntegerType(q) : q;
    };
    clang::QualType te = promoted(e->getType()), tx = promoted(x->getType());
    clang::QualType t = ctx_.LongTy;
    if (te->isBuiltinType() && tx->isBuiltinType() && te->isIntegerType() && tx->isIntegerType())
      t = ctx_.getIntegerTypeOrder(te, tx) >= 0 ? te : tx;
    auto conv = [&](clang::Expr *v) -> clang::Expr * {
      if (ctx_.hasSameType(v->getType(), t))
        return v;
      return clang::ImplicitCastExpr::Create(ctx_, t, clang::CK_IntegralCast, v, nullptr,
                                             clang::VK_PRValue, clang::FPOptionsOverride());
    };
    auto *pe = new (ctx_) clang::ParenExpr(loc, loc, e);
    auto *sum = clang::BinaryOperator::Create(ctx_, conv(pe), conv(x), clang::BO_Add, t,
                                              clang::VK_PRValue, clang::OK_Ordinary, loc,
                                              clang::FPOptionsOverride());
    // quoted in messages as the access the code writes (`fA[i]`)
    return new (ctx_) clang::ParenExpr(loc, end, sum);
  }

  /// A copy of a subscript of the kinds plainIndex accepts.
  clang::Expr *clone(const clang::Expr *e) {
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
      return clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                        clang::SourceLocation(), const_cast<clang::ValueDecl *>(dr->getDecl()), false,
                                        dr->getLocation(), dr->getType(), dr->getValueKind());
    if (auto *il = llvm::dyn_cast<clang::IntegerLiteral>(e))
      return clang::IntegerLiteral::Create(ctx_, il->getValue(), il->getType(), il->getLocation());
    if (auto *cl = llvm::dyn_cast<clang::CharacterLiteral>(e))
      return new (ctx_) clang::CharacterLiteral(cl->getValue(), cl->getKind(), cl->getType(),
                                                cl->getLocation());
    if (auto *pe = llvm::dyn_cast<clang::ParenExpr>(e))
      return new (ctx_) clang::ParenExpr(pe->getLParen(), pe->getRParen(), clone(pe->getSubExpr()));
    if (auto *ce = llvm::dyn_cast<clang::ConstantExpr>(e))
      return clang::ConstantExpr::Create(ctx_, clone(ce->getSubExpr()));
    if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e))
      return clang::ImplicitCastExpr::Create(ctx_, ic->getType(), ic->getCastKind(),
                                             clone(ic->getSubExpr()), nullptr, ic->getValueKind(),
                                             ic->getStoredFPFeaturesOrDefault());
    if (auto *cc = llvm::dyn_cast<clang::CStyleCastExpr>(e))
      return clang::CStyleCastExpr::Create(ctx_, cc->getType(), cc->getValueKind(),
                                           cc->getCastKind(), clone(cc->getSubExpr()), nullptr,
                                           cc->getStoredFPFeaturesOrDefault(),
                                           cc->getTypeInfoAsWritten(), cc->getLParenLoc(),
                                           cc->getRParenLoc());
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e))
      return clang::UnaryOperator::Create(ctx_, clone(u->getSubExpr()), u->getOpcode(),
                                          u->getType(), u->getValueKind(), u->getObjectKind(),
                                          u->getOperatorLoc(), u->canOverflow(),
                                          u->getStoredFPFeaturesOrDefault());
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e))
      return clang::BinaryOperator::Create(ctx_, clone(b->getLHS()), clone(b->getRHS()),
                                           b->getOpcode(), b->getType(), b->getValueKind(),
                                           b->getObjectKind(), b->getOperatorLoc(),
                                           b->getStoredFPFeaturesOrDefault());
    // sizeof and the like evaluate nothing: shared
    return const_cast<clang::Expr *>(e);
  }

  TUContext &tu_;
  clang::ASTContext &ctx_;
  clang::Stmt *body_;
  std::map<const clang::VarDecl *, std::vector<Use>> uses_;
  std::vector<Candidate> cands_;
  std::set<const clang::VarDecl *> escaped_;
  std::set<const clang::Stmt *> tried_;
  bool gotos_ = false;
};

} // namespace

void replaceLoopPointers(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns) {
  for (const clang::FunctionDecl *fn : fns)
    Replacer(tu, fn).run();
}

} // namespace skelcast::frontend
