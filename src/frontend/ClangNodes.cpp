#include "ClangNodes.h"

#include <llvm/Frontend/OpenMP/OMP.h>

#include <algorithm>

namespace skelcast::frontend {

const clang::VarDecl *refVar(const clang::Expr *e) {
  if (!e)
    return nullptr;
  e = e->IgnoreParenImpCasts();
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    return llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  return nullptr;
}

bool mentions(const clang::Stmt *s, const clang::VarDecl *v) {
  if (!s)
    return false;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (dr->getDecl() == v)
      return true;
  for (const clang::Stmt *c : s->children())
    if (mentions(c, v))
      return true;
  return false;
}

void collectVars(const clang::Stmt *s, std::set<const clang::VarDecl *> &out) {
  if (!s)
    return;
  if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s))
    if (auto *v = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
      out.insert(v);
  for (const clang::Stmt *c : s->children())
    collectVars(c, out);
}

std::optional<int64_t> constInt(const clang::Expr *e, const clang::ASTContext &ctx) {
  if (!e || e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  clang::Expr::EvalResult r;
  if (!e->EvaluateAsInt(r, ctx) || r.HasSideEffects)
    return std::nullopt;
  return r.Val.getInt().getExtValue();
}

const clang::Stmt *directiveBody(const clang::OMPExecutableDirective *d) {
  if (!d || !d->hasAssociatedStmt())
    return nullptr;
  const clang::Stmt *s = d->getAssociatedStmt();
  while (auto *cs = llvm::dyn_cast_or_null<clang::CapturedStmt>(s))
    s = cs->getCapturedStmt();
  return s;
}

const clang::ForStmt *asFor(const clang::Stmt *s) {
  if (auto *f = llvm::dyn_cast_or_null<clang::ForStmt>(s))
    return f;
  if (auto *d = llvm::dyn_cast_or_null<clang::OMPLoopDirective>(s))
    return llvm::dyn_cast_or_null<clang::ForStmt>(directiveBody(d));
  return nullptr;
}

std::vector<const clang::Stmt *> keptBody(const clang::ForStmt *f,
                                          const std::set<const clang::Stmt *> &only) {
  std::vector<const clang::Stmt *> out;
  const clang::Stmt *b = f->getBody();
  if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b))
    out.assign(cs->body_begin(), cs->body_end());
  else if (b)
    out.push_back(b);
  // a loop some of whose statements are listed keeps those; one none of
  // whose statements are listed is the group's whole
  if (std::any_of(out.begin(), out.end(), [&](const clang::Stmt *s) { return only.count(s) > 0; }))
    out.erase(std::remove_if(out.begin(), out.end(), [&](const clang::Stmt *s) { return !only.count(s); }),
              out.end());
  return out;
}

bool partlyKept(const clang::ForStmt *f, const std::set<const clang::Stmt *> &only) {
  return !only.empty() && keptBody(f, only).size() != keptBody(f, {}).size();
}

namespace {
/// `if (c) X;` or `if (c) { ...; X; }` with no `else`, X of type T.
template <typename T>
const T *exitIf(const clang::Stmt *s, std::vector<const clang::Stmt *> *before) {
  auto *is = llvm::dyn_cast_or_null<clang::IfStmt>(s);
  if (!is || is->getElse() || is->getInit() || is->getConditionVariable())
    return nullptr;
  const clang::Stmt *t = is->getThen();
  if (auto *c = llvm::dyn_cast<T>(t))
    return c;
  auto *cs = llvm::dyn_cast<clang::CompoundStmt>(t);
  if (!cs || cs->body_empty())
    return nullptr;
  auto *c = llvm::dyn_cast<T>(cs->body_back());
  if (c && before)
    for (const clang::Stmt *x : cs->body())
      if (x != c)
        before->push_back(x);
  return c;
}
} // namespace

const clang::ContinueStmt *continueIf(const clang::Stmt *s,
                                      std::vector<const clang::Stmt *> *before) {
  return exitIf<clang::ContinueStmt>(s, before);
}

const clang::BreakStmt *breakIf(const clang::Stmt *s, std::vector<const clang::Stmt *> *before) {
  return exitIf<clang::BreakStmt>(s, before);
}

const clang::ReturnStmt *returnIf(const clang::Stmt *s, std::vector<const clang::Stmt *> *before) {
  return exitIf<clang::ReturnStmt>(s, before);
}

const clang::IfStmt *earlyExit(const clang::ForStmt *f) {
  const clang::Stmt *b = f ? f->getBody() : nullptr;
  if (breakIf(b)) // `for (...) if (c) { ...; break; }`
    return llvm::cast<clang::IfStmt>(b);
  if (auto *cs = llvm::dyn_cast_or_null<clang::CompoundStmt>(b))
    for (const clang::Stmt *c : cs->body())
      if (breakIf(c))
        return llvm::cast<clang::IfStmt>(c);
  return nullptr;
}

const clang::Type *uniformStruct(clang::QualType t, const clang::ASTContext &ctx, unsigned *fields) {
  const auto *rt = t.getCanonicalType()->getAs<clang::RecordType>();
  if (!rt || !rt->getDecl()->isStruct())
    return nullptr;
  const clang::RecordDecl *rd = rt->getDecl()->getDefinition();
  if (!rd)
    return nullptr;
  const clang::Type *ft = nullptr;
  unsigned n = 0;
  for (const clang::FieldDecl *f : rd->fields()) {
    clang::QualType q = f->getType().getCanonicalType().getUnqualifiedType();
    if (f->isBitField() || !q->isArithmeticType() || q->isAnyComplexType())
      return nullptr;
    if (ft && ctx.getTypeSize(q) != ctx.getTypeSize(ft))
      return nullptr;
    if (ft && q->isRealFloatingType() != ft->isRealFloatingType())
      return nullptr;
    if (!ft)
      ft = q.getTypePtr();
    ++n;
  }
  if (!ft || ctx.getTypeSize(t) != n * ctx.getTypeSize(ft))
    return nullptr; // padding
  if (fields)
    *fields = n;
  return ft;
}

namespace {

/// Where a number (or an array of numbers) lies in an element of an array of
/// structs: the element, the constant offset of the fields on the way, in
/// bits, and the subscripts of array fields with their strides in bits.
struct Place {
  const clang::ArraySubscriptExpr *element = nullptr;
  uint64_t bits = 0;
  std::vector<FieldSubscript> terms;
};

bool isStructType(clang::QualType t) {
  const auto *rt = t.getCanonicalType()->getAs<clang::RecordType>();
  return rt && rt->getDecl()->isStruct() && rt->getDecl()->getDefinition();
}

/// The place of `x`, an lvalue reached from an element of an array of
/// structs by `.field` and subscripts of array fields; false for anything
/// else (an arrow, a union, a bit-field, a pointer field on the way).
bool placeOf(const clang::Expr *x, const clang::ASTContext &ctx, Place &p) {
  x = x->IgnoreParens();
  if (auto *me = llvm::dyn_cast<clang::MemberExpr>(x)) {
    auto *fd = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
    if (me->isArrow() || !fd || fd->isBitField() || !isStructType(me->getBase()->getType()))
      return false;
    if (!placeOf(me->getBase(), ctx, p))
      return false;
    p.bits += ctx.getFieldOffset(fd);
    return true;
  }
  auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(x);
  if (!as)
    return false;
  // the subscripts down to what is subscripted: an array field (`nei` of
  // `box[l].nei[k]`, `m` of `a[i].m[r][c]`) or the array of structs itself
  std::vector<const clang::ArraySubscriptExpr *> levels;
  const clang::Expr *b = as;
  while (auto *s = llvm::dyn_cast<clang::ArraySubscriptExpr>(b)) {
    levels.push_back(s);
    auto *ic = llvm::dyn_cast<clang::ImplicitCastExpr>(s->getBase()->IgnoreParens());
    if (!ic || ic->getCastKind() != clang::CK_ArrayToPointerDecay) {
      b = nullptr;
      break;
    }
    b = ic->getSubExpr()->IgnoreParens();
  }
  if (b && llvm::isa<clang::MemberExpr>(b)) {
    if (!placeOf(b, ctx, p))
      return false;
    for (const clang::ArraySubscriptExpr *s : levels)
      p.terms.push_back({s->getIdx(), ctx.getTypeSize(s->getType())});
    return true;
  }
  if (!isStructType(as->getType()))
    return false;
  p.element = as;
  return true;
}

} // namespace

const clang::ArraySubscriptExpr *structElement(const clang::Expr *e, const clang::ASTContext &ctx,
                                               unsigned *field, const clang::Type **word,
                                               std::vector<FieldSubscript> *terms) {
  e = e ? e->IgnoreParens() : nullptr;
  auto *me = llvm::dyn_cast_or_null<clang::MemberExpr>(e);
  if (!e || (me && me->isArrow()) || (!me && !llvm::isa<clang::ArraySubscriptExpr>(e)))
    return nullptr;
  Place p;
  if (!placeOf(e, ctx, p) || !p.element || p.element == e)
    return nullptr;
  clang::QualType ft = e->getType().getCanonicalType();
  auto *fd = me ? llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl()) : nullptr;
  auto *as = me ? llvm::dyn_cast<clang::ArraySubscriptExpr>(me->getBase()->IgnoreParens()) : nullptr;
  if (fd && as == p.element && uniformStruct(as->getType(), ctx)) {
    if (field)
      *field = fd->getFieldIndex();
    if (word)
      *word = nullptr;
    if (terms)
      terms->clear();
    return as;
  }
  // words of the field's number type
  if (!ft->isArithmeticType() || ft->isAnyComplexType())
    return nullptr;
  const clang::Type *w = ft.getUnqualifiedType().getTypePtr();
  uint64_t bits = ctx.getTypeSize(w);
  if (!bits || p.bits % bits || !structWords(p.element->getType(), w, ctx))
    return nullptr;
  for (const FieldSubscript &t : p.terms)
    if (t.stride % bits)
      return nullptr;
  if (field)
    *field = static_cast<unsigned>(p.bits / bits);
  if (word)
    *word = w;
  if (terms) {
    terms->clear();
    for (const FieldSubscript &t : p.terms)
      terms->push_back({t.index, t.stride / bits});
  }
  return p.element;
}

unsigned structWords(clang::QualType t, const clang::Type *word, const clang::ASTContext &ctx) {
  uint64_t bits = ctx.getTypeSize(word), size = ctx.getTypeSize(t);
  if (!bits || size % bits)
    return 0;
  return static_cast<unsigned>(size / bits);
}

bool isStructVariable(const clang::VarDecl *v, const clang::ASTContext &ctx) {
  return v && uniformStruct(v->getType().getNonReferenceType(), ctx) != nullptr;
}

const clang::VarDecl *structVariableField(const clang::Expr *e, const clang::ASTContext &ctx,
                                          unsigned *field) {
  auto *me = llvm::dyn_cast_or_null<clang::MemberExpr>(e ? e->IgnoreParens() : nullptr);
  if (!me || me->isArrow())
    return nullptr;
  auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(me->getBase()->IgnoreParenImpCasts());
  auto *v = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
  auto *fd = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
  if (!v || !fd || !isStructVariable(v, ctx))
    return nullptr;
  if (field)
    *field = fd->getFieldIndex();
  return v;
}

std::string directiveName(llvm::omp::Directive k) {
  return llvm::omp::getOpenMPDirectiveName(k).str();
}

void assignedIn(const clang::Stmt *s, std::set<const clang::VarDecl *> &out, bool incDec) {
  if (!s)
    return;
  if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(s); b && b->isAssignmentOp())
    if (auto *v = refVar(b->getLHS()))
      out.insert(v);
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s); incDec && u && u->isIncrementDecrementOp())
    if (auto *v = refVar(u->getSubExpr()))
      out.insert(v);
  for (const clang::Stmt *c : s->children())
    assignedIn(c, out, incDec);
}

} // namespace skelcast::frontend
