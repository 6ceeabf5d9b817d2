/// \file
/// Writing a result file so that a crash never leaves half of it (Kerncraft's
/// habit): the bytes go to a temporary file in the same directory, which is then
/// renamed over the target. Reports, baselines and JUnit files are written so.
#pragma once

#include <string>

namespace skelcast {

/// Write `content` to `path` atomically. The directory must exist; a failure
/// (unwritable directory, full disk) is an InputError naming `path`, and no
/// temporary file is left behind.
void writeFileAtomically(const std::string &path, const std::string &content);

} // namespace skelcast
