/// \file
/// The dependent chain of a stretch of C (docs/skeletonizer.md, "Dependent
/// chains"): the cycles from the first operation of a loop body to its last
/// result when each operation waits for its operands, for a body that holds a
/// correctly rounded division or square root. The GPU code of such an
/// operation is a sequence with a slow-path branch (FCHK, or a range test,
/// then a BRA around a CALL): a warp issues in order, so nothing after the
/// sequence starts before it is done, and the compiler does not overlap one
/// iteration's sequence with the next one's. A body without one is left to
/// the model's issue and latency terms (the compiler overlaps its iterations):
/// its chain is 0. The latencies are the H200's (sm_90), measured by
/// validation/kernels/chain.cu (validation/results/h200_chain.json).
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Stmt.h>

#include <cstdint>
#include <map>
#include <vector>

namespace skelcast::frontend {

/// Cycles an operation's result takes a warp that issues alone (sm_90).
struct ChainLatency {
  static constexpr double kAlu32 = 4;       ///< FADD, FFMA, FMUL, IMAD, LOP3 (h200_chain.json: 4.875 an op, the loop's 7 cycles an 8 ops in it)
  static constexpr double kFp64 = 8;        ///< DADD, DFMA (8.4-8.5)
  static constexpr double kConvert = 18;    ///< F2F and the other conversions (36 a pair)
  static constexpr double kLoad = 35;       ///< an L1 hit (43 a chase step, its 2 address instructions 8)
  static constexpr double kDivF32 = 58;     ///< div.rn.f32, its check and branch (58.4)
  static constexpr double kSqrtF32 = 56;    ///< sqrt.rn.f32 (56.5)
  static constexpr double kDivF64 = 125;    ///< div.rn.f64 (125.3)
  static constexpr double kSqrtF64 = 93;    ///< sqrt.rn.f64 (93.3)
};

/// Walks the statements of one stretch (a loop body, or the parallel body, not
/// the loops inside it) in program order.
class ChainWalker {
public:
  explicit ChainWalker(const clang::ASTContext &ast) : ast_(ast) {}
  /// The stretch's chain in cycles, rounded; 0 when it holds no correctly
  /// rounded division or square root.
  int64_t cycles(const std::vector<const clang::Stmt *> &stretch);

private:
  void stmt(const clang::Stmt *s);
  double expr(const clang::Expr *e);
  /// The operand of `+`/`-` that fuses with it into one FMA, or null.
  const clang::BinaryOperator *fusedMul(const clang::Expr *e, clang::QualType t) const;
  double arith(clang::QualType t) const;
  /// An operation that can start at `ready` and takes `latency`: its result's
  /// time. A serial one (a division's or square root's sequence) holds back
  /// everything after it.
  double at(double ready, double latency, bool serial = false);
  /// A load of the element `e` names (a subscript, `*p`, `p->x`'s base).
  double load(const clang::Expr *e);
  /// When the address of the element `e` names is ready (its subscripts).
  double address(const clang::Expr *e);
  bool isFp64(clang::QualType t) const;
  void assignedInside(const clang::Stmt *s);

  const clang::ASTContext &ast_;
  std::map<const clang::VarDecl *, double> ready_;
  double barrier_ = 0, end_ = 0;
  bool serial_ = false;
};

} // namespace skelcast::frontend
