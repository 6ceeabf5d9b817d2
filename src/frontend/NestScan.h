/// \file
/// Step 2 of docs/skeletonizer.md ("How it works"): scanning a candidate nest.
/// Every statement and expression inside must be of a supported kind; the scan
/// collects the array accesses (base variable, subscripts, read/write), the
/// scalar assignments, the local declarations and the inner loops' headers, and
/// throws Unsupported at the first construct that cannot be ported (the table
/// "What is refused, and why"). A call is counted when CalleeChecker accepts it:
/// a math function of the cost table, or a small pure function of the file.
/// The function-wide facts the later steps need (assignment counts, addresses
/// taken) are scanned here too.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <optional>

#include "ClangNodes.h"
#include "FunctionFacts.h"
#include "LoopHeader.h"
#include "TUContext.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// One array element access `A[i][k]` inside a nest.
struct AccessRec {
  const clang::ArraySubscriptExpr *expr = nullptr; ///< the outermost subscript
  const clang::VarDecl *base = nullptr;
  std::vector<const clang::Expr *> subs; ///< C subscripts, leftmost first
  bool read = false, write = false;
  const clang::ForStmt *loop = nullptr;  ///< innermost loop of the nest around it
  /// a field of an element of an array of structs that are not uniform
  /// (ClangNodes.h, structElement): the number type the element is taken as
  /// words of; null otherwise
  const clang::Type *word = nullptr;
  /// The field's own type when it is an integer wider than `word`: the loop
  /// reads integer fields of different sizes of one array, which is taken as
  /// words of the smallest, each wider field read as the word it begins with
  /// (the same sectors); null otherwise.
  const clang::Type *wideField = nullptr;
  /// For such a field: its place, in words of its own type (the constant
  /// part, and the subscripts of array fields on the way).
  unsigned fieldAt = 0;
  std::vector<FieldSubscript> fieldTerms;
};

/// A scalar a kernel reduces into (docs/skeletonizer.md, "Reductions"): the
/// variable, its operator, the loop whose iterations combine into it (or the
/// OpenMP directive's loop), and its name in the skeleton once declared.
struct ScalarReduction {
  const clang::VarDecl *var = nullptr;
  skeleton::ReduceOp op = skeleton::ReduceOp::Add;
  const clang::ForStmt *loop = nullptr;
  std::string name;
};

/// One assignment to a scalar variable inside a nest.
struct ScalarWrite {
  const clang::VarDecl *var = nullptr;
  const clang::Expr *site = nullptr;  ///< the assignment (or nullptr for a declaration)
  const clang::Expr *value = nullptr; ///< the assigned value for `v = e` and `T v = e`
  bool reductionForm = false;         ///< `v op= e` or `v = v op e` with e free of v
  /// The operator of a reduction form: `+` for `v += e`, `v -= e`, `v++`,
  /// `v = v + e`, `v = v - e`; `*` for `v *= e`, `v = v * e`; max and min for
  /// `v = fmax(v, e)` (fmaxf, fmaxl, max; fmin...) and `v = v < e ? e : v` in
  /// any of its four arrangements (a max or min macro). Empty otherwise.
  std::optional<skeleton::ReduceOp> reductionOp;
  bool viaConditional = false;        ///< the min/max form is `c ? x : y` (reads v twice)
  const clang::ForStmt *loop = nullptr;
};

/// Everything inside a candidate nest, collected once; unsupported constructs
/// throw Unsupported while scanning.
struct NestScan {
  std::vector<AccessRec> accesses;
  std::vector<ScalarWrite> scalarWrites;
  std::map<const clang::ForStmt *, const clang::ForStmt *> parent; ///< nullptr for the root
  std::map<const clang::ForStmt *, LoopHeader> headers;
  std::map<const clang::VarDecl *, const clang::ForStmt *> localDecls; ///< declared in that loop
  std::set<const clang::VarDecl *> registerArrays; ///< local arrays declared inside
  std::set<const clang::VarDecl *> indexScalars;   ///< scalars used in subscripts or bounds
  /// Inner loops that `if (c) { ...; break; }` ends early (a search): never
  /// in the loop space, their trip count data's (KernelBuilder::loop).
  std::set<const clang::ForStmt *> earlyExits;

  /// When not empty: the statements that make this nest, the others left to
  /// nests of their own (a fission of the root loop, LoopOrder.h): of the
  /// root's body, and of a loop inside it distributed among the groups. Every
  /// walk of a loop's body goes through bodyOf.
  std::set<const clang::Stmt *> only;

  bool inside(const clang::ForStmt *inner, const clang::ForStmt *outer) const;
  /// The statements of f's body (the body itself when it is not a block);
  /// those in `only` when some of them are.
  std::vector<const clang::Stmt *> bodyOf(const clang::ForStmt *f) const;
};

/// The facts of `fn`, from one walk over its body.
FunctionFacts scanFunction(const clang::FunctionDecl *fn);

/// Which calls a nest may make: math functions from the table (CostModel.h),
/// or small pure functions of the file (no loop, no memory, no globals), which
/// the instruction count inlines. Remembers its answers for the whole function.
class CalleeChecker {
public:
  explicit CalleeChecker(TUContext &tu) : tu_(tu) {}

  /// Empty if calls to `fd` can be counted, else the reason they cannot.
  std::string check(const clang::FunctionDecl *fd);

private:
  std::string pureStmt(const clang::Stmt *s, const clang::FunctionDecl *def,
                       const std::string &name);

  TUContext &tu_;
  std::map<const clang::FunctionDecl *, std::string> cache_;
  std::set<const clang::FunctionDecl *> busy_;
};

/// Scans the nest whose outermost loop is `outer` into `out`; throws
/// Unsupported at the first construct that cannot be ported.
void scanNest(TUContext &tu, CalleeChecker &callees, const clang::ForStmt *outer,
              NestScan &out);

} // namespace skelcast::frontend
