// The body of one `parallel_for`: C statements in, skeleton statements out.
//
// Straight-line code accumulates an instruction count (the rule of
// CostModel.h); the count is written as `comp N` before each store, loop and
// branch and at the end of each block. Loads are written where the C code
// reads an element, once per element per iteration (a later read of the same
// element is a register). Integer scalars carry symbolic values so that an
// index computed in a temporary (`int ip = i + 1; t[ip]`) is written in place,
// and one loaded from data (`int r = I[n]; B[r][i]`) becomes a binding
// `r = I[n]`, as in GROPHECY's IspinEx listing.
#include "CostModel.h"
#include "ClangNodes.h"
#include "skelcast/skeleton/Parser.h"
#include "Nest.h"

#include "skelcast/skeleton/Printer.h"

#include <clang/AST/Decl.h>

#include <fmt/format.h>

#include <climits>
#include <cmath>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

constexpr int64_t kDefaultTrip = 16;   ///< trip count assumed for data-dependent bounds
constexpr int64_t kSmallTrip = 16;     ///< constant trip counts up to this make a `for`
constexpr int64_t kEnumerationBudget = int64_t(1) << 24;

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

/// `l op r` written the way a person would: `i - 1`, not `i + -1`; `-2*i`.
Expr mkBinary(char op, const Expr &l, const Expr &r) {
  if ((op == '+' || op == '-') && r.kind == Expr::Kind::IntLit && r.value < 0 &&
      r.value != INT64_MIN)
    return Expr::binary(op == '+' ? '-' : '+', l, Expr::lit(-r.value));
  if (op == '*' && r.kind == Expr::Kind::IntLit && l.kind != Expr::Kind::IntLit)
    return Expr::binary('*', r, l);
  return Expr::binary(op, l, r);
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

std::string accessKey(const std::string &array, const std::vector<Expr> &idx) {
  std::string k = array;
  for (const auto &i : idx)
    k += "[" + skeleton::printExpr(i) + "]";
  return k;
}

/// The operand of `+`/`-` that can fuse with it into one FMA/IMAD.
bool isFusableMul(const clang::Expr *e, clang::QualType t) {
  auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParens());
  return b && b->getOpcode() == clang::BO_Mul &&
         b->getType().getCanonicalType() == t.getCanonicalType();
}

class Builder {
public:
  Builder(NestAnalysis &na, std::vector<Warning> &warnings)
      : na_(na), tu_(na.tu), scan_(na.scan), plan_(na.plan), warnings_(warnings) {
    for (const AccessRec &a : scan_.accesses)
      byExpr_[a.expr] = &a;
    for (const ScalarWrite &w : scan_.scalarWrites)
      ++defs_[w.var];
  }

  skeleton::Kernel build(const std::string &name) {
    skeleton::Kernel k;
    k.name = name;
    scopes_.emplace_back();
    Block top{&k.body, 0};
    blk_ = &top;
    countOps_ = false; // the loop space's bounds are not the thread's work
    for (const clang::ForStmt *f : plan_.parallel) {
      const LoopHeader &h = scan_.headers.at(f);
      std::string idx = declare(h.var->getName().str());
      k.indices.push_back(idx);
      Expr init = constExpr(h.init), bound = constExpr(h.bound);
      skeleton::ParallelDim dim;
      Expr lo, hi;
      if (!h.decreasing) {
        lo = init;
        hi = h.inclusive ? plusConst(bound, 1) : bound;
      } else {
        lo = h.inclusive ? bound : plusConst(bound, 1);
        hi = plusConst(init, 1);
      }
      if (h.step > 1) {
        // i = lo + step*i': the space counts the iterations
        int64_t l = *na_.knownValue(h.init), b = *na_.knownValue(h.bound);
        int64_t hiv = h.inclusive ? b + 1 : b;
        int64_t n = hiv > l ? (hiv - l + h.step - 1) / h.step : 0;
        dim.hi = Expr::lit(n);
        Expr scaled = Expr::binary('*', Expr::lit(h.step), Expr::ref(idx));
        loopVal_[h.var] = (lo.kind == Expr::Kind::IntLit && lo.value == 0)
                              ? scaled
                              : Expr::binary('+', lo, scaled);
      } else {
        if (!(lo.kind == Expr::Kind::IntLit && lo.value == 0))
          dim.lo = lo;
        dim.hi = hi;
        loopVal_[h.var] = Expr::ref(idx);
      }
      k.dims.push_back(dim);
    }
    const clang::Stmt *root = plan_.parallel.front();
    k.comments.leading.push_back(
        fmt::format("// from {}:{}, function '{}'", tu_.fileName, tu_.line(root->getBeginLoc()),
                    na_.facts.fn->getNameAsString()));
    k.comments.leading.push_back(
        fmt::format("// iterations independent: {}", plan_.why));
    for (const clang::VarDecl *r : plan_.ompReductions)
      k.comments.leading.push_back(fmt::format(
          "// reduction of '{}' over the loop space: combining the partial results is not "
          "modelled",
          r->getName().str()));

    countOps_ = true;
    for (const clang::Stmt *s : plan_.body)
      stmt(s);
    flush();
    return k;
  }

private:
  struct Block {
    std::vector<skeleton::Stmt> *out;
    int64_t comp;
    int64_t fp64 = 0; ///< of comp, the FP64 arithmetic: `comp N (fp64:M)`
    std::vector<skeleton::Stmt> stores = {}; ///< written at the end of the stretch
  };
  struct Val {
    std::optional<Expr> sym;
  };

  // -------------------------------------------------------------------------
  // names

  std::string declare(const std::string &base) {
    std::string b = skeleton::isKeyword(base) ? base + "_" : base;
    std::string name = b;
    for (int k = 2; inScope(name); ++k)
      name = fmt::format("{}_{}", b, k);
    scopes_.back().insert(name);
    return name;
  }
  bool inScope(const std::string &n) const {
    for (const auto &s : scopes_)
      if (s.count(n))
        return true;
    return false;
  }

  // -------------------------------------------------------------------------
  // output

  /// double or long double: its arithmetic issues at the FP64 rate.
  bool isFp64(clang::QualType t) const {
    return !t.isNull() && t->isRealFloatingType() && tu_.ast.getTypeSize(t) > 32;
  }
  /// n instructions of an operation of type t; those of a double operation issue
  /// at the FP64 rate (docs/model.md section 7, `fp64`), so they are counted apart too.
  void cost(int64_t n, clang::QualType t = {}) {
    if (!countOps_)
      return;
    blk_->comp += n;
    if (isFp64(t))
      blk_->fp64 += n;
  }
  /// End of a straight-line stretch: its instruction count, then its stores.
  void flush() {
    if (blk_->comp > 0) {
      skeleton::Stmt s;
      s.kind = skeleton::Stmt::Kind::Comp;
      s.comp = blk_->comp;
      s.fp64 = blk_->fp64;
      blk_->out->push_back(std::move(s));
    }
    blk_->comp = 0;
    blk_->fp64 = 0;
    for (auto &st : blk_->stores)
      blk_->out->push_back(std::move(st));
    blk_->stores.clear();
  }
  void emit(skeleton::Stmt s) { blk_->out->push_back(std::move(s)); }

  // -------------------------------------------------------------------------
  // values

  /// A loop bound or extent: an integer constant in skeleton form.
  Expr constExpr(const clang::Expr *e) {
    if (auto c = tu_.constantExpr(e))
      return *c;
    Val v = eval(e);
    if (v.sym)
      return *v.sym;
    return Expr::lit(na_.knownValue(e).value_or(0));
  }

  /// Why `e` has no skeleton form: the first variable without a value.
  std::string whyNoValue(const clang::Expr *e) {
    std::set<const clang::VarDecl *> vs;
    std::function<void(const clang::Stmt *)> collect = [&](const clang::Stmt *s) {
      if (!s)
        return;
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
          vs.insert(v);
      for (const clang::Stmt *c : s->children())
        collect(c);
    };
    collect(e);
    for (const clang::VarDecl *v : vs) {
      if (loopVal_.count(v) || env_.count(v) || na_.knownScalar(v))
        continue;
      if (v->getType()->isPointerType() || v->getType()->isArrayType())
        continue;
      if (defs_.count(v))
        return fmt::format("'{}' holds a value the skeleton cannot express", v->getName().str());
      return na_.noValueReason(v);
    }
    return "it is not an integer expression of indices, constants and loaded values";
  }

  Affine affineOf(const clang::Expr *e) {
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
      return std::nullopt;
    };
    return toAffine(e, tu_.ast, lookup);
  }

  Affine dimAffine(const DimForm &d) {
    if (d.direct)
      return affineOf(d.direct);
    Affine r = Affine::constantOf(d.constant);
    for (const auto &[coef, factor] : d.terms)
      r = affineAdd(r, affineScale(affineOf(factor), coef));
    return r;
  }

  Val eval(const clang::Expr *e) {
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

  Val evalNode(const clang::Expr *e) {
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
      cost(castCost(c->getCastKind()), isFp64(from) ? from : e->getType());
      if (e->getType()->isIntegralOrEnumerationType() &&
          c->getSubExpr()->getType()->isIntegralOrEnumerationType())
        return v;
      return {};
    }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
      if (!v)
        return {};
      auto l = loopVal_.find(v);
      if (l != loopVal_.end())
        return {l->second};
      auto en = env_.find(v);
      if (en != env_.end())
        return {en->second};
      if (auto k = na_.knownScalar(v))
        return {k->second};
      return {};
    }
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      return load(a);
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e))
      return unary(u);
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e))
      return binary(b);
    if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      eval(co->getCond());
      eval(co->getTrueExpr());
      eval(co->getFalseExpr());
      cost(1); // select
      return {};
    }
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
      for (const clang::Expr *a : call->arguments())
        eval(a);
      cost(callCost(call->getDirectCallee()), call->getType()); // a double routine: FP64
      return {};
    }
    if (auto *il = llvm::dyn_cast<clang::InitListExpr>(e)) {
      for (const clang::Expr *i : il->inits())
        eval(i);
      return {};
    }
    throw Unsupported{e->getBeginLoc(),
                      fmt::format("the expression '{}'", tu_.sourceText(e->getSourceRange()))};
  }

  Val unary(const clang::UnaryOperator *u) {
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
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
        Addr ad = address(a);
        readAddr(ad);
        cost(binaryOpCost(clang::BO_Add, sub->getType(), tu_.ast, std::nullopt), sub->getType());
        writeAddr(ad);
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
      return {};
    case clang::UO_Not:
    case clang::UO_LNot: cost(1); return {};
    default:
      throw Unsupported{u->getBeginLoc(),
                        fmt::format("the expression '{}'", tu_.sourceText(u->getSourceRange()))};
    }
  }

  int64_t arithCost(const clang::Expr *lhs, const clang::Expr *rhs, clang::BinaryOperatorKind op,
                    clang::QualType t) {
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

  Val binary(const clang::BinaryOperator *b) {
    auto op = b->getOpcode();
    const clang::Expr *lhs = b->getLHS()->IgnoreParens();
    if (op == clang::BO_Assign) {
      if (auto *v = refVar(lhs)) {
        Val r = eval(b->getRHS());
        assignScalar(v, b->getRHS(), r);
        return r;
      }
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
        Addr ad = address(a);
        Val r = eval(b->getRHS());
        writeAddr(ad);
        return r;
      }
      throw Unsupported{b->getBeginLoc(), "an assignment the skeleton cannot express"};
    }
    if (b->isCompoundAssignmentOp()) {
      auto *ca = llvm::cast<clang::CompoundAssignOperator>(b);
      clang::QualType t = ca->getComputationResultType();
      if (auto *v = refVar(lhs)) {
        Val r = eval(b->getRHS());
        cost(arithCost(nullptr, b->getRHS(), op, t), t);
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
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
        Addr ad = address(a);
        readAddr(ad);
        eval(b->getRHS());
        cost(arithCost(nullptr, b->getRHS(), op, t), t);
        writeAddr(ad);
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
    if (b->isComparisonOp())
      cost(binaryOpCost(op, t, tu_.ast, std::nullopt), t); // DSETP for doubles
    else
      cost(arithCost(b->getLHS(), b->getRHS(), op, b->getType()), b->getType());
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
    return {};
  }

  void forget(const clang::VarDecl *v) {
    env_.erase(v);
    affEnv_.erase(v);
  }

  void assignScalar(const clang::VarDecl *v, const clang::Expr *rhs, const Val &r) {
    const clang::Expr *s = rhs->IgnoreParenImpCasts();
    if (llvm::isa<clang::FloatingLiteral>(s) || tu_.constantValue(rhs) ||
        llvm::isa<clang::IntegerLiteral>(s))
      cost(1); // a constant moved into a register
    if (!v->getType()->isIntegralOrEnumerationType() || !r.sym) {
      forget(v);
      return;
    }
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

  int64_t callCost(const clang::FunctionDecl *fd) {
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

  /// The instructions of a function body without memory (inlined calls):
  /// both sides of an `if` count, as predicated code.
  int64_t pureCost(const clang::Stmt *s) {
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

  // -------------------------------------------------------------------------
  // memory

  struct Addr {
    const ArrayShape *shape = nullptr;
    std::string name;
    std::vector<Expr> idx;
    std::string key;
    int64_t cost = 0;
  };

  Addr address(const clang::ArraySubscriptExpr *a) {
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

  [[noreturn]] void fail(const clang::ArraySubscriptExpr *a, const clang::Expr *sub) {
    throw Unsupported{a->getBeginLoc(),
                      fmt::format("the subscript '{}' cannot be written in the skeleton: {}",
                                  tu_.sourceText(sub->getSourceRange()), whyNoValue(sub))};
  }

  /// Read the element: a load unless this iteration already has it.
  void readAddr(const Addr &ad) {
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

  void writeAddr(const Addr &ad) {
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

  Val load(const clang::ArraySubscriptExpr *a) {
    Addr ad = address(a);
    readAddr(ad);
    if (ad.shape->isRegister || !a->getType()->isIntegralOrEnumerationType())
      return {};
    return {Expr::access(ad.name, ad.idx)};
  }

  // -------------------------------------------------------------------------
  // statements

  void stmt(const clang::Stmt *s) {
    if (!s)
      return;
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt *c : cs->body())
        stmt(c);
      return;
    }
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl *d : ds->decls()) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(d);
        if (!v)
          continue;
        forget(v);
        if (scan_.registerArrays.count(v)) {
          if (v->getInit())
            eval(v->getInit());
          continue;
        }
        if (v->getInit()) {
          Val r = eval(v->getInit());
          assignScalar(v, v->getInit(), r);
        }
      }
      return;
    }
    if (llvm::isa<clang::NullStmt>(s))
      return;
    if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
      stmt(as->getSubStmt());
      return;
    }
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      loop(f);
      return;
    }
    if (llvm::isa<clang::OMPLoopDirective>(s))
      if (auto *f = asFor(s)) {
        loop(f);
        return;
      }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      branch(is);
      return;
    }
    if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
      eval(e);
      return;
    }
    throw Unsupported{s->getBeginLoc(),
                      fmt::format("a statement of kind '{}'", s->getStmtClassName())};
  }

  std::set<std::string> arraysStoredIn(const clang::ForStmt *f) {
    std::set<std::string> out;
    for (const AccessRec &a : scan_.accesses)
      if (a.write && scan_.inside(a.loop, f)) {
        const ArrayShape &sh = plan_.shapes.at(a.base);
        if (!sh.isRegister)
          out.insert(sh.name);
      }
    return out;
  }

  void forgetWrittenIn(const clang::ForStmt *f) {
    for (const ScalarWrite &w : scan_.scalarWrites)
      if (scan_.inside(w.loop, f))
        forget(w.var);
  }

  void loop(const clang::ForStmt *f) {
    const LoopHeader &h = scan_.headers.at(f);
    // values carried around the loop are unknown inside it
    forgetWrittenIn(f);
    bool save = countOps_;
    countOps_ = false; // loop control is the model's business (unrolling)
    Val a = eval(h.init), b = eval(h.bound);
    std::optional<Expr> step;
    if (h.stepExpr) {
      step = eval(h.stepExpr).sym;
      if (!step)
        throw Unsupported{f->getBeginLoc(),
                          fmt::format("the step of this loop cannot be written in the skeleton: {}",
                                      whyNoValue(h.stepExpr))};
    } else if (h.step > 1) {
      step = Expr::lit(h.step);
    }
    countOps_ = save;
    if (!a.sym)
      throw Unsupported{f->getBeginLoc(),
                        fmt::format("the start of this loop cannot be written in the skeleton: {}",
                                    whyNoValue(h.init))};
    if (!b.sym)
      throw Unsupported{f->getBeginLoc(),
                        fmt::format("the bound of this loop cannot be written in the skeleton: {}",
                                    whyNoValue(h.bound))};
    flush();
    skeleton::Loop l;
    if (!h.decreasing) {
      l.lo = *a.sym;
      l.hi = h.inclusive ? plusConst(*b.sym, 1) : *b.sym;
    } else {
      l.lo = h.inclusive ? *b.sym : plusConst(*b.sym, 1);
      l.hi = plusConst(*a.sym, 1);
    }
    l.step = step;
    std::string cname = h.var->getName().str();
    std::vector<std::string> comments;
    bool data = mentionsAccess(l.lo, bindNames_) || mentionsAccess(l.hi, bindNames_);
    auto pragma = tu_.pragmaClause(f, "trip");
    if (data) {
      if (pragma) {
        l.tripHint = static_cast<int64_t>(pragma->value);
        comments.push_back("// trip count from '#pragma skelcast trip'");
      } else if (auto t = tu_.opts.trips.find(cname); t != tu_.opts.trips.end()) {
        l.tripHint = t->second;
        tu_.usedTrips.insert(cname);
        comments.push_back(fmt::format("// trip count from --trip {}={}", cname, t->second));
      } else {
        l.tripHint = kDefaultTrip;
        comments.push_back(fmt::format("// trip count unknown: {} assumed", kDefaultTrip));
        warnings_.push_back(tu_.warning(
            f->getBeginLoc(),
            fmt::format("the trip count of loop '{}' depends on data: {} assumed (add '#pragma "
                        "skelcast trip(N)' or --trip {}=N)",
                        cname, kDefaultTrip, cname)));
      }
    } else if (pragma) {
      warnings_.push_back(tu_.warning(
          pragma->loc, "'#pragma skelcast trip' ignored: the bounds of this loop do not depend "
                       "on data"));
    }
    // `for` when the trip count is a small constant or the index walks no data
    std::optional<int64_t> trip;
    {
      auto lo = na_.knownValue(h.decreasing ? h.bound : h.init);
      auto hi = na_.knownValue(h.decreasing ? h.init : h.bound);
      if (lo && hi && !h.stepExpr) {
        int64_t n = h.decreasing ? (*hi - *lo + (h.inclusive ? 1 : 0))
                                 : (*hi - *lo + (h.inclusive ? 1 : 0));
        trip = n <= 0 ? 0 : (n + h.step - 1) / h.step;
      }
    }
    bool walksData = false;
    for (const AccessRec &acc : scan_.accesses) {
      if (!scan_.inside(acc.loop, f) || plan_.shapes.at(acc.base).isRegister)
        continue;
      for (const clang::Expr *s : acc.subs)
        if (mentions(s, h.var))
          walksData = true;
    }
    l.isStream = !(trip && *trip <= kSmallTrip) && walksData;

    // the body
    scopes_.emplace_back();
    l.index = declare(cname);
    loopVal_[h.var] = Expr::ref(l.index);
    auto savedAvail = avail_;
    for (const std::string &arr : arraysStoredIn(f))
      avail_.erase(arr);
    Block body{&l.body, 0};
    Block *outer = blk_;
    blk_ = &body;
    stmt(f->getBody());
    flush();
    blk_ = outer;
    avail_ = savedAvail;
    for (const std::string &arr : arraysStoredIn(f))
      avail_.erase(arr);
    forgetWrittenIn(f);
    loopVal_.erase(h.var);
    scopes_.pop_back();

    skeleton::Stmt st;
    st.kind = skeleton::Stmt::Kind::Loop;
    st.loop = std::move(l);
    st.comments.leading = comments;
    emit(std::move(st));
  }

  /// Number of operators in a memory-free, loop-free statement; -1 if it has
  /// memory accesses, loops, branches or calls that are not in the table.
  int smallPure(const clang::Stmt *s) {
    if (!s)
      return 0;
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::IfStmt>(s) ||
        llvm::isa<clang::OMPExecutableDirective>(s))
      return -1;
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
      auto it = byExpr_.find(a);
      if (it == byExpr_.end() || !plan_.shapes.at(it->second->base).isRegister)
        return -1;
    }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(s)) {
      auto *fd = c->getDirectCallee();
      if (!fd || !mathCallCost(fd->getNameAsString()) ||
          *mathCallCost(fd->getNameAsString()) > 4)
        return -1;
    }
    int n = (llvm::isa<clang::BinaryOperator>(s) || llvm::isa<clang::UnaryOperator>(s) ||
             llvm::isa<clang::ConditionalOperator>(s))
                ? 1
                : 0;
    for (const clang::Stmt *c : s->children()) {
      int k = smallPure(c);
      if (k < 0)
        return -1;
      n += k;
    }
    return n;
  }

  void forgetAssignedIn(const clang::Stmt *s) {
    if (!s)
      return;
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s))
      if (b->isAssignmentOp())
        if (auto *v = refVar(b->getLHS()))
          forget(v);
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
      if (u->isIncrementDecrementOp())
        if (auto *v = refVar(u->getSubExpr()))
          forget(v);
    for (const clang::Stmt *c : s->children())
      forgetAssignedIn(c);
  }

  void branch(const clang::IfStmt *is) {
    int nt = smallPure(is->getThen()), ne = smallPure(is->getElse());
    if (nt >= 0 && ne >= 0 && nt <= 8 && ne <= 8) {
      // predicated: both sides execute, a select picks the result
      eval(is->getCond());
      stmt(is->getThen());
      stmt(is->getElse());
      cost(1);
      forgetAssignedIn(is->getThen());
      forgetAssignedIn(is->getElse());
      return;
    }
    eval(is->getCond());
    flush();
    std::string source;
    double p = probability(is, source);
    skeleton::Branch b;
    b.prob = p;
    auto savedAvail = avail_;
    Block *outer = blk_;
    std::set<std::string> stored;
    auto arm = [&](const clang::Stmt *s, std::vector<skeleton::Stmt> &out, bool polarity) {
      Block blk{&out, 0};
      blk_ = &blk;
      path_.emplace_back(is->getCond(), polarity);
      scopes_.emplace_back();
      auto envSave = env_;
      auto affSave = affEnv_;
      stmt(s);
      flush();
      for (const auto &[arr, keys] : avail_)
        if (!savedAvail.count(arr) || savedAvail.at(arr) != keys)
          stored.insert(arr);
      env_ = envSave;
      affEnv_ = affSave;
      scopes_.pop_back();
      path_.pop_back();
      avail_ = savedAvail;
      blk_ = outer;
    };
    arm(is->getThen(), b.thenBody, true);
    if (is->getElse()) {
      b.hasElse = true;
      arm(is->getElse(), b.elseBody, false);
    }
    // loads of either side are not available after the branch; stores
    // invalidate what was loaded before
    for (const std::string &arr : stored)
      if (storesIn(is, arr))
        avail_.erase(arr);
    forgetAssignedIn(is->getThen());
    forgetAssignedIn(is->getElse());
    skeleton::Stmt st;
    st.kind = skeleton::Stmt::Kind::Branch;
    st.branch = std::move(b);
    std::string cond = tu_.sourceText(is->getCond()->getSourceRange());
    if (cond.size() > 60)
      cond = cond.substr(0, 57) + "...";
    st.comments.leading.push_back(
        fmt::format("// line {}: if ({}): p {}", tu_.line(is->getBeginLoc()), cond, source));
    emit(std::move(st));
  }

  bool storesIn(const clang::IfStmt *is, const std::string &arr) {
    std::function<bool(const clang::Stmt *)> walk = [&](const clang::Stmt *s) -> bool {
      if (!s)
        return false;
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
        auto it = byExpr_.find(a);
        if (it != byExpr_.end() && it->second->write &&
            plan_.shapes.at(it->second->base).name == arr)
          return true;
      }
      for (const clang::Stmt *c : s->children())
        if (walk(c))
          return true;
      return false;
    };
    return walk(is->getThen()) || walk(is->getElse());
  }

  double probability(const clang::IfStmt *is, std::string &source) {
    if (auto pc = tu_.pragmaClause(is, "prob")) {
      source = "from '#pragma skelcast prob'";
      return pc->value;
    }
    if (auto p = exactProbability(is->getCond())) {
      source = "counted over the loop space";
      return std::stod(fmt::format("{:.4g}", *p));
    }
    source = "unknown: 0.5 assumed";
    warnings_.push_back(tu_.warning(
        is->getBeginLoc(), "the probability of this branch is unknown: 0.5 assumed (add "
                           "'#pragma skelcast prob(P)' before the 'if')"));
    return 0.5;
  }

  /// The fraction of the iterations (of the loops the condition names) that
  /// take the branch, among those that reach it; nullopt if the condition is
  /// not a function of loop indices and constants, or the space is too big.
  std::optional<double> exactProbability(const clang::Expr *cond) {
    std::vector<std::pair<const clang::Expr *, bool>> conds = path_;
    conds.emplace_back(cond, true);
    std::set<const clang::VarDecl *> vars;
    std::function<bool(const clang::Stmt *)> collect = [&](const clang::Stmt *s) -> bool {
      if (!s)
        return true;
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
          if (plan_.loops.count(v) && loopVal_.count(v))
            vars.insert(v);
          else if (!na_.knownScalar(v))
            return false;
        }
      }
      for (const clang::Stmt *c : s->children())
        if (!collect(c))
          return false;
      return true;
    };
    std::vector<std::pair<const clang::Expr *, bool>> usable;
    for (const auto &c : conds) {
      std::set<const clang::VarDecl *> before = vars;
      if (collect(c.first))
        usable.push_back(c);
      else if (c.first == cond)
        return std::nullopt;
      else
        vars = before;
    }
    // the loops whose bounds these loops depend on
    bool grew = true;
    while (grew) {
      grew = false;
      for (const clang::VarDecl *v : std::set<const clang::VarDecl *>(vars)) {
        const LoopHeader &h = plan_.loops.at(v).hdr;
        std::set<const clang::VarDecl *> more;
        for (const clang::Expr *e : {h.init, h.bound}) {
          std::set<const clang::VarDecl *> vs;
          collectVars(e, vs);
          for (auto *w : vs) {
            if (plan_.loops.count(w) && loopVal_.count(w)) {
              if (!vars.count(w)) {
                vars.insert(w);
                grew = true;
              }
            } else if (!na_.knownScalar(w)) {
              return std::nullopt;
            }
          }
        }
        if (h.stepExpr)
          return std::nullopt;
      }
    }
    std::vector<const clang::VarDecl *> order(vars.begin(), vars.end());
    std::sort(order.begin(), order.end(), [&](auto *x, auto *y) {
      int dx = plan_.loops.at(x).depth, dy = plan_.loops.at(y).depth;
      return dx != dy ? dx < dy : tu_.sm.isBeforeInTranslationUnit(x->getLocation(),
                                                                     y->getLocation());
    });
    // compile the conditions and the bounds over slots (the loop variables)
    auto slotOf = [&](const clang::ValueDecl *d) -> std::optional<int> {
      for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == d)
          return static_cast<int>(i);
      return std::nullopt;
    };
    auto constOf = [&](const clang::ValueDecl *d) -> std::optional<int64_t> {
      if (auto k = na_.knownScalar(llvm::dyn_cast<clang::VarDecl>(d)))
        return k->first;
      return std::nullopt;
    };
    std::vector<CompiledInt> cc;
    for (const auto &c : usable) {
      auto k = CompiledInt::compile(c.first, tu_.ast, slotOf, constOf);
      if (!k)
        return std::nullopt;
      cc.push_back(std::move(*k));
    }
    std::vector<CompiledInt> lo, hi;
    for (const clang::VarDecl *v : order) {
      const LoopHeader &h = plan_.loops.at(v).hdr;
      auto a = CompiledInt::compile(h.init, tu_.ast, slotOf, constOf);
      auto b = CompiledInt::compile(h.bound, tu_.ast, slotOf, constOf);
      if (!a || !b)
        return std::nullopt;
      lo.push_back(std::move(*a));
      hi.push_back(std::move(*b));
    }
    std::vector<int64_t> slots(order.size() + 1, 0);
    int64_t budget = kEnumerationBudget, reach = 0, taken = 0;
    bool ok = true;
    std::function<void(size_t)> rec = [&](size_t k) {
      if (!ok)
        return;
      if (k == order.size()) {
        if (--budget < 0) {
          ok = false;
          return;
        }
        for (size_t c = 0; c + 1 < cc.size(); ++c) {
          auto r = cc[c].eval(slots.data());
          if (!r) {
            ok = false;
            return;
          }
          if ((*r != 0) != usable[c].second)
            return;
        }
        ++reach;
        auto r = cc.back().eval(slots.data());
        if (!r) {
          ok = false;
          return;
        }
        if (*r != 0)
          ++taken;
        return;
      }
      const LoopHeader &h = plan_.loops.at(order[k]).hdr;
      auto i0 = lo[k].eval(slots.data()), b = hi[k].eval(slots.data());
      if (!i0 || !b) {
        ok = false;
        return;
      }
      if (!h.decreasing) {
        int64_t end = h.inclusive ? *b + 1 : *b;
        for (int64_t x = *i0; x < end && ok; x += h.step) {
          slots[k] = x;
          rec(k + 1);
        }
      } else {
        int64_t end = h.inclusive ? *b : *b + 1;
        for (int64_t x = *i0; x >= end && ok; --x) {
          slots[k] = x;
          rec(k + 1);
        }
      }
    };
    rec(0);
    if (!ok || reach == 0)
      return std::nullopt;
    return static_cast<double>(taken) / static_cast<double>(reach);
  }

  NestAnalysis &na_;
  TUContext &tu_;
  const NestScan &scan_;
  NestPlan &plan_;
  std::vector<Warning> &warnings_;

  Block *blk_ = nullptr;
  bool countOps_ = true;
  std::map<const clang::ArraySubscriptExpr *, const AccessRec *> byExpr_;
  std::map<const clang::VarDecl *, int> defs_;
  std::map<std::string, std::set<std::string>> avail_;
  std::map<const clang::VarDecl *, Expr> env_;
  std::map<const clang::VarDecl *, Affine> affEnv_;
  std::map<const clang::VarDecl *, Expr> loopVal_;
  std::vector<std::set<std::string>> scopes_;
  std::set<std::string> bindNames_;
  std::vector<std::pair<const clang::Expr *, bool>> path_;
  std::map<const clang::FunctionDecl *, int64_t> calleeCost_;
};

} // namespace

skeleton::Kernel buildKernel(NestAnalysis &na, const std::string &name,
                             std::vector<Warning> &warnings) {
  Builder b(na, warnings);
  return b.build(name);
}

} // namespace skelcast::frontend
