// The AST queries that the emitter's steps share (declared in Emitter.h):
// where a construct is, whether a statement reads memory, and which
// variables are passed to calls.
#include "Emitter.h"

#include <clang/Basic/SourceManager.h>

namespace skelcast::emit::detail {

SourceLoc positionOf(clang::ASTContext &ctx, clang::SourceLocation loc, const std::string &path) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  clang::SourceLocation e = sm.getExpansionLoc(loc);
  if (e.isInvalid())
    return {path, 0, 0};
  return {path, static_cast<int>(sm.getExpansionLineNumber(e)),
          static_cast<int>(sm.getExpansionColumnNumber(e))};
}

bool readsMemory(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ArraySubscriptExpr>(s) || llvm::isa<clang::CallExpr>(s))
    return true;
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
    if (u->getOpcode() == clang::UO_Deref)
      return true;
  for (const clang::Stmt *c : s->children())
    if (readsMemory(c))
      return true;
  return false;
}

std::set<const clang::VarDecl *> passedToCalls(const VarUses &uses) {
  std::set<const clang::VarDecl *> passed;
  for (const clang::CallExpr *c : uses.calls)
    for (const clang::Expr *arg : c->arguments()) {
      VarUses au;
      au.TraverseStmt(const_cast<clang::Expr *>(arg));
      passed.insert(au.used.begin(), au.used.end());
    }
  return passed;
}

} // namespace skelcast::emit::detail
