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
  std::string str() const;
};

} // namespace skelcast
