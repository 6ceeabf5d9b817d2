// Reading the kernels a command works on, from .skel files (and, with the
// frontend, from C files).
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <string>
#include <vector>

namespace skelcast::cli {

/// Parse one input file into a skeleton; bad input throws InputError.
skeleton::SkeletonFile loadSkeleton(const std::string &path);

} // namespace skelcast::cli
