#include "skelcast/cli/Cli.h"

#include "../support/CliRun.h"

#include <gtest/gtest.h>

#include <sstream>

using skelcast::cli::runCli;

namespace {

using skelcast::testsupport::CliRun;
using skelcast::testsupport::run;

const std::string kSrc = SKELCAST_SOURCE_DIR;

} // namespace

TEST(CliExitCodes, VersionPrintsAndSucceeds) {
  CliRun r = run({"--version"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("skelcast "), std::string::npos) << r.out;
}

TEST(CliExitCodes, HelpSucceeds) {
  CliRun r = run({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("fmt"), std::string::npos) << r.out;
}

TEST(CliExitCodes, SubcommandHelpSucceeds) {
  CliRun r = run({"fmt", "--help"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("--check"), std::string::npos) << r.out;
}

TEST(CliExitCodes, UnknownOptionIsUsageError) {
  CliRun r = run({"fmt", "--no-such-flag", "x.skel"});
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
}

TEST(CliExitCodes, NoSubcommandIsUsageError) {
  EXPECT_EQ(run({}).rc, 2);
  EXPECT_EQ(run({"frobnicate"}).rc, 2);
}

TEST(CliExitCodes, MissingFileIsInputError) {
  CliRun r = run({"fmt", "/nonexistent/file.skel"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("/nonexistent/file.skel: error: cannot open file"), std::string::npos)
      << r.err;
}

// Usage errors in words, pointing at the subcommand's help (issue 17, item 17).
TEST(CliExitCodes, UsageErrorsPointAtTheSubcommandsHelp) {
  CliRun r = run({"project", "--top"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "skelcast: error: --top: needs a value\nrun 'skelcast project --help' for usage\n");
  r = run({"hw", "show"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("run 'skelcast hw show --help' for usage"), std::string::npos) << r.err;
  r = run({"frobnicate"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("run 'skelcast --help' for usage"), std::string::npos) << r.err;
}

TEST(CliExitCodes, ValidateOnSeveralGpusSaysThatItTakesOne) {
  std::string m = kSrc + "/validation/results/h100_kernels.json";
  CliRun r = run({"validate", m, "--hw", "h100", "--hw", "a100"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err, "skelcast: error: --hw: takes one value, was given 2\n"
                   "run 'skelcast validate --help' for usage\n");
  r = run({"validate", m, "--hw", "h100,a100"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "--hw: error: 'h100,a100' names several GPUs; this command takes one (project, "
                   "explain, batch and check take several: --hw h100,a100)\n");
  // project takes several (tests/unit/cli/WhatIfCommandTest.cpp), each once.
  r = run({"project", kSrc + "/skeletons/matmul.skel", "--hw", "h100,h100"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "--hw: error: GPU 'h100' is given twice\n");
}
