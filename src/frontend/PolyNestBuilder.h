/// \file
/// Step "dependence", on isl: a scanned nest (NestScan) written as a PolyNest
/// (PolyDependence.h) so that isl answers which loops carry a dependence,
/// exactly over the symbolic sizes (docs/dependence.md).
///
/// The translation over-approximates and never under-approximates: a bound
/// that is not affine is left out (more iterations, more dependences), a step
/// that is not a constant becomes 1, a subscript that is not affine is "not
/// affine" for isl; writes under a branch (`if`, `?:`, `&&`) are conditional,
/// so they kill nothing. Scalars and the aliasing of distinct arrays are not
/// in it: the existing scalar and aliasing rules keep those.
#pragma once

#include "PolyDependence.h"

#include <clang/AST/Stmt.h>

#include <map>
#include <string>

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
};

/// The nest rooted at `root` as isl's input.
PolyView buildPolyNest(NestAnalysis &na, const NestScan &scan, const clang::ForStmt *root);

} // namespace skelcast::frontend
