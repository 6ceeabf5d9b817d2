/// \file
/// How many instructions a GPU executes for one C operation: the counting rule
/// of docs/skeletonizer.md ("Instruction counts"). Plain arithmetic, comparisons,
/// conversions and selects count 1; integer division and modulo follow the
/// gpucc paper (CGO'16: about 20 instructions for 32 bits, about 70 for 64);
/// floating division and math functions are the SASS instructions measured on
/// an H100 (docs/math-costs-h100.txt, tools/measure_math_costs.sh).
/// OpCounter applies the rule to the operations of one nest (fused multiply-adds,
/// constant divisors, inlined static functions) for the KernelBuilder's `comp N`.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace skelcast::frontend {

/// A division or modulo: `divisor` is the constant divisor if there is one.
int64_t divisionCost(bool isFloating, int bits, std::optional<int64_t> divisor);

/// A binary arithmetic, bitwise, shift or comparison operator on values of
/// `type` (the operands' type after the usual conversions). Division and
/// modulo go through divisionCost; assignment and comma cost 0.
int64_t binaryOpCost(clang::BinaryOperatorKind op, clang::QualType type,
                     const clang::ASTContext &ctx, std::optional<int64_t> constRhs);

/// A cast: value conversions between integer and floating types and between
/// float and double count 1; the rest (integer width changes, no-op and
/// pointer casts) fold into the instruction that uses them and count 0.
int64_t castCost(clang::CastKind kind);

/// A call to a C math library function by name (`sqrtf`, `exp`, `fabs`, ...);
/// nullopt if the name is not in the table.
std::optional<int64_t> mathCallCost(const std::string &name);

/// A math function's name without a `__builtin_` prefix (`__builtin_sqrtf` is `sqrtf`).
std::string mathName(const std::string &name);

class NestAnalysis;
class TUContext;

/// The instructions of the C operations of one nest, the rule above applied to
/// Clang's nodes: fused multiply-adds, divisions by a constant, calls to the
/// file's static functions inlined (their counts remembered).
class OpCounter {
public:
  explicit OpCounter(NestAnalysis &na);

  /// double or long double: its arithmetic issues at the FP64 rate.
  bool isFp64(clang::QualType t) const;
  /// `lhs op rhs` of type t (lhs null for a compound assignment).
  int64_t arithCost(const clang::Expr *lhs, const clang::Expr *rhs, clang::BinaryOperatorKind op,
                    clang::QualType t);
  /// A call: a math function from the table, or a static function of the file, inlined.
  int64_t callCost(const clang::FunctionDecl *fd);
  /// A call to a math function of the table (fma, sqrt, ...), not a function of the file.
  bool mathCall(const clang::FunctionDecl *fd) const {
    return fd && mathCallCost(fd->getNameAsString()).has_value();
  }

private:
  /// The instructions of a function body without memory (inlined calls):
  /// both sides of an `if` count, as predicated code.
  int64_t pureCost(const clang::Stmt *s);

  NestAnalysis &na_;
  TUContext &tu_;
  std::map<const clang::FunctionDecl *, int64_t> calleeCost_;
};

} // namespace skelcast::frontend
