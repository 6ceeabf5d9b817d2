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
  auto variable = [&](const clang::VarDecl *v) -> Resolved {
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

std::string CallValues::whyUnknown(const clang::ParmVarDecl *p) {
  Resolved r = resolveParam(p, 0);
  return r.value ? std::string() : r.why;
}

} // namespace skelcast::frontend
