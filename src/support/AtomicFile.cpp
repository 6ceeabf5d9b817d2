#include "skelcast/support/AtomicFile.h"

#include "skelcast/support/Diagnostic.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace skelcast {
namespace {

[[noreturn]] void cannotWrite(const std::string &path, int err) {
  throw InputError({path, 0, 0}, fmt::format("cannot write: {}", std::strerror(err)));
}

} // namespace

void writeFileAtomically(const std::string &path, const std::string &content) {
  namespace fs = std::filesystem;
  static std::atomic<unsigned> counter{0};
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  // A fresh name in the target's directory (so that rename stays within one
  // file system), unique per process and call; O_EXCL never reuses a file.
  // Mode 0666 lets the umask decide, as for any file the user creates.
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = (dir / fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), counter++)).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      cannotWrite(path, errno);
  }
  if (fd < 0)
    cannotWrite(path, EEXIST);
  auto abandon = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    cannotWrite(path, err);
  };
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      abandon(errno);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    abandon(errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    cannotWrite(path, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    cannotWrite(path, err);
  }
}

} // namespace skelcast
