// The emitter's plan of a kernel (docs/emit.md): analyse() checks the C nest
// against the layout and gathers its arrays, scalars, privates, reductions,
// calls and loops; then the type of the thread's coordinates, the tiles of the
// cached arrays, and how a folded layout's tasks are written (the register
// tile: planTile, promote).
#include "Emitter.h"

#include "skelcast/layout/Coalescing.h"

#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace skelcast::emit::detail {

namespace {

/// `continue` statements that leave the body of the nest's innermost
/// parallel loop (not those of a loop inside it).
bool continuesOuter(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ContinueStmt>(s))
    return true;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
      llvm::isa<clang::DoStmt>(s))
    return false;
  for (const clang::Stmt *c : s->children())
    if (continuesOuter(c))
      return true;
  return false;
}

/// A `break` that leaves `s`'s enclosing loop (not one of a loop or switch
/// inside it).
bool breaksOut(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::BreakStmt>(s))
    return true;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
      llvm::isa<clang::DoStmt>(s) || llvm::isa<clang::SwitchStmt>(s))
    return false;
  for (const clang::Stmt *c : s->children())
    if (breaksOut(c))
      return true;
  return false;
}

bool containsLoop(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) ||
      llvm::isa<clang::DoStmt>(s))
    return true;
  for (const clang::Stmt *c : s->children())
    if (containsLoop(c))
      return true;
  return false;
}

} // namespace

void Emitter::analyse() {
  const clang::ForStmt *outer = nest_.parallel.front();
  if (nest_.parallel.size() != ki_.dimSize.size())
    fail(outer->getBeginLoc(), "its loop space does not match the C loops");
  for (const clang::ForStmt *f : nest_.parallel) {
    std::string why;
    auto h = frontend::parseLoopHeader(f, ctx_, why);
    if (!h)
      fail(f->getBeginLoc(), "the parallel loop's header: " + why);
    if (h->stepExpr)
      fail(f->getBeginLoc(), "a parallel loop whose step is not a constant");
    par_.push_back(*h);
  }
  for (const clang::Stmt *s : nest_.body)
    if (continuesOuter(s))
      foldLoops_ = true; // `continue` then goes to the next task
  for (int64_t f : l_.fold)
    if (f > 1)
      foldLoops_ = true;

  // arrays: the skeleton's, each a pointer parameter named as in C
  for (size_t a = 0; a < ki_.arrays.size(); ++a) {
    auto it = nest_.arrays.find(ki_.arrays[a].name);
    if (it == nest_.arrays.end())
      fail(outer->getBeginLoc(),
           fmt::format("no C variable behind the skeleton's array '{}'", ki_.arrays[a].name));
    const clang::VarDecl *v = it->second;
    clang::QualType e = elemType(v);
    if (e.isNull() || !e->isArithmeticType())
      fail(v->getLocation(), fmt::format("array '{}' is not an array of numbers ({})",
                                         v->getName().str(), v->getType().getAsString(policy_)));
    arrays_.push_back(v);
    arrayIndex_.push_back(static_cast<int>(a));
  }
  std::set<const clang::VarDecl *> arraySet(arrays_.begin(), arrays_.end());

  VarUses uses;
  // what the kernel prints: from the root loop when the loop space was
  // interchanged inside it (each thread runs it) or a fission's group is
  // this kernel's, else from the outer parallel loop
  const clang::ForStmt *rootFor = frontend::asFor(nest_.root);
  traverseKept(uses, rootFor && (rootFor != outer || !nest_.only.empty()) ? rootFor : outer);
  for (const clang::Stmt *j : uses.jumps)
    fail(j->getBeginLoc(), "a 'return' or 'goto' inside the nest");
  std::set<const clang::VarDecl *> parVars;
  for (const auto &h : par_)
    parVars.insert(h.var);
  for (const clang::VarDecl *v : uses.order) {
    if (arraySet.count(v))
      continue;
    if (parVars.count(v)) {
      if (!uses.declaredInside.count(v))
        parVarsOutside_.push_back(v);
      continue;
    }
    if (uses.declaredInside.count(v))
      continue;
    clang::QualType t = v->getType();
    if (t->isArrayType() || t->isPointerType())
      fail(v->getLocation(), fmt::format("'{}' is a pointer or array that is not one of the "
                                         "kernel's arrays",
                                         v->getName().str()));
    if (uses.written.count(v)) {
      auto red = std::find_if(nest_.reductions.begin(), nest_.reductions.end(),
                              [&](const auto &r) { return r.first == v; });
      if (red != nest_.reductions.end()) {
        reds_.push_back({v, red->second, 0});
        continue;
      }
      if (nest_.ompReductions.count(v))
        fail(v->getLocation(), fmt::format("the reduction into '{}' (its operator has no GPU "
                                           "reduction that emit writes)",
                                           v->getName().str()));
      if (v->hasGlobalStorage())
        fail(v->getLocation(),
             fmt::format("the nest writes the global scalar '{}'", v->getName().str()));
      privates_.push_back(v);
      continue;
    }
    if (!t->isArithmeticType())
      fail(v->getLocation(), fmt::format("'{}' is not a number ({})", v->getName().str(),
                                         t.getAsString(policy_)));
    scalars_.push_back(v);
  }
  // calls: the C library's (declared for the device where the CUDA headers
  // are absent) and the file's own functions, emitted as __host__ __device__
  // helpers before their callers
  std::function<void(const std::vector<const clang::CallExpr *> &, int)> callees =
      [&](const std::vector<const clang::CallExpr *> &calls, int depth) {
        for (const clang::CallExpr *c : calls) {
          const clang::FunctionDecl *fd = c->getDirectCallee();
          if (!fd)
            fail(c->getBeginLoc(), "a call through a pointer");
          const clang::FunctionDecl *def = nullptr;
          if (fd->hasBody(def) && def) {
            if (std::find(helpers_.begin(), helpers_.end(), def) != helpers_.end())
              continue;
            if (depth > 8)
              fail(c->getBeginLoc(), fmt::format("calls nested too deep (or recursion) at '{}'",
                                                 fd->getName().str()));
            VarUses inner;
            inner.TraverseStmt(def->getBody());
            for (const clang::VarDecl *v : inner.order)
              if (v->hasGlobalStorage() && !v->isStaticLocal() &&
                  !(v->getType().isConstQualified() && v->getType()->isArithmeticType()))
                fail(c->getBeginLoc(), fmt::format("'{}' reads the global '{}', which the device "
                                                   "cannot see",
                                                   fd->getName().str(), v->getName().str()));
            callees(inner.calls, depth + 1);
            helpers_.push_back(def); // after its own callees
            continue;
          }
          if (!ctx_.getSourceManager().isInSystemHeader(
                  ctx_.getSourceManager().getExpansionLoc(fd->getLocation())))
            fail(c->getBeginLoc(), fmt::format("a call of '{}', a function with no body in this "
                                               "file nor the C library",
                                               fd->getName().str()));
          calls_.push_back(c);
        }
      };
  callees(uses.calls, 0);

  // the C loops of the skeleton's sequential loops, by index name: `k`, or
  // `n#1`, `n#2` where several loops share one (docs/model.md, section 2)
  std::vector<const clang::ForStmt *> cloops;
  std::function<void(const clang::Stmt *)> walk = [&](const clang::Stmt *s) {
    if (!s)
      return;
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s))
      cloops.push_back(f);
    for (const clang::Stmt *c : s->children())
      walk(c);
  };
  for (const clang::Stmt *s : nest_.body)
    walk(s);
  std::map<std::string, std::vector<const clang::ForStmt *>> byName;
  for (const clang::ForStmt *f : cloops) {
    std::string why;
    auto h = frontend::parseLoopHeader(f, ctx_, why);
    if (h)
      byName[h->var->getName().str()].push_back(f);
  }
  std::map<std::string, int> seen;
  for (size_t k = 0; k < ki_.loops.size(); ++k) {
    const std::string &name = ki_.loops[k].index;
    int nth = seen[name]++;
    auto it = byName.find(name);
    if (it != byName.end() && nth < static_cast<int>(it->second.size()))
      loopByIndex_[static_cast<int>(k)] = it->second[nth];
  }
  auto cLoop = [&](int k, const std::string &part) {
    auto it = loopByIndex_.find(k);
    if (it == loopByIndex_.end())
      failLayout(part, fmt::format("no C loop of index '{}' in the nest", ki_.loops[k].index));
    return it->second;
  };
  for (const auto &[k, factor] : l_.unroll)
    unroll_[cLoop(k, "unroll")] = factor;
  if (l_.stages.size() > 1)
    failLayout("stage", "more than one staged loop");
  if (!l_.stages.empty()) {
    stagedLoop_ = l_.stages.front().first;
    stageSize_ = l_.stages.front().second;
    stagedFor_ = cLoop(stagedLoop_, "stage");
    if (std::find(nest_.body.begin(), nest_.body.end(), stagedFor_) == nest_.body.end())
      failLayout("stage", fmt::format("loop '{}' is not a statement of the nest's body itself "
                                      "(inside another loop or a branch)",
                                      ki_.loops[stagedLoop_].index));
    for (const clang::Stmt *st : nest_.body)
      if (continuesOuter(st))
        failLayout("stage", "a 'continue' of the parallel loop would skip the stage's barriers");
    std::string why;
    auto h = frontend::parseLoopHeader(stagedFor_, ctx_, why);
    if (!h || h->decreasing || h->stepExpr || !ki_.loops[stagedLoop_].constTrip)
      failLayout("stage", fmt::format("loop '{}' must count up by a constant step over a "
                                      "constant trip count",
                                      ki_.loops[stagedLoop_].index));
  }
  barriers_ = !l_.cached.empty() || !reds_.empty();
  planIndexType(); // before the tiles, whose bases it types
  planTiles();
  for (Red &r : reds_) { // after the tiles, each T x threads, 16-byte aligned
    r.offset = smemBytes_;
    smemBytes_ += (static_cast<int64_t>(ctx_.getTypeSize(r.var->getType()) / 8) *
                       l_.threadsPerBlock() + 15) / 16 * 16;
  }
  // arrays the nest only reads are passed `const T *__restrict__`: every
  // array is its own allocation, so the compiler may keep one load of an
  // element for all the tasks that read it (the register tile's reuse)
  // passed to a call: its parameter's type stays
  const std::set<const clang::VarDecl *> passed = passedToCalls(uses);
  for (size_t a = 0; a < arrays_.size(); ++a) {
    bool stored = false;
    for (const auto &x : ki_.accesses)
      stored = stored || (x.array == arrayIndex_[a] && x.isStore);
    if (!stored && !passed.count(arrays_[a]) && !uses.written.count(arrays_[a]))
      readOnly_.insert(arrays_[a]);
  }
  if (stagedFor_) {
    streamAt_ = static_cast<size_t>(
        std::find(nest_.body.begin(), nest_.body.end(), stagedFor_) - nest_.body.begin());
    std::string why;
    chainVars_ = {frontend::parseLoopHeader(stagedFor_, ctx_, why)->var};
  }
  planTile();
  if (!reds_.empty() && stagedFor_)
    failLayout("stage", fmt::format("a staged loop with the reduction into '{}' (emit writes "
                                    "reductions for layouts without staging)",
                                    reds_.front().var->getName().str()));
  if (!reds_.empty() && tasks_ == Tasks::Tile)
    failLayout("fold", fmt::format("a register tile with the reduction into '{}' (emit writes "
                                   "reductions for a loop over the folded tasks)",
                                   reds_.front().var->getName().str()));
}

/// `int` for the thread's task, trip and tile coordinates where each value
/// they can take fits in 32 bits, as a hand-written port has them: 64-bit
/// index arithmetic doubles the instructions of a stencil's addresses and
/// compares (the naive 7-point stencil of examples/stencil3d.c: 104 SASS
/// instructions of compiled code with `long long`, 56 with `int`, padding
/// included; docs/emit.md), and its division is a call. It fits where every parallel index is a signed C type of at
/// most 32 bits with a constant first value, each index value a thread
/// computes (its padding tasks' included: first + (trips + 2 tiles) x step)
/// and each dimension's trip arithmetic stay below 2^30, and every cached
/// array holds fewer than 2^30 elements (a tile element's flat offset; a
/// tile's bases lie within a tile of the array).
void Emitter::planIndexType() {
  constexpr int64_t kLimit = int64_t{1} << 30;
  for (size_t d = 0; d < par_.size(); ++d) {
    const frontend::LoopHeader &h = par_[d];
    clang::QualType t = h.var->getType();
    clang::Expr::EvalResult first;
    if (!t->isSignedIntegerType() || ctx_.getTypeSize(t) > 32 || ki_.dimSize[d] < 0 ||
        !h.init->EvaluateAsInt(first, ctx_))
      return;
    int64_t lo = first.Val.getInt().getExtValue(), step = std::abs(h.step);
    int64_t span = ki_.dimSize[d] + 2 * l_.block[d] * l_.fold[d];
    if (std::abs(lo) >= kLimit || span >= kLimit || step >= kLimit ||
        std::abs(lo) + (span + 1) * step >= kLimit)
      return;
  }
  for (int array : l_.cached) {
    int64_t n = 1;
    for (int64_t e : ki_.arrays[static_cast<size_t>(array)].extents)
      if (e <= 0 || (n *= e) >= kLimit)
        return;
  }
  idx_ = "int";
}

/// The tiles of the cached arrays (GROPHECY's cached data): the bounding box
/// of the block's footprint, over one stage of the staged loop for the arrays
/// it reads, over the whole nest otherwise (docs/model.md, section 2, cache).
void Emitter::planTiles() {
  for (int a : l_.cached) {
    Tile t;
    t.array = a;
    const layout::ArrayInfo &ai = ki_.arrays[a];
    auto pos = std::find(arrayIndex_.begin(), arrayIndex_.end(), a);
    const clang::VarDecl *v = arrays_[pos - arrayIndex_.begin()];
    t.name = v->getName().str();
    t.elem = elemName(v);
    t.elemBytes = static_cast<int64_t>(ctx_.getTypeSizeInChars(elemType(v)).getQuantity());
    std::string part = "cache=" + ai.name;
    std::vector<const layout::AccessInfo *> acc;
    for (const auto &x : ki_.accesses)
      if (x.array == a) {
        if (x.isStore)
          failLayout(part, "the array is written");
        acc.push_back(&x);
      }
    if (acc.empty())
      continue;
    if (stagedLoop_ >= 0) {
      bool in = std::find(acc.front()->loops.begin(), acc.front()->loops.end(), stagedLoop_) !=
                acc.front()->loops.end();
      for (const auto *x : acc) {
        bool xin = std::find(x->loops.begin(), x->loops.end(), stagedLoop_) != x->loops.end();
        if (xin != in)
          failLayout(part, fmt::format("the array is read both inside and outside the staged "
                                       "loop '{}'",
                                       ki_.loops[stagedLoop_].index));
      }
      if (in)
        t.staged = stagedLoop_;
    }
    // The tile's box is the model's (layout::sharedTile); emit writes its
    // base as code, from the block's (and the stage's) first index values.
    layout::SharedTile box = layout::sharedTile(ki_, acc, l_, t.staged, /*constantTrips=*/true);
    if (!box.refusal.empty())
      failLayout(part, box.refusal);
    size_t rank = box.extent.size();
    t.base.resize(rank);
    t.baseMin.resize(rank);
    t.baseMax.resize(rank);
    t.extent = box.extent;
    size_t ndim = ki_.dimSize.size();
    for (size_t e = 0; e < rank; ++e) {
      std::string base = fmt::format("{}", box.lo[e]);
      int64_t baseMin = box.lo[e], baseMax = box.lo[e];
      for (const layout::TileVar &tv : box.vars[e]) {
        const layout::Var &var = ki_.vars[static_cast<size_t>(tv.var)];
        int64_t c = tv.coef, count = tv.count, span = tv.span, tiles;
        std::string first; // the variable's first value in the tile or stage
        if (var.dim >= 0) {
          tiles = (ki_.dimSize[var.dim] + count - 1) / count;
          size_t axis = ndim - 1 - static_cast<size_t>(var.dim);
          first = fmt::format("({} + ({})blockIdx.{} * {} * {})", var.lo, idx_, kAxis[axis],
                              count, var.step);
        } else {
          tiles = (static_cast<int64_t>(var.trip) + count - 1) / count;
          first = "sk_" + var.name + "0";
        }
        int64_t shift = c * var.step > 0 ? 0 : span;
        if (c * var.step > 0)
          base += fmt::format(" + {} * {}", c, first);
        else
          base += fmt::format(" + {} * ({} + {})", c, first, span);
        // the first tile's and the last one's base
        int64_t v0 = c * (var.lo + shift), v1 = c * (var.lo + (tiles - 1) * count * var.step + shift);
        baseMin += std::min(v0, v1);
        baseMax += std::max(v0, v1);
      }
      t.base[e] = base;
      t.baseMin[e] = baseMin;
      t.baseMax[e] = baseMax;
    }
    t.decl = v;
    t.offset = smemBytes_;
    smemBytes_ += (t.elements() * t.elemBytes + 15) / 16 * 16;
    tileOf_[v] = tiles_.size();
    tiles_.push_back(std::move(t));
  }
}

/// Whether a folded layout's tasks can be written as a register tile
/// (docs/emit.md, "Folding"): the body is "statements before; one streaming
/// loop (and the perfect chain of loops inside it); statements after", the
/// loops' headers are the same for every task (no parallel index, no value a
/// task writes), and nothing but those headers writes the loops' indices.
/// Tasks are independent iterations of parallel loops, so running them inside
/// the innermost loop is legal once every value they keep across it is their
/// own (promote()). Otherwise the tasks stay a loop, and tileWhy_ says why.
void Emitter::planTile() {
  bool folded = false;
  for (int64_t f : l_.fold)
    folded = folded || f > 1;
  if (!folded)
    return;
  bool anyLoop = false;
  std::vector<size_t> fors;
  for (size_t s = 0; s < nest_.body.size(); ++s) {
    anyLoop = anyLoop || containsLoop(nest_.body[s]);
    if (llvm::isa<clang::ForStmt>(nest_.body[s]))
      fors.push_back(s);
  }
  if (!anyLoop && !stagedFor_) {
    tasks_ = Tasks::Unrolled; // nothing to interleave: the tasks, unrolled
    return;
  }
  auto fallback = [&](const std::string &why) {
    tasks_ = Tasks::Loop;
    tileWhy_ = why;
    chain_.clear();
  };
  for (const clang::Stmt *st : nest_.body)
    if (continuesOuter(st))
      return fallback("a 'continue' of the parallel loop skips to the thread's next task");
  if (stagedFor_) {
    streamAt_ = static_cast<size_t>(
        std::find(nest_.body.begin(), nest_.body.end(), stagedFor_) - nest_.body.begin());
  } else if (fors.empty()) {
    return fallback("no loop at the top of the nest's body for the tasks to run inside");
  } else if (fors.size() > 1) {
    return fallback("several loops side by side at the top of the nest's body");
  } else {
    streamAt_ = fors.front();
  }
  // the values of a task: parallel indices, the body's locals, the privates
  std::set<const clang::VarDecl *> taskVars(privates_.begin(), privates_.end());
  for (const auto &h : par_)
    taskVars.insert(h.var);
  for (const clang::Stmt *st : nest_.body)
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d)) {
          if (v->getType()->isArrayType())
            return fallback(fmt::format("the local array '{}' would need a copy per task",
                                        v->getName().str()));
          taskVars.insert(v);
        }
  // a loop of the chain: its header reads no task's value nor memory; the
  // variables it writes are the chain's own. Without a stage, a header may
  // read the parallel indices that are not folded (the same for all of a
  // thread's tasks) and the arrays the nest never writes (CSR's
  // `for (n = J[j]; n < J[j + 1]; n++)`): the chain then runs where those
  // indices are in range (sharedDims_)
  std::set<const clang::VarDecl *> shared;
  if (!stagedFor_)
    for (size_t d = 0; d < par_.size(); ++d)
      if (l_.fold[d] == 1)
        shared.insert(par_[d].var);
  std::set<size_t> sharedUsed;
  auto constMemory = [&](const clang::Stmt *p) {
    VarUses pu;
    pu.TraverseStmt(const_cast<clang::Stmt *>(p));
    for (const clang::VarDecl *v : pu.used)
      if ((v->getType()->isArrayType() || v->getType()->isPointerType()) && !readOnly_.count(v))
        return false;
    std::function<bool(const clang::Stmt *)> deref = [&](const clang::Stmt *x) {
      if (!x)
        return false;
      if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(x))
        if (u->getOpcode() == clang::UO_Deref)
          return true;
      for (const clang::Stmt *c : x->children())
        if (deref(c))
          return true;
      return false;
    };
    return !deref(p);
  };
  // locals before the streaming loop that are the same for all of a thread's
  // tasks (IspinEx's `int begin = J[j];`): initialised from unfolded indices,
  // read-only scalars, arrays the nest never writes and earlier such locals,
  // never written, and read only in the streaming loop and such initialisers;
  // computed once per thread where the loop's header needs them
  std::map<const clang::VarDecl *, std::pair<const clang::DeclStmt *, std::set<size_t>>> sameLocal;
  if (!shared.empty()) {
    VarUses writes;
    for (const clang::Stmt *st : nest_.body)
      writes.TraverseStmt(const_cast<clang::Stmt *>(st));
    VarUses elsewhere; // the uses outside the streaming loop and the locals' initialisers
    for (size_t k = 0; k < nest_.body.size(); ++k)
      if (k > streamAt_ || (k < streamAt_ && !llvm::isa<clang::DeclStmt>(nest_.body[k])))
        elsewhere.TraverseStmt(const_cast<clang::Stmt *>(nest_.body[k]));
    std::set<const clang::VarDecl *> scalars(scalars_.begin(), scalars_.end());
    for (size_t k = 0; k < streamAt_; ++k) {
      auto *ds = llvm::dyn_cast<clang::DeclStmt>(nest_.body[k]);
      if (!ds)
        continue;
      for (const clang::Decl *d : ds->decls()) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(d);
        if (!v || !v->getInit() || !ds->isSingleDecl() || writes.written.count(v) ||
            elsewhere.used.count(v) || !constMemory(v->getInit()))
          continue;
        VarUses iu;
        iu.TraverseStmt(const_cast<clang::Expr *>(v->getInit()));
        bool ok = iu.calls.empty();
        std::set<size_t> dims;
        for (const clang::VarDecl *u : iu.used) {
          if (shared.count(u)) {
            for (size_t e = 0; e < par_.size(); ++e)
              if (par_[e].var == u)
                dims.insert(e);
          } else if (auto it = sameLocal.find(u); it != sameLocal.end()) {
            dims.insert(it->second.second.begin(), it->second.second.end());
          } else if (!(scalars.count(u) && !writes.written.count(u)) && !readOnly_.count(u)) {
            ok = false;
          }
        }
        if (ok)
          sameLocal[v] = {ds, dims};
      }
    }
  }
  std::set<const clang::VarDecl *> sameUsed;
  auto sameForAll = [&](const clang::ForStmt *f, std::set<const clang::VarDecl *> &own) {
    if (!f->getInit())
      return false;
    VarUses hu;
    for (const clang::Stmt *p : {f->getInit(), static_cast<const clang::Stmt *>(f->getCond()),
                                 static_cast<const clang::Stmt *>(f->getInc())})
      if (p) {
        if (p != f->getInit() && readsMemory(p) && (shared.empty() || !constMemory(p)))
          return false;
        hu.TraverseStmt(const_cast<clang::Stmt *>(p));
      }
    if (!hu.calls.empty())
      return false;
    std::set<const clang::VarDecl *> mine = hu.written;
    mine.insert(hu.declaredInside.begin(), hu.declaredInside.end());
    std::set<size_t> uses;
    std::set<const clang::VarDecl *> locals;
    for (const clang::VarDecl *v : hu.used)
      if (taskVars.count(v) && !mine.count(v) && !own.count(v)) {
        if (auto it = sameLocal.find(v); it != sameLocal.end()) {
          locals.insert(v);
          uses.insert(it->second.second.begin(), it->second.second.end());
          continue;
        }
        if (!shared.count(v))
          return false;
        for (size_t d = 0; d < par_.size(); ++d)
          if (par_[d].var == v)
            uses.insert(d);
      }
    sameUsed.insert(locals.begin(), locals.end());
    own.insert(mine.begin(), mine.end());
    sharedUsed.insert(uses.begin(), uses.end());
    return true;
  };
  std::set<const clang::VarDecl *> own;
  const auto *stream = llvm::cast<clang::ForStmt>(nest_.body[streamAt_]);
  if (stagedFor_) {
    std::string why;
    own.insert(frontend::parseLoopHeader(stagedFor_, ctx_, why)->var);
  } else if (!sameForAll(stream, own)) {
    return fallback("the bounds of the streaming loop differ from task to task (or read memory)");
  }
  chain_ = {stream};
  for (;;) {
    auto bs = bodyOf(chain_.back());
    const clang::Stmt *b = bs.size() == 1 ? bs.front() : nullptr;
    if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b))
      b = cs->size() == 1 ? cs->body_front() : nullptr;
    auto *next = llvm::dyn_cast_or_null<clang::ForStmt>(b);
    if (next && std::find(nest_.inPlace.begin(), nest_.inPlace.end(), next) != nest_.inPlace.end())
      next = nullptr; // a loop-space loop: the thread's own iteration
    std::set<const clang::VarDecl *> with = own;
    if (!next || !sameForAll(next, with))
      break;
    own = with;
    chain_.push_back(next);
  }
  if (breaksOut(chain_.back()->getBody()))
    return fallback("a 'break' leaves the streaming loop");
  // nothing else writes the chain's indices
  VarUses rest;
  for (size_t s = 0; s < nest_.body.size(); ++s)
    if (s != streamAt_)
      rest.TraverseStmt(const_cast<clang::Stmt *>(nest_.body[s]));
  for (const clang::Stmt *b : bodyOf(chain_.back()))
    rest.TraverseStmt(const_cast<clang::Stmt *>(b));
  for (const clang::VarDecl *v : own) {
    if (rest.written.count(v))
      return fallback(fmt::format("'{}', an index of the streaming loop, is written in the body",
                                  v->getName().str()));
    if (rest.declaredInside.count(v))
      return fallback(fmt::format("'{}', an index of the streaming loop, is declared in the body",
                                  v->getName().str()));
  }
  chainVars_ = own;
  // the locals the headers read, with those their initialisers read, in order
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &[v, info] : sameLocal)
      if (sameUsed.count(v)) {
        VarUses iu;
        iu.TraverseStmt(const_cast<clang::Expr *>(v->getInit()));
        for (const clang::VarDecl *u : iu.used)
          if (sameLocal.count(u) && sameUsed.insert(u).second)
            grew = true;
      }
  }
  for (size_t k = 0; k < streamAt_; ++k)
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(nest_.body[k]))
      if (ds->isSingleDecl())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(ds->getSingleDecl()); v && sameUsed.count(v)) {
          sharedLocals_.push_back(ds);
          sharedLocalVars_.insert(v);
        }
  // a declaration left to the tasks may not read one computed once per thread
  for (size_t k = 0; k < streamAt_; ++k) {
    auto *ds = llvm::dyn_cast<clang::DeclStmt>(nest_.body[k]);
    if (!ds || std::find(sharedLocals_.begin(), sharedLocals_.end(), ds) != sharedLocals_.end())
      continue;
    VarUses lu;
    lu.TraverseStmt(const_cast<clang::DeclStmt *>(ds));
    for (const clang::VarDecl *v : sharedLocalVars_)
      if (lu.used.count(v)) {
        sharedLocals_.clear();
        sharedLocalVars_.clear();
        return fallback("the bounds of the streaming loop differ from task to task (or read "
                        "memory)");
      }
  }
  sharedDims_.assign(sharedUsed.begin(), sharedUsed.end());
  tasks_ = Tasks::Tile;
}

/// The values a task keeps from one phase to the next (locals declared in
/// the body, privates other than the streaming indices) become arrays indexed
/// by the task (sk_fl); with the tasks unrolled they are registers.
void Emitter::promote() {
  auto add = [&](const clang::VarDecl *v) {
    if (promoted_.insert(v).second)
      promotedOrder_.push_back(v);
  };
  for (const clang::Stmt *st : nest_.body)
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d)) {
          if (chainVars_.count(v) || sharedLocalVars_.count(v))
            continue;
          if (v->getType()->isArrayType())
            failLayout("stage", fmt::format("the local array '{}' beside the staged loop, with "
                                            "folding",
                                            v->getName().str()));
          add(v);
        }
  for (const clang::VarDecl *v : privates_)
    if (!chainVars_.count(v))
      add(v);
}

} // namespace skelcast::emit::detail
