// A suite of benchmarks for `skelcast batch` and `check`: a directory (every
// .c and .skel file in it) or a JSON manifest (docs/batch.md). Reading a suite
// never projects anything; running one is SuiteRunner.h's job.
#pragma once

#include "Inputs.h"

#include <optional>
#include <string>
#include <vector>

namespace skelcast::cli {

struct BenchmarkSpec {
  std::string name;
  std::string input; ///< path from the working directory (manifest inputs resolved against it)
  InputOptions options;
  std::optional<double> cpuMs;
  /// Set when this benchmark cannot run (its input or a sample file is
  /// missing, its extension is unknown): a full diagnostic naming the field.
  /// The other benchmarks still run.
  std::string error;
};

struct Suite {
  std::string path; ///< as given
  bool isManifest = false;
  std::vector<BenchmarkSpec> benchmarks;
};

/// Read a suite. A directory with no input, or a manifest that is not valid
/// JSON, has another schema_version, a mistyped, unknown or duplicate field, is
/// an InputError naming the file and the field (`benchmarks[2].cpu_ms`).
Suite loadSuite(const std::string &path);

/// Parse manifest text; `path` names it in errors and anchors relative inputs.
Suite parseManifest(const std::string &text, const std::string &path);

} // namespace skelcast::cli
