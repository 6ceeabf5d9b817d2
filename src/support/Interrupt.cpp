#include "skelcast/support/Interrupt.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace skelcast {
namespace {

/// What an interrupt must undo. `mutex` is taken by the interrupt thread and
/// never released: whoever registers or unregisters afterwards waits until the
/// process exits.
struct Registry {
  std::mutex mutex;
  std::uint64_t next = 0;
  std::map<std::uint64_t, std::string> paths;
  std::map<pid_t, bool> groups; ///< process groups of running children
};

Registry &registry() {
  static Registry *r = new Registry; // never destroyed: the interrupt thread may outlive main's statics
  return *r;
}

sigset_t interruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void cleanUpAndExit(int sig) {
  Registry &r = registry();
  r.mutex.lock(); // never unlocked
  for (const auto &[pgid, unused] : r.groups)
    ::kill(-pgid, SIGKILL);
  for (const auto &[pgid, unused] : r.groups)
    while (::waitpid(pgid, nullptr, 0) < 0 && errno == EINTR) {
    }
  for (const auto &[id, path] : r.paths) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  static const char msg[] = "skelcast: interrupted\n";
  [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
  ::_exit(128 + sig);
}

} // namespace

void installInterruptHandling() {
  sigset_t set = interruptSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    cleanUpAndExit(sig);
  }).detach();
}

CleanupGuard::CleanupGuard(const std::function<std::string()> &create) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  path_ = create();
  id_ = r.next++;
  r.paths.emplace(id_, path_);
}

CleanupGuard::~CleanupGuard() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  r.paths.erase(id_);
}

std::string CommandStatus::describe() const {
  if (signal)
    return fmt::format("killed by signal {} ({})", signal, ::strsignal(signal));
  return fmt::format("exit code {}", exitCode);
}

CommandStatus runCommand(const std::string &shellCommand) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults = interruptSignals();
  sigemptyset(&none);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0); // its own group: the terminal's Ctrl-C reaches skelcast only
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  const char *argv[] = {"sh", "-c", shellCommand.c_str(), nullptr};
  pid_t pid = -1;
  int err;
  Registry &r = registry();
  {
    // Spawned and registered under one lock: an interrupt either comes before
    // (no child) or finds the child registered.
    std::lock_guard lock(r.mutex);
    err = posix_spawn(&pid, "/bin/sh", nullptr, &attr, const_cast<char **>(argv), environ);
    if (err == 0)
      r.groups.emplace(pid, true);
  }
  posix_spawnattr_destroy(&attr);
  if (err != 0)
    throw std::runtime_error(fmt::format("cannot start /bin/sh: {}", std::strerror(err)));
  int status = 0;
  pid_t got;
  while ((got = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(r.mutex);
    r.groups.erase(pid);
  }
  CommandStatus s;
  if (got < 0)
    s.exitCode = -1;
  else if (WIFEXITED(status))
    s.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    s.signal = WTERMSIG(status);
  return s;
}

} // namespace skelcast
