/// \file
/// Step 4 of docs/skeletonizer.md ("How it works"), shaping the arrays of a nest
/// (the rules are under "Data"): element types from the C types, extents with
/// the names the code uses, unknown extents from `--extent` or inferred from the
/// subscripts over the loop bounds, and the delinearisation of a pointer indexed
/// as `a[i*N + k]` by the strides its subscripts imply (the split itself is
/// NestAnalysis::split).
#pragma once

#include "TUContext.h"

#include <clang/AST/Decl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace skelcast::frontend {

class NestAnalysis;
struct NestScan;
struct NestPlan;

/// The shape of one array as the skeleton declares it.
struct ArrayShape {
  const clang::VarDecl *decl = nullptr;
  bool isRegister = false;  ///< a local array of the nest: registers, not memory
  skeleton::ElemType type = skeleton::ElemType::Float;
  std::vector<skeleton::Expr> extents;
  std::vector<int64_t> values;
  /// When one C subscript is split into several dimensions (a pointer indexed
  /// as `a[i*N + k]`): the stride of each dimension, the last one 1.
  std::vector<int64_t> strides;
  bool isPointer = false;  ///< declared as a pointer (not array syntax)
  bool isRestrict = false;
  /// Rows through pointers (`float **w`, `float *w[N]` subscripted `w[k][j]`):
  /// two dimensions, each row contiguous, the rows' placement unknown.
  bool pointerRows = false;
  /// An array of structs whose fields are numbers of one size: the fields
  /// are the last dimension (ClangNodes.h, uniformStruct); 0 otherwise.
  int structFields = 0;
  std::string structName;
  /// a struct that is not uniform, taken as words of this number type (the
  /// last dimension is then the words of an element, not its fields)
  std::string structWord;
  std::string name;        ///< in the skeleton
  std::string origin;      ///< a comment saying where the shape came from
};

/// The arrays whose shape cannot be made, each with the error to raise once
/// the dependence test has had its say (its reason is the more useful one).
using ShapeErrors = std::map<const clang::VarDecl *, Unsupported>;

/// The shape of every array the nest accesses, into `plan.shapes`.
ShapeErrors makeShapes(NestAnalysis &na, const NestScan &scan, NestPlan &plan);

} // namespace skelcast::frontend
