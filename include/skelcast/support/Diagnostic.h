/// \file
/// Source positions and the one error type every stage throws for bad input.
///
/// A bad input (skeleton text, hwspec JSON, layout string, manifest) is reported
/// as `file:line:col: error: message` (or `file: error: field 'x': message` for
/// JSON) and the CLI maps it to exit code 1. Nothing below the CLI prints.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace skelcast {

/// A position in an input file; line and column count from 1, 0 means unknown.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  std::string str() const;
  bool operator==(const SourceLoc &o) const {
    return file == o.file && line == o.line && col == o.col;
  }
};

/// The input is wrong: the user must change a file or an argument.
class InputError : public std::runtime_error {
public:
  InputError(SourceLoc loc, std::string message);
  const SourceLoc &loc() const { return loc_; }
  const std::string &message() const { return message_; }

private:
  SourceLoc loc_;
  std::string message_;
};

/// A warning collected by a stage and printed by the CLI (stages never print).
struct Warning {
  SourceLoc loc;
  std::string message;
  /// A note: what skelcast did that the user should know (a loop ported as a
  /// reduction), printed as `note:` and never an error under --warnings-as-errors.
  bool note = false;
  std::string str() const;
};

enum class Severity { Error, Warning, Note };

/// A diagnostic as Clang prints one: `file:line:col: error: message` (or
/// `warning:`), then, when `source` is the text of `loc.file` and holds line
/// `loc.line`, that line and a caret under column `loc.col` (columns count
/// bytes; a tab before the column stays a tab in the caret line, so the caret
/// lines up however the terminal expands tabs). With `color`, ANSI colours as
/// Clang's: the position in bold, `error:` bold red, `warning:` bold magenta,
/// the message in bold, the caret bold green. Ends with a newline.
std::string renderDiagnostic(Severity severity, const SourceLoc &loc, const std::string &message,
                             const std::string *source, bool color);

/// Line `line` (from 1) of `text`, without its line break; nothing when the
/// text has fewer lines.
bool sourceLine(const std::string &text, int line, std::string &out);

} // namespace skelcast
