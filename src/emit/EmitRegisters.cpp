// The elements of global arrays that the kernel keeps in registers
// (docs/emit.md): a task's own element across the streaming loop
// (planRegisters, RegElem), and one a loop accumulates into while it reads
// other elements of the same array (planLoopAccumulators, LoopAcc).
#include "Emitter.h"

#include <functional>
#include <optional>

namespace skelcast::emit::detail {

namespace {

/// The uses of one array in a statement: its full accesses (an element, not
/// a row) and whether it is used otherwise (a row, its address, the array
/// itself passed on).
struct ArrayUses : clang::RecursiveASTVisitor<ArrayUses> {
  explicit ArrayUses(const clang::VarDecl *v) : array(v) {}
  const clang::VarDecl *array;
  std::vector<const clang::ArraySubscriptExpr *> elements;
  int refs = 0;          ///< references to the array, each inside an element or not
  bool escapes = false;  ///< an element's address taken
  static const clang::VarDecl *base(const clang::ArraySubscriptExpr *a) {
    const clang::Expr *e = a;
    while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts()))
      e = x->getBase();
    auto *r = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
    return r ? llvm::dyn_cast<clang::VarDecl>(r->getDecl()) : nullptr;
  }
  bool VisitArraySubscriptExpr(clang::ArraySubscriptExpr *a) {
    if (!a->getType()->isArrayType() && base(a) == array)
      elements.push_back(a);
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    refs += e->getDecl() == array ? 1 : 0;
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (u->getOpcode() == clang::UO_AddrOf)
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
        escapes = escapes || base(a) == array;
    return true;
  }
};

} // namespace

/// The elements of global arrays a task accumulates into inside the streaming
/// loop (mm_acc's `tmp[i][j] += A[i][k] * B[k][j]`) become registers, one per
/// task, loaded before the loop and stored after it: the barriers of the
/// stages and the tasks' guards keep the compiler from doing it, and the
/// element would otherwise be loaded and stored in every iteration. Sound when
/// the element is the task's own and nothing else can touch it: every access
/// of the array in the body is that one element (the same subscripts, which
/// read only the parallel indices and values the nest does not write, and name
/// every folded index, so each of a thread's tasks has its own); the array is
/// not cached, passed to a call, reduced, nor is an element's address taken.
void Emitter::planRegisters() {
  if (foldLoops_ && tasks_ == Tasks::Loop)
    return; // a loop over the tasks indexes the slots at run time: local memory, not registers
  std::set<const clang::VarDecl *> parVars;
  for (const auto &h : par_)
    parVars.insert(h.var);
  std::set<const clang::VarDecl *> invariant(scalars_.begin(), scalars_.end());
  const clang::Stmt *stream = nest_.body[streamAt_];
  VarUses all;
  for (const clang::Stmt *st : nest_.body)
    all.TraverseStmt(const_cast<clang::Stmt *>(st));
  const std::set<const clang::VarDecl *> passed = passedToCalls(all);
  for (const clang::VarDecl *v : arrays_) {
    if (readOnly_.count(v) || tileOf_.count(v) || passed.count(v) ||
        nest_.ompReductions.count(v))
      continue;
    ArrayUses uses(v), inLoop(v);
    for (const clang::Stmt *st : nest_.body)
      uses.TraverseStmt(const_cast<clang::Stmt *>(st));
    inLoop.TraverseStmt(const_cast<clang::Stmt *>(stream));
    if (uses.elements.empty() || inLoop.elements.empty() || uses.escapes ||
        uses.refs != static_cast<int>(uses.elements.size()))
      continue;
    // the subscripts: the same in every access, of the parallel indices and
    // invariant values only
    std::vector<std::string> subs = subscriptTexts(uses.elements.front());
    bool same = true;
    for (const clang::ArraySubscriptExpr *a : uses.elements)
      same = same && subscriptTexts(a) == subs;
    if (!same)
      continue;
    VarUses su;
    const clang::Expr *e = uses.elements.front();
    bool memory = false;
    while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
      su.TraverseStmt(const_cast<clang::Expr *>(x->getIdx()));
      memory = memory || readsMemory(x->getIdx());
      e = x->getBase();
    }
    bool own = !memory && su.calls.empty();
    for (const clang::VarDecl *u : su.used)
      own = own && (parVars.count(u) || (invariant.count(u) && !all.written.count(u)));
    for (size_t d = 0; d < par_.size(); ++d)
      if (l_.fold[d] > 1)
        own = own && su.used.count(par_[d].var);
    if (!own)
      continue;
    RegElem r;
    r.array = v;
    r.access = uses.elements.front();
    r.reg = "sk_" + v->getName().str() + "_reg";
    // no load when the body's first statement touching the array, before the
    // streaming loop, stores the element from a value that does not read it
    for (size_t s = 0; s < streamAt_; ++s) {
      ArrayUses here(v);
      here.TraverseStmt(const_cast<clang::Stmt *>(nest_.body[s]));
      if (here.elements.empty())
        continue;
      auto *b = llvm::dyn_cast<clang::BinaryOperator>(nest_.body[s]);
      if (b && b->getOpcode() == clang::BO_Assign && here.elements.size() == 1 &&
          here.elements.front() == b->getLHS()->IgnoreParens())
        r.load = false;
      break;
    }
    regOf_[v] = regs_.size();
    regs_.push_back(r);
  }
}

/// An access's subscripts as plain C, innermost first.
std::vector<std::string> Emitter::subscriptTexts(const clang::ArraySubscriptExpr *a) {
  std::vector<std::string> subs;
  const clang::Expr *e = a;
  while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
    subs.push_back(printPlain(x->getIdx()));
    e = x->getBase();
  }
  return subs;
}

/// Whether the subscript `other`, in every iteration of the loop `h`, differs
/// from the loop-invariant value printed as `own`: `other` is the loop's index
/// and its header keeps it on one side of `own` (`k = i + 1; k < M; k++`, or
/// `k = 0; k < i; k++`).
bool Emitter::distinctInLoop(const frontend::LoopHeader &h, const clang::Expr *other,
                             const std::string &own) {
  auto *r = llvm::dyn_cast<clang::DeclRefExpr>(other->IgnoreParenImpCasts());
  if (!r || r->getDecl() != h.var || h.stepExpr || h.step == 0)
    return false;
  // `e` is `own + c` (sign +1) or `own - c` (sign -1) with the constant c >= 1
  auto offsetFrom = [&](const clang::Expr *e, int sign) {
    auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
    if (!b || b->getOpcode() != (sign > 0 ? clang::BO_Add : clang::BO_Sub))
      return false;
    auto *c = llvm::dyn_cast<clang::IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts());
    return c && c->getValue().getSExtValue() >= 1 && printPlain(b->getLHS()) == own;
  };
  bool boundIsOwn = h.bound && printPlain(h.bound) == own;
  if (!h.decreasing) // k rises from init while below the bound
    return (h.init && offsetFrom(h.init, +1)) || (boundIsOwn && !h.inclusive) ||
           (h.bound && offsetFrom(h.bound, -1));
  return (h.init && offsetFrom(h.init, -1)) || (boundIsOwn && !h.inclusive) ||
         (h.bound && offsetFrom(h.bound, +1));
}

/// The elements a loop of the task accumulates into while it reads other
/// elements of the same array (LoopAcc): sound when the element is the task's
/// own (its subscripts name every parallel index, read no memory, and nothing
/// in the loop writes them) and every other access of the array in the loop
/// differs from it in a subscript that the loop's header keeps apart
/// (distinctInLoop). The outermost such loop keeps it; folded layouts (their
/// tasks interleaved or looped over) and the staged loop are left as they are.
void Emitter::planLoopAccumulators() {
  if (foldLoops_)
    return;
  VarUses all;
  for (const clang::Stmt *st : nest_.body)
    all.TraverseStmt(const_cast<clang::Stmt *>(st));
  const std::set<const clang::VarDecl *> passed = passedToCalls(all);
  std::vector<std::pair<const clang::VarDecl *, std::vector<std::string>>> held; // by outer loops
  int count = 0;
  // `siblings`: the statements of the compound statement (or the nest's body)
  // that holds `s`, or empty when `s` is not directly in one
  std::function<void(const clang::Stmt *, const std::vector<const clang::Stmt *> &)> visit =
      [&](const clang::Stmt *s, const std::vector<const clang::Stmt *> &siblings) {
    if (!s)
      return;
    auto *f = llvm::dyn_cast<clang::ForStmt>(s);
    size_t heldBefore = held.size();
    std::string why;
    std::optional<frontend::LoopHeader> h;
    if (f && f != stagedFor_ && !filtered(f))
      h = frontend::parseLoopHeader(f, ctx_, why);
    if (h) {
      VarUses inLoop;
      inLoop.TraverseStmt(const_cast<clang::Stmt *>(f->getBody()));
      for (const clang::VarDecl *v : arrays_) {
        if (readOnly_.count(v) || tileOf_.count(v) || regOf_.count(v) || passed.count(v) ||
            nest_.ompReductions.count(v))
          continue;
        ArrayUses uses(v);
        uses.TraverseStmt(const_cast<clang::Stmt *>(f->getBody()));
        if (uses.elements.size() < 2 || uses.escapes ||
            uses.refs != static_cast<int>(uses.elements.size()))
          continue;
        // the accumulated element: the left side of an assignment
        const clang::ArraySubscriptExpr *acc = nullptr;
        std::function<void(const clang::Stmt *)> findWrite = [&](const clang::Stmt *x) {
          if (!x || acc)
            return;
          if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(x))
            if (b->isAssignmentOp())
              if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(b->getLHS()->IgnoreParens()))
                if (ArrayUses::base(a) == v && !a->getType()->isArrayType())
                  acc = a;
          for (const clang::Stmt *c : x->children())
            findWrite(c);
        };
        findWrite(f->getBody());
        if (!acc)
          continue;
        std::vector<std::string> subs = subscriptTexts(acc);
        bool already = false;
        for (const auto &[hv, hs] : held)
          already = already || (hv == v && hs == subs);
        if (already)
          continue;
        // the task's own element, the same in every iteration of the loop
        VarUses su;
        bool ok = true;
        const clang::Expr *e = acc;
        while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
          su.TraverseStmt(const_cast<clang::Expr *>(x->getIdx()));
          ok = ok && !readsMemory(x->getIdx());
          e = x->getBase();
        }
        // the header alone says which indices the loop visits: nothing in the
        // body may write its index
        ok = ok && !inLoop.written.count(h->var);
        for (const clang::VarDecl *u : su.used) {
          ok = ok && u != h->var && !inLoop.written.count(u) && !inLoop.declaredInside.count(u);
          // accesses are matched by their printed subscripts: no variable
          // declared in the loop may carry the name of one the element reads
          for (const clang::VarDecl *d : inLoop.declaredInside)
            ok = ok && d->getName() != u->getName();
        }
        for (const auto &p : par_)
          ok = ok && su.used.count(p.var);
        // every other access: the same element, or one the header keeps apart
        bool others = false;
        for (const clang::ArraySubscriptExpr *a : uses.elements) {
          if (!ok)
            break;
          std::vector<std::string> as = subscriptTexts(a);
          if (as == subs)
            continue;
          others = true;
          if (as.size() != subs.size()) {
            ok = false;
            break;
          }
          bool apart = false;
          const clang::Expr *ae = a;
          for (size_t d = 0; d < subs.size(); ++d) {
            auto *x = llvm::cast<clang::ArraySubscriptExpr>(ae->IgnoreParenImpCasts());
            apart = apart || distinctInLoop(*h, x->getIdx(), subs[d]);
            ae = x->getBase();
          }
          ok = apart;
        }
        // the C touches the element whether or not the loop runs: a statement
        // beside the loop, in the same block, reads or writes it outside any
        // condition (trmm's `B[i][j] = alpha * B[i][j];` after the k loop), so
        // the load before the loop and the store after it touch only memory the
        // C touches
        bool beside = false;
        for (const clang::Stmt *sib : siblings) // a name the block declares again: refuse
          if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(sib))
            for (const clang::Decl *d : ds->decls())
              if (auto *nd = llvm::dyn_cast<clang::NamedDecl>(d))
                for (const clang::VarDecl *u : su.used)
                  ok = ok && nd->getName() != u->getName();
        for (const clang::Stmt *sib : siblings) {
          if (sib == f || !llvm::isa<clang::Expr>(sib) || beside)
            continue;
          std::function<void(const clang::Stmt *)> find = [&](const clang::Stmt *x) {
            if (!x || beside)
              return;
            if (llvm::isa<clang::ConditionalOperator>(x) ||
                llvm::isa<clang::BinaryConditionalOperator>(x))
              return;
            if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(x))
              if (b->getOpcode() == clang::BO_LAnd || b->getOpcode() == clang::BO_LOr ||
                  b->getOpcode() == clang::BO_Comma)
                return;
            if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(x))
              if (!a->getType()->isArrayType() && ArrayUses::base(a) == v &&
                  subscriptTexts(a) == subs)
                beside = true;
            for (const clang::Stmt *c : x->children())
              find(c);
          };
          find(sib);
        }
        if (!ok || !others || !beside)
          continue;
        LoopAcc la;
        la.array = v;
        la.access = acc;
        la.subs = subs;
        la.reg = fmt::format("sk_{}_acc{}", v->getName().str(), count++);
        accOf_[f].push_back(la);
        held.emplace_back(v, subs);
      }
    }
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      std::vector<const clang::Stmt *> inside(cs->body_begin(), cs->body_end());
      for (const clang::Stmt *c : inside)
        visit(c, inside);
    } else {
      for (const clang::Stmt *c : s->children())
        visit(c, {});
    }
    held.resize(heldBefore);
  };
  for (const clang::Stmt *st : nest_.body)
    visit(st, nest_.body);
}

} // namespace skelcast::emit::detail
