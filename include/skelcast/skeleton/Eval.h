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

/// Passes evaluated one by one for a kernel whose loop-space bounds are not
/// affine in the index: a repeat with more is refused by the checker.
constexpr int64_t kMaxEvaluatedPasses = 65536;

/// True when every loop-space bound of `k` is affine in `index`: a constant
/// plus a constant times the index (names other than `index` are constants).
bool affineSpace(const Kernel &k, const std::string &index);

/// The passes of indexed repeat `r` that launch kernel `k`: those n of
/// repeatRange whose loop space (with the index at value(n)) is not empty,
/// [first, last]; first > last when there is none. When each dimension's size
/// is affine in the index they form one interval, found from two passes. Other
/// bounds (`(N - k)/B`, `k*k`, `%`) are evaluated at every pass (at most
/// kMaxEvaluatedPasses): [first, last] is then the hull of the passes that
/// launch, `holes` the empty ones inside it (the checker refuses any), and
/// `monotone` whether each dimension's size changes one way over the interval
/// (as an affine size always does).
struct LaunchInterval {
  int64_t first = 0, last = -1;
  bool affine = true;
  bool monotone = true;
  int64_t holes = 0;
  int64_t largest = -1; ///< not affine: the first pass with the largest loop space
  int64_t count() const { return last >= first ? last - first + 1 - holes : 0; }
};
LaunchInterval launchInterval(const Kernel &k, const Repeat &r, const MacroTable &env,
                              const std::string &file);

/// Size of kernel `k`'s loop space with the names of `env` (macros, and an
/// indexed repeat's index) substituted; 0 when a dimension is empty.
int64_t loopSpaceSize(const Kernel &k, const MacroTable &env, const std::string &file);

} // namespace skelcast::skeleton
