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
