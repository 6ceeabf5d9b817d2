// Values of parameters from the calls of the file (CallValues.h says why).
#include "CallValues.h"

#include "Affine.h"
#include "ClangNodes.h"
#include "NestScan.h"
#include "TUContext.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <fmt/format.h>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

/// Every call with a known callee, with the function it is in; the functions
/// named other than as a callee.
class CallIndexer : public clang::RecursiveASTVisitor<CallIndexer> {
public:
  CallIndexer(std::function<void(const clang::CallExpr *, const clang::FunctionDecl *)> onCall,
              std::set<const clang::FunctionDecl *> &escaped)
      : onCall_(std::move(onCall)), escaped_(escaped) {}

  bool TraverseFunctionDecl(clang::FunctionDecl *fd) {
    if (!fd->doesThisDeclarationHaveABody())
      return true;
    const clang::FunctionDecl *saved = fn_;
    fn_ = fd;
    bool ok = clang::RecursiveASTVisitor<CallIndexer>::TraverseFunctionDecl(fd);
    fn_ = saved;
    return ok;
  }
  bool VisitCallExpr(clang::CallExpr *c) {
    if (c->getDirectCallee()) {
      if (fn_)
        onCall_(c, fn_);
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(c->getCallee()->IgnoreParenImpCasts()))
        calleeRefs_.insert(dr);
    }
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *dr) {
    if (auto *fd = llvm::dyn_cast<clang::FunctionDecl>(dr->getDecl()))
      if (!calleeRefs_.count(dr))
        escaped_.insert(fd->getCanonicalDecl());
    return true;
  }

private:
  std::function<void(const clang::CallExpr *, const clang::FunctionDecl *)> onCall_;
  std::set<const clang::FunctionDecl *> &escaped_;
  std::set<const clang::DeclRefExpr *> calleeRefs_;
  const clang::FunctionDecl *fn_ = nullptr;
};

constexpr int kMaxDepth = 16; // calls followed through parameters of parameters

/// The values a function stores into each of its pointer variables: the
/// initialiser and every plain assignment; a pointer changed otherwise
/// (`p += 4`, `p++`, `&p`) is marked as such.
class PointerStores : public clang::RecursiveASTVisitor<PointerStores> {
public:
  std::map<const clang::VarDecl *, std::vector<const clang::Expr *>> values;
  std::set<const clang::VarDecl *> otherwise;

  bool VisitVarDecl(clang::VarDecl *v) {
    if (v->getType()->isPointerType() && v->getInit())
      values[v].push_back(v->getInit());
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (const clang::VarDecl *v = refVar(b->getLHS()); v && v->getType()->isPointerType()) {
      if (b->getOpcode() == clang::BO_Assign)
        values[v].push_back(b->getRHS());
      else if (b->isCompoundAssignmentOp())
        otherwise.insert(v);
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (const clang::VarDecl *v = refVar(u->getSubExpr()); v && v->getType()->isPointerType())
      if (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf)
        otherwise.insert(v);
    return true;
  }
};

/// The function a variable belongs to, through the captured regions of
/// OpenMP directives.
const clang::FunctionDecl *owningFunction(const clang::VarDecl *v) {
  for (const clang::DeclContext *dc = v->getDeclContext(); dc; dc = dc->getParent())
    if (auto *fd = llvm::dyn_cast<clang::FunctionDecl>(dc))
      return fd;
  return nullptr;
}

} // namespace

void CallValues::index() {
  if (indexed_)
    return;
  indexed_ = true;
  CallIndexer ix(
      [&](const clang::CallExpr *c, const clang::FunctionDecl *caller) {
        calls_[c->getDirectCallee()->getCanonicalDecl()].push_back({c, caller});
      },
      escaped_);
  ix.TraverseDecl(tu_.ast.getTranslationUnitDecl());
}

bool CallValues::writtenIn(const clang::VarDecl *v, const clang::FunctionDecl *fn) {
  auto f = facts_.find(fn);
  if (f == facts_.end())
    f = facts_.emplace(fn, scanFunction(fn)).first;
  auto a = f->second.assignments.find(v);
  // `&n` may be written through (scanf("%d", &n))
  return (a != f->second.assignments.end() && a->second > 0) || f->second.addressTaken.count(v);
}

CallValues::Resolved CallValues::resolve(const clang::Expr *e, const clang::FunctionDecl *caller,
                                         int depth) {
  Resolved r;
  if (!e) {
    r.why = "no value";
    return r;
  }
  if (depth > kMaxDepth) {
    r.why = fmt::format("a value passed through more than {} calls", kMaxDepth);
    return r;
  }
  const clang::Expr *s = e->IgnoreParenCasts();
  if (auto v = tu_.constantValue(s)) {
    r.value = v;
    r.source = s;
    return r;
  }
  // A variable: a parameter of the caller (follow its callers), or a local
  // set once by its initialiser.
  auto fromFile = [&](const clang::VarDecl *v) -> Resolved {
    Resolved out;
    if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(v)) {
      if (writtenIn(pv, caller)) {
        out.why = fmt::format("'{}', which '{}' assigns again", pv->getName().str(),
                              caller->getNameAsString());
        return out;
      }
      out = resolveParam(pv, depth + 1);
      if (!out.value)
        out.why = fmt::format("'{}', and {}", pv->getName().str(), out.why);
      return out;
    }
    if (v->hasLocalStorage() || (v->isStaticLocal() && v->getType().isConstQualified())) {
      if (writtenIn(v, caller)) {
        out.why = fmt::format("'{}', which '{}' assigns again", v->getName().str(),
                              caller->getNameAsString());
        return out;
      }
      if (!v->getInit()) {
        out.why = fmt::format("'{}', which has no initial value", v->getName().str());
        return out;
      }
      return resolve(v->getInit(), caller, depth + 1);
    }
    if (v->getType().isConstQualified() && v->getInit())
      return resolve(v->getInit(), caller, depth + 1);
    out.why = fmt::format("'{}', a global variable that may change", v->getName().str());
    return out;
  };
  // One whose value the file does not make known (read at run time: cfd's
  // `copy<float>(old, vars, nelr*NVAR)` in 'main') takes the value that
  // '--extent NAME=VALUE' gives it.
  auto variable = [&](const clang::VarDecl *v) -> Resolved {
    Resolved out = fromFile(v);
    std::string name = v->getName().str();
    if (!out.value && tu_.scalarOption(name)) {
      tu_.usedExtents.insert(name);
      out.value = tu_.scalarOption(name);
      out.why.clear();
    }
    return out;
  };
  if (auto *v = refVar(s))
    return variable(v);
  // Arithmetic on such values (`n - 1`, `2 * n`).
  std::string inner;
  auto value = evalInt(s, tu_.ast, [&](const clang::ValueDecl *d) -> std::optional<int64_t> {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v)
      return std::nullopt;
    Resolved rv = variable(v);
    if (!rv.value && inner.empty())
      inner = rv.why;
    return rv.value;
  });
  if (value) {
    r.value = value;
    return r;
  }
  r.why = !inner.empty() ? inner
                         : fmt::format("'{}', known only at run time",
                                       tu_.sourceText(s->getSourceRange()));
  return r;
}

CallValues::Resolved CallValues::resolveParam(const clang::ParmVarDecl *p, int depth) {
  if (auto m = memo_.find(p); m != memo_.end())
    return m->second;
  Resolved r;
  auto *fn = llvm::dyn_cast<clang::FunctionDecl>(p->getDeclContext());
  if (!fn) {
    r.why = "it is not a function's parameter";
    return r;
  }
  if (busy_.count(p)) {
    r.why = fmt::format("'{}' is called recursively", fn->getNameAsString());
    return r;
  }
  index();
  const clang::FunctionDecl *canon = fn->getCanonicalDecl();
  std::string name = fn->getNameAsString();
  if (writtenIn(p, fn)) {
    r.why = fmt::format("'{}' assigns it", name);
  } else if (escaped_.count(canon)) {
    r.why = fmt::format("'{}' is called through a pointer, or from another file", name);
  } else if (auto c = calls_.find(canon); c == calls_.end() || c->second.empty()) {
    r.why = fmt::format("no call of '{}' in this file passes it", name);
  } else {
    busy_.insert(p);
    unsigned index = p->getFunctionScopeIndex();
    std::optional<std::pair<int64_t, const Call *>> agreed;
    for (const Call &call : c->second) {
      std::string where = tu_.position(call.call->getBeginLoc()).str();
      if (index >= call.call->getNumArgs()) {
        r.why = fmt::format("the call of '{}' at {} has no argument for it", name, where);
        break;
      }
      Resolved a = resolve(call.call->getArg(index), call.caller, depth);
      if (!a.value) {
        r.why = fmt::format("'{}' is called at {} with {}", name, where, a.why);
        break;
      }
      if (agreed && agreed->first != *a.value) {
        r.why = fmt::format("'{}' is called with {} ({}) and {} ({})", name, agreed->first,
                            tu_.position(agreed->second->call->getBeginLoc()).str(), *a.value,
                            where);
        break;
      }
      if (!agreed) {
        agreed = std::make_pair(*a.value, &call);
        r.source = a.source;
      }
    }
    busy_.erase(p);
    if (r.why.empty() && agreed)
      r.value = agreed->first;
    else
      r.source = nullptr;
  }
  memo_[p] = r;
  return r;
}

std::optional<ArgValue> CallValues::valueOf(const clang::ParmVarDecl *p) {
  Resolved r = resolveParam(p, 0);
  if (!r.value)
    return std::nullopt;
  ArgValue out;
  out.value = *r.value;
  auto *fn = llvm::cast<clang::FunctionDecl>(p->getDeclContext());
  const Call &first = calls_[fn->getCanonicalDecl()].front();
  out.origin = fmt::format("passed by '{}' ({})", first.caller->getNameAsString(),
                           tu_.position(first.call->getBeginLoc()).str());
  std::string name = p->getName().str();
  if (r.source)
    if (auto f = tu_.constantExpr(r.source); f && f->kind != Expr::Kind::IntLit) {
      out.form = *f;
      return out;
    }
  if (tu_.useMacro(name, out.value, p->getLocation(),
                   fmt::format("// parameter '{}' of '{}', {}", name, fn->getNameAsString(),
                               out.origin)))
    out.form = Expr::ref(name);
  else
    out.form = Expr::lit(out.value);
  return out;
}

std::optional<int64_t> CallValues::allocatedElements(const clang::VarDecl *v, std::string &why) {
  clang::QualType pointee = v->getType()->getPointeeType();
  if (pointee.isNull() || pointee->isIncompleteType()) {
    why = fmt::format("'{}' is not a pointer to a complete type", v->getName().str());
    return std::nullopt;
  }
  const int64_t elem = tu_.ast.getTypeSizeInChars(pointee).getQuantity();
  index();
  std::map<const clang::FunctionDecl *, PointerStores> stores;
  auto storesOf = [&](const clang::FunctionDecl *fn) -> PointerStores & {
    auto it = stores.find(fn);
    if (it == stores.end()) {
      it = stores.emplace(fn, PointerStores()).first;
      it->second.TraverseStmt(fn->getBody());
    }
    return it->second;
  };
  constexpr size_t kMaxVars = 64; // pointers followed, at most
  std::set<const clang::VarDecl *> seen{v};
  std::vector<const clang::VarDecl *> work{v};
  std::optional<int64_t> elements;
  const clang::Expr *first = nullptr;
  // one value the pointer may hold, in `fn`: another pointer (followed) or an allocation
  auto value = [&](const clang::Expr *e, const clang::FunctionDecl *fn) -> bool {
    const clang::Expr *s = e->IgnoreParenCasts();
    if (const clang::VarDecl *w = refVar(s)) {
      clang::QualType wp = w->getType()->getPointeeType();
      if (wp.isNull() || wp->isIncompleteType() ||
          tu_.ast.getTypeSizeInChars(wp).getQuantity() != elem) {
        why = fmt::format("'{}' ({}) does not point to elements of '{}'", w->getName().str(),
                          tu_.position(e->getBeginLoc()).str(), v->getName().str());
        return false;
      }
      if (seen.insert(w).second)
        work.push_back(w);
      return true;
    }
    auto *call = llvm::dyn_cast<clang::CallExpr>(s);
    const clang::FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
    std::string name = callee ? callee->getNameAsString() : "";
    std::optional<int64_t> bytes;
    std::string inner;
    if (name == "malloc" && call->getNumArgs() == 1) {
      Resolved b = resolve(call->getArg(0), fn, 0);
      bytes = b.value;
      inner = b.why;
    } else if (name == "calloc" && call->getNumArgs() == 2) {
      Resolved n = resolve(call->getArg(0), fn, 0), sz = resolve(call->getArg(1), fn, 0);
      if (n.value && sz.value)
        bytes = *n.value * *sz.value;
      inner = !n.value ? n.why : sz.why;
    } else {
      why = fmt::format("'{}' ({}) is not an allocation nor a pointer variable",
                        tu_.sourceText(s->getSourceRange()), tu_.position(e->getBeginLoc()).str());
      return false;
    }
    if (!bytes) {
      why = fmt::format("the size of the allocation at {} is not known: {}",
                        tu_.position(e->getBeginLoc()).str(), inner);
      return false;
    }
    if (*bytes <= 0 || *bytes % elem != 0) {
      why = fmt::format("the allocation at {} ({} bytes) is not a whole number of elements",
                        tu_.position(e->getBeginLoc()).str(), *bytes);
      return false;
    }
    if (elements && *elements != *bytes / elem) {
      why = fmt::format("it may point to allocations of {} ({}) and {} ({}) elements", *elements,
                        tu_.position(first->getBeginLoc()).str(), *bytes / elem,
                        tu_.position(e->getBeginLoc()).str());
      return false;
    }
    elements = *bytes / elem;
    first = first ? first : e;
    return true;
  };
  while (!work.empty()) {
    if (seen.size() > kMaxVars) {
      why = fmt::format("it is copied through more than {} pointers", kMaxVars);
      return std::nullopt;
    }
    const clang::VarDecl *w = work.back();
    work.pop_back();
    const clang::FunctionDecl *fn = owningFunction(w);
    if (!fn || !w->hasLocalStorage() || !fn->getBody()) {
      why = fmt::format("'{}' is a global pointer", w->getName().str());
      return std::nullopt;
    }
    PointerStores &ps = storesOf(fn);
    if (ps.otherwise.count(w)) {
      why = fmt::format("'{}' is moved or has its address taken in '{}'", w->getName().str(),
                        fn->getNameAsString());
      return std::nullopt;
    }
    for (const clang::Expr *e : ps.values[w])
      if (!value(e, fn))
        return std::nullopt;
    if (auto *pv = llvm::dyn_cast<clang::ParmVarDecl>(w)) {
      const clang::FunctionDecl *canon = fn->getCanonicalDecl();
      auto c = calls_.find(canon);
      if (escaped_.count(canon) || c == calls_.end() || c->second.empty()) {
        why = fmt::format("'{}' is called through a pointer, from another file, or not at all",
                          fn->getNameAsString());
        return std::nullopt;
      }
      unsigned index = pv->getFunctionScopeIndex();
      for (const Call &call : c->second) {
        if (index >= call.call->getNumArgs()) {
          why = fmt::format("the call of '{}' at {} has no argument for '{}'",
                            fn->getNameAsString(),
                            tu_.position(call.call->getBeginLoc()).str(), pv->getName().str());
          return std::nullopt;
        }
        if (!value(call.call->getArg(index), call.caller))
          return std::nullopt;
      }
    }
  }
  if (!elements)
    why = fmt::format("no allocation of '{}' in this file", v->getName().str());
  return elements;
}

std::string CallValues::whyUnknown(const clang::ParmVarDecl *p) {
  Resolved r = resolveParam(p, 0);
  return r.value ? std::string() : r.why;
}

} // namespace skelcast::frontend
