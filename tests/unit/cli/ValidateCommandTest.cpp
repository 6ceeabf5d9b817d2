// `skelcast validate` (issue 17): every --format for program files too (item
// 11), a measurement taken on another GPU than the spec's is an error unless
// --force (item 12), and a missed target says which and by how much (item 18).
#include "../support/CliRun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;
const std::string kKernels = "validation/results/h100_kernels.json";
const std::string kPrograms = "validation/results/h100_programs.json";

TEST(ValidateCommand, ProgramFilesInEveryFormat) {
  std::filesystem::current_path(kSrc);
  CliRun table = run({"validate", kPrograms});
  ASSERT_EQ(table.rc, 0) << table.err;
  CliRun json = run({"validate", kPrograms, "--format", "json"});
  ASSERT_EQ(json.rc, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["hw"], "h100");
  EXPECT_EQ(j["gpu"], "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(j["checks"].is_array());
  EXPECT_GT(j["checks"].size(), 3u);
  EXPECT_TRUE(j["checks"][0].contains("quantity"));
  EXPECT_TRUE(j.contains("transfers_within_15pct"));
  CliRun md = run({"validate", kPrograms, "--format", "markdown"});
  ASSERT_EQ(md.rc, 0) << md.err;
  EXPECT_NE(md.out.find("| program | quantity |"), std::string::npos) << md.out;
  EXPECT_NE(md.out, table.out);
}

TEST(ValidateCommand, AnotherGpuThanTheSpecsIsAnErrorUnlessForced) {
  std::filesystem::current_path(kSrc);
  for (const std::string &file : {kKernels, kPrograms}) {
    CliRun r = run({"validate", file, "--hw", "a100"});
    EXPECT_EQ(r.rc, 1) << file << "\n" << r.out;
    EXPECT_EQ(r.err, file + ": error: field 'gpu.name': measured on 'NVIDIA H100 80GB HBM3', not on "
                            "the spec's GPU 'a100': give its spec with --hw, or --force to compare "
                            "anyway\n");
    EXPECT_EQ(r.out, "");
    r = run({"validate", file, "--hw", "a100", "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
  }
  EXPECT_EQ(run({"validate", kKernels, "--hw", "h100"}).rc, 0);
  EXPECT_EQ(run({"validate", "validation/results/h200_kernels.json", "--hw", "h200"}).rc, 0);
}

TEST(ValidateCommand, AMissedTargetSaysWhichAndByHowMuch) {
  std::filesystem::current_path(kSrc);
  CliRun r = run({"validate", kKernels, "--max-error", "1"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("skelcast: validation targets not met: geometric-mean error ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("% exceeds --max-error 1%"), std::string::npos) << r.err;
  r = run({"validate", kPrograms, "--max-error", "1"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--max-error"), std::string::npos) << r.err;
}

} // namespace
