/// \file
/// Writing result files so that a crash never leaves half of one (Kerncraft's
/// habit) and two writers never mix their sets: the bytes go to a temporary file
/// in the same directory, which is then renamed over the target; a set of files
/// (batch's four reports) is renamed only once every member is written, and a
/// directory that receives such a set is locked while it is. Reports,
/// baselines and JUnit files are written so.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skelcast {

/// Write `content` to `path` atomically. The directory must exist; a failure
/// (unwritable directory, full disk) is an InputError naming `path`, and no
/// temporary file is left behind.
void writeFileAtomically(const std::string &path, const std::string &content);

/// Write every (path, content) pair as writeFileAtomically does, but rename the
/// temporary files into place only after all of them are written: a failure while
/// writing leaves every target as it was.
void writeFilesAtomically(const std::vector<std::pair<std::string, std::string>> &files);

/// An exclusive lock on a directory (flock(2) on the directory itself: no lock
/// file is left in it, and the kernel releases the lock when the process ends,
/// however it ends). Held while the object lives.
class DirectoryLock {
public:
  /// The lock on `dir`, or nothing when another process (or another
  /// DirectoryLock of this one) holds it. InputError when `dir` cannot be opened.
  static std::optional<DirectoryLock> tryLock(const std::string &dir);
  DirectoryLock(DirectoryLock &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  DirectoryLock &operator=(DirectoryLock &&o) noexcept;
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;
  ~DirectoryLock();

private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

} // namespace skelcast
