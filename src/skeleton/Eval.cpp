#include "skelcast/skeleton/Eval.h"

#include <fmt/format.h>

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

} // namespace skelcast::skeleton
