/// \file
/// Affine forms of C integer expressions (`2*i + N - 1` with N known), the
/// intervals they span over the loop ranges, and a small evaluator of C
/// integer expressions for counting branch probabilities over a loop space.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace skelcast::frontend {

/// A variable of an affine form: a C variable, and which copy of it (the
/// dependence test compares two iterations, so it needs two copies).
struct AffVar {
  const clang::ValueDecl *decl = nullptr;
  int copy = 0;
  bool operator<(const AffVar &o) const {
    return decl != o.decl ? decl < o.decl : copy < o.copy;
  }
  bool operator==(const AffVar &o) const { return decl == o.decl && copy == o.copy; }
};

/// sum(coef[v] * v) + constant, or not affine at all (valid == false).
struct Affine {
  bool valid = true;
  int64_t constant = 0;
  std::map<AffVar, int64_t> coef; ///< non-zero entries only

  static Affine invalid();
  static Affine constantOf(int64_t c);
  static Affine variable(const clang::ValueDecl *d);
  bool isConstant() const { return valid && coef.empty(); }
  int64_t coefOf(const clang::ValueDecl *d, int copy = 0) const;
  bool operator==(const Affine &o) const {
    return valid == o.valid && constant == o.constant && coef == o.coef;
  }
  bool operator!=(const Affine &o) const { return !(*this == o); }
};

Affine affineAdd(const Affine &a, const Affine &b, int64_t sign = 1);
Affine affineScale(const Affine &a, int64_t k);
/// The same form with every variable moved to copy `copy`, except those in `shared`.
Affine affineRecopy(const Affine &a, int copy,
                    const std::function<bool(const clang::ValueDecl *)> &shared);

/// What a variable means to the conversion: nullopt makes the form invalid.
using AffineLookup = std::function<std::optional<Affine>(const clang::ValueDecl *)>;

/// The affine form of an integer expression. Integer constant expressions
/// fold; `+ - *` (by a constant), unary minus and `<<` by a constant are
/// affine; anything else (division, a load, a float) is not.
Affine toAffine(const clang::Expr *e, const clang::ASTContext &ctx, const AffineLookup &lookup);

struct Interval {
  int64_t lo = 0, hi = 0; ///< inclusive
};

/// The values `a` takes when each variable ranges over its interval; nullopt
/// if a variable has no known range or on overflow.
std::optional<Interval> rangeOf(const Affine &a,
                                const std::function<std::optional<Interval>(const AffVar &)> &var);

/// gcd of the coefficients (0 when there are none).
int64_t coefGcd(const Affine &a);

/// Evaluate a C integer expression (constants, variables through `value`,
/// arithmetic, comparisons, logic, `?:`); nullopt if anything else appears.
std::optional<int64_t>
evalInt(const clang::Expr *e, const clang::ASTContext &ctx,
        const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &value);

} // namespace skelcast::frontend

namespace skelcast::frontend {

/// A C integer expression compiled once for fast repeated evaluation (the
/// branch probabilities enumerate loop spaces of millions of points).
class CompiledInt {
public:
  /// Variables become slots (`slot` returns their index) or constants
  /// (`constant`); nullopt if the expression has anything evalInt refuses.
  static std::optional<CompiledInt>
  compile(const clang::Expr *e, const clang::ASTContext &ctx,
          const std::function<std::optional<int>(const clang::ValueDecl *)> &slot,
          const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &constant);
  /// nullopt on division by zero.
  std::optional<int64_t> eval(const int64_t *slots) const;

private:
  struct Node {
    enum Kind { Const, Slot, Unary, Binary, Cond } kind = Const;
    int op = 0;
    int64_t value = 0;
    int a = -1, b = -1, c = -1;
  };
  int build(const clang::Expr *e, const clang::ASTContext &ctx,
            const std::function<std::optional<int>(const clang::ValueDecl *)> &slot,
            const std::function<std::optional<int64_t>(const clang::ValueDecl *)> &constant);
  bool evalNode(int n, const int64_t *slots, int64_t &out) const;
  std::vector<Node> nodes_;
  int root_ = -1;
};

} // namespace skelcast::frontend
