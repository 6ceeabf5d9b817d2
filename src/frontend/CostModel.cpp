#include "CostModel.h"
#include "NestAnalysis.h"

#include <cmath>

#include <map>

namespace skelcast::frontend {
namespace {

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

struct MathCost {
  int64_t f;   ///< the float variant (sqrtf)
  int64_t d;   ///< the double variant (sqrt); long double (sqrtl) counts as double
  bool measured; ///< both from docs/math-costs-h100.txt; else documented estimates
};

// Executed SASS instructions per call, H100, nvcc 13.0 -O3 (docs/math-costs-h100.txt).
// Rows marked estimated were not measured: their float cost is taken from the
// closest measured function, their double cost as twice the float cost.
const std::map<std::string, MathCost> &mathTable() {
  static const std::map<std::string, MathCost> table = {
      {"sqrt", {10, 18, true}},   {"exp", {10, 49, true}},    {"log", {28, 84, true}},
      {"sin", {28, 45, true}},    {"cos", {29, 45, false}},   {"tan", {25, 50, false}},
      {"pow", {88, 194, true}},   {"atan2", {44, 88, false}}, {"tanh", {17, 34, false}},
      {"erf", {30, 60, false}},   {"floor", {1, 1, true}},    {"ceil", {1, 1, false}},
      {"trunc", {1, 1, false}},   {"round", {2, 2, false}},   {"fabs", {1, 1, true}},
      {"fmin", {1, 1, true}},     {"fmax", {1, 1, false}},    {"fma", {1, 1, false}},
      {"exp2", {10, 49, false}},  {"expm1", {10, 49, false}}, {"log2", {28, 84, false}},
      {"log10", {28, 84, false}}, {"log1p", {28, 84, false}}, {"asin", {28, 56, false}},
      {"acos", {28, 56, false}},  {"atan", {28, 56, false}},  {"sinh", {17, 34, false}},
      {"cosh", {17, 34, false}},  {"cbrt", {28, 56, false}},  {"hypot", {10, 20, false}},
      {"fmod", {20, 40, false}},  {"copysign", {1, 1, false}},
  };
  return table;
}

} // namespace

int64_t divisionCost(bool isFloating, int bits, std::optional<int64_t> divisor) {
  if (isFloating) {
    if (divisor && isPowerOfTwo(*divisor))
      return 1; // an exact multiplication by the reciprocal
    return bits > 32 ? 16 : 10; // measured: d_div, f_div
  }
  if (divisor) {
    if (isPowerOfTwo(*divisor))
      return 1; // a shift (an AND for modulo)
    return 3;   // multiply-high by the magic number, shift, sign fix-up
  }
  return bits > 32 ? 70 : 20; // gpucc (CGO'16, section 3.6)
}

int64_t binaryOpCost(clang::BinaryOperatorKind op, clang::QualType type,
                     const clang::ASTContext &ctx, std::optional<int64_t> constRhs) {
  using BO = clang::BinaryOperatorKind;
  bool floating = type->isRealFloatingType();
  int bits = type->isScalarType() && !type->isPointerType()
                 ? static_cast<int>(ctx.getTypeSize(type))
                 : 32;
  switch (op) {
  case BO::BO_Div:
  case BO::BO_Rem:
  case BO::BO_DivAssign:
  case BO::BO_RemAssign:
    return divisionCost(floating, bits, constRhs);
  case BO::BO_Assign:
  case BO::BO_Comma:
    return 0;
  case BO::BO_Mul:
  case BO::BO_MulAssign:
    // 64-bit integer multiply: IMAD.WIDE.U32 and two IMADs
    return (!floating && bits > 32) ? 3 : 1;
  case BO::BO_LAnd:
  case BO::BO_LOr:
    return 1;
  default:
    // add, sub, compare, bitwise, shift: a 64-bit integer one is a pair
    // (IADD3 + IADD3.X, or two compares)
    return (!floating && bits > 32) ? 2 : 1;
  }
}

int64_t castCost(clang::CastKind kind) {
  switch (kind) {
  case clang::CK_IntegralToFloating:
  case clang::CK_FloatingToIntegral:
  case clang::CK_FloatingCast:
  case clang::CK_IntegralToBoolean:
  case clang::CK_FloatingToBoolean:
    return 1;
  default:
    return 0;
  }
}

std::string mathName(const std::string &name) {
  const std::string builtin = "__builtin_";
  return name.compare(0, builtin.size(), builtin) == 0 ? name.substr(builtin.size()) : name;
}

std::optional<int64_t> mathCallCost(const std::string &rawName) {
  const std::string name = mathName(rawName);
  if (name == "abs" || name == "labs" || name == "llabs")
    return 1;
  const auto &t = mathTable();
  auto it = t.find(name);
  if (it != t.end())
    return it->second.d;
  if (!name.empty() && (name.back() == 'f' || name.back() == 'l')) {
    it = t.find(name.substr(0, name.size() - 1));
    if (it != t.end())
      return name.back() == 'f' ? it->second.f : it->second.d;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// OpCounter

namespace {

/// The operand of `+`/`-` that can fuse with it into one FMA/IMAD.
bool isFusableMul(const clang::Expr *e, clang::QualType t) {
  auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens());
  return b && b->getOpcode() == clang::BO_Mul &&
         b->getType().getCanonicalType() == t.getCanonicalType();
}

} // namespace

OpCounter::OpCounter(NestAnalysis &na) : na_(na), tu_(na.tu) {}

bool OpCounter::isFp64(clang::QualType t) const {
  return !t.isNull() && t->isRealFloatingType() && tu_.ast.getTypeSize(t) > 32;
}

int64_t OpCounter::arithCost(const clang::Expr *lhs, const clang::Expr *rhs,
                             clang::BinaryOperatorKind op, clang::QualType t) {
  if ((op == clang::BO_Add || op == clang::BO_Sub || op == clang::BO_AddAssign ||
       op == clang::BO_SubAssign) &&
      (isFusableMul(rhs, t) || (lhs && isFusableMul(lhs, t))))
    return 0; // fused with the multiplication: one FMA (or IMAD)
  std::optional<int64_t> k;
  if (op == clang::BO_Div || op == clang::BO_Rem || op == clang::BO_DivAssign ||
      op == clang::BO_RemAssign) {
    if (rhs->getType()->isIntegralOrEnumerationType())
      k = na_.knownValue(rhs);
    else if (auto *fl = llvm::dyn_cast<clang::FloatingLiteral>(rhs->IgnoreParenImpCasts())) {
      double d = fl->getValueAsApproximateDouble();
      if (d > 0 && d == std::floor(d) && d < 1e15)
        k = static_cast<int64_t>(d);
    }
  }
  return binaryOpCost(op, t, tu_.ast, k);
}

int64_t OpCounter::callCost(const clang::FunctionDecl *fd) {
  if (!fd)
    return 0;
  if (auto c = mathCallCost(fd->getNameAsString()))
    return *c;
  const clang::FunctionDecl *def = nullptr;
  if (!fd->hasBody(def) || !def)
    return 0;
  auto it = calleeCost_.find(def);
  if (it != calleeCost_.end())
    return it->second;
  calleeCost_[def] = 0; // recursion guard (recursion is refused by the scan)
  int64_t c = pureCost(def->getBody());
  calleeCost_[def] = c;
  return c;
}

int64_t OpCounter::pureCost(const clang::Stmt *s) {
  if (!s)
    return 0;
  if (auto *is = llvm::dyn_cast<clang::IfStmt>(s))
    return pureCost(is->getCond()) + pureCost(is->getThen()) + pureCost(is->getElse()) + 1;
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    int64_t c = 0;
    for (const clang::Decl *d : ds->decls())
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(d))
        if (v->getInit()) {
          c += pureCost(v->getInit());
          if (tu_.constantValue(v->getInit()) ||
              llvm::isa<clang::FloatingLiteral>(v->getInit()->IgnoreParenImpCasts()))
            c += 1;
        }
    return c;
  }
  if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    e = e->IgnoreParens();
    if (e->getType()->isIntegralOrEnumerationType() && tu_.constantValue(e))
      return 0;
    if (e->getType()->isRealFloatingType() && !e->HasSideEffects(tu_.ast) &&
        e->isEvaluatable(tu_.ast))
      return 0;
    if (auto *c = llvm::dyn_cast<clang::CastExpr>(e))
      return castCost(c->getCastKind()) + pureCost(c->getSubExpr());
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      int64_t c = pureCost(b->getLHS()) + pureCost(b->getRHS());
      auto op = b->getOpcode();
      if (op == clang::BO_Assign || op == clang::BO_Comma)
        return c;
      if (op == clang::BO_LAnd || op == clang::BO_LOr)
        return c + 1;
      if (b->isComparisonOp())
        return c + binaryOpCost(op, b->getLHS()->getType(), tu_.ast, std::nullopt);
      clang::QualType t = b->getType();
      if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(b))
        t = ca->getComputationResultType();
      return c + arithCost(b->isCompoundAssignmentOp() ? nullptr : b->getLHS(), b->getRHS(),
                           op, t);
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e))
      return pureCost(u->getSubExpr()) + (u->getOpcode() == clang::UO_Plus ? 0 : 1);
    if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e))
      return pureCost(co->getCond()) + pureCost(co->getTrueExpr()) +
             pureCost(co->getFalseExpr()) + 1;
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
      int64_t c = callCost(call->getDirectCallee());
      for (const clang::Expr *a : call->arguments())
        c += pureCost(a);
      return c;
    }
    if (llvm::isa<clang::DeclRefExpr>(e) || llvm::isa<clang::IntegerLiteral>(e) ||
        llvm::isa<clang::FloatingLiteral>(e))
      return 0;
  }
  int64_t c = 0;
  for (const clang::Stmt *ch : s->children())
    c += pureCost(ch);
  return c;
}

} // namespace skelcast::frontend
