/// \file
/// Step 3 of docs/skeletonizer.md, continued: the loop order. When the loop
/// below the outermost parallel one is not alone in its body but comes in
/// copies, `for i { for j S1; for k { for j S2 } }` (PolyBench 4.2's gemm),
/// distributing the `j` loops out of `i`'s body and interchanging each with
/// the sequential loops around it gives the loop space (i, j) with the
/// sequential loop inside, `for j { S1; for k S2 }`, as a GPU port would write
/// it. Legal when no two iterations with different `j` touch one element that
/// either writes (then each `j` keeps the original order of its own
/// statements, and different `j`s share nothing).
#pragma once

#include "NestAnalysis.h"
#include "NestScan.h"

#include <clang/AST/Stmt.h>

#include <functional>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// A reordering of the body of loop-space loop `outer`: `dim`, the first copy
/// of the loop that joins the loop space; `copies`, all of them (the builder
/// writes their bodies in place); `note`, what was reordered, for the
/// kernel's comment.
struct Reordering {
  const clang::ForStmt *dim = nullptr;
  std::vector<const clang::ForStmt *> copies;
  std::string note;
};

/// The reordering of `outer`'s body that exposes one more parallel loop, or
/// nullopt (with `whyNot` saying why, when the shape matched but the test did
/// not pass). `spaceBounds` says whether a loop's bounds can make a loop-space
/// dimension.
std::optional<Reordering> distributeInner(NestAnalysis &na, const NestScan &scan,
                                          const clang::ForStmt *outer,
                                          const std::function<bool(const LoopHeader &)> &spaceBounds,
                                          std::string &whyNot);

} // namespace skelcast::frontend
