#include "skelcast/support/AtomicFile.h"

#include "skelcast/support/Diagnostic.h"
#include "skelcast/support/Interrupt.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace skelcast {
namespace {

[[noreturn]] void cannotWrite(const std::string &path, int err) {
  throw InputError({path, 0, 0}, fmt::format("cannot write: {}", std::strerror(err)));
}

/// `content` in a fresh temporary file beside `path`, written and synced, and
/// registered for removal on an interrupt while `guard` lives; returns its name.
/// On failure nothing is left and the error names `path`.
std::string writeTemporary(const std::string &path, const std::string &content,
                           std::unique_ptr<CleanupGuard> &guard) {
  namespace fs = std::filesystem;
  static std::atomic<unsigned> counter{0};
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  // A fresh name in the target's directory (so that rename stays within one
  // file system), unique per process and call; O_EXCL never reuses a file.
  // Mode 0666 lets the umask decide, as for any file the user creates.
  std::string tmp;
  int fd = -1;
  guard = std::make_unique<CleanupGuard>([&] {
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
      tmp = (dir / fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), counter++)).string();
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST)
        cannotWrite(path, errno);
    }
    if (fd < 0)
      cannotWrite(path, EEXIST);
    return tmp;
  });
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
  return tmp;
}

} // namespace

void writeFileAtomically(const std::string &path, const std::string &content) {
  writeFilesAtomically({{path, content}});
}

void writeFilesAtomically(const std::vector<std::pair<std::string, std::string>> &files) {
  std::vector<std::string> temps;
  std::vector<std::unique_ptr<CleanupGuard>> guards(files.size());
  auto discard = [&] {
    for (const auto &t : temps)
      ::unlink(t.c_str());
  };
  try {
    for (size_t i = 0; i < files.size(); ++i)
      temps.push_back(writeTemporary(files[i].first, files[i].second, guards[i]));
  } catch (...) {
    discard();
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      int err = errno;
      discard(); // the renamed ones are gone already; unlink fails on them harmlessly
      cannotWrite(files[i].first, err);
    }
}

std::optional<DirectoryLock> DirectoryLock::tryLock(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    throw InputError({dir, 0, 0}, fmt::format("cannot open the output directory: {}", std::strerror(errno)));
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR)
      continue;
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return std::nullopt;
    throw InputError({dir, 0, 0}, fmt::format("cannot lock the output directory: {}", std::strerror(err)));
  }
  return DirectoryLock(fd);
}

DirectoryLock &DirectoryLock::operator=(DirectoryLock &&o) noexcept {
  if (this != &o) {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0)
    ::close(fd_); // releases the flock
}

} // namespace skelcast
