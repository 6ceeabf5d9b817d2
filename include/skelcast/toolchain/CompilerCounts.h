/// \file
/// A kernel's `comp N (fp64:M)` from the compiled code of its naive layout
/// (docs/skeletonizer.md, "Counts from a compiler"). The compiled code splits
/// into the body of its innermost loop (its steady state) and what runs once
/// per thread outside every loop; the skeleton's `comp`s in the innermost
/// sequential loop share the loop body's instructions per iteration, the ones
/// outside every loop share the rest, each region in proportion to the
/// table's counts (CostModel.cpp). Loads and stores are the skeleton's `ld`
/// and `st` and are not in `comp`; neither is loop control (3 per iteration:
/// the model adds it, docs/model.md, section 4).
#pragma once

#include "skelcast/skeleton/Eval.h"
#include "skelcast/skeleton/Skeleton.h"
#include "skelcast/toolchain/InstructionCounts.h"

#include <string>

namespace skelcast::toolchain {

struct AppliedCounts {
  bool ok = false;
  std::string why;  ///< !ok: why the compiled counts do not fit the skeleton (the table stays)
  std::string note; ///< ok: what was counted, for the kernel's comment
};

/// Where the compiled code builds the 64-bit literals of FP64 instructions
/// (`lit64`, docs/skeletonizer.md): PTX takes them as immediates, so its count
/// holds no moves and the table's `lit64` stays; SASS builds each with two
/// moves, which its count holds.
enum class LiteralMoves { NotInCount, InCount };

/// Set the `comp`s of `k` from `cc`, the compiled naive layout of the same
/// nest; `origin` names the code ("SASS of nvcc -O3 -arch=sm_90"). On failure
/// `k` is unchanged. `env` evaluates loop bounds (a fully unrolled loop).
/// With LiteralMoves::InCount, a rolled innermost loop's moves are taken off its
/// count and its `lit64` kept (the layout decides how often they run); elsewhere
/// `lit64` is 0 (the count holds them).
AppliedCounts applyCompiledCounts(skeleton::Kernel &k, const CodeCounts &cc,
                                  const std::string &origin, const skeleton::MacroTable &env,
                                  const std::string &file,
                                  LiteralMoves literals = LiteralMoves::InCount);

/// Loop control the model adds per iteration of a sequential loop (docs/model.md:
/// increment, compare, branch); the compiled loop body's own is taken off.
constexpr int64_t kLoopControl = 3;
/// The moves that build one 64-bit literal in SASS (layout::kLiteralMoveInsts).
constexpr int64_t kLiteralMoves = 2;

} // namespace skelcast::toolchain
