#include "skelcast/support/JsonText.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace skelcast {
namespace {

/// nlohmann's message without its "[json.exception.x.N] " prefix, its own
/// "parse error at line L, column C: " (the position is in the diagnostic) and
/// the raw bytes it last read (which may be binary garbage).
std::string cleanMessage(std::string what) {
  if (what.rfind("[json.exception.", 0) == 0) {
    auto close = what.find("] ");
    if (close != std::string::npos)
      what.erase(0, close + 2);
  }
  if (what.rfind("parse error", 0) == 0) {
    auto colon = what.find(": ");
    if (colon != std::string::npos)
      what.erase(0, colon + 2);
  }
  auto lr = what.find("; last read: '");
  if (lr != std::string::npos) {
    auto expected = what.find("'; expected", lr);
    what.erase(lr, expected == std::string::npos ? std::string::npos : expected + 1 - lr);
  }
  return what;
}

} // namespace

nlohmann::json parseJsonText(const std::string &text, const std::string &path) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    throw InputError({path, 1, 1}, "empty file");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // nlohmann reports the byte offset just past the problem; turn it into line:col.
    size_t off = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    int line = 1, col = 1;
    for (size_t i = 0; i < off; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError({path, line, col}, "invalid JSON: " + cleanMessage(e.what()));
  } catch (const nlohmann::json::exception &e) {
    // e.g. out_of_range 406, a number beyond a double's range, which has no position
    throw InputError({path, 0, 0}, "invalid JSON: " + cleanMessage(e.what()));
  }
}

} // namespace skelcast
