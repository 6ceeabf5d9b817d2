#include "Inputs.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

namespace skelcast::cli {

skeleton::SkeletonFile loadSkeleton(const std::string &path) {
  if (path.size() > 2 && path.compare(path.size() - 2, 2, ".c") == 0)
    throw InputError({path, 0, 0}, "C input needs the skeletonizer (skelcast skeletonize), which "
                                   "is not part of this build");
  return skeleton::parseSkeletonFile(path);
}

} // namespace skelcast::cli
