/// \file
/// Sizes passed as arguments: the values of a function's integer parameters
/// known from the calls in the translation unit. PolyBench's `main` does
/// `int ni = NI; ... kernel_gemm(ni, nj, nk, ...)` and the kernel's loops run
/// to `ni`; following the call from every caller in the file (through its
/// locals and its own parameters) gives `ni` the value of the macro `NI`.
/// docs/skeletonizer.md ("Sizes") states the rule.
#pragma once

#include "FunctionFacts.h"
#include "skelcast/skeleton/Skeleton.h"

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

class TUContext;

/// The value of a parameter that every call in the file agrees on.
struct ArgValue {
  int64_t value = 0;
  skeleton::Expr form;  ///< the caller's macro (`NI`) or the parameter's own name as a macro
  std::string origin;   ///< for the skeleton's comment: `passed by 'main' (gemm.c:120:3)`
};

class CallValues {
public:
  explicit CallValues(TUContext &tu) : tu_(tu) {}

  /// The value of `p` when every call of its function in the file passes the
  /// same known integer; nullopt otherwise (whyUnknown says why).
  std::optional<ArgValue> valueOf(const clang::ParmVarDecl *p);
  /// Why `p` has no value: no call in the file, a value read at run time
  /// (naming the expression and its position), calls that disagree.
  std::string whyUnknown(const clang::ParmVarDecl *p);

  /// The elements of the memory the pointer `v` points to, when every value
  /// it can hold in the file is a `malloc`/`calloc` of the same known size:
  /// followed through the calls that pass it (hotspot's `result`, allocated
  /// in `main` and passed down two calls) and through the locals it is copied
  /// and swapped with (`r = t; t = tmp;`), the size evaluated in the
  /// allocating function with the values the file or `--extent` gives. nullopt
  /// when any value is not such an allocation (`p + 4`, a global, a call from
  /// another file) or the sizes differ; `why` then says which.
  std::optional<int64_t> allocatedElements(const clang::VarDecl *v, std::string &why);

private:
  struct Call {
    const clang::CallExpr *call = nullptr;
    const clang::FunctionDecl *caller = nullptr;
  };
  struct Resolved {
    std::optional<int64_t> value;
    const clang::Expr *source = nullptr; ///< the constant expression it came from
    std::string why;                     ///< when there is no value
  };
  void index();
  Resolved resolve(const clang::Expr *e, const clang::FunctionDecl *caller, int depth);
  Resolved resolveParam(const clang::ParmVarDecl *p, int depth);
  bool writtenIn(const clang::VarDecl *v, const clang::FunctionDecl *fn);

  TUContext &tu_;
  bool indexed_ = false;
  std::map<const clang::FunctionDecl *, std::vector<Call>> calls_; ///< by canonical callee
  std::set<const clang::FunctionDecl *> escaped_; ///< named other than as a callee
  /// assignments and addresses taken in each caller, from scanFunction (NestScan.h)
  std::map<const clang::FunctionDecl *, FunctionFacts> facts_;
  std::set<const clang::ParmVarDecl *> busy_;
  std::map<const clang::ParmVarDecl *, Resolved> memo_;
};

} // namespace skelcast::frontend
