/// \file
/// How many instructions a GPU executes for one C operation: the counting rule
/// of docs/skeletonizer.md ("Instruction counts"). Plain arithmetic, comparisons,
/// conversions and selects count 1; integer division and modulo follow the
/// gpucc paper (CGO'16: about 20 instructions for 32 bits, about 70 for 64);
/// floating division and math functions are the SASS instructions measured on
/// an H100 (docs/math-costs-h100.txt, tools/measure_math_costs.sh).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <cstdint>
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

} // namespace skelcast::frontend
