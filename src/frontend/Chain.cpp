// The dependent chain of a stretch of C (Chain.h, docs/skeletonizer.md
// "Dependent chains").
#include "Chain.h"

#include "ClangNodes.h"
#include "CostModel.h"

#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <algorithm>
#include <cmath>

namespace skelcast::frontend {
namespace {

/// A square root of the C library (`sqrt`, `sqrtf`, `sqrtl`, their builtins).
bool isSqrt(const clang::FunctionDecl *fd) {
  if (!fd)
    return false;
  std::string n = fd->getNameAsString();
  const std::string builtin = "__builtin_";
  if (n.compare(0, builtin.size(), builtin) == 0)
    n = n.substr(builtin.size());
  return n == "sqrt" || n == "sqrtf" || n == "sqrtl";
}

/// A floating constant that is a power of two: the compiler multiplies by its
/// inverse, exactly, instead of dividing.
bool powerOfTwo(const clang::Expr *e, const clang::ASTContext &ast) {
  llvm::APFloat v(0.0);
  if (!e || e->HasSideEffects(ast) || !e->EvaluateAsFloat(v, ast))
    return false;
  return v.getExactInverse(nullptr);
}

} // namespace

int64_t ChainWalker::cycles(const std::vector<const clang::Stmt *> &stretch) {
  ready_.clear();
  barrier_ = end_ = 0;
  serial_ = false;
  for (const clang::Stmt *s : stretch)
    stmt(s);
  return serial_ ? static_cast<int64_t>(std::llround(end_)) : 0;
}

bool ChainWalker::isFp64(clang::QualType t) const {
  return !t.isNull() && t->isRealFloatingType() && ast_.getTypeSize(t) > 32;
}

double ChainWalker::arith(clang::QualType t) const { return isFp64(t) ? ChainLatency::kFp64 : ChainLatency::kAlu32; }

double ChainWalker::at(double ready, double latency, bool serial) {
  double done = std::max(ready, barrier_) + latency;
  end_ = std::max(end_, done);
  if (serial) {
    barrier_ = done;
    serial_ = true;
  }
  return done;
}

double ChainWalker::load(const clang::Expr *e) { return at(address(e), ChainLatency::kLoad); }

double ChainWalker::address(const clang::Expr *e) {
  // every subscript of a[i][j] (and the index of *(p + k)) is an operand of the address
  double r = 0;
  while (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
    r = std::max(r, expr(a->getIdx()));
    e = a->getBase();
  }
  if (!llvm::isa<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
    r = std::max(r, expr(e));
  return r;
}

const clang::BinaryOperator *ChainWalker::fusedMul(const clang::Expr *e, clang::QualType t) const {
  auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens());
  if (b && b->getOpcode() == clang::BO_Mul && t->isRealFloatingType() &&
      b->getType().getCanonicalType() == t.getCanonicalType())
    return b;
  return nullptr;
}

void ChainWalker::assignedInside(const clang::Stmt *s) {
  if (!s)
    return;
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s))
    if (b->isAssignmentOp())
      if (const clang::VarDecl *v = refVar(b->getLHS()))
        ready_[v] = end_;
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
    if (u->isIncrementDecrementOp())
      if (const clang::VarDecl *v = refVar(u->getSubExpr()))
        ready_[v] = end_;
  for (const clang::Stmt *c : s->children())
    assignedInside(c);
}

void ChainWalker::stmt(const clang::Stmt *s) {
  if (!s)
    return;
  if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
    for (const clang::Stmt *c : cs->body())
      stmt(c);
  } else if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *d : ds->decls())
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(d))
        ready_[v] = v->getInit() ? expr(v->getInit()) : 0.0;
  } else if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
    expr(is->getCond());
    // each arm from here; after the `if` a variable is ready when both arms have it
    auto before = ready_;
    stmt(is->getThen());
    auto thenReady = ready_;
    ready_ = before;
    stmt(is->getElse());
    for (const auto &[v, t] : thenReady)
      ready_[v] = std::max(ready_[v], t);
  } else if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s)) {
    assignedInside(s); // a loop inside: its own stretch, what it sets ready after the chain so far
  } else if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    expr(e);
  } else if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    stmt(as->getSubStmt());
  }
}

double ChainWalker::expr(const clang::Expr *e) {
  if (!e)
    return 0;
  e = e->IgnoreParens();
  if (auto *ce = llvm::dyn_cast<clang::ConstantExpr>(e))
    return expr(ce->getSubExpr());
  if (llvm::isa<clang::IntegerLiteral>(e) || llvm::isa<clang::FloatingLiteral>(e) ||
      llvm::isa<clang::CharacterLiteral>(e) || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e))
    return 0;
  if (!e->HasSideEffects(ast_) && !e->isValueDependent() && e->isEvaluatable(ast_))
    return 0; // folded by the compiler
  if (auto *c = llvm::dyn_cast<clang::CastExpr>(e)) {
    double r = expr(c->getSubExpr());
    return castCost(c->getCastKind()) > 0 ? at(r, ChainLatency::kConvert) : r;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
    if (!v || v->getType()->isArrayType())
      return 0;
    auto it = ready_.find(v);
    return it == ready_.end() ? 0.0 : it->second;
  }
  if (llvm::isa<clang::ArraySubscriptExpr>(e))
    return load(e);
  if (auto *m = llvm::dyn_cast<clang::MemberExpr>(e)) {
    const clang::Expr *base = m->getBase()->IgnoreParenImpCasts();
    if (m->isArrow() || llvm::isa<clang::ArraySubscriptExpr>(base))
      return load(base);
    return expr(base); // a field of a struct in registers
  }
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    const clang::Expr *sub = u->getSubExpr();
    if (u->isIncrementDecrementOp()) {
      double r = at(expr(sub), arith(sub->getType()));
      if (const clang::VarDecl *v = refVar(sub))
        ready_[v] = r;
      return r;
    }
    switch (u->getOpcode()) {
    case clang::UO_Deref: return load(sub);
    case clang::UO_AddrOf: return 0;
    case clang::UO_Plus: return expr(sub);
    default: return at(expr(sub), arith(u->getType()));
    }
  }
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    auto op = b->getOpcode();
    const clang::Expr *lhs = b->getLHS(), *rhs = b->getRHS();
    if (op == clang::BO_Comma) {
      expr(lhs);
      return expr(rhs);
    }
    if (op == clang::BO_Assign) {
      double r = expr(rhs);
      if (const clang::VarDecl *v = refVar(lhs))
        ready_[v] = r;
      else if (auto *m = llvm::dyn_cast<clang::MemberExpr>(lhs->IgnoreParens()))
        address(m->getBase()); // a store to a field: its address
      else if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(lhs->IgnoreParens());
               u && u->getOpcode() == clang::UO_Deref)
        address(u->getSubExpr());
      else
        address(lhs); // a store: its address
      end_ = std::max(end_, r);
      return r;
    }
    // the operation itself: a compound assignment computes `lhs op rhs`
    clang::BinaryOperatorKind arithOp = op;
    clang::QualType t = b->getType();
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(b)) {
      arithOp = clang::BinaryOperator::getOpForCompoundAssignment(op);
      t = ca->getComputationResultType();
    }
    double l = 0, r = 0;
    const clang::BinaryOperator *mul = nullptr;
    if (arithOp == clang::BO_Add || arithOp == clang::BO_Sub) // a*b + c: one FMA
      mul = fusedMul(rhs, t) ? fusedMul(rhs, t)
                             : (b->isCompoundAssignmentOp() ? nullptr : fusedMul(lhs, t));
    if (mul) {
      const clang::Expr *other = mul == rhs->IgnoreParens() ? lhs : rhs;
      l = std::max(expr(mul->getLHS()), expr(mul->getRHS()));
      r = expr(other);
    } else {
      l = expr(lhs);
      r = expr(rhs);
    }
    double result;
    if (arithOp == clang::BO_Div && t->isRealFloatingType() && !powerOfTwo(rhs, ast_))
      result = at(std::max(l, r), isFp64(t) ? ChainLatency::kDivF64 : ChainLatency::kDivF32, true);
    else if ((arithOp == clang::BO_Div || arithOp == clang::BO_Rem) && t->isIntegerType())
      result = at(std::max(l, r), ChainLatency::kAlu32 * static_cast<double>(divisionCost(
                                      false, static_cast<int>(ast_.getTypeSize(t)), constInt(rhs, ast_))));
    else
      result = at(std::max(l, r), arith(t));
    if (b->isCompoundAssignmentOp()) {
      if (const clang::VarDecl *v = refVar(lhs))
        ready_[v] = result;
    }
    return result;
  }
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    double c = expr(co->getCond());
    double t = expr(co->getTrueExpr()), f = expr(co->getFalseExpr());
    return at(std::max({c, t, f}), arith(e->getType()));
  }
  if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
    double r = 0;
    for (const clang::Expr *a : call->arguments())
      r = std::max(r, expr(a));
    const clang::FunctionDecl *fd = call->getDirectCallee();
    if (isSqrt(fd))
      return at(r, isFp64(call->getType()) ? ChainLatency::kSqrtF64 : ChainLatency::kSqrtF32, true);
    // another routine: its instructions in a row (the table's count), not serial
    auto n = fd ? mathCallCost(fd->getNameAsString()) : std::nullopt;
    return at(r, static_cast<double>(n.value_or(1)) * arith(call->getType()));
  }
  if (auto *il = llvm::dyn_cast<clang::InitListExpr>(e)) {
    double r = 0;
    for (const clang::Expr *i : il->inits())
      r = std::max(r, expr(i));
    return r;
  }
  return 0;
}

} // namespace skelcast::frontend
