/// \file
/// What an interrupt (SIGINT, SIGTERM, SIGHUP) does to any skelcast command: it
/// ends the process with exit code 128 + the signal's number (130 for Ctrl-C,
/// 143 for SIGTERM, 129 for SIGHUP) and `skelcast: interrupted` on stderr, after
/// killing the child processes it started (the CPU harness and its compiler) and
/// removing the temporary files and directories it made.
///
/// How: `installInterruptHandling()`, called by `main` before any other thread
/// exists, blocks these signals in every thread and starts one thread that waits
/// for them (sigwait), so the clean-up runs as ordinary code, not in a signal
/// handler. Code that makes a temporary file or starts a child registers it here
/// first (`CleanupGuard`, `runCommand`); the registry is a mutex the interrupt
/// thread takes and never gives back, so nothing is created or reported after it
/// has started cleaning. A library caller that never installs the handling gets
/// the registry and nothing else: its signals are its own.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace skelcast {

/// Block SIGINT, SIGTERM and SIGHUP in this thread (and so in every thread it
/// starts later) and start the thread that answers them. Call once, from main.
void installInterruptHandling();

/// A path (a file, or a directory removed with its contents) that an interrupt
/// removes while the guard lives.
class CleanupGuard {
public:
  /// Runs `create`, which makes the file or directory and returns its path, and
  /// registers that path, both under the registry's lock: an interrupt sees
  /// either nothing made or the path registered. `create` must not register
  /// anything itself; when it throws, nothing is registered.
  explicit CleanupGuard(const std::function<std::string()> &create);
  ~CleanupGuard();
  const std::string &path() const { return path_; }
  CleanupGuard(const CleanupGuard &) = delete;
  CleanupGuard &operator=(const CleanupGuard &) = delete;

private:
  std::uint64_t id_;
  std::string path_;
};

/// How a command run by runCommand ended.
struct CommandStatus {
  int exitCode = -1; ///< the exit code, or -1 when a signal ended it
  int signal = 0;    ///< the signal that ended it, or 0
  bool ok() const { return exitCode == 0; }
  /// "exit code 3", "killed by signal 9 (Killed)"
  std::string describe() const;
};

/// Run `shellCommand` with /bin/sh in a process group of its own, with default
/// signal dispositions and an empty signal mask, and wait for it. An interrupt of
/// skelcast meanwhile kills the whole group (SIGKILL) before skelcast exits.
/// Throws std::runtime_error when the shell cannot be started.
CommandStatus runCommand(const std::string &shellCommand);

} // namespace skelcast
