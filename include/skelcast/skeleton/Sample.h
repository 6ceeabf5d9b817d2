/// \file
/// Sample contents of index arrays (`hints<sample="FILE">`, `--sample M=FILE`):
/// integers separated by whitespace, row-major, possibly fewer than the array
/// holds. Used to judge the coalescing of indirect accesses.
#pragma once

#include "skelcast/support/Diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace skelcast::skeleton {

struct SampleData {
  std::string path;           ///< resolved path
  std::vector<int64_t> values;
  std::vector<int> lines;     ///< line of each value, for diagnostics
};

/// `rel` resolved against the directory of `anchorFile` (absolute `rel` kept).
std::string resolveRelative(const std::string &anchorFile, const std::string &rel);

/// Read a sample file; a missing file is an InputError at `namedAt` naming it,
/// a token that is not an integer an InputError at `file:line`.
SampleData loadSample(const std::string &resolvedPath, const SourceLoc &namedAt);

} // namespace skelcast::skeleton
