// The isl dependence test of PolyDependence.h; docs/dependence.md describes it.
//
// Everything handed to isl is written in isl's own notation and parsed
// (isl_map_read_from_str): the strings are short, and printing one shows
// exactly what was asked. Source names never reach isl: parameters are P0,
// P1, ..., statements S0, S1, ..., arrays A0, A1, ..., and a statement's loop
// indices are i0, i1, ... (o0, o1, ... for the second statement of a pair),
// so a C variable called `min` or `exists` cannot clash with isl's keywords.
#include "PolyDependence.h"

#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>

namespace skelcast::frontend {

// --- the description ---------------------------------------------------------

PolyAffine PolyAffine::var(const std::string &name, int64_t k) {
  PolyAffine a;
  if (k != 0)
    a.coef[name] = k;
  return a;
}

PolyAffine operator+(PolyAffine a, const PolyAffine &b) {
  a.constant += b.constant;
  for (const auto &[name, k] : b.coef)
    if ((a.coef[name] += k) == 0)
      a.coef.erase(name);
  return a;
}
PolyAffine operator-(PolyAffine a, const PolyAffine &b) { return a + (-1) * b; }
PolyAffine operator*(int64_t k, PolyAffine a) {
  a.constant *= k;
  for (auto it = a.coef.begin(); it != a.coef.end();) {
    it->second *= k;
    it = it->second == 0 ? a.coef.erase(it) : std::next(it);
  }
  return a;
}

std::string PolyAffine::str() const {
  std::string s;
  for (const auto &[name, k] : coef) {
    if (k == 0)
      continue;
    if (s.empty())
      s += k < 0 ? "-" : "";
    else
      s += k < 0 ? " - " : " + ";
    int64_t m = k < 0 ? -k : k;
    if (m != 1)
      s += std::to_string(m) + "*";
    s += name;
  }
  if (s.empty())
    return std::to_string(constant);
  if (constant != 0)
    s += (constant < 0 ? " - " : " + ") + std::to_string(constant < 0 ? -constant : constant);
  return s;
}

PolyAccess PolyAccess::read(std::string array, std::vector<std::optional<PolyAffine>> subs) {
  PolyAccess a;
  a.array = std::move(array);
  a.subscripts = std::move(subs);
  return a;
}
PolyAccess PolyAccess::write(std::string array, std::vector<std::optional<PolyAffine>> subs) {
  PolyAccess a = read(std::move(array), std::move(subs));
  a.isWrite = true;
  return a;
}
PolyAccess PolyAccess::reduction(std::string op) && {
  reductionOp = std::move(op);
  return std::move(*this);
}
PolyAccess PolyAccess::because(std::string reason) && {
  nonAffineReason = std::move(reason);
  return std::move(*this);
}
std::string PolyAccess::display() const {
  if (!text.empty())
    return text;
  std::string s = array;
  for (const auto &sub : subscripts)
    s += "[" + (sub ? sub->str() : std::string("?")) + "]";
  return s;
}

int PolyNest::addLoop(int parent, PolyLoop loop) {
  loop.parent = parent;
  loop.order = static_cast<int>(loops.size() + stmts.size());
  loops.push_back(std::move(loop));
  return static_cast<int>(loops.size()) - 1;
}
int PolyNest::addStatement(int loop, PolyStmt stmt) {
  stmt.loop = loop;
  stmt.order = static_cast<int>(loops.size() + stmts.size());
  stmts.push_back(std::move(stmt));
  return static_cast<int>(stmts.size()) - 1;
}

std::optional<PolyArrayBase> resolveArray(const PolyNest &nest, const std::string &array) {
  PolyArrayBase r{array, {}};
  std::set<std::string> seen{array};
  for (;;) {
    auto it = std::find_if(nest.aliases.begin(), nest.aliases.end(),
                           [&](const PolyAlias &a) { return a.name == r.base; });
    if (it == nest.aliases.end())
      return r;
    if (!seen.insert(it->base).second)
      return std::nullopt; // a cycle
    for (size_t d = 0; d < it->offset.size(); ++d) {
      if (r.offset.size() <= d)
        r.offset.resize(d + 1);
      r.offset[d] = r.offset[d] + it->offset[d];
    }
    r.base = it->base;
  }
}

const char *depKindName(DepKind k) {
  switch (k) {
  case DepKind::Flow: return "flow";
  case DepKind::Anti: return "anti";
  case DepKind::Output: return "output";
  }
  return "?";
}

const char *loopVerdictName(LoopVerdict v) {
  switch (v) {
  case LoopVerdict::Parallel: return "parallel";
  case LoopVerdict::ParallelAfterPrivatization: return "parallel after privatization";
  case LoopVerdict::Reduction: return "reduction";
  case LoopVerdict::Sequential: return "sequential";
  case LoopVerdict::Unknown: return "unknown";
  }
  return "?";
}

std::string PolyDependence::describe() const {
  return "'" + sourceText + "' (" + (sourceWrites ? "written" : "read") + ") and '" + sinkText +
         "' (" + (sinkWrites ? "written" : "read") + ")" +
         (acrossRows ? ", a subscript leaving its row's range to reach another row" : "");
}

const PolyLoopResult &PolyResult::loop(const std::string &index, int nth) const {
  for (const auto &l : loops)
    if (l.index == index && nth-- == 0)
      return l;
  throw std::out_of_range("no loop '" + index + "'");
}

// --- isl, owned ---------------------------------------------------------------

namespace {

template <typename T, auto Free> struct IslDeleter {
  void operator()(T *p) const {
    if (p)
      Free(p);
  }
};
using Ctx = std::unique_ptr<isl_ctx, IslDeleter<isl_ctx, isl_ctx_free>>;
using Set = std::unique_ptr<isl_set, IslDeleter<isl_set, isl_set_free>>;
using Map = std::unique_ptr<isl_map, IslDeleter<isl_map, isl_map_free>>;
using USet = std::unique_ptr<isl_union_set, IslDeleter<isl_union_set, isl_union_set_free>>;
using UMap = std::unique_ptr<isl_union_map, IslDeleter<isl_union_map, isl_union_map_free>>;
using UFlow = std::unique_ptr<isl_union_flow, IslDeleter<isl_union_flow, isl_union_flow_free>>;
using UAccess =
    std::unique_ptr<isl_union_access_info, IslDeleter<isl_union_access_info, isl_union_access_info_free>>;
using Point = std::unique_ptr<isl_point, IslDeleter<isl_point, isl_point_free>>;
using Val = std::unique_ptr<isl_val, IslDeleter<isl_val, isl_val_free>>;

/// isl returned NULL or isl_bool_error: the message for "isl failed: ...".
struct IslFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// The description cannot be turned into sets (an unknown name, step 0, ...).
struct InvalidNest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void failIsl(isl_ctx *ctx, unsigned long budget) {
  if (isl_ctx_last_error(ctx) == isl_error_quota)
    throw IslFailure("over the operation budget (" + std::to_string(budget) + " operations)");
  const char *msg = isl_ctx_last_error_msg(ctx);
  throw IslFailure(msg && *msg ? msg : "unknown error");
}

// --- the analysis ----------------------------------------------------------------

struct AccessRef {
  int stmt, access;
};

class Analyzer {
public:
  Analyzer(const PolyNest &nest, const PolyOptions &options)
      : nest_(nest), options_(options), ctx_(isl_ctx_alloc()) {
    isl_options_set_on_error(ctx_.get(), ISL_ON_ERROR_CONTINUE);
    isl_ctx_set_max_operations(ctx_.get(), options.maxOperations);
  }

  PolyResult run();

private:
  // isl results, checked.
  // Some isl operations swallow an error (over the budget, say) of an inner
  // step and still return something: any error recorded on the context
  // since the last question counts as a failure.
  template <typename U> U own(typename U::pointer p) {
    U owned(p);
    if (!p || isl_ctx_last_error(ctx_.get()) != isl_error_none)
      failIsl(ctx_.get(), options_.maxOperations);
    return owned;
  }
  bool truth(isl_bool b) {
    if (b == isl_bool_error || isl_ctx_last_error(ctx_.get()) != isl_error_none)
      failIsl(ctx_.get(), options_.maxOperations);
    return b == isl_bool_true;
  }
  void newQuestion() { // the operation budget is per question
    isl_ctx_reset_operations(ctx_.get());
    isl_ctx_reset_error(ctx_.get());
  }
  Map readMap(const std::string &s) { return own<Map>(isl_map_read_from_str(ctx_.get(), s.c_str())); }
  UMap readUMap(const std::string &s) {
    return own<UMap>(isl_union_map_read_from_str(ctx_.get(), s.c_str()));
  }
  USet readUSet(const std::string &s) {
    return own<USet>(isl_union_set_read_from_str(ctx_.get(), s.c_str()));
  }

  void prepare();
  std::string affine(const PolyAffine &a, const std::vector<int> &chain, size_t visible,
                     const std::string &prefix, const std::string &where) const;
  std::string tuple(int stmt, const std::string &prefix) const;
  std::string domain(int stmt, const std::string &prefix) const;
  std::string subscript(const AccessRef &r, size_t d, const std::string &prefix) const;
  std::string dimSubscript(const AccessRef &r, size_t d, const std::string &prefix) const;
  void flatten();
  std::string accessRelation(const AccessRef &r) const;
  std::string sameIterations(int a, int b, size_t depth, bool strictLast) const;
  bool inLoop(int stmt, int loop) const;
  std::string example(isl_map *m, int a, int b);
  void findCarried(std::vector<PolyLoopResult> &loops);
  void unchangedWrites(PolyDependence &dep, isl_map *carried, const AccessRef &w, bool sourceWrites);
  std::set<std::pair<int, int>> findPrivatizable(const std::vector<PolyLoopResult> &loops);
  void decide(PolyLoopResult &l) const;

  const PolyNest &nest_;
  const PolyOptions &options_;
  Ctx ctx_;
  std::string params_;                 // "[P0, P1] -> "
  std::string context_;                // constraints on the parameters
  std::vector<std::vector<int>> loopChain_; // enclosing loops, outer first, the loop last
  std::vector<std::vector<int>> stmtChain_; // enclosing loops of a statement
  std::vector<std::string> arrays_;        // base array names, by id
  std::vector<size_t> arrayDims_;
  /// per array: its inner extents when it is taken flattened (flatten()), else empty
  std::vector<std::vector<int64_t>> flatExtents_;
  std::vector<std::vector<int>> arrayOf_;  // [stmt][access] -> base array id
  std::vector<std::vector<std::vector<PolyAffine>>> offsetOf_; // [stmt][access] -> offset
  size_t maxDepth_ = 0;
};

std::string Analyzer::affine(const PolyAffine &a, const std::vector<int> &chain, size_t visible,
                             const std::string &prefix, const std::string &where) const {
  std::string s = "(" + std::to_string(a.constant);
  for (const auto &[name, k] : a.coef) {
    if (k == 0)
      continue;
    std::string var;
    for (size_t d = visible; d-- > 0;)
      if (nest_.loops[chain[d]].index == name) {
        var = prefix + std::to_string(d);
        break;
      }
    if (var.empty())
      for (size_t p = 0; p < nest_.params.size(); ++p)
        if (nest_.params[p].name == name)
          var = "P" + std::to_string(p);
    if (var.empty())
      throw InvalidNest("unknown name '" + name + "' in " + where);
    s += (k < 0 ? " - " : " + ") + std::to_string(k < 0 ? -k : k) + "*" + var;
  }
  return s + ")";
}

bool Analyzer::inLoop(int stmt, int loop) const {
  const auto &c = stmtChain_[stmt];
  return std::find(c.begin(), c.end(), loop) != c.end();
}

void Analyzer::prepare() {
  // Parameters and what is known of them.
  std::vector<std::string> facts;
  for (size_t p = 0; p < nest_.params.size(); ++p) {
    const PolyParam &pp = nest_.params[p];
    std::string v = "P" + std::to_string(p);
    params_ += (p ? ", " : "") + v;
    if (pp.value)
      facts.push_back(v + " = " + std::to_string(*pp.value));
    if (pp.min)
      facts.push_back(v + " >= " + std::to_string(*pp.min));
    if (pp.max)
      facts.push_back(v + " <= " + std::to_string(*pp.max));
  }
  params_ = "[" + params_ + "] -> ";
  for (const PolyAffine &a : nest_.assumptions)
    facts.push_back(affine(a, {}, 0, "", "an assumption") + " >= 0");
  for (size_t f = 0; f < facts.size(); ++f)
    context_ += (f ? " and " : "") + facts[f];
  if (context_.empty())
    context_ = "0 = 0";

  // Loop chains.
  loopChain_.resize(nest_.loops.size());
  for (size_t l = 0; l < nest_.loops.size(); ++l) {
    const PolyLoop &loop = nest_.loops[l];
    if (loop.parent >= static_cast<int>(l) || loop.parent < -1)
      throw InvalidNest("loop '" + loop.index + "' has a parent added after it");
    if (loop.step < 1)
      throw InvalidNest("loop '" + loop.index + "' has a step below 1");
    if (loop.step > 1 && loop.lower.size() != 1)
      throw InvalidNest("loop '" + loop.index + "' has a step above 1 and not one lower bound");
    if (loop.parent >= 0)
      loopChain_[l] = loopChain_[loop.parent];
    loopChain_[l].push_back(static_cast<int>(l));
    maxDepth_ = std::max(maxDepth_, loopChain_[l].size());
  }
  stmtChain_.resize(nest_.stmts.size());
  arrayOf_.resize(nest_.stmts.size());
  offsetOf_.resize(nest_.stmts.size());
  for (size_t s = 0; s < nest_.stmts.size(); ++s) {
    const PolyStmt &st = nest_.stmts[s];
    if (st.loop >= static_cast<int>(nest_.loops.size()) || st.loop < -1)
      throw InvalidNest("a statement is in a loop that does not exist");
    if (st.loop >= 0)
      stmtChain_[s] = loopChain_[st.loop];
    for (const PolyAccess &acc : st.accesses) {
      std::optional<PolyArrayBase> base = resolveArray(nest_, acc.array);
      if (!base)
        throw InvalidNest("the aliases of '" + acc.array + "' form a cycle");
      auto it = std::find(arrays_.begin(), arrays_.end(), base->base);
      int id = static_cast<int>(it - arrays_.begin());
      if (it == arrays_.end()) {
        arrays_.push_back(base->base);
        arrayDims_.push_back(acc.subscripts.size());
      } else if (arrayDims_[id] != acc.subscripts.size()) {
        throw InvalidNest("'" + base->base + "' is accessed with " +
                          std::to_string(acc.subscripts.size()) + " and with " +
                          std::to_string(arrayDims_[id]) + " subscripts");
      }
      if (base->offset.size() > acc.subscripts.size())
        throw InvalidNest("the alias offset of '" + acc.array + "' has too many dimensions");
      base->offset.resize(acc.subscripts.size());
      arrayOf_[s].push_back(id);
      offsetOf_[s].push_back(std::move(base->offset));
    }
  }
  flatten();
}

// PolyNest::innerExtents: an array one of whose accesses may leave the range
// of a dimension after the first is taken flattened, in every access.
void Analyzer::flatten() {
  flatExtents_.assign(arrays_.size(), {});
  for (size_t s = 0; s < nest_.stmts.size(); ++s)
    for (size_t a = 0; a < nest_.stmts[s].accesses.size(); ++a) {
      int id = arrayOf_[s][a];
      const PolyAccess &acc = nest_.stmts[s].accesses[a];
      auto ext = nest_.innerExtents.find(acc.array);
      if (!flatExtents_[id].empty() || ext == nest_.innerExtents.end() ||
          ext->second.size() + 1 != arrayDims_[id] || acc.array != arrays_[id])
        continue; // (an alias's extents are not its base's)
      for (size_t d = 1; d < arrayDims_[id]; ++d) {
        std::string sub = subscript({static_cast<int>(s), static_cast<int>(a)}, d, "i");
        if (sub.empty())
          continue;
        // Only where it leaves for every size with which the statement runs:
        // a bound `j < n` may exceed the extent for some n (the program then
        // has n <= N), which is no reason to flatten; `j - 1` at j = 0 is.
        newQuestion();
        std::string dom = params_ + "{ " + tuple(static_cast<int>(s), "i") + " : " +
                          domain(static_cast<int>(s), "i") + " and " + context_;
        Set runs = own<Set>(isl_set_params(
            own<Set>(isl_set_read_from_str(ctx_.get(), (dom + " }").c_str())).release()));
        Set leaves = own<Set>(isl_set_params(
            own<Set>(isl_set_read_from_str(
                         ctx_.get(), (dom + " and (" + sub + " < 0 or " + sub +
                                      " >= " + std::to_string(ext->second[d - 1]) + ") }")
                                         .c_str()))
                .release()));
        if (!truth(isl_set_is_empty(runs.get())) && truth(isl_set_is_subset(runs.get(), leaves.get()))) {
          flatExtents_[id] = ext->second;
          break;
        }
      }
    }
  for (size_t id = 0; id < arrays_.size(); ++id)
    if (!flatExtents_[id].empty())
      arrayDims_[id] = 1;
}

std::string Analyzer::tuple(int stmt, const std::string &prefix) const {
  std::string s = "S" + std::to_string(stmt) + "[";
  for (size_t d = 0; d < stmtChain_[stmt].size(); ++d)
    s += (d ? ", " : "") + prefix + std::to_string(d);
  return s + "]";
}

// The iteration domain of `stmt` as constraints on prefix0, prefix1, ...
std::string Analyzer::domain(int stmt, const std::string &prefix) const {
  const auto &chain = stmtChain_[stmt];
  std::string s = "0 = 0";
  for (size_t d = 0; d < chain.size(); ++d) {
    const PolyLoop &loop = nest_.loops[chain[d]];
    std::string x = prefix + std::to_string(d);
    std::string where = "a bound of loop '" + loop.index + "'";
    for (const PolyAffine &lo : loop.lower)
      s += " and " + x + " >= " + affine(lo, chain, d, prefix, where);
    for (const PolyAffine &hi : loop.upper)
      s += " and " + x + (loop.inclusiveUpper ? " <= " : " < ") + affine(hi, chain, d, prefix, where);
    if (loop.step > 1)
      s += " and (exists e" + x + " : " + x + " = " + affine(loop.lower[0], chain, d, prefix, where) +
           " + " + std::to_string(loop.step) + "*e" + x + ")";
  }
  return s;
}

// Subscript d of access r plus its alias offset, over prefix0, ...; "" when not affine.
std::string Analyzer::subscript(const AccessRef &r, size_t d, const std::string &prefix) const {
  int id = arrayOf_[r.stmt][r.access];
  if (static_cast<size_t>(id) < flatExtents_.size() && !flatExtents_[id].empty()) {
    const std::vector<int64_t> &flat = flatExtents_[id]; // row-major: ((s0 * e1 + s1) * e2 + s2) ...
    std::string s = dimSubscript(r, 0, prefix);
    for (size_t k = 1; k <= flat.size() && !s.empty(); ++k) {
      std::string t = dimSubscript(r, k, prefix);
      s = t.empty() ? "" : "(" + s + ") * " + std::to_string(flat[k - 1]) + " + " + t;
    }
    return s;
  }
  return dimSubscript(r, d, prefix);
}

std::string Analyzer::dimSubscript(const AccessRef &r, size_t d, const std::string &prefix) const {
  const PolyAccess &acc = nest_.stmts[r.stmt].accesses[r.access];
  if (!acc.subscripts[d])
    return "";
  const auto &chain = stmtChain_[r.stmt];
  std::string where = "a subscript of '" + acc.display() + "'";
  return affine(*acc.subscripts[d], chain, chain.size(), prefix, where) + " + " +
         affine(offsetOf_[r.stmt][r.access][d], {}, 0, prefix, "the alias offset of '" + acc.array + "'");
}

// { S[i] -> A[x] : i in the domain, x the element (any value where not affine) }
std::string Analyzer::accessRelation(const AccessRef &r) const {
  int array = arrayOf_[r.stmt][r.access];
  std::string out = "A" + std::to_string(array) + "[";
  std::string cons = domain(r.stmt, "i");
  for (size_t d = 0; d < arrayDims_[array]; ++d) {
    out += (d ? ", " : "") + ("x" + std::to_string(d));
    std::string sub = subscript(r, d, "i");
    if (!sub.empty())
      cons += " and x" + std::to_string(d) + " = " + sub;
  }
  return tuple(r.stmt, "i") + " -> " + out + "] : " + cons;
}

// { Sa[i] -> Sb[o] : equal on the first `depth` loops, and i < o on the next
// one when strictLast } (both statements must be inside those loops).
std::string Analyzer::sameIterations(int a, int b, size_t depth, bool strictLast) const {
  std::string s = tuple(a, "i") + " -> " + tuple(b, "o") + " : 0 = 0";
  for (size_t d = 0; d < depth; ++d)
    s += " and i" + std::to_string(d) + " = o" + std::to_string(d);
  if (strictLast)
    s += " and i" + std::to_string(depth) + " < o" + std::to_string(depth);
  return s;
}

// One instance pair of `m` (Sa -> Sb), in source names: "i=0 -> i=1 (n=2)".
std::string Analyzer::example(isl_map *m, int a, int b) {
  Set wrapped = own<Set>(isl_map_wrap(isl_map_copy(m)));
  isl_size np = isl_set_dim(wrapped.get(), isl_dim_param);
  if (np < 0)
    failIsl(ctx_.get(), options_.maxOperations);
  wrapped = own<Set>(isl_set_move_dims(wrapped.release(), isl_dim_set, 0, isl_dim_param, 0, np));
  Point pt = own<Point>(isl_set_sample_point(wrapped.release()));
  if (truth(isl_point_is_void(pt.get())))
    return "";
  int pos = 0;
  auto next = [&]() {
    Val v = own<Val>(isl_point_get_coordinate_val(pt.get(), isl_dim_set, pos++));
    return std::to_string(isl_val_get_num_si(v.get()));
  };
  std::vector<std::string> paramVals;
  for (isl_size p = 0; p < np; ++p)
    paramVals.push_back(nest_.params[p].name + "=" + next());
  auto indices = [&](int stmt) {
    std::string s;
    for (size_t d = 0; d < stmtChain_[stmt].size(); ++d)
      s += (d ? ", " : "") + nest_.loops[stmtChain_[stmt][d]].index + "=" + next();
    return s.empty() ? std::string("()") : s;
  };
  std::string s = indices(a);
  s += " -> " + indices(b);
  std::string ps;
  for (const auto &p : paramVals)
    ps += (ps.empty() ? "" : ", ") + p;
  return ps.empty() ? s : s + " (" + ps + ")";
}

// Memory-based dependences: for every ordered pair of accesses to one array,
// one of them a write, and every loop around both, is there an instance of
// the first in an earlier iteration of the loop (same iteration of the loops
// outside it) touching the element an instance of the second touches?
void Analyzer::findCarried(std::vector<PolyLoopResult> &loops) {
  std::vector<AccessRef> refs;
  for (size_t s = 0; s < nest_.stmts.size(); ++s)
    for (size_t a = 0; a < nest_.stmts[s].accesses.size(); ++a)
      refs.push_back({static_cast<int>(s), static_cast<int>(a)});
  for (const AccessRef &x : refs)
    for (const AccessRef &y : refs) {
      const PolyAccess &ax = nest_.stmts[x.stmt].accesses[x.access];
      const PolyAccess &ay = nest_.stmts[y.stmt].accesses[y.access];
      int array = arrayOf_[x.stmt][x.access];
      if (array != arrayOf_[y.stmt][y.access] || (!ax.isWrite && !ay.isWrite))
        continue;
      // The loops around both statements: their common prefix.
      const auto &cx = stmtChain_[x.stmt], &cy = stmtChain_[y.stmt];
      size_t common = 0;
      while (common < cx.size() && common < cy.size() && cx[common] == cy[common])
        ++common;
      if (common == 0)
        continue;
      newQuestion();
      std::string cons = domain(x.stmt, "i") + " and " + domain(y.stmt, "o");
      bool approximate = false;
      for (size_t d = 0; d < arrayDims_[array]; ++d) {
        std::string sx = subscript(x, d, "i"), sy = subscript(y, d, "o");
        if (sx.empty() || sy.empty())
          approximate = true;
        else
          cons += " and " + sx + " = " + sy;
      }
      Map same = readMap(params_ + "{ " + tuple(x.stmt, "i") + " -> " + tuple(y.stmt, "o") + " : " +
                         cons + " }");
      Set context = own<Set>(isl_set_read_from_str(ctx_.get(), (params_ + "{ : " + context_ + " }").c_str()));
      same = own<Map>(isl_map_intersect_params(same.release(), context.release()));
      for (size_t depth = 0; depth < common; ++depth) {
        Map carried = own<Map>(isl_map_intersect(
            isl_map_copy(same.get()),
            readMap(params_ + "{ " + sameIterations(x.stmt, y.stmt, depth, true) + " }").release()));
        if (truth(isl_map_is_empty(carried.get())))
          continue;
        PolyDependence dep;
        dep.kind = ax.isWrite && ay.isWrite ? DepKind::Output : ax.isWrite ? DepKind::Flow : DepKind::Anti;
        dep.array = arrays_[array];
        dep.sourceStmt = x.stmt, dep.sourceAccess = x.access;
        dep.sinkStmt = y.stmt, dep.sinkAccess = y.access;
        dep.sourceText = ax.display(), dep.sinkText = ay.display();
        dep.sourceWrites = ax.isWrite, dep.sinkWrites = ay.isWrite;
        dep.approximate = approximate;
        dep.acrossRows = !flatExtents_[array].empty();
        dep.reduction = !ax.reductionOp.empty() && ax.reductionOp == ay.reductionOp;
        dep.example = example(carried.get(), x.stmt, y.stmt);
        // uniform: one distance along the carrying loop (for given parameters),
        // lexmin = lexmax of { o_depth - i_depth }
        if (!approximate) {
          std::string d = std::to_string(depth);
          Set dist = own<Set>(isl_set_apply(
              isl_map_wrap(isl_map_copy(carried.get())),
              readMap(params_ + "{ [" + tuple(x.stmt, "i") + " -> " + tuple(y.stmt, "o") + "] -> [o" +
                      d + " - i" + d + "] }")
                  .release()));
          Set lo = own<Set>(isl_set_lexmin(isl_set_copy(dist.get())));
          Set hi = own<Set>(isl_set_lexmax(dist.release()));
          dep.uniform = truth(isl_set_is_equal(lo.get(), hi.get()));
        }
        if (!approximate && dep.kind != DepKind::Output)
          unchangedWrites(dep, carried.get(), ax.isWrite ? x : y, ax.isWrite);
        loops[cx[depth]].carried.push_back(std::move(dep));
      }
    }
}

// The writes of `carried` (its domain when the source writes, else its
// range), by access `w`, all relax their element through an addend that reads
// that same element in the same instance: each is min(W, W + rest), no change
// while rest >= 0 (PolyRelaxation). Sets dep.unchanged then.
void Analyzer::unchangedWrites(PolyDependence &dep, isl_map *carried, const AccessRef &w,
                               bool sourceWrites) {
  const PolyStmt &st = nest_.stmts[w.stmt];
  if (!st.relaxation || st.relaxation->write != w.access)
    return;
  const PolyAccess &wa = st.accesses[w.access];
  Set writers = own<Set>(sourceWrites ? isl_map_domain(isl_map_copy(carried))
                                      : isl_map_range(isl_map_copy(carried)));
  for (const auto &[p, rest] : st.relaxation->addends) {
    const PolyAccess &pa = st.accesses[p];
    if (pa.array != wa.array || pa.subscripts.size() != wa.subscripts.size())
      continue;
    std::string cons = domain(w.stmt, "i");
    bool affineAll = true;
    for (size_t d = 0; d < wa.subscripts.size() && affineAll; ++d) {
      std::string sw = subscript(w, d, "i"), sp = subscript({w.stmt, p}, d, "i");
      affineAll = !sw.empty() && !sp.empty();
      cons += " and " + sw + " = " + sp;
    }
    if (!affineAll)
      continue;
    Set same = own<Set>(isl_set_read_from_str(
        ctx_.get(), (params_ + "{ " + tuple(w.stmt, "i") + " : " + cons + " }").c_str()));
    if (truth(isl_set_is_subset(writers.get(), same.get()))) {
      dep.unchanged = true;
      dep.unchangedOp = st.relaxation->op;
      dep.unchangedRest = rest;
      dep.unchangedWhile = rest.empty() ? "" : rest + (st.relaxation->op == "min" ? " >= 0" : " <= 0");
      return;
    }
  }
}

// Value-based flow (isl_union_access_info_compute_flow), per array: array X,
// written and read inside loop L, is privatizable for L when every read of X inside L gets its value
// from a write in the same iteration of L (nothing flows in from an earlier
// iteration or from before L) and no value written in L is read after L
// inside the nest. Returns the (loop, array id) pairs.
std::set<std::pair<int, int>> Analyzer::findPrivatizable(const std::vector<PolyLoopResult> &loops) {
  std::set<std::pair<int, int>> result;
  // Candidates: loops carrying a dependence on an array they write, not a reduction.
  std::set<std::pair<int, int>> candidates;
  for (const auto &l : loops)
    for (const auto &dep : l.carried)
      if (!dep.reduction)
        candidates.insert({l.loop, static_cast<int>(std::find(arrays_.begin(), arrays_.end(), dep.array) -
                                                    arrays_.begin())});
  if (candidates.empty())
    return result;

  // The schedule: S[i0, ..] -> [order of the outermost loop, i0, order of the
  // next, i1, ..., order of the statement], padded with zeros.
  std::string schedule;
  size_t width = 2 * maxDepth_ + 1;
  for (size_t s = 0; s < nest_.stmts.size(); ++s) {
    const auto &chain = stmtChain_[s];
    std::string v;
    for (size_t d = 0; d < chain.size(); ++d)
      v += std::to_string(nest_.loops[chain[d]].order) + ", i" + std::to_string(d) + ", ";
    v += std::to_string(nest_.stmts[s].order);
    for (size_t k = 2 * chain.size() + 1; k < width; ++k)
      v += ", 0";
    schedule += (s ? "; " : "") + tuple(static_cast<int>(s), "i") + " -> [" + v + "] : " +
                domain(static_cast<int>(s), "i");
  }

  std::set<int> arraysToCheck;
  for (const auto &c : candidates)
    arraysToCheck.insert(c.second);
  for (int array : arraysToCheck) {
    newQuestion();
    std::string sinks, must, may;
    for (size_t s = 0; s < nest_.stmts.size(); ++s)
      for (size_t a = 0; a < nest_.stmts[s].accesses.size(); ++a) {
        if (arrayOf_[s][a] != array)
          continue;
        const PolyAccess &acc = nest_.stmts[s].accesses[a];
        std::string rel = accessRelation({static_cast<int>(s), static_cast<int>(a)});
        bool exact = std::all_of(acc.subscripts.begin(), acc.subscripts.end(),
                                 [](const auto &sub) { return sub.has_value(); });
        std::string &into = !acc.isWrite ? sinks : exact && !nest_.stmts[s].conditional ? must : may;
        into += (into.empty() ? "" : "; ") + rel;
      }
    auto restricted = [&](const std::string &s) {
      UMap m = readUMap(params_ + "{ " + s + " }");
      return own<UMap>(isl_union_map_intersect_params(
          m.release(), own<Set>(isl_set_read_from_str(ctx_.get(), (params_ + "{ : " + context_ + " }").c_str()))
                           .release()));
    };
    UAccess info = own<UAccess>(isl_union_access_info_from_sink(restricted(sinks).release()));
    info = own<UAccess>(isl_union_access_info_set_must_source(info.release(), restricted(must).release()));
    info = own<UAccess>(isl_union_access_info_set_may_source(info.release(), restricted(may).release()));
    info = own<UAccess>(isl_union_access_info_set_schedule_map(info.release(), restricted(schedule).release()));
    UFlow flow = own<UFlow>(isl_union_access_info_compute_flow(info.release()));
    UMap dep = own<UMap>(isl_union_flow_get_may_dependence(flow.get()));
    UMap noSource = own<UMap>(isl_union_flow_get_may_no_source(flow.get()));

    for (const auto &[loop, arr] : candidates) {
      if (arr != array)
        continue;
      size_t depth = loopChain_[loop].size(); // L is at depth - 1
      std::string inside, outside, same;
      // Scratch is written and read in L; an array only written is a result.
      bool writes = false, reads = false;
      for (size_t s = 0; s < nest_.stmts.size(); ++s) {
        int si = static_cast<int>(s);
        std::string &into = inLoop(si, loop) ? inside : outside;
        into += (into.empty() ? "" : "; ") + tuple(si, "i");
        for (size_t a = 0; a < nest_.stmts[s].accesses.size(); ++a)
          if (arrayOf_[s][a] == array && inLoop(si, loop))
            (nest_.stmts[s].accesses[a].isWrite ? writes : reads) = true;
      }
      if (!writes || !reads)
        continue;
      for (size_t s = 0; s < nest_.stmts.size(); ++s)
        for (size_t t = 0; t < nest_.stmts.size(); ++t)
          if (inLoop(static_cast<int>(s), loop) && inLoop(static_cast<int>(t), loop))
            same += (same.empty() ? "" : "; ") +
                    sameIterations(static_cast<int>(s), static_cast<int>(t), depth, false);
      USet in = readUSet(params_ + "{ " + inside + " }");
      USet out = readUSet(params_ + "{ " + outside + " }");
      // Into L from elsewhere than the same iteration of L.
      UMap into = own<UMap>(isl_union_map_intersect_range(isl_union_map_copy(dep.get()),
                                                          isl_union_set_copy(in.get())));
      into = own<UMap>(isl_union_map_subtract(into.release(), readUMap(params_ + "{ " + same + " }").release()));
      if (!truth(isl_union_map_is_empty(into.get())))
        continue;
      // Read inside L with no write before it in the nest.
      UMap exposed = own<UMap>(isl_union_map_intersect_domain(isl_union_map_copy(noSource.get()),
                                                             isl_union_set_copy(in.get())));
      if (!truth(isl_union_map_is_empty(exposed.get())))
        continue;
      // Written in L, read after it.
      UMap liveOut = own<UMap>(isl_union_map_intersect_domain(isl_union_map_copy(dep.get()),
                                                             isl_union_set_copy(in.get())));
      liveOut = own<UMap>(isl_union_map_intersect_range(liveOut.release(), isl_union_set_copy(out.get())));
      if (!truth(isl_union_map_is_empty(liveOut.get())))
        continue;
      result.insert({loop, array});
    }
  }
  return result;
}

std::string quotedList(const std::vector<std::string> &names) {
  std::string s;
  for (size_t k = 0; k < names.size(); ++k)
    s += (k == 0 ? "" : k + 1 == names.size() ? " and " : ", ") + ("'" + names[k] + "'");
  return s;
}

void Analyzer::decide(PolyLoopResult &l) const {
  auto blocking = [](const PolyDependence &d) {
    return !d.reduction && !d.privatized && !d.approximate && !d.unchanged;
  };
  auto rank = [&](const PolyDependence &d) {
    int group = blocking(d) ? 0 : (!d.reduction && !d.privatized && !d.unchanged) ? 1 : 2;
    return group * 3 + static_cast<int>(d.kind);
  };
  std::stable_sort(l.carried.begin(), l.carried.end(),
                   [&](const PolyDependence &a, const PolyDependence &b) { return rank(a) < rank(b); });
  for (const auto &d : l.carried)
    if (d.unchanged && !d.privatized) {
      // one text for the pair, whichever runs first (flow and anti)
      const std::string &written = d.sourceWrites ? d.sourceText : d.sinkText;
      const std::string &read = d.sourceWrites ? d.sinkText : d.sourceText;
      std::string a = "'" + written + "' (written) and '" + read + "' (read); where they meet, the write is " +
                      d.unchangedOp + "(x, x" + (d.unchangedRest.empty() ? "" : " + " + d.unchangedRest) +
                      ") of the element x it writes, " +
                      (d.unchangedWhile.empty() ? "which is x" : "x while " + d.unchangedWhile);
      if (std::find(l.assumptions.begin(), l.assumptions.end(), a) == l.assumptions.end())
        l.assumptions.push_back(a);
    }
  for (const auto &d : l.carried)
    if (d.reduction && !d.privatized &&
        std::find(l.reductions.begin(), l.reductions.end(), d.array) == l.reductions.end())
      l.reductions.push_back(d.array);
  if (!l.carried.empty() && blocking(l.carried.front())) {
    l.verdict = LoopVerdict::Sequential;
    l.reason = "the iterations are not independent: " + l.carried.front().describe();
    return;
  }
  if (!l.carried.empty() && rank(l.carried.front()) < 6) {
    const PolyDependence &d = l.carried.front();
    // Name the access whose subscript is not affine.
    const PolyAccess &src = nest_.stmts[d.sourceStmt].accesses[d.sourceAccess];
    const PolyAccess &snk = nest_.stmts[d.sinkStmt].accesses[d.sinkAccess];
    auto affineEverywhere = [](const PolyAccess &a) {
      return std::all_of(a.subscripts.begin(), a.subscripts.end(), [](const auto &s) { return s.has_value(); });
    };
    const PolyAccess &culprit = affineEverywhere(src) ? snk : src;
    l.verdict = LoopVerdict::Unknown;
    l.reason = "'" + culprit.display() + "' has a subscript that is not affine" +
               (culprit.nonAffineReason.empty() ? "" : " (" + culprit.nonAffineReason + ")") +
               ": the iterations may not be independent (" + d.describe() + ")";
    return;
  }
  std::string priv = l.privatized.empty() ? "" : " once " + quotedList(l.privatized) + " " +
                                                     (l.privatized.size() == 1 ? "is" : "are") +
                                                     " privatized";
  if (!l.reductions.empty()) {
    l.verdict = LoopVerdict::Reduction;
    l.reason = "parallel except for a reduction on " + quotedList(l.reductions) + priv;
  } else if (!l.privatized.empty()) {
    l.verdict = LoopVerdict::ParallelAfterPrivatization;
    l.reason = "parallel" + priv + " (each iteration writes what it reads first)";
  } else {
    l.verdict = LoopVerdict::Parallel;
  }
}

PolyResult Analyzer::run() {
  PolyResult result;
  for (size_t l = 0; l < nest_.loops.size(); ++l) {
    PolyLoopResult r;
    r.loop = static_cast<int>(l);
    r.index = nest_.loops[l].index;
    result.loops.push_back(r);
  }
  auto giveUp = [&](const std::string &error) {
    result.ok = false;
    result.error = error;
    for (auto &l : result.loops) {
      PolyLoopResult fresh;
      fresh.loop = l.loop;
      fresh.index = l.index;
      l = std::move(fresh);
      l.verdict = LoopVerdict::Unknown;
      l.reason = error;
    }
    return result;
  };
  if (!ctx_)
    return giveUp("isl failed: no context");
  try {
    prepare();
    findCarried(result.loops);
    if (options_.privatize)
      for (const auto &[loop, array] : findPrivatizable(result.loops)) {
        auto &l = result.loops[loop];
        l.privatized.push_back(arrays_[array]);
        for (auto &d : l.carried)
          d.privatized |= d.array == arrays_[array];
      }
    for (auto &l : result.loops)
      decide(l);
  } catch (const IslFailure &e) {
    return giveUp(std::string("isl failed: ") + e.what());
  } catch (const InvalidNest &e) {
    return giveUp(std::string("invalid nest: ") + e.what());
  }
  return result;
}

} // namespace

PolyResult analyzeDependences(const PolyNest &nest, const PolyOptions &options) {
  return Analyzer(nest, options).run();
}

} // namespace skelcast::frontend
