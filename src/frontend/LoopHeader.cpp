#include "LoopHeader.h"
#include "ClangNodes.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

namespace skelcast::frontend {

std::optional<LoopHeader> parseLoopHeader(const clang::ForStmt *f, const clang::ASTContext &ctx,
                                          std::string &why) {
  LoopHeader h;
  h.loop = f;
  // init: `i = lo` or `int i = lo`
  const clang::Stmt *init = f->getInit();
  if (auto *ds = llvm::dyn_cast_or_null<clang::DeclStmt>(init)) {
    if (!ds->isSingleDecl()) {
      why = "the loop declares more than one variable";
      return std::nullopt;
    }
    auto *vd = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl());
    if (!vd || !vd->getInit()) {
      why = "the loop variable has no initial value";
      return std::nullopt;
    }
    h.var = vd;
    h.init = vd->getInit();
  } else if (auto *bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(init)) {
    if (bo->getOpcode() == clang::BO_Assign) {
      h.var = refVar(bo->getLHS());
      h.init = bo->getRHS();
    }
  }
  if (!h.var) {
    why = "the loop has no initialisation 'i = lo'";
    return std::nullopt;
  }
  if (!h.var->getType()->isIntegerType()) {
    why = "the loop variable is not an integer";
    return std::nullopt;
  }
  // increment
  const clang::Expr *inc = f->getInc();
  int dir = 0;
  if (inc)
    inc = inc->IgnoreParens();
  if (auto *uo = llvm::dyn_cast_or_null<clang::UnaryOperator>(inc)) {
    if (refVar(uo->getSubExpr()) == h.var) {
      if (uo->isIncrementOp())
        dir = 1;
      else if (uo->isDecrementOp())
        dir = -1;
    }
  } else if (auto *bo = llvm::dyn_cast_or_null<clang::BinaryOperator>(inc)) {
    const clang::Expr *stepE = nullptr;
    int sign = 0;
    if (refVar(bo->getLHS()) == h.var) {
      if (bo->getOpcode() == clang::BO_AddAssign) {
        stepE = bo->getRHS();
        sign = 1;
      } else if (bo->getOpcode() == clang::BO_SubAssign) {
        stepE = bo->getRHS();
        sign = -1;
      } else if (bo->getOpcode() == clang::BO_Assign) {
        auto *rhs = llvm::dyn_cast<clang::BinaryOperator>(bo->getRHS()->IgnoreParenImpCasts());
        if (rhs && rhs->getOpcode() == clang::BO_Add) {
          if (refVar(rhs->getLHS()) == h.var)
            stepE = rhs->getRHS();
          else if (refVar(rhs->getRHS()) == h.var)
            stepE = rhs->getLHS();
          sign = 1;
        } else if (rhs && rhs->getOpcode() == clang::BO_Sub && refVar(rhs->getLHS()) == h.var) {
          stepE = rhs->getRHS();
          sign = -1;
        }
      }
    }
    if (stepE) {
      if (auto c = constInt(stepE, ctx)) {
        if (*c == 0) {
          why = "the loop step is 0";
          return std::nullopt;
        }
        int64_t s = *c * sign;
        dir = s > 0 ? 1 : -1;
        h.step = s > 0 ? s : -s;
      } else if (sign > 0) {
        dir = 1;
        h.step = 0;
        h.stepExpr = stepE;
      }
    }
  }
  if (dir == 0) {
    why = "the loop increment is not 'i++', 'i--' or 'i += step'";
    return std::nullopt;
  }
  h.decreasing = dir < 0;
  if (h.decreasing && h.step != 1) {
    why = "a decreasing loop with a step other than 1";
    return std::nullopt;
  }
  // condition
  auto *cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(
      f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond) {
    why = "the loop condition is not a comparison of the loop variable";
    return std::nullopt;
  }
  clang::BinaryOperatorKind op = cond->getOpcode();
  const clang::Expr *other = nullptr;
  if (refVar(cond->getLHS()) == h.var) {
    other = cond->getRHS();
  } else if (refVar(cond->getRHS()) == h.var) {
    other = cond->getLHS();
    // mirror: `hi > i` is `i < hi`
    switch (op) {
    case clang::BO_LT: op = clang::BO_GT; break;
    case clang::BO_GT: op = clang::BO_LT; break;
    case clang::BO_LE: op = clang::BO_GE; break;
    case clang::BO_GE: op = clang::BO_LE; break;
    default: break;
    }
  }
  if (!other) {
    why = "the loop condition is not a comparison of the loop variable";
    return std::nullopt;
  }
  h.bound = other;
  bool ok = false;
  if (!h.decreasing) {
    if (op == clang::BO_LT || (op == clang::BO_NE && h.step == 1)) {
      ok = true;
    } else if (op == clang::BO_LE) {
      ok = true;
      h.inclusive = true;
    }
  } else {
    if (op == clang::BO_GT || op == clang::BO_NE) {
      ok = true;
    } else if (op == clang::BO_GE) {
      ok = true;
      h.inclusive = true;
    }
  }
  if (!ok) {
    why = "the loop condition does not match the direction of the increment";
    return std::nullopt;
  }
  return h;
}

} // namespace skelcast::frontend
