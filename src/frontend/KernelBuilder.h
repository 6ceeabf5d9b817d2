/// \file
/// The last part of step 4 of docs/skeletonizer.md ("How it works"): building
/// the body of one `parallel_for` from a nest that passed the analysis, C
/// statements in, skeleton statements out (the rules are under "Data", "Loops
/// and branches" and "Instruction counts"). Straight-line code accumulates an
/// instruction count (OpCounter, CostModel.h), written as `comp N` before each
/// store, loop and branch and at the end of each block; loads are written where
/// the C code reads an element, once per element per iteration; integer scalars
/// carry symbolic values, and one loaded from data becomes a binding; inner
/// loops become `stream` or `for`, branches `if (p=P)` (BranchProbability.h).
///
/// KernelBuilder.cpp holds the kernel, its statements, loops and branches;
/// KernelExprs.cpp its expressions: values, bindings, loads and stores.
#pragma once

#include "Chain.h"

#include "CostModel.h"
#include "NestAnalysis.h"
#include "TUContext.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// The builder of one kernel: turns the plan's body into skeleton statements;
/// throws Unsupported.
skeleton::Kernel buildKernel(NestAnalysis &na, const std::string &name,
                             std::vector<Warning> &warnings);

/// `e + k` written the way a person would: `(x - 1) + 1` is `x`.
skeleton::Expr plusConst(const skeleton::Expr &e, int64_t k);
/// Does `e` read memory (an access, or a name bound to a load)?
bool mentionsAccess(const skeleton::Expr &e, const std::set<std::string> &bindNames);

/// The state of buildKernel while it walks one nest's body.
class KernelBuilder {
public:
  KernelBuilder(NestAnalysis &na, std::vector<Warning> &warnings);
  skeleton::Kernel build(const std::string &name);

private:
  struct Block {
    std::vector<skeleton::Stmt> *out;
    int64_t comp;
    int64_t fp64 = 0; ///< of comp, the FP64 arithmetic: `comp N (fp64:M)`
    std::set<uint64_t> lit64 = {}; ///< the 64-bit literals they take (bits, sign cleared): `lit64:K`
    std::vector<skeleton::Stmt> stores = {}; ///< written at the end of the stretch
  };
  struct Val {
    std::optional<skeleton::Expr> sym;
    /// Without `sym`: a load (in scope) the value is computed from, which a
    /// scalar holding it is bound to when it indexes memory (bindData).
    std::optional<skeleton::Expr> from;
  };
  /// The load a value computed from `a` and `b` stands for.
  static Val derived(const Val &a, const Val &b = {}) {
    return {std::nullopt, a.from ? a.from : b.from};
  }

  // -------------------------------------------------------------------------
  // names

  /// A name for `base` not in scope (nor a data binding's); `fresh`: never
  /// given before in the kernel.
  std::string declare(const std::string &base, bool fresh = false);
  bool inScope(const std::string &n) const;

  // -------------------------------------------------------------------------
  // output

  /// n instructions of an operation of type t; those of a double operation issue
  /// at the FP64 rate (docs/model.md section 7, `fp64`), so they are counted apart too.
  void cost(int64_t n, clang::QualType t = {});
  /// The operands of an operation of type t that are double constants whose
  /// low word is not 0: an FP64 instruction takes no such immediate, and ptxas
  /// builds each with two moves (`lit64`, docs/skeletonizer.md); 0.5 or 2.0
  /// (low word 0) are immediates.
  void literals(std::initializer_list<const clang::Expr *> operands, clang::QualType t);
  /// End of a straight-line stretch: its instruction count, then its stores.
  void flush();
  /// The dependent chain of a loop body's (or the parallel body's) own
  /// statements (Chain.h) on the first `comp` they wrote; nothing for 0.
  void attachChain(std::vector<skeleton::Stmt> &body, ChainCycles chain);
  void emit(skeleton::Stmt s) { blk_->out->push_back(std::move(s)); }

  // -------------------------------------------------------------------------
  // values

  /// A loop bound or extent: an integer constant in skeleton form.
  skeleton::Expr constExpr(const clang::Expr *e);
  /// Why `e` has no skeleton form: the first variable without a value.
  std::string whyNoValue(const clang::Expr *e);
  /// The affine form of `e`, with the values the scalars hold at this point.
  Affine affineOf(const clang::Expr *e);
  Affine dimAffine(const DimForm &d);
  /// Counts `e`'s instructions and writes its loads; its value, when it is an
  /// integer the skeleton can write.
  Val eval(const clang::Expr *e);
  Val evalNode(const clang::Expr *e);
  Val unary(const clang::UnaryOperator *u);
  Val binary(const clang::BinaryOperator *b);
  void forget(const clang::VarDecl *v);
  /// Binds `v`, an integer the data decides, to `value` (a load in scope it is
  /// computed from): its subscripts are then data-dependent, as `J[j]`'s.
  void bindData(const clang::VarDecl *v, const skeleton::Expr &value, const std::string &why);
  /// After search loop `f`: the scalars its exit sets are bound to the load
  /// of the exit's condition that is in scope (bindData).
  void bindSearchResults(const clang::ForStmt *f, const clang::IfStmt *exit);
  /// The load a bindData binding `e` stands for, else empty.
  std::optional<skeleton::Expr> dataOf(const skeleton::Expr &e) const;
  /// Whether every name `e` mentions can be read here (none left with its scope).
  bool visible(const skeleton::Expr &e) const;
  /// After the `if` `is`: a scalar it assigns that held, before it or at the
  /// end of an arm (`armData`), a bindData binding still holds a value the
  /// data decides: that binding where it is in scope, else a new one.
  void keepData(const clang::IfStmt *is,
                const std::map<const clang::VarDecl *, skeleton::Expr> &before,
                const std::map<const clang::VarDecl *, skeleton::Expr> &armData);
  void assignScalar(const clang::VarDecl *v, const clang::Expr *rhs, const Val &r);

  // -------------------------------------------------------------------------
  // memory

  struct Addr {
    const ArrayShape *shape = nullptr;
    std::string name;
    std::vector<skeleton::Expr> idx;
    std::string key;
    int64_t cost = 0;
  };

  Addr address(const clang::ArraySubscriptExpr *a);
  [[noreturn]] void fail(const clang::ArraySubscriptExpr *a, const clang::Expr *sub);
  /// Read the element: a load unless this iteration already has it.
  void readAddr(const Addr &ad);
  void writeAddr(const Addr &ad);
  /// `whole`: the expression read when it is not `a` itself (`a[i].x`).
  Val load(const clang::ArraySubscriptExpr *a, const clang::Expr *whole = nullptr);
  /// The access `e` is: a subscript, or a field of an array of structs
  /// (`a[i].x`, whose access is recorded under `a[i]`); null otherwise.
  const clang::ArraySubscriptExpr *accessOf(const clang::Expr *e) const;
  /// For `c ? a : b` as an index: 1 when `a` is the arm most iterations take,
  /// 2 for `b`, 0 when it cannot tell (KernelExprs.cpp says how).
  int interiorArm(const clang::ConditionalOperator *co);
  /// After an `if`/`else` (not `if (c) continue;`) of probability p, each
  /// integer scalar set on both sides holds the value of the side most
  /// iterations take (lavaMD's `pointer`): set into env_; the comments saying so.
  std::vector<std::string> sideValues(const clang::IfStmt *is, double p, bool continues,
                                      const std::map<const clang::VarDecl *, skeleton::Expr> (&sideEnv)[2],
                                      const std::set<std::string> (&sideNames)[2]);
  /// Clamped indices written as their interior arm: line, source text.
  std::set<std::pair<unsigned, std::string>> clamps_;

  // -------------------------------------------------------------------------
  // statements

  void stmt(const clang::Stmt *s);
  /// A loop body's statements from `from` on; `if (c) continue;` among them
  /// becomes a branch around the rest.
  void stmts(const std::vector<const clang::Stmt *> &list, size_t from = 0);
  std::set<std::string> arraysStoredIn(const clang::ForStmt *f);
  void forgetWrittenIn(const clang::ForStmt *f);
  /// An inner loop: `stream` or `for`, with its trip count.
  void loop(const clang::ForStmt *f);
  /// Number of operators in a memory-free, loop-free statement; -1 if it has
  /// memory accesses, loops, branches or calls that are not in the table.
  int smallPure(const clang::Stmt *s);
  void forgetAssignedIn(const clang::Stmt *s);
  /// An `if`: predicated when small, else `if (p=P)` with both arms.
  /// `rest`: for `if (c) continue;`, the statements the `continue` skips (the
  /// `else` side; `then` is what stands before the `continue`).
  void branch(const clang::IfStmt *is, const std::vector<const clang::Stmt *> *rest = nullptr);
  bool storesIn(const std::vector<const clang::Stmt *> &ss, const std::string &arr);

  NestAnalysis &na_;
  TUContext &tu_;
  const NestScan &scan_;
  NestPlan &plan_;
  std::vector<Warning> &warnings_;
  OpCounter ops_;

  Block *blk_ = nullptr;
  bool countOps_ = true;
  std::map<const clang::ArraySubscriptExpr *, const AccessRec *> byExpr_;
  std::map<const clang::VarDecl *, int> defs_;
  std::map<std::string, std::set<std::string>> avail_;
  std::map<const clang::VarDecl *, skeleton::Expr> env_;
  std::map<const clang::VarDecl *, Affine> affEnv_;
  std::map<const clang::VarDecl *, skeleton::Expr> loopVal_;
  std::vector<std::set<std::string>> scopes_;
  std::set<std::string> bindNames_;
  std::vector<std::pair<const clang::Expr *, bool>> path_;
  /// The `if (c) { ...; break; }` of each search loop being built, and the
  /// loop's trip count: the exit is taken once per run of the loop.
  std::map<const clang::IfStmt *, std::optional<double>> exitTrips_;
  /// Scalars bound by bindData: a later assignment under a branch or in a
  /// loop (`if (k < 0) k = 0;`) leaves them decided by data, still bound.
  std::set<const clang::VarDecl *> dataBound_;
  int underBranch_ = 0; ///< arms of `if`s being built around the statement
  std::map<std::string, skeleton::Expr> dataLoad_; ///< bindData's bindings: their load
  /// Scalars that are not integers (`double t = u[j];`): the load they hold.
  std::map<const clang::VarDecl *, skeleton::Expr> dataFrom_;
  std::set<std::string> declared_; ///< every name `declare` gave out
  /// NestScan's index scalars and the scalars assigned to them, transitively
  /// (`i = ret; ... a[i]`): those a value the data decides is bound for.
  std::set<const clang::VarDecl *> indexFlow_;
  /// The bodies of the copies of loop-space loops (NestPlan::inPlace), which
  /// run inline in the stretch around them (the chain walks them there).
  ChainWalker::InlineBodies inPlaceBodies_;
};

} // namespace skelcast::frontend
