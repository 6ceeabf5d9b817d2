// The progress of `batch` and `check` as a user sees it (issue 17, item 21), from
// the executable with stderr in a file (no terminal): a line with the count of
// inputs before anything is read, then one per finished input with done/total,
// its file and the time elapsed; `--quiet` prints none.
#include "../support/ChildProcess.h"
#include "../support/TempDir.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace fs = std::filesystem;
using namespace skelcast::testsupport;

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

} // namespace

TEST(BatchProgress, ALinePerInputWithoutATerminal) {
  TempDir dir("skelcast-progress");
  fs::create_directories(dir.path() / "suite");
  fs::copy_file(kSrc + "/skeletons/matmul.skel", dir.path() / "suite" / "matmul.skel");
  fs::copy_file(kSrc + "/skeletons/hotspot.skel", dir.path() / "suite" / "hotspot.skel");
  dir.write("suite/broken.skel", "parallel_for(\n");
  std::string suite = (dir.path() / "suite").string();
  pid_t pid = start({"batch", suite, "--hw", "h100,a100", "--out", dir.file("out"), "-j", "2"}, dir.path(),
                    dir.path());
  int status = await(pid, 120);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1); // broken.skel fails
  std::vector<std::string> err = lines(slurp(dir.file("err.txt")));
  ASSERT_GE(err.size(), 4u) << slurp(dir.file("err.txt"));
  EXPECT_EQ(err[0], "skelcast: 3 inputs on 2 GPUs");
  std::set<std::string> files;
  for (size_t i = 1; i <= 3; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(err[i], m,
                                 std::regex(R"(skelcast: \[(\d)/3\] (.*): (1 kernel on 2 GPUs|failed), \d+\.\d s)")))
        << err[i];
    EXPECT_EQ(m[1].str(), std::to_string(i));
    files.insert(m[2].str());
    EXPECT_EQ(m[3].str() == "failed", m[2].str() == suite + "/broken.skel") << err[i];
  }
  EXPECT_EQ(files, (std::set<std::string>{suite + "/broken.skel", suite + "/hotspot.skel", suite + "/matmul.skel"}));
  // Then the failure itself, as before.
  EXPECT_EQ(err[4], "skelcast: benchmark 'broken' failed:");

  pid = start({"batch", suite, "--hw", "h100", "--out", dir.file("out"), "--quiet"}, dir.path(), dir.path());
  status = await(pid, 120);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(lines(slurp(dir.file("err.txt")))[0], "skelcast: benchmark 'broken' failed:");
}
