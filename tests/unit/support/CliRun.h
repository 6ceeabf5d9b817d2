// Running the skelcast CLI in-process from a test: its exit code, stdout and
// stderr, for the tests of tests/unit/cli and tests/unit/frontend.
#pragma once

#include "skelcast/cli/Cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace skelcast::testsupport {

struct CliRun {
  int rc;
  std::string out, err;
};

inline CliRun run(const std::vector<std::string> &args) {
  std::ostringstream out, err;
  int rc = cli::runCli(args, out, err);
  return {rc, out.str(), err.str()};
}

} // namespace skelcast::testsupport
