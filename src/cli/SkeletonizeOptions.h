// The skeletonizer's command-line options, shared by `skeletonize FILE.c` and
// (for the lead's `project FILE.c`) any command that reads C code:
//   FILE [-D X=1] [-I DIR] [-std=c11] [-p DIR] [--function NAME]
//   [--extent a=N,N] [--trip n=14] [--sample M=FILE] [--assume-aliasing] [-- clang args]
#pragma once

#ifdef SKELCAST_HAVE_FRONTEND

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

  /// Declare the options on `cmd`; `file` is its required positional.
  void add(CLI::App *cmd);
  /// Only the flags (-D, -I, -std, -p, --function, --extent, --trip, --sample,
  /// --assume-aliasing),
  /// for commands with their own positionals (`project FILE.c`).
  void addFlags(CLI::App *cmd);
  /// The library's options; throws CLI::ValidationError (a usage error) on a
  /// malformed --extent/--trip/--sample. Call it from the subcommand callback.
  frontend::SkeletonizeOptions finish() const;
};

} // namespace skelcast::cli

#endif // SKELCAST_HAVE_FRONTEND
