/// \file
/// The skelcast command line: CLI11 subcommands that wire the stages together.
/// `main` only calls runCli, so the whole tool runs in-process in tests.
///
/// Exit codes: 0 success, 1 the input is wrong (diagnostics on `err`),
/// 2 a usage error.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace skelcast::cli {

enum ExitCode : int { Success = 0, InputFailure = 1, UsageFailure = 2 };

int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace skelcast::cli
