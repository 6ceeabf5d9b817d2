#include "skelcast/toolchain/CompilerCounts.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace skelcast::toolchain {
namespace {

using skeleton::Stmt;

bool hasLoop(const std::vector<Stmt> &body) {
  for (const Stmt &s : body) {
    if (s.kind == Stmt::Kind::Loop)
      return true;
    if (s.kind == Stmt::Kind::Branch && (hasLoop(s.branch.thenBody) || hasLoop(s.branch.elseBody)))
      return true;
  }
  return false;
}

void innermostLoops(std::vector<Stmt> &body, std::vector<Stmt *> &out) {
  for (Stmt &s : body) {
    if (s.kind == Stmt::Kind::Loop) {
      if (hasLoop(s.loop.body))
        innermostLoops(s.loop.body, out);
      else
        out.push_back(&s);
    } else if (s.kind == Stmt::Kind::Branch) {
      innermostLoops(s.branch.thenBody, out);
      innermostLoops(s.branch.elseBody, out);
    }
  }
}

/// The `comp`s of `body` outside any loop (through branches).
void compsOutsideLoops(std::vector<Stmt> &body, std::vector<Stmt *> &out) {
  for (Stmt &s : body) {
    if (s.kind == Stmt::Kind::Comp)
      out.push_back(&s);
    else if (s.kind == Stmt::Kind::Branch) {
      compsOutsideLoops(s.branch.thenBody, out);
      compsOutsideLoops(s.branch.elseBody, out);
    }
  }
}

int64_t memAccesses(const std::vector<Stmt> &body) {
  int64_t n = 0;
  for (const Stmt &s : body) {
    if (s.kind == Stmt::Kind::Mem)
      ++n;
    else if (s.kind == Stmt::Kind::Branch)
      n += memAccesses(s.branch.thenBody) + memAccesses(s.branch.elseBody);
    else if (s.kind == Stmt::Kind::Loop)
      n += memAccesses(s.loop.body);
  }
  return n;
}

/// A region without a `comp` gets one (count 0) at its start, so that its
/// compiled instructions have a place.
void ensureComp(std::vector<Stmt> &body) {
  std::vector<Stmt *> comps;
  compsOutsideLoops(body, comps);
  if (!comps.empty())
    return;
  Stmt c;
  c.kind = Stmt::Kind::Comp;
  body.insert(body.begin(), c);
}

/// `total` split over `weights` in proportion (all to the first when they
/// are all 0), rounded by largest remainder so that the parts sum to `total`.
std::vector<int64_t> apportion(int64_t total, const std::vector<int64_t> &weights) {
  std::vector<int64_t> out(weights.size(), 0);
  if (weights.empty() || total <= 0)
    return out;
  int64_t sum = std::accumulate(weights.begin(), weights.end(), int64_t{0});
  if (sum <= 0) {
    out[0] = total;
    return out;
  }
  std::vector<std::pair<double, size_t>> rest;
  int64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    double exact = static_cast<double>(total) * static_cast<double>(weights[i]) / static_cast<double>(sum);
    out[i] = static_cast<int64_t>(std::floor(exact));
    given += out[i];
    rest.push_back({exact - std::floor(exact), i});
  }
  std::stable_sort(rest.begin(), rest.end(), [](auto &a, auto &b) { return a.first > b.first; });
  for (size_t r = 0; given < total && r < rest.size(); ++r, ++given)
    ++out[rest[r].second];
  return out;
}

/// Set the comps of one region to `total` instructions, `fp64` of them FP64;
/// `keepLiterals`: their `lit64` stays (the total holds no moves for them).
void distribute(const std::vector<Stmt *> &comps, int64_t total, int64_t fp64, bool keepLiterals) {
  std::vector<int64_t> w, wf;
  for (const Stmt *s : comps) {
    w.push_back(s->comp);
    wf.push_back(s->fp64);
  }
  std::vector<int64_t> n = apportion(total, w);
  if (std::accumulate(wf.begin(), wf.end(), int64_t{0}) == 0)
    wf = n;
  std::vector<int64_t> f = apportion(std::min(fp64, total), wf);
  for (size_t i = 0; i < comps.size(); ++i) {
    comps[i]->comp = n[i];
    comps[i]->fp64 = std::min(f[i], n[i]);
    if (!keepLiterals)
      comps[i]->lit64 = 0; // the compiled count holds the moves that build them
  }
}

std::string classes(const ClassCounts &c, double div) {
  std::string s;
  for (InsnClass k : {InsnClass::Fp32, InsnClass::Fp64, InsnClass::Integer, InsnClass::Control,
                      InsnClass::Memory}) {
    if (c[k] == 0)
      continue;
    double v = static_cast<double>(c[k]) / div;
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", insnClassName(k),
                     v == std::floor(v) ? fmt::format("{}", static_cast<int64_t>(v))
                                        : fmt::format("{:.2f}", v));
  }
  return s.empty() ? "none" : s;
}

/// Trips of a loop whose bounds are constant; nullopt otherwise.
std::optional<int64_t> constantTrips(const skeleton::Loop &l, const skeleton::MacroTable &env,
                                     const std::string &file) {
  try {
    if (!skeleton::isConstExpr(l.lo, env) || !skeleton::isConstExpr(l.hi, env) ||
        (l.step && !skeleton::isConstExpr(*l.step, env)))
      return std::nullopt;
    int64_t lo = skeleton::evalConstExpr(l.lo, env, file);
    int64_t hi = skeleton::evalConstExpr(l.hi, env, file);
    int64_t step = l.step ? skeleton::evalConstExpr(*l.step, env, file) : 1;
    if (step <= 0)
      return std::nullopt;
    return hi <= lo ? 0 : (hi - lo + step - 1) / step;
  } catch (const InputError &) {
    return std::nullopt;
  }
}

/// Every comp with the trips of its loops (all constant), for a fully unrolled nest.
bool weighComps(std::vector<Stmt> &body, int64_t trips, const skeleton::MacroTable &env,
                const std::string &file, std::vector<std::pair<Stmt *, int64_t>> &out) {
  for (Stmt &s : body) {
    if (s.kind == Stmt::Kind::Comp)
      out.push_back({&s, trips});
    else if (s.kind == Stmt::Kind::Branch) {
      if (!weighComps(s.branch.thenBody, trips, env, file, out) ||
          !weighComps(s.branch.elseBody, trips, env, file, out))
        return false;
    } else if (s.kind == Stmt::Kind::Loop) {
      auto t = constantTrips(s.loop, env, file);
      if (!t || !weighComps(s.loop.body, trips * *t, env, file, out))
        return false;
    }
  }
  return true;
}

} // namespace

AppliedCounts applyCompiledCounts(skeleton::Kernel &kernel, const CodeCounts &cc,
                                  const std::string &origin, const skeleton::MacroTable &env,
                                  const std::string &file, LiteralMoves literals) {
  const bool keep = literals == LiteralMoves::NotInCount;
  AppliedCounts r;
  if (!cc.calls.empty()) {
    r.why = fmt::format("the compiled code calls '{}' (not inlined without the CUDA math "
                        "library), so its work is not in the code",
                        cc.calls.front());
    return r;
  }
  skeleton::Kernel k = kernel;
  std::vector<Stmt *> inner;
  innermostLoops(k.body, inner);
  const ClassCounts &out = cc.outside;
  if (inner.empty()) {
    if (cc.loops > 0) {
      r.why = fmt::format("the compiled code has {} loop(s) where the skeleton has none", cc.loops);
      return r;
    }
    ensureComp(k.body);
    std::vector<Stmt *> comps;
    compsOutsideLoops(k.body, comps);
    distribute(comps, out.nonMemory(), out[InsnClass::Fp64], keep);
    r.note = fmt::format("// comp counts: {} of the naive layout: {} instructions a thread ({}), "
                         "loads and stores apart",
                         origin, out.total(), classes(out, 1));
  } else if (cc.innermost.empty()) {
    // Every loop unrolled whole: scale the table's counts to the compiled total.
    std::vector<std::pair<Stmt *, int64_t>> weighed;
    if (!weighComps(k.body, 1, env, file, weighed)) {
      r.why = "the compiled code has no loop, and the skeleton's loops have no constant trip count";
      return r;
    }
    double tab = 0, tabFp64 = 0;
    for (auto [s, t] : weighed) {
      tab += static_cast<double>(s->comp * t);
      tabFp64 += static_cast<double>(s->fp64 * t);
    }
    if (tab <= 0 || weighed.empty()) {
      r.why = "the compiled code has no loop, and the table counts no instruction in the skeleton's";
      return r;
    }
    double scale = static_cast<double>(out.nonMemory()) / tab;
    for (auto [s, t] : weighed) {
      int64_t c = std::llround(static_cast<double>(s->comp) * scale);
      int64_t f = tabFp64 > 0 ? std::llround(static_cast<double>(s->fp64) * out[InsnClass::Fp64] / tabFp64)
                              : std::llround(static_cast<double>(c) * out[InsnClass::Fp64] /
                                             std::max<int64_t>(1, out.nonMemory()));
      s->comp = c;
      s->fp64 = std::min(f, c);
      if (!keep)
        s->lit64 = 0; // the compiled count holds the moves that build them
    }
    r.note = fmt::format("// comp counts: {} of the naive layout, its loops unrolled whole: {} "
                         "instructions a thread ({}); each comp the table's scaled by {:.2f}",
                         origin, out.total(), classes(out, 1), scale);
  } else if (inner.size() == 1) {
    skeleton::Loop &loop = inner.front()->loop;
    const LoopBody *body = &cc.innermost.front();
    for (const LoopBody &b : cc.innermost)
      if (std::make_pair(b.counts[InsnClass::Memory], b.counts.total()) >
          std::make_pair(body->counts[InsnClass::Memory], body->counts.total()))
        body = &b;
    int64_t skelMem = memAccesses(loop.body);
    int64_t compMem = body->counts[InsnClass::Memory];
    if (skelMem == 0 || compMem == 0 || compMem % skelMem != 0) {
      r.why = skelMem == 0 && compMem == 0
                  ? fmt::format("loop '{}' has no load or store to tell the compiler's unroll "
                                "factor by",
                                loop.index)
                  : fmt::format("the compiled loop's {} loads and stores are not a multiple of "
                                "the {} of an iteration of '{}' (the compiler reused or hoisted "
                                "some)",
                                compMem, skelMem, loop.index);
      return r;
    }
    int64_t unroll = compMem / skelMem;
    double perIter =
        static_cast<double>(std::max<int64_t>(0, body->counts.nonMemory() - kLoopControl)) /
        static_cast<double>(unroll);
    double fp64Iter = static_cast<double>(body->counts[InsnClass::Fp64]) / static_cast<double>(unroll);
    ensureComp(loop.body);
    std::vector<Stmt *> loopComps;
    compsOutsideLoops(loop.body, loopComps);
    // SASS of a rolled loop builds its 64-bit literals in every iteration: the
    // moves come off the count and stay `lit64`, for the layout to place
    bool keepLoop = keep;
    if (literals == LiteralMoves::InCount && unroll == 1) {
      int64_t lits = 0;
      for (const Stmt *s : loopComps)
        lits += s->lit64;
      perIter = std::max(0.0, perIter - static_cast<double>(kLiteralMoves * lits));
      keepLoop = true;
    }
    distribute(loopComps, std::llround(perIter), std::llround(fp64Iter), keepLoop);
    ensureComp(k.body);
    std::vector<Stmt *> outComps;
    compsOutsideLoops(k.body, outComps);
    distribute(outComps, out.nonMemory(), out[InsnClass::Fp64], keep);
    r.note = fmt::format(
        "// comp counts: {} of the naive layout: an iteration of '{}' (the compiler unrolled {}) "
        "{} ({}; {} of loop control left to the model); once a thread {} ({})",
        origin, loop.index, unroll == 1 ? std::string("none") : fmt::format("{}", unroll),
        fmt::format("{:.2f}", static_cast<double>(body->counts.total()) / unroll),
        classes(body->counts, static_cast<double>(unroll)), kLoopControl, out.total(),
        classes(out, 1));
    if (hasLoop(k.body) && cc.loops > 1)
      r.note += "; loops around it keep the table's counts";
  } else {
    r.why = fmt::format("the skeleton has {} innermost loops; compiled counts are read for one",
                        inner.size());
    return r;
  }
  k.comments.leading.push_back(r.note);
  kernel = std::move(k);
  r.ok = true;
  return r;
}

} // namespace skelcast::toolchain
