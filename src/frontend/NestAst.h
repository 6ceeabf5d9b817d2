/// \file
/// The Clang AST a kernel came from, for the stages that need the C code
/// itself rather than its skeleton (src/emit: the CUDA of a layout). Valid only
/// inside the callback of skeletonizeWithAst, while the AST lives.
#pragma once

#include "skelcast/frontend/Skeletonizer.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// One dimension of an access after delinearisation (NestAnalysis::split):
/// sum(coef * factor) + constant, or the C subscript itself when subscripts
/// map one to one.
struct DimForm {
  const clang::Expr *direct = nullptr;
  std::vector<std::pair<int64_t, const clang::Expr *>> terms;
  int64_t constant = 0;
};

/// One ported nest: its function, its loop space (the `for`s that became the
/// parallel dimensions, outermost first) and the statements of the kernel body.
struct NestAst {
  const clang::FunctionDecl *function = nullptr;
  const clang::Stmt *root = nullptr;
  std::vector<const clang::ForStmt *> parallel;
  std::vector<const clang::Stmt *> body;
  std::set<const clang::VarDecl *> ompReductions;
  /// The kernel's scalar reductions (`reduce(op: s)`, an OpenMP clause's or
  /// found by the dependence test), each with its operator, in the kernel's order.
  std::vector<std::pair<const clang::VarDecl *, skeleton::ReduceOp>> reductions;
  /// skeleton array name -> the C variable behind it (after the file's renaming)
  std::map<std::string, const clang::VarDecl *> arrays;
  /// copies of a loop-space loop inside the body (LoopOrder.h): each thread
  /// runs its own iteration of them, their bodies written in place
  std::vector<const clang::ForStmt *> inPlace;
  /// when not empty: the statements of the root loop's body that are this
  /// kernel's (a fission, LoopOrder.h's fissionGroups)
  std::set<const clang::Stmt *> only;
  /// The accesses of a flat array (`u[(i - 1) * N + j]`) split into the
  /// dimensions the skeleton gives it (`u[i - 1][j]`), keyed by the outermost
  /// subscript expression: emit prints a shared tile's coordinates from them
  /// rather than dividing the flat subscript back apart.
  std::map<const clang::ArraySubscriptExpr *, std::vector<DimForm>> delinearized;
  /// Of those arrays, the ones an access of which leaves its row: a split
  /// coordinate past the first outside [0, extent) (`u[i * N + j - 1]` at
  /// j = 0 reads the row before's last element), or one whose range is not
  /// known. A tile of such an array is filled by the flat offset, as C reads.
  std::set<const clang::VarDecl *> leavesRows;
};

/// What the callback sees: the skeletons, one NestAst per kernel of
/// `result.file.kernels` (same order), and Clang's AST.
using AstCallback = std::function<void(const SkeletonizeResult &result,
                                       const std::vector<NestAst> &nests,
                                       clang::ASTContext &ast)>;

/// skeletonizeFile, calling `callback` while the AST is alive (after the
/// skeleton passed its self-check). Exceptions from the callback propagate.
SkeletonizeResult skeletonizeWithAst(const std::string &path, const SkeletonizeOptions &opts,
                                     std::ostream &diagnostics, const AstCallback &callback);

} // namespace skelcast::frontend
