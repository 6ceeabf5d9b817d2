/// \file
/// The canonical `for` header the skeletonizer understands:
///   for (i = lo; i < hi; i++)      also `int i = lo`, `<=`, `!=`, `hi > i`,
///                                  `++i`, `i += s`, `i = i + s`
///   for (i = hi; i >= lo; i--)     a decreasing loop with step 1
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

#include <optional>
#include <string>

namespace skelcast::frontend {

struct LoopHeader {
  const clang::ForStmt *loop = nullptr;
  const clang::VarDecl *var = nullptr;
  const clang::Expr *init = nullptr;  ///< the first value
  const clang::Expr *bound = nullptr; ///< the other side of the condition
  bool inclusive = false;             ///< `<=` or `>=`
  bool decreasing = false;
  int64_t step = 1;                   ///< constant step; 0 when stepExpr is set
  const clang::Expr *stepExpr = nullptr; ///< a step that is not a constant
};

/// The header of `f`, or nullopt with `why` saying what is not canonical.
std::optional<LoopHeader> parseLoopHeader(const clang::ForStmt *f, const clang::ASTContext &ctx,
                                          std::string &why);

} // namespace skelcast::frontend
