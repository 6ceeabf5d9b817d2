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

/// The passes of a repeat: `repeat T` makes T passes (first 0, step 1);
/// `repeat k = lo:hi:step` one per value first + n x step, 0 <= n < trips,
/// trips = ceil((hi - lo) / step) (0 when hi <= lo). Its expressions must be
/// constant (InputError otherwise; checkSkeleton has refused the rest).
struct RepeatRange {
  int64_t first = 0, step = 1, trips = 0;
  int64_t value(int64_t n) const { return first + n * step; }
};
RepeatRange repeatRange(const Repeat &r, const MacroTable &env, const std::string &file);

/// The passes of indexed repeat `r` that launch kernel `k`: those n of
/// repeatRange whose loop space (with the index at value(n)) is not empty. Each
/// dimension's size is affine in the index (the checker refuses other bounds),
/// so they form one interval [first, last]; first > last when there is none.
struct LaunchInterval {
  int64_t first = 0, last = -1;
  int64_t count() const { return last >= first ? last - first + 1 : 0; }
};
LaunchInterval launchInterval(const Kernel &k, const Repeat &r, const MacroTable &env,
                              const std::string &file);

/// Size of kernel `k`'s loop space with the names of `env` (macros, and an
/// indexed repeat's index) substituted; 0 when a dimension is empty.
int64_t loopSpaceSize(const Kernel &k, const MacroTable &env, const std::string &file);

} // namespace skelcast::skeleton
