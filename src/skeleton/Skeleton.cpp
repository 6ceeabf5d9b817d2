#include "skelcast/skeleton/Skeleton.h"

#include <fmt/format.h>

#include <algorithm>

namespace skelcast::skeleton {

int elemBytes(ElemType t) {
  switch (t) {
  case ElemType::Char: return 1;
  case ElemType::Short: return 2;
  case ElemType::Int: return 4;
  case ElemType::Long: return 8;
  case ElemType::Float: return 4;
  case ElemType::Double: return 8;
  }
  return 4;
}

const char *hostMarkName(HostMark m) {
  switch (m) {
  case HostMark::None: return "";
  case HostMark::In: return "in";
  case HostMark::Out: return "out";
  case HostMark::InOut: return "inout";
  }
  return "";
}

namespace {
void collectTouches(const std::vector<Stmt> &body, std::vector<MemTouch> &out) {
  for (const auto &s : body) {
    switch (s.kind) {
    case Stmt::Kind::Mem: out.push_back({s.mem.array, s.mem.isStore}); break;
    case Stmt::Kind::Loop: collectTouches(s.loop.body, out); break;
    case Stmt::Kind::Branch:
      collectTouches(s.branch.thenBody, out);
      collectTouches(s.branch.elseBody, out);
      break;
    default: break;
    }
  }
}
} // namespace

std::vector<MemTouch> memTouches(const std::vector<Stmt> &body) {
  std::vector<MemTouch> out;
  collectTouches(body, out);
  return out;
}

std::vector<MemTouch> kernelTouches(const SkeletonFile &f, const Kernel &k) {
  std::vector<MemTouch> out = memTouches(k.body);
  for (const Reduction &r : k.reductions)
    if (f.findArray(r.target)) {
      out.push_back({r.target, false});
      out.push_back({r.target, true});
    }
  return out;
}

ElemType reductionType(const SkeletonFile &f, const Reduction &r) {
  const Array *a = f.findArray(r.target);
  return a ? a->type : ElemType::Float;
}

const char *reduceOpName(ReduceOp op) {
  switch (op) {
  case ReduceOp::Add: return "+";
  case ReduceOp::Mul: return "*";
  case ReduceOp::Min: return "min";
  case ReduceOp::Max: return "max";
  }
  return "+";
}

std::optional<ReduceOp> parseReduceOp(const std::string &t) {
  if (t == "+") return ReduceOp::Add;
  if (t == "*") return ReduceOp::Mul;
  if (t == "min") return ReduceOp::Min;
  if (t == "max") return ReduceOp::Max;
  return std::nullopt;
}

const char *elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::Char: return "char";
  case ElemType::Short: return "short";
  case ElemType::Int: return "int";
  case ElemType::Long: return "long";
  case ElemType::Float: return "float";
  case ElemType::Double: return "double";
  }
  return "float";
}

std::optional<ElemType> parseElemType(const std::string &n) {
  if (n == "char") return ElemType::Char;
  if (n == "short") return ElemType::Short;
  if (n == "int") return ElemType::Int;
  if (n == "long") return ElemType::Long;
  if (n == "float") return ElemType::Float;
  if (n == "double") return ElemType::Double;
  return std::nullopt;
}

Expr Expr::lit(int64_t v, SourceLoc loc) {
  Expr e;
  e.kind = Kind::IntLit;
  e.value = v;
  e.loc = std::move(loc);
  return e;
}
Expr Expr::ref(std::string name, SourceLoc loc) {
  Expr e;
  e.kind = Kind::Name;
  e.name = std::move(name);
  e.loc = std::move(loc);
  return e;
}
Expr Expr::neg(Expr a, SourceLoc loc) {
  // The negation of a literal is a literal: "-5" and "-(5)" are one IR, which
  // prints as "-5" and parses back to itself (print then parse is the identity).
  if (a.kind == Kind::IntLit && a.value != INT64_MIN)
    return lit(-a.value, std::move(loc));
  Expr e;
  e.kind = Kind::Neg;
  e.args.push_back(std::move(a));
  e.loc = std::move(loc);
  return e;
}
Expr Expr::binary(char op, Expr l, Expr r, SourceLoc loc) {
  Expr e;
  e.kind = Kind::Binary;
  e.op = op;
  e.args.push_back(std::move(l));
  e.args.push_back(std::move(r));
  e.loc = std::move(loc);
  return e;
}
Expr Expr::access(std::string array, std::vector<Expr> idx, SourceLoc loc) {
  Expr e;
  e.kind = Kind::Access;
  e.name = std::move(array);
  e.args = std::move(idx);
  e.loc = std::move(loc);
  return e;
}

bool Expr::operator==(const Expr &o) const {
  return kind == o.kind && value == o.value && name == o.name && op == o.op && args == o.args;
}

bool Loop::operator==(const Loop &o) const {
  return isStream == o.isStream && index == o.index && lo == o.lo && hi == o.hi &&
         step == o.step && tripHint == o.tripHint && body == o.body &&
         closingComments == o.closingComments;
}

bool Branch::operator==(const Branch &o) const {
  return prob == o.prob && thenBody == o.thenBody && elseBody == o.elseBody &&
         hasElse == o.hasElse && thenClosingComments == o.thenClosingComments &&
         elseClosingComments == o.elseClosingComments;
}

bool Stmt::operator==(const Stmt &o) const {
  if (kind != o.kind || !(comments == o.comments))
    return false;
  switch (kind) {
  case Kind::Comp: return comp == o.comp && fp64 == o.fp64 && lit64 == o.lit64 && chain == o.chain && chainWaits == o.chainWaits;
  case Kind::Mem: return mem == o.mem;
  case Kind::Bind: return bindName == o.bindName && bindValue == o.bindValue;
  case Kind::Loop: return loop == o.loop;
  case Kind::Branch: return branch == o.branch;
  }
  return false;
}

bool Kernel::operator==(const Kernel &o) const {
  return name == o.name && dims == o.dims && indices == o.indices &&
         reductions == o.reductions && body == o.body && closingComments == o.closingComments &&
         comments == o.comments;
}

const Array *SkeletonFile::findArray(const std::string &name) const {
  for (const auto &a : arrays)
    if (a.name == name)
      return &a;
  return nullptr;
}

const Macro *SkeletonFile::findMacro(const std::string &name) const {
  for (const auto &m : macros)
    if (m.name == name)
      return &m;
  return nullptr;
}

std::string SkeletonFile::kernelName(size_t k) const {
  if (k < kernels.size() && !kernels[k].name.empty())
    return kernels[k].name;
  return fmt::format("kernel{}", k);
}

const Repeat *SkeletonFile::repeatOf(size_t k) const {
  for (const auto &r : repeats)
    if (std::find(r.kernels.begin(), r.kernels.end(), k) != r.kernels.end())
      return &r;
  return nullptr;
}

namespace {
void bindExpr(Expr &e, const std::string &name, int64_t value) {
  if (e.kind == Expr::Kind::Name && e.name == name) {
    e = Expr::lit(value, e.loc);
    return;
  }
  for (auto &a : e.args)
    bindExpr(a, name, value);
}

void bindBody(std::vector<Stmt> &body, const std::string &name, int64_t value) {
  for (auto &s : body) {
    switch (s.kind) {
    case Stmt::Kind::Comp: break;
    case Stmt::Kind::Mem:
      for (auto &e : s.mem.index)
        bindExpr(e, name, value);
      break;
    case Stmt::Kind::Bind: bindExpr(s.bindValue, name, value); break;
    case Stmt::Kind::Loop:
      bindExpr(s.loop.lo, name, value);
      bindExpr(s.loop.hi, name, value);
      if (s.loop.step)
        bindExpr(*s.loop.step, name, value);
      bindBody(s.loop.body, name, value);
      break;
    case Stmt::Kind::Branch:
      bindBody(s.branch.thenBody, name, value);
      bindBody(s.branch.elseBody, name, value);
      break;
    }
  }
}
} // namespace

Kernel bindIndex(const Kernel &k, const std::string &name, int64_t value) {
  Kernel out = k;
  for (auto &d : out.dims) {
    if (d.lo)
      bindExpr(*d.lo, name, value);
    bindExpr(d.hi, name, value);
  }
  bindBody(out.body, name, value);
  return out;
}

bool SkeletonFile::operator==(const SkeletonFile &o) const {
  return macros == o.macros && arrays == o.arrays && kernels == o.kernels &&
         repeats == o.repeats && hostSteps == o.hostSteps && order == o.order &&
         closingComments == o.closingComments;
}

} // namespace skelcast::skeleton
