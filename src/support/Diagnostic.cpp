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

std::string Warning::str() const { return fmt::format("{}: warning: {}", loc.str(), message); }

} // namespace skelcast
