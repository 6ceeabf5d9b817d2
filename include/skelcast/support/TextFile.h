/// \file
/// Reading an input file whole (skeletons, sample files, hwspecs, measurements,
/// manifests, baselines): one place that refuses what is not a file to read, so
/// that no loader hangs on a device that never ends (/dev/zero) or swallows a
/// directory as empty text.
#pragma once

#include <cstddef>
#include <string>

namespace skelcast {

/// The largest input skelcast reads: far beyond any skeleton, spec or sample
/// file, and small enough that an endless pipe is refused in well under a second.
inline constexpr std::size_t kMaxInputBytes = std::size_t(64) << 20;

/// Refuse, as an InputError at `path`, what is no file to read: a path that does
/// not exist ("cannot open file"), a directory, a character or block device.
void checkInputFile(const std::string &path);

/// How messages name standard input.
inline constexpr const char *kStdinName = "<stdin>";

/// Standard input, whole: read on the first call (up to the 64 MiB cap, an
/// InputError at `<stdin>` beyond), the same text on every later call.
std::string readStandardInput();

/// Standard input's text if readStandardInput has read it, else nothing.
const std::string *standardInputIfRead();

/// Read the whole of `path` (`-`: standard input, as readStandardInput): a regular file or a pipe. Errors are InputError at
/// `path`: "cannot open file", "is a directory, not a file", "is a device, not a
/// file", "cannot read file", "larger than 64 MiB, not an input skelcast reads".
std::string readTextFile(const std::string &path);

} // namespace skelcast
