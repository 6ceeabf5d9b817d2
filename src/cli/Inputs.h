// Reading the kernels a command works on, from .skel files (and, with the
// frontend, from C files).
#pragma once

#include "skelcast/skeleton/Skeleton.h"
#ifdef SKELCAST_HAVE_FRONTEND
#include "skelcast/frontend/Skeletonizer.h"
#endif

#include <iosfwd>

#include <string>
#include <vector>

namespace skelcast::cli {

/// How C inputs are skeletonized (empty without the frontend).
struct CInputOptions {
#ifdef SKELCAST_HAVE_FRONTEND
  frontend::SkeletonizeOptions options;
#endif
};

/// Parse one input file into a skeleton: a `.skel` file, or (with the frontend)
/// a C file through the skeletonizer, whose warnings go to `diagnostics`. Bad
/// input throws InputError.
skeleton::SkeletonFile loadSkeleton(const std::string &path, const CInputOptions &c,
                                    std::ostream &diagnostics);

} // namespace skelcast::cli
