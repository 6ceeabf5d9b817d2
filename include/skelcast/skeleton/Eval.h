/// \file
/// Integer evaluation of skeleton expressions after macro substitution, with
/// overflow and division-by-zero checks (both are input errors with positions).
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <cstdint>
#include <map>
#include <string>

namespace skelcast::skeleton {

using MacroTable = std::map<std::string, int64_t>;

/// Values of all macros, in file order; each may use the ones before it.
MacroTable evalMacros(const SkeletonFile &file);

/// Evaluate an expression whose names are macros (or entries of `env`).
/// A name not in `env`, an array access, a division by zero or an overflow is
/// an InputError at the offending node.
int64_t evalConstExpr(const Expr &e, const MacroTable &env, const std::string &file);

/// True when every name in `e` is in `env` and `e` has no array access.
bool isConstExpr(const Expr &e, const MacroTable &env);

} // namespace skelcast::skeleton
