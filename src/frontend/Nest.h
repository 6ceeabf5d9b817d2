/// \file
/// Loop nests of one C function: finding the outermost loops whose iterations
/// are independent, collapsing up to three of them into a loop space, the
/// shapes of the arrays they touch (with delinearisation of pointers indexed
/// as `a[i*N + k]`), and the hand-over to the KernelBuilder, which writes the
/// `parallel_for` body. docs/skeletonizer.md describes the rules.
#pragma once

#include "Affine.h"
#include "LoopHeader.h"
#include "TUContext.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtOpenMP.h>

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
};

/// One assignment to a scalar variable inside a nest.
struct ScalarWrite {
  const clang::VarDecl *var = nullptr;
  const clang::Expr *site = nullptr;  ///< the assignment (or nullptr for a declaration)
  const clang::Expr *value = nullptr; ///< the assigned value for `v = e` and `T v = e`
  bool reductionForm = false;         ///< `v op= e` or `v = v op e` with e free of v
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

  bool inside(const clang::ForStmt *inner, const clang::ForStmt *outer) const;
};

/// The shape of one array as the skeleton declares it.
struct ArrayShape {
  const clang::VarDecl *decl = nullptr;
  bool isRegister = false;  ///< a local array of the nest: registers, not memory
  skeleton::ElemType type = skeleton::ElemType::Float;
  std::vector<skeleton::Expr> extents;
  std::vector<int64_t> values;
  /// When one C subscript is split into several dimensions (a pointer indexed
  /// as `a[i*N + k]`): the stride of each dimension, the last one 1.
  std::vector<int64_t> strides;
  bool isPointer = false;  ///< declared as a pointer (not array syntax)
  bool isRestrict = false;
  std::string name;        ///< in the skeleton
  std::string origin;      ///< a comment saying where the shape came from
};

/// One dimension of an access after delinearisation: sum(coef * factor) + c,
/// or the C subscript itself when subscripts map one to one.
struct DimForm {
  const clang::Expr *direct = nullptr;
  std::vector<std::pair<int64_t, const clang::Expr *>> terms;
  int64_t constant = 0;
};

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
  std::set<const clang::VarDecl *> ompReductions;
  std::map<const clang::VarDecl *, LoopInfo> loops;  ///< every loop of the nest
  std::map<const clang::VarDecl *, ArrayShape> shapes;
  std::vector<const clang::Stmt *> body;             ///< statements of the kernel body, in order
  std::string why;                                   ///< how independence was established
};

/// Facts about a whole function that the analysis of a nest needs.
struct FunctionFacts {
  const clang::FunctionDecl *fn = nullptr;
  std::map<const clang::VarDecl *, int> assignments; ///< assignment sites (not the declaration)
  std::set<const clang::VarDecl *> addressTaken;
};

/// The file-level assembly of kernels and arrays, shared by all functions.
class FileAssembler {
public:
  explicit FileAssembler(TUContext &tu) : tu_(tu) {}
  /// The skeleton name of this array with this shape, declared if new.
  std::string declareArray(const ArrayShape &s);
  /// Undo the declarations (and widened extents) made since `mark` (a nest
  /// that failed).
  struct Mark {
    size_t arrays = 0, widenings = 0;
  };
  Mark mark() const { return {arrays.size(), widenings_.size()}; }
  void rollback(Mark mark);
  /// The arrays in the order of their declarations in the source.
  std::vector<skeleton::Array> arraysInSourceOrder() const;
  void addKernel(skeleton::Kernel k) { kernels.push_back(std::move(k)); }
  /// The C variable behind a skeleton array name (nullptr if none).
  const clang::VarDecl *declOf(const std::string &name) const;
  /// The skeleton names declared for a C variable.
  std::vector<std::string> namesOf(const clang::VarDecl *d) const;
  std::vector<skeleton::Array> arrays;
  std::vector<skeleton::Kernel> kernels;
  std::vector<skeleton::Repeat> repeats; ///< time-step loops around kernels
  std::vector<skeleton::HostStep> hostSteps; ///< host code between kernels, in program order
  std::vector<Warning> warnings;

  /// Whose an array is (HostData.h), by skeleton name; decides the host marks.
  struct HostRole {
    bool deviceOwned = false, constInput = false;
    bool outAllowed = true; ///< false when a `#pragma skelcast out` leaves it out
    std::string why;
  };
  std::map<std::string, HostRole> roles;
  std::vector<CFunction> functions; ///< those with kernels (array names before renaming)
  bool programMarks = false; ///< a repeat, a device temporary, `out` or a host step: write host marks

private:
  TUContext &tu_;
  std::map<std::string, size_t> byName_;
  std::map<const clang::VarDecl *, std::vector<size_t>> byDecl_;
  std::vector<const clang::VarDecl *> decls_;
  std::vector<int64_t> firstExtent_; ///< each array's first extent, by index
  struct Widening {
    size_t index;
    skeleton::Expr extent;
    int64_t value;
  };
  std::vector<Widening> widenings_; ///< first extents widened, with what they were
};

/// Finds and ports the nests of one function.
void processFunction(TUContext &tu, FileAssembler &out, const clang::FunctionDecl *fn);

/// The builder of one kernel (KernelBuilder.cpp): turns the plan's body into
/// skeleton statements; throws Unsupported.
class NestAnalysis;
skeleton::Kernel buildKernel(NestAnalysis &na, const std::string &name,
                             std::vector<Warning> &warnings);

/// The analysis state of one nest, shared by Nest.cpp and KernelBuilder.cpp.
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

  /// A scalar with a value known when skeletonizing (`--extent n=512`, a
  /// const with a constant initialiser): its value and skeleton form.
  std::optional<std::pair<int64_t, skeleton::Expr>> knownScalar(const clang::VarDecl *v);
  std::optional<int64_t> knownValue(const clang::Expr *e); ///< constant, or known scalars only
  /// The affine view used by the dependence test and the shapes.
  Affine affine(const clang::Expr *e);
  /// The range of a loop variable or of an affine form.
  std::optional<Interval> varRange(const clang::ValueDecl *v);
  std::optional<Interval> range(const Affine &a);
  /// Split a C subscript list into the skeleton dimensions of `shape`.
  std::optional<std::vector<DimForm>> split(const AccessRec &a, const ArrayShape &shape);
  Affine dimAffine(const DimForm &d);

  /// The reason a scalar has no value the skeleton can use.
  std::string noValueReason(const clang::VarDecl *v) const;

private:
  std::map<const clang::ValueDecl *, std::optional<Interval>> rangeCache_;
  std::set<const clang::ValueDecl *> rangeBusy_;
  std::set<const clang::VarDecl *> substBusy_;
};

} // namespace skelcast::frontend
