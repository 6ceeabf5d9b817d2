/// \file
/// The analysis of one nest that every step after the scan shares
/// (docs/skeletonizer.md, "How it works"): the plan of a nest that passed the
/// tests (its loop space, loops, array shapes and body), and NestAnalysis, which
/// answers questions about the nest's values: scalars known when skeletonizing
/// (`--extent n=512`, constants), affine forms of subscripts (the "Affine means"
/// of the dependence test), the ranges loop indices take, and the split of a C
/// subscript list into the dimensions of an array's shape (delinearisation).
#pragma once

#include "Affine.h"
#include "LoopHeader.h"
#include "NestAst.h"
#include "NestScan.h"
#include "Shapes.h"
#include "TUContext.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtOpenMP.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// A loop of the nest as the skeleton sees it.
struct LoopInfo {
  LoopHeader hdr;
  bool parallel = false;
  int depth = 0; ///< 0 for the outermost loop of the nest
};

/// What the builder needs about one nest that passed the analysis.
struct NestPlan {
  const clang::Stmt *root = nullptr;                 ///< the statement the warning names
  std::vector<const clang::ForStmt *> parallel;      ///< the loop space, outermost first
  const clang::OMPLoopDirective *omp = nullptr;
  /// `#pragma skelcast independent` before the loop (and no OpenMP directive):
  /// the programmer's word, trusted as an OpenMP loop directive's is
  bool independentPragma = false;
  std::set<const clang::VarDecl *> ompReductions;
  /// The scalar reductions the kernel ports (an OpenMP clause's with an
  /// operator the skeleton language has, and those the dependence test found),
  /// in the order found.
  std::vector<ScalarReduction> reductions;
  /// Variables each OpenMP thread owns: the directive's (and enclosing
  /// directives') private, firstprivate, lastprivate, linear and reduction
  /// clauses (so ompReductions too), and variables declared inside an
  /// enclosing `parallel` region.
  std::set<const clang::VarDecl *> ompPrivate;
  std::map<const clang::VarDecl *, LoopInfo> loops;  ///< every loop of the nest
  std::map<const clang::VarDecl *, ArrayShape> shapes;
  std::vector<const clang::Stmt *> body;             ///< statements of the kernel body, in order
  std::string why;                                   ///< how independence was established
  /// what a loop of the loop space is parallel on (NestDependences::assumption),
  /// and that loop
  std::string assumption;
  const clang::ForStmt *assumedLoop = nullptr;
  /// copies of a loop-space loop written in place (LoopOrder.h), and what was reordered
  std::vector<const clang::ForStmt *> inPlace;
  std::string reordered;
  /// A loop-space loop whose bounds use an outer loop-space index (`j <= i`,
  /// syrk's triangle): its dimension is the bounding box [lo, hi) of the
  /// values it takes, and the body runs under a guard taken with probability
  /// p, the share of the box's points inside, as a port launches the box and
  /// guards the triangle (docs/skeletonizer.md, "Triangular loop spaces").
  struct Box {
    int64_t lo = 0, hi = 0;
    double p = 1;
    const clang::VarDecl *outer = nullptr; ///< the index its bounds use
  };
  std::map<const clang::ForStmt *, Box> boxes;
};

/// A sequential loop around the nest, not ported itself (docs/skeletonizer.md,
/// "Programs"). The innermost one, when its header is canonical with known
/// bounds, is an indexed `repeat k = LO:HI[:STEP]`: a nest inside may use its
/// index, which is then a symbol invariant in one launch with a known range.
struct SequentialLoop {
  const clang::ForStmt *loop = nullptr;
  const clang::VarDecl *var = nullptr;
  unsigned line = 0;
  /// Indexed: the repeat's bounds in skeleton form and the values the index takes.
  std::optional<skeleton::Expr> lo, hi, step;
  Interval range;
  int64_t stepValue = 1;
  std::string whyNotIndexed; ///< empty when indexed
  bool indexed() const { return lo.has_value(); }
  /// The index as the skeleton writes it (a keyword of the language gets a `_`).
  std::string name() const;
  bool used = false;         ///< a nest ported inside uses the index
  /// why nests inside that use this index were refused, for the loop's own warning
  std::vector<std::string> refusedUses;
};

/// Values of the pass are evaluated at every pass for their range up to this
/// many passes (NestAnalysis::passRange).
inline constexpr int64_t kPassRangeLimit = 65536;

/// The words that end the reason of a nest using the index of a sequential loop
/// outside the innermost one (NestAnalysis::noValueReason); the nest finder
/// looks for them to name the nest at the outer loop.
inline constexpr const char *kTwoSequentialLoops =
    "launches per iteration of two nested loops cannot be written";

/// The analysis state of one nest, shared by every step from the dependence
/// test to the body builder.
class NestAnalysis {
public:
  NestAnalysis(TUContext &tu, const FunctionFacts &facts, const NestScan &scan, NestPlan &plan,
               const std::vector<const clang::VarDecl *> &enclosing)
      : tu(tu), facts(facts), scan(scan), plan(plan), enclosing(enclosing) {}

  TUContext &tu;
  const FunctionFacts &facts;
  const NestScan &scan;
  NestPlan &plan;
  const std::vector<const clang::VarDecl *> &enclosing; ///< indices of enclosing loops not ported
  /// The sequential loops around the nest, outermost first (set by the nest
  /// finder; null in a nest analysed alone). Only the innermost one's index
  /// may be used, and only when it is indexed.
  const std::vector<SequentialLoop> *sequential = nullptr;
  /// The enclosing loop whose index the nest may use (an indexed repeat), or null.
  const SequentialLoop *repeatIndex() const;

  /// A scalar with a value known when skeletonizing (`--extent n=512`, a
  /// const with a constant initialiser): its value and skeleton form.
  std::optional<std::pair<int64_t, skeleton::Expr>> knownScalar(const clang::VarDecl *v);
  std::optional<int64_t> knownValue(const clang::Expr *e); ///< constant, or known scalars only
  /// The affine view used by the dependence test and the shapes.
  Affine affine(const clang::Expr *e);
  /// The range of a loop variable or of an affine form.
  std::optional<Interval> varRange(const clang::ValueDecl *v);
  std::optional<Interval> range(const Affine &a);
  /// The range of an integer expression: affine, or a selection `c ? x : y`
  /// (the hull of both arms: cfd's `b_end = (blk+1)*8 > n ? n : (blk+1)*8`),
  /// through scalars of the nest assigned once.
  std::optional<Interval> exprRange(const clang::Expr *e);
  /// Split a C subscript list into the skeleton dimensions of `shape`.
  std::optional<std::vector<DimForm>> split(const AccessRec &a, const ArrayShape &shape);
  Affine dimAffine(const DimForm &d);

  /// A value of the pass (docs/skeletonizer.md, "Programs"): a local of the
  /// indexed repeat's loop body, set once per pass by a statement of that body
  /// itself before this nest, from the index, constants, known sizes and other
  /// such values (`x = size - k - BS; n = x/BS; m = n*n;`), and changed by
  /// nothing else in the function: its skeleton form, with the index in it
  /// (C's `/` and `%` kept). Nullopt otherwise; passWhy says why when the
  /// local is set in that body at all.
  std::optional<skeleton::Expr> passValue(const clang::VarDecl *v);
  /// An integer expression of the index, constants, known sizes and values of
  /// the pass, in skeleton form; nullopt if anything else appears.
  /// Values of the pass in it must be set before `before`.
  std::optional<skeleton::Expr> passForm(const clang::Expr *e, clang::SourceLocation before);
  /// The values a value of the pass takes over the repeat's passes (each one
  /// evaluated, up to kPassRangeLimit passes).
  std::optional<Interval> passRange(const clang::VarDecl *v);
  /// Why a local assigned in the indexed repeat's body is no value of the pass
  /// (empty when it is one, or is not assigned there).
  std::string passWhy(const clang::VarDecl *v);
  /// Set when a value of the pass went into the kernel (it is launched once per pass).
  bool usedPassValue = false;

  /// The reason a scalar has no value the skeleton can use.
  std::string noValueReason(const clang::VarDecl *v);
  /// The extents after the first of an array declared as one (`b[n][m]`, a
  /// parameter `d[][N]`), when all are known; empty otherwise (rows through
  /// pointers have no place relative to each other).
  std::vector<int64_t> innerExtents(const clang::VarDecl *v);
  /// Every subscript after the first of `a` stays in its dimension's range
  /// over the nest's loops (or the array's rows are apart: rows through
  /// pointers), so equal subscripts mean one element and different ones
  /// different elements; false when a subscript may reach another row
  /// (`b[i][j-1]` at j = 0) or the range is unknown.
  bool staysInRows(const AccessRec &a);

private:
  struct PassDef {
    std::optional<skeleton::Expr> form;
    const clang::Expr *value = nullptr; ///< the C expression assigned
    std::string why;                    ///< when it is no value of the pass
    clang::SourceLocation setAt;        ///< the statement that sets it
    std::optional<Interval> range;
    bool rangeDone = false;
  };
  PassDef &passDef(const clang::VarDecl *v);
  std::optional<int64_t> passEval(const clang::Expr *e, int64_t index);
  std::map<const clang::VarDecl *, PassDef> passDefs_;
  std::set<const clang::VarDecl *> passBusy_;
  std::map<const clang::ValueDecl *, std::optional<Interval>> rangeCache_;
  std::set<const clang::ValueDecl *> rangeBusy_;
  std::set<const clang::VarDecl *> substBusy_;
  std::set<const clang::VarDecl *> localBusy_; ///< locals whose initialiser is being evaluated
};

/// a = sum(coef * factor) + constant over `+ - *`-by-constant, `<<` and unary minus.
/// The view of a linear subscript that delinearisation reads: NestAnalysis::split
/// and the strides Shapes.cpp infers from the constant factors.
struct Flattener {
  NestAnalysis &na;
  std::vector<std::pair<int64_t, const clang::Expr *>> terms;
  std::vector<int64_t> constants; ///< kept apart: `(i + 1)*C + j - 1` has C and -1
  bool ok = true;

  void add(const clang::Expr *e, int64_t k);
};

} // namespace skelcast::frontend
