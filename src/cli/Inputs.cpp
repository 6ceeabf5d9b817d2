#include "Inputs.h"

#include "skelcast/skeleton/Parser.h"
#include "skelcast/support/Diagnostic.h"

#include <ostream>

namespace skelcast::cli {

skeleton::SkeletonFile loadSkeleton(const std::string &path, const CInputOptions &c,
                                    std::ostream &diagnostics) {
  if (path.size() > 2 && path.compare(path.size() - 2, 2, ".c") == 0) {
#ifdef SKELCAST_HAVE_FRONTEND
    frontend::SkeletonizeResult r = frontend::skeletonizeFile(path, c.options, diagnostics);
    for (const auto &w : r.warnings)
      diagnostics << w.str() << '\n';
    return r.file;
#else
    (void)c;
    (void)diagnostics;
    throw InputError({path, 0, 0}, "C input needs the skeletonizer, which is not part of this build");
#endif
  }
  return skeleton::parseSkeletonFile(path);
}

} // namespace skelcast::cli
