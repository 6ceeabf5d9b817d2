// Inlining the calls of small functions that take pointers (InlineCalls.h
// says which, and why each condition is there).
#include "InlineCalls.h"
#include "ClangNodes.h"
#include "CostModel.h"
#include "NestScan.h"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace skelcast::frontend {

namespace {

bool isNumber(clang::QualType t) {
  t = t.getCanonicalType();
  return t->isArithmeticType() && !t->isAnyComplexType();
}

/// `float *p` (any qualifiers): a pointer to numbers.
bool isNumberPointer(clang::QualType t) {
  auto *pt = t.getCanonicalType()->getAs<clang::PointerType>();
  return pt && isNumber(pt->getPointeeType());
}

/// The element type a variable passed for a pointer parameter points to: a
/// pointer to numbers, or a one-dimensional array of numbers.
clang::QualType elementOf(const clang::VarDecl *v) {
  clang::QualType t = v->getType().getCanonicalType();
  if (auto *pt = t->getAs<clang::PointerType>())
    return pt->getPointeeType();
  if (auto *at = llvm::dyn_cast<clang::ArrayType>(t.getTypePtr()))
    if (isNumber(at->getElementType()))
      return at->getElementType();
  return {};
}

bool hasLoop(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s))
    return true;
  for (const clang::Stmt *c : s->children())
    if (hasLoop(c))
      return true;
  return false;
}

/// One call being inlined: what its parameters and locals become.
struct Frame {
  std::map<const clang::ParmVarDecl *, clang::VarDecl *> pointers; ///< the caller's variable
  std::map<const clang::VarDecl *, clang::VarDecl *> locals;       ///< scalar params and locals
};

class Inliner {
public:
  Inliner(TUContext &tu, clang::FunctionDecl *caller)
      : tu_(tu), ctx_(tu.ast), caller_(caller), facts_(scanFunction(caller)) {}

  /// Walks `s`; returns its replacement (or `s`). Statements of `for` bodies
  /// (inLoop) get their calls inlined.
  clang::Stmt *walk(clang::Stmt *s, bool inLoop) {
    if (!s)
      return s;
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      // the header stays as it is: its expressions run more than once or not at all
      if (clang::Stmt *b = f->getBody())
        if (clang::Stmt *nb = body(b); nb != b)
          f->setBody(nb);
      return s;
    }
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s); cs && inLoop) {
      std::vector<clang::Stmt *> list;
      bool changed = false;
      for (clang::Stmt *c : cs->body()) {
        clang::Stmt *w = walk(c, inLoop);
        changed |= w != c;
        changed |= expand(w, list);
      }
      if (!changed)
        return s;
      return clang::CompoundStmt::Create(ctx_, list, cs->getStoredFPFeaturesOrDefault(),
                                         cs->getLBracLoc(), cs->getRBracLoc());
    }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s); is && inLoop) {
      if (clang::Stmt *t = is->getThen())
        if (clang::Stmt *nt = body(t); nt != t)
          is->setThen(nt);
      if (clang::Stmt *e = is->getElse())
        if (clang::Stmt *ne = body(e); ne != e)
          is->setElse(ne);
      return s;
    }
    if (llvm::isa<clang::Expr>(s))
      return s; // expressions are handled by expand, statement by statement
    if (llvm::isa<clang::OMPLoopDirective>(s)) {
      // the programmer's word that the loop's iterations are independent: a
      // callee's loops inside it are each iteration's work, not kernels
      ++ompLoops_;
      for (clang::Stmt *&ch : s->children())
        if (ch)
          if (clang::Stmt *n = walk(ch, inLoop); n != ch)
            ch = n;
      --ompLoops_;
      return s;
    }
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      // an OpenMP region: its children are the captures, its statement apart
      // (walked as outside a loop: it cannot be replaced, the loops in it can)
      walk(cap->getCapturedStmt(), false);
      return s;
    }
    for (clang::Stmt *&ch : s->children())
      if (ch)
        if (clang::Stmt *n = walk(ch, inLoop); n != ch)
          ch = n;
    return s;
  }

private:
  /// A body of a loop or an arm of an `if`: walked, and when it is a single
  /// statement whose calls are inlined, made a block.
  clang::Stmt *body(clang::Stmt *s) {
    clang::Stmt *w = walk(s, true);
    if (llvm::isa<clang::CompoundStmt>(w))
      return w;
    std::vector<clang::Stmt *> list;
    if (!expand(w, list))
      return w;
    return clang::CompoundStmt::Create(ctx_, list, clang::FPOptionsOverride(), w->getBeginLoc(),
                                       w->getEndLoc());
  }

  /// Appends `s` to `out` after the bodies of the calls it makes that can be
  /// inlined; true when any was.
  bool expand(clang::Stmt *s, std::vector<clang::Stmt *> &out) {
    struct Restore {
      const clang::Stmt *&slot, *saved;
      ~Restore() { slot = saved; }
    } restore{stmt_, stmt_};
    stmt_ = s;
    std::vector<clang::Stmt *> pre;
    bool changed = false;
    if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
      if (auto *c = llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenImpCasts())) {
        // a call standing alone: when inlined, its body is the statement
        clang::Expr *x = c;
        bool whole = false;
        changed = hoist(x, pre, &whole);
        if (whole) {
          out.insert(out.end(), pre.begin(), pre.end());
          return true;
        }
      } else {
        clang::Expr *x = e;
        changed = hoist(x, pre);
        s = x;
      }
    } else if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      // declarators run in order: only the first one's calls can move before
      // the statement (`float a = t[0], b = f(t, i);` keeps f's call)
      for (clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d); v && d == *ds->decl_begin())
          if (clang::Expr *init = v->getInit()) {
            clang::Expr *x = init;
            if (hoist(x, pre)) {
              changed = true;
              v->setInit(x);
            }
          }
    } else if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      if (!is->getInit() && !is->getConditionVariable()) {
        clang::Expr *x = is->getCond();
        if (hoist(x, pre)) {
          changed = true;
          is->setCond(x);
        }
      }
    }
    out.insert(out.end(), pre.begin(), pre.end());
    out.push_back(s);
    return changed;
  }

  /// Inlines the calls `e` makes where C always evaluates them, innermost
  /// first, their bodies appended to `pre`; `e` is replaced by its new form.
  /// `whole`: e is a call that is a whole statement (its value dropped); set
  /// when that call was inlined.
  bool hoist(clang::Expr *&e, std::vector<clang::Stmt *> &pre, bool *whole = nullptr) {
    bool changed = false;
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e);
        b && (b->getOpcode() == clang::BO_LAnd || b->getOpcode() == clang::BO_LOr ||
              b->getOpcode() == clang::BO_Comma)) {
      clang::Expr *l = b->getLHS();
      if (hoist(l, pre)) {
        b->setLHS(l);
        changed = true;
      }
      // the right operand may not run (`&&`, `||`), or runs after the left
      // one (`,`): a call there cannot move before the statement
      return changed;
    }
    if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      clang::Expr *c = co->getCond();
      if (hoist(c, pre)) {
        // ConditionalOperator has no setter: its children are its slots
        for (clang::Stmt *&ch : co->children())
          if (ch == co->getCond()) {
            ch = c;
            break;
          }
        changed = true;
      }
      return changed; // one arm runs, not both
    }
    if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(e) || llvm::isa<clang::StmtExpr>(e))
      return false; // not evaluated, or statements of their own
    for (clang::Stmt *&ch : e->children()) {
      auto *ce = llvm::dyn_cast_or_null<clang::Expr>(ch);
      if (!ce)
        continue;
      clang::Expr *x = ce;
      if (hoist(x, pre)) {
        ch = x;
        changed = true;
      }
    }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(e)) {
      clang::Expr *value = nullptr;
      if (inlineCall(c, pre, whole != nullptr, value)) {
        if (whole)
          *whole = true;
        else
          e = value;
        return true;
      }
    }
    return changed;
  }

  /// The definition of a function whose calls can be inlined, else null.
  const clang::FunctionDecl *inlinable(const clang::CallExpr *c) {
    const clang::FunctionDecl *fd = c->getDirectCallee();
    if (!fd || mathCallCost(fd->getNameAsString()))
      return nullptr;
    const clang::FunctionDecl *def = nullptr;
    if (!fd->hasBody(def) || !def || llvm::isa<clang::CXXMethodDecl>(def) || def->isVariadic())
      return nullptr;
    if (!tu_.userCode(def->getLocation())) // (a body of an `#include`d "x.c" too)
      return nullptr;
    if (c->getNumArgs() != def->getNumParams())
      return nullptr;
    clang::QualType rt = def->getReturnType();
    if (!rt->isVoidType() && !isNumber(rt))
      return nullptr;
    bool pointers = false;
    for (const clang::ParmVarDecl *p : def->parameters()) {
      if (isNumberPointer(p->getType()))
        pointers = true;
      else if (!isNumber(p->getType()))
        return nullptr;
    }
    // functions without pointers are counted as they are (CalleeChecker)
    if (!pointers || busy_.count(def) || busy_.size() >= 8)
      return nullptr;
    auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody());
    if (!body)
      return nullptr;
    // one `return` at most, and that the last statement
    size_t n = body->size(), k = 0;
    for (const clang::Stmt *s : body->body()) {
      ++k;
      if (llvm::isa<clang::ReturnStmt>(s) && k != n)
        return nullptr;
    }
    if (!rt->isVoidType() && (n == 0 || !llvm::isa<clang::ReturnStmt>(body->body_back())))
      return nullptr;
    return def;
  }

  /// Inlines call `c`: its body appended to `pre`, and into `value` the
  /// expression that stands for its value (unless `alone`: the value is
  /// dropped). False, with `pre` unchanged, when the call is not inlined.
  bool inlineCall(clang::CallExpr *c, std::vector<clang::Stmt *> &pre, bool alone,
                  clang::Expr *&value) {
    const clang::FunctionDecl *def = inlinable(c);
    if (!def)
      return false;
    Frame fr;
    std::vector<clang::Stmt *> out;
    for (unsigned k = 0; k < def->getNumParams(); ++k) {
      const clang::ParmVarDecl *p = def->getParamDecl(k);
      clang::Expr *a = c->getArg(k);
      if (isNumberPointer(p->getType())) {
        // the caller's variable itself stands for the parameter: one that the
        // inlined body cannot change (not a global pointer, its address not taken)
        auto *v = const_cast<clang::VarDecl *>(refVar(a));
        clang::QualType el = v ? elementOf(v) : clang::QualType();
        if (!v || el.isNull() ||
            !ctx_.hasSameUnqualifiedType(
                el, p->getType().getCanonicalType()->getPointeeType()) ||
            (v->hasGlobalStorage() && !v->getType()->isArrayType()) ||
            facts_.addressTaken.count(v))
          return false;
        fr.pointers[p] = v;
        continue;
      }
      // an argument that changes a variable passed for a pointer would change
      // it before the body reads it (C reads the pointer once, at the call)
      if (a->HasSideEffects(ctx_))
        for (unsigned j = 0; j < c->getNumArgs(); ++j)
          if (const clang::VarDecl *pv = refVar(c->getArg(j)); pv && isNumberPointer(
                                                                   def->getParamDecl(j)->getType()))
            if (mentions(a, pv))
              return false;
      clang::VarDecl *v = fresh(def, p, a->getBeginLoc());
      v->setInit(a);
      fr.locals[p] = v;
      out.push_back(declStmt(v, a->getBeginLoc(), a->getEndLoc()));
    }
    // C does not order the call against the rest of its statement (only its
    // arguments come first): when that rest touches memory the callee may
    // write (an array passed for a pointer, a global), the order decides
    // values, and the call stays rather than being put first
    {
      std::set<const clang::VarDecl *> rest, touched;
      varsOutside(stmt_, c, rest);
      for (auto &[p, v] : fr.pointers)
        touched.insert(v);
      globalsOf(def, touched);
      for (const clang::VarDecl *v : touched)
        if (rest.count(v))
          return false;
    }
    frames_.push_back(&fr);
    busy_.insert(def);
    value = nullptr;
    auto *body = llvm::cast<clang::CompoundStmt>(def->getBody());
    std::vector<const clang::Stmt *> stmts(body->body_begin(), body->body_end());
    // early returns (`if (c) return a; ...; return b;`): the rest of the body
    // becomes the `else` of each, and every return assigns one local
    clang::VarDecl *ret = nullptr;
    bool early = std::any_of(stmts.begin(), stmts.end(),
                             [](const clang::Stmt *s) { return returnIf(s) != nullptr; });
    if (early && !alone && !c->getType()->isVoidType()) {
      ret = fresh(def, nullptr, c->getBeginLoc(), c->getType());
      out.push_back(declStmt(ret, c->getBeginLoc(), c->getEndLoc()));
      value = ref(ret, c->getBeginLoc());
    }
    bool ok = bodyFrom(def, c, stmts, 0, alone, ret, value, out);
    busy_.erase(def);
    frames_.pop_back();
    if (!ok || (!value && !alone))
      return false; // (a void call inside an expression, `(put(a, i), 0)`, stays)
    pre.insert(pre.end(), out.begin(), out.end());
    tu_.inlinedCalls.emplace_back(c->getBeginLoc(), def->getNameAsString());
    return true;
  }

  /// Appends the inlined statements `stmts[i...]` of callee `def` (called by
  /// `c`) to `out`; false when one cannot be copied. A `return e;` ends them:
  /// its value goes to `ret` when there is one, else into a new local that
  /// `value` reads (dropped when `alone`). `if (c) { S; return e; }` becomes
  /// `if (c) { S; ret = e; } else { the statements after it }`.
  bool bodyFrom(const clang::FunctionDecl *def, const clang::CallExpr *c,
                const std::vector<const clang::Stmt *> &stmts, size_t i, bool alone,
                clang::VarDecl *ret, clang::Expr *&value, std::vector<clang::Stmt *> &out) {
    auto copy = [&](const clang::Stmt *s, std::vector<clang::Stmt *> &dst) {
      clang::Stmt *cl = cloneStmt(s);
      if (!cl)
        return false;
      // the callee's own calls, and its `if` arms, as in any loop body
      expand(walk(cl, true), dst);
      return true;
    };
    auto finish = [&](const clang::ReturnStmt *r, std::vector<clang::Stmt *> &dst) {
      if (!r->getRetValue())
        return true;
      clang::Expr *rv = cloneExpr(r->getRetValue());
      if (!rv)
        return false;
      if (alone) {
        expand(rv, dst); // the value is dropped: its evaluation stays
      } else if (ret) {
        expand(assign(ret, rv, r->getBeginLoc()), dst);
      } else {
        clang::VarDecl *v = fresh(def, nullptr, r->getBeginLoc(), c->getType());
        v->setInit(rv);
        expand(declStmt(v, r->getBeginLoc(), r->getEndLoc()), dst);
        value = ref(v, c->getBeginLoc());
      }
      return true;
    };
    for (; i < stmts.size(); ++i) {
      if (auto *r = llvm::dyn_cast<clang::ReturnStmt>(stmts[i]))
        return finish(r, out);
      std::vector<const clang::Stmt *> before;
      if (auto *r = returnIf(stmts[i], &before)) {
        auto *is = llvm::cast<clang::IfStmt>(stmts[i]);
        clang::Expr *cond = cloneExpr(is->getCond());
        if (!cond)
          return false;
        std::vector<clang::Stmt *> thenL, elseL;
        for (const clang::Stmt *x : before)
          if (!copy(x, thenL))
            return false;
        if (!finish(r, thenL) || !bodyFrom(def, c, stmts, i + 1, alone, ret, value, elseL))
          return false;
        auto block = [&](std::vector<clang::Stmt *> &l) {
          return clang::CompoundStmt::Create(ctx_, l, clang::FPOptionsOverride(), is->getBeginLoc(),
                                             is->getEndLoc());
        };
        expand(clang::IfStmt::Create(ctx_, is->getIfLoc(), clang::IfStatementKind::Ordinary,
                                     nullptr, nullptr, cond, is->getLParenLoc(),
                                     is->getRParenLoc(), block(thenL), is->getEndLoc(),
                                     block(elseL)),
               out);
        return true;
      }
      if (!copy(stmts[i], out))
        return false;
    }
    return true;
  }

  /// The variables `s` mentions outside the subtree `skip`.
  static void varsOutside(const clang::Stmt *s, const clang::Stmt *skip,
                          std::set<const clang::VarDecl *> &out) {
    if (!s || s == skip)
      return;
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
        out.insert(v);
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d))
          varsOutside(v->getInit(), skip, out);
    for (const clang::Stmt *c : s->children())
      varsOutside(c, skip, out);
  }

  /// The global variables `fd` and the functions of the file it calls mention.
  void globalsOf(const clang::FunctionDecl *fd, std::set<const clang::VarDecl *> &out) {
    std::set<const clang::FunctionDecl *> seen;
    std::vector<const clang::Stmt *> work{fd->getBody()};
    seen.insert(fd);
    while (!work.empty()) {
      const clang::Stmt *s = work.back();
      work.pop_back();
      if (!s)
        continue;
      if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()); v && v->hasGlobalStorage())
          out.insert(v);
        const clang::FunctionDecl *def = nullptr;
        if (auto *f = llvm::dyn_cast<clang::FunctionDecl>(dr->getDecl());
            f && f->hasBody(def) && def && seen.insert(def).second)
          work.push_back(def->getBody());
      }
      for (const clang::Stmt *c : s->children())
        work.push_back(c);
    }
  }

  // -------------------------------------------------------------------------
  // new nodes

  /// A fresh local of the caller for parameter or local `orig` of `callee`
  /// (its name prefixed by the callee's, numbered when taken), of type `t`
  /// (`orig`'s when null); `orig` null: the callee's return value.
  clang::VarDecl *fresh(const clang::FunctionDecl *callee, const clang::VarDecl *orig,
                        clang::SourceLocation loc, clang::QualType t = {}) {
    std::string base = callee->getNameAsString() + "_" +
                       (orig ? orig->getNameAsString() : std::string("ret"));
    std::string name = base;
    for (int n = 2; !names_.insert(name).second; ++n)
      name = base + "_" + std::to_string(n);
    if (t.isNull())
      t = orig->getType();
    return clang::VarDecl::Create(ctx_, caller_, loc, loc, &ctx_.Idents.get(name), t,
                                  ctx_.getTrivialTypeSourceInfo(t, loc), clang::SC_None);
  }

  /// `v = e`, C's assignment (an rvalue).
  clang::Expr *assign(clang::VarDecl *v, clang::Expr *e, clang::SourceLocation loc) {
    auto *dr = clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                          clang::SourceLocation(), v, false, loc, v->getType(),
                                          clang::VK_LValue);
    return clang::BinaryOperator::Create(ctx_, dr, e, clang::BO_Assign, v->getType(),
                                         clang::VK_PRValue, clang::OK_Ordinary, loc,
                                         clang::FPOptionsOverride());
  }

  clang::DeclStmt *declStmt(clang::VarDecl *v, clang::SourceLocation b, clang::SourceLocation e) {
    return new (ctx_) clang::DeclStmt(clang::DeclGroupRef(v), b, e);
  }

  /// The value of variable `v`, as an rvalue.
  clang::Expr *ref(clang::VarDecl *v, clang::SourceLocation loc) {
    auto *dr = clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                          clang::SourceLocation(), v, false, loc, v->getType(),
                                          clang::VK_LValue);
    return clang::ImplicitCastExpr::Create(ctx_, v->getType().getUnqualifiedType(),
                                           clang::CK_LValueToRValue, dr, nullptr,
                                           clang::VK_PRValue, clang::FPOptionsOverride());
  }

  /// The caller's variable `v` as the base of a subscript: the pointer's
  /// value, or the array decayed to a pointer.
  clang::Expr *baseOf(clang::VarDecl *v, clang::SourceLocation loc) {
    auto *dr = clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                          clang::SourceLocation(), v, false, loc, v->getType(),
                                          clang::VK_LValue);
    bool array = v->getType()->isArrayType();
    return clang::ImplicitCastExpr::Create(
        ctx_, array ? ctx_.getDecayedType(v->getType()) : v->getType().getUnqualifiedType(),
        array ? clang::CK_ArrayToPointerDecay : clang::CK_LValueToRValue, dr, nullptr,
        clang::VK_PRValue, clang::FPOptionsOverride());
  }

  // -------------------------------------------------------------------------
  // copies of the callee's statements and expressions, null when a node is
  // of a kind not copied (then the call is not inlined)

  Frame &frame() { return *frames_.back(); }

  clang::Stmt *cloneStmt(const clang::Stmt *s) {
    if (auto *e = llvm::dyn_cast<clang::Expr>(s))
      return cloneExpr(e);
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
      std::vector<clang::Decl *> ds2;
      for (const clang::Decl *d : ds->decls()) {
        auto *v = llvm::dyn_cast<clang::VarDecl>(d);
        if (!v || !isNumber(v->getType()) || !v->hasLocalStorage() || v->isStaticLocal())
          return nullptr;
        auto *callee = llvm::dyn_cast<clang::FunctionDecl>(v->getDeclContext());
        clang::VarDecl *nv = fresh(callee ? callee : caller_, v, v->getLocation());
        if (const clang::Expr *init = v->getInit()) {
          clang::Expr *ni = cloneExpr(init);
          if (!ni)
            return nullptr;
          nv->setInit(ni);
        }
        frame().locals[v] = nv;
        ds2.push_back(nv);
      }
      if (ds2.empty())
        return nullptr;
      return new (ctx_) clang::DeclStmt(clang::DeclGroupRef::Create(ctx_, ds2.data(), ds2.size()),
                                        ds->getBeginLoc(), ds->getEndLoc());
    }
    if (auto *cs = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      std::vector<clang::Stmt *> list;
      for (const clang::Stmt *c : cs->body()) {
        clang::Stmt *n = cloneStmt(c);
        if (!n)
          return nullptr;
        list.push_back(n);
      }
      return clang::CompoundStmt::Create(ctx_, list, cs->getStoredFPFeaturesOrDefault(),
                                         cs->getLBracLoc(), cs->getRBracLoc());
    }
    if (auto *is = llvm::dyn_cast<clang::IfStmt>(s)) {
      if (is->getInit() || is->getConditionVariable() || is->isConstexpr() || is->isConsteval())
        return nullptr;
      clang::Expr *c = cloneExpr(is->getCond());
      clang::Stmt *t = is->getThen() ? cloneStmt(is->getThen()) : nullptr;
      clang::Stmt *e = is->getElse() ? cloneStmt(is->getElse()) : nullptr;
      if (!c || !t || (is->getElse() && !e))
        return nullptr;
      return clang::IfStmt::Create(ctx_, is->getIfLoc(), clang::IfStatementKind::Ordinary,
                                   nullptr, nullptr, c, is->getLParenLoc(), is->getRParenLoc(),
                                   t, is->getElseLoc(), e);
    }
    if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
      // a `for` loop of the callee (a row sum, a dot product): a loop of the
      // nest, inside an OpenMP loop only; elsewhere the callee may be a kernel
      // of its own called from a time-step loop, which stays a call
      if (f->getConditionVariable() || ompLoops_ == 0)
        return nullptr;
      clang::Stmt *init = f->getInit() ? cloneStmt(f->getInit()) : nullptr;
      clang::Expr *cond = f->getCond() ? cloneExpr(f->getCond()) : nullptr;
      clang::Expr *inc = f->getInc() ? cloneExpr(f->getInc()) : nullptr;
      clang::Stmt *body = f->getBody() ? cloneStmt(f->getBody()) : nullptr;
      if ((f->getInit() && !init) || (f->getCond() && !cond) || (f->getInc() && !inc) || !body)
        return nullptr;
      return new (ctx_) clang::ForStmt(ctx_, init, cond, nullptr, inc, body, f->getForLoc(),
                                       f->getLParenLoc(), f->getRParenLoc());
    }
    if (auto *k = llvm::dyn_cast<clang::ContinueStmt>(s))
      return new (ctx_) clang::ContinueStmt(k->getContinueLoc());
    if (auto *k = llvm::dyn_cast<clang::BreakStmt>(s)) // (of a loop: no `switch` is copied)
      return new (ctx_) clang::BreakStmt(k->getBreakLoc());
    if (auto *ns = llvm::dyn_cast<clang::NullStmt>(s))
      return new (ctx_) clang::NullStmt(ns->getSemiLoc());
    return nullptr; // other loops, returns other than bodyFrom's, goto, switch, ...
  }

  clang::Expr *cloneExpr(const clang::Expr *e) {
    if (!e)
      return nullptr;
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const clang::ValueDecl *d = dr->getDecl();
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(d)) {
        if (auto *p = llvm::dyn_cast<clang::ParmVarDecl>(v); p && frame().pointers.count(p))
          return nullptr; // a pointer parameter other than as `p[e]`
        auto it = frame().locals.find(v);
        if (it != frame().locals.end())
          d = it->second;
        else if (!v->hasGlobalStorage())
          return nullptr; // a local of another function (cannot happen), or unknown
      }
      auto *nv = const_cast<clang::ValueDecl *>(d);
      return clang::DeclRefExpr::Create(ctx_, clang::NestedNameSpecifierLoc(),
                                        clang::SourceLocation(), nv, false, dr->getLocation(),
                                        llvm::isa<clang::VarDecl>(nv) ? nv->getType() : dr->getType(),
                                        dr->getValueKind());
    }
    if (auto *il = llvm::dyn_cast<clang::IntegerLiteral>(e))
      return clang::IntegerLiteral::Create(ctx_, il->getValue(), il->getType(), il->getLocation());
    if (auto *fl = llvm::dyn_cast<clang::FloatingLiteral>(e))
      return clang::FloatingLiteral::Create(ctx_, fl->getValue(), fl->isExact(), fl->getType(),
                                            fl->getLocation());
    if (auto *cl = llvm::dyn_cast<clang::CharacterLiteral>(e))
      return new (ctx_) clang::CharacterLiteral(cl->getValue(), cl->getKind(), cl->getType(),
                                                cl->getLocation());
    if (auto *pe = llvm::dyn_cast<clang::ParenExpr>(e)) {
      clang::Expr *s = cloneExpr(pe->getSubExpr());
      return s ? new (ctx_) clang::ParenExpr(pe->getLParen(), pe->getRParen(), s) : nullptr;
    }
    if (auto *ce = llvm::dyn_cast<clang::ConstantExpr>(e)) {
      clang::Expr *s = cloneExpr(ce->getSubExpr());
      return s ? clang::ConstantExpr::Create(ctx_, s) : nullptr;
    }
    if (auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
      if (ic->path_size())
        return nullptr;
      // the value of a pointer parameter: the caller's variable's (the
      // parameter itself, an lvalue that could be assigned, is not copied)
      if (ic->getCastKind() == clang::CK_LValueToRValue)
        if (auto *p = llvm::dyn_cast_or_null<clang::ParmVarDecl>(refVar(ic->getSubExpr())))
          if (auto it = frame().pointers.find(p); it != frame().pointers.end())
            return baseOf(it->second, ic->getBeginLoc());
      clang::Expr *s = cloneExpr(ic->getSubExpr());
      return s ? clang::ImplicitCastExpr::Create(ctx_, ic->getType(), ic->getCastKind(), s,
                                                 nullptr, ic->getValueKind(),
                                                 ic->getStoredFPFeaturesOrDefault())
               : nullptr;
    }
    if (auto *cc = llvm::dyn_cast<clang::CStyleCastExpr>(e)) {
      if (cc->path_size())
        return nullptr;
      clang::Expr *s = cloneExpr(cc->getSubExpr());
      return s ? clang::CStyleCastExpr::Create(ctx_, cc->getType(), cc->getValueKind(),
                                               cc->getCastKind(), s, nullptr,
                                               cc->getStoredFPFeaturesOrDefault(),
                                               cc->getTypeInfoAsWritten(), cc->getLParenLoc(),
                                               cc->getRParenLoc())
               : nullptr;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      if (u->getOpcode() == clang::UO_AddrOf || u->getOpcode() == clang::UO_Deref)
        return nullptr;
      clang::Expr *s = cloneExpr(u->getSubExpr());
      return s ? clang::UnaryOperator::Create(ctx_, s, u->getOpcode(), u->getType(),
                                              u->getValueKind(), u->getObjectKind(),
                                              u->getOperatorLoc(), u->canOverflow(),
                                              u->getStoredFPFeaturesOrDefault())
               : nullptr;
    }
    if (auto *ca = llvm::dyn_cast<clang::CompoundAssignOperator>(e)) {
      clang::Expr *l = cloneExpr(ca->getLHS()), *r = cloneExpr(ca->getRHS());
      return l && r ? clang::CompoundAssignOperator::Create(
                          ctx_, l, r, ca->getOpcode(), ca->getType(), ca->getValueKind(),
                          ca->getObjectKind(), ca->getOperatorLoc(),
                          ca->getStoredFPFeaturesOrDefault(), ca->getComputationLHSType(),
                          ca->getComputationResultType())
                    : nullptr;
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      clang::Expr *l = cloneExpr(b->getLHS()), *r = cloneExpr(b->getRHS());
      return l && r ? clang::BinaryOperator::Create(ctx_, l, r, b->getOpcode(), b->getType(),
                                                    b->getValueKind(), b->getObjectKind(),
                                                    b->getOperatorLoc(),
                                                    b->getStoredFPFeaturesOrDefault())
                    : nullptr;
    }
    if (auto *co = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      clang::Expr *c = cloneExpr(co->getCond()), *t = cloneExpr(co->getTrueExpr()),
                  *f = cloneExpr(co->getFalseExpr());
      return c && t && f ? new (ctx_) clang::ConditionalOperator(
                               c, co->getQuestionLoc(), t, co->getColonLoc(), f, co->getType(),
                               co->getValueKind(), co->getObjectKind())
                         : nullptr;
    }
    if (auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      clang::Expr *nb = cloneExpr(as->getBase());
      clang::Expr *ni = cloneExpr(as->getIdx());
      if (!nb || !ni)
        return nullptr;
      bool baseLeft = as->getLHS() == as->getBase();
      return new (ctx_) clang::ArraySubscriptExpr(baseLeft ? nb : ni, baseLeft ? ni : nb,
                                                  as->getType(), as->getValueKind(),
                                                  as->getObjectKind(), as->getRBracketLoc());
    }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(e)) {
      if (!c->getDirectCallee() || llvm::isa<clang::CXXMemberCallExpr>(c) ||
          llvm::isa<clang::CXXOperatorCallExpr>(c))
        return nullptr;
      // a function of the file with loops, called by the callee: it takes the
      // sizes of its nests from its calls (CallValues.h), which the copy must
      // not change; outside an OpenMP loop the call is left whole
      const clang::FunctionDecl *def = nullptr;
      if (ompLoops_ == 0 && c->getDirectCallee()->hasBody(def) && def &&
          tu_.sm.isInMainFile(tu_.sm.getExpansionLoc(def->getLocation())) &&
          hasLoop(def->getBody()))
        return nullptr;
      clang::Expr *fn = cloneExpr(c->getCallee());
      if (!fn)
        return nullptr;
      std::vector<clang::Expr *> args;
      for (const clang::Expr *a : c->arguments()) {
        clang::Expr *na = cloneExpr(a);
        if (!na)
          return nullptr;
        args.push_back(na);
      }
      return clang::CallExpr::Create(ctx_, fn, args, c->getType(), c->getValueKind(),
                                     c->getRParenLoc(), c->getStoredFPFeaturesOrDefault());
    }
    if (auto *ut = llvm::dyn_cast<clang::UnaryExprOrTypeTraitExpr>(e)) {
      if (!ut->isArgumentType())
        return nullptr;
      return new (ctx_) clang::UnaryExprOrTypeTraitExpr(ut->getKind(), ut->getArgumentTypeInfo(),
                                                        ut->getType(), ut->getOperatorLoc(),
                                                        ut->getRParenLoc());
    }
    return nullptr;
  }

  TUContext &tu_;
  clang::ASTContext &ctx_;
  clang::FunctionDecl *caller_;
  FunctionFacts facts_; ///< the caller's variables whose address is taken
  std::vector<Frame *> frames_;
  std::set<const clang::FunctionDecl *> busy_;
  std::set<std::string> names_; ///< the fresh locals' names in this caller
  int ompLoops_ = 0;            ///< OpenMP loop directives around the statement walked
  const clang::Stmt *stmt_ = nullptr; ///< the statement whose calls are being inlined
};

} // namespace

void inlinePointerCalls(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns) {
  for (const clang::FunctionDecl *fd : fns) {
    auto *f = const_cast<clang::FunctionDecl *>(fd);
    if (!f->getBody())
      continue;
    Inliner in(tu, f);
    in.walk(f->getBody(), false);
  }
}

} // namespace skelcast::frontend
