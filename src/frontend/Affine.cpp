#include "Affine.h"
#include "ClangNodes.h"

#include <numeric>

namespace skelcast::frontend {

Affine Affine::invalid() {
  Affine a;
  a.valid = false;
  return a;
}

Affine Affine::constantOf(int64_t c) {
  Affine a;
  a.constant = c;
  return a;
}

Affine Affine::variable(const clang::ValueDecl *d) {
  Affine a;
  a.coef[AffVar{d, 0}] = 1;
  return a;
}

int64_t Affine::coefOf(const clang::ValueDecl *d, int copy) const {
  auto it = coef.find(AffVar{d, copy});
  return it == coef.end() ? 0 : it->second;
}

Affine affineAdd(const Affine &a, const Affine &b, int64_t sign) {
  if (!a.valid || !b.valid)
    return Affine::invalid();
  Affine r = a;
  int64_t t;
  if (__builtin_mul_overflow(b.constant, sign, &t) ||
      __builtin_add_overflow(r.constant, t, &r.constant))
    return Affine::invalid();
  for (const auto &[v, c] : b.coef) {
    int64_t &dst = r.coef[v];
    if (__builtin_mul_overflow(c, sign, &t) || __builtin_add_overflow(dst, t, &dst))
      return Affine::invalid();
    if (dst == 0)
      r.coef.erase(v);
  }
  return r;
}

Affine affineScale(const Affine &a, int64_t k) {
  if (!a.valid)
    return a;
  if (k == 0)
    return Affine::constantOf(0);
  Affine r;
  if (__builtin_mul_overflow(a.constant, k, &r.constant))
    return Affine::invalid();
  for (const auto &[v, c] : a.coef) {
    int64_t t;
    if (__builtin_mul_overflow(c, k, &t))
      return Affine::invalid();
    r.coef[v] = t;
  }
  return r;
}

Affine affineRecopy(const Affine &a, int copy,
                    const std::function<bool(const clang::ValueDecl *)> &shared) {
  if (!a.valid)
    return a;
  Affine r;
  r.constant = a.constant;
  for (const auto &[v, c] : a.coef)
    r.coef[AffVar{v.decl, shared(v.decl) ? v.copy : copy}] += c;
  return r;
}

namespace {

const clang::Expr *strip(const clang::Expr *e) {
  while (true) {
    e = e->IgnoreParens();
    if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
      if (ic->getCastKind() == clang::CK_IntegralCast || ic->getCastKind() == clang::CK_NoOp ||
          ic->getCastKind() == clang::CK_LValueToRValue) {
        e = ic->getSubExpr();
        continue;
      }
    }
    if (auto *cc = llvm::dyn_cast<clang::ExplicitCastExpr>(e)) {
      if (cc->getCastKind() == clang::CK_IntegralCast || cc->getCastKind() == clang::CK_NoOp) {
        e = cc->getSubExpr();
        continue;
      }
    }
    return e;
  }
}

} // namespace

Affine toAffine(const clang::Expr *e, const clang::ASTContext &ctx, const AffineLookup &lookup) {
  if (!e)
    return Affine::invalid();
  if (auto c = constInt(e, ctx))
    return Affine::constantOf(*c);
  e = strip(e);
  if (!e->getType()->isIntegralOrEnumerationType())
    return Affine::invalid();
  if (auto c = constInt(e, ctx))
    return Affine::constantOf(*c);
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (auto a = lookup(dr->getDecl()))
      return *a;
    return Affine::invalid();
  }
  if (auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (uo->getOpcode() == clang::UO_Minus)
      return affineScale(toAffine(uo->getSubExpr(), ctx, lookup), -1);
    if (uo->getOpcode() == clang::UO_Plus)
      return toAffine(uo->getSubExpr(), ctx, lookup);
    return Affine::invalid();
  }
  if (auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    switch (bo->getOpcode()) {
    case clang::BO_Add:
      return affineAdd(toAffine(bo->getLHS(), ctx, lookup), toAffine(bo->getRHS(), ctx, lookup));
    case clang::BO_Sub:
      return affineAdd(toAffine(bo->getLHS(), ctx, lookup), toAffine(bo->getRHS(), ctx, lookup),
                       -1);
    case clang::BO_Mul: {
      Affine l = toAffine(bo->getLHS(), ctx, lookup), r = toAffine(bo->getRHS(), ctx, lookup);
      if (l.isConstant())
        return affineScale(r, l.constant);
      if (r.isConstant())
        return affineScale(l, r.constant);
      return Affine::invalid();
    }
    case clang::BO_Shl: {
      auto k = constInt(bo->getRHS(), ctx);
      if (!k || *k < 0 || *k > 40)
        return Affine::invalid();
      return affineScale(toAffine(bo->getLHS(), ctx, lookup), int64_t(1) << *k);
    }
    default:
      return Affine::invalid();
    }
  }
  return Affine::invalid();
}

std::optional<Interval> rangeOf(const Affine &a,
                                const std::function<std::optional<Interval>(const AffVar &)> &var) {
  if (!a.valid)
    return std::nullopt;
  Interval r{a.constant, a.constant};
  for (const auto &[v, c] : a.coef) {
    auto vi = var(v);
    if (!vi)
      return std::nullopt;
    int64_t x, y;
    if (__builtin_mul_overflow(c, vi->lo, &x) || __builtin_mul_overflow(c, vi->hi, &y))
      return std::nullopt;
    if (x > y)
      std::swap(x, y);
    if (__builtin_add_overflow(r.lo, x, &r.lo) || __builtin_add_overflow(r.hi, y, &r.hi))
      return std::nullopt;
  }
  return r;
}

int64_t coefGcd(const Affine &a) {
  int64_t g = 0;
  for (const auto &[v, c] : a.coef)
    g = std::gcd(g, c < 0 ? -c : c);
  return g;
}

std::optional<int64_t>
evalInt(const clang::Expr *e, const clang::ASTContext &ctx,
        const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &value) {
  if (auto c = constInt(e, ctx))
    return c;
  e = e->IgnoreParens();
  if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    auto k = ic->getCastKind();
    if (k == clang::CK_IntegralCast || k == clang::CK_NoOp || k == clang::CK_LValueToRValue ||
        k == clang::CK_IntegralToBoolean)
      return evalInt(ic->getSubExpr(), ctx, value);
    return std::nullopt;
  }
  if (auto *cc = llvm::dyn_cast<clang::ExplicitCastExpr>(e)) {
    if (cc->getCastKind() == clang::CK_IntegralCast || cc->getCastKind() == clang::CK_NoOp)
      return evalInt(cc->getSubExpr(), ctx, value);
    return std::nullopt;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    return value(dr->getDecl());
  if (auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    auto a = evalInt(uo->getSubExpr(), ctx, value);
    if (!a)
      return std::nullopt;
    switch (uo->getOpcode()) {
    case clang::UO_Minus: return -*a;
    case clang::UO_Plus: return *a;
    case clang::UO_LNot: return *a == 0 ? 1 : 0;
    case clang::UO_Not: return ~*a;
    default: return std::nullopt;
    }
  }
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    auto c = evalInt(co->getCond(), ctx, value);
    if (!c)
      return std::nullopt;
    return evalInt(*c ? co->getTrueExpr() : co->getFalseExpr(), ctx, value);
  }
  if (auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    auto op = bo->getOpcode();
    auto l = evalInt(bo->getLHS(), ctx, value);
    if (!l)
      return std::nullopt;
    if (op == clang::BO_LAnd && !*l)
      return 0;
    if (op == clang::BO_LOr && *l)
      return 1;
    auto r = evalInt(bo->getRHS(), ctx, value);
    if (!r)
      return std::nullopt;
    switch (op) {
    case clang::BO_Add: return *l + *r;
    case clang::BO_Sub: return *l - *r;
    case clang::BO_Mul: return *l * *r;
    case clang::BO_Div: if (*r == 0) return std::nullopt; return *l / *r;
    case clang::BO_Rem: if (*r == 0) return std::nullopt; return *l % *r;
    case clang::BO_LT: return *l < *r;
    case clang::BO_GT: return *l > *r;
    case clang::BO_LE: return *l <= *r;
    case clang::BO_GE: return *l >= *r;
    case clang::BO_EQ: return *l == *r;
    case clang::BO_NE: return *l != *r;
    case clang::BO_LAnd: return (*l && *r) ? 1 : 0;
    case clang::BO_LOr: return (*l || *r) ? 1 : 0;
    case clang::BO_And: return *l & *r;
    case clang::BO_Or: return *l | *r;
    case clang::BO_Xor: return *l ^ *r;
    case clang::BO_Shl: if (*r < 0 || *r > 62) return std::nullopt; return *l << *r;
    case clang::BO_Shr: if (*r < 0 || *r > 62) return std::nullopt; return *l >> *r;
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

} // namespace skelcast::frontend

namespace skelcast::frontend {

std::optional<CompiledInt>
CompiledInt::compile(const clang::Expr *e, const clang::ASTContext &ctx,
                     const std::function<std::optional<int>(const clang::ValueDecl *)> &slot,
                     const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &constant) {
  CompiledInt c;
  c.root_ = c.build(e, ctx, slot, constant);
  if (c.root_ < 0)
    return std::nullopt;
  return c;
}

int CompiledInt::build(const clang::Expr *e, const clang::ASTContext &ctx,
                       const std::function<std::optional<int>(const clang::ValueDecl *)> &slot,
                       const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &constant) {
  auto add = [&](Node n) {
    nodes_.push_back(n);
    return static_cast<int>(nodes_.size()) - 1;
  };
  if (auto c = constInt(e, ctx)) {
    Node n;
    n.value = *c;
    return add(n);
  }
  e = e->IgnoreParens();
  if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    auto k = ic->getCastKind();
    if (k == clang::CK_IntegralCast || k == clang::CK_NoOp || k == clang::CK_LValueToRValue)
      return build(ic->getSubExpr(), ctx, slot, constant);
    if (k == clang::CK_IntegralToBoolean) {
      int a = build(ic->getSubExpr(), ctx, slot, constant);
      if (a < 0)
        return -1;
      Node n;
      n.kind = Node::Unary;
      n.op = 'b';
      n.a = a;
      return add(n);
    }
    return -1;
  }
  if (auto *cc = llvm::dyn_cast<clang::ExplicitCastExpr>(e)) {
    if (cc->getCastKind() == clang::CK_IntegralCast || cc->getCastKind() == clang::CK_NoOp)
      return build(cc->getSubExpr(), ctx, slot, constant);
    return -1;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    if (auto s = slot(dr->getDecl())) {
      Node n;
      n.kind = Node::Slot;
      n.a = *s;
      return add(n);
    }
    if (auto c = constant(dr->getDecl())) {
      Node n;
      n.value = *c;
      return add(n);
    }
    return -1;
  }
  if (auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    int op = 0;
    switch (uo->getOpcode()) {
    case clang::UO_Minus: op = '-'; break;
    case clang::UO_Plus: return build(uo->getSubExpr(), ctx, slot, constant);
    case clang::UO_LNot: op = '!'; break;
    case clang::UO_Not: op = '~'; break;
    default: return -1;
    }
    int a = build(uo->getSubExpr(), ctx, slot, constant);
    if (a < 0)
      return -1;
    Node n;
    n.kind = Node::Unary;
    n.op = op;
    n.a = a;
    return add(n);
  }
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    int a = build(co->getCond(), ctx, slot, constant);
    int b = build(co->getTrueExpr(), ctx, slot, constant);
    int c = build(co->getFalseExpr(), ctx, slot, constant);
    if (a < 0 || b < 0 || c < 0)
      return -1;
    Node n;
    n.kind = Node::Cond;
    n.a = a;
    n.b = b;
    n.c = c;
    return add(n);
  }
  if (auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    switch (bo->getOpcode()) {
    case clang::BO_Add: case clang::BO_Sub: case clang::BO_Mul: case clang::BO_Div:
    case clang::BO_Rem: case clang::BO_LT: case clang::BO_GT: case clang::BO_LE:
    case clang::BO_GE: case clang::BO_EQ: case clang::BO_NE: case clang::BO_LAnd:
    case clang::BO_LOr: case clang::BO_And: case clang::BO_Or: case clang::BO_Xor:
    case clang::BO_Shl: case clang::BO_Shr:
      break;
    default:
      return -1;
    }
    int a = build(bo->getLHS(), ctx, slot, constant);
    int b = build(bo->getRHS(), ctx, slot, constant);
    if (a < 0 || b < 0)
      return -1;
    Node n;
    n.kind = Node::Binary;
    n.op = bo->getOpcode();
    n.a = a;
    n.b = b;
    return add(n);
  }
  return -1;
}

std::optional<int64_t> CompiledInt::eval(const int64_t *slots) const {
  int64_t out;
  if (!evalNode(root_, slots, out))
    return std::nullopt;
  return out;
}

bool CompiledInt::evalNode(int i, const int64_t *slots, int64_t &out) const {
  const Node &n = nodes_[static_cast<size_t>(i)];
  switch (n.kind) {
  case Node::Const: out = n.value; return true;
  case Node::Slot: out = slots[n.a]; return true;
  case Node::Unary: {
    int64_t a;
    if (!evalNode(n.a, slots, a))
      return false;
    switch (n.op) {
    case '-': out = -a; break;
    case '!': out = a == 0; break;
    case '~': out = ~a; break;
    default: out = a != 0; break;
    }
    return true;
  }
  case Node::Cond: {
    int64_t c;
    if (!evalNode(n.a, slots, c))
      return false;
    return evalNode(c ? n.b : n.c, slots, out);
  }
  case Node::Binary: {
    int64_t a, b;
    if (!evalNode(n.a, slots, a))
      return false;
    if (n.op == clang::BO_LAnd && !a) {
      out = 0;
      return true;
    }
    if (n.op == clang::BO_LOr && a) {
      out = 1;
      return true;
    }
    if (!evalNode(n.b, slots, b))
      return false;
    switch (n.op) {
    case clang::BO_Add: out = a + b; break;
    case clang::BO_Sub: out = a - b; break;
    case clang::BO_Mul: out = a * b; break;
    case clang::BO_Div: if (b == 0) return false; out = a / b; break;
    case clang::BO_Rem: if (b == 0) return false; out = a % b; break;
    case clang::BO_LT: out = a < b; break;
    case clang::BO_GT: out = a > b; break;
    case clang::BO_LE: out = a <= b; break;
    case clang::BO_GE: out = a >= b; break;
    case clang::BO_EQ: out = a == b; break;
    case clang::BO_NE: out = a != b; break;
    case clang::BO_LAnd: out = (a && b) ? 1 : 0; break;
    case clang::BO_LOr: out = (a || b) ? 1 : 0; break;
    case clang::BO_And: out = a & b; break;
    case clang::BO_Or: out = a | b; break;
    case clang::BO_Xor: out = a ^ b; break;
    case clang::BO_Shl: if (b < 0 || b > 62) return false; out = a << b; break;
    case clang::BO_Shr: if (b < 0 || b > 62) return false; out = a >> b; break;
    default: return false;
    }
    return true;
  }
  }
  return false;
}

} // namespace skelcast::frontend
