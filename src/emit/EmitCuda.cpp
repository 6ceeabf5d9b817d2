// The CUDA of a layout (docs/emit.md): the kernel is the C nest's own body,
// printed from Clang's AST, inside the layout's thread mapping; the host
// driver fills the arrays, runs the C nest on the host (printed from the same
// AST), launches, checks and times the kernel and prints a measurement record.
#include "skelcast/emit/Emit.h"

#include "frontend/ClangNodes.h"
#include "frontend/LoopHeader.h"
#include "frontend/NestAst.h"

#include "skelcast/layout/KernelInfo.h"
#include "skelcast/skeleton/Printer.h"
#include "skelcast/skeleton/Sample.h"

#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/StmtOpenMP.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/APSInt.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace skelcast::emit {

using frontend::NestAst;

LaunchShape launchShape(const layout::KernelInfo &ki, const layout::Layout &l) {
  LaunchShape s;
  size_t n = ki.dimSize.size();
  for (size_t d = 0; d < n; ++d) {
    size_t axis = n - 1 - d; // the last parallel dimension is x
    int64_t tile = l.block[d] * l.fold[d];
    s.block[axis] = l.block[d];
    s.grid[axis] = (ki.dimSize[d] + tile - 1) / tile;
  }
  return s;
}

layout::Layout naiveLayout(const layout::KernelInfo &ki) {
  static const std::vector<std::vector<int64_t>> kShapes = {{256}, {16, 16}, {4, 8, 8}};
  layout::Layout l;
  size_t n = ki.dimSize.size();
  for (size_t d = 0; d < n; ++d) {
    l.block.push_back(std::min(kShapes[n - 1][d], layout::nextPow2(ki.dimSize[d])));
    l.fold.push_back(1);
  }
  return l;
}

namespace {

const char *kAxis[3] = {"x", "y", "z"};

/// Where a construct is: `file:line:col` of its expansion.
SourceLoc positionOf(clang::ASTContext &ctx, clang::SourceLocation loc, const std::string &path) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  clang::SourceLocation e = sm.getExpansionLoc(loc);
  if (e.isInvalid())
    return {path, 0, 0};
  return {path, static_cast<int>(sm.getExpansionLineNumber(e)),
          static_cast<int>(sm.getExpansionColumnNumber(e))};
}

/// The variables a nest refers to and which of them it writes.
struct VarUses : clang::RecursiveASTVisitor<VarUses> {
  std::vector<const clang::VarDecl *> order; // first use
  std::set<const clang::VarDecl *> used, written, declaredInside;
  std::vector<const clang::CallExpr *> calls;
  std::vector<const clang::Stmt *> jumps; // return, goto
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    if (auto *v = llvm::dyn_cast<clang::VarDecl>(e->getDecl()))
      if (used.insert(v).second)
        order.push_back(v);
    return true;
  }
  bool VisitVarDecl(clang::VarDecl *v) {
    declaredInside.insert(v);
    return true;
  }
  void noteWrite(const clang::Expr *e) {
    e = e->IgnoreParenImpCasts();
    if (auto *r = llvm::dyn_cast<clang::DeclRefExpr>(e))
      if (auto *v = llvm::dyn_cast<clang::VarDecl>(r->getDecl()))
        written.insert(v);
  }
  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (b->isAssignmentOp())
      noteWrite(b->getLHS());
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf)
      noteWrite(u->getSubExpr());
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *c) {
    calls.push_back(c);
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt *s) {
    jumps.push_back(s);
    return true;
  }
  bool VisitGotoStmt(clang::GotoStmt *s) {
    jumps.push_back(s);
    return true;
  }
};

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

bool readsMemory(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ArraySubscriptExpr>(s) || llvm::isa<clang::CallExpr>(s))
    return true;
  if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(s))
    if (u->getOpcode() == clang::UO_Deref)
      return true;
  for (const clang::Stmt *c : s->children())
    if (readsMemory(c))
      return true;
  return false;
}

/// The variables `uses` saw passed to a call (inside an argument): an array
/// among them may be written through it, so none is kept in a register.
std::set<const clang::VarDecl *> passedToCalls(const VarUses &uses) {
  std::set<const clang::VarDecl *> passed;
  for (const clang::CallExpr *c : uses.calls)
    for (const clang::Expr *arg : c->arguments()) {
      VarUses au;
      au.TraverseStmt(const_cast<clang::Expr *>(arg));
      passed.insert(au.used.begin(), au.used.end());
    }
  return passed;
}

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

/// The file's own typedefs a kernel's code names (`typedef char base;` for
/// PolyBench's nussinov), each after the typedefs its own type names; those of
/// system headers are left to the headers.
struct TypedefUses : clang::RecursiveASTVisitor<TypedefUses> {
  explicit TypedefUses(const clang::SourceManager &sm) : sm(sm) {}
  const clang::SourceManager &sm;
  std::vector<const clang::TypedefNameDecl *> order;
  std::set<const clang::TypedefNameDecl *> seen;
  void addType(clang::QualType t) {
    if (t.isNull())
      return;
    const clang::Type *ty = t.getTypePtr();
    if (auto *tt = llvm::dyn_cast<clang::TypedefType>(ty))
      return addDecl(tt->getDecl());
    if (auto *pt = llvm::dyn_cast<clang::PointerType>(ty))
      return addType(pt->getPointeeType());
    if (auto *at = llvm::dyn_cast<clang::ArrayType>(ty))
      return addType(at->getElementType());
    if (auto *dt = llvm::dyn_cast<clang::DecayedType>(ty))
      return addType(dt->getOriginalType());
    if (auto *pt = llvm::dyn_cast<clang::ParenType>(ty))
      return addType(pt->getInnerType());
    if (auto *et = llvm::dyn_cast<clang::ElaboratedType>(ty))
      return addType(et->getNamedType());
    if (auto *at = llvm::dyn_cast<clang::AttributedType>(ty))
      return addType(at->getModifiedType());
    if (auto *ft = llvm::dyn_cast<clang::FunctionProtoType>(ty)) {
      addType(ft->getReturnType());
      for (clang::QualType p : ft->getParamTypes())
        addType(p);
    }
  }
  void addDecl(const clang::TypedefNameDecl *d) {
    if (!d || !seen.insert(d).second)
      return;
    if (sm.isInSystemHeader(d->getLocation())) {
      system = true;
      return;
    }
    // not written: a name C++ keeps for itself (`typedef int bool;`: the
    // kernel then uses C++'s bool, as before), a struct, union or enum (their
    // definitions are not emitted; a typedef alone would declare another,
    // incomplete type), and `__typeof__`, which C++ spells otherwise
    clang::QualType u = d->getUnderlyingType();
    static const std::set<std::string> keywords = {"bool", "wchar_t", "char8_t", "char16_t",
                                                   "char32_t"};
    if (keywords.count(d->getName().str()))
      return;
    if (u->getAsTagDecl() || llvm::isa<clang::TypeOfExprType>(u.getTypePtr()) ||
        llvm::isa<clang::TypeOfType>(u.getTypePtr())) {
      if (!unwritable)
        unwritable = d;
      return;
    }
    for (const clang::TypedefNameDecl *o : order)
      if (o->getName() == d->getName() && !unwritable)
        unwritable = d; // two typedefs of one name (one local to a function)
    addType(u);
    order.push_back(d);
  }
  /// A typedef emit cannot write: of a struct, union or enum (their
  /// definitions are not emitted), of `__typeof__`, or a second one of a name.
  const clang::TypedefNameDecl *unwritable = nullptr;
  bool system = false; ///< a typedef of a system header is named (`uint32_t`)
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc tl) {
    addDecl(tl.getTypedefNameDecl());
    return true;
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    addType(e->getDecl()->getType());
    return true;
  }
  bool VisitValueDecl(clang::ValueDecl *v) {
    addType(v->getType());
    return true;
  }
};

/// A cached array's shared-memory tile: per dimension of the array, the
/// first element (a runtime expression) and the extent (a constant).
struct Tile {
  int array = -1;          ///< in ki.arrays
  std::string name;        ///< the C variable
  std::string elem;        ///< element type
  int staged = -1;         ///< the staged loop (ki.loops) whose stages reload it, or -1
  std::vector<std::string> base; ///< per dimension
  std::vector<int64_t> baseMin, baseMax; ///< the base's range over the blocks and stages
  std::vector<int64_t> extent;
  int64_t elemBytes = 4;
  int64_t offset = 0;      ///< in the block's dynamic shared memory, bytes
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t e : extent)
      n *= e;
    return n;
  }
};

/// An element of a global array that a task reads and writes in the
/// streaming loop (`tmp[i][j] += ...` after `tmp[i][j] = 0`), kept in a
/// register across the loop: loaded before it (unless the body's first use
/// stores it), stored after it.
struct RegElem {
  const clang::VarDecl *array = nullptr;
  const clang::Expr *access = nullptr; ///< one of its accesses, as written
  std::string reg;                     ///< the register array, one slot per task
  bool load = true;                    ///< its value before the body is read
};

/// An element accumulated inside one loop of the task (trmm's `B[i][j] +=
/// A[k][i] * B[k][j]` in the k loop) that the loop also reads elsewhere in its
/// array: a register across that loop, loaded before it and stored after it.
/// nvcc keeps such an element in memory, since it cannot tell `B[k][j]` from
/// `B[i][j]`, and every iteration then waits for the last one's store.
struct LoopAcc {
  const clang::VarDecl *array = nullptr;
  const clang::ArraySubscriptExpr *access = nullptr; ///< one of its accesses, as written
  std::vector<std::string> subs; ///< its subscripts, innermost first, as plain C
  std::string reg;               ///< the register
};

class Emitter;

/// Prints the nest's statements as CUDA: cached arrays read from their
/// shared tile, unrolled loops with `#pragma unroll`.
class Helper : public clang::PrinterHelper {
public:
  explicit Helper(Emitter &e) : e_(e) {}
  bool handledStmt(clang::Stmt *s, llvm::raw_ostream &os) override;
  const clang::Stmt *skip = nullptr; ///< print this one the default way (no recursion)

private:
  Emitter &e_;
};

class Emitter {
public:
  Emitter(clang::ASTContext &ctx, const NestAst &nest, const layout::KernelInfo &ki,
          const layout::Layout &l, const frontend::SkeletonizeResult &res, std::string path)
      : ctx_(ctx), nest_(nest), ki_(ki), l_(l), res_(res), path_(std::move(path)),
        policy_(ctx.getPrintingPolicy()) {
    policy_.Bool = true;
    policy_.SuppressTagKeyword = false;
    policy_.IncludeNewlines = true;
  }

  std::string kernelName() const { return "skelcast_" + ki_.name; }

  std::string run(const std::string &layoutText) {
    analyse();
    std::string out;
    out += header(layoutText);
    out += kernel();
    out += host(layoutText);
    return out;
  }

  // --- used by Helper ------------------------------------------------------
  bool printAccess(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os);
  bool printLoop(const clang::ForStmt *f, llvm::raw_ostream &os);
  bool printInPlace(const clang::ForStmt *f, llvm::raw_ostream &os);
  /// The statements of f's body that are the kernel's (a fission's group,
  /// NestAst::only: frontend::keptBody).
  std::vector<const clang::Stmt *> bodyOf(const clang::ForStmt *f) const {
    return frontend::keptBody(f, nest_.only);
  }
  /// Some, not all, of f's statements are the kernel's.
  bool filtered(const clang::ForStmt *f) const { return frontend::partlyKept(f, nest_.only); }
  /// `#pragma unroll N` for a loop the layout unrolls, `1` for one that runs
  /// rolled (rolled()), else empty: the compiler's choice.
  std::string unrollPragma(const clang::ForStmt *f) const;
  /// The kernel's statements inside `x`, in `uses` (a fission's group).
  void traverseKept(VarUses &uses, const clang::Stmt *x) const;
  /// `x` as plain C, a fission's loops with the group's statements only.
  std::string plainKept(const clang::Stmt *x, unsigned indent);
  /// bodyOf as one statement on its own lines (for a loop's body).
  std::string bodyText(const clang::ForStmt *f, unsigned indent) {
    if (!filtered(f))
      return stmt(f->getBody(), indent);
    auto b = bodyOf(f);
    std::string t = std::string(2 * indent, ' ') + "{\n";
    for (const clang::Stmt *x : b)
      t += stmt(x, indent + 1);
    return t + std::string(2 * indent, ' ') + "}\n";
  }
  bool rolled(const clang::ForStmt *f) const;
  bool printPromoted(const clang::Stmt *s, llvm::raw_ostream &os);
  std::string print(const clang::Stmt *s, unsigned indent = 0) {
    std::string text;
    llvm::raw_string_ostream os(text);
    s->printPretty(os, &helper_, policy_, indent, "\n", &ctx_);
    os.flush();
    return text;
  }
  /// A statement on its own lines (an expression statement gets its `;`).
  std::string stmt(const clang::Stmt *s, unsigned indent) {
    if (llvm::isa<clang::Expr>(s))
      return std::string(2 * indent, ' ') + print(s) + ";\n";
    return print(s, indent);
  }
  std::string printPlain(const clang::Stmt *s, unsigned indent = 0) {
    std::string text;
    llvm::raw_string_ostream os(text);
    s->printPretty(os, nullptr, policy_, indent, "\n", &ctx_);
    os.flush();
    return text;
  }

private:
  [[noreturn]] void fail(clang::SourceLocation loc, const std::string &what) {
    throw InputError(positionOf(ctx_, loc, path_),
                     fmt::format("cannot emit kernel '{}': {}", ki_.name, what));
  }
  [[noreturn]] void failLayout(const std::string &part, const std::string &what) {
    throw InputError(positionOf(ctx_, nest_.parallel.front()->getBeginLoc(), path_),
                     fmt::format("cannot emit kernel '{}' in layout part '{}': {}", ki_.name,
                                 part, what));
  }

  std::string typed(clang::QualType t, const std::string &name) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    t.print(os, policy_, name);
    os.flush();
    return text;
  }

  /// The array's parameter type: the C variable's, decayed (`float (*A)[400]`).
  clang::QualType paramType(const clang::VarDecl *v) const {
    clang::QualType t = v->getType();
    if (t->isArrayType())
      t = ctx_.getDecayedType(t);
    return t;
  }
  clang::QualType elemType(const clang::VarDecl *v) const {
    clang::QualType t = paramType(v);
    if (!t->isPointerType())
      return {};
    t = t->getPointeeType();
    while (t->isArrayType())
      t = ctx_.getAsArrayType(t)->getElementType();
    return t;
  }
  std::string elemName(const clang::VarDecl *v) const {
    return elemType(v).getUnqualifiedType().getAsString(policy_);
  }

  void analyse();
  void planTiles();
  void planIndexType();
  std::string header(const std::string &layoutText);
  std::string kernel();
  std::string taskCoords(const std::string &ind, bool guardContinue);
  std::string loadTiles(int staged, const std::string &ind);
  std::string stagedBody(const std::string &ind);
  std::string stagedKernel(const std::string &ind);
  std::string phase(const std::string &ind, const std::string &body);
  size_t taskDepth() const;
  void promote();
  void planTile();
  bool taskDependent(const clang::Stmt *s) const;
  std::string loopHeader(const clang::ForStmt *f) const;
  std::string loopIndexName(const clang::ForStmt *f) const;
  int64_t constantTrips(size_t d) const;
  std::string tripsText(size_t d);
  bool needsGuard(size_t d) const;
  std::string wholeCondition();
  std::string chainText(const std::string &ind, size_t from, const std::string &firstHeader);
  std::string tasksPhase(const std::string &ind, const std::vector<const clang::Stmt *> &stmts,
                         bool first, bool last);
  void planRegisters();
  void planLoopAccumulators();
  std::vector<std::string> subscriptTexts(const clang::ArraySubscriptExpr *a);
  bool distinctInLoop(const frontend::LoopHeader &h, const clang::Expr *other,
                      const std::string &own);
  std::string sharedChain(const std::string &ind);
  std::string interleaved(const std::string &ind, size_t from, const std::string &firstHeader);
  clang::QualType kernelParamType(const clang::VarDecl *v, bool restrict) const;
  std::string host(const std::string &layoutText);
  std::string referenceFunction();
  std::string hostValue(const clang::VarDecl *v);

  clang::ASTContext &ctx_;
  const NestAst &nest_;
  const layout::KernelInfo &ki_;
  const layout::Layout &l_;
  const frontend::SkeletonizeResult &res_;
  std::string path_;
  clang::PrintingPolicy policy_;
  Helper helper_{*this};

  // the analysis
  std::vector<frontend::LoopHeader> par_;                   ///< per parallel dimension
  std::vector<const clang::VarDecl *> arrays_;               ///< params, in ki.arrays order
  std::vector<int> arrayIndex_;                              ///< ki.arrays index of each
  std::vector<const clang::VarDecl *> scalars_;              ///< read-only values: params
  std::vector<const clang::VarDecl *> privates_;             ///< written, declared outside
  /// The kernel's scalar reductions (docs/emit.md, "Reductions"): each
  /// thread's partial, a tree in shared memory at `offset`, one atomic per block.
  struct Red {
    const clang::VarDecl *var = nullptr;
    skeleton::ReduceOp op = skeleton::ReduceOp::Add;
    int64_t offset = 0; ///< into the block's dynamic shared memory
  };
  std::vector<Red> reds_;
  std::string identity(const Red &r) const;
  std::string blockReduction(const std::string &ind);
  std::vector<const clang::VarDecl *> parVarsOutside_;       ///< parallel indices declared outside
  std::vector<const clang::CallExpr *> calls_;
  std::vector<const clang::FunctionDecl *> helpers_; ///< the file's functions it calls
  bool barriers_ = false, foldLoops_ = false;
  /// How a folded layout's tasks are written (docs/emit.md, "Folding"): the
  /// register tile (the tasks interleaved inside the innermost loop of the
  /// streaming chain, what eq. 13 and the register estimate assume), a
  /// loop-free body's tasks unrolled, or the loop over tasks (tileWhy_ says why).
  enum class Tasks { Loop, Tile, Unrolled } tasks_ = Tasks::Loop;
  std::string tileWhy_;
  bool guardsOff_ = false; ///< writing the fast path where every task is in range
  /// The type of the thread's task, trip and tile coordinates (planIndexType):
  /// `int` where every value they take fits, else `long long`.
  std::string idx_ = "long long";
  /// parallel dimensions, not folded, whose index the streaming loops' headers read
  std::vector<size_t> sharedDims_;
  std::vector<const clang::DeclStmt *> sharedLocals_; ///< locals computed once per thread
  std::set<const clang::VarDecl *> sharedLocalVars_;
  size_t streamAt_ = 0;                                   ///< the streaming loop in nest_.body
  std::vector<const clang::ForStmt *> chain_;             ///< it and the perfect chain inside it
  std::set<const clang::VarDecl *> readOnly_;             ///< arrays passed `const`
  std::vector<Tile> tiles_;
  std::set<const clang::VarDecl *> promoted_;          ///< arrays over the folded tasks
  std::vector<const clang::VarDecl *> promotedOrder_;
  std::vector<RegElem> regs_;                          ///< elements kept in registers
  std::map<const clang::VarDecl *, size_t> regOf_;
  std::map<const clang::ForStmt *, std::vector<LoopAcc>> accOf_; ///< per loop
  std::vector<const LoopAcc *> activeAcc_; ///< those of the loops being printed
  int64_t smemBytes_ = 0; ///< dynamic shared memory per block
  std::map<const clang::VarDecl *, size_t> tileOf_;
  std::map<const clang::ForStmt *, int64_t> unroll_;         ///< C loop -> factor
  const clang::ForStmt *stagedFor_ = nullptr;
  int stagedLoop_ = -1;
  int64_t stageSize_ = 0;
  std::set<const clang::VarDecl *> chainVars_;             ///< the streaming loops' indices
  std::map<std::string, const clang::ForStmt *> loopOf_;     ///< ki loop name -> C loop
  std::map<int, const clang::ForStmt *> loopByIndex_;        ///< ki loop -> C loop
};

bool Helper::handledStmt(clang::Stmt *s, llvm::raw_ostream &os) {
  if (s == skip) {
    skip = nullptr;
    return false;
  }
  if (e_.printPromoted(s, os))
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
  std::set<const clang::VarDecl *> passed; // to a call: its parameter's type stays
  for (const clang::CallExpr *c : uses.calls)
    for (const clang::Expr *arg : c->arguments()) {
      VarUses au;
      au.TraverseStmt(const_cast<clang::Expr *>(arg));
      passed.insert(au.used.begin(), au.used.end());
    }
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

/// The value a reduction starts from: the operator's identity, in the
/// scalar's type (docs/emit.md, "Reductions").
std::string Emitter::identity(const Red &r) const {
  clang::QualType t = r.var->getType().getCanonicalType();
  bool floating = t->isRealFloatingType();
  uint64_t bits = ctx_.getTypeSize(t);
  bool isSigned = t->isSignedIntegerOrEnumerationType();
  switch (r.op) {
  case skeleton::ReduceOp::Add: return "0";
  case skeleton::ReduceOp::Mul: return "1";
  case skeleton::ReduceOp::Max:
    if (floating)
      return "-INFINITY";
    if (!isSigned)
      return "0";
    return bits > 32 ? "(-9223372036854775807LL - 1)" : bits > 16 ? "(-2147483647 - 1)"
           : bits > 8 ? "(-32768)" : "(-128)";
  case skeleton::ReduceOp::Min:
    if (floating)
      return "INFINITY";
    if (!isSigned)
      return bits > 32 ? "18446744073709551615ULL" : bits > 16 ? "4294967295U"
             : bits > 8 ? "65535" : "255";
    return bits > 32 ? "9223372036854775807LL" : bits > 16 ? "2147483647" : bits > 8 ? "32767" : "127";
  }
  return "0";
}

/// The block's combination of its threads' partials and its one atomic.
std::string Emitter::blockReduction(const std::string &ind) {
  std::string out;
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    clang::QualType ct = r.var->getType().getCanonicalType();
    bool floating = ct->isRealFloatingType();
    uint64_t bits = ctx_.getTypeSize(ct);
    const char *op = skeleton::reduceOpName(r.op);
    std::string combine =
        r.op == skeleton::ReduceOp::Add   ? "a + b"
        : r.op == skeleton::ReduceOp::Mul ? "a * b"
        : r.op == skeleton::ReduceOp::Max ? "a > b ? a : b"
                                          : "a < b ? a : b";
    out += fmt::format("{}{{ // reduce({}: {}): the block's partials in shared memory, a tree, "
                       "one atomic per block\n",
                       ind, op, n);
    std::string in = ind + "  ";
    out += fmt::format("{}{} *const sk_red = ({} *)(sk_smem + {});\n", in, t, t, r.offset);
    out += fmt::format("{}sk_red[sk_tid] = {};\n{}__syncthreads();\n", in, n, in);
    out += fmt::format("{}for (int sk_w = 1; sk_w < sk_threads; sk_w *= 2) {{\n", in);
    out += fmt::format("{}  if (sk_tid % (2 * sk_w) == 0 && sk_tid + sk_w < sk_threads) {{\n", in);
    out += fmt::format("{}    const {} a = sk_red[sk_tid], b = sk_red[sk_tid + sk_w];\n", in, t);
    out += fmt::format("{}    sk_red[sk_tid] = {};\n{}  }}\n{}  __syncthreads();\n{}}}\n", in,
                       combine, in, in, in);
    std::string atomic;
    bool isSigned = ct->isSignedIntegerOrEnumerationType();
    if (r.op == skeleton::ReduceOp::Add && (floating || bits == 32))
      atomic = fmt::format("atomicAdd(sk_red_{}, sk_red[0])", n);
    else if (r.op == skeleton::ReduceOp::Add && bits == 64)
      atomic = fmt::format("atomicAdd((unsigned long long *)sk_red_{}, (unsigned long long)sk_red[0])", n);
    else if ((r.op == skeleton::ReduceOp::Max || r.op == skeleton::ReduceOp::Min) && !floating &&
             bits == 32 && isSigned)
      atomic = fmt::format("{}(sk_red_{}, sk_red[0])",
                           r.op == skeleton::ReduceOp::Max ? "atomicMax" : "atomicMin", n);
    else if (bits == 32 || bits == 64)
      atomic = fmt::format("sk_atomic_cas(sk_red_{}, sk_red[0], [](const {} a, const {} b) {{ "
                           "return {}; }})",
                           n, t, t, combine);
    else
      fail(r.var->getLocation(), fmt::format("the reduction into '{}' of {} bits (atomics take "
                                             "32 or 64)",
                                             n, bits));
    out += fmt::format("{}if (sk_tid == 0)\n{}  {};\n", in, in, atomic);
    out += ind + "}\n";
  }
  return out;
}

/// The kernel's parameter type of an array: the C variable's, decayed, its
/// elements `const` when the nest only reads them, and `restrict` (`cast`:
/// without it, for the launch's cast).
clang::QualType Emitter::kernelParamType(const clang::VarDecl *v, bool restrict) const {
  clang::QualType t = paramType(v);
  if (!t->isPointerType())
    return t;
  if (readOnly_.count(v)) {
    clang::QualType p = t->getPointeeType();
    clang::QualType c = ctx_.getConstType(p);
    t = ctx_.getPointerType(c);
  }
  return restrict ? t.withRestrict() : t.getUnqualifiedType();
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
    size_t rank = ai.extents.size();
    t.base.resize(rank);
    t.baseMin.resize(rank);
    t.baseMax.resize(rank);
    t.extent.resize(rank);
    size_t ndim = ki_.dimSize.size();
    for (size_t e = 0; e < rank; ++e) {
      // runtime variables: the parallel indices (the block's tile) and the
      // staged index (the stage); their coefficients must agree across accesses
      std::map<int, int64_t> runtimeCoef;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      bool firstAcc = true;
      for (const auto *x : acc) {
        const layout::IndexForm &f = x->index[e];
        if (f.kind != layout::IndexForm::Kind::Affine)
          failLayout(part, "a subscript is not affine in the loop indices");
        int64_t mn = f.constant, mx = f.constant;
        for (size_t vi = 0; vi < ki_.vars.size(); ++vi) {
          int64_t c = vi < f.coef.size() ? f.coef[vi] : 0;
          const layout::Var &var = ki_.vars[vi];
          bool runtime = var.dim >= 0 || (t.staged >= 0 && var.loop == t.staged);
          if (runtime) {
            if (firstAcc)
              runtimeCoef[static_cast<int>(vi)] = c;
            else if (runtimeCoef[static_cast<int>(vi)] != c)
              failLayout(part, fmt::format("its accesses move differently with '{}'", var.name));
            continue;
          }
          if (c == 0)
            continue;
          if (var.loop >= 0 && !ki_.loops[var.loop].constTrip)
            failLayout(part, fmt::format("loop '{}' around a read has no constant trip count",
                                         var.name));
          int64_t first = var.lo, last = var.lo + (static_cast<int64_t>(var.trip) - 1) * var.step;
          mn += std::min(c * first, c * last);
          mx += std::max(c * first, c * last);
        }
        firstAcc = false;
        lo = std::min(lo, mn);
        hi = std::max(hi, mx);
      }
      std::string base = fmt::format("{}", lo);
      int64_t width = hi - lo;
      int64_t baseMin = lo, baseMax = lo;
      for (const auto &[vi, c] : runtimeCoef) {
        if (c == 0)
          continue;
        const layout::Var &var = ki_.vars[vi];
        int64_t count, tiles;
        std::string first; // the variable's first value in the tile or stage
        if (var.dim >= 0) {
          count = l_.block[var.dim] * l_.fold[var.dim];
          tiles = (ki_.dimSize[var.dim] + count - 1) / count;
          size_t axis = ndim - 1 - static_cast<size_t>(var.dim);
          first = fmt::format("({} + ({})blockIdx.{} * {} * {})", var.lo, idx_, kAxis[axis],
                              count, var.step);
        } else {
          count = stageSize_;
          tiles = (static_cast<int64_t>(var.trip) + count - 1) / count;
          first = "sk_" + var.name + "0";
        }
        int64_t span = (count - 1) * var.step; // the variable's range within the tile
        int64_t shift = c * var.step > 0 ? 0 : span;
        if (c * var.step > 0)
          base += fmt::format(" + {} * {}", c, first);
        else
          base += fmt::format(" + {} * ({} + {})", c, first, span);
        width += std::abs(c * span);
        // the first tile's and the last one's base
        int64_t v0 = c * (var.lo + shift), v1 = c * (var.lo + (tiles - 1) * count * var.step + shift);
        baseMin += std::min(v0, v1);
        baseMax += std::max(v0, v1);
      }
      t.base[e] = base;
      t.baseMin[e] = baseMin;
      t.baseMax[e] = baseMax;
      t.extent[e] = width + 1;
    }
    t.offset = smemBytes_;
    smemBytes_ += (t.elements() * t.elemBytes + 15) / 16 * 16;
    tileOf_[v] = tiles_.size();
    tiles_.push_back(std::move(t));
  }
}

bool Emitter::printAccess(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os) {
  if (a->getType()->isArrayType())
    return false; // a row: the full access above it is printed
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
  if (subs.size() == rank) {
    for (size_t d = 0; d < rank; ++d)
      coord[d] = print(subs[d]);
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
  if (pragma.empty() && acc == accOf_.end())
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
  helper_.skip = f;
  const_cast<clang::ForStmt *>(f)->printPretty(os, &helper_, policy_, 0, "\n", &ctx_);
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

std::string Emitter::header(const std::string &layoutText) {
  std::string out;
  out += fmt::format("// {}: kernel '{}' of {} in layout '{}'\n", kernelName(), ki_.name,
                     std::filesystem::path(path_).filename().string(), layoutText);
  out += "// Written by 'skelcast emit' (docs/emit.md). Build: nvcc -O3 -arch=sm_90 FILE.cu;\n"
         "// run: ./a.out [--repeats N] [--warmups N] [--tolerance T] prints a measurement record.\n"
         "// Device-only without the CUDA headers: clang -x cuda --cuda-device-only -nocudainc.\n";
  if (tasks_ == Tasks::Tile)
    out += fmt::format("// Folding: a register tile, the thread's {} tasks run inside the streaming "
                       "loop '{}' (docs/emit.md, \"Folding\").\n",
                       l_.foldProduct(), loopIndexName(chain_.back()));
  else if (tasks_ == Tasks::Unrolled)
    out += fmt::format("// Folding: the thread's {} tasks, unrolled (the body has no loop).\n",
                       l_.foldProduct());
  else if (!tileWhy_.empty())
    out += fmt::format("// Folding: a loop over the thread's {} tasks, not a register tile: {} "
                       "(docs/emit.md, \"Folding\").\n",
                       l_.foldProduct(), tileWhy_);
  out += "#if defined(__CUDA__) && !defined(__CUDACC__) // clang without the CUDA headers\n"
         "#include <__clang_cuda_builtin_vars.h>\n"
         "#define __global__ __attribute__((global))\n"
         "#define __device__ __attribute__((device))\n"
         "#define __shared__ __attribute__((shared))\n"
         "#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))\n"
         "#define __align__(n) __attribute__((aligned(n)))\n";
  std::set<std::string> declared;
  for (const clang::CallExpr *c : calls_) {
    const clang::FunctionDecl *fd = c->getDirectCallee();
    if (!declared.insert(fd->getName().str()).second)
      continue;
    std::string params;
    for (const clang::ParmVarDecl *p : fd->parameters())
      params += (params.empty() ? "" : ", ") + p->getType().getAsString(policy_);
    out += fmt::format("extern \"C\" __device__ {} {}({});\n",
                       fd->getReturnType().getAsString(policy_), fd->getName().str(), params);
  }
  out += "#define __host__ __attribute__((host))\n";
  out += "#endif\n";
  out += "#define restrict __restrict__\n";
  out += fmt::format("#define SKELCAST_BARRIERS {} // the kernel calls __syncthreads\n\n",
                     barriers_ ? 1 : 0);
  {
    TypedefUses types(ctx_.getSourceManager());
    for (const clang::VarDecl *v : arrays_)
      types.addType(v->getType());
    for (const clang::VarDecl *v : scalars_)
      types.addType(v->getType());
    for (const clang::VarDecl *v : privates_)
      types.addType(v->getType());
    for (const clang::Stmt *st : nest_.body)
      types.TraverseStmt(const_cast<clang::Stmt *>(st));
    for (const clang::FunctionDecl *fd : helpers_)
      types.TraverseDecl(const_cast<clang::FunctionDecl *>(fd));
    if (types.unwritable)
      fail(types.unwritable->getLocation(),
           fmt::format("it names the type '{}', which emit cannot write (a struct, union or "
                       "enum, a __typeof__, or a second typedef of the name)",
                       types.unwritable->getName().str()));
    if (types.system) // the headers of the C library's typedefs the C file may name
      out += "#include <stddef.h>\n#include <stdint.h>\n";
    for (const clang::TypedefNameDecl *d : types.order)
      out += fmt::format("typedef {}; // as {} declares it\n",
                         typed(d->getUnderlyingType(), d->getName().str()),
                         std::filesystem::path(path_).filename().string());
    if (!types.order.empty() || types.system)
      out += "\n";
  }
  if (!reds_.empty())
    out += R"(#if defined(__CUDA__) && !defined(__CUDACC__) // the atomics, without the CUDA headers
__device__ inline int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__device__ inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
__device__ inline float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__device__ inline double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__device__ inline int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__device__ inline int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__device__ inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)c, (int)v);
}
__device__ inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c,
                                               unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)c, (long long)v);
}
#endif
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
// A reduction's atomic for an operator or type without its own: compare and swap
// until no other block changed the value in between (docs/emit.md, "Reductions").
template <class U, class T, class F> __device__ inline void sk_atomic_cas_as(T *p, T v, F f) {
  union Bits { T t; U u; };
  Bits seen, next;
  seen.t = *p;
  for (;;) {
    next.t = f(seen.t, v);
    U old = atomicCAS((U *)p, seen.u, next.u);
    if (old == seen.u)
      return;
    seen.u = old;
  }
}
template <class T, class F> __device__ inline void sk_atomic_cas(T *p, T v, F f) {
  if constexpr (sizeof(T) == 4)
    sk_atomic_cas_as<unsigned>(p, v, f);
  else
    sk_atomic_cas_as<unsigned long long>(p, v, f);
}

)";
  for (const clang::FunctionDecl *fd : helpers_) {
    std::string text;
    llvm::raw_string_ostream os(text);
    fd->print(os, policy_);
    os.flush();
    out += "__host__ __device__ " + text + "\n\n";
  }
  return out;
}

/// The task of this thread along each parallel dimension (cyclic folding:
/// F_d tasks B_d apart in a block tile of B_d x F_d), its loop indices, and
/// `sk_active` when it falls inside the loop space.
std::string Emitter::taskCoords(const std::string &ind, bool guardContinue) {
  std::string out;
  size_t n = par_.size();
  std::vector<std::string> inRange;
  for (size_t d = 0; d < n; ++d) {
    const auto &h = par_[d];
    size_t axis = n - 1 - d;
    std::string name = h.var->getName().str();
    int64_t tile = l_.block[d] * l_.fold[d];
    std::string task =
        l_.fold[d] > 1
            ? fmt::format("({})blockIdx.{} * {} + sk_f{} * {} + ({})threadIdx.{}", idx_,
                          kAxis[axis], tile, d, l_.block[d], idx_, kAxis[axis])
            : fmt::format("({})blockIdx.{} * {} + ({})threadIdx.{}", idx_, kAxis[axis], tile,
                          idx_, kAxis[axis]);
    std::string init = printPlain(h.init);
    int64_t step = h.step;
    out += fmt::format("{}const {} sk_t{} = {};\n", ind, idx_, d, task);
    bool guard = needsGuard(d) && !guardsOff_;
    if (guard)
      out += fmt::format("{}const {} sk_n{} = {}; // trips of '{}'\n", ind, idx_, d,
                         tripsText(d), name);
    std::string value = fmt::format("({}) {} sk_t{}{}", init, h.decreasing ? "-" : "+", d,
                                    step == 1 ? "" : fmt::format(" * {}", step));
    out += fmt::format("{}{} = {};\n", ind, typed(h.var->getType(), name), value);
    if (guard)
      inRange.push_back(fmt::format("sk_t{} < sk_n{}", d, d));
    else if (!guardsOff_)
      out += fmt::format("{}// '{}': {} trips, {} whole tiles of {}: every task in range\n", ind,
                         name, ki_.dimSize[d], ki_.dimSize[d] / tile, tile);
  }
  std::string cond;
  for (size_t i = 0; i < inRange.size(); ++i)
    cond += (i ? " && " : "") + inRange[i];
  if (barriers_)
    out += fmt::format("{}const bool sk_active = {};\n", ind, cond.empty() ? "true" : cond);
  else if (!cond.empty())
    out += fmt::format("{}if (!({})) {}; // outside the loop space\n", ind, cond,
                       guardContinue ? "continue" : "return");
  return out;
}

/// The cooperative load of the tiles reloaded at `staged` (-1: once per
/// block), by all threads of the block, elements outside the array skipped.
std::string Emitter::loadTiles(int staged, const std::string &ind) {
  std::string out;
  int64_t threads = l_.threadsPerBlock();
  for (const Tile &t : tiles_) {
    if (t.staged != staged)
      continue;
    const layout::ArrayInfo &ai = ki_.arrays[t.array];
    size_t rank = t.extent.size();
    for (size_t d = 0; d < rank; ++d)
      out += fmt::format("{}const {} sk_{}_b{} = {};\n", ind, idx_, t.name, d, t.base[d]);
    // element sk_q of the tile: its coordinates in the array, the test that
    // they are inside it, and the copy
    auto element = [&](const std::string &at, bool test) {
      std::string text, rest = "sk_q", inside, flat;
      for (size_t d = rank; d-- > 0;) {
        std::string coord = d == 0 ? rest : fmt::format("{} % {}", rest, t.extent[d]);
        text += fmt::format("{}const {} sk_g{} = sk_{}_b{} + {};\n", at, idx_, d, t.name, d,
                            coord);
        rest = fmt::format("{} / {}", rest, t.extent[d]);
        inside += fmt::format("{}sk_g{} >= 0 && sk_g{} < {}", inside.empty() ? "" : " && ", d,
                              d, ai.extents[d]);
        flat += fmt::format("{}sk_g{} * {}", flat.empty() ? "" : " + ", d, ai.strides[d]);
      }
      std::string copy =
          fmt::format("sk_{}_tile[sk_q] = ((const {} *){})[{}];\n", t.name, t.elem, t.name, flat);
      if (test)
        text += fmt::format("{}if ({})\n{}  {}", at, inside, at, copy);
      else
        text += at + copy;
      return text;
    };
    // the whole tile inside the array: a constant number of rounds of the
    // block's threads, no test per element, so the loads go out together
    auto rounds = [&](const std::string &at) {
      int64_t n = t.elements(), full = n / threads;
      std::string text;
      if (full > 0) {
        text += full <= 16 ? "#pragma unroll\n" : "#pragma unroll 8\n";
        text += fmt::format("{}for (int sk_r = 0; sk_r < {}; ++sk_r) {{ // {} elements, {} "
                            "threads\n",
                            at, full, n, threads);
        text += fmt::format("{}  const int sk_q = sk_tid + sk_r * {};\n", at, threads);
        text += element(at + "  ", false);
        text += at + "}\n";
      }
      if (n % threads != 0) {
        text += fmt::format("{}if (sk_tid < {}) {{ // the last {} elements\n", at, n % threads,
                            n % threads);
        text += fmt::format("{}  const int sk_q = sk_tid + {};\n", at, full * threads);
        text += element(at + "  ", false);
        text += at + "}\n";
      }
      return text;
    };
    bool always = true; // inside the array for every block and stage
    std::string test;
    for (size_t d = 0; d < rank; ++d) {
      always = always && t.baseMin[d] >= 0 && t.baseMax[d] + t.extent[d] <= ai.extents[d];
      test += fmt::format("{}sk_{}_b{} >= 0 && sk_{}_b{} + {} <= {}", test.empty() ? "" : " && ",
                          t.name, d, t.name, d, t.extent[d], ai.extents[d]);
    }
    if (always) {
      out += fmt::format("{}// the tile lies inside {} for every block{}\n", ind, t.name,
                         staged >= 0 ? " and stage" : "");
      out += rounds(ind);
      continue;
    }
    out += fmt::format("{}if ({}) {{ // the whole tile inside {}\n", ind, test, t.name);
    out += rounds(ind + "  ");
    out += ind + "} else {\n";
    out += fmt::format("{}  for (int sk_q = sk_tid; sk_q < {}; sk_q += sk_threads) {{\n", ind,
                       t.elements());
    out += element(ind + "    ", true);
    out += ind + "  }\n";
    out += ind + "}\n";
  }
  return out;
}

/// The staged loop: per stage, the block loads the tiles of the arrays read
/// in it, waits, runs the stage's iterations, and waits again before the next
/// stage overwrites the tiles. In a register tile the stage's iterations run
/// outside the thread's tasks: `for k in stage { for tasks { body } }`.
std::string Emitter::stagedBody(const std::string &ind) {
  std::string out;
  std::string why;
  auto h = frontend::parseLoopHeader(stagedFor_, ctx_, why);
  const layout::Var &var = ki_.vars[ki_.loops[stagedLoop_].var];
  int64_t lo = var.lo, step = var.step, trip = static_cast<int64_t>(var.trip);
  int64_t end = lo + trip * step;
  std::string name = h->var->getName().str();
  // the stage's first index has the C index's type: `i < sk_i0 + S` is then a
  // constant trip count to the compiler (with `long long sk_i0` and `int i` it
  // is not, and every unrolled iteration tests the exit before its loads)
  out += fmt::format("{}for ({} = {}; sk_{}0 < {}; sk_{}0 += {}) {{ // stages of {} iterations\n",
                     ind, typed(h->var->getType().getUnqualifiedType(), "sk_" + name + "0"), lo,
                     name, end, name, stageSize_ * step, stageSize_);
  std::string in = ind + "  ";
  out += loadTiles(stagedLoop_, in);
  out += in + "__syncthreads();\n";
  int64_t factor = l_.unrollFactor(stagedLoop_);
  bool declaredInInit = h->var->getDeclContext() && stagedFor_->getInit() &&
                        llvm::isa<clang::DeclStmt>(stagedFor_->getInit());
  std::string decl = declaredInInit ? typed(h->var->getType(), name) : name;
  // a whole stage runs a constant trip count (the compiler unrolls it and
  // issues its loads together); only a last, partial stage tests the end
  std::string whole = fmt::format("for ({} = sk_{}0; {} < sk_{}0 + {}; {} += {})", decl, name,
                                  name, name, stageSize_ * step, name, step);
  std::string partial = fmt::format("for ({} = sk_{}0; {} < {}; {} += {})", decl, name, name,
                                    end, name, step);
  auto stageRun = [&](const std::string &at, const std::string &header) {
    if (tasks_ == Tasks::Tile)
      return interleaved(at, 0, header);
    std::string compute;
    std::string cin = at + std::string(2 * taskDepth(), ' ');
    compute += cin + "if (sk_active) {\n";
    if (factor > 1)
      compute += fmt::format("#pragma unroll {}\n", factor);
    compute += cin + "  " + header + "\n";
    compute += bodyText(stagedFor_, static_cast<unsigned>(cin.size() / 2 + 2));
    compute += cin + "}\n";
    return phase(at, compute);
  };
  if (trip % stageSize_ == 0) {
    out += fmt::format("{}// every stage whole: {} iterations = {} stages of {}\n", in, trip,
                       trip / stageSize_, stageSize_);
    out += stageRun(in, whole);
  } else {
    out += fmt::format("{}if (sk_{}0 + {} <= {}) {{ // a whole stage\n", in, name,
                       stageSize_ * step, end);
    out += stageRun(in + "  ", whole);
    out += fmt::format("{}}} else {{ // the last stage: {} of {} iterations\n", in,
                       trip % stageSize_, stageSize_);
    out += stageRun(in + "  ", partial);
    out += in + "}\n";
  }
  out += in + "__syncthreads();\n";
  out += ind + "}\n";
  return out;
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

/// The register tile whose streaming loops' headers read parallel indices
/// that are not folded (IspinEx's `for (n = J[j]; n < J[j + 1]; n++)`, `j`
/// not folded): those indices are the same for all of the thread's tasks, so
/// the chain runs once per thread, in a scope where they are computed and in
/// range (the header may read memory at them).
std::string Emitter::sharedChain(const std::string &ind) {
  std::string out = ind + "{\n";
  std::string in = ind + "  ";
  size_t n = par_.size();
  std::string cond, names;
  for (size_t d : sharedDims_) {
    const auto &h = par_[d];
    size_t axis = n - 1 - d;
    std::string name = h.var->getName().str();
    names += (names.empty() ? "'" : ", '") + name + "'";
    out += fmt::format("{}const {} sk_t{} = ({})blockIdx.{} * {} + ({})threadIdx.{};\n", in, idx_,
                       d, idx_, kAxis[axis], l_.block[d], idx_, kAxis[axis]);
    out += fmt::format("{}{} = ({}) {} sk_t{}{};\n", in, typed(h.var->getType(), name),
                       printPlain(h.init), h.decreasing ? "-" : "+", d,
                       h.step == 1 ? "" : fmt::format(" * {}", h.step));
    if (needsGuard(d))
      cond += fmt::format("{}sk_t{} < {}", cond.empty() ? "" : " && ", d, tripsText(d));
  }
  out += fmt::format("{}// the streaming loop's bounds read {}, the same for all of the thread's "
                     "tasks\n",
                     in, names);
  std::string at = in;
  if (!cond.empty()) {
    out += fmt::format("{}if ({}) {{\n", in, cond);
    at += "  ";
  }
  for (const clang::DeclStmt *ds : sharedLocals_)
    out += stmt(ds, static_cast<unsigned>(at.size() / 2));
  out += interleaved(at, 0, "");
  if (!cond.empty())
    out += in + "}\n";
  out += ind + "}\n";
  return out;
}

/// The trip count of parallel loop `d` as a C expression of its header.
std::string Emitter::tripsText(size_t d) {
  const auto &h = par_[d];
  std::string init = printPlain(h.init), bound = printPlain(h.bound);
  return h.decreasing
             ? fmt::format("({})({}) - ({}){}", idx_, init, bound, h.inclusive ? " + 1" : "")
             : fmt::format("(({})({}) - ({}){} + {}) / {}", idx_, bound, init,
                           h.inclusive ? " + 1" : "", h.step - 1, h.step);
}

/// Whether the tasks of parallel dimension `d` need a guard: always, but in
/// a register tile whose tiles cover a constant trip count exactly (then the
/// tasks' loads of an element they share are one load, not one under each
/// task's own condition).
bool Emitter::needsGuard(size_t d) const {
  if (tasks_ == Tasks::Loop)
    return true;
  int64_t fixed = constantTrips(d), tile = l_.block[d] * l_.fold[d];
  return !(fixed > 0 && fixed == ki_.dimSize[d] && fixed % tile == 0);
}

/// The condition that every task of the thread is in the loop space (its
/// last task along each guarded dimension is), or "" when none needs a guard
/// or a trip count depends on another parallel index.
std::string Emitter::wholeCondition() {
  std::set<const clang::VarDecl *> parVars;
  for (const auto &h : par_)
    parVars.insert(h.var);
  std::string cond;
  size_t n = par_.size();
  for (size_t d = 0; d < n; ++d) {
    if (!needsGuard(d))
      continue;
    VarUses u;
    u.TraverseStmt(const_cast<clang::Expr *>(par_[d].init));
    u.TraverseStmt(const_cast<clang::Expr *>(par_[d].bound));
    for (const clang::VarDecl *v : u.used)
      if (parVars.count(v))
        return "";
    size_t axis = n - 1 - d;
    cond += fmt::format("{}({})blockIdx.{} * {} + {} + ({})threadIdx.{} < {}",
                        cond.empty() ? "" : " && ", idx_, kAxis[axis], l_.block[d] * l_.fold[d],
                        (l_.fold[d] - 1) * l_.block[d], idx_, kAxis[axis], tripsText(d));
  }
  return cond;
}

/// The trip count of parallel loop `d` when its header's values are
/// constants, else -1.
int64_t Emitter::constantTrips(size_t d) const {
  const frontend::LoopHeader &h = par_[d];
  clang::Expr::EvalResult a, b;
  if (!h.init->EvaluateAsInt(a, ctx_) || !h.bound->EvaluateAsInt(b, ctx_) || h.step <= 0)
    return -1;
  int64_t init = a.Val.getInt().getExtValue(), bound = b.Val.getInt().getExtValue();
  int64_t span = h.decreasing ? init - bound : bound - init;
  span += h.inclusive ? 1 : 0;
  return span <= 0 ? 0 : (span + h.step - 1) / h.step;
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

/// The register tile: the chain of streaming loops from chain_[from] (the
/// first one's header given), and inside the innermost, the thread's tasks
/// fully unrolled, each running its iteration of the body under its guard.
std::string Emitter::interleaved(const std::string &ind, size_t from,
                                 const std::string &firstHeader) {
  std::string whole = wholeCondition();
  if (whole.empty())
    return chainText(ind, from, firstHeader);
  // partial tiles: the guards would keep the tasks from sharing loads, so the
  // threads whose tasks are all in range run the tile without them
  std::string out = fmt::format("{}if ({}) {{ // every task of the thread in range\n", ind, whole);
  guardsOff_ = true;
  out += chainText(ind + "  ", from, firstHeader);
  guardsOff_ = false;
  out += ind + "} else {\n";
  out += chainText(ind + "  ", from, firstHeader);
  out += ind + "}\n";
  return out;
}

std::string Emitter::chainText(const std::string &ind, size_t from,
                               const std::string &firstHeader) {
  std::string out;
  std::string in = ind;
  for (size_t c = from; c < chain_.size(); ++c) {
    const clang::ForStmt *f = chain_[c];
    int64_t factor = 0;
    if (c == 0 && stagedFor_)
      factor = l_.unrollFactor(stagedLoop_);
    else if (auto it = unroll_.find(f); it != unroll_.end())
      factor = it->second;
    if (factor > 1)
      out += fmt::format("#pragma unroll {}\n", factor);
    else if (!(c == 0 && stagedFor_) && rolled(f))
      out += "#pragma unroll 1\n";
    out += in + (c == from && !firstHeader.empty() ? firstHeader : loopHeader(f)) +
           (c == from ? " { // the thread's tasks run inside\n" : " {\n");
    in += "  ";
  }
  std::vector<const clang::Stmt *> stmts = bodyOf(chain_.back());
  std::string bin = in + std::string(2 * taskDepth(), ' ');
  unsigned level = static_cast<unsigned>(bin.size() / 2);
  std::string text;
  if (barriers_) {
    text += bin + "if (sk_active) {\n";
    for (const clang::Stmt *st : stmts)
      text += stmt(st, level + 1);
    text += bin + "}\n";
  } else {
    for (const clang::Stmt *st : stmts)
      text += stmt(st, level);
  }
  out += phase(in, text);
  for (size_t c = from; c < chain_.size(); ++c) {
    in.resize(in.size() - 2);
    out += in + "}\n";
  }
  return out;
}

/// The statements of `stmts`, one phase over the thread's tasks, each
/// statement under the task's guard (a promoted local's declaration is its
/// task's assignment; the declaration of a streaming index is the kernel's).
std::string Emitter::tasksPhase(const std::string &ind,
                                const std::vector<const clang::Stmt *> &stmts, bool first,
                                bool last) {
  std::string in = ind + std::string(2 * taskDepth(), ' ');
  unsigned level = static_cast<unsigned>(in.size() / 2);
  std::string body;
  // the elements kept in registers: loaded in the first phase, stored in the last
  auto guarded = [&](const std::string &line) {
    return barriers_ ? in + "if (sk_active)\n" + in + "  " + line + "\n" : in + line + "\n";
  };
  for (const RegElem &r : regs_)
    if (first && r.load)
      body += guarded(fmt::format("{}[sk_fl] = {}; // in a register across the streaming loop",
                                  r.reg, printPlain(r.access)));
  for (const clang::Stmt *st : stmts) {
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st)) {
      bool chainOnly = true;
      for (const clang::Decl *d : ds->decls())
        chainOnly = chainOnly && llvm::isa<clang::VarDecl>(d) &&
                    (chainVars_.count(llvm::cast<clang::VarDecl>(d)) ||
                     sharedLocalVars_.count(llvm::cast<clang::VarDecl>(d)));
      if (chainOnly)
        continue;
      if (!readsMemory(ds) || !barriers_) {
        body += stmt(st, level);
        continue;
      }
    }
    if (barriers_)
      body += in + "if (sk_active) {\n" + stmt(st, level + 1) + in + "}\n";
    else
      body += stmt(st, level);
  }
  for (const RegElem &r : regs_)
    if (last)
      body += guarded(fmt::format("{} = {}[sk_fl];", printPlain(r.access), r.reg));
  if (body.empty())
    return "";
  return phase(ind, body);
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

/// The fold loops (when folded) around `body`, with the task's coordinates:
/// one phase over the thread's tasks, in its own scope. Fully unrolled when
/// the tasks form a register tile, so their promoted values are registers.
std::string Emitter::phase(const std::string &ind, const std::string &body) {
  std::string out = ind + "{\n";
  std::string inner = ind + "  ";
  size_t n = par_.size();
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      if (tasks_ != Tasks::Loop)
        out += "#pragma unroll\n";
      out += fmt::format("{}for (int sk_f{} = 0; sk_f{} < {}; ++sk_f{}) {{ // fold={}:{}\n",
                         inner, d, d, l_.fold[d], d, ki_.dimNames[d], l_.fold[d]);
      inner += "  ";
    }
  out += taskCoords(inner, foldLoops_);
  if (!promoted_.empty() || !regs_.empty()) {
    std::string flat = foldLoops_ ? "sk_f0" : "0";
    for (size_t d = 1; foldLoops_ && d < n; ++d)
      flat = fmt::format("({}) * {} + sk_f{}", flat, l_.fold[d], d);
    out += fmt::format("{}const int sk_fl = {}; // the task's slot\n", inner, flat);
  }
  out += body;
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      inner.resize(inner.size() - 2);
      out += inner + "}\n";
    }
  out += ind + "}\n";
  return out;
}

/// The indentation depth of a phase's body below its `ind`.
size_t Emitter::taskDepth() const { return 1 + (foldLoops_ ? par_.size() : 0); }

/// A kernel with a staged loop: the statements before it, its stages, and
/// those after it, each a phase over the thread's tasks; only the stages'
/// loads and barriers run in every thread.
std::string Emitter::stagedKernel(const std::string &ind) {
  std::string out;
  std::vector<const clang::Stmt *> before(nest_.body.begin(), nest_.body.begin() + streamAt_),
      after(nest_.body.begin() + streamAt_ + 1, nest_.body.end());
  out += tasksPhase(ind, before, true, false);
  out += stagedBody(ind);
  out += tasksPhase(ind, after, false, true);
  return out;
}

std::string Emitter::kernel() {
  std::string out;
  // the parameters: arrays, then the values the nest reads
  std::vector<std::string> params;
  for (const clang::VarDecl *v : arrays_)
    params.push_back(typed(kernelParamType(v, true), v->getName().str()));
  for (const clang::VarDecl *v : scalars_)
    params.push_back(typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_) // where each block adds its part of a reduction
    params.push_back(typed(ctx_.getPointerType(r.var->getType().getUnqualifiedType()),
                           "sk_red_" + r.var->getName().str()));
  int64_t threads = l_.threadsPerBlock();
  out += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(", threads,
                     kernelName());
  for (size_t i = 0; i < params.size(); ++i)
    out += (i ? ", " : "") + params[i];
  out += ") {\n";
  std::string ind = "  ";
  if (stagedFor_ || tasks_ == Tasks::Tile) {
    promote(); // the phases are scopes of their own
    planRegisters();
  }
  planLoopAccumulators();
  for (const clang::VarDecl *v : privates_)
    if (!promoted_.count(v))
      out += fmt::format("{}{}; // private: written in the nest, declared outside it\n", ind,
                         typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_)
    out += fmt::format("{}{} = {}; // the thread's partial of reduce({}: {})\n", ind,
                       typed(r.var->getType().getUnqualifiedType(), r.var->getName().str()),
                       identity(r), skeleton::reduceOpName(r.op), r.var->getName().str());
  for (const clang::Stmt *st : nest_.body) // a streaming index declared in the body
    if (auto *ds = llvm::dyn_cast<clang::DeclStmt>(st))
      for (const clang::Decl *d : ds->decls())
        if (auto *v = llvm::dyn_cast<clang::VarDecl>(d); v && chainVars_.count(v))
          out += fmt::format("{}{}; // the streaming loop's index: the same for every task\n",
                             ind, typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const clang::VarDecl *v : promotedOrder_)
    out += fmt::format("{}{}; // one per task of the thread: it lives across the phases\n", ind,
                       typed(ctx_.getConstantArrayType(v->getType().getUnqualifiedType(),
                                                       llvm::APInt(32, l_.foldProduct()), nullptr,
                                                       clang::ArraySizeModifier::Normal, 0),
                             v->getName().str()));
  for (const RegElem &r : regs_)
    out += fmt::format("{}{}[{}]; // {} of each task, in a register across the streaming loop\n",
                       ind, elemName(r.array) + " " + r.reg, l_.foldProduct(),
                       printPlain(r.access));
  if (barriers_) {
    out += ind + "const int sk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
                 "threadIdx.z);\n";
    out += fmt::format("{}const int sk_threads = {};\n", ind, threads);
    // the tiles share one dynamic allocation (beyond 48 KiB a static one
    // cannot go), each at a 16-byte aligned offset
    if (!tiles_.empty() || !reds_.empty())
      out += ind + "extern __shared__ __align__(16) unsigned char sk_smem[];\n";
    for (const Tile &t : tiles_) {
      std::string dims;
      for (int64_t e : t.extent)
        dims += fmt::format("{}{}", dims.empty() ? "" : " x ", e);
      out += fmt::format("{}{} *const sk_{}_tile = ({} *)(sk_smem + {}); // cache={}: {} "
                         "elements{}\n",
                         ind, t.elem, t.name, t.elem, t.offset, ki_.arrays[t.array].name, dims,
                         t.staged >= 0 ? fmt::format(" per stage of '{}'",
                                                     ki_.loops[t.staged].index)
                                       : " of the block's footprint");
    }
    std::string once = loadTiles(-1, ind);
    if (!once.empty())
      out += once + ind + "__syncthreads();\n";
  }
  if (stagedFor_) {
    out += stagedKernel(ind);
    out += "}\n";
    return out;
  }
  if (tasks_ == Tasks::Tile) {
    std::vector<const clang::Stmt *> before(nest_.body.begin(), nest_.body.begin() + streamAt_),
        after(nest_.body.begin() + streamAt_ + 1, nest_.body.end());
    out += tasksPhase(ind, before, true, false);
    out += sharedDims_.empty() ? interleaved(ind, 0, "") : sharedChain(ind);
    out += tasksPhase(ind, after, false, true);
    out += "}\n";
    return out;
  }
  std::string inner = ind;
  size_t n = par_.size();
  if (foldLoops_) {
    for (size_t d = 0; d < n; ++d) {
      if (tasks_ == Tasks::Unrolled)
        out += "#pragma unroll\n";
      out += fmt::format("{}for (int sk_f{} = 0; sk_f{} < {}; ++sk_f{}) {{ // fold={}:{}\n",
                         inner, d, d, l_.fold[d], d, ki_.dimNames[d], l_.fold[d]);
      inner += "  ";
    }
  }
  out += taskCoords(inner, foldLoops_);
  unsigned level = static_cast<unsigned>(inner.size() / 2);
  if (!barriers_) {
    for (const clang::Stmt *s : nest_.body)
      out += stmt(s, level);
  } else if (!stagedFor_) {
    out += inner + "if (sk_active) {\n";
    for (const clang::Stmt *s : nest_.body)
      out += stmt(s, level + 1);
    out += inner + "}\n";
  }
  if (foldLoops_)
    for (size_t d = 0; d < n; ++d) {
      inner.resize(inner.size() - 2);
      out += inner + "}\n";
    }
  out += blockReduction(ind);
  out += "}\n";
  return out;
}

/// The value the host gives a scalar the nest reads.
std::string Emitter::hostValue(const clang::VarDecl *v) {
  std::string name = v->getName().str();
  if (auto *p = llvm::dyn_cast<clang::ParmVarDecl>(v)) {
    for (const auto &fn : res_.functions)
      if (fn.name == nest_.function->getNameAsString())
        for (const auto &cp : fn.params)
          if (cp.name == name) {
            if (cp.kind == frontend::CParam::Kind::Integer && cp.value)
              return fmt::format("{}", *cp.value);
            if (cp.kind == frontend::CParam::Kind::Floating)
              return "0.5"; // any value computes the same on both sides
          }
    if (p->getType()->isFloatingType())
      return "0.5";
    fail(v->getLocation(), fmt::format("the value of parameter '{}' is not known; give it with "
                                       "--extent {}=V",
                                       name, name));
  }
  if (v->hasGlobalStorage())
    return name; // the host part declares it as the file does
  if (v->getType().isConstQualified() || !v->isLocalVarDecl()) {
    if (const clang::APValue *val = v->evaluateValue()) {
      if (val->isInt())
        return llvm::toString(val->getInt(), 10);
      if (val->isFloat()) {
        llvm::SmallString<32> s;
        val->getFloat().toString(s);
        return std::string(s.str());
      }
    }
  }
  if (v->getInit())
    if (auto r = v->getInit()->getIntegerConstantExpr(ctx_))
      return llvm::toString(*r, 10);
  fail(v->getLocation(), fmt::format("the nest reads '{}', a variable of '{}' whose value is "
                                     "known only when the function runs",
                                     name, nest_.function->getNameAsString()));
}

/// The C nest itself, on the host, for reference.
std::string Emitter::referenceFunction() {
  std::string out = "static void skelcast_reference(";
  std::vector<std::string> params;
  for (const clang::VarDecl *v : arrays_)
    params.push_back(typed(paramType(v), v->getName().str()));
  for (const clang::VarDecl *v : scalars_)
    params.push_back(typed(v->getType().getUnqualifiedType(), v->getName().str()));
  for (const Red &r : reds_)
    params.push_back(typed(ctx_.getPointerType(r.var->getType().getUnqualifiedType()),
                           "sk_result_" + r.var->getName().str()));
  for (size_t i = 0; i < params.size(); ++i)
    out += (i ? ", " : "") + params[i];
  out += ") {\n";
  std::string reductionClauses;
  for (const Red &r : reds_) {
    // a float reduction accumulates in double here: the reference's own
    // rounding then stays far below the kernel's, which the check measures
    bool wider = r.var->getType()->isSpecificBuiltinType(clang::BuiltinType::Float);
    out += fmt::format("  {} = {};{}\n",
                       typed(wider ? ctx_.DoubleTy : r.var->getType().getUnqualifiedType(),
                             r.var->getName().str()),
                       identity(r), wider ? " // accumulated in double: the reference" : "");
    reductionClauses += fmt::format(" reduction({}:{})", skeleton::reduceOpName(r.op),
                                    r.var->getName().str());
  }
  for (const clang::VarDecl *v : privates_)
    out += "  " + typed(v->getType().getUnqualifiedType(), v->getName().str()) + ";\n";
  for (const clang::VarDecl *v : parVarsOutside_)
    out += "  " + typed(v->getType().getUnqualifiedType(), v->getName().str()) + ";\n";
  // The outer loop's iterations are independent (that is why it is a
  // kernel), so a host build with OpenMP (-Xcompiler -fopenmp) computes the
  // reference on all cores: at the validation sizes a serial one takes
  // minutes. The variables declared above are each iteration's own.
  std::string priv;
  for (const auto *set : {&privates_, &parVarsOutside_})
    for (const clang::VarDecl *v : *set)
      priv += (priv.empty() ? "" : ", ") + v->getName().str();
  const clang::ForStmt *rootFor = frontend::asFor(nest_.root);
  bool whole = !rootFor || (rootFor == nest_.parallel.front() && nest_.only.empty());
  if (whole || rootFor == nest_.parallel.front())
    out += "#ifdef _OPENMP\n#pragma omp parallel for" + (priv.empty() ? "" : " private(" + priv + ")") +
           reductionClauses + "\n#endif\n";
  if (whole) {
    out += printPlain(nest_.parallel.front(), 1);
  } else {
    // the C the kernel computes: the root loop (run in order when the loop
    // space was interchanged inside it) with this kernel's statements
    out += plainKept(rootFor, 1);
  }
  for (const Red &r : reds_)
    out += fmt::format("  *sk_result_{} = {};\n", r.var->getName().str(), r.var->getName().str());
  out += "}\n";
  return out;
}

std::string Emitter::host(const std::string &layoutText) {
  std::string out = "\n#ifndef __CUDA_ARCH__ // the host driver\n";
  out += "#ifndef SKELCAST_EMULATE // tests/emit/emulate.h runs the kernel on the CPU\n"
         "#include <cuda_runtime.h>\n"
         "#define SK_LAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)\n"
         "#endif\n#include <algorithm>\n#include <cmath>\n#include <cstdint>\n"
         "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <vector>\n\n";
  // globals the nest reads, as the file declares them
  for (const clang::VarDecl *v : scalars_)
    if (v->hasGlobalStorage() && !llvm::isa<clang::ParmVarDecl>(v)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      v->print(os, policy_);
      os.flush();
      out += "static " + text + ";\n";
    }
  out += referenceFunction();
  out += R"(
#define SK_CHECK(call)                                                              \
  do {                                                                             \
    cudaError_t sk_e = (call);                                                     \
    if (sk_e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                   cudaGetErrorString(sk_e));                                      \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

// Deterministic pseudo-random numbers (splitmix64), the same on every run.
static uint64_t sk_next(uint64_t &s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
template <class T> static void sk_fill(std::vector<T> &v, uint64_t seed, double lo, double hi,
                                       bool integral) {
  uint64_t s = seed;
  for (auto &x : v) {
    double u = (double)(sk_next(s) >> 11) / 9007199254740992.0;
    x = integral ? (T)(int64_t)(lo + u * (hi - lo)) : (T)(lo + u * (hi - lo));
  }
}
// max |d - h| / max |h|: the norm-wise relative error (infinity norm). An
// element whose sum nearly cancels is judged against the array's scale, not
// its own: fused multiply-adds round such sums differently from the host.
template <class T> static double sk_rel_error(const std::vector<T> &d, const std::vector<T> &h) {
  double big = 0, err = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    double a = (double)d[i], b = (double)h[i];
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    big = std::max(big, std::fabs(b));
    err = std::max(err, std::fabs(a - b));
  }
  return err / std::max(big, 1e-30);
}
static double sk_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
)";
  // which arrays the kernel stores, which are indices (their values in range)
  std::vector<bool> stored(ki_.arrays.size(), false);
  std::vector<int64_t> indexRange(ki_.arrays.size(), -1);
  std::function<void(const skeleton::Expr &, int64_t)> scanIdx = [&](const skeleton::Expr &x,
                                                                     int64_t extent) {
    if (x.kind == skeleton::Expr::Kind::Access) {
      int a = ki_.arrayIndex(x.name);
      if (a >= 0)
        indexRange[a] = indexRange[a] < 0 ? extent : std::min(indexRange[a], extent);
    }
    for (const auto &c : x.args)
      scanIdx(c, extent);
  };
  for (const auto &acc : ki_.accesses) {
    if (acc.isStore)
      stored[acc.array] = true;
    for (size_t d = 0; d < acc.index.size(); ++d)
      if (acc.index[d].kind == layout::IndexForm::Kind::Data)
        scanIdx(acc.index[d].expr, ki_.arrays[acc.array].extents[d]);
  }
  for (const auto &[name, value] : ki_.bindings)
    (void)name, (void)value;
  bool anyFloat = false;
  out += "\nint main(int argc, char **argv) {\n";
  out += "  int repeats = 30, warmups = 5;\n  double tolerance = -1;\n";
  out += "  for (int i = 1; i + 1 < argc; i += 2) {\n"
         "    if (!std::strcmp(argv[i], \"--repeats\")) repeats = std::atoi(argv[i + 1]);\n"
         "    else if (!std::strcmp(argv[i], \"--warmups\")) warmups = std::atoi(argv[i + 1]);\n"
         "    else if (!std::strcmp(argv[i], \"--tolerance\")) tolerance = std::atof(argv[i + "
         "1]);\n"
         "  }\n";
  std::string args, hostArgs;
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const clang::VarDecl *v = arrays_[i];
    const layout::ArrayInfo &ai = ki_.arrays[arrayIndex_[i]];
    std::string n = v->getName().str(), elem = elemName(v);
    clang::QualType et = elemType(v);
    bool integral = !et->isFloatingType();
    anyFloat = anyFloat || !integral;
    int64_t count = 1;
    for (int64_t e : ai.extents)
      count *= e;
    out += fmt::format("  std::vector<{}> h_{}({}LL);\n", elem, n, count);
    if (ai.sample && !ai.sample->values.empty()) {
      out += fmt::format("  {{ static const long long s[] = {{", n);
      for (size_t k = 0; k < ai.sample->values.size(); ++k)
        out += fmt::format("{}{}", k ? "," : "", ai.sample->values[k]);
      out += fmt::format("}};\n    for (size_t k = 0; k < h_{}.size(); ++k) h_{}[k] = ({})s[k % "
                         "{}]; }} // the sample\n",
                         n, n, elem, ai.sample->values.size());
    } else if (integral && indexRange[arrayIndex_[i]] > 0) {
      out += fmt::format("  sk_fill(h_{}, {}, 0, {}, true); // an index: within [0, {})\n", n,
                         i + 1, indexRange[arrayIndex_[i]], indexRange[arrayIndex_[i]]);
    } else {
      out += fmt::format("  sk_fill(h_{}, {}, {}, {}, {});\n", n, i + 1, integral ? "0" : "0.5",
                         integral ? "64" : "1.5", integral ? "true" : "false");
    }
    out += fmt::format("  {} *d_{};\n  SK_CHECK(cudaMalloc(&d_{}, h_{}.size() * sizeof({})));\n",
                       elem, n, n, n, elem);
    out += fmt::format("  SK_CHECK(cudaMemcpy(d_{}, h_{}.data(), h_{}.size() * sizeof({}), "
                       "cudaMemcpyHostToDevice));\n",
                       n, n, n, elem);
    std::string cast = kernelParamType(v, false).getAsString(policy_);
    args += fmt::format("{}({})d_{}", args.empty() ? "" : ", ", cast, n);
    hostArgs += fmt::format("{}({})h_{}.data()", hostArgs.empty() ? "" : ", ",
                            paramType(v).getAsString(policy_), n);
  }
  for (const clang::VarDecl *v : scalars_) {
    std::string val = hostValue(v);
    args += (args.empty() ? "" : ", ") + val;
    hostArgs += (hostArgs.empty() ? "" : ", ") + val;
  }
  for (const Red &r : reds_) {
    // the result on the device starts from the operator's identity, as the
    // reference's does (the C code's own initial value is host code)
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {} h_sk_{} = {}; // reduce({}: {}): the C nest's result\n", t, n,
                       identity(r), skeleton::reduceOpName(r.op), n);
    out += fmt::format("  {} *d_sk_{};\n  SK_CHECK(cudaMalloc(&d_sk_{}, sizeof({})));\n", t, n, n, t);
    args += fmt::format("{}d_sk_{}", args.empty() ? "" : ", ", n);
    hostArgs += fmt::format("{}&h_sk_{}", hostArgs.empty() ? "" : ", ", n);
  }
  bool anyDouble = false;
  for (const clang::VarDecl *v : arrays_)
    if (elemType(v)->isSpecificBuiltinType(clang::BuiltinType::Double))
      anyDouble = true;
  for (const Red &r : reds_)
    if (r.var->getType()->isSpecificBuiltinType(clang::BuiltinType::Double))
      anyDouble = true;
  // The tolerance grows with the terms summed into an element (docs/emit.md,
  // "The host driver"): 4 u L, u the unit roundoff, L the iterations of a task's
  // longest-running loop; at least 1e-4 (float) or 1e-9 (double).
  double terms = 1;
  for (const layout::LoopInfo &lp : ki_.loops)
    terms = std::max(terms, lp.trip * lp.execs);
  if (!reds_.empty()) {
    // a reduction's longest chain of roundings on the GPU: a thread's tasks
    // and their terms, the block tree, the blocks' atomics one after another
    // (the reference accumulates in double, its error far below)
    double threads = static_cast<double>(l_.threadsPerBlock());
    double perBlock = threads * static_cast<double>(l_.foldProduct());
    double blocks = std::ceil(ki_.loopSpace / perBlock);
    terms = terms * static_cast<double>(l_.foldProduct()) + std::ceil(std::log2(threads)) + blocks;
  }
  double unitRoundoff = anyDouble ? 0x1p-53 : 0x1p-24;
  double tolerance = std::max(anyDouble ? 1e-9 : 1e-4, 4 * unitRoundoff * terms);
  out += fmt::format("  const double sk_terms = {}; // summed into an element at most\n",
                     static_cast<int64_t>(terms));
  out += fmt::format("  if (tolerance < 0) tolerance = {:.3g}; // max({}, 4 u L), u = 2^-{}\n",
                     tolerance, anyDouble ? "1e-9" : "1e-4", anyDouble ? 53 : 24);
  out += "  skelcast_reference(" + hostArgs + "); // the C nest, on the host\n";
  LaunchShape ls = launchShape(ki_, l_);
  for (int a = 0; a < 3; ++a)
    if (ls.grid[a] > (a == 0 ? 2147483647LL : 65535LL))
      failLayout("block", fmt::format("the grid needs {} blocks along {} (CUDA allows {})",
                                      ls.grid[a], kAxis[a], a == 0 ? "2^31 - 1" : "65535"));
  out += fmt::format("  const dim3 grid({}, {}, {}), block({}, {}, {});\n", ls.grid[0],
                     ls.grid[1], ls.grid[2], ls.block[0], ls.block[1], ls.block[2]);
  out += fmt::format("  const size_t smem = {}; // the cached arrays' tiles\n", smemBytes_);
  if (smemBytes_ > 48 * 1024)
    out += fmt::format("  SK_CHECK(cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                       "(int)smem));\n",
                       kernelName());
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {{\n    const {} sk_start = {};\n    SK_CHECK(cudaMemcpy(d_sk_{}, &sk_start, "
                       "sizeof({}), cudaMemcpyHostToDevice)); // before the checked launch\n  }}\n",
                       t, identity(r), n, t);
  }
  out += fmt::format("  auto launch = [&] {{ SK_LAUNCH({}, grid, block, smem, {}); }};\n",
                     kernelName(), args);
  out += R"(  cudaEvent_t a, b;
  SK_CHECK(cudaEventCreate(&a));
  SK_CHECK(cudaEventCreate(&b));
  SK_CHECK(cudaEventRecord(a));
  launch(); // the cold launch, also the one checked
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  SK_CHECK(cudaGetLastError());
  float cold_ms = 0;
  SK_CHECK(cudaEventElapsedTime(&cold_ms, a, b));
  double rel_error = 0;
)";
  for (size_t i = 0; i < arrays_.size(); ++i) {
    if (!stored[arrayIndex_[i]])
      continue;
    std::string n = arrays_[i]->getName().str(), elem = elemName(arrays_[i]);
    out += fmt::format("  {{\n    std::vector<{}> g(h_{}.size());\n    SK_CHECK(cudaMemcpy(g.data(), "
                       "d_{}, g.size() * sizeof({}), cudaMemcpyDeviceToHost));\n    rel_error = "
                       "std::max(rel_error, sk_rel_error(g, h_{}));\n  }}\n",
                       elem, n, n, elem, n);
  }
  for (const Red &r : reds_) {
    std::string n = r.var->getName().str();
    std::string t = r.var->getType().getUnqualifiedType().getAsString(policy_);
    out += fmt::format("  {{\n    std::vector<{}> g(1), h(1, h_sk_{});\n    SK_CHECK(cudaMemcpy(g.data(), "
                       "d_sk_{}, sizeof({}), cudaMemcpyDeviceToHost));\n    rel_error = "
                       "std::max(rel_error, sk_rel_error(g, h)); // reduce({}: {})\n  }}\n",
                       t, n, n, t, skeleton::reduceOpName(r.op), n);
  }
  out += R"(  const bool verified = rel_error <= tolerance;
  std::fprintf(stderr, "norm-wise relative error max|d - h| / max|h| = %g (tolerance %g, %.0f terms "
               "an element): %s\n", rel_error, tolerance, sk_terms, verified ? "ok" : "WRONG");
  std::vector<double> t;
  double total = 0;
  int batch = 1;
  if (repeats <= 0) { // --repeats 0: the check alone, the cold launch as the time
    t.push_back(cold_ms);
    total = cold_ms;
    repeats = 0;
  } else {
  for (int w = 0; w < warmups; ++w) launch();
  SK_CHECK(cudaDeviceSynchronize());
  // each repeat: back-to-back launches between one pair of events, per launch
  SK_CHECK(cudaEventRecord(a));
  launch();
  SK_CHECK(cudaEventRecord(b));
  SK_CHECK(cudaEventSynchronize(b));
  float one = 0;
  SK_CHECK(cudaEventElapsedTime(&one, a, b));
  batch = std::max(1, std::min(100, (int)(1.0 / std::max(one, 1e-3f))));
  for (int r = 0; r < repeats; ++r) {
    SK_CHECK(cudaEventRecord(a));
    for (int k = 0; k < batch; ++k) launch();
    SK_CHECK(cudaEventRecord(b));
    SK_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SK_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / batch);
    total += ms;
  }
  }
  SK_CHECK(cudaGetLastError());
  cudaFuncAttributes attr;
  SK_CHECK(cudaFuncGetAttributes(&attr, )" +
             kernelName() + R"());
  int active = 0;
  SK_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, )" +
             kernelName() + R"(, block.x * block.y * block.z, smem));
  cudaDeviceProp prop;
  int dev = 0;
  SK_CHECK(cudaGetDevice(&dev));
  SK_CHECK(cudaGetDeviceProperties(&prop, dev));
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("{\n \"schema_version\": 1,\n \"skeleton_root\": \".\",\n");
  std::printf(" \"gpu\": {\"name\": \"%s\", \"driver_api\": %d, \"compute_capability\": \"%d.%d\"},\n",
              prop.name, driver, prop.major, prop.minor);
  std::printf(" \"method\": \"skelcast emit: one cold launch (checked), 5 warm-ups, then %d repeats of "
              "%d back-to-back launches between one pair of CUDA events; time_ms is the median "
              "per-launch time of the repeats\",\n", repeats, batch);
  std::printf(" \"timing\": \"%s\",\n", repeats > 0 ? "back_to_back" : "once");
  std::printf(" \"cases\": [{\n");
)";
  std::string stem = ki_.name + "_SKTAG";
  out += fmt::format("  std::printf(\"  \\\"kernel\\\": \\\"{}\\\", \\\"size\\\": \\\"SKSIZE\\\", "
                     "\\\"skeleton\\\": \\\"{}.skel\\\",\\n\");\n",
                     ki_.name, stem);
  out += fmt::format("  std::printf(\"  \\\"layout\\\": \\\"{}\\\",\\n\");\n", layoutText);
  out += R"(  std::printf("  \"time_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, \"repeats\": %d, "
              "\"batch_ms_per_launch\": %.6g, \"cold_ms\": %.6g,\n",
              sk_median(t), *std::min_element(t.begin(), t.end()),
              *std::max_element(t.begin(), t.end()), repeats, total / std::max(1, repeats * batch), cold_ms);
  std::printf("  \"rel_error\": %.6g, \"tolerance\": %.3g, \"verified\": %s,\n", rel_error, tolerance,
              verified ? "true" : "false");
  std::printf("  \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", grid.x, grid.y, grid.z,
              block.x, block.y, block.z);
  std::printf("  \"regs_per_thread\": %d, \"static_smem_bytes\": %zu, \"dynamic_smem_bytes\": %zu, "
              "\"local_bytes_per_thread\": %zu, \"max_active_blocks_per_sm\": %d\n }]\n}\n",
              attr.numRegs, attr.sharedSizeBytes, smem, attr.localSizeBytes, active);
  return verified ? 0 : 3;
}
#endif // __CUDA_ARCH__
)";
  (void)anyFloat;
  return out;
}

/// The file's skeleton cut to kernel `k`: its macros, the arrays it uses, the
/// kernel; sample files named relative to `outDir`.
std::string oneKernelSkeleton(const skeleton::SkeletonFile &f, size_t k, const std::string &outDir) {
  skeleton::SkeletonFile one;
  one.path = f.path;
  one.macros = f.macros;
  std::set<std::string> used;
  for (const auto &t : skeleton::memTouches(f.kernels[k].body))
    used.insert(t.array);
  // arrays named only inside subscripts (indirect indices) are used too
  std::function<void(const skeleton::Expr &)> refs = [&](const skeleton::Expr &x) {
    if (x.kind == skeleton::Expr::Kind::Access)
      used.insert(x.name);
    for (const auto &c : x.args)
      refs(c);
  };
  std::function<void(const std::vector<skeleton::Stmt> &)> walk =
      [&](const std::vector<skeleton::Stmt> &body) {
        for (const auto &s : body) {
          if (s.kind == skeleton::Stmt::Kind::Mem)
            for (const auto &i : s.mem.index)
              refs(i);
          if (s.kind == skeleton::Stmt::Kind::Bind)
            refs(s.bindValue);
          if (s.kind == skeleton::Stmt::Kind::Loop) {
            refs(s.loop.lo);
            refs(s.loop.hi);
            walk(s.loop.body);
          }
          if (s.kind == skeleton::Stmt::Kind::Branch) {
            walk(s.branch.thenBody);
            walk(s.branch.elseBody);
          }
        }
      };
  walk(f.kernels[k].body);
  namespace fs = std::filesystem;
  for (const auto &a : f.arrays)
    if (used.count(a.name)) {
      skeleton::Array c = a;
      c.mark = skeleton::HostMark::None;
      if (c.sampleFile) {
        std::error_code ec;
        fs::path abs = fs::absolute(skeleton::resolveRelative(f.path, *c.sampleFile), ec);
        fs::path dir = fs::absolute(outDir, ec);
        c.sampleFile = abs.lexically_relative(dir).string();
      }
      one.arrays.push_back(std::move(c));
    }
  one.kernels.push_back(f.kernels[k]);
  for (size_t i = 0; i < one.macros.size(); ++i)
    one.order.push_back({skeleton::Item::Kind::Macro, i});
  for (size_t i = 0; i < one.arrays.size(); ++i)
    one.order.push_back({skeleton::Item::Kind::Array, i});
  one.order.push_back({skeleton::Item::Kind::Kernel, 0});
  return skeleton::printSkeleton(one);
}

std::string sizeOf(const layout::KernelInfo &ki) {
  std::string s;
  for (int64_t d : ki.dimSize)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
}

} // namespace

EmitResult emitCuda(const std::string &cpath, const frontend::SkeletonizeOptions &opts,
                    const EmitOptions &eo, const Chooser &choose, std::ostream &diagnostics,
                    std::vector<Warning> &warnings) {
  EmitResult out;
  frontend::SkeletonizeResult r = frontend::skeletonizeWithAst(
      cpath, opts, diagnostics,
      [&](const frontend::SkeletonizeResult &res, const std::vector<NestAst> &nests,
          clang::ASTContext &ctx) {
        std::vector<KernelChoice> choices = choose(res);
        layout::FileContext fc = layout::fileContext(res.file);
        for (const KernelChoice &c : choices) {
          const NestAst &nest = nests.at(c.kernel);
          layout::KernelInfo ki = c.info ? *c.info :
              layout::analyzeKernel(res.file, res.file.kernels[c.kernel],
                                    res.file.kernels[c.kernel].name.empty()
                                        ? fmt::format("kernel{}", c.kernel)
                                        : res.file.kernels[c.kernel].name,
                                    fc);
          if (!nest.function || nest.parallel.empty())
            throw InputError({cpath, 0, 0},
                             fmt::format("cannot emit kernel '{}': its C nest is not known",
                                         ki.name));
          EmittedKernel e;
          try {
          e.kernelIndex = c.kernel;
          e.kernel = ki.name;
          e.tag = c.tag;
          e.layoutString = layout::layoutString(ki, c.layout);
          e.size = sizeOf(ki);
          e.fileStem = ki.name + "_" + c.tag;
          Emitter em(ctx, nest, ki, c.layout, res, cpath);
          e.cuda = em.run(e.layoutString);
          replaceAll(e.cuda, "SKTAG", c.tag);
          replaceAll(e.cuda, "SKSIZE", e.size);
          e.skeleton = oneKernelSkeleton(res.file, c.kernel, eo.outDir);
          } catch (const InputError &err) {
            if (!eo.skipUnsupported)
              throw;
            out.skipped.push_back({err.loc(), err.message() + " (skipped)"});
            continue;
          }
          out.kernels.push_back(std::move(e));
        }
      });
  warnings = r.warnings;
  out.source = std::move(r);
  return out;
}

} // namespace skelcast::emit
