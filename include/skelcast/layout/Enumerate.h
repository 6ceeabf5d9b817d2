/// \file
/// The layout space of GROPHECY §6 and its exploration order
/// B -> F -> [S, O] -> [cached data] -> L, with the paper's pruning:
/// size(B) <= max block size, size(B) x size(F) <= size(loop space), shared
/// memory per block within the limit. Bounds that keep the space finite are
/// documented in docs/model.md ("The layout space").
#pragma once

#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/hw/HwSpec.h"

#include <functional>

namespace skelcast::layout {

struct EnumerateOptions {
  int64_t maxFoldPerDim = 8; ///< F_d in {1, 2, 4, ..., maxFoldPerDim}
  int64_t maxUnroll = 16;    ///< largest unroll factor of an unstaged loop
  /// The bound on the space: at most this many candidates per kernel (about
  /// 0.6 s of one core for a few accesses). Beyond it the cached-data and stage subsets shrink
  /// (spaceBound); kernels within it are enumerated in full.
  int64_t maxCandidates = 1'000'000;
};

/// The size of a kernel's layout space before enumerating it, and the caps
/// that keep it within EnumerateOptions::maxCandidates (docs/model.md, "The
/// bound on the space"). The space doubles with every cacheable array and
/// every stageable loop; when the bound is exceeded the caps drop, one at a
/// time, an array while more arrays than loops are kept, else a loop.
struct SpaceBound {
  int cacheable = 0; ///< c: arrays that can be cached (loaded, never stored, affine)
  int stageable = 0; ///< s: constant-trip streaming loops (trip >= 2) reading one of them
  int cacheCap = 0;  ///< cacheable arrays considered per block shape (those of highest ShrDegree)
  int stageCap = 0;  ///< stageable loops considered per cached set (the first in loop order)
  /// Most candidates the enumeration can count with these caps: each (B, F)
  /// within the tile rule gives at most (1 + (2^cacheCap - 1) Π (2 + P_l)) x 2,
  /// the product over the stageCap stageable loops l of most choices, where P_l
  /// counts the power-of-two stage sizes of l (8 up to its trip and the shared
  /// memory of a block; a staged loop takes one of them or the paper's StageSize);
  /// each other one candidate (pruned).
  int64_t candidates = 0;
  bool reduced() const { return cacheCap < cacheable || stageCap < stageable; }
};

SpaceBound spaceBound(const KernelInfo &ki, const hw::HwSpec &hw, const EnumerateOptions &opts);

struct EnumerationStats {
  int64_t explored = 0; ///< candidate layouts generated (at most spaceBound().candidates)
  int64_t pruned = 0;   ///< of those, rejected by a pruning rule
};

/// Calls `emit` for every layout that survives pruning, with its
/// characterization; returns the counts.
EnumerationStats enumerateLayouts(const KernelInfo &ki, const hw::HwSpec &hw,
                                  const EnumerateOptions &opts,
                                  const std::function<void(const Layout &, const Characterization &)> &emit);

} // namespace skelcast::layout
