#include "skelcast/layout/KernelInfo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace skelcast::layout {

using skeleton::Expr;
using skeleton::Stmt;

bool AccessInfo::hasData() const {
  for (const auto &f : index)
    if (f.kind == IndexForm::Kind::Data)
      return true;
  return false;
}

std::vector<int> AccessInfo::vars() const {
  std::set<int> s;
  for (const auto &f : index)
    for (size_t v = 0; v < f.coef.size(); ++v)
      if (f.coef[v] != 0)
        s.insert(static_cast<int>(v));
  return {s.begin(), s.end()};
}

const char *launchTimingName(LaunchTiming t) {
  switch (t) {
  case LaunchTiming::RepeatedAlone:
    return "alone";
  case LaunchTiming::BackToBack:
    return "back_to_back";
  case LaunchTiming::Once:
    break;
  }
  return "once";
}

std::optional<LaunchTiming> launchTimingNamed(const std::string &name) {
  for (LaunchTiming t : kLaunchTimings)
    if (name == launchTimingName(t))
      return t;
  return std::nullopt;
}

int KernelInfo::arrayIndex(const std::string &n) const {
  for (size_t i = 0; i < arrays.size(); ++i)
    if (arrays[i].name == n)
      return static_cast<int>(i);
  return -1;
}
int KernelInfo::loopIndex(const std::string &n) const {
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].index == n)
      return static_cast<int>(i);
  return -1;
}
int KernelInfo::varIndex(const std::string &n) const {
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].name == n)
      return static_cast<int>(i);
  return -1;
}

namespace {

/// A loop's index as the C and the layouts name it: withUniqueLoopNames adds
/// `#k` to the variable of the k-th loop of a shared name.
std::string sourceName(const std::string &var) { return var.substr(0, var.find('#')); }

/// Sibling loops share index names in real C (`for (j...)` twice in one body:
/// a row's norm, then the row scaled), and their bodies bind the same scalar
/// names (`c = M[i][n]` in each of two loops over n). Each loop's variable gets
/// a name of its own, `j#2` for the second loop named `j` in pre-order (the
/// name a layout gives that loop, unless a binding took the name before),
/// renamed in every use inside the loop; each later binding of a bound name,
/// `c#2`, renamed in the uses after it in program order. So a subscript binds
/// to the loop around it and to the binding before it, not to the first loop
/// or the last binding of its name ('#' is in no C identifier).
class LoopNames {
public:
  explicit LoopNames(const skeleton::Kernel &k) : dims_(k.indices.begin(), k.indices.end()) {}

  void body(std::vector<Stmt> &b, const std::map<std::string, std::string> &loops) {
    for (auto &s : b) {
      switch (s.kind) {
      case Stmt::Kind::Comp: break;
      case Stmt::Kind::Mem:
        for (auto &e : s.mem.index)
          expr(e, loops);
        break;
      case Stmt::Kind::Bind: {
        expr(s.bindValue, loops);
        int k = ++ordinal_[s.bindName];
        std::string name = k > 1 ? fmt::format("{}#{}", s.bindName, k) : s.bindName;
        binds_[s.bindName] = name;
        s.bindName = name;
        break;
      }
      case Stmt::Kind::Branch:
        body(s.branch.thenBody, loops);
        body(s.branch.elseBody, loops);
        break;
      case Stmt::Kind::Loop: {
        skeleton::Loop &l = s.loop;
        expr(l.lo, loops);
        expr(l.hi, loops);
        if (l.step)
          expr(*l.step, loops);
        int k = ++ordinal_[l.index];
        auto inner = loops;
        // the first use of a name keeps it; the loop's own name hides a
        // binding of the same name before it
        std::string name = k > 1 || dims_.count(l.index) ? fmt::format("{}#{}", l.index, k) : l.index;
        inner[l.index] = name;
        l.index = name;
        body(l.body, inner);
        break;
      }
      }
    }
  }

private:
  void expr(Expr &e, const std::map<std::string, std::string> &loops) const {
    if (e.kind == Expr::Kind::Name) {
      if (auto it = loops.find(e.name); it != loops.end())
        e.name = it->second;
      else if (auto b = binds_.find(e.name); b != binds_.end())
        e.name = b->second;
      return;
    }
    for (auto &a : e.args)
      expr(a, loops);
  }

  std::set<std::string> dims_;
  /// Loops and bindings share one count a name, so that no loop's variable
  /// has a binding's name (a loop `n` after `n = M[i][m]` is `n#2`).
  std::map<std::string, int> ordinal_;
  std::map<std::string, std::string> binds_; ///< a bound name -> its latest binding's
};

skeleton::Kernel withUniqueLoopNames(const skeleton::Kernel &k) {
  skeleton::Kernel named = k;
  LoopNames(k).body(named.body, {});
  return named;
}

/// `r = a op b` for + - * / %, false (r unspecified) when the result does not
/// fit in 64 bits or the divisor is 0.
bool arith(char op, int64_t a, int64_t b, int64_t &r) {
  switch (op) {
  case '+': return !__builtin_add_overflow(a, b, &r);
  case '-': return !__builtin_sub_overflow(a, b, &r);
  case '*': return !__builtin_mul_overflow(a, b, &r);
  case '/':
  case '%':
    if (b == 0 || (a == INT64_MIN && b == -1))
      return false;
    r = op == '/' ? a / b : a % b;
    return true;
  }
  return false;
}

/// v = -v, false when v is INT64_MIN.
bool negate(int64_t &v) { return !__builtin_sub_overflow(int64_t{0}, v, &v); }

class Analyzer {
public:
  Analyzer(const skeleton::SkeletonFile &f, KernelInfo &ki) : f_(f), ki_(ki) {}

  void run(const skeleton::Kernel &k) {
    for (size_t d = 0; d < k.dims.size(); ++d) {
      int64_t lo = k.dims[d].lo ? skeleton::evalConstExpr(*k.dims[d].lo, ki_.macros, f_.path) : 0;
      int64_t hi = skeleton::evalConstExpr(k.dims[d].hi, ki_.macros, f_.path);
      ki_.dimNames.push_back(k.indices[d]);
      ki_.dimLo.push_back(lo);
      ki_.dimSize.push_back(hi - lo);
      ki_.loopSpace *= static_cast<double>(hi - lo);
      Var v;
      v.name = k.indices[d];
      v.dim = static_cast<int>(d);
      v.lo = lo;
      v.trip = static_cast<double>(hi - lo);
      ki_.vars.push_back(v);
    }
    // Loop variables are numbered before the accesses are classified.
    const skeleton::Kernel named = withUniqueLoopNames(k);
    collectLoops(named.body, -1, 1.0, false);
    nextLoop_ = 0;
    walk(named.body, {}, 1.0);
    for (auto &a : ki_.accesses) {
      for (auto &f : a.index)
        f.coef.resize(ki_.vars.size(), 0);
      a.innerStepBytes = innerStepBytes(a);
    }
    for (auto &a : ki_.accesses)
      a.heldInRegister = heldInRegister(a, a.heldWritten);
  }

private:
  void collectLoops(const std::vector<Stmt> &body, int parent, double execs, bool inBranch) {
    for (const auto &s : body) {
      if (s.kind == Stmt::Kind::Loop) {
        const auto &l = s.loop;
        LoopInfo li;
        li.index = sourceName(l.index);
        li.isStream = l.isStream;
        li.parent = parent;
        li.execs = execs;
        li.inBranch = inBranch;
        Var v;
        v.name = l.index;
        v.loop = static_cast<int>(ki_.loops.size());
        int64_t step = 1;
        if (l.step && skeleton::isConstExpr(*l.step, ki_.macros))
          step = skeleton::evalConstExpr(*l.step, ki_.macros, f_.path);
        v.step = step;
        if (skeleton::isConstExpr(l.lo, ki_.macros) && skeleton::isConstExpr(l.hi, ki_.macros)) {
          int64_t lo = skeleton::evalConstExpr(l.lo, ki_.macros, f_.path);
          int64_t hi = skeleton::evalConstExpr(l.hi, ki_.macros, f_.path);
          li.constTrip = true;
          li.trip = hi > lo ? static_cast<double>((hi - lo + step - 1) / step) : 0.0;
          v.lo = lo;
        } else if (l.tripHint) {
          li.trip = static_cast<double>(*l.tripHint);
          v.lo = boundValue(l.lo);
        } else {
          // Bounds affine in enclosing indices (a triangular loop): the average
          // over the loop space is the value at the mean of each index.
          li.trip = std::max(0.0, (meanValue(l.hi) - meanValue(l.lo)) / static_cast<double>(step));
          v.lo = boundValue(l.lo);
        }
        if (l.tripHint)
          li.trip = static_cast<double>(*l.tripHint);
        li.longestTrip = li.trip;
        if (!li.constTrip && !l.tripHint) {
          // The longest task's trip: the bounds at the parallel indices'
          // first and last values (the ends of a triangle).
          for (bool last : {false, true})
            li.longestTrip = std::max(li.longestTrip, (extremeValue(l.hi, last) - extremeValue(l.lo, last)) /
                                                          static_cast<double>(step));
        }
        v.trip = li.trip;
        li.var = static_cast<int>(ki_.vars.size());
        ki_.vars.push_back(v);
        // Every iteration of the loop in the whole kernel: the analysis counts
        // them in 64-bit integers (docs/errors.md, the 2^62 limit).
        if (ki_.loopSpace * execs * li.trip > 0x1p62)
          throw InputError({f_.path, s.loc.line, s.loc.col},
                           fmt::format("loop '{}' of kernel '{}' runs more than 2^62 iterations in all "
                                       "(the loop space times the trips of the loops around it)",
                                       li.index, ki_.name));
        int me = static_cast<int>(ki_.loops.size());
        ki_.loops.push_back(li);
        collectLoops(l.body, me, execs * li.trip, inBranch);
      } else if (s.kind == Stmt::Kind::Branch) {
        collectLoops(s.branch.thenBody, parent, execs * s.branch.prob, true);
        collectLoops(s.branch.elseBody, parent, execs * (1.0 - s.branch.prob), true);
      }
    }
  }

  int64_t boundValue(const Expr &e) const {
    if (skeleton::isConstExpr(e, ki_.macros))
      return skeleton::evalConstExpr(e, ki_.macros, f_.path);
    return 0;
  }

  /// A binary operator of a skeleton expression on two values (0 for a
  /// division or remainder by 0).
  static double applyBinary(char op, double a, double b) {
    switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return b != 0 ? a / b : 0;
    default: return b != 0 ? std::fmod(a, b) : 0;
    }
  }

  double meanValue(const Expr &e) const {
    switch (e.kind) {
    case Expr::Kind::IntLit: return static_cast<double>(e.value);
    case Expr::Kind::Name: {
      auto m = ki_.macros.find(e.name);
      if (m != ki_.macros.end())
        return static_cast<double>(m->second);
      int v = ki_.varIndex(e.name);
      if (v >= 0) {
        const Var &var = ki_.vars[static_cast<size_t>(v)];
        return static_cast<double>(var.lo) + (var.trip - 1) * static_cast<double>(var.step) / 2.0;
      }
      return 0;
    }
    case Expr::Kind::Neg: return -meanValue(e.args[0]);
    case Expr::Kind::Binary: {
      double a = meanValue(e.args[0]), b = meanValue(e.args[1]);
      return applyBinary(e.op, a, b);
    }
    case Expr::Kind::Access: return 0;
    }
    return 0;
  }

  /// Like meanValue, with every parallel index at its first (`last` false) or
  /// last value; sequential indices at their mean.
  double extremeValue(const Expr &e, bool last) const {
    switch (e.kind) {
    case Expr::Kind::Name: {
      int v = ki_.varIndex(e.name);
      if (v >= 0 && ki_.vars[static_cast<size_t>(v)].dim >= 0) {
        const Var &var = ki_.vars[static_cast<size_t>(v)];
        return static_cast<double>(var.lo) + (last ? (var.trip - 1) * static_cast<double>(var.step) : 0.0);
      }
      return meanValue(e);
    }
    case Expr::Kind::Neg: return -extremeValue(e.args[0], !last);
    case Expr::Kind::Binary: {
      double a = extremeValue(e.args[0], last);
      double b = extremeValue(e.args[1], e.op == '-' ? !last : last);
      return applyBinary(e.op, a, b);
    }
    default: return meanValue(e);
    }
  }

  /// AccessInfo::innerStepBytes.
  double innerStepBytes(const AccessInfo &a) const {
    if (a.loops.empty() || a.array < 0)
      return -1;
    const LoopInfo &li = ki_.loops[static_cast<size_t>(a.loops.back())];
    const Var &v = ki_.vars[static_cast<size_t>(li.var)];
    const ArrayInfo &arr = ki_.arrays[static_cast<size_t>(a.array)];
    if (arr.strides.size() != a.index.size())
      return -1;
    double step = 0;
    for (size_t d = 0; d < a.index.size(); ++d) {
      const IndexForm &f = a.index[d];
      if (f.kind != IndexForm::Kind::Affine)
        return -1;
      step += static_cast<double>(f.coef[static_cast<size_t>(li.var)]) * static_cast<double>(arr.strides[d]);
    }
    return std::fabs(step * static_cast<double>(v.step)) * arr.elemBytes;
  }

  /// AccessInfo::heldInRegister (and heldWritten).
  bool heldInRegister(const AccessInfo &ld, bool &written) const {
    written = false;
    if (ld.isStore || ld.loops.empty() || ld.array < 0 || ki_.blocks[static_cast<size_t>(ld.block)].branchArm)
      return false;
    int inner = ld.loops.back();
    size_t k = static_cast<size_t>(ki_.loops[static_cast<size_t>(inner)].var);
    for (const auto &f : ld.index)
      if (f.kind != IndexForm::Kind::Affine || f.coef[k] != 0)
        return false;
    bool stored = false, onlyElement = true;
    for (const auto &x : ki_.accesses) {
      if (&x == &ld || x.array != ld.array || std::find(x.loops.begin(), x.loops.end(), inner) == x.loops.end())
        continue;
      // the element itself (the register takes the value), or a subscript
      // with the same coefficients and another constant (never the element);
      // any other store may write it, and nvcc reloads it after each
      bool same = x.index.size() == ld.index.size(), never = false;
      for (size_t d = 0; x.index.size() == ld.index.size() && d < ld.index.size(); ++d) {
        const IndexForm &a = x.index[d], &b = ld.index[d];
        bool sameCoef = sameCoefficients(a, b);
        same = same && sameCoef && a.constant == b.constant;
        never = never || (sameCoef && a.constant != b.constant);
      }
      onlyElement = onlyElement && same;
      if (!x.isStore)
        continue;
      if (same)
        stored = true;
      else if (!never)
        return false;
    }
    // emit carries a written element across a staged loop's stages in a
    // register (sk_X_reg) only where every access of the array in the loop
    // is that element; otherwise each stage loads and stores it again
    written = stored && onlyElement;
    return true;
  }

  void walk(const std::vector<Stmt> &body, std::vector<int> loops, double execs, bool branchArm = false) {
    int block = static_cast<int>(ki_.blocks.size());
    ki_.blocks.push_back({execs, loops.empty() ? -1 : loops.back(), branchArm});
    std::map<std::string, int> loadLevel; // array or binding -> level of its latest load here
    for (const auto &s : body) {
      switch (s.kind) {
      case Stmt::Kind::Comp: ki_.comps.push_back({s.comp, s.fp64, execs, loops, s.lit64, s.chain, s.chainWaits}); break;
      case Stmt::Kind::Mem: {
        AccessInfo a;
        a.array = ki_.arrayIndex(s.mem.array);
        a.isStore = s.mem.isStore;
        a.loops = loops;
        a.execs = execs;
        a.block = block;
        a.loc = s.loc;
        int need = 0;
        for (const auto &e : s.mem.index) {
          a.index.push_back(classify(e));
          need = std::max(need, neededLevel(e, loadLevel));
        }
        a.level = need + 1;
        if (!a.isStore)
          loadLevel[s.mem.array] = a.level;
        for (int l : loops)
          noteArray(l, a.array);
        ki_.accesses.push_back(std::move(a));
        break;
      }
      case Stmt::Kind::Bind:
        ki_.bindings[s.bindName] = s.bindValue;
        loadLevel[s.bindName] = neededLevel(s.bindValue, loadLevel);
        break;
      case Stmt::Kind::Loop: {
        int me = nextLoop_++;
        std::set<int> dims;
        boundDims(s.loop.lo, dims, 0);
        ki_.loops[static_cast<size_t>(me)].startDims.assign(dims.begin(), dims.end());
        boundDims(s.loop.hi, dims, 0);
        ki_.loops[static_cast<size_t>(me)].boundDims.assign(dims.begin(), dims.end());
        auto inner = loops;
        inner.push_back(me);
        walk(s.loop.body, inner, execs * ki_.loops[static_cast<size_t>(me)].trip);
        break;
      }
      case Stmt::Kind::Branch:
        walk(s.branch.thenBody, loops, execs * s.branch.prob, true);
        walk(s.branch.elseBody, loops, execs * (1.0 - s.branch.prob), true);
        break;
      }
    }
  }

  /// LoopInfo::boundDims: the parallel dimensions an expression reads.
  void boundDims(const Expr &e, std::set<int> &dims, int depth) const {
    if (e.kind == Expr::Kind::Name) {
      if (ki_.macros.count(e.name))
        return;
      int v = ki_.varIndex(e.name);
      auto b = ki_.bindings.find(e.name);
      if (v >= 0) {
        if (ki_.vars[static_cast<size_t>(v)].dim >= 0)
          dims.insert(ki_.vars[static_cast<size_t>(v)].dim);
      } else if (b != ki_.bindings.end() && depth < 16) {
        boundDims(b->second, dims, depth + 1);
      } else {
        for (size_t d = 0; d < ki_.dimSize.size(); ++d)
          dims.insert(static_cast<int>(d));
      }
      return;
    }
    for (const auto &a : e.args)
      boundDims(a, dims, depth);
  }

  /// The level of the loads of this block that an expression's value waits for.
  static int neededLevel(const Expr &e, const std::map<std::string, int> &loadLevel) {
    int lv = 0;
    if (e.kind == Expr::Kind::Access || e.kind == Expr::Kind::Name) {
      auto it = loadLevel.find(e.name);
      if (it != loadLevel.end())
        lv = it->second;
    }
    for (const auto &a : e.args)
      lv = std::max(lv, neededLevel(a, loadLevel));
    return lv;
  }

  void noteArray(int loop, int array) {
    auto &v = ki_.loops[static_cast<size_t>(loop)].arrays;
    if (std::find(v.begin(), v.end(), array) == v.end())
      v.push_back(array);
  }

  bool dependsOnData(const Expr &e) const {
    if (e.kind == Expr::Kind::Access)
      return true;
    if (e.kind == Expr::Kind::Name && ki_.bindings.count(e.name))
      return true;
    for (const auto &a : e.args)
      if (dependsOnData(a))
        return true;
    return false;
  }

  /// Affine form over the variables, or nullopt when not affine.
  std::optional<IndexForm> affine(const Expr &e) const {
    IndexForm f;
    f.coef.assign(ki_.vars.size(), 0);
    switch (e.kind) {
    case Expr::Kind::IntLit: f.constant = e.value; return f;
    case Expr::Kind::Name: {
      auto m = ki_.macros.find(e.name);
      if (m != ki_.macros.end()) {
        f.constant = m->second;
        return f;
      }
      int v = ki_.varIndex(e.name);
      if (v < 0)
        return std::nullopt;
      f.coef[static_cast<size_t>(v)] = 1;
      return f;
    }
    case Expr::Kind::Neg: {
      auto a = affine(e.args[0]);
      if (!a || !negate(a->constant))
        return std::nullopt;
      for (auto &c : a->coef)
        if (!negate(c))
          return std::nullopt;
      return a;
    }
    case Expr::Kind::Binary: {
      auto a = affine(e.args[0]);
      auto b = affine(e.args[1]);
      if (!a || !b)
        return std::nullopt;
      auto isConst = [](const IndexForm &x) {
        return std::all_of(x.coef.begin(), x.coef.end(), [](int64_t c) { return c == 0; });
      };
      // Coefficients beyond 64 bits make the subscript merely computable (nullopt).
      if (e.op == '+' || e.op == '-') {
        if (!arith(e.op, a->constant, b->constant, a->constant))
          return std::nullopt;
        for (size_t i = 0; i < a->coef.size(); ++i)
          if (!arith(e.op, a->coef[i], b->coef[i], a->coef[i]))
            return std::nullopt;
        return a;
      }
      if (e.op == '*') {
        if (isConst(*a))
          std::swap(a, b);
        if (!isConst(*b))
          return std::nullopt;
        if (!arith('*', a->constant, b->constant, a->constant))
          return std::nullopt;
        for (auto &c : a->coef)
          if (!arith('*', c, b->constant, c))
            return std::nullopt;
        return a;
      }
      if (isConst(*a) && isConst(*b) && arith(e.op, a->constant, b->constant, a->constant))
        return a;
      return std::nullopt;
    }
    case Expr::Kind::Access: return std::nullopt;
    }
    return std::nullopt;
  }

  IndexForm classify(const Expr &e) const {
    IndexForm f;
    if (dependsOnData(e)) {
      f.kind = IndexForm::Kind::Data;
    } else if (auto a = affine(e)) {
      f = *a;
      f.kind = IndexForm::Kind::Affine;
    } else {
      f.kind = IndexForm::Kind::Computable;
    }
    f.coef.resize(ki_.vars.size(), 0);
    f.expr = e;
    return f;
  }

  const skeleton::SkeletonFile &f_;
  KernelInfo &ki_;
  int nextLoop_ = 0;
};

/// Every name an expression mentions (arrays under subscripts among them).
void namesIn(const Expr &e, std::set<std::string> &out) {
  if (e.kind == Expr::Kind::Access || e.kind == Expr::Kind::Name)
    out.insert(e.name);
  for (const auto &a : e.args)
    namesIn(a, out);
}

void namesIn(const std::vector<skeleton::Stmt> &body, std::set<std::string> &out) {
  for (const auto &st : body) {
    switch (st.kind) {
    case skeleton::Stmt::Kind::Comp: break;
    case skeleton::Stmt::Kind::Mem:
      out.insert(st.mem.array);
      for (const auto &i : st.mem.index)
        namesIn(i, out);
      break;
    case skeleton::Stmt::Kind::Bind: namesIn(st.bindValue, out); break;
    case skeleton::Stmt::Kind::Loop:
      namesIn(st.loop.lo, out);
      namesIn(st.loop.hi, out);
      if (st.loop.step)
        namesIn(*st.loop.step, out);
      namesIn(st.loop.body, out);
      break;
    case skeleton::Stmt::Kind::Branch:
      namesIn(st.branch.thenBody, out);
      namesIn(st.branch.elseBody, out);
      break;
    }
  }
}

} // namespace

FileContext fileContext(const skeleton::SkeletonFile &file) {
  FileContext c;
  c.macros = skeleton::evalMacros(file);
  for (size_t i = 0; i < file.arrays.size(); ++i)
    c.arrayPositions.emplace(file.arrays[i].name, i);
  return c;
}

KernelInfo analyzeKernel(const skeleton::SkeletonFile &file, size_t k) {
  return analyzeKernel(file, file.kernels[k], file.kernelName(k), fileContext(file));
}

KernelInfo analyzeKernel(const skeleton::SkeletonFile &file, const skeleton::Kernel &kernel,
                         const std::string &name, const FileContext &ctx) {
  KernelInfo ki;
  ki.name = name;
  ki.file = file.path;
  ki.macros = ctx.macros;
  ki.declaredArrays = file.arrays.size();
  // Only the arrays this kernel names, in declaration order: a kernel of a
  // program of thousands of arrays would otherwise carry (and characterize,
  // layout by layout) every one of them, and load every sample file again.
  std::set<std::string> named;
  namesIn(kernel.body, named);
  for (const auto &d : kernel.dims) {
    if (d.lo)
      namesIn(*d.lo, named);
    namesIn(d.hi, named);
  }
  std::vector<size_t> positions;
  for (const auto &n : named) {
    auto it = ctx.arrayPositions.find(n);
    if (it != ctx.arrayPositions.end())
      positions.push_back(it->second);
  }
  std::sort(positions.begin(), positions.end());
  for (size_t p : positions) {
    const skeleton::Array &a = file.arrays[p];
    ArrayInfo ai;
    ai.name = a.name;
    ai.elemBytes = skeleton::elemBytes(a.type);
    for (const auto &e : a.extents)
      ai.extents.push_back(skeleton::evalConstExpr(e, ki.macros, file.path));
    ai.strides.assign(ai.extents.size(), 1);
    for (size_t d = ai.extents.size(); d-- > 1;)
      ai.strides[d - 1] = ai.strides[d] * ai.extents[d];
    ai.elements = 1;
    for (auto x : ai.extents)
      ai.elements *= static_cast<double>(x);
    if (a.sampleFile)
      ai.sample = skeleton::loadSample(skeleton::resolveRelative(file.path, *a.sampleFile), a.loc);
    ki.arrays.push_back(std::move(ai));
  }
  for (const skeleton::Reduction &r : kernel.reductions)
    ki.reductionBytes.push_back(skeleton::elemBytes(skeleton::reductionType(file, r)));
  Analyzer(file, ki).run(kernel);
  return ki;
}

std::optional<int64_t> evalIndex(const KernelInfo &ki, const Expr &e,
                                 const std::vector<int64_t> &vals) {
  switch (e.kind) {
  case Expr::Kind::IntLit: return e.value;
  case Expr::Kind::Name: {
    auto m = ki.macros.find(e.name);
    if (m != ki.macros.end())
      return m->second;
    int v = ki.varIndex(e.name);
    if (v >= 0)
      return vals[static_cast<size_t>(v)];
    auto b = ki.bindings.find(e.name);
    if (b != ki.bindings.end())
      return evalIndex(ki, b->second, vals);
    return std::nullopt;
  }
  case Expr::Kind::Neg: {
    auto a = evalIndex(ki, e.args[0], vals);
    int64_t r = a ? *a : 0;
    return a && negate(r) ? std::optional<int64_t>(r) : std::nullopt;
  }
  case Expr::Kind::Binary: {
    // A value beyond 64 bits lies outside every array: an unknown address.
    auto a = evalIndex(ki, e.args[0], vals);
    auto b = evalIndex(ki, e.args[1], vals);
    int64_t r = 0;
    if (!a || !b || !arith(e.op, *a, *b, r))
      return std::nullopt;
    return r;
  }
  case Expr::Kind::Access: {
    int ai = ki.arrayIndex(e.name);
    if (ai < 0)
      return std::nullopt;
    const ArrayInfo &arr = ki.arrays[static_cast<size_t>(ai)];
    if (!arr.sample || arr.sample->values.empty())
      return std::nullopt;
    int64_t off = 0;
    for (size_t d = 0; d < e.args.size(); ++d) {
      auto x = evalIndex(ki, e.args[d], vals);
      int64_t term = 0;
      if (!x || __builtin_mul_overflow(*x, arr.strides[d], &term) ||
          __builtin_add_overflow(off, term, &off))
        return std::nullopt;
    }
    int64_t n = static_cast<int64_t>(arr.sample->values.size());
    off = ((off % n) + n) % n;
    return arr.sample->values[static_cast<size_t>(off)];
  }
  }
  return std::nullopt;
}

CompiledIndex::CompiledIndex(const KernelInfo &ki, const Expr &e) : ki_(&ki) {
  root_ = build(e, 0);
}

int CompiledIndex::build(const Expr &e, int depth) {
  Node n;
  switch (e.kind) {
  case Expr::Kind::IntLit:
    n.kind = Node::Kind::Lit;
    n.value = e.value;
    break;
  case Expr::Kind::Name: {
    if (auto m = ki_->macros.find(e.name); m != ki_->macros.end()) {
      n.kind = Node::Kind::Lit;
      n.value = m->second;
    } else if (int v = ki_->varIndex(e.name); v >= 0) {
      n.kind = Node::Kind::Var;
      n.value = v;
      n.deps = bit(static_cast<size_t>(v));
    } else if (auto b = ki_->bindings.find(e.name); b != ki_->bindings.end()) {
      if (depth > 64) { // (evalIndex follows it as far as it goes)
        n.kind = Node::Kind::Direct;
        n.expr = &e;
        n.deps = ~uint64_t{0};
        break;
      }
      return build(b->second, depth + 1);
    }
    break; // unknown: nullopt, as evalIndex
  }
  case Expr::Kind::Neg:
    n.kind = Node::Kind::Neg;
    n.a = build(e.args[0], depth);
    n.deps = nodes_[static_cast<size_t>(n.a)].deps;
    break;
  case Expr::Kind::Binary:
    n.kind = Node::Kind::Binary;
    n.op = e.op;
    n.a = build(e.args[0], depth);
    n.b = build(e.args[1], depth);
    n.deps = nodes_[static_cast<size_t>(n.a)].deps | nodes_[static_cast<size_t>(n.b)].deps;
    break;
  case Expr::Kind::Access:
    n.kind = Node::Kind::Direct;
    n.expr = &e;
    n.deps = ~uint64_t{0};
    break;
  }
  nodes_.push_back(n);
  return static_cast<int>(nodes_.size() - 1);
}

std::optional<int64_t> CompiledIndex::eval(int i, const std::vector<int64_t> &vals) const {
  const Node &n = nodes_[static_cast<size_t>(i)];
  switch (n.kind) {
  case Node::Kind::Lit: return n.value;
  case Node::Kind::Var: return vals[static_cast<size_t>(n.value)];
  case Node::Kind::Unknown: return std::nullopt;
  case Node::Kind::Neg: {
    auto a = eval(n.a, vals);
    int64_t r = a ? *a : 0;
    return a && negate(r) ? std::optional<int64_t>(r) : std::nullopt;
  }
  case Node::Kind::Binary: {
    auto a = eval(n.a, vals);
    auto b = eval(n.b, vals);
    int64_t r = 0;
    if (!a || !b || !arith(n.op, *a, *b, r))
      return std::nullopt;
    return r;
  }
  case Node::Kind::Direct: return evalIndex(*ki_, *n.expr, vals);
  }
  return std::nullopt;
}

size_t CompiledIndex::partsDependingOn(uint64_t bits) const {
  return static_cast<size_t>(
      std::count_if(nodes_.begin(), nodes_.end(), [&](const Node &n) { return (n.deps & bits) != 0; }));
}

std::optional<int64_t> CompiledIndex::update(const std::vector<int64_t> &vals, uint64_t changed) {
  const bool first = last_.empty();
  if (first) {
    last_.assign(nodes_.size(), 0);
    known_.assign(nodes_.size(), 0);
  }
  // The nodes in their order (children first), each as eval computes it; at
  // the first call all of them (a literal depends on no variable).
  for (size_t i = 0; i <= static_cast<size_t>(root_); ++i) {
    const Node &n = nodes_[i];
    if (!first && !(n.deps & changed))
      continue;
    int64_t r = 0;
    bool ok = false;
    switch (n.kind) {
    case Node::Kind::Lit: r = n.value, ok = true; break;
    case Node::Kind::Var: r = vals[static_cast<size_t>(n.value)], ok = true; break;
    case Node::Kind::Unknown: break;
    case Node::Kind::Neg:
      r = last_[static_cast<size_t>(n.a)];
      ok = known_[static_cast<size_t>(n.a)] && negate(r);
      break;
    case Node::Kind::Binary:
      ok = known_[static_cast<size_t>(n.a)] && known_[static_cast<size_t>(n.b)] &&
           arith(n.op, last_[static_cast<size_t>(n.a)], last_[static_cast<size_t>(n.b)], r);
      break;
    case Node::Kind::Direct: {
      auto v = evalIndex(*ki_, *n.expr, vals);
      ok = v.has_value();
      r = v.value_or(0);
      break;
    }
    }
    last_[i] = r;
    known_[i] = ok;
  }
  if (!known_[static_cast<size_t>(root_)])
    return std::nullopt;
  return last_[static_cast<size_t>(root_)];
}

} // namespace skelcast::layout
