#include "Diagnostics.h"

#include "skelcast/support/TextFile.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

namespace skelcast::cli {

const std::string *DiagnosticPrinter::source(const std::string &file) {
  if (file == kStdinName)
    return standardInputIfRead();
  auto it = cache_.find(file);
  if (it != cache_.end())
    return &it->second;
  std::error_code ec;
  // Only a regular file is read back (never a pipe, which was read already).
  if (!std::filesystem::is_regular_file(file, ec))
    return nullptr;
  try {
    return &cache_.emplace(file, readTextFile(file)).first->second;
  } catch (const InputError &) {
    return nullptr;
  }
}

std::string DiagnosticPrinter::error(const InputError &e) {
  return renderDiagnostic(Severity::Error, e.loc(), e.message(), source(e.loc().file), color);
}

std::string DiagnosticPrinter::warning(const Warning &w) {
  return renderDiagnostic(w.note ? Severity::Note : Severity::Warning, w.loc, w.message,
                          source(w.loc.file), color);
}

void DiagnosticPrinter::emit(const std::vector<Warning> &warnings, std::ostream &err) {
  size_t counted = 0;
  for (const Warning &w : warnings) {
    bool asError = warningsAsErrors && !w.note;
    counted += w.note ? 0 : 1;
    err << (asError ? renderDiagnostic(Severity::Error, w.loc,
                                       w.message + " [--warnings-as-errors]",
                                       source(w.loc.file), color)
                    : warning(w));
  }
  if (warningsAsErrors && counted > 0)
    throw InputError({"skelcast", 0, 0},
                     fmt::format("{} warning{} treated as error{} (--warnings-as-errors)",
                                 counted, counted == 1 ? "" : "s", counted == 1 ? "" : "s"));
}

bool DiagnosticPrinter::failOnWarnings(const std::vector<std::string> &warnings,
                                       std::ostream &err) const {
  if (!warningsAsErrors || warnings.empty())
    return false;
  for (const std::string &w : warnings)
    err << w << '\n';
  err << fmt::format("skelcast: error: {} warning{} treated as error{} (--warnings-as-errors)\n",
                     warnings.size(), warnings.size() == 1 ? "" : "s",
                     warnings.size() == 1 ? "" : "s");
  return true;
}

std::function<std::string(const Warning &)> DiagnosticPrinter::renderer() {
  return [this](const Warning &w) { return warning(w); };
}

bool useColor(const std::string &mode, bool isTerminal) {
  if (mode == "always")
    return true;
  if (mode == "never")
    return false;
  const char *noColor = std::getenv("NO_COLOR");
  return isTerminal && !(noColor && *noColor);
}

} // namespace skelcast::cli
