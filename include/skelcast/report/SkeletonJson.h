/// \file
/// `skelcast skeletonize --format json`: a skeleton file as JSON, its text and
/// its parts (docs/schema/skeletonize.schema.json).
#pragma once

#include "skelcast/skeleton/Skeleton.h"
#include "skelcast/support/Diagnostic.h"

#include <string>
#include <vector>

namespace skelcast::report {

/// `f` (the skeleton of a C file), with the warnings skeletonizing it gave and
/// the C functions its kernels came from: {"schema_version": 1, "input",
/// "functions", "skeleton" (the text), "macros", "arrays", "kernels", "repeats",
/// "warnings"}; every expression as {"text", "value"} (value null unless constant).
std::string renderSkeletonJson(const skeleton::SkeletonFile &f, const std::vector<Warning> &warnings,
                               const std::vector<std::string> &functions, const std::string &version);

} // namespace skelcast::report
