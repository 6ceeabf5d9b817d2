#include "skelcast/skeleton/Sample.h"
#include "skelcast/support/TextFile.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace skelcast::skeleton {

std::string resolveRelative(const std::string &anchorFile, const std::string &rel) {
  namespace fs = std::filesystem;
  fs::path r(rel);
  if (r.is_absolute())
    return r.lexically_normal().string();
  fs::path base = fs::path(anchorFile).parent_path();
  return (base / r).lexically_normal().string();
}

SampleData loadSample(const std::string &path, const SourceLoc &namedAt) {
  std::string text;
  try {
    text = readTextFile(path);
  } catch (const InputError &e) {
    // Named where the skeleton names the file: that is the line to change.
    throw InputError(namedAt, fmt::format("cannot open sample file '{}': {}", path, e.message()));
  }
  SampleData d;
  d.path = path;
  std::istringstream in(text);
  std::string line;
  int ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    std::istringstream ls(line);
    std::string tok;
    while (ls >> tok) {
      errno = 0;
      char *end = nullptr;
      long long v = std::strtoll(tok.c_str(), &end, 10);
      if (end != tok.c_str() + tok.size() || errno == ERANGE)
        throw InputError({path, ln, 0}, fmt::format("'{}' is not an integer", tok));
      d.values.push_back(v);
      d.lines.push_back(ln);
    }
  }
  return d;
}

} // namespace skelcast::skeleton
