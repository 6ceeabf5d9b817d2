// The dependent chain of a stretch of C (Chain.h, docs/skeletonizer.md
// "Dependent chains").
#include "Chain.h"

#include "ClangNodes.h"
#include "CostModel.h"

#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <cmath>

namespace skelcast::frontend {
namespace {

/// A square root of the C library (`sqrt`, `sqrtf`, `sqrtl`, their builtins).
bool isSqrt(const clang::FunctionDecl *fd) {
  if (!fd)
    return false;
  std::string n = mathName(fd->getNameAsString());
  return n == "sqrt" || n == "sqrtf" || n == "sqrtl";
}

/// Whether `arm` leaves the loop it is in (a `break` or a `return` not inside
/// a loop of its own).
bool leavesTheLoop(const clang::Stmt *arm) {
  if (!arm || llvm::isa<clang::ForStmt>(arm) || llvm::isa<clang::WhileStmt>(arm) || llvm::isa<clang::DoStmt>(arm))
    return false;
  if (llvm::isa<clang::BreakStmt>(arm) || llvm::isa<clang::ReturnStmt>(arm))
    return true;
  for (const clang::Stmt *c : arm->children())
    if (leavesTheLoop(c))
      return true;
  return false;
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

ChainCycles ChainWalker::chain(const std::vector<const clang::Stmt *> &stretch, const clang::VarDecl *loopVar) {
  loopVar_ = loopVar;
  assigned_.clear();
  for (const clang::Stmt *s : stretch)
    assignedIn(s, assigned_, true);
  ready_.clear();
  loaded_.clear();
  barrier_ = end_ = Ready{};
  serial_ = false;
  for (const clang::Stmt *s : stretch)
    stmt(s);
  if (!serial_)
    return {};
  return {static_cast<int64_t>(std::llround(end_.t - end_.waits * ChainLatency::kLoad)), end_.waits};
}

bool ChainWalker::isFp64(clang::QualType t) const {
  return !t.isNull() && t->isRealFloatingType() && ast_.getTypeSize(t) > 32;
}

double ChainWalker::arith(clang::QualType t) const { return isFp64(t) ? ChainLatency::kFp64 : ChainLatency::kAlu32; }

ChainWalker::Ready ChainWalker::at(Ready ready, double latency, bool serial) {
  Ready done = later(ready, barrier_);
  done.varies = ready.varies;
  done.t += latency;
  end_ = later(end_, done);
  if (serial) {
    barrier_ = done;
    serial_ = true;
  }
  return done;
}

std::string ChainWalker::textOf(const clang::Expr *e) const {
  const clang::SourceManager &sm = ast_.getSourceManager();
  return clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(e->getSourceRange()), sm,
                                     ast_.getLangOpts())
      .str();
}

ChainWalker::Ready ChainWalker::load(const clang::Expr *e) {
  std::string key = textOf(e);
  if (auto it = loaded_.find(key); !key.empty() && it != loaded_.end())
    return it->second.ready;
  Ready r = later(address(e), barrier_);
  r.t += ChainLatency::kLoad;
  ++r.waits;
  r.varies = true;
  end_ = later(end_, r);
  if (!key.empty())
    loaded_[key] = {r, baseOf(e)};
  return r;
}

const clang::ValueDecl *ChainWalker::baseOf(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  while (true) {
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      e = a->getBase()->IgnoreParenImpCasts();
    else if (auto *m = llvm::dyn_cast<clang::MemberExpr>(e))
      e = m->getBase()->IgnoreParenImpCasts();
    else if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_Deref)
      e = u->getSubExpr()->IgnoreParenImpCasts();
    else
      break;
  }
  auto *d = llvm::dyn_cast<clang::DeclRefExpr>(e);
  return d ? d->getDecl() : nullptr;
}

void ChainWalker::forgetLoadsOf(const clang::Expr *stored) {
  const clang::ValueDecl *base = baseOf(stored);
  for (auto it = loaded_.begin(); it != loaded_.end();)
    it = !base || !it->second.base || it->second.base == base ? loaded_.erase(it) : std::next(it);
}

ChainWalker::Ready ChainWalker::address(const clang::Expr *e) {
  // every subscript of a[i][j] (and the index of *(p + k)) is an operand of the address
  Ready r;
  while (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
    r = later(r, expr(a->getIdx()));
    e = a->getBase();
  }
  if (!llvm::isa<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
    r = later(r, expr(e));
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
  std::set<const clang::VarDecl *> vs;
  assignedIn(s, vs, true);
  for (const clang::VarDecl *v : vs)
    ready_[v] = end_;
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
        ready_[v] = v->getInit() ? expr(v->getInit()) : Ready{};
  } else if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
    expr(is->getCond());
    // each arm from here; after the `if` a variable is ready, and the next
    // work may start, when both arms are done. An arm that leaves the loop
    // (a search's `break`, a `return`) runs once, not each iteration.
    auto before = ready_;
    Ready barrier = barrier_, end = end_;
    if (!leavesTheLoop(is->getThen()))
      stmt(is->getThen());
    auto thenReady = ready_;
    Ready thenBarrier = barrier_, thenEnd = end_;
    ready_ = before;
    barrier_ = barrier;
    end_ = end;
    if (!leavesTheLoop(is->getElse()))
      stmt(is->getElse());
    for (const auto &[v, t] : thenReady)
      ready_[v] = later(ready_[v], t);
    barrier_ = later(barrier_, thenBarrier);
    end_ = later(end_, thenEnd);
  } else if (auto *f = llvm::dyn_cast<clang::ForStmt>(s); f && inline_.count(f)) {
    for (const clang::Stmt *c : inline_.at(f))
      stmt(c);
  } else if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s)) {
    assignedInside(s); // a loop inside: its own stretch, what it sets ready after the chain so far
  } else if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    expr(e);
  } else if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    stmt(as->getSubStmt());
  }
}

ChainWalker::Ready ChainWalker::expr(const clang::Expr *e) {
  if (!e)
    return {};
  e = e->IgnoreParens();
  if (auto *ce = llvm::dyn_cast<clang::ConstantExpr>(e))
    return expr(ce->getSubExpr());
  if (llvm::isa<clang::IntegerLiteral>(e) || llvm::isa<clang::FloatingLiteral>(e) ||
      llvm::isa<clang::CharacterLiteral>(e) || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e))
    return {};
  if (!e->HasSideEffects(ast_) && !e->isValueDependent() && e->isEvaluatable(ast_))
    return {}; // folded by the compiler
  if (auto *c = llvm::dyn_cast<clang::CastExpr>(e)) {
    Ready r = expr(c->getSubExpr());
    return castCost(c->getCastKind()) > 0 ? at(r, ChainLatency::kConvert) : r;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
    if (!v || v->getType()->isArrayType())
      return {};
    auto it = ready_.find(v);
    if (it != ready_.end())
      return it->second;
    Ready r;
    r.varies = v == loopVar_ || assigned_.count(v);
    return r;
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
      Ready r = at(expr(sub), arith(sub->getType()));
      if (const clang::VarDecl *v = refVar(sub))
        ready_[v] = r;
      return r;
    }
    switch (u->getOpcode()) {
    case clang::UO_Deref: return load(sub);
    case clang::UO_AddrOf: return {};
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
      Ready r = expr(rhs);
      if (const clang::VarDecl *v = refVar(lhs)) {
        ready_[v] = r;
      } else { // a store: its address; what was loaded of its array may change
        if (auto *m = llvm::dyn_cast<clang::MemberExpr>(lhs->IgnoreParens()))
          address(m->getBase());
        else if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(lhs->IgnoreParens());
                 u && u->getOpcode() == clang::UO_Deref)
          address(u->getSubExpr());
        else
          address(lhs);
        forgetLoadsOf(lhs);
      }
      end_ = later(end_, r);
      return r;
    }
    // the operation itself: a compound assignment computes `lhs op rhs`
    clang::BinaryOperatorKind arithOp = op;
    clang::QualType t = b->getType();
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(b)) {
      arithOp = clang::BinaryOperator::getOpForCompoundAssignment(op);
      t = ca->getComputationResultType();
    }
    Ready l, r;
    const clang::BinaryOperator *mul = nullptr;
    if (arithOp == clang::BO_Add || arithOp == clang::BO_Sub) { // a*b + c: one FMA
      mul = fusedMul(rhs, t);
      if (!mul && !b->isCompoundAssignmentOp())
        mul = fusedMul(lhs, t);
    }
    if (mul) {
      const clang::Expr *other = mul == rhs->IgnoreParens() ? lhs : rhs;
      l = later(expr(mul->getLHS()), expr(mul->getRHS()));
      r = expr(other);
    } else {
      l = expr(lhs);
      r = expr(rhs);
    }
    Ready result;
    if (arithOp == clang::BO_Div && t->isRealFloatingType() && !powerOfTwo(rhs, ast_))
      result = loopVar_ && !later(l, r).varies
                   ? Ready{} // of values the loop does not change: computed before it
                   : at(later(l, r), isFp64(t) ? ChainLatency::kDivF64 : ChainLatency::kDivF32, true);
    else if ((arithOp == clang::BO_Div || arithOp == clang::BO_Rem) && t->isIntegerType())
      result = at(later(l, r), ChainLatency::kAlu32 * static_cast<double>(divisionCost(
                                   false, static_cast<int>(ast_.getTypeSize(t)), constInt(rhs, ast_))));
    else
      result = at(later(l, r), arith(t));
    if (b->isCompoundAssignmentOp()) {
      if (const clang::VarDecl *v = refVar(lhs))
        ready_[v] = result;
      else
        forgetLoadsOf(lhs); // a store to the element
    }
    return result;
  }
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    Ready c = expr(co->getCond());
    Ready t = expr(co->getTrueExpr()), f = expr(co->getFalseExpr());
    return at(later(c, later(t, f)), arith(e->getType()));
  }
  if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
    Ready r;
    for (const clang::Expr *a : call->arguments())
      r = later(r, expr(a));
    const clang::FunctionDecl *fd = call->getDirectCallee();
    if (isSqrt(fd) && loopVar_ && !r.varies)
      return Ready{}; // hoisted before the loop
    if (isSqrt(fd))
      return at(r, isFp64(call->getType()) ? ChainLatency::kSqrtF64 : ChainLatency::kSqrtF32, true);
    // another routine: its instructions in a row (the table's count), not serial
    auto n = fd ? mathCallCost(fd->getNameAsString()) : std::nullopt;
    return at(r, static_cast<double>(n.value_or(1)) * arith(call->getType()));
  }
  if (auto *il = llvm::dyn_cast<clang::InitListExpr>(e)) {
    Ready r;
    for (const clang::Expr *i : il->inits())
      r = later(r, expr(i));
    return r;
  }
  return {};
}

} // namespace skelcast::frontend
