/// \file
/// Branch probabilities (docs/skeletonizer.md, "Loops and branches"): the `p` of
/// `if (p=P)`, from `#pragma skelcast prob(P)`, else counted exactly over the
/// loop space when the condition and those of the enclosing branches are
/// functions of loop indices and constants (the fraction of the iterations
/// reaching the branch that take it; beyond 2^18 points each loop's interior is
/// sampled at evenly spaced points, its first and last values counted
/// exactly), else 0.5 with a warning.
#pragma once

#include "TUContext.h"

#include <clang/AST/Stmt.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace skelcast::frontend {

class NestAnalysis;

/// The probability that `is` is taken. `path` holds the conditions of the
/// branches around it in the kernel, each with the arm it is in (true: then);
/// `inScope` the loop indices visible at the branch. `source` says where the
/// number came from, for the branch's comment; a number that had to be assumed
/// adds a warning.
double branchProbability(NestAnalysis &na, const clang::IfStmt *is,
                         const std::vector<std::pair<const clang::Expr *, bool>> &path,
                         const std::set<const clang::VarDecl *> &inScope, std::string &source,
                         std::vector<Warning> &warnings);

} // namespace skelcast::frontend
