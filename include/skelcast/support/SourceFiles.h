/// \file
/// Which files are C sources, by their names: one list for the skeletonizer
/// (which compiles C-style C++ as C++) and for every command that reads C.
#pragma once

#include <string>
#include <string_view>

namespace skelcast {

/// The extensions of C-style C++ sources (Rodinia's OpenMP codes are .cpp):
/// the skeletonizer runs Clang on them with `-x c++`.
inline constexpr std::string_view kCxxExtensions[] = {".cpp", ".cc", ".cxx", ".c++", ".C"};

/// Every extension a C input may have, as messages list them.
inline constexpr const char *kCSourceExtensionList = ".c, .cc, .cpp, .cxx, .c++, .C";

inline bool endsWith(std::string_view path, std::string_view ext) {
  return path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
}

/// Whether `path` names C-style C++ (kCxxExtensions).
inline bool isCxxSource(std::string_view path) {
  for (std::string_view ext : kCxxExtensions)
    if (endsWith(path, ext))
      return true;
  return false;
}

/// Whether `path` names a C source: C (.c) or C-style C++, which the
/// skeletonizer reads alike.
inline bool isCSource(std::string_view path) { return endsWith(path, ".c") || isCxxSource(path); }

} // namespace skelcast
