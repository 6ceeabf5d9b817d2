// NestAnalysis: values, affine forms, ranges, delinearisation (NestAnalysis.h).
#include "NestAnalysis.h"
#include "ClangNodes.h"
#include "StructFields.h"

#include "skelcast/skeleton/Parser.h"

#include <fmt/format.h>

namespace skelcast::frontend {

using skeleton::Expr;

std::optional<std::pair<int64_t, Expr>> NestAnalysis::knownScalar(const clang::VarDecl *v) {
  if (!v || !v->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  if (plan.loops.count(v))
    return std::nullopt;
  std::string name = v->getName().str();
  if (auto o = tu.scalarOption(name))
    return std::make_pair(*o, tu.useScalarOption(name));
  auto fa = facts.assignments.find(v);
  bool neverAssigned = fa == facts.assignments.end() || fa->second == 0;
  if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v)) {
    // a size passed by the file's callers (PolyBench's `kernel_gemm(ni, ...)`)
    if (!neverAssigned || facts.addressTaken.count(v))
      return std::nullopt;
    if (auto a = tu.callValues.valueOf(pv))
      return std::make_pair(a->value, a->form);
    return std::nullopt;
  }
  const clang::Expr *init = v->getInit();
  if (!init && fa != facts.assignments.end() && fa->second == 1 && !facts.addressTaken.count(v)) {
    // `int t; t = order < 1024 ? order : 1024;`: one assignment at the top of
    // the body, before every use (StructFields.h)
    init = assignedOnceAtTop(facts.fn, v, tu.sm);
    neverAssigned = init != nullptr;
  }
  if (!init)
    return std::nullopt;
  bool isConst = v->getType().isConstQualified();
  if (v->hasGlobalStorage() && !isConst && !(v->getStorageClass() == clang::SC_Static))
    return std::nullopt; // another file may change it
  if (!neverAssigned || facts.addressTaken.count(v))
    return std::nullopt;
  auto value = tu.constantValue(init);
  if (!value && !v->hasGlobalStorage() && !localBusy_.count(v)) {
    // a local computed once from known sizes (`int chunks = rows*cols / 256;`)
    localBusy_.insert(v);
    value = knownValue(init);
    localBusy_.erase(v);
  }
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

std::string SequentialLoop::name() const {
  std::string n = var->getName().str();
  return skeleton::isKeyword(n) ? n + "_" : n;
}

const SequentialLoop *NestAnalysis::repeatIndex() const {
  if (!sequential || sequential->empty() || !sequential->back().indexed())
    return nullptr;
  return &sequential->back();
}

namespace {

/// The statements of the body of `loop` that set `v`: its declaration with an
/// initialiser, an assignment (`=`, `+=`, ...) or `++`/`--`, at any depth.
void setsOf(const clang::Stmt *s, const clang::VarDecl *v, std::vector<const clang::Stmt *> &out) {
  if (!s)
    return;
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *d : ds->decls())
      if (d == v && v->getInit())
        out.push_back(s);
  } else if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
    if (b->isAssignmentOp() && refVar(b->getLHS()) == v)
      out.push_back(s);
  } else if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s)) {
    if (u->isIncrementDecrementOp() && refVar(u->getSubExpr()) == v)
      out.push_back(s);
  }
  for (const clang::Stmt *c : s->children())
    setsOf(c, v, out);
}

/// An OpenMP directive inside `s` that gives each thread its own `v` (a
/// `private`, `lastprivate`, `linear` or `reduction` clause): the line, or 0.
unsigned privatising(const clang::Stmt *s, const clang::VarDecl *v, TUContext &tu) {
  if (!s)
    return 0;
  if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
    auto names = [&](const auto *c) {
      for (const clang::Expr *e : c->varlists())
        if (refVar(e) == v)
          return true;
      return false;
    };
    bool found = false;
    for (const auto *c : d->getClausesOfKind<clang::OMPPrivateClause>())
      found = found || names(c);
    for (const auto *c : d->getClausesOfKind<clang::OMPLastprivateClause>())
      found = found || names(c);
    for (const auto *c : d->getClausesOfKind<clang::OMPLinearClause>())
      found = found || names(c);
    for (const auto *c : d->getClausesOfKind<clang::OMPReductionClause>())
      found = found || names(c);
    if (found)
      return tu.line(d->getBeginLoc());
  }
  for (const clang::Stmt *c : s->children())
    if (unsigned l = privatising(c, v, tu))
      return l;
  return 0;
}

} // namespace

NestAnalysis::PassDef &NestAnalysis::passDef(const clang::VarDecl *v) {
  if (auto it = passDefs_.find(v); it != passDefs_.end())
    return it->second;
  PassDef &d = passDefs_[v];
  const SequentialLoop *rep = repeatIndex();
  if (!rep || !v || v == rep->var || !v->isLocalVarDecl() || v->isStaticLocal() ||
      !v->getType()->isIntegralOrEnumerationType() || plan.loops.count(v) ||
      scan.localDecls.count(v))
    return d;
  const clang::Stmt *body = rep->loop->getBody();
  std::vector<const clang::Stmt *> sets;
  setsOf(body, v, sets);
  if (sets.empty())
    return d; // not set in the body: not a value of the pass
  std::string loopName = rep->var->getName().str();
  const clang::Stmt *set = sets.front();
  unsigned setLine = tu.line(set->getBeginLoc());
  auto fa = facts.assignments.find(v);
  int assigned = fa == facts.assignments.end() ? 0 : fa->second;
  if (facts.addressTaken.count(v)) {
    d.why = "its address is taken";
    return d;
  }
  // one set in the whole function: the declaration in the body, or one
  // assignment (an initialiser before the loop runs before every pass)
  bool declared = llvm::isa<clang::DeclStmt>(set);
  if (sets.size() != 1 || assigned != (declared ? 0 : 1)) {
    int sites = assigned + (v->getInit() ? 1 : 0);
    d.why = fmt::format("it is set {} times in the function (a value of the pass is set once)",
                        sites);
    return d;
  }
  bool top = false;
  if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(body)) {
    for (const clang::Stmt *c : cs->body())
      top = top || c == set;
  }
  if (!top) {
    d.why = fmt::format("it is set at line {} inside another statement of the loop's body (an "
                        "'if', a loop), which may not run once in every pass",
                        setLine);
    return d;
  }
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(set))
    d.value = b->getOpcode() == clang::BO_Assign ? b->getRHS() : nullptr;
  else if (llvm::isa<clang::DeclStmt>(set))
    d.value = v->getInit();
  if (!d.value) {
    d.why = fmt::format("line {} updates it from its value in the pass before", setLine);
    return d;
  }
  if (!tu.sm.isBeforeInTranslationUnit(tu.sm.getExpansionLoc(set->getEndLoc()),
                                       tu.sm.getExpansionLoc(plan.root->getBeginLoc()))) {
    d.why = fmt::format("it is set at line {}, after this nest, which reads the value of the "
                        "pass before",
                        setLine);
    d.value = nullptr;
    return d;
  }
  if (unsigned l = privatising(body, v, tu)) {
    d.why = fmt::format("the OpenMP directive at line {} gives each thread its own copy", l);
    d.value = nullptr;
    return d;
  }
  passBusy_.insert(v);
  d.setAt = tu.sm.getExpansionLoc(set->getBeginLoc());
  auto form = passForm(d.value, d.setAt);
  passBusy_.erase(v);
  PassDef &again = passDefs_[v]; // (the map may have grown)
  if (!form) {
    again.why = fmt::format("its value '{}' (line {}) is not an integer expression of '{}', "
                            "constants, known sizes and values set before it in the pass",
                            tu.sourceText(again.value->getSourceRange()), setLine, loopName);
    again.value = nullptr;
    return again;
  }
  again.form = form;
  return again;
}

std::optional<Expr> NestAnalysis::passValue(const clang::VarDecl *v) {
  return passDef(v).form;
}

std::string NestAnalysis::passWhy(const clang::VarDecl *v) {
  return passDef(v).why;
}

std::optional<Expr> NestAnalysis::passForm(const clang::Expr *e, clang::SourceLocation before) {
  const SequentialLoop *rep = repeatIndex();
  if (!rep || !e || !e->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  if (tu.constantValue(e)) {
    if (auto c = tu.constantExpr(e))
      return c;
    return Expr::lit(*tu.constantValue(e));
  }
  const clang::Expr *s = e->IgnoreParens();
  if (auto *c = llvm::dyn_cast<clang::CastExpr>(s)) {
    if (c->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return passForm(c->getSubExpr(), before);
    return std::nullopt;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
    if (!v)
      return std::nullopt;
    if (v == rep->var)
      return Expr::ref(rep->name());
    if (auto k = knownScalar(v))
      return k->second;
    if (passBusy_.count(v))
      return std::nullopt;
    const PassDef &d = passDef(v);
    if (!d.form || !tu.sm.isBeforeInTranslationUnit(d.setAt, tu.sm.getExpansionLoc(before)))
      return std::nullopt;
    return d.form;
  }
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s)) {
    if (u->getOpcode() == clang::UO_Minus)
      if (auto a = passForm(u->getSubExpr(), before))
        return Expr::neg(*a);
    if (u->getOpcode() == clang::UO_Plus)
      return passForm(u->getSubExpr(), before);
    return std::nullopt;
  }
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s)) {
    char op = 0;
    switch (b->getOpcode()) {
    case clang::BO_Add: op = '+'; break;
    case clang::BO_Sub: op = '-'; break;
    case clang::BO_Mul: op = '*'; break;
    case clang::BO_Div: op = '/'; break;
    case clang::BO_Rem: op = '%'; break;
    default: return std::nullopt;
    }
    auto l = passForm(b->getLHS(), before), r = passForm(b->getRHS(), before);
    if (!l || !r)
      return std::nullopt;
    return Expr::binary(op, *l, *r);
  }
  return std::nullopt;
}

std::optional<int64_t> NestAnalysis::passEval(const clang::Expr *e, int64_t index) {
  const SequentialLoop *rep = repeatIndex();
  return evalInt(e, tu.ast, [&](const clang::ValueDecl *x) -> std::optional<int64_t> {
    auto *v = llvm::dyn_cast<clang::VarDecl>(x);
    if (!v)
      return std::nullopt;
    if (rep && v == rep->var)
      return index;
    if (auto k = knownScalar(v))
      return k->first;
    const PassDef &d = passDef(v);
    if (!d.form || passBusy_.count(v))
      return std::nullopt;
    passBusy_.insert(v);
    auto r = passEval(d.value, index);
    passBusy_.erase(v);
    return r;
  });
}

std::optional<Interval> NestAnalysis::passRange(const clang::VarDecl *v) {
  const SequentialLoop *rep = repeatIndex();
  if (!rep || !passDef(v).form)
    return std::nullopt;
  if (passDefs_[v].rangeDone)
    return passDefs_[v].range;
  passDefs_[v].rangeDone = true;
  int64_t step = std::max<int64_t>(rep->stepValue, 1);
  if ((rep->range.hi - rep->range.lo) / step + 1 > kPassRangeLimit)
    return std::nullopt;
  const clang::Expr *value = passDefs_[v].value;
  std::optional<Interval> r;
  for (int64_t k = rep->range.lo; k <= rep->range.hi; k += step) {
    auto x = passEval(value, k);
    if (!x)
      return passDefs_[v].range = std::nullopt;
    r = r ? Interval{std::min(r->lo, *x), std::max(r->hi, *x)} : Interval{*x, *x};
  }
  return passDefs_[v].range = r;
}

std::string NestAnalysis::noValueReason(const clang::VarDecl *v) {
  std::string name = v->getName().str();
  if (std::string w = passWhy(v); !w.empty()) {
    const SequentialLoop *rep = repeatIndex();
    return fmt::format("'{}' is set in the body of the loop '{}' (line {}) around this nest, "
                       "and it is no value known in each pass: {}",
                       name, rep->var->getName().str(), rep->line, w);
  }
  if (sequential && !sequential->empty()) {
    const SequentialLoop &in = sequential->back();
    for (const SequentialLoop &s : *sequential) {
      if (s.var != v)
        continue;
      if (&s != &in)
        return fmt::format("it uses '{}', the index of the loop at line {}, outside the loop "
                           "'{}' (line {}) around this nest: {} (a 'repeat' holds no 'repeat')",
                           name, s.line, in.var->getName().str(), in.line, kTwoSequentialLoops);
      if (!s.indexed())
        return fmt::format("it uses '{}', the index of an enclosing loop that is not ported, "
                           "and that loop cannot launch it once per iteration: {}",
                           name, s.whyNotIndexed);
    }
  }
  for (const clang::VarDecl *e : enclosing)
    if (e == v)
      return fmt::format("it uses '{}', the index of an enclosing loop that is not ported", name);
  std::string why;
  if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v))
    why = tu.callValues.whyUnknown(pv);
  if (why.empty())
    return fmt::format("'{}' has no value known at compile time (give it with --extent {}=VALUE)",
                       name, name);
  return fmt::format("'{}' has no value known at compile time: {} (give it with --extent {}=VALUE)",
                     name, why, name);
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
    if (passValue(v)) {
      // a value of the pass: its definition when affine in the index, else
      // a symbol invariant in the launch
      if (!substBusy_.count(v)) {
        substBusy_.insert(v);
        Affine a = affine(passDefs_[v].value);
        substBusy_.erase(v);
        if (a.valid)
          return a;
      }
      return Affine::variable(v);
    }
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
  if (it == plan.loops.end()) {
    // the index of the indexed repeat around the nest: the values it takes
    if (const SequentialLoop *r = repeatIndex(); r && r->var == v)
      return r->range;
    if (v && passValue(v)) // a value of the pass: the values it takes over the passes
      return passRange(v);
    return std::nullopt;
  }
  auto c = rangeCache_.find(d);
  if (c != rangeCache_.end())
    return c->second;
  if (rangeBusy_.count(d))
    return std::nullopt;
  rangeBusy_.insert(d);
  const LoopHeader &h = it->second.hdr;
  std::optional<Interval> r;
  auto a = exprRange(h.init);
  auto b = exprRange(h.bound);
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

std::optional<Interval> NestAnalysis::exprRange(const clang::Expr *e) {
  if (!e)
    return std::nullopt;
  if (auto k = knownValue(e)) // `n / BL` with n known
    return Interval{*k, *k};
  Affine a = affine(e);
  if (a.valid)
    return range(a);
  const clang::Expr *s = e->IgnoreParenImpCasts();
  if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(s)) {
    auto t = exprRange(co->getTrueExpr()), f = exprRange(co->getFalseExpr());
    if (!t || !f)
      return std::nullopt;
    return Interval{std::min(t->lo, f->lo), std::max(t->hi, f->hi)};
  }
  auto *v = refVar(s);
  if (!v || !v->getType()->isIntegralOrEnumerationType() || plan.loops.count(v) ||
      substBusy_.count(v))
    return std::nullopt;
  // a scalar of the nest assigned once: the range of its value
  const ScalarWrite *def = nullptr;
  for (const auto &w : scan.scalarWrites)
    if (w.var == v) {
      if (def)
        return std::nullopt;
      def = &w;
    }
  if (!def || !def->value || !scan.localDecls.count(v))
    return std::nullopt; // (a local of the nest: no value from before it)
  substBusy_.insert(v);
  auto r = exprRange(def->value);
  substBusy_.erase(v);
  return r;
}

void Flattener::add(const clang::Expr *e, int64_t k) {
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

std::vector<int64_t> NestAnalysis::innerExtents(const clang::VarDecl *v) {
  clang::QualType t = v->getType();
  if (auto *d = llvm::dyn_cast<clang::DecayedType>(t.getTypePtr()))
    t = d->getOriginalType();
  const clang::ArrayType *at = tu.ast.getAsArrayType(t);
  if (!at)
    return {};
  std::vector<int64_t> inner;
  for (at = tu.ast.getAsArrayType(at->getElementType()); at; at = tu.ast.getAsArrayType(at->getElementType())) {
    std::optional<int64_t> n;
    if (auto *c = llvm::dyn_cast<clang::ConstantArrayType>(at))
      n = c->getSize().getSExtValue();
    else if (auto *vla = llvm::dyn_cast<clang::VariableArrayType>(at))
      n = knownValue(vla->getSizeExpr());
    if (!n || *n < 1)
      return {};
    inner.push_back(*n);
  }
  return inner;
}

bool NestAnalysis::staysInRows(const AccessRec &a) {
  if (a.subs.size() < 2)
    return true;
  std::vector<int64_t> ext = innerExtents(a.base);
  if (ext.empty()) {
    // rows through pointers are placed apart; any other shape is unknown
    clang::QualType t = a.base->getType();
    return t->isPointerType() && t->getPointeeType()->isPointerType();
  }
  if (ext.size() + 1 != a.subs.size())
    return false;
  for (size_t d = 1; d < a.subs.size(); ++d) {
    std::optional<Interval> r = range(affine(a.subs[d]));
    if (!r || r->lo < 0 || r->hi >= ext[d - 1])
      return false;
  }
  return true;
}

} // namespace skelcast::frontend
