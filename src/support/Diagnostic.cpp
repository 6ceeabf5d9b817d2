#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

namespace skelcast {

std::string SourceLoc::str() const {
  if (line <= 0)
    return file;
  if (col <= 0)
    return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, col);
}

InputError::InputError(SourceLoc loc, std::string message)
    : std::runtime_error(fmt::format("{}: error: {}", loc.str(), message)),
      loc_(std::move(loc)), message_(std::move(message)) {}

std::string Warning::str() const {
  return fmt::format("{}: {}: {}", loc.str(), note ? "note" : "warning", message);
}

bool sourceLine(const std::string &text, int line, std::string &out) {
  if (line <= 0)
    return false;
  size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos)
      return false;
    begin = nl + 1;
  }
  if (begin >= text.size())
    return false;
  size_t end = text.find('\n', begin);
  out = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (!out.empty() && out.back() == '\r')
    out.pop_back();
  return true;
}

std::string renderDiagnostic(Severity severity, const SourceLoc &loc, const std::string &message,
                             const std::string *source, bool color) {
  const char *bold = color ? "\033[1m" : "";
  const char *reset = color ? "\033[0m" : "";
  const char *kind = severity == Severity::Error     ? (color ? "\033[1;31m" : "")
                     : severity == Severity::Note ? (color ? "\033[1;36m" : "")
                                                  : (color ? "\033[1;35m" : "");
  const char *word = severity == Severity::Error  ? "error"
                     : severity == Severity::Note ? "note"
                                                  : "warning";
  std::string t = fmt::format("{}{}:{} {}{}:{} {}{}{}\n", bold, loc.str(), reset, kind, word, reset,
                              bold, message, reset);
  std::string line;
  if (source && loc.line > 0 && loc.col > 0 && sourceLine(*source, loc.line, line) &&
      static_cast<size_t>(loc.col) <= line.size() + 1) {
    // Text only: a line with control bytes or bytes that are not UTF-8 (a binary
    // file) is not shown.
    for (size_t i = 0; i < line.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(line[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f)
        return t;
      if (c >= 0x80) {
        size_t n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : 0;
        if (n == 0 || (c >= 0xe0 && c >= 0xf5))
          return t;
        for (size_t k = 1; k <= n; ++k)
          if (i + k >= line.size() || (static_cast<unsigned char>(line[i + k]) & 0xc0) != 0x80)
            return t;
        i += n;
      }
    }
    std::string caret;
    for (int i = 0; i + 1 < loc.col; ++i)
      caret += line[static_cast<size_t>(i)] == '\t' ? '\t' : ' ';
    t += fmt::format("{}\n{}{}^{}\n", line, caret, color ? "\033[1;32m" : "", reset);
  }
  return t;
}

} // namespace skelcast
