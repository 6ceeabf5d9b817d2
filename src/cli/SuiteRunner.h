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
  unsigned jobs = 1; ///< threads (reading inputs and projecting); at least 1
  /// Called once per input, when it is finished (read, and each of its kernels
  /// projected on every GPU; or failed), one call at a time, from any of the
  /// threads. May be empty.
  std::function<void(const InputProgress &)> progress;
};

/// Read every input and project every (benchmark, kernel, GPU) job on `jobs`
/// threads: the inputs (C files through Clang) are read in parallel, and the
/// jobs of each input run from the moment it is read. Then each benchmark's
/// program on each GPU. A failing input or job is recorded in the report (a
/// failing program, where every kernel has a projection, as a warning of the
/// benchmark at the error's position; programFailures lists them); nothing
/// here throws for bad input. The report does not depend on `jobs`.
report::BatchReport runSuite(const Suite &suite, const SuiteRunOptions &opts);

/// A benchmark whose kernels all have a projection on a GPU but whose program
/// has none there (the model refused its transfers or repeats).
struct ProgramFailure {
  std::string benchmark, gpu;
  std::string message; ///< the warning runSuite recorded: "file:line:col: warning: ..."
};
/// Those of a report from runSuite, in benchmark and then GPU order.
std::vector<ProgramFailure> programFailures(const report::BatchReport &r);

} // namespace skelcast::cli
