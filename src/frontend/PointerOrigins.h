/// \file
/// Whose memory a pointer holds, as far as the file shows (docs/skeletonizer.md,
/// "Parallel loops: the dependence test", the aliasing rule). Each pointer or
/// array variable of a function gets an origin: an object of its own (an
/// array declared as one, memory from `malloc`/`calloc`/`aligned_alloc`/
/// `realloc`/`new[]`), a parameter (whose memory is the caller's), or unknown
/// (assigned more than once, swapped, from a call, a global pointer), and,
/// when it was set into another one (`xx = flat + 4`, `yy = xx`, `p = &a[k]`),
/// the offset into it. Two names with different objects never overlap; two
/// names into the same object overlap at the difference of their offsets,
/// which isl decides (PolyAlias). Parameters are related through the file's
/// calls of their function: `f(x, x)` makes two of them one.
#pragma once

#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace skelcast::frontend {

class TUContext;

/// One term of an offset: `sign * expr` elements (a 1-D offset).
struct OffsetTerm {
  const clang::Expr *expr = nullptr;
  int sign = 1;
};

struct PointerOrigin {
  enum class Kind {
    Object,  ///< its own memory: a declared array, or a fresh allocation
    Param,   ///< a parameter's memory (the caller's), never reassigned
    Unknown, ///< cannot be traced
  };
  Kind kind = Kind::Unknown;
  const clang::VarDecl *root = nullptr; ///< the object or parameter (Object, Param)
  bool offsetKnown = true;              ///< the offset below is the whole story (1-D)
  std::vector<OffsetTerm> offset;       ///< into root, in elements; empty: 0
  std::string why;                      ///< Unknown: why (for messages)
};

/// How two names of a loop relate.
struct AliasVerdict {
  enum class Kind {
    Distinct,        ///< never overlap (distinct objects)
    AssumedDistinct, ///< parameters (or a parameter and a global) assumed not to overlap
    SameObject,      ///< into one object; offsets known: isl decides
    Overlap,         ///< into one object at an offset that cannot be followed, or a
                     ///< call passes one array for both
    Unknown,         ///< at least one origin unknown: the strict rule decides
  };
  Kind kind = Kind::Unknown;
  std::vector<const clang::ParmVarDecl *> params; ///< AssumedDistinct: the parameters involved
  std::string why;                                ///< Overlap, Unknown: for the message
};

/// The origins of one translation unit's pointers, computed per function on
/// demand and kept.
class PointerOrigins {
public:
  explicit PointerOrigins(TUContext &tu);
  ~PointerOrigins();

  /// The origin of variable `v` of function `fn` (a parameter, a local or a global).
  const PointerOrigin &origin(const clang::FunctionDecl *fn, const clang::VarDecl *v);
  /// How `a` and `b`, both used in `fn`, relate.
  AliasVerdict relate(const clang::FunctionDecl *fn, const clang::VarDecl *a,
                      const clang::VarDecl *b);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace skelcast::frontend
