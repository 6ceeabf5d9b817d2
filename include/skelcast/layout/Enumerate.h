/// \file
/// The layout space of GROPHECY §6 and its exploration order
/// B -> F -> [S, O] -> [cached data] -> L, with the paper's pruning:
/// size(B) <= max block size, size(B) x size(F) <= size(loop space), shared
/// memory per block within the limit. Bounds that keep the space finite are
/// documented in docs/model.md ("The layout space").
#pragma once

#include "skelcast/layout/Characterize.h"
#include "skelcast/layout/Layout.h"
#include "skelcast/model/HwSpec.h"

#include <functional>

namespace skelcast::layout {

struct EnumerateOptions {
  int64_t maxFoldPerDim = 8; ///< F_d in {1, 2, 4, ..., maxFoldPerDim}
  int64_t maxUnroll = 16;    ///< largest unroll factor of an unstaged loop
};

struct EnumerationStats {
  int64_t explored = 0; ///< candidate layouts generated
  int64_t pruned = 0;   ///< of those, rejected by a pruning rule
};

/// Calls `emit` for every layout that survives pruning, with its
/// characterization; returns the counts.
EnumerationStats enumerateLayouts(const KernelInfo &ki, const model::HwSpec &hw,
                                  const EnumerateOptions &opts,
                                  const std::function<void(const Layout &, const Characterization &)> &emit);

} // namespace skelcast::layout
