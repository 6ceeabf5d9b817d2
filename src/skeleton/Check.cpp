#include "Check.h"

#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Sample.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace skelcast::skeleton {
namespace {

/// The largest array (in bytes) and loop space (in iterations) a skeleton may
/// declare: later stages count elements, strides, byte addresses and tasks in
/// 64-bit integers, and stay clear of overflow below this (4 Ei).
constexpr int64_t kMaxCount = int64_t{1} << 62;
/// A stretch's chain: a billion cycles (half a second at 2 GHz) is far past any.
constexpr int64_t kMaxChainCycles = 1000000000;
/// Loads on one stretch's chain: a million is far past any.
constexpr int64_t kMaxChainWaits = 1000000;

/// What a name in a kernel body refers to.
enum class NameKind { Macro, ParallelIndex, LoopIndex, Scalar, RepeatIndex };

class Checker {
public:
  explicit Checker(const SkeletonFile &f) : f_(f) {}

  void run() {
    std::set<std::string> global;
    auto declare = [&](const std::string &n, const SourceLoc &l, const char *what) {
      if (!global.insert(n).second)
        throw InputError(at(l), fmt::format("{} '{}' is already declared", what, n));
    };
    for (const auto &m : f_.macros)
      declare(m.name, m.loc, "macro");
    macros_ = evalMacros(f_);
    for (const auto &a : f_.arrays) {
      declare(a.name, a.loc, "array");
      std::vector<int64_t> ext;
      for (const auto &e : a.extents) {
        int64_t v = evalConstExpr(e, macros_, f_.path);
        if (v <= 0)
          throw InputError(at(e.loc), fmt::format("extent of array '{}' must be positive, is {}",
                                                  a.name, v));
        ext.push_back(v);
      }
      int64_t bytes = elemBytes(a.type);
      for (int64_t x : ext)
        if (__builtin_mul_overflow(bytes, x, &bytes) || bytes > kMaxCount)
          throw InputError(at(a.loc), fmt::format("array '{}' holds more than 2^62 bytes", a.name));
      extents_[a.name] = ext;
      if (a.sampleFile) {
        SampleData d = loadSample(resolveRelative(f_.path, *a.sampleFile), at(a.loc));
        int64_t size = 1;
        for (int64_t x : ext)
          if (__builtin_mul_overflow(size, x, &size))
            size = INT64_MAX;
        if (static_cast<int64_t>(d.values.size()) > size)
          throw InputError({d.path, d.lines[static_cast<size_t>(size)], 0},
                           fmt::format("sample holds more values than array '{}' has elements ({})",
                                       a.name, size));
        samples_[a.name] = std::move(d);
      }
    }
    for (const auto &r : f_.repeats) {
      if (r.indexed()) {
        checkRange(r, global);
        continue;
      }
      int64_t n = evalConstExpr(r.count, macros_, f_.path);
      if (n < 1)
        throw InputError(at(r.count.loc), fmt::format("repeat count must be at least 1, is {}", n));
    }
    for (const auto &h : f_.hostSteps)
      for (size_t i = 0; i < h.arrays.size(); ++i)
        if (!f_.findArray(h.arrays[i]))
          throw InputError(at(h.arrayLocs[i]),
                           fmt::format("'host {}' names '{}', which is not a declared array",
                                       h.writes ? "writes" : "reads", h.arrays[i]));
    std::set<std::string> kernelNames;
    for (size_t k = 0; k < f_.kernels.size(); ++k) {
      const Kernel &kr = f_.kernels[k];
      if (!kr.name.empty()) {
        if (global.count(kr.name) || !kernelNames.insert(kr.name).second)
          throw InputError(at(kr.loc), fmt::format("kernel name '{}' is already used", kr.name));
      }
      const Repeat *r = f_.repeatOf(k);
      checkKernel(kr, r && r->indexed() ? r : nullptr);
    }
  }

private:
  SourceLoc at(const SourceLoc &l) const {
    SourceLoc r = l;
    if (r.file.empty())
      r.file = f_.path;
    return r;
  }

  using Scope = std::map<std::string, NameKind>;

  /// `repeat k = lo:hi[:step]`: constant bounds within +-2^62, a positive
  /// step, at least one value, and an index that no macro or array names.
  void checkRange(const Repeat &r, const std::set<std::string> &global) {
    if (global.count(r.index))
      throw InputError(at(r.indexLoc),
                       fmt::format("repeat index '{}' is already declared", r.index));
    std::vector<const Expr *> parts{&r.lo, &r.hi};
    if (r.step)
      parts.push_back(&*r.step);
    for (const Expr *e : parts) {
      int64_t v = evalConstExpr(*e, macros_, f_.path);
      if (v > kMaxCount || v < -kMaxCount)
        throw InputError(at(e->loc), fmt::format("repeat bound {} is outside +-2^62", v));
    }
    if (r.step && evalConstExpr(*r.step, macros_, f_.path) <= 0)
      throw InputError(at(r.step->loc), fmt::format("repeat step must be positive, is {}",
                                                    evalConstExpr(*r.step, macros_, f_.path)));
    int64_t lo = evalConstExpr(r.lo, macros_, f_.path), hi = evalConstExpr(r.hi, macros_, f_.path);
    if (hi <= lo)
      throw InputError(at(r.lo.loc), fmt::format("repeat range {}:{} of '{}' is empty", lo, hi,
                                                 r.index));
    repeatIndices_.emplace(r.index, r.indexLoc);
  }

  /// `e` as coef x index + constant, or nullopt when it is not affine in the
  /// index (a product of two terms with the index, a division or remainder of
  /// one, an array element, a name other than a macro or the index).
  struct Affine {
    int64_t coef = 0, constant = 0;
  };
  std::optional<Affine> affineIn(const Expr &e, const std::string &index) const {
    auto overflow = [&]() -> std::optional<Affine> {
      throw InputError(at(e.loc), "integer overflow");
    };
    switch (e.kind) {
    case Expr::Kind::IntLit: return Affine{0, e.value};
    case Expr::Kind::Name:
      if (e.name == index)
        return Affine{1, 0};
      if (macros_.count(e.name))
        return Affine{0, macros_.at(e.name)};
      return std::nullopt;
    case Expr::Kind::Access: return std::nullopt;
    case Expr::Kind::Neg: {
      auto a = affineIn(e.args[0], index);
      if (!a)
        return a;
      Affine r;
      if (__builtin_sub_overflow(int64_t{0}, a->coef, &r.coef) ||
          __builtin_sub_overflow(int64_t{0}, a->constant, &r.constant))
        return overflow();
      return r;
    }
    case Expr::Kind::Binary: {
      auto a = affineIn(e.args[0], index), b = affineIn(e.args[1], index);
      if (!a || !b)
        return std::nullopt;
      Affine r;
      switch (e.op) {
      case '+':
        if (__builtin_add_overflow(a->coef, b->coef, &r.coef) ||
            __builtin_add_overflow(a->constant, b->constant, &r.constant))
          return overflow();
        return r;
      case '-':
        if (__builtin_sub_overflow(a->coef, b->coef, &r.coef) ||
            __builtin_sub_overflow(a->constant, b->constant, &r.constant))
          return overflow();
        return r;
      case '*':
        if (a->coef != 0 && b->coef != 0)
          return std::nullopt;
        if (a->coef == 0)
          std::swap(a, b); // b is the constant factor
        if (__builtin_mul_overflow(a->coef, b->constant, &r.coef) ||
            __builtin_mul_overflow(a->constant, b->constant, &r.constant))
          return overflow();
        return r;
      default: // '/' and '%' only of constants
        if (a->coef != 0 || b->coef != 0)
          return std::nullopt;
        return Affine{0, evalConstExpr(e, macros_, f_.path)};
      }
    }
    }
    return std::nullopt;
  }

  /// A kernel of an indexed repeat: bounds affine in the index, a loop space
  /// that is not empty for at least one of its values, and within 2^62 for all.
  void checkIndexedSpace(const Kernel &k, const Repeat &r) {
    MacroTable names = macros_;
    names[r.index] = 0;
    for (const auto &d : k.dims)
      for (const Expr *e : {d.lo ? &*d.lo : nullptr, &d.hi})
        if (e && !affineIn(*e, r.index) && !isConstExpr(*e, names))
          throw InputError(at(e->loc),
                           fmt::format("loop space bound must be an integer expression of the "
                                       "repeat index '{}' and macros",
                                       r.index));
    // bounds not affine in the index: launchInterval evaluates every pass
    LaunchInterval li = launchInterval(k, r, macros_, f_.path);
    std::string name = f_.kernelName(static_cast<size_t>(&k - f_.kernels.data()));
    if (li.count() == 0)
      throw InputError(at(k.loc), fmt::format("loop space of kernel '{}' is empty for every value "
                                              "of '{}'",
                                              name, r.index));
    RepeatRange rr = repeatRange(r, macros_, f_.path);
    if (li.holes > 0)
      throw InputError(at(k.loc),
                       fmt::format("the passes that launch kernel '{}' do not form one interval "
                                   "of '{}' ({} empty loop spaces between {} and {})",
                                   name, r.index, li.holes, rr.value(li.first),
                                   rr.value(li.last)));
    MacroTable env = macros_;
    std::vector<int64_t> passes{li.first, li.last}; // affine sizes: the largest at an end
    if (!li.affine && li.largest >= 0)
      passes.push_back(li.largest); // else it may lie between them
    for (int64_t n : passes) {
      env[r.index] = rr.value(n);
      if (loopSpaceSize(k, env, f_.path) > kMaxCount)
        throw InputError(at(k.loc), "loop space has more than 2^62 iterations");
    }
  }

  void checkKernel(const Kernel &k, const Repeat *indexed) {
    if (k.dims.empty() || k.dims.size() > 3)
      throw InputError(at(k.loc), fmt::format("parallel_for must have 1 to 3 dimensions, has {}",
                                              k.dims.size()));
    if (k.indices.size() != k.dims.size())
      throw InputError(at(k.loc),
                       fmt::format("parallel_for has {} dimensions but {} index names",
                                   k.dims.size(), k.indices.size()));
    if (indexed)
      checkIndexedSpace(k, *indexed);
    int64_t space = 1;
    for (const auto &d : k.dims) {
      if (indexed && !isConstExpr(d.hi, macros_))
        continue;
      if (indexed && d.lo && !isConstExpr(*d.lo, macros_))
        continue;
      int64_t lo = d.lo ? evalConstExpr(*d.lo, macros_, f_.path) : 0;
      int64_t hi = evalConstExpr(d.hi, macros_, f_.path);
      if (hi <= lo)
        throw InputError(at(d.hi.loc),
                         fmt::format("loop space dimension must be non-empty, is {}:{}", lo, hi));
      int64_t size = 0;
      if (__builtin_sub_overflow(hi, lo, &size) || __builtin_mul_overflow(space, size, &space) ||
          space > kMaxCount)
        throw InputError(at(k.loc), "loop space has more than 2^62 iterations");
    }
    Scope scope;
    for (const auto &m : f_.macros)
      scope[m.name] = NameKind::Macro;
    if (indexed)
      scope[indexed->index] = NameKind::RepeatIndex;
    for (const auto &n : k.indices) {
      if (indexed && n == indexed->index)
        throw InputError(at(k.loc), shadows(n));
      if (scope.count(n) || extents_.count(n))
        throw InputError(at(k.loc), fmt::format("index '{}' is already declared", n));
      scope[n] = NameKind::ParallelIndex;
    }
    checkReductions(k, scope);
    checkBlock(k.body, scope);
  }

  /// `reduce(op: s)`: s a new name or a one-element array, reduced once, and
  /// neither loaded nor stored in the kernel (the combination is the term's).
  void checkReductions(const Kernel &k, const Scope &scope) {
    std::set<std::string> seen;
    for (const Reduction &r : k.reductions) {
      if (isRepeatIndex(r.target, scope))
        throw InputError(at(r.loc), shadows(r.target));
      if (scope.count(r.target))
        throw InputError(at(r.loc), fmt::format("reduction variable '{}' is already declared as a "
                                                "{}",
                                                r.target,
                                                scope.at(r.target) == NameKind::Macro ? "macro"
                                                                                      : "loop index"));
      if (!seen.insert(r.target).second)
        throw InputError(at(r.loc), fmt::format("'{}' is reduced twice in one kernel", r.target));
      if (auto it = extents_.find(r.target); it != extents_.end()) {
        int64_t n = 1;
        for (int64_t e : it->second)
          n = e > 0 && n <= kMaxCount / e ? n * e : kMaxCount;
        if (n != 1)
          throw InputError(at(r.loc),
                           fmt::format("reduction variable '{}' must hold one element, the array "
                                       "has {} (declare it '{}[1]')",
                                       r.target, n, r.target));
      }
      checkNotAccessed(k.body, r.target);
    }
  }

  void checkNotAccessed(const std::vector<Stmt> &body, const std::string &target) const {
    for (const Stmt &s : body) {
      if (s.kind == Stmt::Kind::Mem && s.mem.array == target)
        throw InputError(at(s.loc), fmt::format("'{}' is the kernel's reduction variable: its "
                                                "partial results are neither loaded nor stored "
                                                "in the kernel",
                                                target));
      if (s.kind == Stmt::Kind::Loop)
        checkNotAccessed(s.loop.body, target);
      if (s.kind == Stmt::Kind::Branch) {
        checkNotAccessed(s.branch.thenBody, target);
        checkNotAccessed(s.branch.elseBody, target);
      }
    }
  }

  void checkBlock(const std::vector<Stmt> &body, Scope scope) {
    for (const auto &s : body) {
      switch (s.kind) {
      case Stmt::Kind::Comp:
        if (s.comp < 0)
          throw InputError(at(s.loc),
                           fmt::format("instruction count must not be negative, is {}", s.comp));
        if (s.fp64 < 0 || s.fp64 > s.comp)
          throw InputError(at(s.loc), fmt::format("FP64 count must be within [0, {}] (the "
                                                  "instructions of the 'comp'), is {}",
                                                  s.comp, s.fp64));
        // an FP64 instruction takes at most three operands
        if (s.lit64 < 0 || s.lit64 > 3 * s.fp64)
          throw InputError(at(s.loc), fmt::format("64-bit literal count must be within [0, {}] (three "
                                                  "operands of each FP64 instruction), is {}",
                                                  3 * s.fp64, s.lit64));
        if (s.chain < 0 || s.chain > kMaxChainCycles)
          throw InputError(at(s.loc), fmt::format("chain cycles must be within [0, {}], is {}",
                                                  kMaxChainCycles, s.chain));
        if (s.chainWaits < 0 || s.chainWaits > kMaxChainWaits)
          throw InputError(at(s.loc), fmt::format("chain waits must be within [0, {}], is {}",
                                                  kMaxChainWaits, s.chainWaits));
        break;
      case Stmt::Kind::Mem: checkAccess(s.mem.array, s.mem.index, s.loc, scope); break;
      case Stmt::Kind::Bind:
        checkExpr(s.bindValue, scope);
        if (isRepeatIndex(s.bindName, scope))
          throw InputError(at(s.loc), shadows(s.bindName));
        if (scope.count(s.bindName) || extents_.count(s.bindName))
          throw InputError(at(s.loc),
                           fmt::format("name '{}' is already declared in this scope", s.bindName));
        scope[s.bindName] = NameKind::Scalar;
        bindings_[s.bindName] = &s.bindValue;
        break;
      case Stmt::Kind::Loop: {
        const Loop &l = s.loop;
        checkExpr(l.lo, scope);
        checkExpr(l.hi, scope);
        if (l.step) {
          checkExpr(*l.step, scope);
          if (isConstExpr(*l.step, macros_) && evalConstExpr(*l.step, macros_, f_.path) <= 0)
            throw InputError(at(l.step->loc), "loop step must be positive");
        }
        checkTripCount(l, s.loc);
        if (l.tripHint && *l.tripHint < 0)
          throw InputError(at(s.loc), fmt::format("trip-count hint must not be negative, is {}",
                                                  *l.tripHint));
        std::string dataName;
        if (!l.tripHint && (dependsOnData(l.lo, scope, dataName) ||
                            dependsOnData(l.hi, scope, dataName)))
          throw InputError(at(s.loc),
                           fmt::format("bounds of loop '{}' depend on data ('{}'): add a trip-count "
                                       "hint '(hint:N)'",
                                       l.index, dataName));
        if (isRepeatIndex(l.index, scope))
          throw InputError(at(s.loc), shadows(l.index));
        if (scope.count(l.index) || extents_.count(l.index))
          throw InputError(at(s.loc),
                           fmt::format("loop index '{}' is already declared in this scope", l.index));
        Scope inner = scope;
        inner[l.index] = NameKind::LoopIndex;
        checkBlock(l.body, inner);
        break;
      }
      case Stmt::Kind::Branch:
        if (!(s.branch.prob >= 0.0 && s.branch.prob <= 1.0))
          throw InputError(at(s.loc), fmt::format("branch probability must be within [0, 1], is {}",
                                                  s.branch.prob));
        checkBlock(s.branch.thenBody, scope);
        checkBlock(s.branch.elseBody, scope);
        break;
      }
    }
  }

  static bool isRepeatIndex(const std::string &n, const Scope &scope) {
    auto it = scope.find(n);
    return it != scope.end() && it->second == NameKind::RepeatIndex;
  }
  static std::string shadows(const std::string &n) {
    return fmt::format("index '{}' shadows the index of the enclosing repeat", n);
  }

  /// A loop with constant bounds: its trip count (hi - lo + step - 1) / step,
  /// as the analysis computes it, must not overflow.
  void checkTripCount(const Loop &l, const SourceLoc &loc) const {
    if (!isConstExpr(l.lo, macros_) || !isConstExpr(l.hi, macros_) ||
        (l.step && !isConstExpr(*l.step, macros_)))
      return;
    int64_t lo = evalConstExpr(l.lo, macros_, f_.path), hi = evalConstExpr(l.hi, macros_, f_.path);
    int64_t step = l.step ? evalConstExpr(*l.step, macros_, f_.path) : 1, span = 0;
    if (hi > lo && (__builtin_sub_overflow(hi, lo, &span) || span > kMaxCount ||
                    __builtin_add_overflow(span, step - 1, &span)))
      throw InputError(at(loc), fmt::format("loop '{}' has more than 2^62 iterations", l.index));
  }

  bool dependsOnData(const Expr &e, const Scope &scope, std::string &name) const {
    if (e.kind == Expr::Kind::Access) {
      name = e.name;
      return true;
    }
    if (e.kind == Expr::Kind::Name) {
      auto it = scope.find(e.name);
      if (it != scope.end() && it->second == NameKind::Scalar) {
        name = e.name;
        return true;
      }
    }
    for (const auto &a : e.args)
      if (dependsOnData(a, scope, name))
        return true;
    return false;
  }

  void checkExpr(const Expr &e, const Scope &scope) {
    switch (e.kind) {
    case Expr::Kind::IntLit: break;
    case Expr::Kind::Name:
      if (!scope.count(e.name)) {
        if (extents_.count(e.name))
          throw InputError(at(e.loc),
                           fmt::format("array '{}' used without an index", e.name));
        auto r = repeatIndices_.find(e.name);
        if (r != repeatIndices_.end())
          throw InputError(at(e.loc), fmt::format("'{}' is the index of the repeat at {}:{} and is "
                                                  "not visible here",
                                                  e.name, r->second.line, r->second.col));
        throw InputError(at(e.loc), fmt::format("undeclared name '{}'", e.name));
      }
      break;
    case Expr::Kind::Access: checkAccess(e.name, e.args, e.loc, scope); break;
    case Expr::Kind::Binary:
      checkExpr(e.args[0], scope);
      checkExpr(e.args[1], scope);
      if ((e.op == '/' || e.op == '%') && isConstExpr(e.args[1], macros_) &&
          evalConstExpr(e.args[1], macros_, f_.path) == 0)
        throw InputError(at(e.loc), "division by zero");
      break;
    case Expr::Kind::Neg: checkExpr(e.args[0], scope); break;
    }
  }

  void checkAccess(const std::string &array, const std::vector<Expr> &idx, const SourceLoc &loc,
                   const Scope &scope) {
    auto it = extents_.find(array);
    if (it == extents_.end())
      throw InputError(at(loc), fmt::format("undeclared array '{}'", array));
    if (idx.size() != it->second.size())
      throw InputError(at(loc), fmt::format("array '{}' has {} dimensions but {} indices are given",
                                            array, it->second.size(), idx.size()));
    for (size_t d = 0; d < idx.size(); ++d) {
      checkExpr(idx[d], scope);
      checkSampleRange(idx[d], it->second[d], array, d);
    }
  }

  /// Sample values used directly as an index must lie within that dimension.
  void checkSampleRange(const Expr &e, int64_t extent, const std::string &array, size_t dim) {
    const Expr *src = &e;
    if (e.kind == Expr::Kind::Name) {
      auto b = bindings_.find(e.name);
      if (b == bindings_.end())
        return;
      src = b->second;
    }
    if (src->kind != Expr::Kind::Access)
      return;
    auto s = samples_.find(src->name);
    if (s == samples_.end())
      return;
    for (size_t i = 0; i < s->second.values.size(); ++i) {
      int64_t v = s->second.values[i];
      if (v < 0 || v >= extent)
        throw InputError({s->second.path, s->second.lines[i], 0},
                         fmt::format("sample value {} is outside dimension {} of '{}' (0 to {})", v,
                                     dim + 1, array, extent - 1));
    }
  }

  const SkeletonFile &f_;
  MacroTable macros_;
  std::map<std::string, std::vector<int64_t>> extents_;
  std::map<std::string, SampleData> samples_;
  std::map<std::string, const Expr *> bindings_;
  std::map<std::string, SourceLoc> repeatIndices_; ///< each indexed repeat's index, first one
};

} // namespace

void checkSkeleton(const SkeletonFile &f) { Checker(f).run(); }

} // namespace skelcast::skeleton
