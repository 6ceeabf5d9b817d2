// The host driver of the emitted file (docs/emit.md, "The host driver"): the
// C nest on the host for reference, the arrays filled, the kernel launched,
// checked against the reference and timed, and a measurement record printed.
#include "Emitter.h"

#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace skelcast::emit::detail {

namespace {

/// Whether the value of `e` moves with the name `n`, directly or through a
/// scalar binding (an array's element read at `n` is data, not `n`).
bool mentions(const layout::KernelInfo &ki, const skeleton::Expr &e, const std::string &n) {
  if (e.kind == skeleton::Expr::Kind::Name) {
    if (e.name == n)
      return true;
    auto b = ki.bindings.find(e.name);
    return b != ki.bindings.end() && mentions(ki, b->second, n);
  }
  if (e.kind == skeleton::Expr::Kind::Access)
    return false;
  for (const auto &a : e.args)
    if (mentions(ki, a, n))
      return true;
  return false;
}

/// The 1-D integer array an expression reads as a whole (`P[e]`), or nullptr.
const skeleton::Expr *wholeAccess(const skeleton::Expr &e, const layout::KernelInfo &ki) {
  if (e.kind != skeleton::Expr::Kind::Access || e.args.size() != 1)
    return nullptr;
  int a = ki.arrayIndex(e.name);
  return a >= 0 && ki.arrays[static_cast<size_t>(a)].extents.size() == 1 ? &e : nullptr;
}

} // namespace

/// Whether the integer element type `t` holds the fill's largest value (a
/// ramp's last, over `count` elements); a warning where it does not (the
/// array then takes the usual fill).
bool Emitter::fitsElement(clang::QualType t, const BoundFill &f, int64_t count) {
  int64_t v = f.value;
  bool ok = !(f.ramp && count > 1 && __builtin_mul_overflow(count - 1, f.value, &v));
  if (ok) {
    unsigned bits = static_cast<unsigned>(ctx_.getIntWidth(t));
    bool isSigned = t->isSignedIntegerOrEnumerationType();
    ok = v >= 0 && (bits >= 64 || static_cast<uint64_t>(v) <=
                                       ((uint64_t{1} << (isSigned ? bits - 1 : bits)) - 1));
  }
  if (!ok)
    warnings_.push_back({f.loc,
                         fmt::format("kernel '{}': the measured program fills the bound of '{}' as "
                                     "any integer array, so each task runs its own trips: its element "
                                     "type cannot hold {} trips a row",
                                     ki_.name, f.loop, f.value)});
  return ok;
}

/// A streaming loop whose bounds read an array and whose trip count the user
/// gave (`#pragma skelcast trip(N)`, `--trip`) runs N trips in the measured
/// program, as the model projects it: `for (n = P[e]; n < P[e + 1]; n++)` (a CSR
/// row pointer) gets P[k] = N x k, `for (n = c; n < Q[e]; n++)` gets Q[k] = c + N.
/// Random values would give each task its own trip count, and a warp the longest
/// of its tasks' (IspinEx's row pointers filled at random ran 2-3x the trips of
/// `trip(14)`). N shrinks where the arrays the loop's index reads are shorter;
/// values the element type cannot hold leave the array to the usual fill.
std::map<std::string, Emitter::BoundFill>
Emitter::boundFills(const std::vector<int64_t> &indexRange) {
  std::map<std::string, BoundFill> fills;
  const skeleton::Kernel *kernel = nullptr;
  for (size_t k = 0; k < res_.file.kernels.size(); ++k)
    if (res_.file.kernelName(k) == ki_.name)
      kernel = &res_.file.kernels[k];
  if (!kernel)
    return fills;
  // where the loop is in the C file: the k-th `for` of its index in the
  // nest's body (k-th among the loops of that index, in source order), else
  // the nest
  std::function<const clang::ForStmt *(const clang::Stmt *, const std::string &, int &)> findFor =
      [&](const clang::Stmt *st, const std::string &index, int &skip) -> const clang::ForStmt * {
    if (!st)
      return nullptr;
    if (const auto *f = llvm::dyn_cast<clang::ForStmt>(st); f && loopIndexName(f) == index && skip-- == 0)
      return f;
    for (const clang::Stmt *c : st->children())
      if (const clang::ForStmt *f = findFor(c, index, skip))
        return f;
    return nullptr;
  };
  std::map<std::string, int> seenLoops; // loops of each index met so far
  auto loopAt = [&](const skeleton::Loop &lp, int ordinal) {
    int skip = ordinal;
    for (const clang::Stmt *st : nest_.body)
      if (const clang::ForStmt *f = findFor(st, lp.index, skip))
        return positionOf(ctx_, f->getBeginLoc(), path_);
    return positionOf(ctx_, nest_.parallel.front()->getBeginLoc(), path_);
  };
  auto warn = [&](const skeleton::Loop &lp, SourceLoc at, const std::string &what) {
    warnings_.push_back({at, fmt::format("kernel '{}': the measured program {} (the trip hint of "
                                         "'{}' is {})",
                                         ki_.name, what, lp.index, *lp.tripHint)});
  };
  // the scalars bound so far (`begin = J[j]`): a bound may read the array
  // through one (examples/ispinex_complex.c: `for (n = begin; n < end; n++)`)
  std::map<std::string, const skeleton::Expr *> bindings;
  auto resolve = [&](const skeleton::Expr &e) -> const skeleton::Expr * {
    if (e.kind == skeleton::Expr::Kind::Name)
      if (auto it = bindings.find(e.name); it != bindings.end())
        return wholeAccess(*it->second, ki_);
    return wholeAccess(e, ki_);
  };
  // The loops in pre-order, as layout::analyzeKernel numbers them: a loop's
  // variable is ki_.loops[k].var, whose name is its own where sibling loops
  // share an index name (`n#2`, docs/model.md, "Layout").
  size_t preorder = 0;
  std::function<void(const std::vector<skeleton::Stmt> &)> walk =
      [&](const std::vector<skeleton::Stmt> &body) {
        auto outer = bindings; // a binding is visible to the end of its block
        for (const auto &st : body) {
          if (st.kind == skeleton::Stmt::Kind::Bind)
            bindings[st.bindName] = &st.bindValue;
          if (st.kind == skeleton::Stmt::Kind::Branch) {
            walk(st.branch.thenBody);
            walk(st.branch.elseBody);
          }
          if (st.kind != skeleton::Stmt::Kind::Loop)
            continue;
          const skeleton::Loop &lp = st.loop;
          size_t me = preorder++;
          int ordinal = seenLoops[lp.index]++;
          walk(lp.body);
          if (!lp.tripHint || *lp.tripHint < 0 || lp.step || me >= ki_.loops.size())
            continue;
          const skeleton::Expr *lo = resolve(lp.lo), *hi = resolve(lp.hi);
          bool rowPointers = lo && hi && lo->name == hi->name &&
                             hi->args[0] == skeleton::Expr::binary('+', lo->args[0], skeleton::Expr::lit(1));
          bool counts = !lo && hi && lp.lo.kind == skeleton::Expr::Kind::IntLit && lp.lo.value >= 0;
          if (!rowPointers && !counts)
            continue;
          const std::string &bound = rowPointers ? lo->name : hi->name;
          SourceLoc at = loopAt(lp, ordinal);
          // two loops bounded by one array: the fill that keeps both within
          // their arrays, the smaller
          auto keep = [&](BoundFill f) {
            auto [it, fresh] = fills.emplace(bound, f);
            if (!fresh && f.ramp == it->second.ramp && f.value < it->second.value)
              it->second = std::move(f);
          };
          // n stays below `limit` in every subscript it reads: c x n + k < extent
          // for a subscript c x n + k (c > 0); one emit cannot bound leaves the
          // array to the usual fill
          int loopVar = ki_.loops[me].var;
          const std::string &varName = ki_.vars[static_cast<size_t>(loopVar)].name;
          int64_t limit = INT64_MAX;
          bool bounded = loopVar >= 0;
          for (const auto &acc : ki_.accesses)
            for (size_t d = 0; d < acc.index.size() && bounded; ++d) {
              const layout::IndexForm &f = acc.index[d];
              if (!mentions(ki_, f.expr, varName))
                continue;
              int64_t extent = ki_.arrays[static_cast<size_t>(acc.array)].extents[d];
              bool pure = f.kind == layout::IndexForm::Kind::Affine && f.constant >= 0;
              for (size_t v = 0; v < f.coef.size() && pure; ++v)
                pure = static_cast<int>(v) == loopVar ? f.coef[v] > 0 : f.coef[v] == 0;
              if (!pure) {
                bounded = false;
                break;
              }
              int64_t c = f.coef[static_cast<size_t>(loopVar)];
              limit = std::min(limit, extent > f.constant ? (extent - 1 - f.constant) / c + 1 : 0);
            }
          if (!bounded) {
            warn(lp, at, fmt::format("fills '{}' as any integer array: '{}' reads an array through a "
                                 "subscript emit cannot bound, so each task runs its own trips",
                                 bound, lp.index));
            continue;
          }
          // the bound array's values also index an array: they stay below it
          int64_t as = indexRange[static_cast<size_t>(ki_.arrayIndex(bound))];
          int64_t top = std::min(limit, as > 0 ? as - 1 : INT64_MAX); // the largest value
          int64_t trips = *lp.tripHint;
          if (rowPointers) {
            int64_t len = ki_.arrays[static_cast<size_t>(ki_.arrayIndex(bound))].extents[0];
            int64_t step = len > 1 && top != INT64_MAX ? std::min(trips, top / (len - 1)) : trips;
            keep(BoundFill{true, step, lp.index, at});
            if (step != trips)
              warn(lp, at, fmt::format("runs {} trips of '{}' a row: {} row pointers of {} would pass "
                                   "the arrays its index reads",
                                   step, lp.index, len, trips));
          } else {
            int64_t value = std::min(top, lp.lo.value + std::min(trips, INT64_MAX - lp.lo.value));
            keep(BoundFill{false, value, lp.index, at});
            if (value - lp.lo.value != trips)
              warn(lp, at, fmt::format("runs {} trips of '{}': {} would pass the arrays its index reads",
                                   std::max<int64_t>(0, value - lp.lo.value), lp.index, trips));
          }
        }
        bindings = std::move(outer);
      };
  walk(kernel->body);
  return fills;
}

/// The value the host gives a scalar the nest reads.
std::string Emitter::hostValue(const clang::VarDecl *v) {
  std::string name = v->getName().str();
  if (auto *p = llvm::dyn_cast<clang::ParmVarDecl>(v)) {
    for (const auto &fn : res_.functions)
      if (fn.name == nest_.function->getNameAsString())
        for (const auto &cp : fn.params)
          if (cp.name == name) {
            if (cp.kind == frontend::CParam::Kind::Integer && cp.value)
              return fmt::format("{}", *cp.value);
            if (cp.kind == frontend::CParam::Kind::Floating)
              return "0.5"; // any value computes the same on both sides
          }
    if (p->getType()->isFloatingType())
      return "0.5";
    fail(v->getLocation(), fmt::format("the value of parameter '{}' is not known; give it with "
                                       "--extent {}=V",
                                       name, name));
  }
  if (v->hasGlobalStorage())
    return name; // the host part declares it as the file does
  if (v->getType().isConstQualified() || !v->isLocalVarDecl()) {
    if (const clang::APValue *val = v->evaluateValue()) {
      if (val->isInt())
        return llvm::toString(val->getInt(), 10);
      if (val->isFloat()) {
        llvm::SmallString<32> s;
        val->getFloat().toString(s);
        return std::string(s.str());
      }
    }
  }
  if (v->getInit())
    if (auto r = v->getInit()->getIntegerConstantExpr(ctx_))
      return llvm::toString(*r, 10);
  fail(v->getLocation(), fmt::format("the nest reads '{}', a variable of '{}' whose value is "
                                     "known only when the function runs",
                                     name, nest_.function->getNameAsString()));
}

/// The C nest itself, on the host, for reference.
std::string Emitter::referenceFunction() {
  std::string out = "static void skelcast_reference(";
  std::vector<std::string> params;
  for (const clang::VarDecl *v : arrays_)
    params.push_back(typed(paramType(v), v->getName().str()));
  for (const clang::VarDecl *v : scalars_)
    params.push_back(typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_)
    params.push_back(typed(ctx_.getPointerType(r.var->getType().getUnqualifiedType()),
                           "sk_result_" + r.var->getName().str()));
  for (size_t i = 0; i < params.size(); ++i)
    out += (i ? ", " : "") + params[i];
  out += ") {\n";
  std::string reductionClauses;
  for (const Red &r : reds_) {
    // a float reduction accumulates in double here: the reference's own
    // rounding then stays far below the kernel's, which the check measures
    bool wider = r.var->getType()->isSpecificBuiltinType(clang::BuiltinType::Float);
    out += fmt::format("  {} = {};{}\n",
                       typed(wider ? ctx_.DoubleTy : r.var->getType().getUnqualifiedType(),
                             r.var->getName().str()),
                       identity(r), wider ? " // accumulated in double: the reference" : "");
    reductionClauses += fmt::format(" reduction({}:{})", skeleton::reduceOpName(r.op),
                                    r.var->getName().str());
  }
  for (const clang::VarDecl *v : privates_)
    out += "  " + typed(v->getType().getUnqualifiedType(), v->getName().str()) + ";\n";
  for (const clang::VarDecl *v : parVarsOutside_)
    out += "  " + typed(v->getType().getUnqualifiedType(), v->getName().str()) + ";\n";
  // The outer loop's iterations are independent (that is why it is a
  // kernel), so a host build with OpenMP (-Xcompiler -fopenmp) computes the
  // reference on all cores: at the validation sizes a serial one takes
  // minutes. The variables declared above are each iteration's own.
  std::string priv;
  for (const auto *set : {&privates_, &parVarsOutside_})
    for (const clang::VarDecl *v : *set)
      priv += (priv.empty() ? "" : ", ") + v->getName().str();
  const clang::ForStmt *rootFor = frontend::asFor(nest_.root);
  bool whole = !rootFor || (rootFor == nest_.parallel.front() && nest_.only.empty());
  if (whole || rootFor == nest_.parallel.front())
    out += "#ifdef _OPENMP\n#pragma omp parallel for" + (priv.empty() ? "" : " private(" + priv + ")") +
           reductionClauses + "\n#endif\n";
  if (whole) {
    out += printPlain(nest_.parallel.front(), 1);
  } else {
    // the C the kernel computes: the root loop (run in order when the loop
    // space was interchanged inside it) with this kernel's statements
    out += plainKept(rootFor, 1);
  }
  for (const Red &r : reds_)
    out += fmt::format("  *sk_result_{} = {};\n", r.var->getName().str(), r.var->getName().str());
  out += "}\n";
  return out;
}

std::string Emitter::host(const std::string &layoutText) {
  std::string out = "\n#ifndef __CUDA_ARCH__ // the host driver\n";
  out += "#ifndef SKELCAST_EMULATE // tests/emit/emulate.h runs the kernel on the CPU\n"
         "#include <cuda_runtime.h>\n"
         "#define SK_LAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)\n"
         "#endif\n#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
         "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <vector>\n\n";
  // globals the nest reads, as the file declares them
  for (const clang::VarDecl *v : scalars_)
    if (v->hasGlobalStorage() && !llvm::isa<clang::ParmVarDecl>(v))
      out += "static " + declText(v) + ";\n";
  out += referenceFunction();
  out += R"(
#define SK_CHECK(call)                                                              \
  do {                                                                             \
    cudaError_t sk_e = (call);                                                     \
    if (sk_e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                   cudaGetErrorString(sk_e));                                      \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

// Deterministic pseudo-random numbers (splitmix64), the same on every run.
static uint64_t sk_next(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
template <class T> static void sk_fill(std::vector<T> &v, uint64_t seed, double lo, double hi,
                                       bool integral) {
  uint64_t s = seed;
  for (auto &x : v) {
    double u = (double)(sk_next(s) >> 11) / 9007199254740992.0;
    x = integral ? (T)(int64_t)(lo + u * (hi - lo)) : (T)(lo + u * (hi - lo));
  }
}
// max |d - h| / max |h|: the norm-wise relative error (infinity norm). An
// element whose sum nearly cancels is judged against the array's scale, not
// its own: fused multiply-adds round such sums differently from the host.
template <class T> static double sk_rel_error(const std::vector<T> &d, const std::vector<T> &h) {
  double big = 0, err = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    double a = (double)d[i], b = (double)h[i];
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    big = std::max(big, std::fabs(b));
    err = std::max(err, std::fabs(a - b));
  }
  return err / std::max(big, 1e-30);
}
static double sk_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
)";
  // which arrays the kernel stores, which are indices (their values in range)
  std::vector<bool> stored(ki_.arrays.size(), false);
  std::vector<int64_t> indexRange(ki_.arrays.size(), -1);
  std::function<void(const skeleton::Expr &, int64_t)> scanIdx = [&](const skeleton::Expr &x,
                                                                     int64_t extent) {
    if (x.kind == skeleton::Expr::Kind::Access) {
      int a = ki_.arrayIndex(x.name);
      if (a >= 0)
        indexRange[a] = indexRange[a] < 0 ? extent : std::min(indexRange[a], extent);
    }
    if (x.kind == skeleton::Expr::Kind::Name) { // `int r = I[n]; ... B[r][i]`
      auto b = ki_.bindings.find(x.name);
      if (b != ki_.bindings.end())
        scanIdx(b->second, extent);
    }
    for (const auto &c : x.args)
      scanIdx(c, extent);
  };
  for (const auto &acc : ki_.accesses) {
    if (acc.isStore)
      stored[acc.array] = true;
    for (size_t d = 0; d < acc.index.size(); ++d)
      if (acc.index[d].kind == layout::IndexForm::Kind::Data)
        scanIdx(acc.index[d].expr, ki_.arrays[acc.array].extents[d]);
  }
  const std::map<std::string, BoundFill> fills = boundFills(indexRange);
  out += "\nint main(int argc, char **argv) {\n";
  out += "  int repeats = 30, warmups = 5;\n  double tolerance = -1;\n";
  out += "  for (int i = 1; i + 1 < argc; i += 2) {\n"
         "    if (!std::strcmp(argv[i], \"--repeats\")) repeats = std::atoi(argv[i + 1]);\n"
         "    else if (!std::strcmp(argv[i], \"--warmups\")) warmups = std::atoi(argv[i + 1]);\n"
         "    else if (!std::strcmp(argv[i], \"--tolerance\")) tolerance = std::atof(argv[i + "
         "1]);\n"
         "  }\n";
  std::string args, hostArgs;
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const clang::VarDecl *v = arrays_[i];
    const layout::ArrayInfo &ai = ki_.arrays[arrayIndex_[i]];
    std::string n = v->getName().str(), elem = elemName(v);
    clang::QualType et = elemType(v);
    bool integral = !et->isFloatingType();
    int64_t count = 1;
    for (int64_t e : ai.extents)
      count *= e;
    out += fmt::format("  std::vector<{}> h_{}({}LL);\n", elem, n, count);
    if (ai.sample && !ai.sample->values.empty()) {
      // A short sample repeats cyclically (docs/skeleton-language.md): an index
      // array filled so names only the sample's values, which a permutation past
      // its end is not (a scatter through it then writes one element many times).
      if (static_cast<int64_t>(ai.sample->values.size()) < count)
        warnings_.push_back({positionOf(ctx_, v->getLocation(), path_),
                             fmt::format("kernel '{}': the measured program fills '{}' by repeating its "
                                         "sample's {} values over its {} elements, so past them it "
                                         "holds those values again (an index array: the same indices); "
                                         "give a sample of every element to measure the whole array",
                                         ki_.name, n, ai.sample->values.size(), count)});
      out += fmt::format("  {{ static const long long s[] = {{", n);
      for (size_t k = 0; k < ai.sample->values.size(); ++k)
        out += fmt::format("{}{}", k ? "," : "", ai.sample->values[k]);
      out += fmt::format("}};\n    for (size_t k = 0; k < h_{}.size(); ++k) h_{}[k] = ({})s[k % "
                         "{}]; }} // the sample\n",
                         n, n, elem, ai.sample->values.size());
    } else if (auto f = fills.find(ai.name);
               integral && f != fills.end() && !stored[arrayIndex_[i]] &&
               fitsElement(et, f->second, count)) {
      if (f->second.ramp)
        out += fmt::format("  for (size_t k = 0; k < h_{}.size(); ++k) h_{}[k] = ({})(k * {}); // "
                           "row pointers: {} trips of '{}' a row (the trip hint)\n",
                           n, n, elem, f->second.value, f->second.value, f->second.loop);
      else
        out += fmt::format("  std::fill(h_{}.begin(), h_{}.end(), ({}){}); // the bound of "
                           "'{}': its trip hint\n",
                           n, n, elem, f->second.value, f->second.loop);
    } else if (integral && indexRange[arrayIndex_[i]] > 0) {
      out += fmt::format("  sk_fill(h_{}, {}, 0, {}, true); // an index: within [0, {})\n", n,
                         i + 1, indexRange[arrayIndex_[i]], indexRange[arrayIndex_[i]]);
    } else {
      out += fmt::format("  sk_fill(h_{}, {}, {}, {}, {});\n", n, i + 1, integral ? "0" : "0.5",
                         integral ? "64" : "1.5", integral ? "true" : "false");
    }
    out += fmt::format("  {} *d_{};\n  SK_CHECK(cudaMalloc(&d_{}, h_{}.size() * sizeof({})));\n",
                       elem, n, n, n, elem);
    out += fmt::format("  SK_CHECK(cudaMemcpy(d_{}, h_{}.data(), h_{}.size() * sizeof({}), "
                       "cudaMemcpyHostToDevice));\n",
                       n, n, n, elem);
    std::string cast = kernelParamType(v, false).getAsString(policy_);
    args += fmt::format("{}({})d_{}", args.empty() ? "" : ", ", cast, n);
    hostArgs += fmt::format("{}({})h_{}.data()", hostArgs.empty() ? "" : ", ",
                            paramType(v).getAsString(policy_), n);
  }
  for (const clang::VarDecl *v : scalars_) {
    std::string val = hostValue(v);
    args += (args.empty() ? "" : ", ") + val;
    hostArgs += (hostArgs.empty() ? "" : ", ") + val;
  }
  for (const Red &r : reds_) {
    // the result on the device starts from the operator's identity, as the
    // reference's does (the C code's own initial value is host code)
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {} h_sk_{} = {}; // reduce({}: {}): the C nest's result\n", t, n,
                       identity(r), skeleton::reduceOpName(r.op), n);
    out += fmt::format("  {} *d_sk_{};\n  SK_CHECK(cudaMalloc(&d_sk_{}, sizeof({})));\n", t, n, n, t);
    args += fmt::format("{}d_sk_{}", args.empty() ? "" : ", ", n);
    hostArgs += fmt::format("{}&h_sk_{}", hostArgs.empty() ? "" : ", ", n);
  }
  bool anyDouble = false;
  for (const clang::VarDecl *v : arrays_)
    if (elemType(v)->isSpecificBuiltinType(clang::BuiltinType::Double))
      anyDouble = true;
  for (const Red &r : reds_)
    if (r.var->getType()->isSpecificBuiltinType(clang::BuiltinType::Double))
      anyDouble = true;
  // The tolerance grows with the terms summed into an element (docs/emit.md,
  // "The host driver"): 4 u L, u the unit roundoff, L the iterations of a task's
  // longest-running loop; at least 1e-4 (float) or 1e-9 (double).
  double terms = 1;
  for (const layout::LoopInfo &lp : ki_.loops)
    terms = std::max(terms, lp.trip * lp.execs);
  if (!reds_.empty()) {
    // a reduction's longest chain of roundings on the GPU: a thread's tasks
    // and their terms, the block tree, the blocks' atomics one after another
    // (the reference accumulates in double, its error far below)
    double threads = static_cast<double>(l_.threadsPerBlock());
    double perBlock = threads * static_cast<double>(l_.foldProduct());
    double blocks = std::ceil(ki_.loopSpace / perBlock);
    terms = terms * static_cast<double>(l_.foldProduct()) + std::ceil(std::log2(threads)) + blocks;
  }
  double unitRoundoff = anyDouble ? 0x1p-53 : 0x1p-24;
  double tolerance = std::max(anyDouble ? 1e-9 : 1e-4, 4 * unitRoundoff * terms);
  out += fmt::format("  const double sk_terms = {}; // summed into an element at most\n",
                     static_cast<int64_t>(terms));
  out += fmt::format("  if (tolerance < 0) tolerance = {:.3g}; // max({}, 4 u L), u = 2^-{}\n",
                     tolerance, anyDouble ? "1e-9" : "1e-4", anyDouble ? 53 : 24);
  out += "  skelcast_reference(" + hostArgs + "); // the C nest, on the host\n";
  LaunchShape ls = launchShape(ki_, l_);
  for (int a = 0; a < 3; ++a)
    if (ls.grid[a] > (a == 0 ? 2147483647LL : 65535LL))
      failLayout("block", fmt::format("the grid needs {} blocks along {} (CUDA allows {})",
                                      ls.grid[a], kAxis[a], a == 0 ? "2^31 - 1" : "65535"));
  out += fmt::format("  const dim3 grid({}, {}, {}), block({}, {}, {});\n", ls.grid[0],
                     ls.grid[1], ls.grid[2], ls.block[0], ls.block[1], ls.block[2]);
  out += fmt::format("  const size_t smem = {}; // the cached arrays' tiles\n", smemBytes_);
  if (smemBytes_ > 48 * 1024)
    out += fmt::format("  SK_CHECK(cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                       "(int)smem));\n",
                       kernelName());
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {{\n    const {} sk_start = {};\n    SK_CHECK(cudaMemcpy(d_sk_{}, &sk_start, "
                       "sizeof({}), cudaMemcpyHostToDevice)); // before the checked launch\n  }}\n",
                       t, identity(r), n, t);
  }
  out += fmt::format("  auto launch = [&] {{ SK_LAUNCH({}, grid, block, smem, {}); }};\n",
                     kernelName(), args);
  out += R"(  cudaEvent_t a, b;
  SK_CHECK(cudaEventCreate(&a));
  SK_CHECK(cudaEventCreate(&b));
  SK_CHECK(cudaEventRecord(a));
  launch(); // the cold launch, also the one checked
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  SK_CHECK(cudaGetLastError());
  float cold_ms = 0;
  SK_CHECK(cudaEventElapsedTime(&cold_ms, a, b));
  double rel_error = 0;
)";
  for (size_t i = 0; i < arrays_.size(); ++i) {
    if (!stored[arrayIndex_[i]])
      continue;
    std::string n = arrays_[i]->getName().str(), elem = elemName(arrays_[i]);
    out += fmt::format("  {{\n    std::vector<{}> g(h_{}.size());\n    SK_CHECK(cudaMemcpy(g.data(), "
                       "d_{}, g.size() * sizeof({}), cudaMemcpyDeviceToHost));\n    rel_error = "
                       "std::max(rel_error, sk_rel_error(g, h_{}));\n  }}\n",
                       elem, n, n, elem, n);
  }
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {{\n    std::vector<{}> g(1), h(1, h_sk_{});\n    SK_CHECK(cudaMemcpy(g.data(), "
                       "d_sk_{}, sizeof({}), cudaMemcpyDeviceToHost));\n    rel_error = "
                       "std::max(rel_error, sk_rel_error(g, h)); // reduce({}: {})\n  }}\n",
                       t, n, n, t, skeleton::reduceOpName(r.op), n);
  }
  out += R"(  const bool verified = rel_error <= tolerance;
  std::fprintf(stderr, "norm-wise relative error max|d - h| / max|h| = %g (tolerance %g, %.0f terms "
               "an element): %s\n", rel_error, tolerance, sk_terms, verified ? "ok" : "WRONG");
  std::vector<double> t;
  double total = 0;
  int batch = 1;
  if (repeats <= 0) { // --repeats 0: the check alone, the cold launch as the time
    t.push_back(cold_ms);
    total = cold_ms;
    repeats = 0;
  } else {
  for (int w = 0; w < warmups; ++w) launch();
  SK_CHECK(cudaDeviceSynchronize());
  // each repeat: back-to-back launches between one pair of events, per launch
  SK_CHECK(cudaEventRecord(a));
  launch();
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  float one = 0;
  SK_CHECK(cudaEventElapsedTime(&one, a, b));
  batch = std::max(1, std::min(100, (int)(1.0 / std::max(one, 1e-3f))));
  for (int r = 0; r < repeats; ++r) {
    SK_CHECK(cudaEventRecord(a));
    for (int k = 0; k < batch; ++k) launch();
    SK_CHECK(cudaEventRecord(b));
    SK_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SK_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / batch);
    total += ms;
  }
  }
  SK_CHECK(cudaGetLastError());
  cudaFuncAttributes attr;
  SK_CHECK(cudaFuncGetAttributes(&attr, )" +
             kernelName() + R"());
  int active = 0;
  SK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, )" +
             kernelName() + R"(, block.x * block.y * block.z, smem));
  cudaDeviceProp prop;
  int dev = 0;
  SK_CHECK(cudaGetDevice(&dev));
  SK_CHECK(cudaGetDeviceProperties(&prop, dev));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("{\n \"schema_version\": 1,\n \"skeleton_root\": \".\",\n");
  std::printf(" \"gpu\": {\"name\": \"%s\", \"driver_api\": %d, \"compute_capability\": \"%d.%d\"},\n",
              prop.name, driver, prop.major, prop.minor);
  std::printf(" \"method\": \"skelcast emit: one cold launch (checked), 5 warm-ups, then %d repeats of "
              "%d back-to-back launches between one pair of CUDA events; time_ms is the median "
              "per-launch time of the repeats\",\n", repeats, batch);
  std::printf(" \"timing\": \"%s\",\n", repeats > 0 ? "back_to_back" : "once");
  std::printf(" \"cases\": [{\n");
)";
  std::string stem = ki_.name + "_SKTAG";
  out += fmt::format("  std::printf(\"  \\\"kernel\\\": \\\"{}\\\", \\\"size\\\": \\\"SKSIZE\\\", "
                     "\\\"skeleton\\\": \\\"{}.skel\\\",\\n\");\n",
                     ki_.name, stem);
  out += fmt::format("  std::printf(\"  \\\"layout\\\": \\\"{}\\\",\\n\");\n", layoutText);
  // SKPROGRAM: the fingerprint of the device code above (programFingerprint)
  out += "  std::printf(\"  \\\"program\\\": \\\"SKPROGRAM\\\",\\n\");\n";
  out += R"(  std::printf("  \"time_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, \"repeats\": %d, "
              "\"batch_ms_per_launch\": %.6g, \"cold_ms\": %.6g,\n",
              sk_median(t), *std::min_element(t.begin(), t.end()),
              *std::max_element(t.begin(), t.end()), repeats, total / std::max(1, repeats * batch), cold_ms);
  std::printf("  \"rel_error\": %.6g, \"tolerance\": %.3g, \"verified\": %s,\n", rel_error, tolerance,
              verified ? "true" : "false");
  std::printf("  \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", grid.x, grid.y, grid.z,
              block.x, block.y, block.z);
  std::printf("  \"regs_per_thread\": %d, \"static_smem_bytes\": %zu, \"dynamic_smem_bytes\": %zu, "
              "\"local_bytes_per_thread\": %zu, \"max_active_blocks_per_sm\": %d\n }]\n}\n",
              attr.numRegs, attr.sharedSizeBytes, smem, attr.localSizeBytes, active);
  return verified ? 0 : 3;
}
#endif // __CUDA_ARCH__
)";
  return out;
}

} // namespace skelcast::emit::detail
