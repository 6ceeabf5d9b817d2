/// \file
/// Facts about a whole function that the analysis of its nests and the values
/// of its callers' arguments need: which variables it assigns and whose address
/// it takes (scanFunction, NestScan.h, collects them in one walk).
#pragma once

#include <clang/AST/Decl.h>

#include <map>
#include <set>

namespace skelcast::frontend {

struct FunctionFacts {
  const clang::FunctionDecl *fn = nullptr;
  std::map<const clang::VarDecl *, int> assignments; ///< assignment sites (not the declaration)
  std::set<const clang::VarDecl *> addressTaken;
};

} // namespace skelcast::frontend
