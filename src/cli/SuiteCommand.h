// What `skelcast batch` and `skelcast check` share: the options that choose the
// GPUs, model and parallelism, running the suite with a progress bar, and
// writing the four reports.
#pragma once

#include "Commands.h"
#ifdef SKELCAST_HAVE_FRONTEND
#include "SkeletonizeOptions.h"
#endif
#include "skelcast/report/Batch.h"
#include "skelcast/support/AtomicFile.h"

#include <functional>
#include <optional>

#include <string>
#include <vector>

namespace skelcast::cli {

struct Suite;

struct SuiteCommandOptions {
  std::string suite;
  std::vector<std::string> hw; ///< names or files; `--hw h100,a100` or repeated
  std::string model = "skelcast";
  std::vector<std::string> without;
  unsigned jobs = 0; ///< 0: std::thread::hardware_concurrency()
  size_t top = 5;
  bool quiet = false; ///< no progress on stderr
  std::vector<std::string> sets; ///< `--set FIELD=VALUE` (batch only), applied to every GPU
#ifdef SKELCAST_HAVE_FRONTEND
  SkeletonizeCliOptions c; ///< C options for every C input (a manifest's entries add to them)
#endif
  /// --model and --without, its label "skelcast", or "skelcast without a,b" with
  /// the terms sorted (so that the label, which baselines compare, does not
  /// depend on the order of --without).
  model::ModelSpec modelSpec() const;
};

/// --hw, --model, --without, -j, --top, --quiet on `cmd`.
void addSuiteOptions(CLI::App *cmd, SuiteCommandOptions &o, const std::string &hwDefault);

/// Load the suite and the specs, create and lock `outDir` (unless empty; the
/// lock is left in `outLock`, to be held until the reports are written), run
/// every job. Unless --quiet, progress goes to stderr: a bar redrawn in place on
/// a terminal, else a line per finished input (only when `ctx.err` is the
/// process's stderr: an in-process caller's streams get none). Throws
/// InputError for an unusable suite, spec or output directory, and when another
/// skelcast holds `outDir`.
/// `adjust`, when given, changes the suite (its benchmarks' options and CPU
/// times) after the command line's C options are merged in and before it runs.
report::BatchReport projectSuite(Context &ctx, const SuiteCommandOptions &o, const std::string &outDir,
                                 std::optional<DirectoryLock> &outLock,
                                 const std::function<void(Suite &)> &adjust = {});

/// Create `dir` if missing and lock it for this run; InputError when it cannot
/// be created, or when another skelcast is writing reports into it.
[[nodiscard]] DirectoryLock prepareOutputDir(const std::string &dir);

/// Write report.{md,html,json,csv} into `dir`, which the caller has locked, as
/// one set: each to a temporary file, then the four renamed into place.
std::vector<std::string> writeReports(const std::string &dir, const report::BatchReport &r);

/// One line per failure on `err`: "skelcast: benchmark 'x' ...: message".
void printFailures(Context &ctx, const report::BatchReport &r);

} // namespace skelcast::cli
