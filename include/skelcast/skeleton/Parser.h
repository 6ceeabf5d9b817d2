/// \file
/// Parsing `.skel` text into the Skeleton IR, with the semantic checks of
/// docs/skeleton-language.md. Errors are InputError with `file:line:col` and
/// what was expected.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <string>
#include <string_view>

namespace skelcast::skeleton {

/// Parse and check skeleton text; `path` names it in diagnostics and anchors
/// relative sample-file paths.
SkeletonFile parseSkeleton(std::string_view text, const std::string &path);

/// Read and parse a file; an unreadable file is an InputError naming it.
SkeletonFile parseSkeletonFile(const std::string &path);

/// A reserved word of the skeleton language (`comp`, `ld`, `float`...): C code
/// may use it as a name, so the skeletonizer renames such names.
bool isKeyword(const std::string &word);

} // namespace skelcast::skeleton
