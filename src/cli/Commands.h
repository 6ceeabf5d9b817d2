// One registration function per subcommand; each lives in its own file.
#pragma once

#include "Diagnostics.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace skelcast::cli {

/// Streams and the action chosen by the parsed command line.
struct Context {
  std::ostream &out;
  std::ostream &err;
  std::string specDir;         ///< where `--hw NAME` looks for NAME.json
  std::function<int()> action; ///< set by the subcommand that was selected
  /// `project FILE... -- ARGS` (and explain): the arguments after `--`, for
  /// Clang. CLI11 would give them to the files positional, so runCli takes
  /// them off first.
  std::vector<std::string> clangArgs;
  DiagnosticPrinter diag;      ///< --color, --warnings-as-errors
};

void registerFmt(CLI::App &app, Context &ctx);
void registerHw(CLI::App &app, Context &ctx);
void registerProject(CLI::App &app, Context &ctx);
void registerExplain(CLI::App &app, Context &ctx);
void registerSkeletonize(CLI::App &app, Context &ctx);
void registerEmit(CLI::App &app, Context &ctx); // EmitCommand.cpp
void registerValidate(CLI::App &app, Context &ctx);
void registerBatch(CLI::App &app, Context &ctx); // BatchCommand.cpp
void registerCheck(CLI::App &app, Context &ctx); // CheckCommand.cpp

/// Where `--hw NAME` looks: $SKELCAST_HWSPEC_DIR when set, else the installed
/// directory (`../share/skelcast/hwspecs` from the executable) when it exists,
/// else the source tree's hwspecs/ (README, "Installing").
std::string defaultSpecDir();

/// Runs `body`, turning an InputError into a message on `err` and exit code 1.
int guarded(Context &ctx, const std::function<int()> &body);

} // namespace skelcast::cli
