#include "ClangNodes.h"

#include <llvm/Frontend/OpenMP/OMP.h>

namespace skelcast::frontend {

const clang::VarDecl *refVar(const clang::Expr *e) {
  if (!e)
    return nullptr;
  e = e->IgnoreParenImpCasts();
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    return llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  return nullptr;
}

bool mentions(const clang::Stmt *s, const clang::VarDecl *v) {
  if (!s)
    return false;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (dr->getDecl() == v)
      return true;
  for (const clang::Stmt *c : s->children())
    if (mentions(c, v))
      return true;
  return false;
}

void collectVars(const clang::Stmt *s, std::set<const clang::VarDecl *> &out) {
  if (!s)
    return;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
      out.insert(v);
  for (const clang::Stmt *c : s->children())
    collectVars(c, out);
}

std::optional<int64_t> constInt(const clang::Expr *e, const clang::ASTContext &ctx) {
  if (!e || e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ctx) || r.HasSideEffects)
    return std::nullopt;
  return r.Val.getInt().getExtValue();
}

const clang::Stmt *directiveBody(const clang::OMPExecutableDirective *d) {
  if (!d || !d->hasAssociatedStmt())
    return nullptr;
  const clang::Stmt *s = d->getAssociatedStmt();
  while (auto *cs = llvm::dyn_cast_or_null<clang::CapturedStmt>(s))
    s = cs->getCapturedStmt();
  return s;
}

const clang::ForStmt *asFor(const clang::Stmt *s) {
  if (auto *f = llvm::dyn_cast_or_null<clang::ForStmt>(s))
    return f;
  if (auto *d = llvm::dyn_cast_or_null<clang::OMPLoopDirective>(s))
    return llvm::dyn_cast_or_null<clang::ForStmt>(directiveBody(d));
  return nullptr;
}

std::string directiveName(llvm::omp::Directive k) {
  return llvm::omp::getOpenMPDirectiveName(k).str();
}

} // namespace skelcast::frontend
