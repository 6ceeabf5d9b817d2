// The body of one `parallel_for`: the kernel, its statements, loops and
// branches (KernelBuilder.h; the expressions are in KernelExprs.cpp).
#include "KernelBuilder.h"
#include "BranchProbability.h"
#include "Chain.h"
#include "ClangNodes.h"

#include "skelcast/skeleton/Parser.h"

#include <clang/AST/Decl.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace skelcast::frontend {

using skeleton::Expr;

namespace {

constexpr int64_t kDefaultTrip = 16;   ///< trip count assumed for data-dependent bounds
constexpr int64_t kSmallTrip = 16;     ///< constant trip counts up to this make a `for`

} // namespace

KernelBuilder::KernelBuilder(NestAnalysis &na, std::vector<Warning> &warnings)
    : na_(na), tu_(na.tu), scan_(na.scan), plan_(na.plan), warnings_(warnings), ops_(na) {
  for (const AccessRec &a : scan_.accesses)
    byExpr_[a.expr] = &a;
  for (const ScalarWrite &w : scan_.scalarWrites)
    ++defs_[w.var];
  for (const clang::ForStmt *f : plan_.inPlace)
    inPlaceBodies_[f] = scan_.bodyOf(f);
  // the scalars whose values reach a subscript or a bound, through assignments
  indexFlow_ = scan_.indexScalars;
  for (bool grew = true; grew;) {
    grew = false;
    for (const ScalarWrite &w : scan_.scalarWrites)
      if (w.value && indexFlow_.count(w.var)) {
        std::set<const clang::VarDecl *> vs;
        collectVars(w.value, vs);
        for (const clang::VarDecl *v : vs)
          grew = indexFlow_.insert(v).second || grew;
      }
  }
}

skeleton::Kernel KernelBuilder::build(const std::string &name) {
  skeleton::Kernel k;
  k.name = name;
  scopes_.emplace_back();
  Block top{&k.body, 0};
  blk_ = &top;
  countOps_ = false; // the loop space's bounds are not the thread's work
  if (const SequentialLoop *r = na_.repeatIndex()) {
    // the index of the indexed repeat around the kernel: a name no local takes
    scopes_.back().insert(r->name());
    loopVal_[r->var] = Expr::ref(r->name());
  }
  for (const clang::ForStmt *f : plan_.parallel) {
    const LoopHeader &h = scan_.headers.at(f);
    std::string idx = declare(h.var->getName().str());
    k.indices.push_back(idx);
    Expr init = constExpr(h.init), bound = constExpr(h.bound);
    skeleton::ParallelDim dim;
    Expr lo, hi;
    if (!h.decreasing) {
      lo = init;
      hi = h.inclusive ? plusConst(bound, 1) : bound;
    } else {
      lo = h.inclusive ? bound : plusConst(bound, 1);
      hi = plusConst(init, 1);
    }
    if (h.step > 1) {
      // i = lo + step*i': the space counts the iterations
      int64_t l = *na_.knownValue(h.init), b = *na_.knownValue(h.bound);
      int64_t hiv = h.inclusive ? b + 1 : b;
      int64_t n = hiv > l ? (hiv - l + h.step - 1) / h.step : 0;
      dim.hi = Expr::lit(n);
      Expr scaled = Expr::binary('*', Expr::lit(h.step), Expr::ref(idx));
      loopVal_[h.var] = (lo.kind == Expr::Kind::IntLit && lo.value == 0)
                            ? scaled
                            : Expr::binary('+', lo, scaled);
    } else if (auto box = plan_.boxes.find(f); box != plan_.boxes.end()) {
      // the bounding box of a triangle (NestPlan::Box): the outer dimension's
      // own bound where the box reaches it (syrk's `j <= i` gives 0:N)
      const NestPlan::Box &b = box->second;
      size_t d = 0;
      while (scan_.headers.at(plan_.parallel[d]).var != b.outer)
        ++d;
      const LoopHeader &oh = scan_.headers.at(plan_.parallel[d]);
      std::optional<int64_t> ohi = na_.knownValue(oh.bound);
      if (ohi && oh.inclusive)
        ++*ohi;
      if (b.lo != 0)
        dim.lo = Expr::lit(b.lo);
      dim.hi = ohi && *ohi == b.hi ? k.dims[d].hi : Expr::lit(b.hi);
      loopVal_[h.var] = Expr::ref(idx);
    } else {
      if (!(lo.kind == Expr::Kind::IntLit && lo.value == 0))
        dim.lo = lo;
      dim.hi = hi;
      loopVal_[h.var] = Expr::ref(idx);
    }
    k.dims.push_back(dim);
  }
  const clang::Stmt *root = plan_.parallel.front();
  std::string fnName; // with its template arguments for an instantiation: 'copy<float>'
  llvm::raw_string_ostream fnOs(fnName);
  na_.facts.fn->getNameForDiagnostic(fnOs, tu_.ast.getPrintingPolicy(), false);
  k.comments.leading.push_back(fmt::format("// from {}:{}, function '{}'", tu_.fileName,
                                           tu_.line(root->getBeginLoc()), fnOs.str()));
  k.comments.leading.push_back(
      fmt::format("// iterations independent: {}", plan_.why));
  if (!plan_.reordered.empty())
    k.comments.leading.push_back("// " + plan_.reordered);
  for (const ScalarReduction &r : plan_.reductions) {
    k.reductions.push_back({r.op, r.name, {}});
    k.comments.leading.push_back(fmt::format(
        "// reduction of '{}' ({}) over the loop space{}: each thread's partial, a block tree "
        "in shared memory, one atomic per block",
        r.var->getName().str(), skeleton::reduceOpName(r.op),
        plan_.ompReductions.count(r.var) ? " (OpenMP 'reduction' clause)" : ""));
  }
  for (const clang::VarDecl *r : plan_.ompReductions)
    if (std::none_of(plan_.reductions.begin(), plan_.reductions.end(),
                     [&](const ScalarReduction &x) { return x.var == r; }))
      k.comments.leading.push_back(fmt::format(
          "// reduction of '{}' over the loop space: its operator has no GPU reduction in the "
          "skeleton language, combining the partial results is not modelled",
          r->getName().str()));

  countOps_ = true;
  if (plan_.boxes.empty()) {
    stmts(plan_.body);
  } else {
    // a triangle in its bounding box: the body under the guard a port
    // writes, taken by the share of the box's points inside
    // (one triangle a kernel: NestFinder)
    const auto &[f, box] = *plan_.boxes.begin();
    const LoopHeader &h = scan_.headers.at(f);
    skeleton::Branch b;
    b.prob = box.p;
    std::string what = fmt::format("'{}' from {} to {}{}", h.var->getName().str(),
                                   tu_.sourceText(h.init->getSourceRange()), h.inclusive ? "<= " : "< ",
                                   tu_.sourceText(h.bound->getSourceRange()));
    Block inner{&b.thenBody, 0};
    Block *outer = blk_;
    blk_ = &inner;
    ++underBranch_;
    stmts(plan_.body);
    flush();
    --underBranch_;
    blk_ = outer;
    skeleton::Stmt st;
    st.kind = skeleton::Stmt::Kind::Branch;
    st.branch = std::move(b);
    st.comments.leading.push_back(fmt::format(
        "// a triangle in its bounding box ({}): the threads inside run the body, p = the "
        "share of the box's points inside",
        what));
    emit(std::move(st));
  }
  flush();
  {
    // a triangle's body runs under its bounding box's guard (p = the share inside)
    std::vector<skeleton::Stmt> *stretch = &k.body;
    if (!plan_.boxes.empty())
      for (auto it = k.body.rbegin(); it != k.body.rend(); ++it)
        if (it->kind == skeleton::Stmt::Kind::Branch) {
          stretch = &it->branch.thenBody;
          break;
        }
    attachChain(*stretch, ChainWalker(tu_.ast, inPlaceBodies_).chain(plan_.body, nullptr));
  }
  for (const auto &[line, text] : clamps_)
    k.comments.leading.push_back(fmt::format(
        "// line {}: the clamped index '{}' is written as the arm most iterations take: "
        "the borders are approximated",
        line, text.size() > 60 ? text.substr(0, 57) + "..." : text));
  for (const auto &[loc, callee] : tu_.inlinedCalls)
    if (tu_.sm.isPointWithin(tu_.sm.getExpansionLoc(loc), tu_.sm.getExpansionLoc(root->getBeginLoc()),
                             tu_.sm.getExpansionLoc(root->getEndLoc())))
      k.comments.leading.push_back(fmt::format(
          "// line {}: the call to '{}' is inlined, its pointer parameters the arrays passed",
          tu_.line(loc), callee));
  for (const auto &lp : tu_.loopPointers)
    if (tu_.sm.isPointWithin(tu_.sm.getExpansionLoc(lp.loc),
                             tu_.sm.getExpansionLoc(root->getBeginLoc()),
                             tu_.sm.getExpansionLoc(root->getEndLoc())))
      k.comments.leading.push_back(fmt::format(
          "// line {}: '{}' is set in each iteration to '{}': its accesses are those of '{}' "
          "at that offset{}",
          tu_.line(lp.loc), lp.pointer, lp.value, lp.array,
          lp.written && (plan_.omp || plan_.independentPragma) && lp.offset &&
                  !na_.affine(lp.offset).valid
              ? std::string(" (the offset is not affine, read from data: its writes are "
                            "indirect stores, independent on the directive's word)")
              : ""));
  return k;
}

// ---------------------------------------------------------------------------
// names

std::string KernelBuilder::declare(const std::string &base, bool fresh) {
  std::string b = skeleton::isKeyword(base) ? base + "_" : base;
  std::string name = b;
  // a data binding's name is never given again in the kernel: a scalar still
  // naming it after its block closed must not read another value (visible)
  for (int k = 2; inScope(name) || dataLoad_.count(name) || (fresh && declared_.count(name)); ++k)
    name = fmt::format("{}_{}", b, k);
  scopes_.back().insert(name);
  declared_.insert(name);
  return name;
}

bool KernelBuilder::inScope(const std::string &n) const {
  for (const auto &s : scopes_)
    if (s.count(n))
      return true;
  return false;
}

// ---------------------------------------------------------------------------
// output

void KernelBuilder::cost(int64_t n, clang::QualType t) {
  if (!countOps_)
    return;
  blk_->comp += n;
  if (ops_.isFp64(t))
    blk_->fp64 += n;
}

void KernelBuilder::literals(std::initializer_list<const clang::Expr *> operands, clang::QualType t) {
  if (!countOps_ || !ops_.isFp64(t))
    return;
  for (const clang::Expr *e : operands) {
    llvm::APFloat v(0.0);
    if (!e || !ops_.isFp64(e->getType()) || e->HasSideEffects(tu_.ast) || !e->EvaluateAsFloat(v, tu_.ast))
      continue;
    bool lost = false; // long double: the port computes in double
    v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    uint64_t bits = v.bitcastToAPInt().getZExtValue() & ~(uint64_t{1} << 63); // a sign is an operand modifier
    if (bits & 0xffffffffu)
      blk_->lit64.insert(bits);
  }
}

void KernelBuilder::flush() {
  if (blk_->comp > 0) {
    skeleton::Stmt s;
    s.kind = skeleton::Stmt::Kind::Comp;
    s.comp = blk_->comp;
    s.fp64 = blk_->fp64;
    s.lit64 = s.fp64 > 0 ? std::min<int64_t>(static_cast<int64_t>(blk_->lit64.size()), 3 * s.fp64) : 0;
    blk_->out->push_back(std::move(s));
  }
  blk_->comp = 0;
  blk_->fp64 = 0;
  blk_->lit64.clear();
  for (auto &st : blk_->stores)
    blk_->out->push_back(std::move(st));
  blk_->stores.clear();
}

void KernelBuilder::attachChain(std::vector<skeleton::Stmt> &body, ChainCycles chain) {
  if (chain.cycles <= 0 && chain.waits <= 0)
    return;
  // the stretch's own first `comp`, which runs each time the stretch does;
  // where all its work sits in branches, a `comp 0` before them carries it
  for (auto &s : body)
    if (s.kind == skeleton::Stmt::Kind::Comp) {
      s.chain = chain.cycles;
      s.chainWaits = chain.waits;
      return;
    }
  skeleton::Stmt s;
  s.kind = skeleton::Stmt::Kind::Comp;
  s.chain = chain.cycles;
  s.chainWaits = chain.waits;
  body.insert(body.begin(), std::move(s));
}

// ---------------------------------------------------------------------------
// statements

void KernelBuilder::stmt(const clang::Stmt *s) {
  if (!s)
    return;
  if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
    stmts(std::vector<const clang::Stmt *>(cs->body_begin(), cs->body_end()));
    return;
  }
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *d : ds->decls()) {
      auto *v = llvm::dyn_cast<clang::VarDecl>(d);
      if (!v)
        continue;
      forget(v);
      if (scan_.registerArrays.count(v)) {
        if (v->getInit())
          eval(v->getInit());
        continue;
      }
      if (isStructVariable(v, tu_.ast)) {
        // fields in registers: only the values of `{a, b, c}` cost anything
        if (auto *il = llvm::dyn_cast_or_null<clang::InitListExpr>(
                v->getInit() ? v->getInit()->IgnoreParenImpCasts() : nullptr))
          for (const clang::Expr *x : il->inits())
            eval(x);
        continue;
      }
      if (v->getInit()) {
        Val r = eval(v->getInit());
        assignScalar(v, v->getInit(), r);
      }
    }
    return;
  }
  if (llvm::isa<clang::NullStmt>(s))
    return;
  if (auto *as = llvm::dyn_cast<clang::AttributedStmt>(s)) {
    stmt(as->getSubStmt());
    return;
  }
  if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
    loop(f);
    return;
  }
  if (llvm::isa<clang::OMPLoopDirective>(s))
    if (auto *f = asFor(s)) {
      loop(f);
      return;
    }
  if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
    branch(is);
    return;
  }
  if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    eval(e);
    return;
  }
  throw Unsupported{s->getBeginLoc(),
                    fmt::format("a statement of kind '{}'", s->getStmtClassName())};
}

void KernelBuilder::stmts(const std::vector<const clang::Stmt *> &list, size_t from) {
  for (size_t i = from; i < list.size(); ++i) {
    if (continueIf(list[i])) {
      std::vector<const clang::Stmt *> rest(list.begin() + i + 1, list.end());
      branch(llvm::cast<clang::IfStmt>(list[i]), &rest);
      return;
    }
    stmt(list[i]);
  }
}

std::set<std::string> KernelBuilder::arraysStoredIn(const clang::ForStmt *f) {
  std::set<std::string> out;
  for (const AccessRec &a : scan_.accesses)
    if (a.write && scan_.inside(a.loop, f)) {
      const ArrayShape &sh = plan_.shapes.at(a.base);
      if (!sh.isRegister)
        out.insert(sh.name);
    }
  return out;
}

void KernelBuilder::forgetWrittenIn(const clang::ForStmt *f) {
  for (const ScalarWrite &w : scan_.scalarWrites)
    if (scan_.inside(w.loop, f))
      forget(w.var);
}

void KernelBuilder::loop(const clang::ForStmt *f) {
  if (std::find(plan_.inPlace.begin(), plan_.inPlace.end(), f) != plan_.inPlace.end()) {
    // a copy of a loop-space loop (LoopOrder.h): this thread's iteration of it
    stmts(scan_.bodyOf(f));
    return;
  }
  const LoopHeader &h = scan_.headers.at(f);
  // values carried around the loop are unknown inside it
  forgetWrittenIn(f);
  bool save = countOps_;
  countOps_ = false; // loop control is the model's business (unrolling)
  Val a = eval(h.init), b = eval(h.bound);
  std::optional<Expr> step;
  if (h.stepExpr) {
    step = eval(h.stepExpr).sym;
    if (!step)
      throw Unsupported{f->getBeginLoc(),
                        fmt::format("the step of this loop cannot be written in the skeleton: {}",
                                    whyNoValue(h.stepExpr))};
  } else if (h.step > 1) {
    step = Expr::lit(h.step);
  }
  countOps_ = save;
  if (!a.sym)
    throw Unsupported{f->getBeginLoc(),
                      fmt::format("the start of this loop cannot be written in the skeleton: {}",
                                  whyNoValue(h.init))};
  if (!b.sym)
    throw Unsupported{f->getBeginLoc(),
                      fmt::format("the bound of this loop cannot be written in the skeleton: {}",
                                  whyNoValue(h.bound))};
  flush();
  skeleton::Loop l;
  if (!h.decreasing) {
    l.lo = *a.sym;
    l.hi = h.inclusive ? plusConst(*b.sym, 1) : *b.sym;
  } else {
    l.lo = h.inclusive ? *b.sym : plusConst(*b.sym, 1);
    l.hi = plusConst(*a.sym, 1);
  }
  l.step = step;
  std::string cname = h.var->getName().str();
  std::vector<std::string> comments;
  bool data = mentionsAccess(l.lo, bindNames_) || mentionsAccess(l.hi, bindNames_);
  auto pragma = tu_.pragmaClause(f, "trip");
  // a search (`if (c) { ...; break; }`): it stops where the data says, which
  // is known only to a pragma or --trip; else its whole range is counted
  const clang::IfStmt *exit = scan_.earlyExits.count(f) ? earlyExit(f) : nullptr;
  if (exit && !data) {
    std::string at = fmt::format("the 'break' at line {}", tu_.line(exit->getBeginLoc()));
    if (pragma) {
      l.tripHint = static_cast<int64_t>(pragma->value);
      comments.push_back(fmt::format("// ends at {}: trip count from '#pragma skelcast trip'", at));
    } else if (auto t = tu_.opts.trips.find(cname); t != tu_.opts.trips.end()) {
      l.tripHint = t->second;
      tu_.usedTrips.insert(cname);
      comments.push_back(fmt::format("// ends at {}: trip count from --trip {}={}", at, cname,
                                     t->second));
    } else {
      comments.push_back(fmt::format("// ends at {}: its whole range counted, an upper bound", at));
      warnings_.push_back(tu_.warning(
          f->getBeginLoc(),
          fmt::format("loop '{}' ends at {}, where its data says: its whole range is counted, "
                      "an upper bound (give the mean trip count with '#pragma skelcast trip(N)' "
                      "before the loop or --trip {}=N)",
                      cname, at, cname)));
    }
    pragma.reset();
  }
  if (data) {
    if (pragma) {
      l.tripHint = static_cast<int64_t>(pragma->value);
      comments.push_back("// trip count from '#pragma skelcast trip'");
    } else if (auto t = tu_.opts.trips.find(cname); t != tu_.opts.trips.end()) {
      l.tripHint = t->second;
      tu_.usedTrips.insert(cname);
      comments.push_back(fmt::format("// trip count from --trip {}={}", cname, t->second));
    } else {
      l.tripHint = kDefaultTrip;
      comments.push_back(fmt::format("// trip count unknown: {} assumed", kDefaultTrip));
      warnings_.push_back(tu_.warning(
          f->getBeginLoc(),
          fmt::format("the trip count of loop '{}' depends on data: {} assumed (add '#pragma "
                      "skelcast trip(N)' or --trip {}=N)",
                      cname, kDefaultTrip, cname)));
    }
  } else if (pragma) {
    warnings_.push_back(tu_.warning(
        pragma->loc, "'#pragma skelcast trip' ignored: the bounds of this loop do not depend "
                     "on data"));
  }
  // `for` when the trip count is a small constant or the index walks no data
  std::optional<int64_t> trip;
  {
    auto lo = na_.knownValue(h.decreasing ? h.bound : h.init);
    auto hi = na_.knownValue(h.decreasing ? h.init : h.bound);
    if (lo && hi && !h.stepExpr) {
      int64_t n = h.decreasing ? (*hi - *lo + (h.inclusive ? 1 : 0))
                               : (*hi - *lo + (h.inclusive ? 1 : 0));
      trip = n <= 0 ? 0 : (n + h.step - 1) / h.step;
    }
  }
  bool walksData = false;
  for (const AccessRec &acc : scan_.accesses) {
    if (!scan_.inside(acc.loop, f) || plan_.shapes.at(acc.base).isRegister)
      continue;
    for (const clang::Expr *s : acc.subs)
      if (mentions(s, h.var))
        walksData = true;
  }
  l.isStream = !(trip && *trip <= kSmallTrip) && walksData;
  if (exit) {
    std::optional<double> n;
    if (l.tripHint)
      n = static_cast<double>(*l.tripHint);
    else if (trip)
      n = static_cast<double>(*trip);
    exitTrips_[exit] = n;
  }

  // the body
  scopes_.emplace_back();
  l.index = declare(cname);
  loopVal_[h.var] = Expr::ref(l.index);
  auto savedAvail = avail_;
  for (const std::string &arr : arraysStoredIn(f))
    avail_.erase(arr);
  Block body{&l.body, 0};
  Block *outer = blk_;
  blk_ = &body;
  stmts(scan_.bodyOf(f));
  flush();
  attachChain(l.body, ChainWalker(tu_.ast, inPlaceBodies_).chain(scan_.bodyOf(f), h.var));
  blk_ = outer;
  avail_ = savedAvail;
  for (const std::string &arr : arraysStoredIn(f))
    avail_.erase(arr);
  forgetWrittenIn(f);
  loopVal_.erase(h.var);
  scopes_.pop_back();

  skeleton::Stmt st;
  st.kind = skeleton::Stmt::Kind::Loop;
  st.loop = std::move(l);
  st.comments.leading = comments;
  emit(std::move(st));
  if (exit)
    bindSearchResults(f, exit);
}

void KernelBuilder::bindSearchResults(const clang::ForStmt *f, const clang::IfStmt *exit) {
  std::set<const clang::VarDecl *> set;
  assignedIn(exit->getThen(), set, true);
  // the load of the exit's condition that is still in scope after the loop
  // (`CDF[x] >= u[j]`: u[j]) is what the data decides the value by
  std::optional<Expr> from;
  std::function<void(const clang::Expr *)> find = [&](const clang::Expr *e) {
    if (!e || from)
      return;
    if (auto *v = refVar(e->IgnoreParenImpCasts()))
      if (auto d = dataFrom_.find(v); d != dataFrom_.end() && visible(d->second)) {
        from = d->second; // `value` holding u[j]
        return;
      }
    if (auto *a = accessOf(e->IgnoreParenImpCasts())) {
      std::set<const clang::VarDecl *> vs;
      for (const clang::Expr *x = a; auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(x);
           x = as->getBase()->IgnoreParenImpCasts())
        collectVars(as->getIdx(), vs);
      bool inScope = std::none_of(vs.begin(), vs.end(), [&](const clang::VarDecl *v) {
        auto d = scan_.localDecls.find(v);
        return v == scan_.headers.at(f).var || (d != scan_.localDecls.end() && scan_.inside(d->second, f));
      });
      if (inScope) {
        bool save = countOps_;
        countOps_ = false;
        Addr ad = address(a);
        countOps_ = save;
        if (!ad.shape->isRegister)
          from = Expr::access(ad.name, ad.idx);
      }
      return; // (its base `a[i]` of `a[i][x]` is no load)
    }
    for (const clang::Stmt *c : e->children())
      find(llvm::dyn_cast_or_null<clang::Expr>(c));
  };
  find(exit->getCond());
  for (const clang::VarDecl *v : set)
    if (from && v->getType()->isIntegralOrEnumerationType() && indexFlow_.count(v))
      bindData(v, *from,
               fmt::format("line {}: '{}' is where the loop of line {} ended, which this load "
                           "decides: an index the data decides",
                           tu_.line(exit->getBeginLoc()), v->getName().str(),
                           tu_.line(f->getBeginLoc())));
}

int KernelBuilder::smallPure(const clang::Stmt *s) {
  if (!s)
    return 0;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::IfStmt>(s) ||
      llvm::isa<clang::OMPExecutableDirective>(s))
    return -1;
  if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
    auto it = byExpr_.find(a);
    if (it == byExpr_.end() || !plan_.shapes.at(it->second->base).isRegister)
      return -1;
  }
  if (auto *c = llvm::dyn_cast<clang::CallExpr>(s)) {
    auto *fd = c->getDirectCallee();
    if (!fd || !mathCallCost(fd->getNameAsString()) ||
        *mathCallCost(fd->getNameAsString()) > 4)
      return -1;
  }
  int n = (llvm::isa<clang::BinaryOperator>(s) || llvm::isa<clang::UnaryOperator>(s) ||
           llvm::isa<clang::ConditionalOperator>(s))
              ? 1
              : 0;
  for (const clang::Stmt *c : s->children()) {
    int k = smallPure(c);
    if (k < 0)
      return -1;
    n += k;
  }
  return n;
}

void KernelBuilder::forgetAssignedIn(const clang::Stmt *s) {
  if (!s)
    return;
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s))
    if (b->isAssignmentOp())
      if (auto *v = refVar(b->getLHS()))
        forget(v);
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
    if (u->isIncrementDecrementOp())
      if (auto *v = refVar(u->getSubExpr()))
        forget(v);
  for (const clang::Stmt *c : s->children())
    forgetAssignedIn(c);
}

void KernelBuilder::branch(const clang::IfStmt *is, const std::vector<const clang::Stmt *> *rest) {
  std::vector<const clang::Stmt *> thenS, elseS;
  auto exit = exitTrips_.find(is);
  if (rest) {
    continueIf(is, &thenS);
    elseS = *rest;
  } else if (exit != exitTrips_.end()) {
    breakIf(is, &thenS); // the `break` is the loop's end, which its trip count says
  } else {
    thenS.push_back(is->getThen());
    if (is->getElse())
      elseS.push_back(is->getElse());
  }
  int nt = smallPure(is->getThen()), ne = smallPure(is->getElse());
  const auto before = env_;
  std::map<const clang::VarDecl *, Expr> armData; // bindData bindings held at an arm's end
  auto noteArmData = [&](const std::map<const clang::VarDecl *, Expr> &start) {
    for (const auto &[v, e] : env_)
      if (dataOf(e) && (!start.count(v) || !(start.at(v) == e)))
        armData[v] = e;
  };
  if (!rest && exit == exitTrips_.end() && nt >= 0 && ne >= 0 && nt <= 8 && ne <= 8) {
    // predicated: both sides execute, a select picks the result
    eval(is->getCond());
    ++underBranch_;
    stmt(is->getThen());
    stmt(is->getElse());
    --underBranch_;
    noteArmData(before);
    cost(1);
    forgetAssignedIn(is->getThen());
    forgetAssignedIn(is->getElse());
    keepData(is, before, armData);
    return;
  }
  eval(is->getCond());
  flush();
  std::string source;
  std::set<const clang::VarDecl *> inScope;
  for (const auto &[v, e] : loopVal_)
    inScope.insert(v);
  double p;
  if (exit != exitTrips_.end() && exit->second && *exit->second >= 1) {
    // taken once in a run of the loop: the iteration it ends at
    p = 1.0 / *exit->second;
    source = fmt::format("= 1/{}: taken once, where the loop ends", *exit->second);
  } else {
    p = branchProbability(na_, is, path_, inScope, source, warnings_);
  }
  skeleton::Branch b;
  b.prob = p;
  auto savedAvail = avail_;
  Block *outer = blk_;
  std::set<std::string> stored;
  // each side's values at its end, and the names it declared (sideValues)
  std::map<const clang::VarDecl *, Expr> sideEnv[2];
  std::set<std::string> sideNames[2];
  auto arm = [&](const std::vector<const clang::Stmt *> &ss, std::vector<skeleton::Stmt> &out,
                 bool polarity) {
    Block blk{&out, 0};
    blk_ = &blk;
    path_.emplace_back(is->getCond(), polarity);
    scopes_.emplace_back();
    auto envSave = env_;
    auto affSave = affEnv_;
    ++underBranch_;
    stmts(ss);
    --underBranch_;
    noteArmData(envSave);
    flush();
    for (const auto &[arr, keys] : avail_)
      if (!savedAvail.count(arr) || savedAvail.at(arr) != keys)
        stored.insert(arr);
    sideEnv[polarity ? 0 : 1] = env_;
    sideNames[polarity ? 0 : 1] = scopes_.back();
    env_ = envSave;
    affEnv_ = affSave;
    scopes_.pop_back();
    path_.pop_back();
    avail_ = savedAvail;
    blk_ = outer;
  };
  if (rest && thenS.empty()) {
    // `if (c) continue; REST`: REST runs when c does not hold
    b.prob = 1.0 - p;
    arm(elseS, b.thenBody, false);
  } else {
    arm(thenS, b.thenBody, true);
    if (rest || is->getElse()) {
      b.hasElse = true;
      arm(elseS, b.elseBody, false);
    }
  }
  // loads of either side are not available after the branch; stores
  // invalidate what was loaded before
  std::vector<const clang::Stmt *> both = thenS;
  both.insert(both.end(), elseS.begin(), elseS.end());
  for (const std::string &arr : stored)
    if (storesIn(both, arr))
      avail_.erase(arr);
  for (const clang::Stmt *x : both)
    forgetAssignedIn(x);
  std::vector<std::string> kept = sideValues(is, b.prob, rest != nullptr, sideEnv, sideNames);
  skeleton::Stmt st;
  st.kind = skeleton::Stmt::Kind::Branch;
  st.branch = std::move(b);
  std::string cond = tu_.sourceText(is->getCond()->getSourceRange());
  if (cond.size() > 60)
    cond = cond.substr(0, 57) + "...";
  if (rest && thenS.empty())
    st.comments.leading.push_back(fmt::format(
        "// line {}: if ({}) continue: the rest of the body runs when it does not hold, p = 1 - "
        "p(condition), {}",
        tu_.line(is->getBeginLoc()), cond, source));
  else if (rest)
    st.comments.leading.push_back(fmt::format(
        "// line {}: if ({}) {{ ...; continue; }}: p {}, the rest of the body in 'else'",
        tu_.line(is->getBeginLoc()), cond, source));
  else
    st.comments.leading.push_back(
        fmt::format("// line {}: if ({}): p {}", tu_.line(is->getBeginLoc()), cond, source));
  for (const std::string &k : kept)
    st.comments.leading.push_back(k);
  emit(std::move(st));
  keepData(is, before, armData);
}

std::optional<Expr> KernelBuilder::dataOf(const Expr &e) const {
  if (e.kind != Expr::Kind::Name)
    return std::nullopt;
  auto it = dataLoad_.find(e.name);
  if (it == dataLoad_.end())
    return std::nullopt;
  return it->second;
}

bool KernelBuilder::visible(const Expr &e) const {
  if (e.kind == Expr::Kind::Name && declared_.count(e.name) && !inScope(e.name))
    return false;
  return std::all_of(e.args.begin(), e.args.end(), [&](const Expr &a) { return visible(a); });
}

void KernelBuilder::keepData(const clang::IfStmt *is,
                             const std::map<const clang::VarDecl *, Expr> &before,
                             const std::map<const clang::VarDecl *, Expr> &armData) {
  std::set<const clang::VarDecl *> assigned;
  assignedIn(is->getThen(), assigned, false);
  assignedIn(is->getElse(), assigned, false);
  for (const clang::VarDecl *v : assigned) {
    if (!v->getType()->isIntegralOrEnumerationType() || !indexFlow_.count(v))
      continue;
    // the binding it held before, else the one an arm gave it
    std::optional<Expr> ref;
    if (auto b = before.find(v); b != before.end() && dataOf(b->second))
      ref = b->second;
    else if (auto a = armData.find(v); a != armData.end())
      ref = a->second;
    if (!ref)
      continue;
    if (visible(*ref)) { // the same value the data decides: no new binding
      env_[v] = *ref;
      affEnv_.erase(v);
      dataBound_.insert(v);
    } else if (auto load = dataOf(*ref); load && visible(*load)) {
      bindData(v, *load,
               fmt::format("line {}: '{}' is decided by data on a side of this 'if'",
                           tu_.line(is->getBeginLoc()), v->getName().str()));
    }
  }
}

std::vector<std::string> KernelBuilder::sideValues(
    const clang::IfStmt *is, double p, bool continues,
    const std::map<const clang::VarDecl *, Expr> (&sideEnv)[2],
    const std::set<std::string> (&sideNames)[2]) {
  // an integer scalar set on both sides of an `if`/`else` (lavaMD's `if (k == 0)
  // pointer = l; else pointer = box[l].nei[k - 1].number;`) holds after it the
  // value of the side most iterations take, as a clamped index does
  // (KernelExprs.cpp, interiorArm): by the branch's probability, else the
  // `else` side of an `==` test (true on a border) or the `then` side of `!=`
  if (continues || !is->getElse())
    return {};
  int side = p < 0.5 ? 1 : p > 0.5 ? 0 : -1;
  if (side < 0)
    if (auto *c = llvm::dyn_cast<clang::BinaryOperator>(is->getCond()->IgnoreParenImpCasts()))
      side = c->getOpcode() == clang::BO_EQ ? 1 : c->getOpcode() == clang::BO_NE ? 0 : -1;
  if (side < 0)
    return {};
  std::set<const clang::VarDecl *> sets[2];
  assignedIn(is->getThen(), sets[0], false);
  assignedIn(is->getElse(), sets[1], false);
  std::function<bool(const Expr &)> visible = [&](const Expr &e) {
    if (e.kind == Expr::Kind::Name && sideNames[side].count(e.name))
      return false;
    return std::all_of(e.args.begin(), e.args.end(), visible);
  };
  std::vector<std::string> out;
  for (const clang::VarDecl *v : sets[0]) {
    if (!sets[1].count(v) || !v->getType()->isIntegralOrEnumerationType() || loopVal_.count(v))
      continue;
    auto t = sideEnv[0].find(v), e = sideEnv[1].find(v);
    if (t == sideEnv[0].end() || e == sideEnv[1].end())
      continue;
    const Expr &val = side == 0 ? t->second : e->second;
    if (!visible(val))
      continue;
    env_[v] = val;
    affEnv_.erase(v);
    out.push_back(fmt::format(
        "// line {}: '{}' is set on both sides: after the 'if' it holds the value of the {} "
        "side, which most iterations take; the other side is approximated",
        tu_.line(is->getBeginLoc()), v->getName().str(), side == 0 ? "'then'" : "'else'"));
  }
  return out;
}

bool KernelBuilder::storesIn(const std::vector<const clang::Stmt *> &ss, const std::string &arr) {
  std::function<bool(const clang::Stmt *)> walk = [&](const clang::Stmt *s) -> bool {
    if (!s)
      return false;
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s)) {
      auto it = byExpr_.find(a);
      if (it != byExpr_.end() && it->second->write &&
          plan_.shapes.at(it->second->base).name == arr)
        return true;
    }
    for (const clang::Stmt *c : s->children())
      if (walk(c))
        return true;
    return false;
  };
  for (const clang::Stmt *s : ss)
    if (walk(s))
      return true;
  return false;
}

skeleton::Kernel buildKernel(NestAnalysis &na, const std::string &name,
                             std::vector<Warning> &warnings) {
  KernelBuilder b(na, warnings);
  return b.build(name);
}

} // namespace skelcast::frontend
