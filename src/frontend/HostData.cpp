// Buffer classes by union-find over pointer assignments; the owner of a class
// is the host as soon as one member is (a parameter, a global, or a value we
// cannot trace), so that a wrong guess costs a transfer, never drops one.
#include "HostData.h"

#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <functional>
#include <set>

namespace skelcast::frontend {
namespace {

/// Unlike refVar (ClangNodes.h), through explicit casts too: `(float *)p` is
/// still buffer p when pointers are traced.
const clang::VarDecl *varOf(const clang::Expr *e) {
  if (!e)
    return nullptr;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenCasts()))
    return llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  return nullptr;
}

bool isBuffer(const clang::VarDecl *v) {
  clang::QualType t = v->getType();
  return t->isPointerType() || t->isArrayType();
}

/// The array under any number of subscripts: `a` of `a[i][j]` (of `a[i][j]` itself too).
const clang::Expr *subscriptRoot(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  while (auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
    e = as->getBase()->IgnoreParenImpCasts();
  return e;
}

/// `q + k`, `k + q`, `q - k`, `&q[k]`: the buffer q the pointer points into.
const clang::VarDecl *pointedInto(const clang::Expr *s) {
  s = s->IgnoreParenCasts();
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAdditiveOp()) {
    const clang::Expr *p = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
    if (const clang::VarDecl *v = varOf(p))
      return v;
    return pointedInto(p);
  }
  if (auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(s);
      as && (as->getType()->isArrayType() || as->getType()->isPointerType())) {
    return varOf(subscriptRoot(as)); // a row `a[i]` of a 2-D array: into a
  }
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
    return varOf(subscriptRoot(u->getSubExpr()));
  return nullptr;
}

class Collector : public clang::RecursiveASTVisitor<Collector> {
public:
  bool VisitVarDecl(clang::VarDecl *v) {
    if (!isBuffer(v) || v->hasGlobalStorage())
      return true;
    vars.insert(v);
    if (v->getInit() && v->getType()->isPointerType())
      source(v, v->getInit());
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (b->getOpcode() == clang::BO_Assign)
      if (auto *v = varOf(b->getLHS()); v && v->getType()->isPointerType())
        source(v, b->getRHS());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *c) {
    const clang::FunctionDecl *fd = c->getDirectCallee();
    if (fd && fd->getName() == "free" && c->getNumArgs() == 1)
      if (auto *v = varOf(c->getArg(0)))
        freed.insert(v);
    return true;
  }

  std::set<const clang::VarDecl *> vars, freed, allocated, untraced;
  std::vector<std::pair<const clang::VarDecl *, const clang::VarDecl *>> links, derived;

private:
  void source(const clang::VarDecl *to, const clang::Expr *e) {
    const clang::Expr *s = e->IgnoreParenCasts();
    if (auto *from = varOf(s)) {
      links.push_back({to, from});
      return;
    }
    if (s->isNullPointerConstant(to->getASTContext(), clang::Expr::NPC_ValueDependentIsNotNull))
      return; // `float *tmp = NULL`: no buffer yet
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(s))
      if (const clang::FunctionDecl *fd = c->getDirectCallee()) {
        llvm::StringRef n = fd->getName();
        if (n == "malloc" || n == "calloc" || n == "aligned_alloc") {
          allocated.insert(to);
          return;
        }
      }
    if (const clang::VarDecl *base = pointedInto(s))
      derived.push_back({to, base}); // for host code's aliases only (hostAliases)
    untraced.insert(to); // `p = &a[k]`, `p = f()`: whose memory is unknown
  }

};

/// Union-find over `links`: the classes of `vars` (linked variables join them).
std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>>
classesOf(std::set<const clang::VarDecl *> &vars,
          const std::vector<std::pair<const clang::VarDecl *, const clang::VarDecl *>> &links) {
  std::map<const clang::VarDecl *, const clang::VarDecl *> parent;
  std::function<const clang::VarDecl *(const clang::VarDecl *)> find =
      [&](const clang::VarDecl *v) -> const clang::VarDecl * {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    return it->second = find(it->second);
  };
  for (auto [a, b] : links) {
    vars.insert(a);
    vars.insert(b);
    const clang::VarDecl *ra = find(a), *rb = find(b);
    if (ra != rb)
      parent[ra] = rb;
  }
  std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>> classes;
  for (const clang::VarDecl *v : vars)
    classes[find(v)].push_back(v);
  return classes;
}

} // namespace

std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>>
hostAliases(const clang::FunctionDecl *fn) {
  Collector c;
  for (const clang::ParmVarDecl *p : fn->parameters())
    if (isBuffer(p))
      c.vars.insert(p);
  c.TraverseStmt(fn->getBody());
  auto links = c.links;
  links.insert(links.end(), c.derived.begin(), c.derived.end());
  std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>> out;
  for (const auto &[root, members] : classesOf(c.vars, links))
    for (const clang::VarDecl *v : members)
      out[v] = members;
  return out;
}

std::map<const clang::VarDecl *, BufferRole> bufferRoles(const clang::FunctionDecl *fn) {
  Collector c;
  for (const clang::ParmVarDecl *p : fn->parameters())
    if (isBuffer(p))
      c.vars.insert(p);
  c.TraverseStmt(fn->getBody());

  // classes of the variables linked by assignments (globals join too)
  auto classes = classesOf(c.vars, c.links);

  std::map<const clang::VarDecl *, BufferRole> roles;
  for (const auto &[root, members] : classes) {
    bool host = false, owned = false, allocated = false, freed = false;
    std::string hostWhy;
    for (const clang::VarDecl *v : members) {
      if (llvm::isa<clang::ParmVarDecl>(v)) {
        host = true;
        hostWhy = "a parameter: the host's";
      } else if (v->hasGlobalStorage()) {
        host = true;
        hostWhy = "a global: the host's";
      } else if (c.untraced.count(v)) {
        host = true;
        hostWhy = "points to memory not traced here: taken to be the host's";
      } else if (v->getType()->isArrayType()) {
        owned = true;
      }
      allocated = allocated || c.allocated.count(v);
      freed = freed || c.freed.count(v);
    }
    if (!host && allocated && !freed) {
      host = true;
      hostWhy = "allocated here and not freed: it outlives the function (the host's)";
    }
    for (const clang::VarDecl *v : members) {
      BufferRole r;
      r.deviceOwned = !host && (owned || allocated);
      if (!host && !r.deviceOwned)
        continue; // a pointer that never points to a buffer
      if (llvm::isa<clang::ParmVarDecl>(v) && v->getType()->isPointerType())
        r.constInput =
            v->getASTContext().getBaseElementType(v->getType()->getPointeeType()).isConstQualified();
      for (const clang::VarDecl *o : members)
        if (o != v)
          r.swappedWith.push_back(o);
      if (r.deviceOwned)
        r.why = owned ? "the function's own array: a device temporary"
                      : "allocated and freed here: a device temporary";
      else
        r.why = r.constInput ? "a parameter to const data: the host's input" : hostWhy;
      roles[v] = std::move(r);
    }
  }
  return roles;
}

namespace {

/// The buffer an element access goes through: `a[i]`, `b[i][j]`, `*p`, `*(p + k)`.
const clang::VarDecl *accessedBuffer(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (llvm::isa<clang::ArraySubscriptExpr>(e))
    return varOf(subscriptRoot(e));
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_Deref) {
    const clang::Expr *p = u->getSubExpr()->IgnoreParenImpCasts();
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(p); b && b->isAdditiveOp())
      p = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
    return varOf(p);
  }
  return nullptr;
}

void touchesIn(const clang::Stmt *s, std::map<const clang::VarDecl *, bool> &out) {
  if (!s)
    return;
  auto note = [&](const clang::VarDecl *v, bool write) {
    if (v && isBuffer(v))
      out[v] = out[v] || write;
  };
  if (llvm::isa<clang::UnaryExprOrTypeTraitExpr>(s))
    return; // sizeof, alignof: not evaluated
  if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e->IgnoreParenImpCasts());
        u && u->getOpcode() == clang::UO_AddrOf) {
      // `&a[k]` takes an address and touches no element; its indices are read
      const clang::Expr *x = u->getSubExpr()->IgnoreParenImpCasts();
      while (auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(x)) {
        touchesIn(as->getIdx(), out);
        x = as->getBase()->IgnoreParenImpCasts();
      }
      if (!varOf(x))
        touchesIn(x, out);
      return;
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
        b && b->isAssignmentOp()) {
      note(accessedBuffer(b->getLHS()), true); // a write: the host updates some elements
      touchesIn(b->getLHS(), out);              // its indices
      touchesIn(b->getRHS(), out);
      return;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e->IgnoreParenImpCasts());
        u && u->isIncrementDecrementOp()) {
      note(accessedBuffer(u->getSubExpr()), true);
      touchesIn(u->getSubExpr(), out);
      return;
    }
    if (auto *c = llvm::dyn_cast<clang::CallExpr>(e->IgnoreParenImpCasts())) {
      const clang::FunctionDecl *fd = c->getDirectCallee();
      if (fd && fd->getName() == "free")
        return;
      for (const clang::Expr *a : c->arguments()) {
        const clang::VarDecl *v = varOf(a);
        if (!v || !isBuffer(v))
          v = pointedInto(a); // `p + k`, `&p[k]`
        if (v && isBuffer(v))
          note(v, true); // the callee may read or write it
        touchesIn(a, out); // indices (and nothing more for the buffer itself)
      }
      return;
    }
    if (const clang::VarDecl *v = accessedBuffer(e)) {
      // an element, not a row `a[i]` of a 2-D array (an address)
      if (!e->IgnoreParenImpCasts()->getType()->isArrayType())
        note(v, false);
      for (const clang::Stmt *c : e->IgnoreParenImpCasts()->children())
        touchesIn(c, out);
      return;
    }
  }
  for (const clang::Stmt *c : s->children())
    touchesIn(c, out);
}

} // namespace

namespace {

bool isLocalScalar(const clang::VarDecl *v) {
  return v && !v->hasGlobalStorage() && !isBuffer(v) &&
         (v->getType()->isIntegralOrEnumerationType() || v->getType()->isRealFloatingType());
}

void scalarsIn(const clang::Stmt *s, std::map<const clang::VarDecl *, bool> &out) {
  if (!s || llvm::isa<clang::UnaryExprOrTypeTraitExpr>(s))
    return;
  const clang::Expr *written = nullptr;
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp())
    written = b->getLHS();
  else if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s); u && u->isIncrementDecrementOp())
    written = u->getSubExpr();
  if (written)
    if (const clang::VarDecl *v = varOf(written); isLocalScalar(v))
      out[v] = true;
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) // `float s = 0;`: its initial value
    for (const clang::Decl *d : ds->decls())
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(d); isLocalScalar(v) && v->getInit())
        out[v] = true;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()); isLocalScalar(v))
      out.emplace(v, false);
  for (const clang::Stmt *c : s->children())
    scalarsIn(c, out);
}

} // namespace

std::map<const clang::VarDecl *, bool> hostScalarTouches(const clang::Stmt *s) {
  std::map<const clang::VarDecl *, bool> out;
  scalarsIn(s, out);
  return out;
}

std::map<const clang::VarDecl *, bool> hostTouches(const clang::Stmt *s) {
  std::map<const clang::VarDecl *, bool> out;
  touchesIn(s, out);
  return out;
}

} // namespace skelcast::frontend
