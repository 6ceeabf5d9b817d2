/// \file
/// Validation against measured GPU times (`skelcast validate`): each measured
/// case (a skeleton, a layout, a median kernel time) is projected with the
/// chosen model and with the roofline baseline; errors are max(p/m, m/p) - 1
/// and summarised by their geometric mean; per kernel, the measured layout the
/// projection ranks first is compared with the fastest measured one.
#pragma once

#include "skelcast/model/Project.h"
#include "skelcast/model/Rerank.h"
#include "skelcast/skeleton/Skeleton.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace skelcast::model {

/// What ptxas reports of one program: registers per thread and static shared
/// memory, a coarse fingerprint of the code that ran.
struct ProgramResources {
  int registers = 0;
  int64_t staticSharedBytes = 0;
  bool operator==(const ProgramResources &o) const {
    return registers == o.registers && staticSharedBytes == o.staticSharedBytes;
  }
};

/// What identifies an emitted program (validate --check-programs compares the
/// measured one's with the one today's `emit` writes for the same layout):
/// emit's fingerprint of its GPU code (emit::programFingerprint; "" where
/// unknown), and ptxas's report where it was built.
struct ProgramIdentity {
  std::string fingerprint;
  std::optional<ProgramResources> resources;
};

struct MeasuredCase {
  std::string kernel, size, skeleton, layout;
  /// The case's C version (field "c"; "" when the file names none) and the
  /// sample files of its index arrays ("c_sample"), paths resolved.
  std::string cSource;
  std::map<std::string, std::string> cSamples;
  /// How the C file is read, when the run that measured it was given options
  /// (`validate --run -D N=4096 --extent ...`): fields "c_args" (Clang
  /// arguments), "c_extent", "c_trip" and "c_function".
  std::vector<std::string> cArgs;
  std::map<std::string, std::vector<int64_t>> cExtents;
  std::map<std::string, int64_t> cTrips;
  std::string cFunction, cKernel;
  /// How the launches were timed (field "timing", of the case or of the file):
  /// "alone" (each launch between its own event pair, repeated over the same
  /// arrays: the default, the hand-written programs) or "back_to_back" (a
  /// batch of launches queued between one event pair: emit's programs).
  layout::LaunchTiming timing = layout::LaunchTiming::RepeatedAlone;
  double timeMs = 0;
  /// The measured program was written by `skelcast emit` (field "method" of
  /// the case or the file begins "skelcast emit"), not by hand.
  bool emitted = false;
  /// Its ptxas report, where the record has one (fields "regs_per_thread",
  /// "static_smem_bytes"), and emit's fingerprint of its GPU code (field
  /// "program", printed by the programs emitted since 2026-12-01; "" before).
  std::optional<ProgramResources> recorded;
  std::string program;
};

/// Where the kernel of a measured case comes from. The user's path is the C
/// file through the skeletonizer (the CLI supplies that loader: the model has
/// no Clang); the hand skeleton, counted from the measured kernel's SASS,
/// checks the model alone.
struct KernelSource {
  std::string label; ///< e.g. "C files (skeletonizer)"
  std::function<std::string(const MeasuredCase &)> path;
  std::function<skeleton::SkeletonFile(const MeasuredCase &)> load;
  /// Where set (the C path with --counts not `table` and nvcc found): ptxas's
  /// registers per thread of `layouts` of kernel `k` of the case's C file, one
  /// call per kernel for all its measured layouts (docs/model.md, "Registers
  /// from ptxas"); the measured layouts are projected with them.
  std::function<std::vector<CompiledCounts>(const MeasuredCase &, size_t k,
                                                   const std::vector<layout::Layout> &layouts)>
      registers;
  /// Where set (validate --check-programs): the program today's `emit` writes
  /// for each of `layouts` of kernel `k` of the case's C file (nullopt where it
  /// is not emitted): its fingerprint, and ptxas's report where build[i] asks
  /// for it (a record without a fingerprint) and nvcc built it.
  std::function<std::vector<std::optional<ProgramIdentity>>(const MeasuredCase &, size_t k,
                                                            const std::vector<layout::Layout> &layouts,
                                                            const std::vector<bool> &build)>
      programs;
};

/// The hand skeletons of the cases ("model only").
KernelSource handSkeletons();

struct Measurements {
  std::string path, gpuName;
  std::vector<MeasuredCase> cases;
};

/// Read a measurement file (validation/results/*_kernels.json); skeleton paths
/// are relative to its "skeleton_root" (itself relative to the file, default ".").
Measurements loadMeasurements(const std::string &path);

/// Several runs of the same cases: each case keeps its lowest median, since
/// interference from other work can only add time. Cases are matched by
/// kernel, size and layout; a case missing from a run is kept as measured.
Measurements mergeRuns(const std::vector<Measurements> &runs);

/// How `validate --check-programs` compared an emitted case's program with
/// the one today's emit writes for its layout.
enum class ProgramComparison {
  None,        ///< not compared
  Fingerprint, ///< by emit's fingerprints (the record carries one)
  Ptxas,       ///< by ptxas's registers and shared memory (older records)
};
/// "none", "fingerprint", "ptxas": the JSON's `program.compared_by`.
const char *comparisonName(ProgramComparison c);

struct CaseResult {
  MeasuredCase measured;
  std::string skeletonPath; ///< resolved
  LayoutProjection projection; ///< of the measured layout
  double projectedMs = 0, rooflineMs = 0;
  double error = 0, rooflineError = 0; ///< max(p/m, m/p) - 1
  std::string bound;
  /// With KernelSource::programs, for an emitted case: the program today's
  /// emit writes for its layout.
  std::optional<ProgramIdentity> today;
  /// How it was compared with the measured one: by emit's fingerprints where
  /// the record has one, else by ptxas's reports; None where it was not.
  ProgramComparison comparedBy = ProgramComparison::None;
  /// An emitted case that could not be compared: why (today's emit does not
  /// write its layout, or its record has no fingerprint and nvcc built none).
  std::string notComparedWhy;
  /// They differ: the time measured is not that of the program the projection
  /// stands for. Such cases are listed but set apart from the figures
  /// (ValidationReport::programs).
  bool programChanged = false;
};

/// The ranking's test: a layout measured within 10% of the fastest measured one.
inline bool withinTenPercentOf(double ms, double fastestMs) { return ms <= 1.10 * fastestMs; }

struct KernelCheck {
  std::string kernel, size;
  std::string source;            ///< the cases' C file (or hand skeleton)
  std::string fastestMeasured;   ///< layout
  double fastestMs = 0;
  std::string projectedBest;     ///< the measured layout the model ranks first
  double projectedBestMeasuredMs = 0;
  bool withinTenPercent = false;
  std::string enumeratedTop;     ///< the enumerator's overall first layout
  bool enumeratedTopMeasured = false;
  double enumeratedTopMs = 0;    ///< its measured time, when measured
};

struct ValidationReport {
  std::string hwName, model, measurementsPath, gpuName;
  std::string source; ///< KernelSource::label
  /// The same measurements projected from another source (the C path's
  /// report carries the model-only figure beside it), and why a source was not used.
  struct Figure {
    std::string source;
    size_t cases = 0, kernels = 0;
    double geomeanError = 0, maxError = 0;
    int topWithinTen = 0;
  };
  std::vector<Figure> otherFigures;
  /// validate --check-programs: how many emitted cases were compared with
  /// today's programs, how many could not be (not emitted today, or
  /// without a fingerprint where nvcc is not found), and how many changed; the
  /// figures above leave the changed out, `withChanged` has them in.
  struct Programs {
    bool checked = false;
    size_t compared = 0, notCompared = 0, changed = 0;
    Figure withChanged;
    double withChangedRooflineError = 0;
    /// "kernel size" of the kernels whose every case is set apart: they are
    /// in `withChanged`'s ranking only.
    std::vector<std::string> kernelsSetApart;
  } programs;
  std::string note;
  std::vector<CaseResult> cases;
  std::vector<KernelCheck> kernels;
  double geomeanError = 0, rooflineGeomeanError = 0, maxError = 0;
  int topWithinTen = 0;
};

ValidationReport validate(const Measurements &m, const hw::HwSpec &hw, const ModelOptions &mo,
                          const std::string &modelLabel, const KernelSource &source = handSkeletons());

/// Measured whole programs (validation/results/*_programs.json): the fusion
/// chain unfused and fused, and HotSpot time steps with their transfers.
struct ProgramCheck {
  std::string what;     ///< e.g. "fusion chain n=65536" or "hotspot 1024x1024, 10 steps"
  std::string quantity; ///< unfused | fused | winner | h2d | d2h | kernels | total
  double measuredMs = 0, projectedMs = 0, error = 0;
  std::string measuredWinner, projectedWinner; ///< quantity == winner
  bool ok = true;       ///< within the quantity's target
  bool pinned = false;  ///< the program's host buffers were pinned
};

struct ProgramValidation {
  std::string hwName, model, path;
  std::string gpuName; ///< the measured GPU (the first file's `gpu.name`), "" when not given
  std::vector<ProgramCheck> checks;
  bool transfersWithin15 = true, winnersRight = true, totalsWithin25 = true;
};

/// The GPU a measurement file (kernels or programs) was measured on: its
/// `gpu.name`, "" when absent.
std::string measuredGpuName(const std::string &path);

/// Whether `gpuName` (as CUDA reports it, "NVIDIA H100 80GB HBM3") is the GPU
/// of `hw`: the spec's name, letters and digits only, is in it ("h100").
bool gpuMatchesSpec(const std::string &gpuName, const hw::HwSpec &hw);

/// InputError naming `path`'s field 'gpu.name' when the file was measured on
/// another GPU than `hw`'s (a file without a GPU name passes).
void requireSameGpu(const std::string &path, const hw::HwSpec &hw);

/// Whether a measurement file holds programs rather than kernel cases.
bool isProgramMeasurements(const std::string &path);

ProgramValidation validatePrograms(const std::vector<std::string> &paths, const hw::HwSpec &hw,
                                   const ModelOptions &mo, const std::string &modelLabel);

} // namespace skelcast::model
