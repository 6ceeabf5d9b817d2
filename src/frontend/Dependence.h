/// \file
/// Step 3 of docs/skeletonizer.md ("How it works"), the parallelism test of
/// "Parallel loops: the dependence test": are the iterations of one loop of a
/// nest independent? Three checks, in this order: scalars (private, reduction
/// or carried, by an upward-exposure analysis and the liveness after the loop),
/// aliasing (pointers that may share memory), and arrays (for each write and
/// each access of the same array: the same affine subscript, the GCD test, or
/// the range test on the difference of two iterations, after delinearisation).
#pragma once

#include <clang/AST/Stmt.h>

#include <string>

namespace skelcast::frontend {

class NestAnalysis;
struct NestScan;
struct NestPlan;

/// Empty if the iterations of loop `L` of the nest are independent (or
/// `trusted`: an OpenMP loop directive says so), else why not, for the
/// warning `cannot port this loop: <reason>`.
std::string dependence(NestAnalysis &na, const NestScan &scan, const NestPlan &plan,
                       const clang::ForStmt *L, bool trusted);

} // namespace skelcast::frontend
