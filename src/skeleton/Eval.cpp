#include "skelcast/skeleton/Eval.h"

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::skeleton {

int64_t evalConstExpr(const Expr &e, const MacroTable &env, const std::string &file) {
  SourceLoc at = e.loc;
  if (at.file.empty())
    at.file = file;
  switch (e.kind) {
  case Expr::Kind::IntLit: return e.value;
  case Expr::Kind::Name: {
    auto it = env.find(e.name);
    if (it == env.end())
      throw InputError(at, fmt::format("'{}' is not a constant here", e.name));
    return it->second;
  }
  case Expr::Kind::Neg: {
    int64_t v = evalConstExpr(e.args[0], env, file);
    int64_t r;
    if (__builtin_sub_overflow(int64_t{0}, v, &r))
      throw InputError(at, "integer overflow");
    return r;
  }
  case Expr::Kind::Access:
    throw InputError(at, fmt::format("array element '{}[...]' is not a constant", e.name));
  case Expr::Kind::Binary: {
    int64_t a = evalConstExpr(e.args[0], env, file);
    int64_t b = evalConstExpr(e.args[1], env, file);
    int64_t r = 0;
    bool ovf = false;
    switch (e.op) {
    case '+': ovf = __builtin_add_overflow(a, b, &r); break;
    case '-': ovf = __builtin_sub_overflow(a, b, &r); break;
    case '*': ovf = __builtin_mul_overflow(a, b, &r); break;
    case '/':
    case '%':
      if (b == 0)
        throw InputError(at, "division by zero");
      if (a == INT64_MIN && b == -1)
        throw InputError(at, "integer overflow");
      r = e.op == '/' ? a / b : a % b;
      break;
    }
    if (ovf)
      throw InputError(at, "integer overflow");
    return r;
  }
  }
  return 0;
}

bool isConstExpr(const Expr &e, const MacroTable &env) {
  switch (e.kind) {
  case Expr::Kind::IntLit: return true;
  case Expr::Kind::Name: return env.count(e.name) > 0;
  case Expr::Kind::Access: return false;
  default:
    for (const auto &a : e.args)
      if (!isConstExpr(a, env))
        return false;
    return true;
  }
}

MacroTable evalMacros(const SkeletonFile &file) {
  MacroTable t;
  for (const auto &m : file.macros)
    t[m.name] = evalConstExpr(m.value, t, file.path);
  return t;
}

RepeatRange repeatRange(const Repeat &r, const MacroTable &env, const std::string &file) {
  RepeatRange rr;
  if (!r.indexed()) {
    rr.trips = evalConstExpr(r.count, env, file);
    return rr;
  }
  rr.first = evalConstExpr(r.lo, env, file);
  int64_t hi = evalConstExpr(r.hi, env, file);
  rr.step = r.step ? evalConstExpr(*r.step, env, file) : 1;
  if (hi > rr.first && rr.step > 0) // the checker bounds the span by 2^62
    rr.trips = (hi - rr.first + rr.step - 1) / rr.step;
  return rr;
}

int64_t loopSpaceSize(const Kernel &k, const MacroTable &env, const std::string &file) {
  int64_t space = 1;
  for (const auto &d : k.dims) {
    int64_t lo = d.lo ? evalConstExpr(*d.lo, env, file) : 0, hi = evalConstExpr(d.hi, env, file);
    if (hi <= lo)
      return 0;
    int64_t size = 0;
    if (__builtin_sub_overflow(hi, lo, &size) || __builtin_mul_overflow(space, size, &space))
      throw InputError({file, k.loc.line, k.loc.col}, "loop space has more than 2^62 iterations");
  }
  return space;
}

namespace {

bool mentionsName(const Expr &e, const std::string &name) {
  if (e.kind == Expr::Kind::Name && e.name == name)
    return true;
  for (const auto &a : e.args)
    if (mentionsName(a, name))
      return true;
  return false;
}

bool affineIn(const Expr &e, const std::string &index) {
  switch (e.kind) {
  case Expr::Kind::IntLit:
  case Expr::Kind::Name: return true;
  case Expr::Kind::Access: return false;
  case Expr::Kind::Neg: return affineIn(e.args[0], index);
  case Expr::Kind::Binary:
    switch (e.op) {
    case '+':
    case '-': return affineIn(e.args[0], index) && affineIn(e.args[1], index);
    case '*':
      return affineIn(e.args[0], index) && affineIn(e.args[1], index) &&
             !(mentionsName(e.args[0], index) && mentionsName(e.args[1], index));
    default: return !mentionsName(e.args[0], index) && !mentionsName(e.args[1], index);
    }
  }
  return false;
}

/// Bounds not affine in the index: every pass evaluated.
LaunchInterval evaluatedPasses(const Kernel &k, const Repeat &r, const MacroTable &env,
                               const std::string &file, const RepeatRange &rr) {
  if (rr.trips > kMaxEvaluatedPasses)
    throw InputError({file, k.loc.line, k.loc.col},
                     fmt::format("a loop-space bound that is not affine in the repeat index '{}' "
                                 "is evaluated at every pass: at most {} passes, the repeat has {}",
                                 r.index, kMaxEvaluatedPasses, rr.trips));
  LaunchInterval li;
  li.affine = false;
  MacroTable at = env;
  std::vector<std::vector<int64_t>> sizes; // per launching pass, each dimension's size
  std::vector<int64_t> passes;
  int64_t best = -1;
  for (int64_t n = 0; n < rr.trips; ++n) {
    at[r.index] = rr.value(n);
    std::vector<int64_t> s;
    bool empty = false;
    for (const auto &d : k.dims) {
      int64_t lo = d.lo ? evalConstExpr(*d.lo, at, file) : 0, hi = evalConstExpr(d.hi, at, file);
      s.push_back(hi > lo ? hi - lo : 0);
      empty = empty || hi <= lo;
    }
    if (empty)
      continue;
    int64_t space = loopSpaceSize(k, at, file);
    if (space > best) {
      best = space;
      li.largest = n;
    }
    passes.push_back(n);
    sizes.push_back(std::move(s));
  }
  if (passes.empty())
    return li;
  li.first = passes.front();
  li.last = passes.back();
  li.holes = (li.last - li.first + 1) - static_cast<int64_t>(passes.size());
  for (size_t d = 0; d < k.dims.size(); ++d) {
    bool up = true, down = true;
    for (size_t i = 1; i < sizes.size(); ++i) {
      up = up && sizes[i][d] >= sizes[i - 1][d];
      down = down && sizes[i][d] <= sizes[i - 1][d];
    }
    li.monotone = li.monotone && (up || down);
  }
  return li;
}

} // namespace

bool affineSpace(const Kernel &k, const std::string &index) {
  for (const auto &d : k.dims)
    if ((d.lo && !affineIn(*d.lo, index)) || !affineIn(d.hi, index))
      return false;
  return true;
}

LaunchInterval launchInterval(const Kernel &k, const Repeat &r, const MacroTable &env,
                              const std::string &file) {
  RepeatRange rr = repeatRange(r, env, file);
  if (!affineSpace(k, r.index))
    return evaluatedPasses(k, r, env, file, rr);
  __int128 lo = 0, hi = static_cast<__int128>(rr.trips) - 1; // the passes that launch
  MacroTable at = env;
  for (const auto &d : k.dims) {
    // size(n) = s0 + slope n, from the sizes at the first two values of the index
    __int128 s[2];
    for (int n = 0; n < 2; ++n) {
      at[r.index] = rr.first + n * rr.step;
      int64_t l = d.lo ? evalConstExpr(*d.lo, at, file) : 0, h = evalConstExpr(d.hi, at, file);
      s[n] = static_cast<__int128>(h) - l;
    }
    __int128 s0 = s[0], slope = s[1] - s[0];
    auto floorDiv = [](__int128 a, __int128 b) { // b > 0
      __int128 q = a / b;
      return (a % b != 0 && a < 0) ? q - 1 : q;
    };
    if (slope == 0) {
      if (s0 <= 0)
        return {};
    } else if (slope > 0) { // s0 + slope n >= 1
      lo = std::max(lo, -floorDiv(s0 - 1, slope));
    } else {
      hi = std::min(hi, floorDiv(s0 - 1, -slope));
    }
  }
  if (lo > hi)
    return {};
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

} // namespace skelcast::skeleton
