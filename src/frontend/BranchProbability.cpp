// Branch probabilities (BranchProbability.h): a pragma, an exact count over
// the loop space, or 0.5 with a warning.
#include "BranchProbability.h"
#include "ClangNodes.h"
#include "NestAnalysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace skelcast::frontend {

namespace {

/// Points counted at most: above it a loop's iterations are sampled (its
/// first and last value exactly, its interior at evenly spaced points
/// standing for the points between them), so the count takes milliseconds and
/// moves continuously with the sizes (issue 17: 8.4 s for a 4096^2 grid, and
/// 0.5 assumed beyond 2^24 points).
constexpr double kPointBudget = double(1 << 18);

class BranchCounter {
public:
  BranchCounter(NestAnalysis &na, const std::vector<std::pair<const clang::Expr *, bool>> &path,
                const std::set<const clang::VarDecl *> &inScope, std::vector<Warning> &warnings)
      : na_(na), tu_(na.tu), plan_(na.plan), path_(path), inScope_(inScope), warnings_(warnings) {}

  double probability(const clang::IfStmt *is, std::string &source) {
    if (auto pc = tu_.pragmaClause(is, "prob")) {
      source = "from '#pragma skelcast prob'";
      return pc->value;
    }
    if (auto p = exactProbability(is->getCond())) {
      source = "counted over the loop space";
      return std::stod(fmt::format("{:.4g}", *p));
    }
    source = "unknown: 0.5 assumed";
    warnings_.push_back(tu_.warning(
        is->getBeginLoc(), "the probability of this branch is unknown: 0.5 assumed (add "
                           "'#pragma skelcast prob(P)' before the 'if')"));
    return 0.5;
  }

private:
  /// The fraction of the iterations (of the loops the condition names) that
  /// take the branch, among those that reach it; nullopt if the condition is
  /// not a function of loop indices and constants, or the space is too big.
  std::optional<double> exactProbability(const clang::Expr *cond) {
    std::vector<std::pair<const clang::Expr *, bool>> conds = path_;
    conds.emplace_back(cond, true);
    std::set<const clang::VarDecl *> vars;
    std::function<bool(const clang::Stmt *)> collect = [&](const clang::Stmt *s) -> bool {
      if (!s)
        return true;
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
          if (plan_.loops.count(v) && inScope_.count(v))
            vars.insert(v);
          else if (!na_.knownScalar(v))
            return false;
        }
      }
      for (const clang::Stmt *c : s->children())
        if (!collect(c))
          return false;
      return true;
    };
    std::vector<std::pair<const clang::Expr *, bool>> usable;
    for (const auto &c : conds) {
      std::set<const clang::VarDecl *> before = vars;
      if (collect(c.first))
        usable.push_back(c);
      else if (c.first == cond)
        return std::nullopt;
      else
        vars = before;
    }
    // the loops whose bounds these loops depend on
    bool grew = true;
    while (grew) {
      grew = false;
      for (const clang::VarDecl *v : std::set<const clang::VarDecl *>(vars)) {
        const LoopHeader &h = plan_.loops.at(v).hdr;
        std::set<const clang::VarDecl *> more;
        for (const clang::Expr *e : {h.init, h.bound}) {
          std::set<const clang::VarDecl *> vs;
          collectVars(e, vs);
          for (auto *w : vs) {
            if (plan_.loops.count(w) && inScope_.count(w)) {
              if (!vars.count(w)) {
                vars.insert(w);
                grew = true;
              }
            } else if (!na_.knownScalar(w)) {
              return std::nullopt;
            }
          }
        }
        if (h.stepExpr)
          return std::nullopt;
      }
    }
    std::vector<const clang::VarDecl *> order(vars.begin(), vars.end());
    std::sort(order.begin(), order.end(), [&](auto *x, auto *y) {
      int dx = plan_.loops.at(x).depth, dy = plan_.loops.at(y).depth;
      return dx != dy ? dx < dy : tu_.sm.isBeforeInTranslationUnit(x->getLocation(),
                                                                     y->getLocation());
    });
    // compile the conditions and the bounds over slots (the loop variables)
    auto slotOf = [&](const clang::ValueDecl *d) -> std::optional<int> {
      for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == d)
          return static_cast<int>(i);
      return std::nullopt;
    };
    auto constOf = [&](const clang::ValueDecl *d) -> std::optional<int64_t> {
      if (auto k = na_.knownScalar(llvm::dyn_cast<clang::VarDecl>(d)))
        return k->first;
      return std::nullopt;
    };
    std::vector<CompiledInt> cc;
    for (const auto &c : usable) {
      auto k = CompiledInt::compile(c.first, tu_.ast, slotOf, constOf);
      if (!k)
        return std::nullopt;
      cc.push_back(std::move(*k));
    }
    std::vector<CompiledInt> lo, hi;
    for (const clang::VarDecl *v : order) {
      const LoopHeader &h = plan_.loops.at(v).hdr;
      auto a = CompiledInt::compile(h.init, tu_.ast, slotOf, constOf);
      auto b = CompiledInt::compile(h.bound, tu_.ast, slotOf, constOf);
      if (!a || !b)
        return std::nullopt;
      lo.push_back(std::move(*a));
      hi.push_back(std::move(*b));
    }
    std::vector<int64_t> slots(order.size() + 1, 0);
    // interior samples per loop: the budget shared evenly by the dimensions
    const int64_t perLoop = std::max<int64_t>(
        1, static_cast<int64_t>(std::pow(kPointBudget, 1.0 / static_cast<double>(order.size()))));
    double reach = 0, taken = 0, weight = 1;
    bool ok = true;
    std::function<void(size_t)> rec = [&](size_t k) {
      if (!ok)
        return;
      if (k == order.size()) {
        for (size_t c = 0; c + 1 < cc.size(); ++c) {
          auto r = cc[c].eval(slots.data());
          if (!r) {
            ok = false;
            return;
          }
          if ((*r != 0) != usable[c].second)
            return;
        }
        reach += weight;
        auto r = cc.back().eval(slots.data());
        if (!r) {
          ok = false;
          return;
        }
        if (*r != 0)
          taken += weight;
        return;
      }
      const LoopHeader &h = plan_.loops.at(order[k]).hdr;
      auto i0 = lo[k].eval(slots.data()), b = hi[k].eval(slots.data());
      if (!i0 || !b) {
        ok = false;
        return;
      }
      // the loop's values are x(t) = i0 + t*step (i0 - t counting down), t < n
      int64_t n = 0;
      if (!h.decreasing) {
        int64_t end = h.inclusive ? *b + 1 : *b;
        n = end > *i0 ? (end - *i0 + h.step - 1) / h.step : 0;
      } else {
        int64_t end = h.inclusive ? *b : *b + 1;
        n = *i0 >= end ? *i0 - end + 1 : 0;
      }
      auto at = [&](int64_t t) { return h.decreasing ? *i0 - t : *i0 + t * h.step; };
      auto visit = [&](int64_t t, double w) {
        slots[k] = at(t);
        double saved = weight;
        weight *= w;
        rec(k + 1);
        weight = saved;
      };
      if (n <= perLoop + 2) {
        for (int64_t t = 0; t < n && ok; ++t)
          visit(t, 1);
        return;
      }
      // first and last exactly (borders, HotSpot's edge tests), the n - 2
      // interior values by perLoop midpoints, each standing for its share
      visit(0, 1);
      const int64_t inner = n - 2;
      const double share = static_cast<double>(inner) / static_cast<double>(perLoop);
      for (int64_t j = 0; j < perLoop && ok; ++j)
        visit(1 + ((2 * j + 1) * inner) / (2 * perLoop), share);
      visit(n - 1, 1);
    };
    rec(0);
    if (!ok || reach <= 0)
      return std::nullopt;
    return taken / reach;
  }

  NestAnalysis &na_;
  TUContext &tu_;
  NestPlan &plan_;
  const std::vector<std::pair<const clang::Expr *, bool>> &path_;
  const std::set<const clang::VarDecl *> &inScope_;
  std::vector<Warning> &warnings_;
};

} // namespace

double branchProbability(NestAnalysis &na, const clang::IfStmt *is,
                         const std::vector<std::pair<const clang::Expr *, bool>> &path,
                         const std::set<const clang::VarDecl *> &inScope, std::string &source,
                         std::vector<Warning> &warnings) {
  return BranchCounter(na, path, inScope, warnings).probability(is, source);
}

} // namespace skelcast::frontend
