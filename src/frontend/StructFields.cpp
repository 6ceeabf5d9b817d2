// Scalar fields of structs read as values (StructFields.h says which, and why
// each condition is there).
#include "StructFields.h"

#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtOpenMP.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace skelcast::frontend {

namespace {

/// A number field of a struct (not of a union, not a bit-field).
bool numberField(const clang::FieldDecl *fd) {
  if (!fd || fd->isBitField() || fd->getParent()->isUnion())
    return false;
  clang::QualType t = fd->getType().getCanonicalType();
  return t->isArithmeticType() && !t->isAnyComplexType();
}

/// The record type `t` is, or points to (one level), if any.
const clang::RecordDecl *recordOf(clang::QualType t) {
  t = t.getCanonicalType();
  if (auto *pt = t->getAs<clang::PointerType>())
    t = pt->getPointeeType().getCanonicalType();
  auto *rt = t->getAs<clang::RecordType>();
  return rt ? rt->getDecl() : nullptr;
}

/// The variable a field access is made through: `s` of `s.f` (a struct) or
/// `p` of `p->f` (a pointer to a struct), a local or a parameter; null for
/// other bases (`s.a.b`, `a[i].f`, a global, a reference).
const clang::VarDecl *baseVar(const clang::MemberExpr *me) {
  const clang::Expr *b = me->getBase()->IgnoreParens();
  if (me->isArrow()) {
    auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(b);
    if (!ic || ic->getCastKind() != clang::CK_LValueToRValue)
      return nullptr;
    b = ic->getSubExpr()->IgnoreParens();
  }
  auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(b);
  auto *v = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
  if (!v || v->hasGlobalStorage() || v->getType()->isReferenceType())
    return nullptr;
  clang::QualType t = v->getType().getCanonicalType();
  if (me->isArrow() ? !t->isPointerType() : !t->isRecordType())
    return nullptr;
  return v;
}

bool isRead(const clang::Stmt *parent) {
  auto *ic = llvm::dyn_cast_or_null<clang::ImplicitCastExpr>(parent);
  return ic && ic->getCastKind() == clang::CK_LValueToRValue;
}

/// One field read through one variable: `dim.number_boxes`, `points->num`.
using Key = std::tuple<const clang::VarDecl *, const clang::FieldDecl *, bool>;

class FieldNamer {
public:
  FieldNamer(TUContext &tu, const clang::FunctionDecl *fn)
      : tu_(tu), fn_(const_cast<clang::FunctionDecl *>(fn)),
        body_(llvm::dyn_cast_or_null<clang::CompoundStmt>(fn->getBody())) {}

  void run() {
    if (!body_)
      return;
    walk(body_, nullptr);
    for (auto &[key, reads] : reads_) {
      const clang::Expr *init = nullptr;
      if (!valueOf(key, reads, init))
        continue;
      clang::VarDecl *var = variable(key, init);
      for (auto &[me, parent] : reads)
        replace(me, parent, var);
    }
  }

private:
  void walk(clang::Stmt *s, clang::Stmt *parent) {
    if (!s)
      return;
    if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
      // an OpenMP region: its children are the captures, its statement apart
      walk(cap->getCapturedStmt(), parent);
      return;
    }
    if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
      // the loop or block under the directive (its clauses name variables,
      // which privatizes copies, not the object read in the body)
      if (d->hasAssociatedStmt())
        walk(d->getAssociatedStmt(), s);
      return;
    }
    if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
      auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
      auto *me = llvm::dyn_cast_or_null<clang::MemberExpr>(parent);
      bool throughField = me && !me->isArrow() && me->getBase()->IgnoreParens() == dr;
      if (v && !throughField && !isRead(parent))
        touched_.insert(v); // assigned, its address taken, bound to a reference...
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp())
      if (auto *rd = recordOf(b->getLHS()->getType()); rd && !b->getLHS()->getType()->isPointerType())
        whole_.insert(rd->getCanonicalDecl()); // `*q = t`, `a[i] = t`
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
      if (u->getSubExpr()->getType()->isRecordType())
        whole_.insert(recordOf(u->getSubExpr()->getType())->getCanonicalDecl());
    if (auto *me = llvm::dyn_cast<clang::MemberExpr>(s)) {
      auto *fd = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
      if (fd && numberField(fd)) {
        const clang::VarDecl *v = baseVar(me);
        if (isRead(parent)) {
          if (v)
            reads_[Key{v, fd, me->isArrow()}].push_back({me, parent});
        } else {
          // written (or its address taken) through some base
          written_[fd].push_back({me, parent});
        }
      }
    }
    for (clang::Stmt *ch : s->children())
      walk(ch, s);
  }

  /// Whether the field, read through this variable, can be a variable, and
  /// its value when the function shows it (`init`).
  bool valueOf(const Key &key,
               const std::vector<std::pair<clang::MemberExpr *, clang::Stmt *>> &reads,
               const clang::Expr *&init) {
    auto [v, fd, arrow] = key;
    if (touched_.count(v))
      return false;
    auto wit = written_.find(fd);
    if (arrow) {
      // any `q->f` or `a[i].f` written may be this object, and so may a whole struct
      const clang::Decl *rd = fd->getParent()->getCanonicalDecl();
      return wit == written_.end() && !whole_.count(rd);
    }
    // `s.f`: only `s.f` itself can change it (`s` is never assigned, its address never taken)
    std::vector<std::pair<clang::MemberExpr *, clang::Stmt *>> mine;
    if (wit != written_.end())
      for (auto &w : wit->second)
        if (!w.first->isArrow() && baseVar(w.first) == v)
          mine.push_back(w);
    if (mine.empty()) {
      // never assigned: the initialiser's element, if any
      auto *il = llvm::dyn_cast_or_null<clang::InitListExpr>(
          llvm::isa<clang::ParmVarDecl>(v) ? nullptr : v->getInit());
      if (il && fd->getFieldIndex() < il->getNumInits() &&
          !llvm::isa<clang::ImplicitValueInitExpr>(il->getInit(fd->getFieldIndex())))
        init = il->getInit(fd->getFieldIndex());
      return true;
    }
    if (mine.size() != 1)
      return false;
    // one assignment, a statement of the function's body itself, before every read
    auto *b = llvm::dyn_cast_or_null<clang::BinaryOperator>(mine[0].second);
    if (!b || b->getOpcode() != clang::BO_Assign || b->getLHS()->IgnoreParens() != mine[0].first)
      return false;
    bool top = false;
    for (const clang::Stmt *c : body_->body())
      top |= c == b;
    if (!top)
      return false;
    for (auto &r : reads)
      if (!tu_.sm.isBeforeInTranslationUnit(b->getEndLoc(), r.first->getBeginLoc()))
        return false;
    init = b->getRHS();
    return true;
  }

  clang::VarDecl *variable(const Key &key, const clang::Expr *init) {
    auto [v, fd, arrow] = key;
    clang::ASTContext &ctx = tu_.ast;
    std::string name = v->getName().str() + (arrow ? "->" : ".") + fd->getName().str();
    clang::QualType t = fd->getType().getUnqualifiedType();
    clang::SourceLocation loc = body_->getLBracLoc();
    auto *var = clang::VarDecl::Create(ctx, fn_, loc, loc, &ctx.Idents.get(name), t,
                                       ctx.getTrivialTypeSourceInfo(t, loc), clang::SC_None);
    if (init)
      var->setInit(const_cast<clang::Expr *>(init));
    return var;
  }

  /// `s.f` read becomes `(s.f)`, the variable named so: a parenthesis keeps the
  /// text of the original for the messages that quote it.
  void replace(clang::MemberExpr *me, clang::Stmt *parent, clang::VarDecl *var) {
    clang::ASTContext &ctx = tu_.ast;
    auto *dr = clang::DeclRefExpr::Create(ctx, clang::NestedNameSpecifierLoc(),
                                          clang::SourceLocation(), var, false,
                                          me->getMemberLoc(), var->getType(), clang::VK_LValue);
    auto *pe = new (ctx) clang::ParenExpr(me->getBeginLoc(), me->getEndLoc(), dr);
    for (clang::Stmt *&ch : parent->children())
      if (ch == me)
        ch = pe;
  }

  TUContext &tu_;
  clang::FunctionDecl *fn_;
  clang::CompoundStmt *body_;
  std::map<Key, std::vector<std::pair<clang::MemberExpr *, clang::Stmt *>>> reads_;
  std::map<const clang::FieldDecl *, std::vector<std::pair<clang::MemberExpr *, clang::Stmt *>>>
      written_;
  std::set<const clang::VarDecl *> touched_;
  std::set<const clang::Decl *> whole_;
};

/// Every reference to `v` in `s`, with its parent.
void refsOf(const clang::Stmt *s, const clang::Stmt *parent, const clang::VarDecl *v,
            std::vector<std::pair<const clang::DeclRefExpr *, const clang::Stmt *>> &out) {
  if (!s)
    return;
  if (auto *cap = llvm::dyn_cast<clang::CapturedStmt>(s)) {
    refsOf(cap->getCapturedStmt(), parent, v, out);
    return;
  }
  if (auto *d = llvm::dyn_cast<clang::OMPExecutableDirective>(s)) {
    // a clause naming `v` (private, firstprivate...) counts as a use that is
    // not a read: the value inside may then be another copy's
    for (const clang::OMPClause *c : d->clauses())
      for (const clang::Stmt *ch : const_cast<clang::OMPClause *>(c)->children())
        refsOf(ch, nullptr, v, out);
    if (d->hasAssociatedStmt())
      refsOf(d->getAssociatedStmt(), s, v, out);
    return;
  }
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s); dr && dr->getDecl() == v)
    out.push_back({dr, parent});
  for (const clang::Stmt *ch : s->children())
    refsOf(ch, s, v, out);
}

} // namespace

const clang::Expr *assignedOnceAtTop(const clang::FunctionDecl *fn, const clang::VarDecl *v,
                                     const clang::SourceManager &sm) {
  auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fn ? fn->getBody() : nullptr);
  if (!body || !v || v->getInit() || v->hasGlobalStorage() || llvm::isa<clang::ParmVarDecl>(v) ||
      v->getType()->isReferenceType() || v->getDeclContext() != fn)
    return nullptr;
  const clang::BinaryOperator *set = nullptr;
  for (const clang::Stmt *c : body->body())
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(c))
      if (b->getOpcode() == clang::BO_Assign)
        if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(b->getLHS()->IgnoreParens());
            dr && dr->getDecl() == v)
          set = set ? nullptr : b;
  if (!set)
    return nullptr;
  std::vector<std::pair<const clang::DeclRefExpr *, const clang::Stmt *>> refs;
  refsOf(body, nullptr, v, refs);
  for (auto &[dr, parent] : refs) {
    if (parent == set && set->getLHS()->IgnoreParens() == dr)
      continue;
    if (!isRead(parent) || !sm.isBeforeInTranslationUnit(set->getEndLoc(), dr->getBeginLoc()))
      return nullptr;
  }
  return set->getRHS();
}

void nameStructFields(TUContext &tu, const std::vector<const clang::FunctionDecl *> &fns) {
  for (const clang::FunctionDecl *fn : fns)
    FieldNamer(tu, fn).run();
}

} // namespace skelcast::frontend
