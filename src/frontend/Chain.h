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
#include <set>
#include <string>
#include <vector>

namespace skelcast::frontend {

/// Cycles an operation's result takes a warp that issues alone (sm_90).
struct ChainLatency {
  static constexpr double kAlu32 = 4;       ///< FADD, FFMA, FMUL, IMAD, LOP3 (h200_chain.json: 4.875 an op, 0.875 of it the loop's own counter and branch)
  static constexpr double kFp64 = 8;        ///< DADD, DFMA (8.4-8.5)
  static constexpr double kConvert = 18;    ///< F2F and the other conversions (36 a pair)
  static constexpr double kLoad = 35;       ///< an L1 hit (43 a chase step, its 2 address instructions 8)
  static constexpr double kDivF32 = 58;     ///< div.rn.f32, its check and branch (58.4)
  static constexpr double kSqrtF32 = 56;    ///< sqrt.rn.f32 (56.5)
  static constexpr double kDivF64 = 125;    ///< div.rn.f64 (125.3)
  static constexpr double kSqrtF64 = 93;    ///< sqrt.rn.f64 (93.3)
};

/// A stretch's chain: the cycles of its operations one after another, and the
/// loads waited for on that path (their latency is the model's: an L1 hit, a
/// shared-memory read or a DRAM round trip, by the layout).
struct ChainCycles {
  int64_t cycles = 0; ///< without the loads' waits
  int64_t waits = 0;  ///< loads on the path
};

/// Walks the statements of one stretch (a loop body, or the parallel body, not
/// the loops inside it) in program order.
class ChainWalker {
public:
  /// The bodies of the loops inside a stretch that run as part of it (the
  /// copies of loop-space loops after interchange, LoopOrder.h).
  using InlineBodies = std::map<const clang::ForStmt *, std::vector<const clang::Stmt *>>;
  ChainWalker(const clang::ASTContext &ast, const InlineBodies &inlineBodies) : ast_(ast), inline_(inlineBodies) {}
  /// The stretch's chain, rounded; {0, 0} when it holds no correctly rounded
  /// division or square root. `loopVar`: the index of the loop whose body the
  /// stretch is (null for the parallel body): a division or square root of
  /// values that do not change with it, in the stretch, is hoisted out.
  ChainCycles chain(const std::vector<const clang::Stmt *> &stretch, const clang::VarDecl *loopVar);

private:
  /// When a value is ready: cycles since the stretch began, loads at
  /// ChainLatency::kLoad each, and how many loads its path waited for.
  struct Ready {
    double t = 0;
    int waits = 0;
    bool varies = false; ///< reads a load, the loop's index or what the stretch assigns from them
    bool operator<(const Ready &o) const { return t < o.t || (t == o.t && waits < o.waits); }
  };
  static Ready later(Ready a, Ready b) {
    Ready r = a < b ? b : a;
    r.varies = a.varies || b.varies;
    return r;
  }
  void stmt(const clang::Stmt *s);
  Ready expr(const clang::Expr *e);
  /// The operand of `+`/`-` that fuses with it into one FMA, or null.
  const clang::BinaryOperator *fusedMul(const clang::Expr *e, clang::QualType t) const;
  double arith(clang::QualType t) const;
  /// An operation that can start at `ready` and takes `latency`: its result's
  /// time. A serial one (a division's or square root's sequence) holds back
  /// everything after it.
  Ready at(Ready ready, double latency, bool serial = false);
  /// A load of the element `e` names (a subscript, `*p`, `p->x`'s base).
  Ready load(const clang::Expr *e);
  /// When the address of the element `e` names is ready (its subscripts).
  Ready address(const clang::Expr *e);
  bool isFp64(clang::QualType t) const;
  /// A loop inside the stretch: what it assigns is ready after the chain so far.
  void assignedInside(const clang::Stmt *s);
  std::string textOf(const clang::Expr *e) const;
  /// The array (or pointer) an element access reads or writes; null if unknown.
  static const clang::ValueDecl *baseOf(const clang::Expr *e);
  /// A store to `stored`'s array: its elements loaded before are read again.
  void forgetLoadsOf(const clang::Expr *stored);

  const clang::ASTContext &ast_;
  const InlineBodies &inline_;
  const clang::VarDecl *loopVar_ = nullptr;
  /// Variables the stretch assigns: read before that, they hold the last
  /// iteration's value, which changes with the loop.
  std::set<const clang::VarDecl *> assigned_;
  std::map<const clang::VarDecl *, Ready> ready_;
  /// Elements loaded in the stretch, by their text: read again, the register
  /// holds them (until a store to the array; the skeleton loads them once too).
  struct Loaded {
    Ready ready;
    const clang::ValueDecl *base = nullptr; ///< the array (null: unknown)
  };
  std::map<std::string, Loaded> loaded_;
  Ready barrier_, end_;
  bool serial_ = false;
};

} // namespace skelcast::frontend
