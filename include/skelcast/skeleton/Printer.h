/// \file
/// The canonical text form of a skeleton: `parseSkeleton(printSkeleton(f))`
/// gives back an IR equal to `f`. Two-space indentation, one item per line,
/// spaces around `+`/`-` and none around `*`, `/`, `%`, one blank line between
/// groups of macros, arrays and kernels, comments kept where they were attached.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <string>

namespace skelcast::skeleton {

std::string printSkeleton(const SkeletonFile &file);
std::string printExpr(const Expr &e);

} // namespace skelcast::skeleton
