// Reading the kernels a command works on, from .skel files (and, with the
// frontend, from C files). Every command and the suite runner read their
// inputs through loadSkeleton, so the frontend has exactly one place to hook in.
#pragma once

#include "skelcast/frontend/Skeletonizer.h" // CFunction: plain structs, no Clang
#include "skelcast/skeleton/Skeleton.h"
#include "skelcast/support/Diagnostic.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace skelcast::cli {

/// How to read one input: what a suite manifest (or a command line) says about it.
struct InputOptions {
  std::vector<std::string> compilerArgs;      ///< C inputs only: -D, -I, -std=...
  std::string function;                       ///< C inputs only: `--function NAME`
  std::string compilationDbDir;               ///< C inputs only: `-p DIR`
  std::map<std::string, std::vector<int64_t>> extents; ///< C inputs only: `--extent a=N,N`
  std::map<std::string, int64_t> trips;       ///< loop index -> average trip count (`--trip n=14`)
  std::map<std::string, std::string> samples; ///< array -> sample file, already resolved (`--sample M=FILE`)
  bool assumeAliasing = false;                ///< C inputs only: `--assume-aliasing`
  /// .skel inputs only: macros whose value is replaced (`--sweep`, through withSize).
  std::map<std::string, int64_t> macroValues;
};

/// A parsed input and the warnings reading it produced (the skeletonizer's
/// "cannot port this loop" ones; none for .skel files).
struct LoadedInput {
  skeleton::SkeletonFile file;
  std::vector<Warning> warnings;
  std::vector<frontend::CFunction> functions; ///< C inputs: the functions with kernels
};

/// Parse one input file into a skeleton; bad input throws InputError.
skeleton::SkeletonFile loadSkeleton(const std::string &path);

/// The same with options. For a `.skel` file, `trips` set the trip-count hint of
/// every loop with that index and `samples` the sample file of that array (an
/// unknown loop or array is an InputError); `compilerArgs` must be empty. A `.c`
/// file goes through the skeletonizer (all the options apply); without the
/// frontend it is an InputError. `diagnostics` receives what the compiler
/// prints (nothing for .skel files).
LoadedInput loadSkeleton(const std::string &path, const InputOptions &opts,
                         std::ostream &diagnostics);

/// `opts` for reading `path` with the size `name` set to `value` (`--sweep`):
/// for a .skel file, the value of its macro `name` (loadSkeleton refuses a
/// file without it); for a C file, the --extent of that name when there is one
/// (a scalar's value, or each extent of an array), else `-D name=value`, which
/// needs `#ifndef name` around the file's own #define (without it the file's
/// value would win); a C file that neither defines, tests nor has an --extent
/// of that name is an InputError at `--sweep`.
InputOptions withSize(InputOptions opts, const std::string &path, const std::string &name,
                      int64_t value);

/// Whether `path` names a C input (by its extension).
bool isCInput(const std::string &path);

} // namespace skelcast::cli
