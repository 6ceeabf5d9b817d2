// Determinism (issue 7, item 5): the same input gives byte-identical output
// when run again in the same process (no state survives a run). Separate
// processes are compared by tests/determinism/check.sh; batch's reports across
// -j by BatchTest.OutputDoesNotDependOnTheNumberOfThreads.
#include "skelcast/cli/Cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

std::string run(const std::vector<std::string> &args) {
  std::ostringstream out, err;
  int rc = skelcast::cli::runCli(args, out, err);
  EXPECT_EQ(rc, 0) << err.str();
  return out.str();
}

} // namespace

TEST(Determinism, ProjectJsonIsIdenticalWhenRunAgain) {
  std::vector<std::string> args{"project"};
  for (const auto &e : std::filesystem::directory_iterator(kSrc + "/skeletons"))
    if (e.path().extension() == ".skel")
      args.push_back(e.path().string());
  std::sort(args.begin() + 1, args.end());
  for (const char *spec : {"h100", "c1060"}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--hw", spec, "--format", "json", "--top", "50", "--cpu-ms", "3"});
    std::string first = run(a);
    EXPECT_EQ(run(a), first) << spec;
  }
}

TEST(Determinism, FilesInAnotherOrderGiveTheSameKernelReports) {
  // Each file's report depends on that file only.
  std::string m = kSrc + "/skeletons/matmul.skel", h = kSrc + "/skeletons/hotspot.skel";
  std::string mh = run({"project", m, h, "--format", "csv", "--top", "5"});
  std::string hm = run({"project", h, m, "--format", "csv", "--top", "5"});
  std::string mOnly = run({"project", m, "--format", "csv", "--top", "5"});
  std::string hOnly = run({"project", h, "--format", "csv", "--top", "5"});
  auto body = [](const std::string &csv) { return csv.substr(csv.find('\n') + 1); };
  EXPECT_EQ(body(mh), body(mOnly) + body(hOnly));
  EXPECT_EQ(body(hm), body(hOnly) + body(mOnly));
}
