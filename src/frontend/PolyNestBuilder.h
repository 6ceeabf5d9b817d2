/// \file
/// Step "dependence", on isl: a scanned nest (NestScan) written as a PolyNest
/// (PolyDependence.h) so that isl answers which loops carry a dependence,
/// exactly over the symbolic sizes (docs/dependence.md).
///
/// The translation over-approximates and never under-approximates: a bound
/// that is not affine is left out (more iterations, more dependences), a step
/// that is not a constant becomes 1, a subscript that is not affine is "not
/// affine" for isl; writes under a branch (`if`, `?:`, `&&`) are conditional,
/// so they kill nothing. Scalars are not in it: the scalar rules keep those.
/// Names that point into one object (PointerOrigins.h: `xx = flat + 4`) are
/// given as aliases with their offsets; other names are distinct arrays, which
/// the aliasing rule (Dependence.cpp) has established before.
#pragma once

#include "PolyDependence.h"

#include <clang/AST/Stmt.h>

#include <map>
#include <string>
#include <vector>

namespace skelcast::frontend {

class NestAnalysis;
struct NestScan;

struct PolyView {
  PolyNest nest;
  std::map<const clang::ForStmt *, int> loopIds; ///< the PolyNest loop of each C loop
  std::map<std::string, const clang::VarDecl *> arrays; ///< the C array of each PolyNest name
  /// a loop counts down: isl sees it mirrored, so flow and anti swap and
  /// privatization (which needs the order) is not trusted
  bool mirrored = false;
  /// every access of the scan found its statement; isl's answer covers the nest
  bool complete = true;
  /// names given to isl as aliases of others (`xx` into `flat`); when isl
  /// cannot decide, the pairwise rules (which take names apart) must not
  std::vector<std::string> aliased;
  std::string aliasProblem; ///< an alias isl could not be given (its offset is not affine)
};

/// A pointer into another array: `name[k]` is `base[k + sum of offset]`.
struct NestAlias {
  const clang::VarDecl *name = nullptr;
  const clang::VarDecl *base = nullptr;
  std::vector<std::pair<const clang::Expr *, int>> offset; ///< terms (expression, sign)
};

/// The nest rooted at `root` as isl's input.
/// `aliases`: the names that point into another one, with their offsets.
PolyView buildPolyNest(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *root,
                       const std::vector<NestAlias> &aliases = {});

} // namespace skelcast::frontend
