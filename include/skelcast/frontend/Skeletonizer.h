/// \file
/// The Clang skeletonizer: C source in, code skeletons out (GROPHECY, SC'11,
/// section 5, done by a compiler instead of by hand).
///
/// skeletonizeFile compiles one C file with Clang 19 (LibTooling, `-x c
/// -fopenmp`), finds the outermost loop nests whose iterations are independent
/// (an OpenMP `parallel for` is trusted; otherwise a dependence test on the
/// array subscripts decides), and turns each into one `parallel_for` kernel of
/// the skeleton IR: loads and stores with their index expressions, `stream`
/// and `for` loops, branches with probabilities, and `comp N` instruction
/// counts per straight-line block. docs/skeletonizer.md is the reference for
/// what is recognised, how instructions are counted and what is refused.
///
/// Nothing here prints except through the `diagnostics` stream: Clang's own
/// diagnostics go there, and so do the collected warnings when no nest at all
/// could be ported (the InputError alone would not say why).
#pragma once

#include "skelcast/skeleton/Skeleton.h"
#include "skelcast/support/Diagnostic.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::frontend {

struct SkeletonizeOptions {
  std::vector<std::string> clangArgs;                  ///< -D, -I, -std=, and everything after `--`
  std::string compilationDbDir;                        ///< -p DIR, empty if none
  std::string function;                                ///< --function NAME, empty = all
  std::map<std::string, std::vector<int64_t>> extents; ///< --extent a=N,N (a scalar: its value)
  std::map<std::string, int64_t> trips;                ///< --trip n=14 (by loop index name)
  std::map<std::string, std::string> samples;          ///< --sample M=FILE
  /// --assume-aliasing: any two pointers may overlap unless declared
  /// 'restrict' (the strict rule); by default pointer origins are traced
  bool assumeAliasing = false;
  /// How the warnings printed when no nest can be ported look (the CLI's
  /// source line and caret); Warning::str() when unset
  std::function<std::string(const Warning &)> renderWarning;
  bool colorDiagnostics = false; ///< Clang's own diagnostics in colour (--color)
};

/// A parameter of a function with kernels, as a CPU harness needs it to call
/// the function (`project --measure-cpu`).
struct CParam {
  enum class Kind { Buffer, Integer, Floating, Other };
  Kind kind = Kind::Other;
  std::string name;
  std::string elemType;            ///< Buffer: the element's C type (canonical spelling)
  bool elemFloating = false;       ///< Buffer: float or double elements
  std::vector<std::string> arrays; ///< Buffer: the skeleton arrays it is accessed as
  std::optional<int64_t> value;    ///< Integer: given by `--extent NAME=V`
  std::string why;                 ///< Other: what it is (a struct, a pointer to pointers, ...)
};

/// A function of the file whose nests became kernels.
struct CFunction {
  std::string name;
  SourceLoc loc;
  bool openmp = false; ///< its body holds OpenMP directives
  std::vector<CParam> params;
};

struct SkeletonizeResult {
  skeleton::SkeletonFile file;   ///< passes parseSkeleton(printSkeleton(file)) unchanged
  std::vector<Warning> warnings; ///< positioned: skipped nests, default probabilities/trips
  std::vector<CFunction> functions; ///< those with kernels, in source order
};

/// Skeletonize the C file at `path` (as the user wrote it: warnings name it so).
/// Throws InputError when the file does not compile (Clang's diagnostics are
/// printed to `diagnostics` first), when `--function` names no function, or
/// when no portable nest is found (the warnings saying why are printed to
/// `diagnostics` first).
SkeletonizeResult skeletonizeFile(const std::string &path, const SkeletonizeOptions &opts,
                                  std::ostream &diagnostics);

/// The same on source text held in memory, compiled as if it were the file
/// `path` (for tests; `#include "..."` still looks beside `path`).
SkeletonizeResult skeletonizeCode(const std::string &code, const std::string &path,
                                  const SkeletonizeOptions &opts, std::ostream &diagnostics);

} // namespace skelcast::frontend
