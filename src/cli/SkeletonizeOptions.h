// The skeletonizer's command-line options, shared by `skeletonize FILE.c` and
// (for the lead's `project FILE.c`) any command that reads C code:
//   FILE [-D X=1] [-I DIR] [-std=c11] [-p DIR] [--function NAME]
//   [--extent a=N,N] [--trip n=14] [--sample M=FILE] [--assume-aliasing] [-- clang args]
#pragma once

#ifdef SKELCAST_HAVE_FRONTEND

#include "Inputs.h"
#include "skelcast/frontend/Skeletonizer.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace skelcast::cli {

struct SkeletonizeCliOptions {
  std::string file;
  std::vector<std::string> defines, includes, extents, trips, samples, rest;
  std::string std, db, function;
  bool assumeAliasing = false; ///< --assume-aliasing
  std::string counts = "table"; ///< --counts auto|sass|ptx|table
  std::string loadGroups = "estimate"; ///< --load-groups estimate|sass

  /// Declare the options on `cmd`; `file` is its required positional.
  void add(CLI::App *cmd);
  /// Only the flags (-D, -I, -std, -p, --function, --extent, --trip, --sample,
  /// --assume-aliasing),
  /// for commands with their own positionals (`project FILE.c`).
  void addFlags(CLI::App *cmd);
  /// The library's options; throws CLI::ValidationError (a usage error) on a
  /// malformed --extent/--trip/--sample. Call it from the subcommand callback.
  frontend::SkeletonizeOptions finish() const;
  /// Declare `--counts` (for the commands that project: skeletonize, project,
  /// explain, batch, check, validate).
  void addCounts(CLI::App *cmd);
  /// Declare `--load-groups` (for the commands that rank layouts: project,
  /// explain, validate).
  void addLoadGroups(CLI::App *cmd);
  /// `--counts` as a value (a usage error when unknown).
  toolchain::CountSource countSource() const;
  /// The same as a command's input options (project, explain, batch, check).
  InputOptions inputOptions() const;
};

/// `base` (a manifest's entry) with the command line's C options under it:
/// the command line's compiler arguments first, its --extent, --trip and
/// --sample where the entry gives none for that name, its --function and -p
/// where the entry has none, --assume-aliasing if either says so.
InputOptions withCommandLine(InputOptions base, const InputOptions &cli);

} // namespace skelcast::cli

#endif // SKELCAST_HAVE_FRONTEND
