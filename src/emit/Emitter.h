/// \file
/// The emitter's private declarations, shared by the files of src/emit (the
/// public entry points are include/skelcast/emit/Emit.h): the class Emitter,
/// which writes the CUDA of one kernel's layout, its printer Helper, what it
/// plans (Tile, RegElem, LoopAcc) and the small helpers its steps share. One
/// file a step: EmitPlan.cpp (the analysis, the tiles, the register tile),
/// EmitRegisters.cpp (elements kept in registers), EmitPrint.cpp (the nest's
/// statements as CUDA), EmitKernel.cpp (the device code), EmitHost.cpp (the
/// host driver); EmitUses.cpp defines the shared AST queries, EmitCuda.cpp the
/// entry points.
#pragma once

#include "skelcast/emit/Emit.h"

#include "frontend/ClangNodes.h"
#include "frontend/LoopHeader.h"
#include "frontend/NestAst.h"

#include "skelcast/layout/KernelInfo.h"

#include <clang/AST/PrettyPrinter.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/raw_ostream.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace skelcast::emit::detail {

using frontend::NestAst;

inline const char *kAxis[3] = {"x", "y", "z"};

/// Where a construct is: `file:line:col` of its expansion.
SourceLoc positionOf(clang::ASTContext &ctx, clang::SourceLocation loc, const std::string &path);

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

/// Whether `s` reads memory: an array element, a call or a dereference.
bool readsMemory(const clang::Stmt *s);

/// The variables `uses` saw passed to a call (inside an argument): an array
/// among them may be written through it, so none is kept in a register.
std::set<const clang::VarDecl *> passedToCalls(const VarUses &uses);

/// A cached array's shared-memory tile: per dimension of the array, the
/// first element (a runtime expression) and the extent (a constant).
struct Tile {
  int array = -1;          ///< in ki.arrays
  std::string name;        ///< the C variable
  const clang::VarDecl *decl = nullptr; ///< and its declaration
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
  /// What the measured program does otherwise than the projection assumes
  /// (a trip hint it cannot honour), found while writing it.
  const std::vector<Warning> &warnings() const { return warnings_; }

  std::string run(const std::string &layoutText) {
    analyse();
    std::string out;
    std::string k = kernel(); // plans the element pairs that pairTypes() declares
    out += header(layoutText);
    out += pairTypes();
    out += k;
    out += host(layoutText);
    return out;
  }

  // --- used by Helper ------------------------------------------------------
  bool printAccess(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os);
  std::string printDimension(const frontend::DimForm &d);
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
  bool printPairedLoad(const clang::ArraySubscriptExpr *a, llvm::raw_ostream &os);
  bool printPairedStore(const clang::Stmt *s, llvm::raw_ostream &os);
  /// The second store of a pair: written with the first (printPairedStore).
  bool pairedSecond(const clang::Stmt *s) const { return pairSecond_.count(s) != 0; }
  bool printDeclaration(const clang::Stmt *s, llvm::raw_ostream &os);
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
  /// A declaration as the file writes it (a helper function, a global, a type).
  std::string declText(const clang::Decl *d) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    d->print(os, policy_);
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
  std::string wholeCondition(bool firstTask = false);
  bool writesOnlyTaskSlots(const std::vector<const clang::Stmt *> &stmts) const;
  std::string chainText(const std::string &ind, size_t from, const std::string &firstHeader);
  std::string tasksPhase(const std::string &ind, const std::vector<const clang::Stmt *> &stmts,
                         bool first, bool last);
  void planRegisters();
  void planLoopAccumulators();
  // element pairs (EmitPairs.cpp)
  void planPairs();
  bool pairable(const clang::VarDecl *v) const;
  std::string pairType(const clang::VarDecl *v) const;
  std::string pairTypes() const;
  std::vector<std::string> subscriptTexts(const clang::ArraySubscriptExpr *a);
  bool distinctInLoop(const frontend::LoopHeader &h, const clang::Expr *other,
                      const std::string &own);
  std::string sharedChain(const std::string &ind);
  std::string interleaved(const std::string &ind, size_t from, const std::string &firstHeader);
  clang::QualType kernelParamType(const clang::VarDecl *v, bool restrict) const;
  std::string host(const std::string &layoutText);
  std::string referenceFunction();
  std::string hostValue(const clang::VarDecl *v);
  /// How the host fills an array that bounds a loop with a trip hint: a ramp
  /// of `value` a row (row pointers) or `value` everywhere (counts).
  struct BoundFill {
    bool ramp = false;
    int64_t value = 0;
    std::string loop; ///< the loop's index
    SourceLoc loc;    ///< the loop's start in the C file
  };
  std::map<std::string, BoundFill> boundFills(const std::vector<int64_t> &indexRange);
  bool fitsElement(clang::QualType t, const BoundFill &f, int64_t count);

  clang::ASTContext &ctx_;
  const NestAst &nest_;
  const layout::KernelInfo &ki_;
  std::vector<Warning> warnings_;
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
  /// Writing a partial tile whose body writes only the tasks' own slots: a
  /// task outside the loop space runs it at coordinates clamped into it, and
  /// only the stores after the chain keep their guard.
  bool clampTasks_ = false;
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
  /// Element pairs written as one access (planPairs): the first store of a
  /// pair -> the second, the seconds, and the reads written as a pair's member.
  std::map<const clang::Stmt *, const clang::Stmt *> pairStore_;
  std::set<const clang::Stmt *> pairSecond_;
  std::set<const clang::ArraySubscriptExpr *> pairLoad_;
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

} // namespace skelcast::emit::detail
