// `--sweep NAME=RANGE` (project, batch): the sizes a sweep projects at.
//   N=1024..65536        from 1024, doubling, to 65536 (the same as :log)
//   N=1024..65536:log    doubling; :log:F multiplies by F (F > 1) instead
//   N=1000..8000:lin:1000  adding 1000
//   N=1000,2000,4000     these sizes (any order; sorted, each once)
// The end of a range is always a size of the sweep, even where the steps pass it.
// Sizes are integers within [1, 2^62]; a sweep has at most kMaxSweepPoints of
// them. Every malformed spec is an InputError at `--sweep` saying what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skelcast::cli {

constexpr size_t kMaxSweepPoints = 64;

struct SweepSpec {
  std::string name;            ///< a macro (.skel, C) or an --extent name (C)
  std::vector<int64_t> values; ///< increasing
  std::string rule;            ///< how the sizes were chosen, for the reports: "1024..65536, x2"
};

SweepSpec parseSweepSpec(const std::string &text);

} // namespace skelcast::cli
