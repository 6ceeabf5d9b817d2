/// \file
/// Step 1 of docs/skeletonizer.md ("How it works"), finding the nests of a
/// function, and the collapse of step 3: each outermost `for` (or OpenMP loop
/// directive) is a candidate; it is scanned (NestScan.h), its arrays shaped
/// (Shapes.h) and its outer loop tested (Dependence.h); then inner loops with
/// constant bounds and independent iterations join the loop space (up to three),
/// and the KernelBuilder writes the body. A candidate that cannot be ported is
/// searched for nests inside; a sequential loop around ported nests (a time-step
/// loop) becomes `repeat T { ... }`; code between them is host code
/// (FileAssembler.h, HostProgram).
#pragma once

#include "FileAssembler.h"
#include "TUContext.h"

#include <clang/AST/Decl.h>

namespace skelcast::frontend {

/// Finds and ports the nests of one function into `out`.
void processFunction(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn);

} // namespace skelcast::frontend
