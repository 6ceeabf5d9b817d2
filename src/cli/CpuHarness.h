// `project FILE.c --measure-cpu`: the CPU's own time for the speedup. A
// generated C harness allocates the function's arguments from the extents the
// skeletonizer inferred (or `--extent` gave), fills its inputs with in-range
// values, and times warm-up + N calls of the function compiled with the
// installed Clang (`clang-19 -O3 -march=native`, `-fopenmp` when the function
// holds OpenMP directives). docs/model.md, section 9, says how it is used.
#pragma once

#include "skelcast/frontend/Skeletonizer.h"
#include "skelcast/skeleton/Skeleton.h"

#include <string>
#include <vector>

namespace skelcast::cli {

struct CpuMeasureOptions {
  std::string compiler = "clang-19";
  std::vector<std::string> compilerArgs; ///< the -D, -I, -std= the file needs
  int repeats = 5;                       ///< timed calls after one warm-up call
};

struct CpuMeasurement {
  double medianMs = 0;
  std::vector<double> timesMs; ///< each timed call
  int threads = 1;             ///< OpenMP threads (OMP_NUM_THREADS or the cores), 1 if serial
  std::string command;         ///< how it was compiled
};

/// The function of `functions` to measure: the only one, or the one named by
/// `--function`; an InputError naming the file otherwise.
const frontend::CFunction &functionToMeasure(const std::vector<frontend::CFunction> &functions,
                                             const std::string &path);

/// The C text of the harness for `fn` of the C file `cfile` (an absolute path,
/// #included), its arrays shaped as `skel` declares them. Throws InputError,
/// at the function, naming the parameter it cannot provide and why.
std::string harnessSource(const std::string &cfile, const frontend::CFunction &fn,
                          const skeleton::SkeletonFile &skel, int repeats);

/// Compile and run the harness; InputError when the compiler is missing, the
/// harness does not compile or the run fails (with the compiler's message).
CpuMeasurement measureCpu(const std::string &cfile, const frontend::CFunction &fn,
                          const skeleton::SkeletonFile &skel, const CpuMeasureOptions &opts);

} // namespace skelcast::cli
