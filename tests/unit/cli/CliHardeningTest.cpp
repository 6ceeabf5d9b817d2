// Regression tests of the CLI found by the hardening work (issue 7).
#include "skelcast/cli/Cli.h"

#include "../support/TempDir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const std::string kSrc = SKELCAST_SOURCE_DIR;

} // namespace

// A file name that is not UTF-8 (they come from the command line) made the
// JSON renderer throw nlohmann's type_error 316: std::terminate, exit 134.
TEST(CliHardening, FileNameThatIsNotUtf8InJson) {
  skelcast::testsupport::TempDir tmp("skelcast-cli-hardening");
  const auto &dir = tmp.path();
  std::string skel = (dir / "bad\xff.skel").string();
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", skel,
                             std::filesystem::copy_options::overwrite_existing);
  std::ostringstream out, err;
  int rc = skelcast::cli::runCli({"project", skel, "--format", "json", "--top", "1"}, out, err);
  ASSERT_EQ(rc, 0) << err.str();
  auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["kernels"][0]["file"].get<std::string>(), (dir / "bad\xef\xbf\xbd.skel").string());

  // The same through validate --format json: a measurement file with that name.
  std::string meas = (dir / "m\xff.json").string();
  std::ofstream(meas) << R"({"schema_version": 1, "skeleton_root": ")" << kSrc << R"(", "cases": [
    {"kernel": "matmul", "size": "800", "skeleton": "validation/skeletons/matmul_800.skel",
     "layout": "block=i:16,j:16", "time_ms": 0.19}]})";
  std::ostringstream vout, verr;
  rc = skelcast::cli::runCli({"validate", meas, "--format", "json"}, vout, verr);
  ASSERT_EQ(rc, 0) << verr.str();
  EXPECT_NO_THROW(nlohmann::json::parse(vout.str()));
}

// An unwritable --junit printed "check passed" and then exited 1 (issue 17,
// item 18): the JUnit file is written before anything is reported, and a
// directory that cannot take it is refused before the suite runs.
TEST(CliHardening, UnwritableJUnitIsReportedBeforeTheResult) {
  auto dir = std::filesystem::temp_directory_path() / "skelcast-junit";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "suite");
  std::filesystem::copy_file(kSrc + "/skeletons/matmul.skel", dir / "suite" / "matmul.skel");
  std::string suite = (dir / "suite").string(), base = (dir / "base.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(skelcast::cli::runCli({"check", suite, "--baseline", base, "--hw", "h100",
                                   "--update-baseline"},
                                  out, err),
            0)
      << err.str();
  std::string junit = (dir / "no_such_dir" / "j.xml").string();
  std::ostringstream out2, err2;
  int rc = skelcast::cli::runCli({"check", suite, "--baseline", base, "--junit", junit}, out2, err2);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(out2.str(), "");
  EXPECT_EQ(err2.str(), junit + ": error: cannot write: No such file or directory\n");
  std::filesystem::remove_all(dir);
}
