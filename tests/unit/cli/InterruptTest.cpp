// Interrupts (issue 17, item 4), with real signals to a child skelcast process:
// SIGINT ends any command with exit code 130 and SIGTERM with 143, printing
// `skelcast: interrupted`, killing the CPU harness it started and leaving no
// temporary file or directory. Before, SIGINT during `project --measure-cpu` was
// ignored (std::system blocks it) and a Ctrl-C that reached the harness too
// printed "the harness failed:" with an empty reason.
#include "../support/ChildProcess.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace fs = std::filesystem;
using skelcast::testsupport::TempDir;
using skelcast::testsupport::await;
using skelcast::testsupport::slurp;
using skelcast::testsupport::start;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

/// Wait until skelcast has opened `fifo` for reading (so it is running, past its
/// start-up, and blocked on the read); returns the write end, kept open unused.
int awaitReader(const std::string &fifo, pid_t pid) {
  for (int i = 0; i < 3000; ++i) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0)
      return fd;
    int status;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ADD_FAILURE() << "skelcast ended before reading the pipe";
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "skelcast never opened the pipe";
  return -1;
}

size_t entries(const fs::path &dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto &e : fs::directory_iterator(dir))
    ++n;
  return n;
}

/// `skelcast ARGS` blocked reading a pipe, then `sig`: exit code `code`, the message, nothing left.
void expectInterrupted(const std::vector<std::string> &args, const TempDir &dir, const std::string &fifo,
                       int sig, int code) {
  fs::create_directories(dir.path() / "tmp");
  pid_t pid = start(args, dir.path() / "tmp", dir.path());
  ASSERT_GT(pid, 0);
  int w = awaitReader(fifo, pid);
  ::kill(pid, sig);
  int status = await(pid, 10);
  if (w >= 0)
    ::close(w);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), code);
  EXPECT_EQ(slurp(dir.file("err.txt")), "skelcast: interrupted\n");
  EXPECT_EQ(entries(dir.path() / "tmp"), 0u) << "a temporary file was left";
}

} // namespace

TEST(Interrupt, SigintEndsProjectWith130) {
  TempDir dir("skelcast-interrupt");
  std::string fifo = dir.file("k.skel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expectInterrupted({"project", fifo}, dir, fifo, SIGINT, 130);
}

TEST(Interrupt, SigtermEndsFmtWith143) {
  TempDir dir("skelcast-interrupt");
  std::string fifo = dir.file("k.skel");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expectInterrupted({"fmt", "--check", fifo}, dir, fifo, SIGTERM, 143);
}

// batch holds its --out locked while it reads its inputs: an interrupt there
// leaves the directory empty and unlocked.
TEST(Interrupt, SigintDuringBatchLeavesTheOutputDirectoryEmptyAndFree) {
  TempDir dir("skelcast-interrupt");
  fs::create_directories(dir.path() / "suite");
  std::string fifo = (dir.path() / "suite" / "k.skel").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string out = dir.file("out");
  expectInterrupted({"batch", (dir.path() / "suite").string(), "--out", out, "-j", "1", "-q"}, dir, fifo, SIGINT, 130);
  EXPECT_EQ(entries(out), 0u);
  fs::remove(fifo);
  fs::copy_file(kSrc + "/skeletons/matmul.skel", dir.path() / "suite" / "matmul.skel");
  pid_t pid = start({"batch", (dir.path() / "suite").string(), "--out", out, "-j", "1"}, dir.path() / "tmp",
                    dir.path());
  int status = await(pid, 60);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << slurp(dir.file("err.txt"));
  EXPECT_EQ(entries(out), 4u);
}

#ifdef SKELCAST_HAVE_FRONTEND
namespace {

/// The pid of a process whose executable lies under `dir`, or 0.
pid_t processUnder(const fs::path &dir) {
  std::error_code ec;
  for (const auto &e : fs::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::error_code ec2;
    fs::path exe = fs::read_symlink(e.path() / "exe", ec2);
    if (!ec2 && exe.string().rfind(dir.string() + "/", 0) == 0)
      return std::stoi(name);
  }
  return 0;
}

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

} // namespace

TEST(Interrupt, SigintDuringMeasureCpuKillsTheHarness) {
  if (std::system("clang-19 --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "clang-19 is not installed";
  TempDir dir("skelcast-interrupt");
  fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  // A function that runs for minutes: the harness is still timing it when the signal comes.
  std::string c = dir.write("slow.c", "#define N 2048\nfloat a[N][N], b[N][N];\nvoid slow(void) {\n"
                                      "  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n"
                                      "      for (int k = 0; k < 100000; k++)\n"
                                      "        a[i][j] = a[i][j] * 0.999f + b[i][j];\n}\n");
  pid_t pid = start({"project", c, "--measure-cpu", "--cpu-repeats", "1"}, tmp, dir.path());
  ASSERT_GT(pid, 0);
  pid_t harness = 0;
  for (int i = 0; i < 6000 && !harness; ++i) { // the compile may take a while on a loaded machine
    harness = processUnder(tmp);
    if (!harness)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(harness, 0) << "the harness never ran: " << slurp(dir.file("err.txt"));
  ::kill(pid, SIGINT); // skelcast alone, as `kill -INT` does
  int status = await(pid, 10);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(slurp(dir.file("err.txt")), "skelcast: interrupted\n");
  // Orphaned, a killed harness is reaped by init at once; a live one would run for minutes.
  for (int i = 0; i < 200 && alive(harness); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive(harness)) << "the harness (pid " << harness << ") still runs";
  if (alive(harness))
    ::kill(harness, SIGKILL);
  EXPECT_EQ(entries(tmp), 0u) << "the harness directory was left";
}
#endif
