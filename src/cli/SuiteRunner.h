// Running a suite: every kernel of every benchmark projected on every GPU, as
// independent jobs on a pool of threads. Results are gathered by job index, so
// the BatchReport (and every file rendered from it) is the same bytes whatever
// the number of threads.
#pragma once

#include "Suite.h"
#include "skelcast/hw/HwSpec.h"
#include "skelcast/model/Project.h"
#include "skelcast/report/Batch.h"

#include <functional>
#include <string>
#include <vector>

namespace skelcast::cli {

/// One finished input, for a progress display: `done` of `total` inputs (the
/// suite's, counted before anything is read, so it never changes).
struct InputProgress {
  size_t done = 0, total = 0;
  std::string name, input; ///< the benchmark and its file
  size_t kernels = 0, gpus = 0;
  bool failed = false; ///< the input could not be read
};

struct SuiteRunOptions {
  std::vector<hw::HwSpec> gpus;
  model::ModelOptions model; ///< its label goes into the report
  layout::EnumerateOptions enumerate;
  size_t top = 5;    ///< layouts kept per kernel and GPU (ModelOptions::keepTop; 0 keeps all)
  unsigned jobs = 1; ///< threads; at least 1
  /// Called once per input, when it is finished (read, and each of its kernels
  /// projected on every GPU; or failed), one call at a time, from the reading
  /// thread or a worker. May be empty.
  std::function<void(const InputProgress &)> progress;
};

/// Read every input (one after the other, on the calling thread: the frontend
/// is not asked to be thread-safe) and project every (benchmark, kernel, GPU)
/// job in parallel, the jobs of each input from the moment it is read.
/// A failing input or job is recorded in the report; nothing here throws for
/// bad input.
report::BatchReport runSuite(const Suite &suite, const SuiteRunOptions &opts);

} // namespace skelcast::cli
