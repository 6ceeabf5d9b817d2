/// \file
/// Parsing `.skel` text into the Skeleton IR, with the semantic checks of
/// docs/skeleton-language.md. Errors are InputError with `file:line:col` and
/// what was expected.
#pragma once

#include "skelcast/skeleton/Skeleton.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace skelcast::skeleton {

/// The largest skeleton text skelcast parses, and the most kernels one file may
/// hold (docs/performance.md, "Large skeletons"). The Skeleton IR takes about
/// 100 bytes of memory per byte of text (a statement node is some 900 bytes, an
/// expression 120, each with its own copy of the file's path), and `project`
/// keeps each kernel's top layouts, some 40 KB per kernel: within these bounds
/// a file costs at most about 1.1 GB to format and 1 GB to project; beyond
/// them it is refused at once instead of swapping for minutes.
inline constexpr std::size_t kMaxSkeletonBytes = std::size_t(8) << 20;
inline constexpr std::size_t kMaxKernels = 20000;

/// Parse and check skeleton text; `path` names it in diagnostics and anchors
/// relative sample-file paths.
SkeletonFile parseSkeleton(std::string_view text, const std::string &path);

/// Read and parse a file; an unreadable file is an InputError naming it.
SkeletonFile parseSkeletonFile(const std::string &path);

/// A reserved word of the skeleton language (`comp`, `ld`, `float`...): C code
/// may use it as a name, so the skeletonizer renames such names.
bool isKeyword(const std::string &word);

} // namespace skelcast::skeleton
