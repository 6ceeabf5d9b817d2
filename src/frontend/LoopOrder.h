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

/// With `interchangeOnly`, `outer` is a loop that carries a dependence, not in
/// the loop space, and its body one chain of loops: the reordering makes the
/// chain's copy of j the loop space and `outer` a loop each thread runs.
/// The reordering of `outer`'s body that exposes one more parallel loop, or
/// nullopt (with `whyNot` saying why, when the shape matched but the test did
/// not pass). `spaceBounds` says whether a loop's bounds can make a loop-space
/// dimension.
std::optional<Reordering> distributeInner(NestAnalysis &na, const NestScan &scan,
                                          const clang::ForStmt *outer,
                                          const std::function<bool(const LoopHeader &)> &spaceBounds,
                                          std::string &whyNot, bool interchangeOnly = false);

/// A fission of loop `outer` (not in the loop space: it carries a dependence)
/// into loops of its own, one per group of its body's statements: each group
/// ends with a statement that holds a loop, statements after the last loop
/// join the last group (atax: `tmp[i] = 0; for j tmp[i] += ...;` then
/// `for j y[j] += A[i][j] * tmp[i];`). Legal when accesses of two groups to
/// one element, either a write, come from the same iteration of `outer` (one
/// subscript, the same affine form of its index in both, `tmp[i]`): the
/// groups then keep their order within each iteration. No scalar but loop
/// indices and locals of one group's loops may be assigned. Fewer than two
/// groups, with `whyNot` set when the shape matched and the test failed.
std::vector<std::vector<const clang::Stmt *>> fissionGroups(NestAnalysis &na, const NestScan &scan,
                                                            const clang::ForStmt *outer,
                                                            std::string &whyNot);

} // namespace skelcast::frontend
