/// \file
/// Fusion of neighbouring kernels into one (docs/model.md, "Fusion"): the
/// consumer's indices are renamed to the producer's, a value the producer
/// stores and the consumer loads at the same index stays in a register, a value
/// read a stencil halo away is recomputed from a shifted copy of the producer's
/// body, and the store of an intermediate that nothing later reads is dropped.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <optional>
#include <set>
#include <string>

namespace skelcast::skeleton {

struct FusionResult {
  std::optional<Kernel> fused; ///< absent when the pair cannot be fused
  std::string whyNot;          ///< why not, when absent
  int recomputedCopies = 0;    ///< shifted copies of the producer's body
  std::vector<std::string> droppedStores, registerLoads;
};

/// Fuse `producer` then `consumer` of `file`; `dead` names the arrays whose
/// stores may be dropped (nothing after the pair reads them, the host does not).
FusionResult fuseKernels(const SkeletonFile &file, const Kernel &producer, const Kernel &consumer,
                         const std::set<std::string> &dead);

} // namespace skelcast::skeleton
