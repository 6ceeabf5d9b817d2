// Running a suite: every kernel of every benchmark projected on every GPU, as
// independent jobs on a pool of threads. Results are gathered by job index, so
// the BatchReport (and every file rendered from it) is the same bytes whatever
// the number of threads.
#pragma once

#include "Suite.h"
#include "skelcast/model/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Batch.h"

#include <functional>
#include <string>
#include <vector>

namespace skelcast::cli {

struct SuiteRunOptions {
  std::vector<model::HwSpec> gpus;
  model::ModelOptions model;
  std::string modelLabel;
  layout::EnumerateOptions enumerate;
  size_t top = 5;    ///< layouts kept per kernel and GPU (ModelOptions::keepTop; 0 keeps all)
  unsigned jobs = 1; ///< threads; at least 1
  /// Called after each finished job with (done, total), one call at a time
  /// (from the worker threads); total counts the jobs of the inputs read so
  /// far (it grows until every input is read). May be empty.
  std::function<void(size_t, size_t)> progress;
};

/// Read every input (one after the other, on the calling thread: the frontend
/// is not asked to be thread-safe) and project every (benchmark, kernel, GPU)
/// job in parallel, the jobs of each input from the moment it is read.
/// A failing input or job is recorded in the report; nothing here throws for
/// bad input.
report::BatchReport runSuite(const Suite &suite, const SuiteRunOptions &opts);

} // namespace skelcast::cli
