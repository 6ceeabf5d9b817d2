#include "skelcast/support/TextFile.h"

#include "skelcast/support/Diagnostic.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <fstream>
#include <iostream>
#include <optional>

namespace skelcast {

void checkInputFile(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  // A directory opens as a stream on Linux and reads as nothing; a character or
  // block device (/dev/zero, /dev/full) reads forever: refuse both by name.
  if (st.type() == fs::file_type::directory)
    throw InputError({path, 0, 0}, "is a directory, not a file");
  if (st.type() == fs::file_type::character || st.type() == fs::file_type::block)
    throw InputError({path, 0, 0}, "is a device, not a file");
  if (!fs::exists(st)) {
    // The system's reason: "No such file or directory", "Not a directory", ...
    int err = ec ? ec.value() : ENOENT;
    struct stat sb;
    if (::stat(path.c_str(), &sb) != 0)
      err = errno;
    throw InputError({path, 0, 0}, std::string("cannot open file: ") + std::strerror(err));
  }
}

namespace {
std::optional<std::string> &stdinText() {
  static std::optional<std::string> text;
  return text;
}
} // namespace

std::string readStandardInput() {
  std::optional<std::string> &t = stdinText();
  if (t)
    return *t;
  std::string text;
  char buf[1 << 16];
  while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > kMaxInputBytes)
      throw InputError({kStdinName, 0, 0}, "larger than 64 MiB, not an input skelcast reads");
  }
  if (std::cin.bad())
    throw InputError({kStdinName, 0, 0}, "cannot read standard input");
  t = std::move(text);
  return *t;
}

const std::string *standardInputIfRead() {
  const std::optional<std::string> &t = stdinText();
  return t ? &*t : nullptr;
}

std::string readTextFile(const std::string &path) {
  if (path == "-")
    return readStandardInput();
  checkInputFile(path);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError({path, 0, 0}, std::string("cannot open file") +
                                       (errno ? std::string(": ") + std::strerror(errno) : ""));
  // Read in chunks up to the cap, so that a pipe that never ends is refused too.
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes)
      throw InputError({path, 0, 0}, "larger than 64 MiB, not an input skelcast reads");
  }
  if (in.bad())
    throw InputError({path, 0, 0}, "cannot read file");
  return text;
}

} // namespace skelcast
