// The nest's statements printed as CUDA (Helper, a clang::PrinterHelper): a
// cached array's element read from its shared tile, an element kept in a
// register as that register, a promoted value as its task's slot, loops with
// their unroll pragma, a fission's loops with the kernel's statements only.
#include "Emitter.h"

#include <algorithm>
#include <functional>

namespace skelcast::emit::detail {

bool Helper::handledStmt(clang::Stmt *s, llvm::raw_ostream &os) {
  if (s == skip) {
    skip = nullptr;
    return false;
  }
  if (e_.printPairedStore(s, os))
    return true;
  if (e_.printPromoted(s, os))
    return true;
  if (e_.printDeclaration(s, os))
    return true;
  if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s))
    return e_.printAccess(a, os);
  if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
    if (e_.printInPlace(f, os))
      return true;
    return e_.printLoop(f, os);
  }
  return false;
}

bool Emitter::printAccess(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os) {
  if (a->getType()->isArrayType())
    return false; // a row: the full access above it is printed
  if (printPairedLoad(a, os))
    return true;
  std::vector<const clang::Expr *> subs;
  const clang::Expr *e = a;
  while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts())) {
    subs.push_back(x->getIdx());
    e = x->getBase();
  }
  std::reverse(subs.begin(), subs.end());
  auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  if (!ref)
    return false;
  auto *v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
  if (auto r = regOf_.find(v); r != regOf_.end()) {
    os << regs_[r->second].reg << "[sk_fl]";
    return true;
  }
  for (const LoopAcc *acc : activeAcc_)
    if (acc->array == v && subscriptTexts(a) == acc->subs) {
      os << acc->reg;
      return true;
    }
  auto it = tileOf_.find(v);
  if (it == tileOf_.end())
    return false;
  const Tile &t = tiles_[it->second];
  const layout::ArrayInfo &ai = ki_.arrays[t.array];
  size_t rank = t.extent.size();
  std::vector<std::string> coord(rank);
  auto split = nest_.delinearized.find(a);
  if (subs.size() == rank) {
    for (size_t d = 0; d < rank; ++d)
      coord[d] = print(subs[d]);
  } else if (split != nest_.delinearized.end() && split->second.size() == rank) {
    // a flat subscript in the dimensions the skeleton split it into (`u[(i -
    // 1) * N + j]` is `u[i - 1][j]`): no division on each read
    for (size_t d = 0; d < rank; ++d)
      coord[d] = printDimension(split->second[d]);
  } else if (subs.size() == 1) {
    // a flat subscript of a delinearised array: its coordinates
    std::string flat = "(" + idx_ + ")(" + print(subs[0]) + ")";
    for (size_t d = 0; d < rank; ++d)
      coord[d] = d == 0 ? fmt::format("{} / {}", flat, ai.strides[0])
                        : fmt::format("{} / {} % {}", flat, ai.strides[d], ai.extents[d]);
  } else {
    fail(a->getBeginLoc(), fmt::format("an access of '{}' with {} subscripts for {} dimensions",
                                       t.name, subs.size(), rank));
  }
  os << "sk_" << t.name << "_tile[";
  int64_t stride = 1;
  std::vector<std::string> terms;
  for (size_t d = rank; d-- > 0;) {
    std::string c = fmt::format("(({}) - sk_{}_b{})", coord[d], t.name, d);
    terms.push_back(stride == 1 ? c : fmt::format("{} * {}", c, stride));
    stride *= t.extent[d];
  }
  std::reverse(terms.begin(), terms.end());
  for (size_t i = 0; i < terms.size(); ++i)
    os << (i ? " + " : "") << terms[i];
  os << "]";
  return true;
}

/// One dimension of a delinearised subscript as C: sum(coef * factor) + constant.
std::string Emitter::printDimension(const frontend::DimForm &d) {
  if (d.direct)
    return print(d.direct);
  std::string out;
  for (const auto &[coef, factor] : d.terms) {
    std::string f = fmt::format("({})({})", idx_, print(factor));
    int64_t k = coef < 0 ? -coef : coef;
    std::string term = k == 1 ? f : fmt::format("{} * {}", k, f);
    out += out.empty() ? (coef < 0 ? "-" + term : term) : (coef < 0 ? " - " : " + ") + term;
  }
  if (out.empty())
    return std::to_string(d.constant);
  if (d.constant != 0)
    out += fmt::format(" {} {}", d.constant < 0 ? "-" : "+", d.constant < 0 ? -d.constant : d.constant);
  return out;
}

/// A promoted variable is its task's slot: `acc` -> `acc[sk_fl]`, and its
/// declaration an assignment of the initial value.
bool Emitter::printPromoted(const clang::Stmt *s, llvm::raw_ostream &os) {
  if (promoted_.empty())
    return false;
  if (auto *r = llvm::dyn_cast<clang::DeclRefExpr>(s)) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(r->getDecl());
    if (!v || !promoted_.count(v))
      return false;
    os << v->getName() << "[sk_fl]";
    return true;
  }
  if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *d : ds->decls()) {
      auto *v = llvm::dyn_cast<clang::VarDecl>(d);
      if (!v || !promoted_.count(v))
        return false;
    }
    for (const clang::Decl *d : ds->decls()) {
      auto *v = llvm::cast<clang::VarDecl>(d);
      if (v->getInit())
        os << v->getName() << "[sk_fl] = " << print(v->getInit()) << ";\n";
    }
    return true;
  }
  return false;
}

/// A declaration whose initial values read what this layout rewrites (a
/// cached array's tile, an element in a register): clang prints a
/// declaration's initialiser without the PrinterHelper, so `int c = M[i][n];`
/// would read global memory in a `cache=M` layout. Each variable is printed
/// as its own declaration, its initialiser through the helper; declarations
/// the layout leaves as they are print the default way (same text).
bool Emitter::printDeclaration(const clang::Stmt *s, llvm::raw_ostream &os) {
  auto *ds = llvm::dyn_cast<clang::DeclStmt>(s);
  if (!ds)
    return false;
  std::vector<std::string> texts; // each declaration, in order
  bool rewritten = false;
  const clang::TagDecl *unnamed = nullptr;
  for (const clang::Decl *d : ds->decls()) {
    auto *v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v) {
      // a type the statement defines (`enum E { Z0 } t = ...;`): printed before its variables
      auto *tag = llvm::dyn_cast<clang::TagDecl>(d);
      if (tag && tag->getName().empty())
        unnamed = tag;
      texts.push_back(declText(d) + ";\n");
      continue;
    }
    if (v->isStaticLocal() || v->getInitStyle() != clang::VarDecl::CInit)
      return false;
    std::string text = typed(v->getType(), v->getName().str());
    if (const clang::Expr *e = v->getInit()) {
      std::string init = print(e);
      rewritten |= init != printPlain(e);
      text += " = " + init;
    }
    texts.push_back(text + ";\n");
  }
  if (!rewritten)
    return false;
  if (unnamed) // its variables' types have no name to print them by
    fail(unnamed->getBeginLoc(), "a declaration of an unnamed struct, union or enum whose variables' "
                                 "initial values read what this layout keeps in shared memory or "
                                 "registers (name the type)");
  for (const std::string &t : texts)
    os << t;
  return true;
}

void Emitter::traverseKept(VarUses &uses, const clang::Stmt *x) const {
  // a loop whose statements are all kept may still hold a loop partly kept
  auto *f = llvm::dyn_cast<clang::ForStmt>(x);
  if (!f || nest_.only.empty()) {
    uses.TraverseStmt(const_cast<clang::Stmt *>(x));
    return;
  }
  for (const clang::Stmt *h : {f->getInit(), static_cast<const clang::Stmt *>(f->getCond()),
                               static_cast<const clang::Stmt *>(f->getInc())})
    if (h)
      uses.TraverseStmt(const_cast<clang::Stmt *>(h));
  for (const clang::Stmt *b : bodyOf(f))
    traverseKept(uses, b);
}

std::string Emitter::plainKept(const clang::Stmt *x, unsigned indent) {
  std::string in(2 * indent, ' ');
  auto *f = llvm::dyn_cast<clang::ForStmt>(x);
  if (!f || (!filtered(f) && f != frontend::asFor(nest_.root)))
    return llvm::isa<clang::Expr>(x) ? in + printPlain(x) + ";\n" : printPlain(x, indent);
  auto plain = [&](const clang::Stmt *e) {
    std::string t = e ? printPlain(e) : "";
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == ';'))
      t.pop_back();
    return t;
  };
  std::string out = fmt::format("{}for ({}; {}; {}) {{\n", in, plain(f->getInit()), plain(f->getCond()),
                                plain(f->getInc()));
  for (const clang::Stmt *b : bodyOf(f))
    out += plainKept(b, indent + 1);
  return out + in + "}\n";
}

/// A copy of a loop-space loop (NestAst::inPlace): the thread's own
/// iteration, its body alone. The root loop of a fission's kernel: its
/// header and only the statements of the kernel's group.
bool Emitter::printInPlace(const clang::ForStmt *f, llvm::raw_ostream &os) {
  if (std::find(nest_.inPlace.begin(), nest_.inPlace.end(), f) != nest_.inPlace.end()) {
    os << bodyText(f, 0);
    return true;
  }
  if (!filtered(f))
    return false;
  os << unrollPragma(f) << loopHeader(f) << "\n" << bodyText(f, 0);
  return true;
}

std::string Emitter::unrollPragma(const clang::ForStmt *f) const {
  auto it = unroll_.find(f);
  if (it != unroll_.end())
    return fmt::format("\n#pragma unroll {}\n", it->second);
  return rolled(f) ? "\n#pragma unroll 1\n" : "";
}

bool Emitter::printLoop(const clang::ForStmt *f, llvm::raw_ostream &os) {
  if (f == stagedFor_)
    return false;
  std::string pragma = unrollPragma(f);
  auto acc = accOf_.find(f);
  // clang prints a for-statement's start without the helper, as it does a
  // declaration's initial value (printDeclaration)
  const clang::Stmt *init = f->getInit();
  bool initRewritten = init && print(init) != printPlain(init);
  if (pragma.empty() && acc == accOf_.end() && !initRewritten)
    return false;
  if (acc != accOf_.end()) {
    os << "{\n";
    for (const LoopAcc &a : acc->second)
      os << typed(elemType(a.array).getUnqualifiedType(), a.reg) << " = " << print(a.access)
         << "; // in a register across the loop '" << loopIndexName(f) << "'\n";
    for (const LoopAcc &a : acc->second)
      activeAcc_.push_back(&a);
  }
  os << pragma;
  if (initRewritten) {
    os << loopHeader(f) << " " << stmt(f->getBody(), 0);
  } else {
    helper_.skip = f;
    const_cast<clang::ForStmt *>(f)->printPretty(os, &helper_, policy_, 0, "\n", &ctx_);
  }
  if (acc != accOf_.end()) {
    activeAcc_.resize(activeAcc_.size() - acc->second.size());
    for (const LoopAcc &a : acc->second)
      os << print(a.access) << " = " << a.reg << ";\n";
    os << "}\n";
  }
  return true;
}

/// A loop of the skeleton that the layout does not unroll runs rolled, as the
/// model projects it (docs/emit.md): without the pragma nvcc unrolls a
/// constant-trip loop by up to 32 itself, and its loads go out together
/// (colmean's naive layout ran 0.53 ms, the rolled loop 10x longer). A loop
/// that indexes an array of the thread is left to the compiler: rolled, the
/// array would live in local memory.
bool Emitter::rolled(const clang::ForStmt *f) const {
  bool isSkeletonLoop = false;
  for (const auto &[k, c] : loopByIndex_)
    isSkeletonLoop = isSkeletonLoop || c == f;
  if (!isSkeletonLoop)
    return false;
  bool threadArray = false;
  std::function<void(const clang::Stmt *)> walk = [&](const clang::Stmt *s) {
    if (!s || threadArray)
      return;
    if (auto *r = llvm::dyn_cast<clang::DeclRefExpr>(s))
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(r->getDecl()))
        threadArray = v->hasLocalStorage() && v->getType()->isArrayType();
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(s))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d))
          threadArray = threadArray || v->getType()->isArrayType();
    for (const clang::Stmt *c : s->children())
      walk(c);
  };
  walk(f->getBody());
  return !threadArray;
}

/// The index a C loop's header writes (its name), or "?".
std::string Emitter::loopIndexName(const clang::ForStmt *f) const {
  std::string why;
  if (auto h = frontend::parseLoopHeader(f, ctx_, why))
    return h->var->getName().str();
  VarUses hu;
  if (f->getInit())
    hu.TraverseStmt(const_cast<clang::Stmt *>(f->getInit()));
  for (const clang::VarDecl *v : hu.order)
    if (hu.written.count(v) || hu.declaredInside.count(v))
      return v->getName().str();
  return "?";
}

/// The header of a C loop as written (`for (k = 0; k < 400; ++k)`).
std::string Emitter::loopHeader(const clang::ForStmt *f) const {
  auto &self = const_cast<Emitter &>(*this);
  std::string init;
  if (f->getInit()) {
    init = llvm::isa<clang::DeclStmt>(f->getInit()) ? self.print(f->getInit())
                                                      : self.print(f->getInit()) + ";";
    while (!init.empty() && (init.back() == '\n' || init.back() == ' '))
      init.pop_back();
  } else {
    init = ";";
  }
  std::string cond = f->getCond() ? " " + self.print(f->getCond()) : "";
  std::string inc = f->getInc() ? " " + self.print(f->getInc()) : "";
  return fmt::format("for ({}{};{})", init, cond, inc);
}

} // namespace skelcast::emit::detail
