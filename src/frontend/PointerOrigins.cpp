// Pointer origins (PointerOrigins.h): one walk per function collects each
// variable's definitions; an origin follows single definitions through
// copies and offsets to an object or a parameter.
#include "PointerOrigins.h"

#include "TUContext.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <fmt/format.h>

#include <optional>
#include <set>

namespace skelcast::frontend {
namespace {

const clang::VarDecl *varOf(const clang::Expr *e) {
  if (!e)
    return nullptr;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenCasts()))
    return llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  return nullptr;
}

bool isAllocation(const clang::Expr *e) {
  e = e->IgnoreParenCasts();
  if (llvm::isa<clang::CXXNewExpr>(e))
    return true;
  if (auto *c = llvm::dyn_cast<clang::CallExpr>(e))
    if (const clang::FunctionDecl *fd = c->getDirectCallee()) {
      llvm::StringRef n = fd->getName();
      return n == "malloc" || n == "calloc" || n == "aligned_alloc" || n == "realloc";
    }
  return false;
}

/// A parameter written with array syntax (`float a[N][M]`): an array, as today.
bool arraySyntaxParam(const clang::VarDecl *v) {
  auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v);
  return pv && pv->getOriginalType()->isArrayType();
}

clang::QualType elementOf(clang::QualType t) {
  t = t.getCanonicalType();
  if (auto *pt = t->getAs<clang::PointerType>())
    return pt->getPointeeType().getCanonicalType().getUnqualifiedType();
  if (auto *at = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr()))
    return at->getElementType().getCanonicalType().getUnqualifiedType();
  return {};
}

/// The definitions of a function's variables.
struct Defs : clang::RecursiveASTVisitor<Defs> {
  std::map<const clang::VarDecl *, std::vector<const clang::Expr *>> defs; ///< init and `v = e`
  std::map<const clang::VarDecl *, int> assigned;      ///< `v = e` sites
  std::map<const clang::VarDecl *, std::string> other; ///< changed otherwise: why

  bool VisitVarDecl(clang::VarDecl *v) {
    if (v->getInit())
      defs[v].push_back(v->getInit());
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (!b->isAssignmentOp())
      return true;
    if (auto *v = varOf(b->getLHS())) {
      if (b->getOpcode() == clang::BO_Assign) {
        defs[v].push_back(b->getRHS());
        ++assigned[v];
      } else {
        other.emplace(v, "is changed by '" + std::string(b->getOpcodeStr()) + "'");
      }
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (auto *v = varOf(u->getSubExpr())) {
      if (u->isIncrementDecrementOp())
        other.emplace(v, "is incremented");
      else if (u->getOpcode() == clang::UO_AddrOf)
        other.emplace(v, "has its address taken");
    }
    return true;
  }
};

/// Every call of each function of the file, with the function that makes it.
struct Calls : clang::RecursiveASTVisitor<Calls> {
  std::map<const clang::FunctionDecl *, std::vector<std::pair<const clang::CallExpr *,
                                                               const clang::FunctionDecl *>>>
      calls;
  const clang::FunctionDecl *current = nullptr;

  bool TraverseFunctionDecl(clang::FunctionDecl *fd) {
    const clang::FunctionDecl *saved = current;
    current = fd;
    bool r = clang::RecursiveASTVisitor<Calls>::TraverseFunctionDecl(fd);
    current = saved;
    return r;
  }
  bool VisitCallExpr(clang::CallExpr *c) {
    if (const clang::FunctionDecl *fd = c->getDirectCallee(); fd && current)
      calls[fd->getCanonicalDecl()].push_back({c, current});
    return true;
  }
};

} // namespace

struct PointerOrigins::Impl {
  TUContext &tu;
  std::map<const clang::FunctionDecl *, Defs> defs;
  std::map<std::pair<const clang::FunctionDecl *, const clang::VarDecl *>, PointerOrigin> cache;
  std::set<std::pair<const clang::FunctionDecl *, const clang::VarDecl *>> busy;
  std::optional<Calls> calls;

  explicit Impl(TUContext &t) : tu(t) {}

  Defs &defsOf(const clang::FunctionDecl *fn) {
    auto it = defs.find(fn);
    if (it != defs.end())
      return it->second;
    Defs &d = defs[fn];
    if (fn->getBody())
      d.TraverseStmt(fn->getBody());
    return d;
  }

  std::string name(const clang::VarDecl *v) const { return v->getName().str(); }

  /// Does `e` stay the same wherever it is evaluated in `fn` (no variable of
  /// it is assigned or changed in the function)?
  bool invariant(const clang::FunctionDecl *fn, const clang::Stmt *e) {
    if (!e)
      return true;
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
        Defs &d = defsOf(fn);
        if (d.assigned.count(v) || d.other.count(v))
          return false;
        if (v->hasGlobalStorage() && !v->getType().isConstQualified())
          return false; // another function may assign it
      }
    for (const clang::Stmt *c : e->children())
      if (!invariant(fn, c))
        return false;
    return true;
  }

  PointerOrigin unknown(std::string why) {
    PointerOrigin o;
    o.kind = PointerOrigin::Kind::Unknown;
    o.why = std::move(why);
    return o;
  }

  /// The origin of the pointer value `e` in `fn`.
  PointerOrigin trace(const clang::FunctionDecl *fn, const clang::Expr *e) {
    const clang::Expr *s = e->IgnoreParenCasts();
    if (isAllocation(s)) {
      PointerOrigin o;
      o.kind = PointerOrigin::Kind::Object; // an anonymous fresh allocation
      return o;
    }
    if (const clang::VarDecl *v = varOf(s))
      return get(fn, v);
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAdditiveOp()) {
      bool lhsPtr = b->getLHS()->getType()->isPointerType() || b->getLHS()->getType()->isArrayType();
      const clang::Expr *p = lhsPtr ? b->getLHS() : b->getRHS();
      const clang::Expr *k = lhsPtr ? b->getRHS() : b->getLHS();
      if (!k->getType()->isIntegerType())
        return unknown(fmt::format("it is set from '{}'", tu.sourceText(s->getSourceRange())));
      PointerOrigin o = trace(fn, p);
      if (o.kind == PointerOrigin::Kind::Unknown)
        return o;
      clang::QualType pt = p->IgnoreParenImpCasts()->getType();
      clang::QualType el = elementOf(pt);
      if (el.isNull() || el->isArrayType() || !invariant(fn, k))
        o.offsetKnown = false;
      o.offset.push_back({k, b->getOpcode() == clang::BO_Sub ? -1 : 1});
      return o;
    }
    const clang::ArraySubscriptExpr *as = nullptr;
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
      as = llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    else if (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(s);
             x && (x->getType()->isArrayType() || x->getType()->isPointerType()))
      as = x; // a row `a[i]`: into a, at an offset of rows
    if (as) {
      bool row = !llvm::isa<clang::UnaryOperator>(s);
      PointerOrigin o = trace(fn, as->getBase());
      if (o.kind == PointerOrigin::Kind::Unknown)
        return o;
      clang::QualType el = elementOf(as->getBase()->IgnoreParenImpCasts()->getType());
      if (row || el.isNull() || el->isArrayType() || !invariant(fn, as->getIdx()))
        o.offsetKnown = false;
      o.offset.push_back({as->getIdx(), 1});
      return o;
    }
    return unknown(fmt::format("it is set from '{}'", tu.sourceText(s->getSourceRange())));
  }

  PointerOrigin compute(const clang::FunctionDecl *fn, const clang::VarDecl *v) {
    PointerOrigin o;
    if (v->getType()->isArrayType() || arraySyntaxParam(v)) {
      o.kind = PointerOrigin::Kind::Object;
      o.root = v;
      return o;
    }
    if (!v->getType()->isPointerType())
      return unknown(fmt::format("'{}' is not a pointer", name(v)));
    if (v->hasGlobalStorage())
      return unknown(fmt::format("'{}' is a global or static pointer", name(v)));
    Defs &d = defsOf(fn);
    if (auto it = d.other.find(v); it != d.other.end())
      return unknown(fmt::format("'{}' {}", name(v), it->second));
    auto dit = d.defs.find(v);
    std::vector<const clang::Expr *> values;
    if (dit != d.defs.end())
      for (const clang::Expr *e : dit->second)
        if (!e->IgnoreParenCasts()->isNullPointerConstant(
                tu.ast, clang::Expr::NPC_ValueDependentIsNotNull))
          values.push_back(e);
    if (llvm::isa<clang::ParmVarDecl>(v)) {
      if (!values.empty())
        return unknown(fmt::format("'{}' is assigned in the function", name(v)));
      o.kind = PointerOrigin::Kind::Param;
      o.root = v;
      return o;
    }
    if (values.empty())
      return unknown(fmt::format("'{}' is never set", name(v)));
    bool fresh = true;
    for (const clang::Expr *e : values)
      fresh = fresh && isAllocation(e);
    if (fresh) {
      o.kind = PointerOrigin::Kind::Object;
      o.root = v;
      return o;
    }
    if (values.size() > 1)
      return unknown(fmt::format("'{}' is assigned more than once", name(v)));
    o = trace(fn, values[0]);
    if (o.kind == PointerOrigin::Kind::Unknown) {
      if (o.why.rfind("it ", 0) == 0)
        o.why = fmt::format("'{}' {}", name(v), o.why.substr(3));
      return o;
    }
    if (!o.root)
      o.root = v; // `float *p = (float *)malloc(n)` seen through a cast
    else if (elementOf(v->getType()) != elementOf(o.root->getType()) &&
             !(o.root->getType()->isArrayType() &&
               elementOf(o.root->getType())->isArrayType()))
      o.offsetKnown = false; // another element type: offsets in other units
    return o;
  }

  const PointerOrigin &get(const clang::FunctionDecl *fn, const clang::VarDecl *v) {
    auto key = std::make_pair(fn, v);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
    if (!busy.insert(key).second) {
      static const PointerOrigin cycle = [] {
        PointerOrigin o;
        o.why = "its definitions form a cycle";
        return o;
      }();
      return cycle;
    }
    PointerOrigin o = compute(fn, v);
    busy.erase(key);
    return cache[key] = std::move(o);
  }

  const std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> &
  callsOf(const clang::FunctionDecl *fn) {
    if (!calls) {
      calls.emplace();
      calls->TraverseDecl(tu.ast.getTranslationUnitDecl());
    }
    static const std::vector<std::pair<const clang::CallExpr *, const clang::FunctionDecl *>> none;
    auto it = calls->calls.find(fn->getCanonicalDecl());
    return it == calls->calls.end() ? none : it->second;
  }

  /// What a call passes for parameter `p`: its origin in the caller (root
  /// nullptr: an anonymous allocation).
  PointerOrigin passed(const clang::CallExpr *c, const clang::FunctionDecl *caller,
                       const clang::ParmVarDecl *p) {
    unsigned i = p->getFunctionScopeIndex();
    if (i >= c->getNumArgs())
      return unknown("a call passes no argument for it");
    return trace(caller, c->getArg(i));
  }

  /// An Unknown verdict when a call passes, for one of `ps`, a pointer whose
  /// origin the caller does not show.
  std::optional<AliasVerdict> untraced(const clang::FunctionDecl *fn,
                                       std::initializer_list<const clang::ParmVarDecl *> ps) {
    for (const auto &[c, caller] : callsOf(fn))
      for (const clang::ParmVarDecl *p : ps) {
        unsigned i = p->getFunctionScopeIndex();
        if (i < c->getNumArgs() &&
            passed(c, caller, p).kind == PointerOrigin::Kind::Unknown) {
          AliasVerdict r;
          r.kind = AliasVerdict::Kind::Unknown;
          r.why = fmt::format("the call on line {} passes '{}' for '{}', whose origin skelcast "
                              "cannot follow",
                              tu.line(c->getBeginLoc()),
                              tu.sourceText(c->getArg(i)->getSourceRange()), name(p));
          return r;
        }
      }
    return std::nullopt;
  }

  AliasVerdict relate(const clang::FunctionDecl *fn, const clang::VarDecl *a,
                      const clang::VarDecl *b) {
    AliasVerdict r;
    const PointerOrigin oa = get(fn, a), ob = get(fn, b);
    for (const PointerOrigin *o : {&oa, &ob})
      if (o->kind == PointerOrigin::Kind::Unknown) {
        r.kind = AliasVerdict::Kind::Unknown;
        r.why = o->why;
        return r;
      }
    if (oa.root == ob.root) {
      if (oa.offsetKnown && ob.offsetKnown) {
        r.kind = AliasVerdict::Kind::SameObject;
        return r;
      }
      const clang::VarDecl *into = oa.offsetKnown ? b : a;
      r.kind = AliasVerdict::Kind::Overlap;
      r.why = fmt::format("'{}' points into '{}' at an offset skelcast cannot follow", name(into),
                          name(oa.root));
      return r;
    }
    auto isParam = [](const PointerOrigin &o) { return o.kind == PointerOrigin::Kind::Param; };
    if (!isParam(oa) && !isParam(ob)) {
      r.kind = AliasVerdict::Kind::Distinct; // two objects
      return r;
    }
    if (!isParam(oa) || !isParam(ob)) {
      const PointerOrigin &obj = isParam(oa) ? ob : oa, &par = isParam(oa) ? oa : ob;
      if (!obj.root->hasGlobalStorage()) {
        r.kind = AliasVerdict::Kind::Distinct; // the function's own memory
        return r;
      }
      auto *p = llvm::cast<clang::ParmVarDecl>(par.root);
      if (auto u = untraced(fn, {p}))
        return *u;
      for (const auto &[c, caller] : callsOf(fn))
        if (passed(c, caller, p).root == obj.root) {
          r.kind = AliasVerdict::Kind::Overlap;
          r.why = fmt::format("the call on line {} passes '{}' for '{}'",
                              tu.line(c->getBeginLoc()), name(obj.root), name(p));
          return r;
        }
      r.kind = AliasVerdict::Kind::AssumedDistinct;
      r.params.push_back(p);
      return r;
    }
    auto *pa = llvm::cast<clang::ParmVarDecl>(oa.root), *pb = llvm::cast<clang::ParmVarDecl>(ob.root);
    if (auto u = untraced(fn, {pa, pb}))
      return *u;
    for (const auto &[c, caller] : callsOf(fn)) {
      const clang::VarDecl *x = passed(c, caller, pa).root, *y = passed(c, caller, pb).root;
      if (x && x == y) {
        r.kind = AliasVerdict::Kind::Overlap;
        r.why = fmt::format("the call on line {} passes '{}' for both '{}' and '{}'",
                            tu.line(c->getBeginLoc()), name(x), name(pa), name(pb));
        return r;
      }
    }
    r.kind = AliasVerdict::Kind::AssumedDistinct;
    r.params = {pa, pb};
    return r;
  }
};

PointerOrigins::PointerOrigins(TUContext &tu) : impl_(new Impl(tu)) {}
PointerOrigins::~PointerOrigins() = default;

const PointerOrigin &PointerOrigins::origin(const clang::FunctionDecl *fn,
                                            const clang::VarDecl *v) {
  return impl_->get(fn, v);
}

AliasVerdict PointerOrigins::relate(const clang::FunctionDecl *fn, const clang::VarDecl *a,
                                    const clang::VarDecl *b) {
  return impl_->relate(fn, a, b);
}

} // namespace skelcast::frontend
