// Skeletonizing C text in a test: the printed skeleton, the warnings, what
// went to the diagnostics stream, and the error when nothing could be ported.
#pragma once

#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Printer.h"

#include <sstream>
#include <string>

namespace skelcast::testsupport {

struct Skeletonized {
  bool ok = false;      ///< a skeleton was written
  std::string text;     ///< the printed skeleton
  std::string warnings; ///< the result's warnings, one a line
  std::string diag;     ///< what went to the diagnostics stream (Clang's messages among it)
  std::string error;    ///< when not ok: the diagnostics, then the error
};

inline Skeletonized skeletonizeText(const std::string &code, const std::string &path = "t.c",
                                    const frontend::SkeletonizeOptions &opts = {}) {
  Skeletonized o;
  std::ostringstream d;
  try {
    frontend::SkeletonizeResult r = frontend::skeletonizeCode(code, path, opts, d);
    o.text = skeleton::printSkeleton(r.file);
    for (const auto &w : r.warnings)
      o.warnings += w.str() + "\n";
    o.ok = true;
  } catch (const InputError &e) {
    o.error = d.str() + e.what();
  }
  o.diag = d.str();
  return o;
}

inline bool has(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

} // namespace skelcast::testsupport
