// What `skelcast batch` and `skelcast check` share: the options that choose the
// GPUs, model and parallelism, running the suite with a progress bar, and
// writing the four reports.
#pragma once

#include "Commands.h"
#include "skelcast/report/Batch.h"

#include <string>
#include <vector>

namespace skelcast::cli {

struct SuiteCommandOptions {
  std::string suite;
  std::vector<std::string> hw; ///< names or files; `--hw h100,a100` or repeated
  std::string model = "skelcast";
  std::vector<std::string> without;
  unsigned jobs = 0; ///< 0: std::thread::hardware_concurrency()
  size_t top = 5;
  /// "skelcast", or "skelcast without a,b" with the terms sorted (so that the
  /// label, which baselines compare, does not depend on the order of --without).
  std::string modelLabel() const;
};

/// --hw, --model, --without, -j, --top on `cmd`.
void addSuiteOptions(CLI::App *cmd, SuiteCommandOptions &o, const std::string &hwDefault);

/// Load the suite and the specs, create `outDir` (unless empty), run every job;
/// a progress bar goes to stderr when it is a terminal. Throws InputError for
/// an unusable suite, spec or output directory.
report::BatchReport projectSuite(Context &ctx, const SuiteCommandOptions &o, const std::string &outDir);

/// Create `dir` if missing; InputError when it cannot be.
void prepareOutputDir(const std::string &dir);

/// Write report.{md,html,json,csv} into `dir` (created if missing), each atomically.
std::vector<std::string> writeReports(const std::string &dir, const report::BatchReport &r);

/// One line per failure on `err`: "skelcast: benchmark 'x' ...: message".
void printFailures(Context &ctx, const report::BatchReport &r);

} // namespace skelcast::cli
