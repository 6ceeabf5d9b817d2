/// \file
/// How the CLI prints diagnostics: Clang's form (`file:line:col: error: ...`,
/// the source line, a caret under the column), in colour on a terminal
/// (`--color=auto|always|never`), and `--warnings-as-errors` for CI. The source
/// line is read back from the user's file (standard input: the text read from
/// it), so a C file's warning shows the C line, tabs kept.
#pragma once

#include "skelcast/support/Diagnostic.h"

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace skelcast::cli {

class DiagnosticPrinter {
public:
  bool color = false;            ///< ANSI colours (--color)
  bool warningsAsErrors = false; ///< --warnings-as-errors

  /// An error with its source line and caret.
  std::string error(const InputError &e);
  /// One warning as printed (no check of --warnings-as-errors).
  std::string warning(const Warning &w);
  /// Print `warnings` on `err`. With --warnings-as-errors and any warning, each
  /// is printed as an error and an InputError at `skelcast` follows: "N warnings
  /// treated as errors (--warnings-as-errors)" (exit code 1, nothing on stdout).
  void emit(const std::vector<Warning> &warnings, std::ostream &err);
  /// batch and check: the suite's warnings (already rendered, as the reports hold
  /// them); with --warnings-as-errors and any, print them and the count on `err`
  /// and return true (the command then exits 1, its reports written).
  bool failOnWarnings(const std::vector<std::string> &warnings, std::ostream &err) const;
  /// A renderer for the frontend, which prints warnings itself when no nest can
  /// be ported.
  std::function<std::string(const Warning &)> renderer();

private:
  const std::string *source(const std::string &file);
  std::map<std::string, std::string> cache_;
};

/// --color's word to a yes/no: `auto` is whether `isTerminal` and NO_COLOR is unset or empty.
bool useColor(const std::string &mode, bool isTerminal);

} // namespace skelcast::cli
