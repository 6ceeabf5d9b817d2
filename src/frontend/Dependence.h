/// \file
/// Step 3 of docs/skeletonizer.md ("How it works"), the parallelism test of
/// "Parallel loops: the dependence test": are the iterations of one loop of a
/// nest independent? Three checks, in this order: scalars (private, reduction
/// or carried, by an upward-exposure analysis and the liveness after the loop),
/// aliasing (pointers that may share memory), and arrays (for each write and
/// each access of the same array: the same affine subscript, the GCD test, or
/// the range test on the difference of two iterations, after delinearisation),
/// the arrays decided by isl where it can.
#pragma once

#include <clang/AST/Stmt.h>

#include <memory>
#include <string>
#include <vector>

namespace skelcast::frontend {

class NestAnalysis;
struct NestScan;
struct NestPlan;
struct ScalarReduction;

/// The parallelism test of the loops of one nest. Arrays go to isl first
/// (PolyNestBuilder.h, docs/dependence.md: exact over the symbolic sizes, once
/// per nest); where isl cannot decide, the pairwise tests above, their refusal
/// naming isl's reason too.
class NestDependences {
public:
  NestDependences(NestAnalysis &na, const NestScan &scan, const NestPlan &plan);
  ~NestDependences();
  /// Empty if the iterations of loop `L` of the nest are independent (or
  /// `trusted`: an OpenMP loop directive says so), else why not, for the
  /// warning `cannot port this loop: <reason>`.
  std::string loop(const clang::ForStmt *L, bool trusted);
  /// How `L` was found independent, when isl decided ("isl: no dependence
  /// carried"); empty otherwise.
  std::string how(const clang::ForStmt *L) const;
  /// What L's independence assumes of the values, when isl found it only so:
  /// a dependence whose writes leave their elements unchanged while a
  /// condition holds (Floyd-Warshall's step; PolyDependence::unchanged).
  /// Empty when none.
  std::string assumption(const clang::ForStmt *L) const;
  /// The scalar reductions across L's iterations that the test let through
  /// (docs/skeletonizer.md, "Reductions"): the kernel combines them.
  std::vector<ScalarReduction> reductions(const clang::ForStmt *L) const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace skelcast::frontend
