// Running the skelcast executable as a child process from a test (real
// signals, stderr that is no terminal): start it with TMPDIR and its output in
// files, wait for it with a time limit.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace skelcast::testsupport {

namespace fs = std::filesystem;

inline const std::string kExe = SKELCAST_EXE;

inline std::string slurp(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// skelcast with `args`, TMPDIR=`tmp`, stdout and stderr into files in `logs`.
inline pid_t start(const std::vector<std::string> &args, const fs::path &tmp, const fs::path &logs) {
  std::vector<std::string> argv{kExe};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char *> cargv;
  for (auto &a : argv)
    cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::string(*e).rfind("TMPDIR=", 0) != 0)
      env.push_back(*e);
  env.push_back("TMPDIR=" + tmp.string());
  std::vector<char *> cenv;
  for (auto &e : env)
    cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string out = (logs / "out.txt").string(), err = (logs / "err.txt").string();
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, kExe.c_str(), &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  EXPECT_EQ(rc, 0) << "cannot start " << kExe;
  return pid;
}

/// The child's wait status once it ends; after `seconds` it is killed and the test fails.
inline int await(pid_t pid, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (true) {
    pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid)
      return status;
    if (std::chrono::steady_clock::now() > until) {
      ADD_FAILURE() << "skelcast did not end within " << seconds << " s of the signal";
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace skelcast::testsupport
