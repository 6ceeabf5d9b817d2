/// \file
/// `skelcast check`: the projected times and speedups of a suite against a
/// baseline, as one immutable CheckReport value, and its renderers (the text
/// that CI logs show, JUnit XML, and the baseline file itself).
///
/// The baseline (docs/batch.md) is
///   {"schema_version": 1, "skelcast_version": "0.1.0", "model": "skelcast",
///    "specs": {"h100": "<content hash>", ...},
///    "entries": [{"benchmark", "kernel", "gpu", "time_ms", "speedup"}, ...]}
/// with one entry per kernel and GPU; `speedup` is the benchmark's (null
/// without a CPU time) and `specs` is optional.
///
/// A kernel on a GPU *regressed* when its projected time grew by more than the
/// tolerance (new > old x (1 + tol)) or its benchmark's speedup fell by more
/// than it (new < old x (1 - tol)). Entries only in the baseline are *gone*
/// (a failure), entries only in the run are *new* (a failure with `strict`).
///
/// The text report, for example:
///
///   REGRESSED  streaming_64M: kernel 'kernel0' on h100: time 0.2763 ms -> 0.3687 ms (+33.5%); speedup 168x -> 126x (-25.1%)
///   44 kernel/GPU entries: 43 unchanged within 5%, 0 improved, 1 regressed, 0 new, 0 gone, 0 failed; 0 inputs failed
///   check FAILED
#pragma once

#include "skelcast/report/Batch.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::report {

struct BaselineEntry {
  std::string benchmark, kernel, gpu;
  double timeMs = 0;
  std::optional<double> speedup;
};

struct Baseline {
  std::string path; ///< where it was read from (for messages)
  std::string version, model;
  std::map<std::string, std::string> specs; ///< GPU name -> spec content hash
  std::vector<BaselineEntry> entries;
};

/// Parse a baseline; anything that is not a schema_version 1 baseline (another
/// version, a batch report, a missing or mistyped field, a duplicate entry) is
/// an InputError naming the file and the field.
Baseline parseBaseline(const std::string &text, const std::string &path);

/// The baseline of a run: one entry per kernel and GPU that has a projection.
Baseline baselineFromReport(const BatchReport &r);

/// The baseline file (values rounded to 6 significant digits, so that it diffs well).
std::string renderBaselineJson(const Baseline &b);

/// A tolerance as the user writes it: "5%" or "0.05" (a fraction); a bare
/// number above 1 is refused as ambiguous. InputError naming `--tolerance`.
double parseTolerance(const std::string &text);

struct CheckOptions {
  double tolerance = 0.05;
  bool strict = false; ///< new kernels fail too
};

enum class CheckStatus { Unchanged, Improved, Regressed, New, Gone, Failed };
const char *checkStatusName(CheckStatus s);

struct CheckEntry {
  CheckStatus status = CheckStatus::Unchanged;
  std::string benchmark, kernel, gpu;
  std::optional<double> oldTimeMs, newTimeMs, oldSpeedup, newSpeedup;
  bool timeRegressed = false, speedupRegressed = false;
  std::string message; ///< Failed: why there is no projection now
  /// Whether this entry fails the check.
  bool fails(bool strict) const;
};

struct CheckReport {
  std::string suite, baselinePath, version, model;
  std::vector<std::string> gpus; ///< the GPUs projected now
  CheckOptions options;
  std::vector<CheckEntry> entries; ///< run order, then the baseline's gone entries in its order
  std::vector<BatchFailure> inputFailures; ///< inputs that could not be read
  std::vector<std::string> notes; ///< spec changes, baseline GPUs that were not projected
  size_t count(CheckStatus s) const;
  bool failed() const;
};

/// Compare a run with a baseline. The baseline's model must be the run's (an
/// InputError otherwise, as must another skelcast version). Baseline entries
/// on GPUs that were not projected are not compared; a note says so.
CheckReport compareWithBaseline(const BatchReport &run, const Baseline &base, const CheckOptions &opts);

/// What CI logs show: every entry that is not unchanged, then the summary line.
std::string renderCheckText(const CheckReport &c);

/// JUnit XML: one testsuite per GPU, one testcase per kernel and GPU (classname
/// the benchmark), a <failure> for each regressed, gone or failed entry (and new
/// ones under strict); inputs that failed are testcases of their own.
std::string renderJUnit(const CheckReport &c);

/// `check --format json`: every entry with its status and both sides, the input
/// failures, notes and the counts (docs/schema/check.schema.json).
std::string renderCheckJson(const CheckReport &c);
/// `check --format csv`: one row per entry (and per input that failed).
std::string renderCheckCsv(const CheckReport &c);

} // namespace skelcast::report
