/// \file
/// Whole programs (docs/model.md, "Programs"): the kernels of a skeleton file in
/// order, `repeat` counts, the data's trip to the GPU and back over the host
/// link, fusion of neighbouring kernels, and the verdict against the CPU's time.
/// projectProgram runs these as four steps, one file each: Transfers.cpp,
/// Launches.cpp, Fusion.cpp and Verdict.cpp (src/model/ProgramSteps.h).
#pragma once

#include "skelcast/model/Project.h"
#include "skelcast/skeleton/Skeleton.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::model {

struct ProgramOptions {
  bool pinned = false;            ///< host buffers pinned (default: pageable, as a naive port)
  std::optional<double> cpuMs;    ///< the CPU's time for the whole program
  std::string cpuSource;          ///< where cpuMs came from: manifest, --cpu-ms, measured
  int cpuThreads = 0;             ///< measured: the threads it ran on (0: not known)
  int cpuRuns = 0;                ///< measured: the timed calls the median is of
  double minSpeedup = 2;          ///< worth porting from this speedup on
};

/// Copies of one array in one direction over the host link.
struct Transfer {
  std::string array;
  double bytes = 0, ms = 0; ///< ms: one copy
  double count = 1;         ///< copies over the whole program
  bool byHost = false;      ///< made for a `host reads|writes` step
  bool eachRepeat = false;  ///< made again in every pass of a repeat
};

struct ProgramKernel {
  std::string kernel, layout;
  double count = 1;    ///< launches (the enclosing repeat's count)
  double timeMs = 0;   ///< one launch, launch overhead included
  double launchMs = 0; ///< of which launch overhead
  std::optional<RepeatedLaunches> launches; ///< in an indexed repeat: timeMs is their mean
};

struct FusionGroup {
  std::vector<std::string> kernels;
  std::string fusedLayout;
  double unfusedMs = 0, fusedMs = 0; ///< kernel time of one pass over the group
  std::string winner;                ///< fused | unfused
  double bytesSaved = 0;             ///< DRAM bytes the fused kernel does not move
  int launchesSaved = 0;
  double activeWarpsUnfused = 0, activeWarpsFused = 0; ///< occupancy (N) of the best layouts
  int recomputedCopies = 0;
  std::string why;
};

struct ProgramProjection {
  std::vector<Transfer> h2d, d2h;
  std::vector<ProgramKernel> kernels;
  std::vector<FusionGroup> fusion;
  std::vector<std::string> notFused; ///< neighbours that could not be fused, and why
  double h2dMs = 0, d2hMs = 0, kernelsMs = 0, kernelsUnfusedMs = 0, launchMs = 0, totalMs = 0;
  int repeats = 1;                   ///< the largest repeat count, for the break-even
  std::optional<double> cpuMs, speedup, breakEvenRepeats;
  std::string cpuSource;             ///< manifest, --cpu-ms or measured (with cpuMs)
  int cpuThreads = 0, cpuRuns = 0;   ///< measured only
  std::string verdict;               ///< "port" or "do not port"
  std::string reason;                ///< why not, when not
};

/// Every kernel of `file` analyzed (layout::analyzeKernel), with each array's
/// reuse distance in the program (ArrayInfo::programReuseBytes): the kernels
/// run in file order, and those of a `repeat` of two or more also after the
/// repeat's last kernel (its steady state). The `residency` term reads it.
std::vector<layout::KernelInfo> analyzeProgram(const skeleton::SkeletonFile &file);

/// Kernel `k` of `file` alone, analyzed as analyzeProgram does it. In an
/// indexed repeat: its launch at index value `indexValue`, by default the
/// representative one (representativeIndexValue).
layout::KernelInfo analyzeProgramKernel(const skeleton::SkeletonFile &file, size_t k,
                                        std::optional<int64_t> indexValue = std::nullopt);

/// Kernel `k` of an indexed repeat: the index value of its largest launch (the
/// largest loop space of the first, middle and last launches), the one that
/// reports characterize and layouts are enumerated on.
int64_t representativeIndexValue(const skeleton::SkeletonFile &file, size_t k);

/// Kernel `k` projected as part of its program: projectKernel of
/// analyzeProgramKernel, or, in an indexed repeat, the layouts of its largest
/// launch ranked by their time summed over kRankingPoints representative
/// launches, with the best one's launches summed (KernelProjection::launches;
/// docs/model.md, section 9). `only`: one layout, as projectKernel.
KernelProjection projectProgramKernel(const skeleton::SkeletonFile &file, size_t k,
                                      const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                                      const ModelOptions &mo,
                                      const std::optional<layout::Layout> &only = std::nullopt);


/// Kernels of one file analyzed one at a time, as analyzeProgram does it, with
/// the program's reuse distances computed once (analyzeProgramKernel computes
/// them for the whole file at each call). `file` must outlive it.
class ProgramAnalysis {
public:
  explicit ProgramAnalysis(const skeleton::SkeletonFile &file);
  /// Kernel `k`; in an indexed repeat, its launch at `indexValue` (by default
  /// the representative one, representativeIndexValue).
  layout::KernelInfo kernel(size_t k, std::optional<int64_t> indexValue = std::nullopt) const;
  const skeleton::SkeletonFile &file() const { return file_; }

private:
  const skeleton::SkeletonFile &file_;
  std::vector<std::map<std::string, double>> distances_;
  layout::FileContext ctx_;
};

/// projectProgramKernel with the program analyzed once (what `project` uses
/// for every kernel of a file).
KernelProjection projectProgramKernel(const ProgramAnalysis &analysis, size_t k,
                                      const hw::HwSpec &hw, const layout::EnumerateOptions &eo,
                                      const ModelOptions &mo,
                                      const std::optional<layout::Layout> &only = std::nullopt);

/// `kernels` holds the projection of every kernel of `file`, in file order
/// (projectProgramKernel: a kernel of an indexed repeat with its launches).
ProgramProjection projectProgram(const skeleton::SkeletonFile &file,
                                 const std::vector<KernelProjection> &kernels, const hw::HwSpec &hw,
                                 const layout::EnumerateOptions &eo, const ModelOptions &mo,
                                 const ProgramOptions &po);

/// Host-link time of `bytes` in one direction: latency + bytes / bandwidth, or,
/// for pageable memory within the sizes of the spec's measured curve, the curve
/// (linear between its points, proportional beyond its largest size).
double transferMs(const hw::HwSpec &hw, double bytes, bool hostToDevice, bool pinned);

} // namespace skelcast::model
