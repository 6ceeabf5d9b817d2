// Element pairs (docs/emit.md, "Element pairs"): C code keeps a complex
// number as the two elements of an array's last dimension of extent 2
// (`float A[R][N][2]`, [0] the real part, [1] the imaginary), and reads and
// writes the two with two accesses. Written so, each is a 4-byte access at an
// 8-byte stride: a warp's store covers every sector it touches only by half,
// and SpinFlap's stores reached L2 as 10.7 million sectors where the same
// kernel with the pair as one 8-byte store wrote 4.8 million, 1.6-1.8x faster
// (validation/results/h200_emit29_forms.json). A CUDA port keeps such data as
// float2 or double2; emit writes the pair as one access of that size:
//   - two consecutive assignments `X[s][0] = e0; X[s][1] = e1;` one store,
//     `*(sk_float2 *)&X[s][0] = sk_float2{(float)(e0), (float)(e1)};`
//   - a read of an element of an array the nest only reads, `X[s][k]`, as
//     the pair's member: `((const sk_float2 *)&X[s][0])->x` (nvcc then loads
//     the two members a thread reads as one 8-byte load).
// The pair lies at an 8-byte (double: 16-byte) multiple from the array's
// start, which the driver's cudaMalloc aligns to 256 bytes.
#include "Emitter.h"

#include <functional>

namespace skelcast::emit::detail {

namespace {

/// `X[s...][k]` with k the literal 0 or 1: the access's array, its element
/// index k and its prefix `X[s...]` (the row of the pair); else no array.
struct PairAccess {
  const clang::VarDecl *array = nullptr;
  int which = -1;
  const clang::Expr *row = nullptr;
};

PairAccess pairAccess(const clang::Expr *e) {
  auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  if (!a)
    return {};
  auto *lit = llvm::dyn_cast<clang::IntegerLiteral>(a->getIdx()->IgnoreParenImpCasts());
  if (!lit || lit->getValue().ugt(1))
    return {};
  const clang::Expr *row = a->getBase()->IgnoreParenImpCasts();
  // the row must be an array of 2 elements, not a pointer (a flat array)
  auto *rowArr = llvm::dyn_cast<clang::ArraySubscriptExpr>(row);
  if (!rowArr)
    return {};
  const clang::Type *rt = rowArr->getType().getCanonicalType().getTypePtr();
  auto *ca = llvm::dyn_cast<clang::ConstantArrayType>(rt);
  if (!ca || ca->getSize() != 2)
    return {};
  const clang::Expr *b = row;
  while (auto *x = llvm::dyn_cast<clang::ArraySubscriptExpr>(b->IgnoreParenImpCasts()))
    b = x->getBase();
  auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(b->IgnoreParenImpCasts());
  if (!ref)
    return {};
  auto *v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
  if (!v)
    return {};
  return {v, static_cast<int>(lit->getValue().getZExtValue()), row};
}

/// The number of times `s` names `v`.
int namings(const clang::Stmt *s, const clang::VarDecl *v) {
  if (!s)
    return 0;
  int n = 0;
  if (auto *r = llvm::dyn_cast<clang::DeclRefExpr>(s))
    n += r->getDecl() == v;
  for (const clang::Stmt *c : s->children())
    n += namings(c, v);
  return n;
}

/// The row of an access as plain C (Emitter::printPlain), to compare rows by.
using PlainText = std::function<std::string(const clang::Expr *)>;

/// The accesses of `v` in `s` that are its element `row[which]`.
int ownElement(const clang::Stmt *s, const clang::VarDecl *v, const std::string &row, int which,
               const PlainText &plain) {
  if (!s)
    return 0;
  if (auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    PairAccess p = pairAccess(e);
    if (p.array == v && p.which == which && plain(p.row) == row)
      return 1;
  }
  int n = 0;
  for (const clang::Stmt *c : s->children())
    n += ownElement(c, v, row, which, plain);
  return n;
}

bool mentions(const clang::Stmt *s, const clang::VarDecl *v) { return namings(s, v) > 0; }

/// Whether `s` reads `v` anywhere but at its element `row[which]`.
bool readsOtherThan(const clang::Stmt *s, const clang::VarDecl *v, const std::string &row,
                    int which, const PlainText &plain) {
  return namings(s, v) != ownElement(s, v, row, which, plain);
}

/// A declaration statement that defines an unnamed struct, union or enum
/// (`enum { LO, HI } w = ...;`): emit can print it only as written.
bool definesUnnamedType(const clang::Stmt *s) {
  auto *ds = llvm::dyn_cast<clang::DeclStmt>(s);
  if (!ds)
    return false;
  for (const clang::Decl *d : ds->decls())
    if (auto *tag = llvm::dyn_cast<clang::TagDecl>(d); tag && tag->getName().empty())
      return true;
  return false;
}

void collect(const clang::Stmt *s, std::vector<const clang::ArraySubscriptExpr *> &reads,
             std::vector<const clang::CompoundStmt *> &lists) {
  if (!s || definesUnnamedType(s))
    return; // its reads stay as written
  if (auto *c = llvm::dyn_cast<clang::CompoundStmt>(s))
    lists.push_back(c);
  if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(s))
    reads.push_back(a);
  for (const clang::Stmt *c : s->children())
    collect(c, reads, lists);
}

} // namespace

/// Whether emit may rewrite the array's accesses: a kernel parameter of float
/// or double elements that no tile, register or loop accumulator holds.
bool Emitter::pairable(const clang::VarDecl *v) const {
  if (std::find(arrays_.begin(), arrays_.end(), v) == arrays_.end() || tileOf_.count(v) ||
      regOf_.count(v))
    return false;
  for (const RegElem &r : regs_)
    if (r.array == v)
      return false;
  for (const auto &[f, accs] : accOf_)
    for (const LoopAcc &a : accs)
      if (a.array == v)
        return false;
  clang::QualType e = elemType(v);
  return !e.isNull() && (e->isSpecificBuiltinType(clang::BuiltinType::Float) ||
                         e->isSpecificBuiltinType(clang::BuiltinType::Double)) &&
         !e.isVolatileQualified();
}

std::string Emitter::pairType(const clang::VarDecl *v) const {
  return elemType(v)->isSpecificBuiltinType(clang::BuiltinType::Double) ? "sk_double2"
                                                                        : "sk_float2";
}

void Emitter::planPairs() {
  std::vector<const clang::ArraySubscriptExpr *> reads;
  std::vector<const clang::CompoundStmt *> lists;
  for (const clang::Stmt *s : nest_.body)
    collect(s, reads, lists);
  // stores, in the nest's statement list and its loop bodies' (none in a
  // fission's kernel, whose statements are a subset)
  std::vector<std::vector<const clang::Stmt *>> seqs;
  if (nest_.only.empty()) {
    seqs.push_back(nest_.body);
    for (const clang::CompoundStmt *c : lists)
      seqs.emplace_back(c->body_begin(), c->body_end());
  }
  const PlainText plain = [this](const clang::Expr *e) { return printPlain(e); };
  for (const auto &seq : seqs) {
    for (size_t i = 0; i + 1 < seq.size(); ++i) {
      auto *s0 = llvm::dyn_cast<clang::BinaryOperator>(seq[i]);
      auto *s1 = llvm::dyn_cast<clang::BinaryOperator>(seq[i + 1]);
      if (!s0 || !s1 || s0->getOpcode() != clang::BO_Assign || s1->getOpcode() != clang::BO_Assign)
        continue;
      PairAccess p0 = pairAccess(s0->getLHS()), p1 = pairAccess(s1->getLHS());
      if (!p0.array || p0.array != p1.array || p0.which + p1.which != 1 ||
          !pairable(p0.array))
        continue;
      std::string row = printPlain(p0.row);
      if (printPlain(p1.row) != row)
        continue;
      // the two values are computed before either store: the second may read
      // the array only at its own element, which the first store leaves
      bool rowReads = false;
      for (const clang::Expr *x = p0.row;
           auto *r = llvm::dyn_cast<clang::ArraySubscriptExpr>(x->IgnoreParenImpCasts());
           x = r->getBase())
        rowReads = rowReads || mentions(r->getIdx(), p0.array);
      if (rowReads || readsOtherThan(s1->getRHS(), p0.array, row, p1.which, plain) ||
          s0->getRHS()->HasSideEffects(ctx_) || s1->getRHS()->HasSideEffects(ctx_) ||
          p0.row->HasSideEffects(ctx_))
        continue;
      pairStore_[s0] = s1;
      pairSecond_.insert(s1);
      ++i;
    }
  }
  // loads: the reads of arrays the nest only reads, where the other half of
  // the pair is read too
  std::set<std::string> halves;
  std::vector<std::pair<const clang::ArraySubscriptExpr *, std::string>> cands;
  for (const clang::ArraySubscriptExpr *a : reads) {
    PairAccess p = pairAccess(a);
    if (!p.array || !readOnly_.count(p.array) || !pairable(p.array) ||
        p.row->HasSideEffects(ctx_))
      continue;
    std::string row = printPlain(p.row);
    halves.insert(row + "#" + std::to_string(p.which));
    cands.emplace_back(a, row + "#" + std::to_string(1 - p.which));
  }
  for (const auto &[a, other] : cands)
    if (halves.count(other))
      pairLoad_.insert(a);
}

bool Emitter::printPairedLoad(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os) {
  if (!pairLoad_.count(a))
    return false;
  PairAccess p = pairAccess(a);
  os << "((const " << pairType(p.array) << " *)&" << print(p.row) << "[0])->"
     << (p.which == 0 ? "x" : "y");
  return true;
}

bool Emitter::printPairedStore(const clang::Stmt *s, llvm::raw_ostream &os) {
  if (pairSecond_.count(s)) {
    auto *b = llvm::cast<clang::BinaryOperator>(s);
    os << "/* " << printPlain(b->getLHS()) << ": stored with its pair above */";
    return true;
  }
  auto it = pairStore_.find(s);
  if (it == pairStore_.end())
    return false;
  auto *s0 = llvm::cast<clang::BinaryOperator>(s);
  auto *s1 = llvm::cast<clang::BinaryOperator>(it->second);
  PairAccess p = pairAccess(s0->getLHS());
  if (p.which == 1)
    std::swap(s0, s1); // written [1] first: the members in their order
  std::string e = elemName(p.array);
  os << "*(" << pairType(p.array) << " *)&" << print(p.row) << "[0] = " << pairType(p.array)
     << "{(" << e << ")(" << print(s0->getRHS()) << "), (" << e << ")(" << print(s1->getRHS())
     << ")}";
  return true;
}

std::string Emitter::pairTypes() const {
  bool f = false, d = false;
  auto note = [&](const clang::VarDecl *v) {
    (pairType(v) == "sk_double2" ? d : f) = true;
  };
  for (const auto &[s, s1] : pairStore_)
    note(pairAccess(llvm::cast<clang::BinaryOperator>(s)->getLHS()).array);
  for (const clang::ArraySubscriptExpr *a : pairLoad_)
    note(pairAccess(a).array);
  std::string out;
  if (f)
    out += "struct __align__(8) sk_float2 { float x, y; }; // an element pair [0], [1]: one "
           "8-byte access\n";
  if (d)
    out += "struct __align__(16) sk_double2 { double x, y; }; // an element pair [0], [1]: one "
           "16-byte access\n";
  return out;
}

} // namespace skelcast::emit::detail
