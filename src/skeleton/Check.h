// Semantic checks of a parsed skeleton (docs/skeleton-language.md, "Rules").
#pragma once

#include "skelcast/skeleton/Skeleton.h"

namespace skelcast::skeleton {

/// Throws InputError at the first violation.
void checkSkeleton(const SkeletonFile &f);

} // namespace skelcast::skeleton
