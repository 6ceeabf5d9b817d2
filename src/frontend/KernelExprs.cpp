// The expressions of a kernel body: symbolic values of integer scalars,
// bindings, instruction counts of operators, loads and stores (KernelBuilder.h).
#include "KernelBuilder.h"
#include "ClangNodes.h"

#include "skelcast/skeleton/Printer.h"

#include <clang/AST/Decl.h>

#include <fmt/format.h>

#include <climits>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

/// `l op r` written the way a person would: `i - 1`, not `i + -1`; `-2*i`.
Expr mkBinary(char op, const Expr &l, const Expr &r) {
  if ((op == '+' || op == '-') && r.kind == Expr::Kind::IntLit && r.value < 0 &&
      r.value != INT64_MIN)
    return Expr::binary(op == '+' ? '-' : '+', l, Expr::lit(-r.value));
  if (op == '*' && r.kind == Expr::Kind::IntLit && l.kind != Expr::Kind::IntLit)
    return Expr::binary('*', r, l);
  return Expr::binary(op, l, r);
}

std::string accessKey(const std::string &array, const std::vector<Expr> &idx) {
  std::string k = array;
  for (const auto &i : idx)
    k += "[" + skeleton::printExpr(i) + "]";
  return k;
}

} // namespace

Expr plusConst(const Expr &e, int64_t k) {
  if (k == 0)
    return e;
  if (e.kind == Expr::Kind::IntLit)
    return Expr::lit(e.value + k);
  // (x - 1) + 1 is x; (x + 2) - 1 is x + 1
  if (e.kind == Expr::Kind::Binary && (e.op == '+' || e.op == '-') &&
      e.args[1].kind == Expr::Kind::IntLit)
    return plusConst(e.args[0], (e.op == '+' ? e.args[1].value : -e.args[1].value) + k);
  if (k > 0)
    return Expr::binary('+', e, Expr::lit(k));
  return Expr::binary('-', e, Expr::lit(-k));
}

bool mentionsAccess(const Expr &e, const std::set<std::string> &bindNames) {
  if (e.kind == Expr::Kind::Access)
    return true;
  if (e.kind == Expr::Kind::Name && bindNames.count(e.name))
    return true;
  for (const auto &a : e.args)
    if (mentionsAccess(a, bindNames))
      return true;
  return false;
}

// ---------------------------------------------------------------------------
// values

Expr KernelBuilder::constExpr(const clang::Expr *e) {
  if (auto c = tu_.constantExpr(e))
    return *c;
  Val v = eval(e);
  if (v.sym)
    return *v.sym;
  return Expr::lit(na_.knownValue(e).value_or(0));
}

std::string KernelBuilder::whyNoValue(const clang::Expr *e) {
  std::set<const clang::VarDecl *> vs;
  collectVars(e, vs);
  for (const clang::VarDecl *v : vs) {
    if (loopVal_.count(v) || env_.count(v) || na_.knownScalar(v) || na_.passValue(v))
      continue;
    if (v->getType()->isPointerType() || v->getType()->isArrayType())
      continue;
    if (defs_.count(v))
      return fmt::format("'{}' holds a value the skeleton cannot express", v->getName().str());
    return na_.noValueReason(v);
  }
  return "it is not an integer expression of indices, constants and loaded values";
}

Affine KernelBuilder::affineOf(const clang::Expr *e) {
  AffineLookup lookup = [&](const clang::ValueDecl *d) -> std::optional<Affine> {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v)
      return std::nullopt;
    if (loopVal_.count(v))
      return Affine::variable(v);
    auto a = affEnv_.find(v);
    if (a != affEnv_.end())
      return a->second;
    if (auto k = na_.knownScalar(v))
      return Affine::constantOf(k->first);
    if (na_.passValue(v)) // invariant in one launch, like the repeat's index
      return Affine::variable(v);
    return std::nullopt;
  };
  return toAffine(e, tu_.ast, lookup);
}

Affine KernelBuilder::dimAffine(const DimForm &d) {
  if (d.direct)
    return affineOf(d.direct);
  Affine r = Affine::constantOf(d.constant);
  for (const auto &[coef, factor] : d.terms)
    r = affineAdd(r, affineScale(affineOf(factor), coef));
  return r;
}

KernelBuilder::Val KernelBuilder::eval(const clang::Expr *e) {
  if (!e)
    return {};
  if (!e->HasSideEffects(tu_.ast)) {
    if (e->getType()->isIntegralOrEnumerationType() && tu_.constantValue(e))
      return {tu_.constantExpr(e)};
    if (e->getType()->isRealFloatingType() && e->isEvaluatable(tu_.ast))
      return {}; // folded by the compiler
    if (e->getType()->isIntegralOrEnumerationType() &&
        !llvm::isa<clang::DeclRefExpr>(e->IgnoreParenImpCasts()) && na_.knownValue(e)) {
      // constant once the known scalars (--extent n=512) are in: folded
      bool save = countOps_;
      countOps_ = false;
      Val v = evalNode(e);
      countOps_ = save;
      return v;
    }
  }
  return evalNode(e);
}

KernelBuilder::Val KernelBuilder::evalNode(const clang::Expr *e) {
  e = e->IgnoreParens();
  if (auto *ce = llvm::dyn_cast<clang::ConstantExpr>(e))
    return eval(ce->getSubExpr());
  if (llvm::isa<clang::IntegerLiteral>(e) || llvm::isa<clang::FloatingLiteral>(e) ||
      llvm::isa<clang::CharacterLiteral>(e) || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e) ||
      llvm::isa<clang::ImplicitValueInitExpr>(e))
    return {};
  if (auto *c = llvm::dyn_cast<clang::CastExpr>(e)) {
    Val v = eval(c->getSubExpr());
    // A conversion to or from double runs on the FP64 pipe.
    clang::QualType from = c->getSubExpr()->getType();
    cost(castCost(c->getCastKind()), ops_.isFp64(from) ? from : e->getType());
    if (e->getType()->isIntegralOrEnumerationType() &&
        c->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return v;
    return derived(v);
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
    if (!v)
      return {};
    auto l = loopVal_.find(v);
    if (l != loopVal_.end())
      return {l->second};
    auto en = env_.find(v);
    if (en != env_.end()) {
      if (visible(en->second))
        return {en->second};
      // bound (bindData) in a block that has closed: what it held there is gone
      dataBound_.erase(v);
      env_.erase(en);
      return {};
    }
    if (auto k = na_.knownScalar(v))
      return {k->second};
    if (auto p = na_.passValue(v)) { // set once per pass of the repeat around the kernel
      na_.usedPassValue = true;
      return {*p};
    }
    if (auto d = dataFrom_.find(v); d != dataFrom_.end() && visible(d->second))
      return {std::nullopt, d->second};
    return {};
  }
  if (auto *a = accessOf(e))
    return load(a, e);
  if (structVariableField(e, tu_.ast))
    return {}; // a field of a struct variable: a register
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e))
    return unary(u);
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e))
    return binary(b);
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
    eval(co->getCond());
    Val t = eval(co->getTrueExpr());
    Val f = eval(co->getFalseExpr());
    cost(1); // select
    if (e->getType()->isIntegralOrEnumerationType() && t.sym && f.sym) {
      // a clamped index (`(x == 0) ? c : c - 1`, `MIN(i + 1, N - 1)`): the
      // arm most iterations take stands for it; the borders are approximated
      int arm = interiorArm(co);
      if (arm) {
        clamps_.emplace(tu_.line(co->getBeginLoc()), tu_.sourceText(co->getSourceRange()));
        return arm == 1 ? t : f;
      }
    }
    return derived(t, f);
  }
  if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
    const clang::FunctionDecl *fd = call->getDirectCallee();
    Val from;
    for (const clang::Expr *a : call->arguments())
      if (!a->getType()->isRecordType()) // a struct passed whole stays in registers
        from = derived(from, eval(a));
    cost(ops_.callCost(fd), call->getType()); // a double routine: FP64
    if (fd && ops_.mathCall(fd)) // fma(x, 0.999, 0.0012): a DFMA's operands
      for (const clang::Expr *a : call->arguments())
        literals({a}, call->getType());
    // variables bound to non-const references: the inlined body assigns them
    for (unsigned k = 0; fd && k < call->getNumArgs() && k < fd->getNumParams(); ++k) {
      clang::QualType t = fd->getParamDecl(k)->getType();
      if (t->isReferenceType() && !t.getNonReferenceType().isConstQualified())
        if (auto *v = refVar(call->getArg(k)))
          forget(v);
    }
    return from;
  }
  if (auto *il = llvm::dyn_cast<clang::InitListExpr>(e)) {
    for (const clang::Expr *i : il->inits())
      eval(i);
    return {};
  }
  throw Unsupported{e->getBeginLoc(),
                    fmt::format("the expression '{}'", tu_.sourceText(e->getSourceRange()))};
}

KernelBuilder::Val KernelBuilder::unary(const clang::UnaryOperator *u) {
  const clang::Expr *sub = u->getSubExpr();
  if (u->isIncrementDecrementOp()) {
    int64_t delta = u->isIncrementOp() ? 1 : -1;
    const clang::Expr *s = sub->IgnoreParens();
    if (auto *v = refVar(s)) {
      cost(binaryOpCost(clang::BO_Add, sub->getType(), tu_.ast, std::nullopt), sub->getType());
      auto it = env_.find(v);
      if (it != env_.end() && v->getType()->isIntegralOrEnumerationType()) {
        it->second = plusConst(it->second, delta);
        auto a = affEnv_.find(v);
        if (a != affEnv_.end())
          a->second = affineAdd(a->second, Affine::constantOf(delta));
      } else {
        forget(v);
      }
      return {};
    }
    if (auto *a = accessOf(s)) {
      Addr ad = address(a);
      readAddr(ad);
      cost(binaryOpCost(clang::BO_Add, sub->getType(), tu_.ast, std::nullopt), sub->getType());
      writeAddr(ad);
      return {};
    }
    if (structVariableField(s, tu_.ast)) {
      cost(binaryOpCost(clang::BO_Add, sub->getType(), tu_.ast, std::nullopt), sub->getType());
      return {};
    }
  }
  Val v = eval(sub);
  switch (u->getOpcode()) {
  case clang::UO_Plus: return v;
  case clang::UO_Minus:
    cost(1);
    if (v.sym && u->getType()->isIntegralOrEnumerationType())
      return {Expr::neg(*v.sym)};
    return derived(v);
  case clang::UO_Not:
  case clang::UO_LNot: cost(1); return derived(v);
  default:
    throw Unsupported{u->getBeginLoc(),
                      fmt::format("the expression '{}'", tu_.sourceText(u->getSourceRange()))};
  }
}

KernelBuilder::Val KernelBuilder::binary(const clang::BinaryOperator *b) {
  auto op = b->getOpcode();
  const clang::Expr *lhs = b->getLHS()->IgnoreParens();
  if (op == clang::BO_Assign) {
    if (auto *v = refVar(lhs)) {
      Val r = eval(b->getRHS());
      assignScalar(v, b->getRHS(), r);
      return r;
    }
    if (auto *a = accessOf(lhs)) {
      Addr ad = address(a);
      Val r = eval(b->getRHS());
      writeAddr(ad);
      return r;
    }
    if (structVariableField(lhs, tu_.ast)) {
      // a field in a register: as a scalar assignment (a constant is a MOV)
      const clang::Expr *rhs = b->getRHS()->IgnoreParenImpCasts();
      Val r = eval(b->getRHS());
      if (llvm::isa<clang::FloatingLiteral>(rhs) || llvm::isa<clang::IntegerLiteral>(rhs) ||
          tu_.constantValue(b->getRHS()))
        cost(1);
      return r;
    }
    throw Unsupported{b->getBeginLoc(), "an assignment the skeleton cannot express"};
  }
  if (b->isCompoundAssignmentOp()) {
    auto *ca = llvm::cast<clang::CompoundAssignOperator>(b);
    clang::QualType t = ca->getComputationResultType();
    if (auto *v = refVar(lhs)) {
      Val r = eval(b->getRHS());
      cost(ops_.arithCost(nullptr, b->getRHS(), op, t), t);
      literals({b->getRHS()}, t);
      auto it = env_.find(v);
      char sop = 0;
      if (op == clang::BO_AddAssign) sop = '+';
      if (op == clang::BO_SubAssign) sop = '-';
      if (op == clang::BO_MulAssign) sop = '*';
      if (it != env_.end() && r.sym && sop && v->getType()->isIntegralOrEnumerationType()) {
        it->second = mkBinary(sop, it->second, *r.sym);
        affEnv_.erase(v);
      } else {
        forget(v);
      }
      return {};
    }
    if (auto *a = accessOf(lhs)) {
      Addr ad = address(a);
      readAddr(ad);
      eval(b->getRHS());
      cost(ops_.arithCost(nullptr, b->getRHS(), op, t), t);
      literals({b->getRHS()}, t);
      writeAddr(ad);
      return {};
    }
    if (structVariableField(lhs, tu_.ast)) {
      eval(b->getRHS());
      cost(ops_.arithCost(nullptr, b->getRHS(), op, t), t);
      literals({b->getRHS()}, t);
      return {};
    }
    throw Unsupported{b->getBeginLoc(), "an assignment the skeleton cannot express"};
  }
  if (op == clang::BO_Comma) {
    eval(b->getLHS());
    return eval(b->getRHS());
  }
  Val l = eval(b->getLHS());
  Val r = eval(b->getRHS());
  if (op == clang::BO_LAnd || op == clang::BO_LOr) {
    cost(1);
    return {};
  }
  clang::QualType t = b->getLHS()->getType();
  if (b->isComparisonOp()) {
    cost(binaryOpCost(op, t, tu_.ast, std::nullopt), t); // DSETP for doubles
    literals({b->getLHS(), b->getRHS()}, t);
  } else {
    cost(ops_.arithCost(b->getLHS(), b->getRHS(), op, b->getType()), b->getType());
    literals({b->getLHS(), b->getRHS()}, b->getType());
  }
  if (l.sym && r.sym && b->getType()->isIntegralOrEnumerationType()) {
    char c = 0;
    switch (op) {
    case clang::BO_Add: c = '+'; break;
    case clang::BO_Sub: c = '-'; break;
    case clang::BO_Mul: c = '*'; break;
    case clang::BO_Div: c = '/'; break;
    case clang::BO_Rem: c = '%'; break;
    case clang::BO_Shl:
      if (r.sym->kind == Expr::Kind::IntLit && r.sym->value >= 0 && r.sym->value < 40)
        return {mkBinary('*', *l.sym, Expr::lit(int64_t(1) << r.sym->value))};
      break;
    default: break;
    }
    if (c)
      return {mkBinary(c, *l.sym, *r.sym)};
  }
  return derived(l, r);
}

void KernelBuilder::forget(const clang::VarDecl *v) {
  if (dataBound_.count(v))
    return; // still a value the data decides (dataBound_)
  env_.erase(v);
  affEnv_.erase(v);
}

void KernelBuilder::bindData(const clang::VarDecl *v, const Expr &value, const std::string &why) {
  std::string name = declare(v->getName().str(), true);
  skeleton::Stmt st;
  st.kind = skeleton::Stmt::Kind::Bind;
  st.bindName = name;
  st.bindValue = value;
  st.comments.leading.push_back("// " + why);
  emit(std::move(st));
  bindNames_.insert(name);
  dataLoad_[name] = value;
  dataBound_.insert(v);
  env_[v] = Expr::ref(name);
  affEnv_.erase(v);
}

void KernelBuilder::assignScalar(const clang::VarDecl *v, const clang::Expr *rhs, const Val &r) {
  const clang::Expr *s = rhs->IgnoreParenImpCasts();
  if (llvm::isa<clang::FloatingLiteral>(s) || tu_.constantValue(rhs) ||
      llvm::isa<clang::IntegerLiteral>(s))
    cost(1); // a constant moved into a register
  if (underBranch_ == 0)
    dataBound_.erase(v); // assigned whatever the data: a value of its own
  if (!v->getType()->isIntegralOrEnumerationType()) {
    // `double t = u[j];`: the load it holds, for an index computed from it
    if (r.from && underBranch_ == 0)
      dataFrom_[v] = *r.from;
    else
      dataFrom_.erase(v);
  }
  if (v->getType()->isIntegralOrEnumerationType() && !r.sym && r.from && visible(*r.from) &&
      indexFlow_.count(v) && !dataBound_.count(v)) {
    // `k = (int)(x[i] * 10)`: an index computed from loaded data
    bindData(v, *r.from,
             fmt::format("line {}: '{}' is computed from this load: an index the data decides",
                         tu_.line(rhs->getBeginLoc()), v->getName().str()));
    return;
  }
  if (!v->getType()->isIntegralOrEnumerationType() || !r.sym) {
    forget(v);
    return;
  }
  if (dataBound_.count(v))
    return; // assigned under a branch: still decided by data
  auto d = defs_.find(v);
  bool single = d != defs_.end() && d->second == 1;
  if (scan_.indexScalars.count(v) && single && mentionsAccess(*r.sym, bindNames_)) {
    std::string name = declare(v->getName().str());
    skeleton::Stmt st;
    st.kind = skeleton::Stmt::Kind::Bind;
    st.bindName = name;
    st.bindValue = *r.sym;
    emit(std::move(st));
    bindNames_.insert(name);
    env_[v] = Expr::ref(name);
    affEnv_.erase(v);
    return;
  }
  env_[v] = *r.sym;
  Affine a = affineOf(rhs);
  if (a.valid)
    affEnv_[v] = a;
  else
    affEnv_.erase(v);
}

// ---------------------------------------------------------------------------
// memory

KernelBuilder::Addr KernelBuilder::address(const clang::ArraySubscriptExpr *a) {
  auto it = byExpr_.find(a);
  if (it == byExpr_.end())
    throw Unsupported{a->getBeginLoc(), "an access the scan did not see"};
  const AccessRec &rec = *it->second;
  const ArrayShape &shape = plan_.shapes.at(rec.base);
  Addr ad;
  ad.shape = &shape;
  if (shape.isRegister) {
    bool save = countOps_;
    countOps_ = false;
    for (const clang::Expr *s : rec.subs)
      eval(s);
    countOps_ = save;
    return ad;
  }
  auto dims = na_.split(rec, shape);
  if (!dims)
    throw Unsupported{a->getBeginLoc(),
                      fmt::format("the subscript of '{}' does not fit its shape",
                                  rec.base->getName().str())};
  bool affine = true;
  for (const DimForm &d : *dims)
    if (!dimAffine(d).valid)
      affine = false;
  bool save = countOps_;
  if (affine)
    countOps_ = false; // strength-reduced or folded into the address
  for (const DimForm &d : *dims) {
    std::optional<Expr> e;
    if (d.direct) {
      e = eval(d.direct).sym;
      if (!e)
        fail(a, d.direct);
    } else {
      for (const auto &[coef, factor] : d.terms) {
        auto f = eval(factor).sym;
        if (!f)
          fail(a, factor);
        Expr term = *f;
        if (coef == -1) {
          e = e ? Expr::binary('-', *e, term) : Expr::neg(term);
          continue;
        }
        if (coef != 1)
          term = Expr::binary('*', Expr::lit(coef < 0 ? -coef : coef), term);
        if (!e)
          e = coef < 0 ? Expr::neg(term) : term;
        else
          e = Expr::binary(coef < 0 ? '-' : '+', *e, term);
      }
      if (!e)
        e = Expr::lit(d.constant);
      else
        e = plusConst(*e, d.constant);
    }
    ad.idx.push_back(*e);
  }
  countOps_ = save;
  ad.name = shape.name;
  ad.key = accessKey(ad.name, ad.idx);
  ad.cost = 1 + (affine ? 0 : static_cast<int64_t>(ad.idx.size()) - 1);
  return ad;
}

void KernelBuilder::fail(const clang::ArraySubscriptExpr *a, const clang::Expr *sub) {
  throw Unsupported{a->getBeginLoc(),
                    fmt::format("the subscript '{}' cannot be written in the skeleton: {}",
                                tu_.sourceText(sub->getSourceRange()), whyNoValue(sub))};
}

void KernelBuilder::readAddr(const Addr &ad) {
  if (ad.shape->isRegister)
    return;
  auto &set = avail_[ad.name];
  if (set.count(ad.key))
    return;
  blk_->comp += ad.cost;
  skeleton::Stmt s;
  s.kind = skeleton::Stmt::Kind::Mem;
  s.mem.isStore = false;
  s.mem.array = ad.name;
  s.mem.index = ad.idx;
  emit(std::move(s));
  set.insert(ad.key);
}

void KernelBuilder::writeAddr(const Addr &ad) {
  if (ad.shape->isRegister)
    return;
  auto &set = avail_[ad.name];
  if (!set.count(ad.key))
    blk_->comp += ad.cost;
  skeleton::Stmt s;
  s.kind = skeleton::Stmt::Kind::Mem;
  s.mem.isStore = true;
  s.mem.array = ad.name;
  s.mem.index = ad.idx;
  blk_->stores.push_back(std::move(s));
  set.clear();
  set.insert(ad.key);
}

int KernelBuilder::interiorArm(const clang::ConditionalOperator *co) {
  // an arm varies when it uses a loop index or a scalar the nest assigns
  auto varies = [&](const clang::Expr *x) {
    std::set<const clang::VarDecl *> vs;
    collectVars(x, vs);
    for (const clang::VarDecl *v : vs) {
      if (loopVal_.count(v))
        return true;
      for (const ScalarWrite &w : scan_.scalarWrites)
        if (w.var == v)
          return true;
    }
    return false;
  };
  bool vt = varies(co->getTrueExpr()), vf = varies(co->getFalseExpr());
  if (vt != vf)
    return vt ? 1 : 2; // the other arm is the clamp value
  if (!vt)
    return 0;
  // both vary: an equality picks out a border (`x == 0`), its negation the interior
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(co->getCond()->IgnoreParenImpCasts())) {
    if (b->getOpcode() == clang::BO_EQ)
      return 2;
    if (b->getOpcode() == clang::BO_NE)
      return 1;
  }
  return 0;
}

const clang::ArraySubscriptExpr *KernelBuilder::accessOf(const clang::Expr *e) const {
  if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
    return a;
  auto *a = structElement(e, tu_.ast);
  return a && byExpr_.count(a) ? a : nullptr;
}

KernelBuilder::Val KernelBuilder::load(const clang::ArraySubscriptExpr *a, const clang::Expr *whole) {
  Addr ad = address(a);
  readAddr(ad);
  if (ad.shape->isRegister)
    return {};
  if (!(whole ? whole : a)->getType()->isIntegralOrEnumerationType())
    return {std::nullopt, Expr::access(ad.name, ad.idx)};
  return {Expr::access(ad.name, ad.idx)};
}

} // namespace skelcast::frontend
