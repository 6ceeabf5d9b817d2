// Reading the kernels a command works on, from .skel files (and, with the
// frontend, from C files). Every command and the suite runner read their
// inputs through loadSkeleton, so the frontend has exactly one place to hook in.
#pragma once

#include "skelcast/frontend/Skeletonizer.h" // CFunction: plain structs, no Clang
#include "skelcast/skeleton/Skeleton.h"
#include "skelcast/support/Diagnostic.h"
#include "skelcast/toolchain/Toolchain.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
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
  std::string language;                       ///< `--language c|skel`; empty: by the extension
  /// C inputs: how the skeletonizer prints its warnings when no nest is portable
  std::function<std::string(const Warning &)> renderWarning;
  bool colorDiagnostics = false;              ///< C inputs: Clang's diagnostics in colour
  /// C inputs: where `comp` counts come from (`--counts`; docs/skeletonizer.md,
  /// "Counts from a compiler"): the table, or the compiled naive layout.
  toolchain::CountSource counts = toolchain::CountSource::Table;
  /// C inputs: the load groups of each ranked layout's SASS (`--load-groups
  /// sass`; docs/model.md, "Load groups from the SASS") instead of the estimate's.
  bool sassLoadGroups = false;
  /// The compilations of one command run, shared by its inputs; one per call when null.
  std::shared_ptr<toolchain::CompileCache> compileCache;
};

/// A parsed input and the warnings reading it produced (the skeletonizer's
/// "cannot port this loop" ones; none for .skel files).
struct LoadedInput {
  skeleton::SkeletonFile file;
  std::vector<Warning> warnings;
  std::vector<frontend::CFunction> functions; ///< C inputs: the functions with kernels
};

/// Parse one input file (`-`: standard input) into a skeleton; bad input throws InputError.
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

/// Whether `path` names a C input by its extension: C (.c) or C++ (.cc, .cpp,
/// .cxx, .c++, .C), which the skeletonizer reads alike.
bool isCInput(const std::string &path);

/// Whether `path` is read as C: `--language c`, or a C input by its extension
/// where no `--language` is given.
bool readsAsC(const InputOptions &io, const std::string &path);

/// `target` as a path relative to the directory of `anchorFile` when both are
/// relative (or both absolute), so that resolveRelative(anchorFile, result)
/// gives `target` back; otherwise `target` made absolute.
std::string relativeTo(const std::string &anchorFile, const std::string &target);

/// How messages name an input: `<stdin>` for `-`, else the path.
std::string inputName(const std::string &path);

/// The skeletonizer's options of `opts` (what loadSkeleton gives it for a C file).
frontend::SkeletonizeOptions skeletonizeOptions(const InputOptions &opts);

#ifdef SKELCAST_HAVE_FRONTEND
/// Skeletonize the C input `path` (`-`: standard input, named `<stdin>`) with
/// the flags of the nearest `.skelcast.json` before `so`'s and, without `-p`,
/// the nearest `compile_commands.json` that names the file.
/// `counts` other than Table: the `comp`s from the compiled naive layout of
/// each kernel (emit::skeletonizeWithCompiledCounts, with `cache` or one of its
/// own), Auto resolved with the tools found.
frontend::SkeletonizeResult skeletonizeInput(
    const std::string &path, frontend::SkeletonizeOptions so, std::ostream &diagnostics,
    toolchain::CountSource counts = toolchain::CountSource::Table,
    toolchain::CompileCache *cache = nullptr);
#endif

} // namespace skelcast::cli
